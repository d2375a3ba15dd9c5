"""Reading and validating caption files; no metric logic.

Accepted shapes (JSON, or JSON Lines with one object per line):

* candidates (results): the COCO results list ``[{"image_id": ..., "caption": ...}]``, a plain
  ``{id: caption}`` or ``{id: [caption]}`` mapping, or JSON Lines of ``{"image_id", "caption"}``;
* references: a COCO captions file (``{"images": [...], "annotations": [...]}``), a plain
  ``{id: [captions]}`` mapping, or JSON Lines of ``{"image_id", "caption"}`` (one line per
  reference) or ``{"image_id", "captions": [...]}``.

This module is the one reader of caption files in capeval: the command line, the
meta-evaluation loaders and the evaluation server all read through it (files with
:func:`read_candidates` / :func:`read_references` / :func:`read_jsonl`, uploads already in
memory with :func:`parse_candidates` / :func:`parse_references` / :func:`parse_jsonl`), so one
set of rules holds everywhere: a UTF-8 byte-order mark is dropped, other non-UTF-8 input is
refused naming the byte, captions must be non-empty strings without NUL characters and at most
:data:`MAX_CAPTION_CHARS` long, an image id appears once per candidates file.

The JSON itself is decoded within :class:`JsonLimits`, so a hostile or broken file is refused
with a clear message instead of failing somewhere inside Python: integers longer than
``max_int_digits`` digits (Python refuses to convert past about 4,300), numbers that overflow
a float, ``NaN``/``Infinity`` (not JSON), nesting deeper than ``max_depth``, strings longer
than ``max_string_chars`` and lone UTF-16 surrogates (``"\\ud800"``, not text and not
storable as UTF-8). A service taking uploads passes stricter limits and, with
``allow_empty=False`` / ``allow_control_chars=False`` / ``integer_ids=True``, stricter caption
and id rules to :func:`parse_candidates`; there is no second parser.

Every problem is reported as a :class:`CaptionFileError` naming the file, the image id or
position, and what is wrong, with a short :attr:`~CaptionFileError.code`. Nothing is dropped
or realigned silently: each caption stays attached to its image id from the moment it is
read. (The official evaluation writes all captions of a set into one text stream, one per
line, so a caption containing ``\\r``, ``\\u2028``, ``\\u2029``, ``\\x0b`` or ``\\x0c`` shifts
every later caption onto the wrong image; capeval keeps such captions on their own image, see
:mod:`capeval.tokenizers.ptb`.)

Image ids are matched between files by their JSON value, with integers and their decimal
strings treated as the same id (``391895`` and ``"391895"``), since plain JSON mappings can
only have string keys.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeGuard

__all__ = [
    "DECODE_ERRORS",
    "MAX_CAPTION_CHARS",
    "DEFAULT_LIMITS",
    "CaptionFileError",
    "Corpus",
    "JsonLimits",
    "align",
    "decode_json",
    "json_safe",
    "load_corpus",
    "parse_candidates",
    "parse_jsonl",
    "parse_references",
    "read_candidates",
    "read_jsonl",
    "read_references",
    "write_columns_json",
    "write_json",
]

log = logging.getLogger("capeval")

ImageId = Hashable
PathLike = str | os.PathLike[str]

#: Longest caption accepted, in characters; far beyond any real caption, it stops a
#: runaway file from being scored as one caption.
MAX_CAPTION_CHARS = 100_000


class CaptionFileError(ValueError):
    """A caption file is malformed; the message names the file, the item and the problem.

    Attributes:
        code: A short, stable name of the problem (``"not_utf8"``, ``"bad_json"``,
            ``"duplicate_image_id"``, ...; see :data:`DECODE_ERRORS` for those that mean the
            input could not be parsed at all), for callers that map errors to their own
            status codes, such as the evaluation server.
    """

    def __init__(self, message: str, *, code: str = "invalid") -> None:
        super().__init__(message)
        self.code = code


#: :attr:`CaptionFileError.code` values meaning the input is not readable JSON / JSON Lines
#: within the :class:`JsonLimits` (as opposed to readable JSON with wrong content).
DECODE_ERRORS = frozenset(
    {
        "unreadable",
        "empty_file",
        "not_utf8",
        "bad_json",
        "bad_number",
        "number_too_large",
        "too_deep",
        "string_too_long",
        "bad_string",
    }
)


@dataclass(frozen=True)
class JsonLimits:
    """Bounds within which a caption file's JSON is decoded (see the module notes).

    The defaults are far beyond any real caption or annotation file; a service facing
    hostile uploads passes tighter ones.

    Attributes:
        max_depth: Deepest nesting of lists/objects (a results list of objects is 2 deep,
            a COCO captions file 3).
        max_int_digits: Most digits in an integer (``number_too_large``; so is a float
            overflowing to infinity, and ``NaN``/``Infinity`` are ``bad_number``).
        max_string_chars: Longest string (keys included); captions have their own limit.
    """

    max_depth: int = 32
    max_int_digits: int = 30
    max_string_chars: int = 10_000_000


#: The limits used when none are given.
DEFAULT_LIMITS = JsonLimits()

_SURROGATE = re.compile("[\ud800-\udfff]")
#: A JSON escape that may decode to a surrogate (``\\ud800``-``\\udfff``).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
#: Refused in captions with ``allow_control_chars=False``: C0 controls other than tab and
#: newline, DEL, C1 controls and the Unicode line/paragraph separators.
_CONTROL_IN_CAPTION = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


@dataclass(frozen=True)
class Corpus:
    """Aligned candidates and references: item ``i`` is image ``ids[i]``.

    Attributes:
        ids: Image ids, in evaluation order.
        candidates: One candidate caption per item.
        references: The reference captions of each item (item-major).
    """

    ids: tuple[ImageId, ...]
    candidates: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]

    def __post_init__(self) -> None:
        if not len(self.ids) == len(self.candidates) == len(self.references):
            raise ValueError(
                f"corpus is misaligned: {len(self.ids)} ids, {len(self.candidates)} candidates, "
                f"{len(self.references)} reference lists"
            )

    def __len__(self) -> int:
        return len(self.ids)

    def subset(self, indices: Iterable[int]) -> Corpus:
        """The items at ``indices``, in that order."""
        idx = list(indices)
        return Corpus(
            tuple(self.ids[i] for i in idx),
            tuple(self.candidates[i] for i in idx),
            tuple(self.references[i] for i in idx),
        )


def _id_key(value: Any) -> str:
    """Canonical matching key of an image id (ints and their decimal strings coincide)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError(type(value).__name__)
    return str(value)


