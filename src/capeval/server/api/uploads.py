"""Reading an upload from a request: a multipart form with a ``file`` part, or a raw body with
the description in the query string. The bytes then go through the one intake pipeline
(:func:`capeval.server.services.submissions.accept_upload`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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


#: Fields describing an upload, from the query string or (multipart) the form.
UPLOAD_FIELDS = ("method_name", "method_description", "public", "dry_run")
#: Longest value of each field.
FIELD_LIMITS = {"method_name": 1000, "method_description": 10_000, "public": 16, "dry_run": 16}


def _field(name: str, form: FormData | None, query: Any) -> str | None:
    """A description field from the query or the form; both may give it only if they agree."""
    given = query.getlist(name)
    if len(given) > 1:
        raise InvalidInput(f"bad_{name}", f"{name} is given {len(given)} times in the query; give it once")
    from_query = given[0] if given else None
    if from_query is not None and len(from_query) > FIELD_LIMITS[name]:
        raise InvalidInput(f"bad_{name}", f"{name} has {len(from_query)} characters; at most {FIELD_LIMITS[name]}")
    from_form = form_text(form, name, limit=FIELD_LIMITS[name], default="") if form is not None else ""
    if form is not None and name in form and from_query is not None and from_query != from_form:
        raise InvalidInput(
            f"bad_{name}", f"{name} is given both in the query and in the form, with different values; give it once"
        )
    if form is not None and name in form:
        return from_form
    return from_query


async def read_upload(request: Request) -> Upload:
    """The upload of an API request: a multipart ``file`` part, or the raw body. The description
    (``method_name``, ``method_description``, ``public``, ``dry_run``) comes from the query string,
    and for a multipart upload also from form fields (a value given in both places must agree)."""
    content_type = request.headers.get("content-type", "")
    params = request.query_params
    form: FormData | None = None
    if content_type.lower().startswith("multipart/form-data"):
        form = await read_form(request, max_files=1)
        part = form.get("file")
        if not isinstance(part, UploadFile):
            raise InvalidInput("no_file", "the form has no 'file' part")
        data = await part.read()
        ctype, filename = part.content_type or "", part.filename or ""
    else:
        data = await request.body()
        ctype = content_type
        filename = params.get("filename", "")
        if len(filename) > 1000:
            raise InvalidInput("bad_filename", "filename is too long")
    values = {name: _field(name, form, params) for name in UPLOAD_FIELDS}
    meta = SubmissionMeta.build(values["method_name"], values["method_description"], values["public"])
    dry_run = parse_flag("dry_run", values["dry_run"], default=False)
    return Upload(data, ctype, filename, meta, dry_run)
