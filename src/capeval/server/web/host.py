"""Pages: the host panel (phases, registration, tokens, submissions, failed jobs, audit log), people
(accounts and teams), challenges (create and change them), and their actions.

A refused action shows its page again with the message next to the form and what was typed kept
(:class:`~capeval.server.web.templating.FormState`); a successful one redirects back with ``done``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
from capeval.server.api.errors import status_of
from capeval.server.api.setup import MAX_FILES, uploaded_files
from capeval.server.api.uploads import check_form_csrf, form_text, read_checked_form, read_form
from capeval.server.api.users import reset_url
from capeval.server.config import PhaseConfig
from capeval.server.domain.errors import DomainError, InvalidInput, NotFound
from capeval.server.domain.states import SubmissionState
from capeval.server.models import USER_STATES, Challenge, User
from capeval.server.services.audit import audit_rows
from capeval.server.services.challenges import challenge_summary, get_challenge
from capeval.server.services.context import ServerContext
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
from capeval.server.services.setup import (
    DEFINITION_TEMPLATE,
    add_phase,
    add_split,
    create_challenge,
    delete_phase,
    edit_challenge,
    parse_definition,
    replace_references,
    split_locked,
)
from capeval.server.services.submissions import (
    cancel_submission,
    parse_flag,
    rerun_submission,
    set_baseline,
)
from capeval.server.services.users import (
    issue_reset,
    list_teams,
    list_users,
    merge_teams,
    move_user,
    rename_team,
    set_user_status,
)
from capeval.server.web.templating import FormState, render

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


def _panel(
    request: Request, host: User, ctx: ServerContext, *, status: int = 200, fs: FormState | None = None
) -> Response:
    flt = SubmissionFilter.parse(request.query_params)
    # Back from an action (``done``), a page the action emptied shows the last page instead of a 400.
    listing = host_submissions(ctx.db, host, flt, clamp=bool(request.query_params.get("done")) or fs is not None)
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
        status=status,
        listing=listing,
        flt=flt,
        phases=phases,
        statuses=[str(s) for s in SubmissionState],
        challenges=challenges,
        registration=read_registration(ctx.db),
        tokens=list_tokens(ctx.db, host),
        done="" if fs is not None else request.query_params.get("done", ""),
        failed_jobs=failed_jobs(ctx.db),
        audit=audit_rows(ctx.db, limit=100),
        fs=fs or FormState(),
        user=host,
    )


@router.get("/host")
def host_page(request: Request, host: HostUser, ctx: Ctx) -> Response:
    return _panel(request, host, ctx)


Page = Callable[..., Response]


async def _act(
    request: Request,
    ctx: ServerContext,
    host: User,
    form_id: str,
    action: Callable[[FormData], Any],
    redirect: str | Callable[[Any], str],
    page: Page,
    *,
    form: FormData | None = None,
) -> Response:
    """Run a host action from a checked form: redirect on success, the page with the error next to the
    form and its input kept on a refusal."""
    if form is None:
        form = await read_checked_form(request, ctx.settings)
    try:
        result = await run_in_threadpool(action, form)
    except DomainError as exc:
        return page(request, host, ctx, status=status_of(exc), fs=FormState.of(form_id, exc.message, form))
    if isinstance(result, Response):
        return result
    return RedirectResponse(redirect(result) if callable(redirect) else redirect, status_code=303)


@router.post("/host/submissions/{submission_id}/{action}")
async def host_action(
    action: str,
    request: Request,
    submission_id: SubmissionId,
    host: HostUser,
    ctx: Ctx,
) -> Response:
    def run(form: FormData) -> None:
        if action == "rerun":
            rerun_submission(ctx.db, host, submission_id, ctx.scorer_version, ctx.settings.max_attempts)
        elif action == "cancel":
            cancel_submission(ctx.db, host, submission_id)
        elif action in ("baseline", "unbaseline"):
            set_baseline(ctx.db, host, submission_id, action == "baseline")
        elif action in ("hide", "restore"):
            hide_submission(ctx.db, host, submission_id, action == "hide")
        else:
            raise NotFound("unknown_action", f"unknown action {action[:40]!r}")

    form = await read_checked_form(request, ctx.settings)
    redirect = f"/host?done={action}{_back(form)}#submissions"
    return await _act(request, ctx, host, f"submission-{submission_id}", run, redirect, _panel, form=form)


@router.post("/host/phases/{slug}/{phase}")
async def host_phase(slug: str, phase: str, request: Request, host: HostUser, ctx: Ctx) -> Response:
    """Edit a phase from the panel's form (every field is sent; empty limits and dates mean none)."""

    def run(form: FormData) -> None:
        changes: dict[str, object] = {
            f: form_text(form, f, limit=64).strip() for f in PHASE_FIELDS if f != "allow_dry_run"
        }
        changes["allow_dry_run"] = parse_flag("allow_dry_run", form_text(form, "allow_dry_run"), default=False)
        update_phase(ctx.db, host, slug, phase, changes)

    return await _act(request, ctx, host, f"phase-edit-{slug}-{phase}", run, "/host?done=phase#settings", _panel)