def _keyed(ids: Iterable[Any]) -> dict[str, Any]:
    """Matching key -> image id, for every id (see :func:`_id_key`)."""
    ids = list(ids)
    if set(map(type, ids)) <= {int, str}:  # the usual ids, keyed at C speed (bool is neither)
        return dict(zip(map(str, ids), ids, strict=True))
    return {_id_key(k): k for k in ids}


def _read_bytes(path: PathLike) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise CaptionFileError(
            f"{os.fspath(path)}: cannot read file ({exc.strerror or exc})", code="unreadable"
        ) from None


def _decode(data: bytes | str, name: str) -> str:
    """UTF-8 text of ``data`` without a byte-order mark; non-UTF-8 input names the byte."""
    if isinstance(data, str):
        text = data
        bad = _SURROGATE.search(text)
        if bad is not None:
            raise CaptionFileError(
                f"{name}: holds a lone UTF-16 surrogate (U+{ord(bad.group()):04X}) at character {bad.start()}, "
                "not text",
                code="bad_string",
            )
    else:
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CaptionFileError(
                f"{name}: not valid UTF-8 at byte {exc.start} ({data[exc.start : exc.start + 1]!r}); "
                "save the file as UTF-8",
                code="not_utf8",
            ) from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise CaptionFileError(f"{name}: file is empty", code="empty_file")
    return text


