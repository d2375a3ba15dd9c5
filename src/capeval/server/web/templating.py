"""Jinja templates and :func:`render`, which adds the viewer and the form's CSRF token."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import resources
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from capeval._version import __version__
from capeval.server.api.csrf import (
    PRESESSION_COOKIE,
    PRESESSION_SECONDS,
    SESSION_COOKIE,
    cookie_secure,
    csrf_token,
    ensure_presession,
)
from capeval.server.domain.times import human_time

__all__ = ["DEFAULT_COLUMNS", "STATIC_DIR", "FormState", "metric_label", "render", "score", "templates", "when"]

_PACKAGE = resources.files("capeval.server.web")
STATIC_DIR = str(_PACKAGE / "static")
templates = Jinja2Templates(directory=str(_PACKAGE / "templates"))
templates.env.globals.update(version=__version__)

#: Official spelling of the COCO caption evaluation's outputs, and of the other metrics' names.
_OFFICIAL = {
    "meteor": "METEOR",
    "rouge-l": "ROUGE_L",
    "cider-d": "CIDEr",
    "cider-original": "CIDEr (original)",
    "rouge-n": "ROUGE-N",
    "rouge-s": "ROUGE-S",
    "spice": "SPICE",
    "spider": "SPIDEr",
    "spider-cider-d": "SPIDEr: CIDEr",
    "spider-spice": "SPIDEr: SPICE",
    "nneval": "NNEval",
    "nneval-v2": "NNEval v2",
    "wmd": "WMD",
}
_BLEU = re.compile(r"^bleu-(\d)$")
#: SPICE's parts: ``spice-pr``/``spice-re`` (all tuples) and ``spice-<category>-<f|pr|re>``.
_SPICE_PART = re.compile(r"^spice(?:-([a-z]+))?-(f|pr|re)$")
_PART = {"f": "F", "pr": "P", "re": "R"}
#: Score columns shown before the reader picks more (the others stay one click away).
DEFAULT_COLUMNS = frozenset({"bleu-4", "meteor", "rouge-l", "cider-d", "spice"})


def metric_label(name: str) -> str:
    """The official name of a score column: ``bleu-4`` -> ``Bleu_4``, ``cider-d`` -> ``CIDEr``,
    ``spice-pr`` -> ``SPICE P``, ``spice-attribute-f`` -> ``SPICE Attribute F`` (SPICE's own category
    names); an unknown column keeps its key."""
    if name in _OFFICIAL:
        return _OFFICIAL[name]
    bleu = _BLEU.match(name)
    if bleu:
        return f"Bleu_{bleu.group(1)}"
    part = _SPICE_PART.match(name)
    if part:
        category = f" {part.group(1).capitalize()}" if part.group(1) else ""
        return f"SPICE{category} {_PART[part.group(2)]}"
    return name


def score(value: object, digits: int = 4) -> str:
    """A score for a table cell: fixed digits; missing or NaN values are a dash."""
    if not isinstance(value, (int, float)) or math.isnan(value):
        return "—"
    return f"{value:.{digits}f}"


def sort_value(value: object) -> str:
    """``data-value`` of a score cell: empty for missing or NaN (sorted last in either direction)."""
    if not isinstance(value, (int, float)) or math.isnan(value):
        return ""
    return repr(float(value))


#: The leaderboard rows' ``created_at`` (``2026-11-24 18:40 UTC``), also read by :func:`when`.
_BOARD_TIME = "%Y-%m-%d %H:%M UTC"


def when(value: object) -> str:
    """An ISO time, a leaderboard time or a datetime as ``24 Nov 2026, 18:40 UTC``
    (:func:`~capeval.server.domain.times.human_time`); empty for ``None``."""
    if value is None or value == "":
        return ""
    moment: datetime
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            try:
                moment = datetime.strptime(value, _BOARD_TIME)
            except ValueError:
                return value
    else:
        return str(value)
    return human_time(moment)


def iso_input(value: object) -> str:
    """A time for an input field a host edits: ISO 8601 to the second, ``2026-06-30T23:59:59Z``."""
    if not value:
        return ""
    try:
        moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return str(value)
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    return f"{moment:%Y-%m-%dT%H:%M:%S}Z"


@dataclass
class FormState:
    """A form a page shows again after it was refused: which form (its id), the error, what was typed.

    Templates ask ``fs.value(form_id, field, default)`` for an input's value (what was typed when
    ``form_id`` is the refused form, else ``default``) and ``fs.error_for(form_id)`` for the message
    to show next to that form.
    """

    form: str = ""
    error: str = ""
    values: dict[str, str] = field(default_factory=dict)
    lists: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, form_id: str, error: str, form: Any) -> FormState:
        """The state of a submitted form (its text fields; files and passwords are not kept)."""
        values: dict[str, str] = {}
        lists: dict[str, list[str]] = {}
        for key, value in form.multi_items() if hasattr(form, "multi_items") else dict(form).items():
            if isinstance(value, str) and "password" not in key and key != "csrf_token" and len(value) <= 100_000:
                values.setdefault(key, value)
                lists.setdefault(key, []).append(value)
        return cls(form_id, error, values, lists)

    def has(self, form_id: str, name: str, value: str) -> bool:
        """Whether the refused form ``form_id`` sent ``value`` among the values of ``name`` (boxes)."""
        return form_id == self.form and value in self.lists.get(name, [])

    def value(self, form_id: str, name: str, default: object = "") -> object:
        """What was typed in ``name`` of the refused form, else ``default``."""
        if form_id == self.form and name in self.values:
            return self.values[name]
        return "" if default is None else default

    def checked(self, form_id: str, name: str, default: bool) -> bool:
        """Whether the box ``name`` was ticked in the refused form, else ``default``."""
        if form_id == self.form:
            return name in self.values
        return default

    def error_for(self, form_id: str) -> str:
        """The message to show next to ``form_id`` (empty when it was not the refused form)."""
        return self.error if form_id == self.form else ""


templates.env.filters.update(metric=metric_label, score=score, sort_value=sort_value, when=when, iso_input=iso_input)
templates.env.globals.update(default_columns=DEFAULT_COLUMNS)

_NO_USER = object()


def render(request: Request, name: str, status: int = 200, user: Any = _NO_USER, **context: Any) -> HTMLResponse:
    """Render a page for the request's viewer, with a CSRF token bound to the browser's session."""
    ctx = request.app.state.ctx
    if user is _NO_USER:
        from capeval.server.api.deps import current_user

        try:
            user = current_user(request, ctx.db)
        except Exception:  # noqa: BLE001 - an error page must render even when the database fails
            user = None
    had_cookie = bool(request.cookies.get(SESSION_COOKIE) or request.cookies.get(PRESESSION_COOKIE))
    secret = ensure_presession(request, ctx.settings)
    response = templates.TemplateResponse(
        request, name, {"user": user, "csrf_token": csrf_token(secret), **context}, status_code=status
    )
    if not had_cookie:
        response.set_cookie(
            PRESESSION_COOKIE,
            secret,
            max_age=PRESESSION_SECONDS,
            httponly=True,
            samesite="lax",
            secure=cookie_secure(request, ctx.settings),
        )
    return response