@router.post("/host/splits/{slug}/{split}")
async def host_split(slug: str, split: str, request: Request, host: HostUser, ctx: Ctx) -> Response:
    def run(form: FormData) -> None:
        update_split(ctx.db, host, slug, split, form_text(form, "visibility", limit=16))

    return await _act(request, ctx, host, f"split-edit-{slug}-{split}", run, "/host?done=split#settings", _panel)


@router.post("/host/registration")
async def host_registration(request: Request, host: HostUser, ctx: Ctx) -> Response:
    def run(form: FormData) -> None:
        update_registration(
            ctx.db,
            host,
            mode=form_text(form, "mode", limit=16),
            team_size=form_text(form, "team_size", limit=16).strip(),
            new_invite_code=parse_flag("new_invite_code", form_text(form, "new_invite_code"), default=False),
            per_address_hour=(
                form_text(form, "per_address_hour", limit=16).strip() if "per_address_hour" in form else "keep"
            ),
        )

    return await _act(request, ctx, host, "registration-form", run, "/host?done=registration#registration", _panel)


@router.post("/host/tokens/{token_id}/revoke")
async def host_revoke(token_id: SubmissionId, request: Request, host: HostUser, ctx: Ctx) -> Response:
    def run(form: FormData) -> None:
        revoke_token(ctx.db, host, token_id)

    return await _act(request, ctx, host, f"token-{token_id}", run, "/host?done=revoke#tokens", _panel)


# --- people: accounts and teams ---------------------------------------------------------


def _people(
    request: Request,
    host: User,
    ctx: ServerContext,
    *,
    status: int = 200,
    fs: FormState | None = None,
    reset: dict[str, str] | None = None,
) -> Response:
    wanted = request.query_params.get("status", "")
    if wanted not in ("", *USER_STATES):
        raise InvalidInput("bad_status", f"status must be one of {', '.join(USER_STATES)} (or empty)")
    users, teams = list_users(ctx.db, host, status=wanted), list_teams(ctx.db, host)
    forms = {f"user-{u['username']}-{a}" for u in users for a in ("approve", "enable", "disable", "reset-link", "move")}
    forms |= {f"team-{t['id']}-{a}" for t in teams for a in ("rename", "merge")}
    return render(
        request,
        "host_people.html",
        status=status,
        users=users,
        teams=teams,
        orphan_error=fs.error if fs is not None and fs.form not in forms else "",
        wanted=wanted,
        states=USER_STATES,
        done="" if fs is not None else request.query_params.get("done", ""),
        fs=fs or FormState(),
        reset=reset,
        user=host,
    )


@router.get("/host/people")
def people_page(request: Request, host: HostUser, ctx: Ctx) -> Response:
    """Accounts (approve, disable, enable, reset links, move between teams) and teams (rename, merge)."""
    return _people(request, host, ctx)


@router.post("/host/users/{username}/{action}")
async def user_action(username: str, action: str, request: Request, host: HostUser, ctx: Ctx) -> Response:
    name = username[:80]

    def run(form: FormData) -> Any:
        if action in ("approve", "enable"):
            set_user_status(ctx.db, host, name, "active")
        elif action == "disable":
            set_user_status(ctx.db, host, name, "disabled")
        elif action == "move":
            create = parse_flag("create", form_text(form, "create"), default=False)
            move_user(ctx.db, host, name, form_text(form, "team", limit=200), create=create)
        elif action == "reset-link":
            token, expires = issue_reset(ctx.db, host, name)
            return {"username": name, "url": reset_url(request, token), "expires_at": expires}
        else:
            raise NotFound("unknown_action", f"unknown action {action[:40]!r}")
        return None

    form = await read_checked_form(request, ctx.settings)
    try:
        result = await run_in_threadpool(run, form)
    except DomainError as exc:
        return _people(
            request, host, ctx, status=status_of(exc), fs=FormState.of(f"user-{name}-{action}", exc.message, form)
        )
    if result is not None:  # the link is shown once, on this page (never in a URL)
        return _people(request, host, ctx, reset=result)
    return RedirectResponse(f"/host/people?done={action}#users", status_code=303)