class _Refused(Exception):
    """A value outside the :class:`JsonLimits`, found while decoding."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _raise_constant(text: str) -> float:
    raise _Refused("bad_number", f"{text} is not a JSON number")


#: Decodes like ``json.loads`` but refuses ``NaN``/``Infinity``.
_DECODER = json.JSONDecoder(parse_constant=_raise_constant)


def _check_tree(document: Any, limits: JsonLimits, *, lengths: bool, surrogates: bool) -> None:
    """Refuse nesting deeper than ``limits.max_depth``, integers of more than
    ``limits.max_int_digits`` digits, infinite floats (``1e400``) and, when asked, strings
    longer than ``limits.max_string_chars`` and strings with lone surrogates."""
    max_depth, max_chars, digits = limits.max_depth, limits.max_string_chars, limits.max_int_digits
    bound = 10**digits
    strings_too = lengths or surrogates
    level: list[Any] = [document]
    depth = 0
    while level:  # breadth-first, one nesting level at a time
        depth += 1
        below: list[Any] = []
        strings: list[str] = []  # this level's strings and keys, checked together
        for node in level:
            kind = type(node)
            if kind is str:
                if strings_too:
                    strings.append(node)
            elif kind is dict or kind is list:
                if depth > max_depth:
                    raise _Refused("too_deep", f"nested more than {max_depth} levels deep")
                if kind is dict:
                    below.extend(node.values())
                    if strings_too:
                        strings.extend(node)
                else:
                    below.extend(node)
            elif kind is int:
                if node >= bound or node <= -bound:
                    raise _Refused(
                        "number_too_large",
                        f"an integer has {len(str(abs(node))):,} digits; at most {digits} allowed",
                    )
            elif kind is float:
                if not math.isfinite(node):
                    raise _Refused("number_too_large", "a number is out of range (overflows to infinity)")
        if strings:
            if lengths and max(map(len, strings)) > max_chars:
                _check_string(next(t for t in strings if len(t) > max_chars), max_chars, False)
            # joining creates no surrogate: one in the joined text is one in a string
            if surrogates and _SURROGATE.search("".join(strings)):
                _check_string(next(t for t in strings if _SURROGATE.search(t)), max_chars, True)
        level = below


def _check_string(text: str, max_chars: int, surrogates: bool) -> None:
    if len(text) > max_chars:
        raise _Refused("string_too_long", f"a string has {len(text):,} characters; at most {max_chars:,}")
    if surrogates and _SURROGATE.search(text):
        raise _Refused("bad_string", "a string holds a lone UTF-16 surrogate (\\ud800-\\udfff), not text")


#: What the JSON decoder's messages (which end in "at" or "starting at", expecting the position
#: after them) mean, as whole clauses; the position is given before them.
_JSON_PROBLEMS: tuple[tuple[str, str], ...] = (
    ("Unterminated string", "a string starts here and is never closed with '\"'"),
    (
        "Invalid control character",
        "a string holds a raw control character (a line break or tab, say); write it as an escape such as \\n",
    ),
    ("Expecting value", "a value was expected here"),
    (
        "Expecting property name enclosed in double quotes",
        "a name in double quotes was expected here (JSON has no single quotes and no trailing commas)",
    ),
    ("Expecting ':' delimiter", "':' was expected here"),
    ("Expecting ',' delimiter", "',' or a closing bracket was expected here"),
    ("Extra data", "more data follows the end of the JSON value"),
    ("Invalid \\uXXXX escape", "an invalid \\uXXXX escape"),
    ("Invalid \\escape", "an invalid backslash escape"),
    ("Illegal trailing comma", "a trailing comma (JSON allows none)"),
)


def _json_problem(message: str) -> str:
    """The decoder's ``message`` as a whole clause (see :data:`_JSON_PROBLEMS`)."""
    for start, clause in _JSON_PROBLEMS:
        if message.startswith(start):
            return clause
    clause = re.sub(r"\s*(starting )?at$", "", message.strip())
    return clause[:1].lower() + clause[1:]


def _loads(text: str, name: str, limits: JsonLimits, line: int | None = None) -> Any:
    """One JSON value within ``limits``; every refusal is a :class:`CaptionFileError`."""
    at = name if line is None else f"{name}: line {line}"
    try:
        value = _DECODER.decode(text)
        # A decoded string is never longer than the text, and a lone surrogate needs an escape.
        _check_tree(
            value,
            limits,
            lengths=len(text) > limits.max_string_chars,
            surrogates=_SURROGATE_ESCAPE.search(text) is not None,
        )
    except _Refused as exc:
        raise CaptionFileError(f"{at}: {exc.message}", code=exc.code) from None
    except json.JSONDecodeError as exc:
        loc = f"column {exc.colno}" if line is not None else f"line {exc.lineno}, column {exc.colno}"
        raise CaptionFileError(f"{at}: invalid JSON at {loc}: {_json_problem(exc.msg)}", code="bad_json") from None
    except RecursionError:
        raise CaptionFileError(f"{at}: nested more than {limits.max_depth} levels deep", code="too_deep") from None
    except ValueError as exc:
        if "integer string conversion" in str(exc):  # past Python's int-digit limit
            raise CaptionFileError(
                f"{at}: an integer is longer than Python's limit (at most {limits.max_int_digits} digits allowed)",
                code="number_too_large",
            ) from None
        raise CaptionFileError(f"{at}: invalid JSON: {exc}", code="bad_json") from None
    return value


def decode_json(data: bytes | str, *, name: str = "<json>", limits: JsonLimits = DEFAULT_LIMITS) -> Any:
    """One JSON document (UTF-8 bytes or text; a byte-order mark is dropped) decoded within ``limits``.

    The decoding every caption file goes through, for other JSON a program takes from
    outside (a service's request bodies, say).

    Raises:
        CaptionFileError: with a code in :data:`DECODE_ERRORS`, the message starting with ``name``.

    Example:
        >>> decode_json('{"a": [1, 2]}')
        {'a': [1, 2]}
        >>> decode_json('{"a": NaN}', name="body")
        Traceback (most recent call last):
        ...
        capeval.io.CaptionFileError: body: NaN is not a JSON number
    """
    return _loads(_decode(data, name), name, limits)


