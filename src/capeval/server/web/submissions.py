"""Pages: upload form, my submissions, one submission, per-image results."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from capeval.server.api.deps import (
    Ctx,
    MaybeUser,
    SubmissionId,
)
from capeval.server.api.errors import status_of
from capeval.server.api.uploads import check_form_csrf, form_text, read_checked_form, read_form
from capeval.server.domain.errors import DomainError, NotFound
from capeval.server.models import User
from capeval.server.services.challenges import challenge_summary, get_challenge
from capeval.server.services.context import ServerContext
from capeval.server.services.submissions import (
    SubmissionMeta,
    accept_upload,
    drilldown,
    edit_submission,
    get_submission,
    list_submissions,
    parse_flag,
    set_representative,
    submission_view,
    team_quota,
    withdraw_submission,
)
from capeval.server.web.accounts import login_redirect
from capeval.server.web.templating import render

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


def _summary(ctx: ServerContext, slug: str) -> dict:
    with ctx.db.read() as session:
        return challenge_summary(get_challenge(session, slug))


@router.get("/c/{slug}/submit")
def submit_page(slug: str, request: Request, ctx: Ctx, user: MaybeUser) -> Response:
    if user is None:
        return login_redirect(request)
    summary = _summary(ctx, slug)
    quota = team_quota(ctx.db, user, slug)
    return render(request, "submit.html", challenge=summary, quota=quota, error=None, user=user, result=None, state={})


@router.post("/c/{slug}/submit")
async def submit_post(slug: str, request: Request, ctx: Ctx, user: MaybeUser) -> Response:
    if user is None:
        return login_redirect(request)
    summary = await run_in_threadpool(_summary, ctx, slug)

    state: dict[str, object] = {}

    def page(status: int, error: str | None = None, result: dict | None = None) -> Response:
        # The form keeps what was typed and the quota stays in view after an error or a dry run.
        quota = team_quota(ctx.db, user, slug)
        return render(
            request,
            "submit.html",
            status=status,
            challenge=summary,
            quota=quota,
            user=user,
            result=result,
            error=error,
            state=state,
        )

    try:
        form = await read_form(request, max_files=1)
        state = {
            "phase": form_text(form, "phase", limit=200),
            "method_name": form_text(form, "method_name", limit=1000),
            "method_description": form_text(form, "method_description", limit=10_000),
            "public": parse_flag("public", form_text(form, "public"), default=False),
            "dry_run": parse_flag("dry_run", form_text(form, "dry_run"), default=False),
        }
        check_form_csrf(request, ctx.settings, form)
        part = form.get("file")
        if not isinstance(part, UploadFile) or not part.filename:
            return page(400, "choose a results file (.json or .zip) to upload")
        # A browser sends nothing for an unticked box: no "public" field means a private entry.
        meta = SubmissionMeta.build(
            form_text(form, "method_name", limit=1000),
            form_text(form, "method_description", limit=10_000),
            parse_flag("public", form_text(form, "public"), default=False),
        )
        dry_run = parse_flag("dry_run", form_text(form, "dry_run"), default=False)
        out = await run_in_threadpool(
            accept_upload,
            ctx,
            user,
            slug,
            form_text(form, "phase", limit=200),
            await part.read(),
            content_type=part.content_type or "",
            filename=part.filename or "",
            meta=meta,
            dry_run=dry_run,
        )
    except DomainError as exc:
        return page(status_of(exc), exc.message)
    if dry_run:
        return page(200, result=out)
    return RedirectResponse(out["url"], status_code=303)


@router.get("/submissions")
def submissions_page(request: Request, ctx: Ctx, user: MaybeUser) -> Response:
    if user is None:
        return login_redirect(request)
    return render(request, "submissions.html", submissions=list_submissions(ctx.db, user), user=user)


@router.get("/submissions/{submission_id}")
def submission_page(
    request: Request,
    submission_id: SubmissionId,
    ctx: Ctx,
    user: MaybeUser,
) -> Response:
    if user is None:
        return login_redirect(request)
    with ctx.db.read() as session:
        row, acc = get_submission(session, submission_id, user)
        view = submission_view(session, row, acc)
        own = user.team_id is not None and row.team_id == user.team_id
    done = request.query_params.get("done", "")
    return render(request, "submission.html", s=view, user=user, own=own, done=done)


@router.get("/submissions/{submission_id}/images/{split}")
def images_page(
    split: str,
    request: Request,
    submission_id: SubmissionId,
    ctx: Ctx,
    user: MaybeUser,
) -> Response:
    if user is None:
        return login_redirect(request)
    return render(request, "images.html", d=drilldown(ctx.db, user, submission_id, split), user=user)


@router.post("/submissions/{submission_id}/representative")
async def representative_post(request: Request, submission_id: SubmissionId, ctx: Ctx, user: MaybeUser) -> Response:
    """Choose (or release, ``value=false``) the entry that represents the team."""
    if user is None:
        return login_redirect(request)
    form = await read_checked_form(request, ctx.settings)
    flag = parse_flag("value", form_text(form, "value"), default=True)
    await run_in_threadpool(set_representative, ctx.db, user, submission_id, flag)
    return RedirectResponse(f"/submissions/{submission_id}?done=representative", status_code=303)


@router.get("/submissions/{submission_id}/withdraw")
def withdraw_page(request: Request, submission_id: SubmissionId, ctx: Ctx, user: MaybeUser) -> Response:
    """Ask for confirmation before withdrawing (it cannot be undone)."""
    if user is None:
        return login_redirect(request)
    with ctx.db.read() as session:
        row, acc = get_submission(session, submission_id, user)
        view = submission_view(session, row, acc)
    return render(request, "withdraw.html", s=view, user=user)


@router.post("/submissions/{submission_id}/withdraw")
async def withdraw_post(request: Request, submission_id: SubmissionId, ctx: Ctx, user: MaybeUser) -> Response:
    if user is None:
        return login_redirect(request)
    form = await read_checked_form(request, ctx.settings)
    confirm = parse_flag("confirm", form_text(form, "confirm"), default=False)
    await run_in_threadpool(withdraw_submission, ctx.db, user, submission_id, confirm=confirm)
    return RedirectResponse(f"/submissions/{submission_id}?done=withdrawn", status_code=303)


def _own_view(ctx: ServerContext, user: User, submission_id: int) -> dict:
    """The view of one of the user's team's entries; other teams (hosts included) get 404."""
    with ctx.db.read() as session:
        row, acc = get_submission(session, submission_id, user)
        if user.team_id is None or row.team_id != user.team_id:
            raise NotFound("no_submission", f"no submission {submission_id} of your team")
        return submission_view(session, row, acc)


@router.get("/submissions/{submission_id}/edit")
def edit_page(request: Request, submission_id: SubmissionId, ctx: Ctx, user: MaybeUser) -> Response:
    """The team edits its entry's method name, description and public flag."""
    if user is None:
        return login_redirect(request)
    view = _own_view(ctx, user, submission_id)
    state = {
        "method_name": view["method_name"],
        "method_description": view["method_description"],
        "public": view["public"],
    }
    return render(request, "edit.html", s=view, state=state, error=None, user=user)


@router.post("/submissions/{submission_id}/edit")
async def edit_post(request: Request, submission_id: SubmissionId, ctx: Ctx, user: MaybeUser) -> Response:
    if user is None:
        return login_redirect(request)
    form = await read_checked_form(request, ctx.settings)
    # An unchecked box is not sent: the form always says whether the entry is public.
    state = {
        "method_name": form_text(form, "method_name", limit=1000),
        "method_description": form_text(form, "method_description", limit=10_000),
        "public": parse_flag("public", form_text(form, "public"), default=False),
    }
    try:
        await run_in_threadpool(edit_submission, ctx.db, user, submission_id, state)
    except DomainError as exc:
        if isinstance(exc, NotFound):
            raise
        view = await run_in_threadpool(_own_view, ctx, user, submission_id)
        return render(request, "edit.html", status=status_of(exc), s=view, state=state, error=exc.message, user=user)
    return RedirectResponse(f"/submissions/{submission_id}?done=edited", status_code=303)
