"""Text people type and others read: what characters it may hold, and how names compare.

Every string one user types and other users read (team names, method names and descriptions,
token labels, challenge titles, captions) is refused when it holds a character that changes how
the text *around* it reads or that cannot be seen:

* control characters (Unicode category Cc: C0, DEL, C1), line and paragraph separators (Zl, Zp)
  and lone surrogates (Cs);
* format characters (Cf): the bidirectional overrides, embeddings, isolates and marks (U+202E
  writes the rest of a line backwards on a leaderboard, a host list or an audit log), zero-width
  spaces, the byte-order mark, soft hyphens, tag characters. The zero-width non-joiner and joiner
  (U+200C, U+200D) stay allowed: Persian, Indic scripts and emoji sequences need them, and they
  reorder nothing.

One-line text allows no control character at all (no line break, no tab); multi-line text
(descriptions) allows line breaks and tabs. Captions are one line.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import lru_cache

__all__ = [
    "TEAM_KEY_MAX",
    "bad_character",
    "character_problem",
    "describe_character",
    "scrub",
    "team_key",
]

#: Longest comparison key of a team name (compatibility forms can expand a character).
TEAM_KEY_MAX = 255
#: Categories refused in typed text (format characters with the exceptions below).
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
#: Format characters that stay allowed: zero-width non-joiner and joiner.
ALLOWED_FORMAT = frozenset({"\u200c", "\u200d"})
#: Allowed in multi-line text only.
MULTILINE_CONTROLS = frozenset({"\n", "\r", "\t"})
#: Planes that hold every character of the refused categories (BMP, SMP, tags in plane 14).
_PLANES = ((0, 0x20000), (0xE0000, 0xE1000))
_BIDI_CONTROLS = frozenset({"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})
_BIDI_MARKS = frozenset({"\u200e", "\u200f", "\u061c"})


@lru_cache(maxsize=2)
def _pattern(multiline: bool) -> re.Pattern[str]:
    """A character class of every refused character, built from this Python's Unicode tables."""
    ranges: list[list[int]] = []
    for low, high in _PLANES:
        for code in range(low, min(high, sys.maxunicode + 1)):
            ch = chr(code)
            if unicodedata.category(ch) not in REFUSED_CATEGORIES or ch in ALLOWED_FORMAT:
                continue
            if multiline and ch in MULTILINE_CONTROLS:
                continue
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])
    body = "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in ranges)
    return re.compile(f"[{body}]")


def bad_character(text: str, *, multiline: bool = False) -> re.Match[str] | None:
    """The first refused character of ``text`` (see the module docstring), or ``None``."""
    return _pattern(multiline).search(text)


def describe_character(ch: str) -> tuple[str, str]:
    """``("formatting character", "RIGHT-TO-LEFT OVERRIDE, which reorders the text around it")``: what
    kind of character ``ch`` is, and a note for people."""
    name = unicodedata.name(ch, "")
    category = unicodedata.category(ch)
    if category == "Cs":
        return "lone surrogate", "not text"
    if category == "Cf":
        noun = "formatting character"
        if unicodedata.bidirectional(ch) in _BIDI_CONTROLS or ch in _BIDI_MARKS:
            note = "which reorders the text around it"
        else:
            note = "invisible"
    else:
        noun = "control character"
        if ch in "\n\r\x0b\x0c\x85" or category in ("Zl", "Zp"):
            note = "a line break"
        elif ch == "\t":
            note = "a tab"
        else:
            note = "invisible"
    return noun, f"{name}, {note}" if name else note


def character_problem(text: str, *, multiline: bool = False) -> str | None:
    """What is wrong with ``text``, or ``None`` when it is fine:
    ``"contains the formatting character U+202E at position 3 (RIGHT-TO-LEFT OVERRIDE, which reorders
    the text around it)"``."""
    match = bad_character(text, multiline=multiline)
    if match is None:
        return None
    noun, note = describe_character(match.group())
    return f"contains the {noun} U+{ord(match.group()):04X} at position {match.start()} ({note})"


def scrub(text: str, replacement: str = "?") -> str:
    """``text`` with every refused character replaced (for text shown but not typed: file names)."""
    return _pattern(False).sub(replacement, text)


def team_key(name: str) -> str:
    """The form team names are compared in: compatibility forms folded (``Ｖ`` is ``V``), case folded,
    runs of spaces made one. ``"VisionLab"``, ``"VISIONLAB"``, ``"ＶisionLab"`` and ``"visionlab "``
    are one team."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())
