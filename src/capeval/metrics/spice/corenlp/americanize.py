"""British to American spelling, as CoreNLP 3.6.0's parser applies it to each token before the lexicon.

The parser's serialized options name ``AmericanizeFunction`` as its word function: every token
is looked up in the lexicon under its americanized form (the tree keeps the original token).
The rules, in order (observed on CoreNLP 3.6.0):

1. tokens shorter than 4 characters are unchanged;
2. a lower-case day or month name (not ``march`` or ``may``) is capitalized: ``sunday`` -> ``Sunday``;
3. a token in a fixed table of 129 spellings is replaced (exact, case-sensitive match);
4. a token of at least 6 characters that passes a quick gate is rewritten by the first of five
   regular-expression rules that matches it (all occurrences replaced); the ``-our`` rule is
   skipped for words containing one of 27 exceptions (``contour``, ``glamour``, ``detour`` ...).

The gate is an alternation of the five patterns with their groups' parentheses dropped, which
changes the first pattern: ``haem(at)?o`` gates as ``haemat?o``. So ``haemohaemo`` passes no
gate and stays, while ``haematohaemo`` passes and becomes ``hematohemo``.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["americanize"]

_MIN_LENGTH = 4
_MIN_LENGTH_PATTERN = 6

#: Day and month names written in lower case, capitalized by the parser's word function.
_TIMEX = {
    w: w.capitalize()
    for w in (
        "january february april june july august september october november december "
        "monday tuesday wednesday thursday friday saturday sunday"
    ).split()
}

#: The word function's fixed spelling table (British -> American), as observed on CoreNLP 3.6.0.
_SPELLINGS = {
    "Defence": "Defense",
    "Labour": "Labor",
    "anaesthetic": "anesthetic",
    "analogue": "analog",
    "analogues": "analogs",
    "analyse": "analyze",
    "analysed": "analyzed",
    "analysing": "analyzing",
    "armoured": "armored",
    "cancelled": "canceled",
    "cancelling": "canceling",
    "candour": "candor",
    "capitalisation": "capitalization",
    "capitalise": "capitalize",
    "capitalised": "capitalized",
    "centre": "center",
    "chimaeric": "chimeric",
    "clamour": "clamor",
    "coloured": "colored",
    "colourful": "colorful",
    "colouring": "coloring",
    "defence": "defense",
    "discolour": "discolor",
    "discoloured": "discolored",
    "discolouring": "discoloring",
    "discolours": "discolors",
    "encyclopaedia": "encyclopedia",
    "endeavour": "endeavor",
    "endeavoured": "endeavored",
    "endeavouring": "endeavoring",
    "endeavours": "endeavors",
    "favour": "favor",
    "favoured": "favored",
    "favouring": "favoring",
    "favourite": "favorite",
    "favourites": "favorites",
    "favours": "favors",
    "fervour": "fervor",
    "fibre": "fiber",
    "fibres": "fibers",
    "finalise": "finalize",
    "finalised": "finalized",
    "finalising": "finalizing",
    "flavour": "flavor",
    "flavoured": "flavored",
    "flavouring": "flavoring",
    "flavours": "flavors",
    "glamour": "glamour",
    "grey": "gray",
    "harbour": "harbor",
    "harbours": "harbors",
    "homologue": "homolog",
    "homologues": "homologs",
    "honour": "honor",
    "honourable": "honorable",
    "honoured": "honored",
    "honouring": "honoring",
    "honours": "honors",
    "humour": "humor",
    "humoured": "humored",
    "humouring": "humoring",
    "humours": "humors",
    "kerb": "curb",
    "labelled": "labeled",
    "labelling": "labeling",
    "labour": "labor",
    "laboured": "labored",
    "labouring": "laboring",
    "labours": "labors",
    "leant": "leaned",
    "learnt": "learned",
    "localise": "localize",
    "localised": "localized",
    "manoeuvre": "maneuver",
    "manoeuvres": "maneuvers",
    "maximise": "maximize",
    "maximised": "maximized",
    "maximising": "maximizing",
    "meagre": "meager",
    "minimise": "minimize",
    "minimised": "minimized",
    "minimising": "minimizing",
    "misdemeanour": "misdemeanor",
    "misdemeanours": "misdemeanors",
    "modernise": "modernize",
    "modernised": "modernized",
    "modernising": "modernizing",
    "neighbour": "neighbor",
    "neighbourhood": "neighborhood",
    "neighbourhoods": "neighborhoods",
    "neighbours": "neighbors",
    "oestrogen": "estrogen",
    "oestrogens": "estrogens",
    "organisation": "organization",
    "organisations": "organizations",
    "penalise": "penalize",
    "penalised": "penalized",
    "popularise": "popularize",
    "popularised": "popularized",
    "popularises": "popularizes",
    "popularising": "popularizing",
    "practise": "practice",
    "practised": "practiced",
    "pressurise": "pressurize",
    "pressurised": "pressurized",
    "pressurises": "pressurizes",
    "pressurising": "pressurizing",
    "realise": "realize",
    "realised": "realized",
    "realises": "realizes",
    "realising": "realizing",
    "recognise": "recognize",
    "recognised": "recognized",
    "recognises": "recognizes",
    "recognising": "recognizing",
    "rumoured": "rumored",
    "rumouring": "rumoring",
    "savour": "savor",
    "savoured": "savored",
    "savouring": "savoring",
    "savours": "savors",
    "splendour": "splendor",
    "splendours": "splendors",
    "theatre": "theater",
    "theatres": "theaters",
    "titre": "titer",
    "titres": "titers",
    "travelled": "traveled",
    "travelling": "traveling",
}

#: Java's ``$`` without MULTILINE: the end of the input, or just before a final line terminator.
_END = r"(?=(?:\r\n|[\n\r\u0085\u2028\u2029])?\Z)"

#: (pattern, replacement) in the order they are tried; the last is the ``-our`` rule.
_RULES = tuple(
    (re.compile(pattern.replace("$", _END)), replacement)
    for pattern, replacement in (
        (r"haem(at)?o", r"hem\1o"),
        (r"aemia$", r"emia"),
        (r"([lL])eukaem", r"\1eukem"),
        (r"programme(s?)$", r"program\1"),
        (r"^([a-z]{3,})our(s?)$", r"\1or\2"),
    )
)
_GATE = re.compile(
    "|".join(f"(?:{p})" for p in (r"haemat?o", r"aemia$", r"[lL]eukaem", r"programmes?$", r"^[a-z]{3,}ours?$")).replace(
        "$", _END
    )
)
#: Words containing one of these keep their ``-our``.
_OUR_EXCEPTIONS = re.compile(
    "|".join(
        (
            "abatjour beflour bonjour calambour carrefour cornflour contour de[tv]our dortour dyvour downpour "
            "giaour glamour holour inpour outpour pandour paramour pompadour recontour repour ryeflour "
            "sompnour tambour troubadour tregetour velour"
        ).split()
    )
)


@lru_cache(maxsize=1 << 16)
def americanize(word: str) -> str:
    """The form of ``word`` the parser looks up in its lexicon (CoreNLP 3.6.0's ``AmericanizeFunction``).

    >>> [americanize(w) for w in ("colour", "grey", "sunday", "neighbours", "contour", "Colour", "may")]
    ['color', 'gray', 'Sunday', 'neighbors', 'contour', 'Colour', 'may']
    """
    if len(word) < _MIN_LENGTH:
        return word
    timex = _TIMEX.get(word)
    if timex is not None:
        return timex
    spelled = _SPELLINGS.get(word)
    if spelled is not None:
        return spelled
    if len(word) < _MIN_LENGTH_PATTERN or _GATE.search(word) is None:
        return word
    last = len(_RULES) - 1
    for i, (pattern, replacement) in enumerate(_RULES):
        if pattern.search(word) is not None:
            if i == last and _OUR_EXCEPTIONS.search(word) is not None:
                return word
            return pattern.sub(replacement, word)
    return word