def _jsonl_records(text: str, name: str, limits: JsonLimits) -> list[tuple[int, dict[str, Any]]]:
    """The JSON objects of JSON Lines text with their line numbers (blank lines skipped).

    Lines end at ``\\n`` only (``\\r\\n`` works too): a ``\\r`` or ``\\u2028`` inside a caption
    stays inside its record, so no line is split and no later record shifts.
    """
    records = []
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        value = _loads(line, name, limits, lineno)
        if not isinstance(value, dict):
            raise CaptionFileError(
                f"{name}: line {lineno}: expected a JSON object, got {type(value).__name__}", code="bad_shape"
            )
        records.append((lineno, value))
    return records


def _is_jsonl_name(name: str) -> bool:
    return name.lower().endswith((".jsonl", ".ndjson"))


def _parse(data: bytes | str, name: str, jsonl: bool | None, limits: JsonLimits) -> tuple[Any, bool]:
    """Parse JSON or JSON Lines; return ``(data, is_jsonl)``.

    ``jsonl=None`` decides by the name (``.jsonl``/``.ndjson``), and otherwise takes a text
    of several JSON objects, one per line, as JSON Lines whatever its name.
    """
    text = _decode(data, name)
    if jsonl is None:
        jsonl = _is_jsonl_name(name)
    if not jsonl:
        try:
            return _loads(text, name, limits), False
        except CaptionFileError as exc:
            if exc.code != "bad_json":
                raise
            first_line = text.lstrip().split("\n", 1)[0]
            try:
                _loads(first_line, name, limits)
                looks_jsonl = "\n" in text.strip() and first_line.strip().startswith("{")
            except CaptionFileError:
                looks_jsonl = False
            if not looks_jsonl:
                raise
    return _jsonl_records(text, name, limits), True


def read_jsonl(path: PathLike, *, limits: JsonLimits = DEFAULT_LIMITS) -> list[tuple[int, dict[str, Any]]]:
    """The JSON objects of a JSON Lines file with their line numbers (blank lines skipped).

    The file is read by the same rules as every caption file: a UTF-8 byte-order mark is
    dropped, lines end at ``\\n`` only (a ``\\u2028`` inside a string does not split a record),
    each line is decoded within ``limits``.

    Raises:
        CaptionFileError: naming the file and line, for an unreadable file, text that is not
            UTF-8, an empty file, a line that is not JSON (or outside ``limits``), or a line
            whose value is not an object.

    """
    return parse_jsonl(_read_bytes(path), name=os.fspath(path), limits=limits)


def parse_jsonl(
    data: bytes | str, *, name: str = "<jsonl>", limits: JsonLimits = DEFAULT_LIMITS
) -> list[tuple[int, dict[str, Any]]]:
    """:func:`read_jsonl` for content already in memory; ``name`` is used in messages.

    Example:
        >>> parse_jsonl(b'{"a": 1}' + bytes([10, 10]) + b'{"a": 2}')
        [(1, {'a': 1}), (3, {'a': 2})]
    """
    return _jsonl_records(_decode(data, name), name, limits)


def _check_caption(
    name: str,
    where: str,
    caption: Any,
    role: str,
    limit: int = MAX_CAPTION_CHARS,
    *,
    allow_empty: bool = False,
    allow_control_chars: bool = True,
) -> str:
    if not isinstance(caption, str):
        raise CaptionFileError(
            f"{name}: {where}: {role} must be a string, got {type(caption).__name__}", code="bad_caption_type"
        )
    if not allow_empty and not caption.strip():
        raise CaptionFileError(f"{name}: {where}: {role} is empty", code="empty_caption")
    if len(caption) > limit:
        raise CaptionFileError(
            f"{name}: {where}: {role} is {len(caption):,} characters long (limit {limit:,})", code="caption_too_long"
        )
    if not allow_control_chars:
        bad = _CONTROL_IN_CAPTION.search(caption)
        if bad is not None:
            raise CaptionFileError(
                f"{name}: {where}: {role} contains the control character U+{ord(bad.group()):04X} at position "
                f"{bad.start()}; captions are one line of text",
                code="bad_caption",
            )
    if "\x00" in caption:
        raise CaptionFileError(f"{name}: {where}: {role} contains a NUL character", code="bad_caption")
    return caption


def _passes(caption: Any, limit: int, allow_empty: bool, allow_control_chars: bool) -> TypeGuard[str]:
    """Whether :func:`_check_caption` accepts ``caption`` (the common case, tested without building
    the message arguments)."""
    return (
        type(caption) is str
        and len(caption) <= limit
        and "\x00" not in caption
        and (allow_empty or bool(caption.strip()))
        and (allow_control_chars or _CONTROL_IN_CAPTION.search(caption) is None)
    )


