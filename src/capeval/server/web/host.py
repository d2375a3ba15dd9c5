"""Pages: the host panel and its actions."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, QueryParams

from capeval.server.api.deps import (
    Ctx,
    HostUser,
    SubmissionId,
)
from capeval.server.api.uploads import form_text, read_checked_form
from capeval.server.domain.errors import DomainError, NotFound
from capeval.server.domain.states import SubmissionState
from capeval.server.models import Challenge
from capeval.server.services.audit import audit_rows
from capeval.server.services.challenges import challenge_summary, get_challenge
from capeval.server.services.hosting import (
    PHASE_FIELDS,
    SubmissionFilter,
    hide_submission,
    host_submissions,
    list_tokens,
    read_registration,
    revoke_token,
    update_phase,
    update_registration,
    update_split,
)
from capeval.server.services.jobs import failed_jobs
from capeval.server.services.submissions import (
    cancel_submission,
    parse_flag,
    rerun_submission,
    set_baseline,
)
from capeval.server.web.templating import render

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


def _back(form: FormData) -> str:
    """The panel's query string a host action returns to: the filters and page the host was on,
    re-read and re-written (never a raw value from the form, so never a redirect elsewhere)."""
    try:
        flt = SubmissionFilter.parse(QueryParams(form_text(form, "filters", limit=2000)))
    except DomainError:
        return ""
    query = flt.query()
    return f"&{query}" if query else ""


@router.get("/host")
def host_page(request: Request, host: HostUser, ctx: Ctx) -> Response:
    flt = SubmissionFilter.parse(request.query_params)
    # Back from an action (``done``), a page the action emptied shows the last page instead of a 400.
    listing = host_submissions(ctx.db, host, flt, clamp=bool(request.query_params.get("done")))
    if listing["page"] != flt.page:
        flt = SubmissionFilter(flt.team, flt.phase, flt.status, listing["page"], flt.per_page)
    with ctx.db.read() as session:
        phases = [
            f"{c.slug}/{p.name}" for c in session.scalars(select(Challenge).order_by(Challenge.id)) for p in c.phases
        ]
        challenges = [
            challenge_summary(get_challenge(session, slug), host)
            for slug in session.scalars(select(Challenge.slug).order_by(Challenge.id))
        ]
    return render(
        request,
        "host.html",
        listing=listing,
        flt=flt,
        phases=phases,
        statuses=[str(s) for s in SubmissionState],
        challenges=challenges,
        registration=read_registration(ctx.db),
        tokens=list_tokens(ctx.db, host),
        done=request.query_params.get("done", ""),
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
    form = await read_checked_form(request, ctx.settings)
    if action == "rerun":
        await run_in_threadpool(
            rerun_submission, ctx.db, host, submission_id, ctx.scorer_version, ctx.settings.max_attempts
        )
    elif action == "cancel":
        await run_in_threadpool(cancel_submission, ctx.db, host, submission_id)
    elif action in ("baseline", "unbaseline"):
        await run_in_threadpool(set_baseline, ctx.db, host, submission_id, action == "baseline")
    elif action in ("hide", "restore"):
        await run_in_threadpool(hide_submission, ctx.db, host, submission_id, action == "hide")
    else:
        raise NotFound("unknown_action", f"unknown action {action[:40]!r}")
    return RedirectResponse(f"/host?done={action}{_back(form)}#submissions", status_code=303)


@router.post("/host/phases/{slug}/{phase}")
async def host_phase(slug: str, phase: str, request: Request, host: HostUser, ctx: Ctx) -> Response:
    """Edit a phase from the panel's form (every field is sent; empty limits and dates mean none)."""
    form = await read_checked_form(request, ctx.settings)
    changes: dict[str, object] = {f: form_text(form, f, limit=64).strip() for f in PHASE_FIELDS if f != "allow_dry_run"}
    changes["allow_dry_run"] = parse_flag("allow_dry_run", form_text(form, "allow_dry_run"), default=False)
    await run_in_threadpool(update_phase, ctx.db, host, slug, phase, changes)
    return RedirectResponse("/host?done=phase#settings", status_code=303)


@router.post("/host/splits/{slug}/{split}")
async def host_split(slug: str, split: str, request: Request, host: HostUser, ctx: Ctx) -> Response:
    form = await read_checked_form(request, ctx.settings)
    await run_in_threadpool(update_split, ctx.db, host, slug, split, form_text(form, "visibility", limit=16))
    return RedirectResponse("/host?done=split#settings", status_code=303)


@router.post("/host/registration")
async def host_registration(request: Request, host: HostUser, ctx: Ctx) -> Response:
    form = await read_checked_form(request, ctx.settings)
    await run_in_threadpool(
        lambda: update_registration(
            ctx.db,
            host,
            mode=form_text(form, "mode", limit=16),
            team_size=form_text(form, "team_size", limit=16).strip(),
            new_invite_code=parse_flag("new_invite_code", form_text(form, "new_invite_code"), default=False),
        )
    )
    return RedirectResponse("/host?done=registration#registration", status_code=303)


@router.post("/host/tokens/{token_id}/revoke")
async def host_revoke(token_id: SubmissionId, request: Request, host: HostUser, ctx: Ctx) -> Response:
    await read_checked_form(request, ctx.settings)
    await run_in_threadpool(revoke_token, ctx.db, host, token_id)
    return RedirectResponse("/host?done=revoke#tokens", status_code=303)
