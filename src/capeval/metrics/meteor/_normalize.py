"""METEOR 1.5's ``-norm`` text normalizer (English, punctuation kept), then lower-casing.

A Moses-derived tokenizer: symbols are spaced out, multi-dots, commas, quotes, dashes,
intra-word hyphens and apostrophes are rewritten, tokens ending in ``.`` are split unless
they are non-breaking prefixes. Java regex classes are spelled out in ASCII because
Java's ``\\s``, ``\\p{Digit}`` and ``\\p{Lower}`` are ASCII-only while Python's are not.
"""

from __future__ import annotations

import re

__all__ = ["JAVA_TRIM_CHARS", "java_trim", "normalize_tokens"]

#: Letters the normalizer treats as alphabetic (METEOR ``Normalizer`` ALPHA class).
_ALPHA = (
    "A-Za-z\u0160\u017d\u0161\u017e\u0178\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u017e"
    "\u0400-\u04ff\u0500-\u0527\ua640-\ua66e\ua67e-\ua697\u1d00-\u1d7f"
)
_ALNUM = "0-9" + _ALPHA
#: Java's ``\s`` inside a character class.
_JAVA_SPACE = " \t\n\x0b\x0c\r"
#: ``java.util.StringTokenizer`` default delimiters.
_TOKENIZER_SPACE = " \t\n\r\x0c"
#: Characters Java's ``String.trim()`` removes (everything up to U+0020).
JAVA_TRIM_CHARS = "".join(chr(c) for c in range(0x21))

_SYMBOL = re.compile(f"([^{_ALNUM}{_JAVA_SPACE}\\.'`,\\-\u2018\u2019])")
_MULTIDOT = re.compile(r"\.([\.]+)")
_DOTMULTI_NEXT = re.compile(r"DOTMULTI\.([^\.])")
_COMMA_1 = re.compile(r"([^0-9])[,]([^0-9])")
_COMMA_2 = re.compile(r"([0-9])[,]([^0-9])")
_COMMA_3 = re.compile(r"([^0-9])[,]([0-9])")
_SINGLE_QUOTES = re.compile("[`\u2018\u2019]")
_DOUBLE_QUOTES = re.compile("([\u201c\u201d]|'')")
_HYPHEN = re.compile(f"([{_ALNUM}\\.])[\\-]([{_ALNUM}])")
_APOS_1 = re.compile(f"([^{_ALPHA}])'([^{_ALPHA}])")
_APOS_2 = re.compile(f"([^{_ALPHA}0-9])'([{_ALPHA}])")
_APOS_3 = re.compile(f"([{_ALPHA}])'([^{_ALPHA}])")
_APOS_4 = re.compile(f"([{_ALPHA}])'([{_ALPHA}])")
_APOS_5 = re.compile(r"([0-9])'([s])")
_HAS_ALPHA = re.compile(f"[{_ALPHA}]")
_FINAL_SPACE = re.compile("[ \u2000-\u200a\u202f\u205f\u3000\u00a0]+")
_TOKEN_SPLIT = re.compile(f"[{_TOKENIZER_SPACE}]+")


def java_trim(text: str) -> str:
    """Java ``String.trim()``: strip every char <= U+0020 from both ends."""
    return text.strip(JAVA_TRIM_CHARS)


def _java_tokens(text: str) -> list[str]:
    return [tok for tok in _TOKEN_SPLIT.split(text) if tok]


def _normalize_line(line: str, prefixes: dict[str, bool]) -> str:
    # Each rewrite below needs a character it tests for first (a comma, a quote, a hyphen, ...):
    # a line without it is left as it is, so the test only skips regex scans that find nothing.
    w = " " + line + " "
    w = _SYMBOL.sub(r" \1 ", w)
    if ".." in w:
        w = _MULTIDOT.sub(r" DOTMULTI\1", w)
    while "DOTMULTI." in w:  # (also where the text itself says "DOTMULTI.")
        w = _DOTMULTI_NEXT.sub(r"DOTDOTMULTI \1", w)
        w = w.replace("DOTMULTI.", "DOTDOTMULTI")
    if "," in w:
        w = _COMMA_1.sub(r"\1 , \2", w)
        w = _COMMA_2.sub(r"\1 , \2", w)
        w = _COMMA_3.sub(r"\1 , \2", w)
    if "`" in w or "\u2018" in w or "\u2019" in w:
        w = _SINGLE_QUOTES.sub("'", w)
    if "''" in w or "\u201c" in w or "\u201d" in w:
        w = _DOUBLE_QUOTES.sub(' " ', w)
    if "-" in w or "\u2013" in w:
        w = w.replace("\u2013", "-").replace("--", "-")
        w = _HYPHEN.sub(r"\1 \2", w)
    if "'" in w:
        w = _APOS_1.sub(r"\1 ' \2", w)
        w = _APOS_2.sub(r"\1 ' \2", w)
        w = _APOS_3.sub(r"\1 ' \2", w)
        w = _APOS_4.sub(r"\1 '\2", w)
        w = _APOS_5.sub(r"\1 '\2", w)
    words = _java_tokens(w)
    out: list[str] = []
    for i, word in enumerate(words):
        if len(word) > 1 and word.endswith("."):
            pre = word[:-1]
            nxt = words[i + 1] if i + 1 < len(words) else ""
            kind = prefixes.get(pre)
            if "." in pre and _HAS_ALPHA.search(pre):
                word = word.replace(".", "")
            elif kind is False or (nxt and "a" <= nxt[0] <= "z"):
                pass
            elif kind is True and nxt and "0" <= nxt[0] <= "9":
                pass
            else:
                word = pre + " ."
        out.append(word)
        out.append(" ")
    w = "".join(out)
    while "DOTDOTMULTI" in w:
        w = w.replace("DOTDOTMULTI", "DOTMULTI.")
    w = w.replace("DOTMULTI", ".")
    w = _FINAL_SPACE.sub(" ", w)
    return java_trim(w)


def normalize_tokens(text: str, prefixes: dict[str, bool]) -> list[str]:
    """Normalize one (already trimmed) segment as ``-norm`` does, lower-case it, split it.

    Args:
        text: The segment, as the jar receives it after ``trim()``.
        prefixes: Non-breaking prefix -> ``True`` if only before digits (``#NUMERIC_ONLY#``).

    Returns:
        The words METEOR aligns (``java.util.StringTokenizer`` split of the normalized line).
    """
    if text.isascii() and text.replace(" ", "").isalnum() and "DOTMULTI" not in text:
        # plain ASCII letters, digits and spaces: no normalization rule applies (but the jar's
        # tokenizer turns the text "DOTMULTI", its marker for runs of dots, into ".")
        return text.lower().split()
    return _java_tokens(_normalize_line(text, prefixes).lower())
