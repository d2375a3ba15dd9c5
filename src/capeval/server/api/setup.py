"""``/api/v1``: hosts create and change challenges while the server runs."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile

from capeval.server.api.deps import Ctx, Db, HostUser, cookie_csrf, json_body, json_body_schema
from capeval.server.api.schemas import ChallengeEdit, PhaseDefinition
from capeval.server.api.uploads import form_text, read_form
from capeval.server.config import PhaseConfig
from capeval.server.domain.errors import InvalidInput
from capeval.server.services.challenges import challenge_summary, get_challenge
from capeval.server.services.setup import (
    add_phase,
    add_split,
    create_challenge,
    delete_phase,
    edit_challenge,
    parse_definition,
    replace_references,
)

__all__ = ["MAX_FILES", "router", "uploaded_files"]

router = APIRouter(prefix="/api/v1", tags=["host"])
EditBody = Annotated[ChallengeEdit, Depends(json_body(ChallengeEdit))]
PhaseBody = Annotated[PhaseDefinition, Depends(json_body(PhaseDefinition))]
#: Files one request may carry (the references of every split and the baselines).
MAX_FILES = 16

FILES_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "definition": {"type": "string", "description": "the challenge as TOML or JSON"},
                        "files": {"type": "array", "items": {"type": "string", "format": "binary"}},
                    },
                    "required": ["definition"],
                }
            }
        },
    }
}


async def uploaded_files(form: FormData, field: str = "files") -> dict[str, bytes]:
    """The files of a form field, by their base name (a name given twice is an error)."""
    files: dict[str, bytes] = {}
    for part in form.getlist(field):
        if not isinstance(part, UploadFile) or not part.filename:
            continue
        name = part.filename.replace("\\", "/").rsplit("/", 1)[-1]
        if name in files:
            raise InvalidInput("duplicate_file", f"two uploaded files are named {name!r}")
        files[name] = await part.read()
    return files


async def _definition(form: FormData) -> str:
    value = form.get("definition")
    if isinstance(value, UploadFile):
        data = await value.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInput("bad_definition", "the definition file is not UTF-8 text") from None
    return form_text(form, "definition", limit=100_000)


@router.post("/challenges", status_code=201, dependencies=[Depends(cookie_csrf)], openapi_extra=FILES_BODY)
async def create(request: Request, host: HostUser, ctx: Ctx) -> JSONResponse:
    """Host: create a challenge now (no restart). Multipart: ``definition`` (the ``[[challenge]]`` table
    of a config file, as TOML or JSON, as text or a file) and ``files``: the reference files (and
    baseline results) its ``references`` and ``baseline`` entries name. Audited."""
    form = await read_form(request, max_files=MAX_FILES)
    config = parse_definition(await _definition(form))
    files = await uploaded_files(form)
    await run_in_threadpool(
        lambda: create_challenge(ctx.db, host, config, files, settings=ctx.settings, scorer_version=ctx.scorer_version)
    )
    with ctx.db.read() as session:
        summary = challenge_summary(get_challenge(session, config.slug), host)
    return JSONResponse({**summary, "url": f"/c/{config.slug}"}, status_code=201)


@router.patch("/challenges/{slug}", dependencies=[Depends(cookie_csrf)], openapi_extra=json_body_schema(ChallengeEdit))
async def edit(slug: str, body: EditBody, host: HostUser, db: Db) -> dict[str, Any]:
    """Host: change the ``title`` or ``description`` (audited)."""
    fields = body.model_dump(exclude_unset=True)
    changed = await run_in_threadpool(
        lambda: edit_challenge(db, host, slug, title=fields.get("title"), description=fields.get("description"))
    )
    return {"changed": changed}


@router.post(
    "/challenges/{slug}/phases",
    status_code=201,
    dependencies=[Depends(cookie_csrf)],
    openapi_extra=json_body_schema(PhaseDefinition),
)
async def new_phase(slug: str, body: PhaseBody, host: HostUser, db: Db) -> dict[str, Any]:
    """Host: add a phase (the fields of a ``[[challenge.phases]]`` table; limits left out: none). Audited."""
    try:
        config = PhaseConfig(**body.model_dump(exclude_unset=True))
    except (TypeError, ValueError) as exc:
        raise InvalidInput("bad_phase", str(exc)) from None
    await run_in_threadpool(add_phase, db, host, slug, config)
    with db.read() as session:
        summary = challenge_summary(get_challenge(session, slug), host)
    return next(p for p in summary["phases"] if p["name"] == config.name)


@router.delete("/challenges/{slug}/phases/{phase}", dependencies=[Depends(cookie_csrf)])
async def remove_phase(slug: str, phase: str, host: HostUser, db: Db) -> dict[str, Any]:
    """Host: remove a phase nobody submitted to (audited)."""
    await run_in_threadpool(delete_phase, db, host, slug, phase)
    return {"deleted": phase}


async def _one_file(request: Request) -> tuple[FormData | None, str, bytes]:
    if request.headers.get("content-type", "").lower().startswith("multipart/form-data"):
        form = await read_form(request, max_files=1)
        part = form.get("file")
        if not isinstance(part, UploadFile):
            raise InvalidInput("no_file", "the form has no 'file' part")
        return form, part.filename or "references.json", await part.read()
    return None, request.query_params.get("filename", "references.json")[:200], await request.body()


@router.post("/challenges/{slug}/splits", status_code=201, dependencies=[Depends(cookie_csrf)])
async def new_split(slug: str, request: Request, host: HostUser, db: Db) -> dict[str, Any]:
    """Host: add a split: multipart ``name``, ``visibility`` (``public``/``hidden``) and ``file`` (the
    references). Audited."""
    form, filename, data = await _one_file(request)
    if form is None:
        raise InvalidInput("bad_form", "send a multipart form with name, visibility and file")
    name, visibility = form_text(form, "name", limit=80), form_text(form, "visibility", limit=16, default="public")
    await run_in_threadpool(add_split, db, host, slug, name, visibility, filename, data)
    return {"split": name, "visibility": visibility}


@router.put("/challenges/{slug}/splits/{split}/references", dependencies=[Depends(cookie_csrf)])
async def references(slug: str, split: str, request: Request, host: HostUser, db: Db) -> Response:
    """Host: replace a split's references (multipart ``file``, or the file as the body) while nobody
    has submitted to a phase scoring it; 409 afterwards. Audited with the old and new SHA-256."""
    _, filename, data = await _one_file(request)
    digest = await run_in_threadpool(replace_references, db, host, slug, split, filename, data)
    return JSONResponse({"split": split, "references_sha256": digest})
