"""JSON parsing with limits, for everything a client sends (request bodies and results files).

``json.loads`` alone lets through integers of any length (and then fails on Python's
int-digit limit), nesting until a ``RecursionError``, ``NaN``/``Infinity`` and strings with
lone surrogates that cannot be stored as UTF-8. :func:`loads_limited` refuses each with
:class:`~capeval.server.domain.errors.InvalidInput` naming the problem.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from capeval.server.domain.errors import InvalidInput

__all__ = ["JsonLimits", "loads_limited"]

_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class JsonLimits:
    """Bounds on a JSON document."""

    max_depth: int = 8
    max_int_digits: int = 20
    max_string_chars: int = 10_000
    max_float_chars: int = 40


class _Refused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _hooks(limits: JsonLimits) -> dict[str, object]:
    def parse_int(text: str) -> int:
        if len(text.lstrip("-")) > limits.max_int_digits:
            raise _Refused("number_too_large", f"an integer has {len(text)} digits; at most {limits.max_int_digits}")
        return int(text)

    def parse_float(text: str) -> float:
        if len(text) > limits.max_float_chars:
            raise _Refused("number_too_large", f"a number is {len(text)} characters long")
        value = float(text)
        if not math.isfinite(value):
            raise _Refused("number_too_large", f"the number {text[:20]} is out of range")
        return value

    def parse_constant(text: str) -> float:
        raise _Refused("bad_number", f"{text} is not a JSON number")

    return {"parse_int": parse_int, "parse_float": parse_float, "parse_constant": parse_constant}


def _check_tree(document: object, limits: JsonLimits) -> None:
    stack: list[tuple[object, int]] = [(document, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            strings = [node]
        elif isinstance(node, (list, dict)):
            if depth > limits.max_depth:
                raise _Refused("too_deep", f"nested more than {limits.max_depth} levels deep")
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children if isinstance(child, (str, list, dict)))
            strings = list(node) if isinstance(node, dict) else []
        else:
            continue
        for text in strings:
            if len(text) > limits.max_string_chars:
                raise _Refused(
                    "string_too_long", f"a string has {len(text)} characters; at most {limits.max_string_chars}"
                )
            if _SURROGATE.search(text):
                raise _Refused("bad_string", "a string holds a lone UTF-16 surrogate (\\ud800-\\udfff), not text")


def loads_limited(data: bytes | str, where: str, limits: JsonLimits) -> object:
    """Parse ``data`` (UTF-8 bytes or text) within ``limits``.

    Raises:
        InvalidInput: ``not_utf8``, ``bad_json``, ``number_too_large``, ``bad_number``, ``too_deep``,
            ``string_too_long`` or ``bad_string``, the message starting with ``where``.
    """
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput(
                "not_utf8", f"{where} is not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}"
            ) from None
    else:
        text = data
    try:
        document = json.loads(text, **_hooks(limits))  # type: ignore[arg-type]
        _check_tree(document, limits)
    except _Refused as exc:
        raise InvalidInput(exc.code, f"{where}: {exc.message}") from None
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            "bad_json", f"{where} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise InvalidInput("too_deep", f"{where}: nested more than {limits.max_depth} levels deep") from None
    except ValueError as exc:  # anything else the decoder refuses
        raise InvalidInput("bad_json", f"{where} is not valid JSON: {exc}") from None
    return document