def _check_id(name: str, where: str, value: Any, *, integer: bool = False, key: bool = False) -> str:
    """The matching key of an image id; with ``integer``, only JSON integers (or, for a
    mapping ``key``, decimal integer strings) are accepted."""
    if integer and not (
        (isinstance(value, int) and not isinstance(value, bool))
        or (key and isinstance(value, str) and isinstance(_parse_id(value), int))
    ):
        got = type(value).__name__ + (f" {value!r}" if isinstance(value, str) else "")
        raise CaptionFileError(
            f"{name}: {where}: image_id must be an integer, got {got}",
            code="bad_image_id",
        )
    try:
        return _id_key(value)
    except TypeError:
        raise CaptionFileError(
            f"{name}: {where}: image id must be an integer or a string, got {type(value).__name__} {value!r}",
            code="bad_image_id",
        ) from None


def _missing(name: str, where: str, row: dict[str, Any], keys: Sequence[str]) -> None:
    missing = [k for k in keys if k not in row]
    if missing:
        raise CaptionFileError(
            f"{name}: {where}: missing {' and '.join(repr(k) for k in missing)}", code=f"missing_{missing[0]}"
        )


def _parse_id(key: str) -> ImageId:
    """Mapping keys are strings in JSON; present decimal ones as ints (COCO ids are ints)."""
    if key.isdigit() and (key == "0" or not key.startswith("0")):
        return int(key)
    return key


def read_candidates(
    path: PathLike, *, max_caption_chars: int = MAX_CAPTION_CHARS, limits: JsonLimits = DEFAULT_LIMITS
) -> dict[ImageId, str]:
    """Read candidate captions: exactly one per image id.

    Args:
        path: A COCO results list, an ``{id: caption}`` / ``{id: [caption]}`` mapping, or
            JSON Lines of ``{"image_id", "caption"}`` (``.jsonl``/``.ndjson``, or any file of
            one JSON object per line).
        max_caption_chars: Longest caption accepted.
        limits: Bounds on the JSON (see :class:`JsonLimits`).

    Raises:
        CaptionFileError: on unreadable, non-UTF-8 or invalid JSON, JSON outside ``limits``
            (a huge number, ``NaN``, deep nesting, a lone surrogate), a wrong shape, a
            missing/invalid image id, a non-string or over-long caption, a caption
            containing NUL, or two captions for one image id (an empty caption is
            accepted: it is scored as the official code scores it, with a warning).
    """
    return parse_candidates(_read_bytes(path), name=os.fspath(path), max_caption_chars=max_caption_chars, limits=limits)


