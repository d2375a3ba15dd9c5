"""Pages: the host panel and its actions."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from capeval.server.api.csrf import verify_csrf
from capeval.server.api.deps import (
    Ctx,
    HostUser,
    SubmissionId,
)
from capeval.server.api.uploads import form_text, read_form
from capeval.server.domain.errors import NotFound
from capeval.server.domain.visibility import access
from capeval.server.models import Submission
from capeval.server.services.audit import audit_rows
from capeval.server.services.jobs import failed_jobs
from capeval.server.services.submissions import cancel_submission, rerun_submission, set_baseline, submission_view
from capeval.server.web.templating import render

__all__ = ["router"]

router = APIRouter(include_in_schema=False)
#: Submissions listed on the host panel.
PANEL_LIMIT = 200


@router.get("/host")
def host_page(request: Request, host: HostUser, ctx: Ctx) -> Response:
    with ctx.db.read() as session:
        rows = session.scalars(select(Submission).order_by(Submission.id.desc()).limit(PANEL_LIMIT))
        subs = [submission_view(session, s, access(host, s, s.phase)) for s in rows]
    return render(
        request,
        "host.html",
        submissions=subs,
        failed_jobs=failed_jobs(ctx.db),
        audit=audit_rows(ctx.db, limit=100),
        user=host,
    )


@router.post("/host/submissions/{submission_id}/{action}")
async def host_action(
    action: str,
    request: Request,
    submission_id: SubmissionId,
    host: HostUser,
    ctx: Ctx,
) -> Response:
    form = await read_form(request)
    verify_csrf(request, ctx.settings, form_text(form, "csrf_token", limit=200))
    if action == "rerun":
        await run_in_threadpool(
            rerun_submission, ctx.db, host, submission_id, ctx.scorer_version, ctx.settings.max_attempts
        )
    elif action == "cancel":
        await run_in_threadpool(cancel_submission, ctx.db, host, submission_id)
    elif action in ("baseline", "unbaseline"):
        await run_in_threadpool(set_baseline, ctx.db, host, submission_id, action == "baseline")
    else:
        raise NotFound("unknown_action", f"unknown action {action[:40]!r}")
    return RedirectResponse("/host", status_code=303)