@router.post("/host/teams/{team_id}/{action}")
async def team_action(team_id: SubmissionId, action: str, request: Request, host: HostUser, ctx: Ctx) -> Response:
    def run(form: FormData) -> None:
        if action == "rename":
            rename_team(ctx.db, host, team_id, form_text(form, "name", limit=200))
        elif action == "merge":
            into = form_text(form, "into", limit=20).strip()
            if not into.isdigit():
                raise InvalidInput("bad_into", "choose the team to merge into")
            merge_teams(ctx.db, host, team_id, int(into))
        else:
            raise NotFound("unknown_action", f"unknown action {action[:40]!r}")

    return await _act(request, ctx, host, f"team-{team_id}-{action}", run, f"/host/people?done={action}#teams", _people)


# --- challenges: create and change ------------------------------------------------------


def _setup(
    request: Request, host: User, ctx: ServerContext, *, status: int = 200, fs: FormState | None = None
) -> Response:
    with ctx.db.read() as session:
        rows = []
        for challenge in session.scalars(select(Challenge).order_by(Challenge.id)):
            summary = challenge_summary(challenge, host)
            locked = {s.name: split_locked(session, s) for s in challenge.splits}
            rows.append({**summary, "locked": locked})
    return render(
        request,
        "host_challenges.html",
        status=status,
        challenges=rows,
        template=DEFINITION_TEMPLATE,
        done="" if fs is not None else request.query_params.get("done", ""),
        fs=fs or FormState(),
        user=host,
    )


@router.get("/host/challenges")
def challenges_page(request: Request, host: HostUser, ctx: Ctx) -> Response:
    """Create a challenge; change titles, phases, splits and references."""
    return _setup(request, host, ctx)


@router.post("/host/challenges")
async def new_challenge(request: Request, host: HostUser, ctx: Ctx) -> Response:
    form = await read_form(request, max_files=MAX_FILES)
    check_form_csrf(request, ctx.settings, form)
    files = await uploaded_files(form)

    def run(form: FormData) -> str:
        config = parse_definition(form_text(form, "definition", limit=100_000))
        create_challenge(ctx.db, host, config, files, settings=ctx.settings, scorer_version=ctx.scorer_version)
        return config.slug

    return await _act(
        request,
        ctx,
        host,
        "new-challenge",
        run,
        lambda slug: f"/host/challenges?done=created:{slug}",
        _setup,
        form=form,
    )


@router.post("/host/challenges/{slug}/{action}")
async def challenge_action(slug: str, action: str, request: Request, host: HostUser, ctx: Ctx) -> Response:
    form = await read_form(request, max_files=1)
    check_form_csrf(request, ctx.settings, form)
    files = await uploaded_files(form, "file")
    target = slug[:80]

    def run(form: FormData) -> None:
        if action == "edit":
            edit_challenge(
                ctx.db,
                host,
                target,
                title=form_text(form, "title", limit=300),
                description=form_text(form, "description", limit=20_000),
            )
        elif action == "add-phase":
            limits = {k: form_text(form, k, limit=16).strip() for k in ("max_per_day", "max_total", "max_in_flight")}
            for key, value in limits.items():
                if value and not value.isdigit():
                    raise InvalidInput(f"bad_{key}", f"{key} must be a whole number or empty (no limit)")
            try:
                config = PhaseConfig(
                    name=form_text(form, "name", limit=80).strip(),
                    splits=[v for v in form.getlist("splits") if isinstance(v, str)],
                    starts_at=form_text(form, "starts_at", limit=64).strip() or None,
                    ends_at=form_text(form, "ends_at", limit=64).strip() or None,
                    scores_visible=form_text(form, "scores_visible", limit=16) or "always",
                    allow_dry_run=parse_flag("allow_dry_run", form_text(form, "allow_dry_run"), default=False),
                    **{k: int(v) if v else None for k, v in limits.items()},
                )
            except ValueError as exc:
                raise InvalidInput("bad_phase", str(exc)) from None
            add_phase(ctx.db, host, target, config)
        elif action == "delete-phase":
            delete_phase(ctx.db, host, target, form_text(form, "phase", limit=80))
        elif action in ("add-split", "references"):
            if len(files) != 1:
                raise InvalidInput("no_file", "choose the references file")
            ((filename, data),) = files.items()
            name = form_text(form, "split", limit=80).strip()
            if action == "add-split":
                add_split(ctx.db, host, target, name, form_text(form, "visibility", limit=16), filename, data)
            else:
                replace_references(ctx.db, host, target, name, filename, data)
        else:
            raise NotFound("unknown_action", f"unknown action {action[:40]!r}")

    split = form_text(form, "split", limit=80) if action == "references" else ""
    form_id = f"{action}-{target}" + (f"-{split}" if split else "")
    return await _act(
        request, ctx, host, form_id, run, f"/host/challenges?done={action}#challenge-{target}", _setup, form=form
    )