def parse_candidates(
    data: bytes | str,
    *,
    name: str = "<results>",
    jsonl: bool | None = None,
    max_caption_chars: int = MAX_CAPTION_CHARS,
    limits: JsonLimits = DEFAULT_LIMITS,
    allow_empty: bool = True,
    allow_control_chars: bool = True,
    integer_ids: bool = False,
) -> dict[ImageId, str]:
    """Candidate captions from content in memory (an upload), by the rules of :func:`read_candidates`.

    Args:
        data: The raw bytes (UTF-8, a byte-order mark is dropped) or the decoded text.
        name: What to call the input in messages (a file or upload name).
        jsonl: ``True``/``False`` to force JSON Lines / JSON; ``None`` decides by ``name``
            and the content.
        max_caption_chars: Longest caption accepted.
        limits: Bounds on the JSON (see :class:`JsonLimits`).
        allow_empty: Accept empty/blank captions (they score 0, as in the official code);
            ``False`` refuses them (``empty_caption``).
        allow_control_chars: Accept control characters other than NUL in captions (``\\r``,
            ``\\u2028`` and the like are spaces to the tokenizer); ``False`` refuses C0/C1
            controls except tab and newline, DEL and ``\\u2028``/``\\u2029`` (``bad_caption``).
        integer_ids: Accept only JSON integers as image ids (decimal strings as mapping keys).

    Returns:
        ``{image id: caption}`` in input order; decimal string ids become ints.

    Raises:
        CaptionFileError: as :func:`read_candidates`; its ``code`` names the problem.

    Example:
        >>> parse_candidates(b'[{"image_id": 1, "caption": "a dog"}]')
        {1: 'a dog'}
    """
    parsed, is_jsonl = _parse(data, name, jsonl, limits)
    out: dict[ImageId, str] = {}
    seen: dict[str, str | int] = {}  # key -> where it was given (an entry number on the fast path)

    def add(where: str, image_id: Any, caption: Any, from_key: bool = False) -> None:
        key = _check_id(name, where, image_id, integer=integer_ids, key=from_key)
        # By default empty candidates are scored (as the official code scores them); the scorer warns.
        caption = _check_caption(
            name,
            f"{where} (image id {image_id!r})",
            caption,
            "caption",
            max_caption_chars,
            allow_empty=allow_empty,
            allow_control_chars=allow_control_chars,
        )
        if key in seen:
            first = seen[key]
            first_where = f"entry {first}" if isinstance(first, int) else first
            raise CaptionFileError(
                f"{name}: {where}: duplicate result for image id {image_id!r} (first given at {first_where}); "
                "give exactly one caption per image",
                code="duplicate_image_id",
            )
        seen[key] = where
        out[image_id if not isinstance(image_id, str) else _parse_id(image_id)] = caption

    if is_jsonl:
        for lineno, row in parsed:
            where = f"line {lineno}"
            _missing(name, where, row, ("image_id", "caption"))
            add(where, row["image_id"], row["caption"])
    elif isinstance(parsed, list):
        for index, row in enumerate(parsed):
            # The common case first: an integer id seen for the first time and a caption that
            # passes every check of ``add``.
            if type(row) is dict:
                image_id, caption = row.get("image_id"), row.get("caption")
                if type(image_id) is int and _passes(caption, max_caption_chars, allow_empty, allow_control_chars):
                    key = str(image_id)
                    if key not in seen:
                        seen[key] = index
                        out[image_id] = caption
                        continue
            # anything else goes through the full checks, which name what is wrong
            where = f"entry {index}"
            if not isinstance(row, dict):
                raise CaptionFileError(
                    f'{name}: {where}: expected an object {{"image_id": ..., "caption": ...}}, '
                    f"got {type(row).__name__}",
                    code="item_not_object",
                )
            _missing(name, where, row, ("image_id", "caption"))
            add(where, row["image_id"], row["caption"])
    elif isinstance(parsed, dict):
        if "annotations" in parsed:
            raise CaptionFileError(
                f"{name}: this is a COCO annotations (references) file; candidates must be a results list "
                '[{"image_id": ..., "caption": ...}]',
                code="bad_shape",
            )
        if "image_id" in parsed or "caption" in parsed:
            raise CaptionFileError(
                f'{name}: a single result object; candidates must be a list [{{"image_id": ..., "caption": ...}}]',
                code="bad_shape",
            )
        for key, value in parsed.items():
            where = f"key {key!r}"
            if isinstance(value, list):
                if len(value) != 1:
                    raise CaptionFileError(
                        f"{name}: {where}: expected exactly one candidate caption, got {len(value)}", code="bad_shape"
                    )
                value = value[0]
            add(where, key, value, from_key=True)
    else:
        raise CaptionFileError(
            f"{name}: expected a COCO results list or an {{id: caption}} object, got {type(parsed).__name__}",
            code="bad_shape",
        )
    if not out:
        raise CaptionFileError(f"{name}: no captions found", code="no_items")
    return out


def read_references(
    path: PathLike,
    *,
    max_caption_chars: int = MAX_CAPTION_CHARS,
    order: Literal["images", "annotations"] = "images",
    limits: JsonLimits = DEFAULT_LIMITS,
) -> dict[ImageId, list[str]]:
    """Read reference captions: one or more per image id, in file order.

    Accepted: a COCO captions file (``{"images": [...], "annotations": [...]}``), an
    ``{id: [captions]}`` mapping, or JSON Lines of ``{"image_id", "caption"}`` (one line per
    reference) or ``{"image_id", "captions": [...]}``. For COCO annotation files the images
    appear in the order of the ``images`` list (the order the official evaluation uses), each
    with its annotations in file order; images without annotations are left out. With
    ``order="annotations"`` the images come in the order of their first annotation instead.

    Raises:
        CaptionFileError: as :func:`read_candidates`, plus annotations for unknown images.
    """
    return parse_references(
        _read_bytes(path), name=os.fspath(path), max_caption_chars=max_caption_chars, order=order, limits=limits
    )


