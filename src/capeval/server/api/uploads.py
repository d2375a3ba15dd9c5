"""Reading an upload from a request: a multipart form with a ``file`` part, or a raw body with
the description in the query string. The bytes then go through the one intake pipeline
(:func:`capeval.server.services.submissions.accept_upload`)."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request
from starlette.datastructures import FormData, UploadFile

from capeval.server.api.csrf import verify_csrf
from capeval.server.config import Settings
from capeval.server.domain.errors import InvalidInput
from capeval.server.services.submissions import SubmissionMeta, parse_flag

__all__ = ["Upload", "form_text", "read_form", "read_upload"]

#: Non-file fields a form may have.
MAX_FORM_FIELDS = 12


@dataclass(frozen=True)
class Upload:
    """An upload as received."""

    data: bytes
    content_type: str
    filename: str
    meta: SubmissionMeta
    dry_run: bool


async def read_form(request: Request, *, max_files: int = 0) -> FormData:
    """The request's form (urlencoded or multipart), bounded; malformed forms are a 400."""
    ctype = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if ctype not in ("application/x-www-form-urlencoded", "multipart/form-data"):
        raise InvalidInput("bad_form", "expected a form (application/x-www-form-urlencoded or multipart/form-data)")
    try:
        return await request.form(max_files=max_files, max_fields=MAX_FORM_FIELDS)
    except Exception as exc:  # noqa: BLE001 - the multipart parser raises several types for malformed input
        raise InvalidInput("bad_form", f"the form cannot be read: {str(exc)[:200] or type(exc).__name__}") from None


def form_text(form: FormData, name: str, *, limit: int = 4096, default: str = "") -> str:
    """A text field of a form (a file where text belongs, or an over-long value, is a 400)."""
    value = form.get(name)
    if value is None:
        return default
    if not isinstance(value, str):
        raise InvalidInput("bad_form", f"form field {name!r} must be text, not a file")
    if len(value) > limit:
        raise InvalidInput("bad_form", f"form field {name!r} has {len(value)} characters; at most {limit}")
    return value


def check_form_csrf(request: Request, settings: Settings, form: FormData) -> None:
    """The CSRF check of a page form: origin, and the ``csrf_token`` field against the session."""
    verify_csrf(request, settings, form_text(form, "csrf_token", limit=200))


async def read_checked_form(request: Request, settings: Settings) -> FormData:
    """A page form (:func:`read_form`) that passed the CSRF check (:func:`check_form_csrf`)."""
    form = await read_form(request)
    check_form_csrf(request, settings, form)
    return form


async def read_upload(request: Request) -> Upload:
    """The upload of an API request (multipart ``file`` part, or raw body + query parameters)."""
    content_type = request.headers.get("content-type", "")
    if content_type.lower().startswith("multipart/form-data"):
        form = await read_form(request, max_files=1)
        part = form.get("file")
        if not isinstance(part, UploadFile):
            raise InvalidInput("no_file", "the form has no 'file' part")
        data = await part.read()
        meta = SubmissionMeta.build(
            form_text(form, "method_name", limit=1000),
            form_text(form, "method_description", limit=10_000),
            form_text(form, "public", default="on"),
        )
        dry_run = parse_flag("dry_run", form_text(form, "dry_run"), default=False)
        return Upload(data, part.content_type or "", part.filename or "", meta, dry_run)
    data = await request.body()
    params = request.query_params
    meta = SubmissionMeta.build(params.get("method_name"), params.get("method_description"), params.get("public"))
    dry_run = parse_flag("dry_run", params.get("dry_run"), default=False)
    filename = params.get("filename", "")
    if len(filename) > 1000:
        raise InvalidInput("bad_filename", "filename is too long")
    return Upload(data, content_type, filename, meta, dry_run)
