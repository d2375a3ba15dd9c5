"""JSON request bodies within limits, for everything a client sends that is not a results file.

The decoding itself is :func:`capeval.io.decode_json`, the one decoder that also reads every
caption file (results uploads go through :func:`capeval.io.parse_candidates`, see
:mod:`capeval.server.services.intake`): integers past ``max_int_digits`` digits, floats
overflowing to infinity, ``NaN``/``Infinity``, nesting past ``max_depth``, over-long strings
and lone UTF-16 surrogates are refused. This module only turns the refusal into
:class:`~capeval.server.domain.errors.InvalidInput` (HTTP 400) with the same code.
"""

from __future__ import annotations

from capeval.io import CaptionFileError, JsonLimits, decode_json
from capeval.server.domain.errors import InvalidInput

__all__ = ["JsonLimits", "loads_limited"]


def loads_limited(data: bytes | str, where: str, limits: JsonLimits) -> object:
    """Parse ``data`` (UTF-8 bytes or text) within ``limits``.

    Raises:
        InvalidInput: ``not_utf8``, ``empty_file``, ``bad_json``, ``number_too_large``, ``bad_number``,
            ``too_deep``, ``string_too_long`` or ``bad_string``, the message starting with ``where``.
    """
    try:
        return decode_json(data, name=where, limits=limits)
    except CaptionFileError as exc:
        raise InvalidInput(exc.code, str(exc)) from None