def parse_references(
    data: bytes | str,
    *,
    name: str = "<references>",
    jsonl: bool | None = None,
    max_caption_chars: int = MAX_CAPTION_CHARS,
    order: Literal["images", "annotations"] = "images",
    limits: JsonLimits = DEFAULT_LIMITS,
) -> dict[ImageId, list[str]]:
    """Reference captions from content in memory, by the rules of :func:`read_references`.

    Arguments as :func:`parse_candidates`.

    Example:
        >>> parse_references('{"7": ["a dog", "the dog"]}')
        {7: ['a dog', 'the dog']}
    """
    if order not in ("images", "annotations"):
        raise ValueError(f"order must be 'images' or 'annotations', got {order!r}")
    parsed, is_jsonl = _parse(data, name, jsonl, limits)
    out: dict[ImageId, list[str]] = {}
    keys: dict[str, ImageId] = {}
    lists: dict[str, list[str]] = {}  # matching key -> that image's captions (the lists in ``out``)

    def slot(where: str, image_id: Any) -> list[str]:
        key = _check_id(name, where, image_id)
        if key not in keys:
            parsed_id = image_id if not isinstance(image_id, str) else _parse_id(image_id)
            keys[key] = parsed_id
            out[parsed_id] = lists[key] = []
        return out[keys[key]]

    def check(where: str, caption: Any, role: str) -> str:
        return _check_caption(name, where, caption, role, max_caption_chars)

    if is_jsonl:
        for lineno, row in parsed:
            where = f"line {lineno}"
            if "image_id" not in row:
                raise CaptionFileError(
                    f'{name}: {where}: expected an object with "image_id" and "caption(s)"', code="missing_image_id"
                )
            if "captions" in row:
                caps = row["captions"]
                if not isinstance(caps, list):
                    raise CaptionFileError(f'{name}: {where}: "captions" must be a list of strings', code="bad_shape")
            elif "caption" in row:
                caps = [row["caption"]]
            else:
                raise CaptionFileError(f'{name}: {where}: missing "caption" or "captions"', code="missing_field")
            target = slot(where, row["image_id"])
            for j, cap in enumerate(caps):
                target.append(check(f"{where} (image id {row['image_id']!r})", cap, f"reference {j}"))
    elif isinstance(parsed, dict) and "images" in parsed and "annotations" not in parsed:
        raise CaptionFileError(f'{name}: COCO captions file without "annotations"', code="missing_field")
    elif isinstance(parsed, dict) and "annotations" in parsed:
        images, annotations = parsed.get("images"), parsed["annotations"]
        if not isinstance(annotations, list):
            raise CaptionFileError(f'{name}: "annotations" must be a list', code="bad_shape")
        if images is not None:
            if not isinstance(images, list):
                raise CaptionFileError(f'{name}: "images" must be a list', code="bad_shape")
            for index, image in enumerate(images):
                if type(image) is dict and type(image_id := image.get("id")) is int:  # the common case
                    key = str(image_id)
                    if key not in keys:
                        keys[key] = image_id
                        out[image_id] = lists[key] = []
                    continue
                if not isinstance(image, dict) or "id" not in image:
                    raise CaptionFileError(
                        f'{name}: images[{index}]: expected an object with an "id"', code="bad_shape"
                    )
                slot(f"images[{index}]", image["id"])
        known = set(keys)
        for index, ann in enumerate(annotations):
            # The common case first: an integer id of a known image and a caption that passes
            # every check of ``check``.
            if type(ann) is dict:
                image_id, caption = ann.get("image_id"), ann.get("caption")
                if type(image_id) is int and _passes(caption, max_caption_chars, False, True):
                    captions = lists.get(str(image_id))
                    if captions is not None:
                        captions.append(caption)
                        continue
            # anything else goes through the full checks, which name what is wrong
            where = f"annotations[{index}]"
            if not isinstance(ann, dict):
                raise CaptionFileError(
                    f"{name}: {where}: expected an object, got {type(ann).__name__}", code="item_not_object"
                )
            _missing(name, where, ann, ("image_id", "caption"))
            key = _check_id(name, where, ann["image_id"])
            if images is not None and key not in known:
                raise CaptionFileError(
                    f'{name}: {where}: image id {ann["image_id"]!r} is not in "images"', code="unknown_image_id"
                )
            slot(where, ann["image_id"]).append(
                check(f"{where} (image id {ann['image_id']!r})", ann["caption"], "caption")
            )
        for image_id in [i for i, caps in out.items() if not caps]:
            del out[image_id]  # images without captions cannot be references; reported if scored
        if order == "annotations":
            first: dict[str, None] = {}
            for ann in annotations:
                first.setdefault(_id_key(ann["image_id"]), None)
            out = {keys[key]: out[keys[key]] for key in first}
    elif isinstance(parsed, dict):
        for key, value in parsed.items():
            where = f"key {key!r}"
            caps = [value] if isinstance(value, str) else value
            if not isinstance(caps, list):
                raise CaptionFileError(
                    f"{name}: {where}: expected a list of reference captions, got {type(value).__name__}",
                    code="bad_shape",
                )
            target = slot(where, key)
            for j, cap in enumerate(caps):
                target.append(check(where, cap, f"reference {j}"))
    else:
        raise CaptionFileError(
            f"{name}: expected a COCO captions file or an {{id: [captions]}} object, got {type(parsed).__name__}",
            code="bad_shape",
        )
    empty = [i for i, caps in out.items() if not caps]
    if empty:
        raise CaptionFileError(f"{name}: image id {empty[0]!r} has no reference captions", code="no_references")
    if not out:
        raise CaptionFileError(f"{name}: no reference captions found", code="no_items")
    return out


def align(
    candidates: Mapping[ImageId, str],
    references: Mapping[ImageId, Sequence[str]],
    *,
    require_all: bool = False,
    candidates_name: str = "candidates",
    references_name: str = "references",
) -> Corpus:
    """Pair each candidate with its references.

    The items are the images that have a candidate, ordered as in ``references`` (so a COCO
    annotation file fixes the order the official evaluation uses).

    Args:
        candidates: Image id -> candidate caption.
        references: Image id -> reference captions.
        require_all: Also fail when some reference images have no candidate.

    Raises:
        CaptionFileError: when a candidate's image has no references (or, with
            ``require_all``, a reference image has no candidate).
    """
    cand_keys, ref_keys = _keyed(candidates), _keyed(references)
    missing = [cand_keys[k] for k in cand_keys if k not in ref_keys]
    if missing:
        shown = ", ".join(repr(m) for m in missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise CaptionFileError(
            f"{candidates_name}: {len(missing)} image id(s) have no references in {references_name}: {shown}",
            code="unknown_image_id",
        )
    unscored = [ref_keys[k] for k in ref_keys if k not in cand_keys]
    if unscored:
        shown = ", ".join(repr(m) for m in unscored[:5]) + (" ..." if len(unscored) > 5 else "")
        if require_all:
            raise CaptionFileError(
                f"{candidates_name}: no candidate for {len(unscored)} image id(s) of {references_name}: {shown}",
                code="missing_images",
            )
        log.info("%d reference image(s) have no candidate and are not scored (e.g. %s)", len(unscored), shown)
    scored = [key for key in ref_keys if key in cand_keys]
    ids = tuple([cand_keys[key] for key in scored])
    cands = tuple([candidates[cand_id] for cand_id in ids])
    refs = tuple([tuple(references[ref_keys[key]]) for key in scored])
    return Corpus(ids, cands, refs)


def load_corpus(results_path: PathLike, references_path: PathLike, *, require_all: bool = False) -> Corpus:
    """Read a candidates file and a references file and align them (see :func:`align`)."""
    return align(
        read_candidates(results_path),
        read_references(references_path),
        require_all=require_all,
        candidates_name=os.fspath(results_path),
        references_name=os.fspath(references_path),
    )


def json_safe(data: Any) -> Any:
    """Replace NaN and infinities (undefined scores) by ``None``, so the output is valid JSON."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, Mapping):
        return {k: json_safe(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [json_safe(v) for v in data]
    return data


_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


def _dumps(data: Any) -> str:
    """Compact JSON with NaN and infinities as null (the C encoder; NaN is rare: a second pass)."""
    try:
        return _ENCODE(data)
    except ValueError:
        return _ENCODE(json_safe(data))


def write_json(path: PathLike, data: Any) -> None:
    """Write JSON atomically (temporary file + rename), UTF-8, exact float repr; NaN becomes null.

    A mapping is written one entry per line (``{image id: {metric: score}}`` reads one image a
    line); anything else on one line.
    """
    if isinstance(data, Mapping) and data:
        # each entry as a one-entry object without its braces: keys converted as json does
        _write_text(path, "{\n " + ",\n ".join(_dumps({k: v})[1:-1] for k, v in data.items()) + "\n}\n")
    else:
        _write_text(path, _dumps(data) + "\n")


def write_columns_json(path: PathLike, keys: Sequence[str], columns: Mapping[str, Any]) -> None:
    """Write ``{keys[i]: {name: columns[name][i] for name in columns}}`` exactly as :func:`write_json`
    writes that mapping (same text), built column by column: much faster for large tables of
    numbers (per-image scores).

    Args:
        keys: Row keys (strings).
        columns: Name -> one number per row (float arrays or sequences).
    """
    import numpy as np

    names = list(columns)
    if not keys or not names:
        write_json(path, {k: {name: float(columns[name][i]) for name in names} for i, k in enumerate(keys)})
        return
    texts = []
    for name in names:
        values = np.asarray(columns[name], dtype=np.float64)
        if values.shape != (len(keys),):
            raise ValueError(f"column {name!r} has {values.size} values for {len(keys)} rows")
        text = list(map(float.__repr__, values.tolist()))
        if not np.isfinite(values).all():  # NaN and infinities are written as null, as write_json does
            for i in np.flatnonzero(~np.isfinite(values)).tolist():
                text[i] = "null"
        texts.append(text)
    # one row: "key": {"name": value, ...}, keys and names encoded by the same encoder
    row = "{}: {{" + ", ".join(_ENCODE(name).replace("{", "{{").replace("}", "}}") + ": {}" for name in names) + "}}"
    lines = map(row.format, map(_ENCODE, keys), *texts)
    _write_text(path, "{\n " + ",\n ".join(lines) + "\n}\n")


def _write_text(path: PathLike, text: str) -> None:
    """Write ``text`` atomically (temporary file + rename), UTF-8."""
    target = os.fspath(path)
    tmp = f"{target}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, target)
