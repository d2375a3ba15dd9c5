"""Lemmas exactly as official SPICE 1.0 sees them: CoreNLP 3.6.0's Morpha, driven by the parser's tags.

SPICE lemmatises every token with CoreNLP's lemma annotator, which hands ``(word, tag)`` to the
Morpha lexer (Minnen, Carroll and Pearce 2001). :func:`lemma` gives the same string for every
word and tag, as the annotator calls it:

* a verb tag (``VB*``) on a word of the form ``verb_particle``, with one of the annotator's 20
  particles, gives ``lemma(verb)_particle``;
* the word's ``_``, space and newline are swapped for private characters while the lexer reads
  ``word_TAG``, and swapped back in the result;
* the tag decides: a few special forms first ("was"/VBD -> ``be``, "ca"/MD -> ``can``, "n't"/RB
  -> ``not``, pronouns with a tag starting with P, "an" with a tag starting with A or D);
  then ``NN`` followed by anything but ``P`` (so NNS, not NN) goes to the noun rules, ``NNP*``
  keeps the word exactly as written, a tag starting with ``V`` goes to the verb rules, and every
  other tag only lower-cases the word (Java's lower-casing);
* the noun and verb rules read the word from left to right, longest match first: a list of
  irregular forms and of words exempt from the rules (data, see below), then general suffix
  rules (plurals, third person, -ed, -ing, Latin and Greek plurals), where a consonant doubled
  before -ed/-ing is undoubled only for the stems of a list; a hyphen ends a piece that is
  kept as it is, and the rest of the word is read again ("t-shirts" -> ``t-shirt``); when the
  word ends in a hyphen, what follows is the tag, which the lexer passes through, so
  ``"up-"/NNS`` gives ``up-_NNS``;
* a word holding a tab, carriage return, form feed, vertical tab, NEL or line/paragraph
  separator gives that character (the lexer splits there and the annotator keeps the first
  piece it returns).

Lower-casing is Java's, character for character, with one approximation: whether a capital sigma
is word-final (``ς``) depends on Java's word break iterator, which is modelled for letters, marks,
digits and common in-word punctuation only; a sigma next to symbols or characters of scripts Java
17 does not know may come out the other way.

The word lists (``capeval/data/morpha/``) were obtained by running CoreNLP 3.6.0's lemma
annotator on several hundred thousand words and recording where its answer differs from the
general rules below; see the README there. The general rules were likewise checked against it.

Every case above is tested against the live annotator (``bench/oracle/morpha.py``), on the whole
vocabulary of COCO and Flickr8K and the parser's lexicon under every tag the parser emits.
"""

from __future__ import annotations

import gzip
import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

__all__ = ["PARTICLES", "lemma"]

#: Particles the annotator splits off a ``verb_particle`` token tagged ``VB*``.
PARTICLES = frozenset(
    "abroad across after ahead along aside away around back down forward in off on over out round together "
    "through up".split()
)

# Characters the lexer treats as white space (the tokens it returns are split there); the
# annotator protects "_", " " and "\n" by swapping them for three private characters.
_SKIP = frozenset(" \t\r\n\u2028\u2029\x0b\x0c\x85")
_SWAPS = (("_", "\u1cf0"), (" ", "\u1cf1"), ("\n", "\u1cf2"))

# The lexer matches the letters of its fixed strings case-insensitively, and besides the ASCII
# pair, "s" also matches U+017F, "k" U+212A (Kelvin) and "i" U+0130 and U+0131. Its character
# classes are exact.
_CASELESS = {"s": "sSſ", "k": "kKK", "i": "iIİı"}
_FOLD = str.maketrans({"ſ": "s", "K": "k", "İ": "i", "ı": "i"})

# Code points Python (Unicode 14 from 3.11) lower-cases and Java 17 (Unicode 13) does not.
_NOT_LOWERED_BY_JAVA = frozenset(
    [0x2C2F, 0xA7C0, 0xA7D0, 0xA7D6, 0xA7D8, *range(0x10570, 0x1057B), *range(0x1057C, 0x1058B)]
    + [*range(0x1058C, 0x10593), 0x10594, 0x10595]
)


def _java_lower(text: str) -> str:
    """``String.toLowerCase()`` as Java 17 does it (Python's rules, less the newer code points)."""
    if text.isascii():
        return text.lower()
    out = []
    for k, char in enumerate(text):
        if ord(char) in _NOT_LOWERED_BY_JAVA:
            out.append(char)
        elif char == "Σ":
            out.append("ς" if _final_sigma(text, k) else "σ")
        else:
            out.append(char.lower())
    return "".join(out)


def _final_sigma(text: str, k: int) -> bool:
    """Java's test for a word-final capital sigma: a cased letter before it in its word, none after.

    Java finds the word with its word break iterator; this approximates it with runs of letters,
    marks, digits, connectors, dashes, format characters and a few in-word punctuation marks
    (exact for sigmas among letters; Greek capitals in captions are rare enough).
    """
    start = k
    while start > 0 and _in_word(text[start - 1]):
        start -= 1
    end = k + 1
    while end < len(text) and _in_word(text[end]):
        end += 1
    return any(_cased(c) for c in text[start:k]) and not any(_cased(c) for c in text[k + 1 : end])


# Characters Java counts as cased outside the letter categories (observed).
_OTHER_CASED = (
    (0x2B0, 0x2B8), (0x2C0, 0x2C1), (0x2E0, 0x2E4), (0x345, 0x345), (0x37A, 0x37A), (0x1D2C, 0x1D61), (0x2160, 0x217F)
)  # fmt: skip


def _cased(char: str) -> bool:
    if unicodedata.category(char) in ("Ll", "Lu", "Lt"):
        return True
    code = ord(char)
    return any(low <= code <= high for low, high in _OTHER_CASED)


def _in_word(char: str) -> bool:
    category = unicodedata.category(char)
    return category[0] in "LMN" or category in ("Cf", "Pd", "Pc") or char in "\"'.\u2027"


def _lit(text: str) -> str:
    """A regular expression for the fixed string ``text``, matched as the lexer matches it."""
    parts = []
    for char in text:
        if char.isalpha():
            parts.append("[" + _CASELESS.get(char, char + char.upper()) + "]")
        else:
            parts.append(re.escape(char))
    return "".join(parts)


# Character classes of the rules: the letters they read (a-z, digits, ' and +), vowels, vowels
# and y, consonants (y included), consonants but y, a doubled consonant, ss or zz, the endings
# that take -es (s, x, z, ch, sh), and the prefixes some rules allow before a consonant cluster.
_LETTER = "['+a-zA-Z0-9]"
_VOWEL = "[aeiouAEIOU]"
_VOWEL_Y = "[aeiouyAEIOUY]"
_CONS = "[bcdfghjklmnpqrstvwxyzBCDFGHJKLMNPQRSTVWXYZ]"
_CONS_NO_Y = "[bcdfghjklmnpqrstvwxzBCDFGHJKLMNPQRSTVWXZ]"
_DOUBLED = "(?:" + "|".join(_lit(c + c) for c in "bcdfghjklmnpqrstvwxz") + ")"
_SS_ZZ = "(?:" + _lit("ss") + "|" + _lit("zz") + ")"
_SIBILANT = "(?:[sxzSXZ]|[csCS]" + _lit("h") + ")"
_PREFIX = "(?:" + "|".join(_lit(p) for p in ("be", "ex", "in", "mis", "pre", "pro", "re")) + ")"

# A rule is a pattern for the start of the piece of word the lexer reads, a fixed ending
# (matched case-insensitively) and an action; the rule applies when the two cover the whole piece.
# Actions: ("stem", n, add): drop the last n characters, lower-case, append add; ("keep", ...):
# lower-case only; ("undouble", n, ""): drop the last n characters, then the last letter too when
# the rest is one of the undoubling stems of the word lists.
_Action = tuple[str, int, str]
_KEEP: _Action = ("keep", 0, "")
_UNDOUBLE_ED: _Action = ("undouble", 2, "")
_UNDOUBLE_ING: _Action = ("undouble", 3, "")
_LETTERS = re.compile(f"{_LETTER}*")


def _stem(n: int, add: str = "") -> _Action:
    return ("stem", n, add)


_Rule = tuple[str, str, _Action]

# Plurals and third persons, for nouns and verbs alike ("-uses" comes first for both).
_USES: list[_Rule] = [(f"{_LETTER}+", "uses", _stem(2))]  # viruses -> virus
_PLURAL: list[_Rule] = [
    (f"{_LETTER}*", "us", _KEEP),  # status
    (f"{_LETTER}*", "ss", _KEEP),  # glass
    (f"{_LETTER}*", "sis", _KEEP),  # basis
    (f"{_LETTER}*", "eed", _KEEP),  # seed
    (f"{_LETTER}*{_VOWEL}", "ses", _stem(1)),  # cases -> case
    (f"{_LETTER}+{_CONS_NO_Y}", "zes", _stem(2)),  # waltzes -> waltz
    (f"{_LETTER}*{_VOWEL_Y}", "zes", _stem(1)),  # sizes -> size
    (f"{_LETTER}+{_SS_ZZ}", "es", _stem(2)),  # kisses -> kiss, buzzes -> buzz
    (f"{_LETTER}+{_VOWEL}", "rses", _stem(1)),  # horses -> horse
    (f"{_LETTER}+", "onses", _stem(1)),  # responses -> response
    (f"{_LETTER}+{_SIBILANT}", "es", _stem(2)),  # boxes -> box, dishes -> dish, benches -> bench
    (f"{_LETTER}+", "thes", _stem(1)),  # clothes (listed) aside: bathes -> bathe
    (f"{_LETTER}+{_CONS_NO_Y}[cglsvCGLSV]", "es", _stem(1)),  # dances -> dance, bulges -> bulge
    (f"{_LETTER}+", "ettes", _stem(1)),  # cigarettes -> cigarette
    (f"{_LETTER}+{_CONS}", "ies", _stem(3, "y")),  # flies -> fly
    (f"{_LETTER}*{_CONS_NO_Y}", "oes", _stem(2)),  # potatoes -> potato
    (f"{_LETTER}+", "s", _stem(1)),  # dogs -> dog
]
# Nouns only: abbreviations with periods, -men, Latin and Greek plurals.
_NOUN_ONLY: list[_Rule] = [
    (rf"(?:{_LETTER}|\.)+", ".s.", _KEEP),  # u.s.
    (rf"(?:{_LETTER}|\.)+", ".'s.", _stem(4, ".")),
    (rf"(?:{_LETTER}|\.)+", "s.", _stem(2, ".")),  # dogs. -> dog.
    (f"{_LETTER}*", "men", _stem(2, "an")),  # women -> woman
    (f"{_LETTER}*", "wives", _stem(3, "fe")),  # housewives -> housewife
    (f"{_LETTER}+", "zoa", _stem(1, "on")),  # protozoa -> protozoon
    (f"{_LETTER}+", "iia", _stem(2, "um")),
    (f"{_LETTER}+{_lit('e')}[mnMN]", "ia", _KEEP),  # anemia, insomnia
    (f"{_LETTER}+", "ia", _stem(1, "um")),  # media -> medium
    (f"{_LETTER}+", "la", _stem(1, "um")),
    ("[DdMmCcLlXxVvIi]+", "i", _KEEP),  # roman numerals: xii
    (f"{_LETTER}+", "i", _stem(1, "us")),  # cacti -> cactus, graffiti -> graffitus
    (f"{_LETTER}+", "ae", _stem(2, "a")),  # larvae -> larva
    (f"{_LETTER}+", "ata", _stem(3, "a")),  # stigmata -> stigma
]
# Verbs only, before the plurals.
_USED: list[_Rule] = [
    (f"{_LETTER}+", "used", _stem(2)),  # bused -> bus
    (f"{_LETTER}+", "using", _stem(3)),
]
# Verbs only: -ed, then -ing, in the order they are tried. Where an e is restored and where not
# depends on the letters before the ending.
_PAST: list[_Rule] = [
    (f"{_LETTER}+{_CONS_NO_Y}", "zed", _stem(2)),  # waltzed -> waltz
    (f"{_LETTER}*{_VOWEL_Y}", "zed", _stem(1)),  # sized -> size
    (f"{_LETTER}+{_SS_ZZ}", "ed", _stem(2)),  # kissed -> kiss
    (f"{_LETTER}+{_CONS_NO_Y}", "zing", _stem(3)),
    (f"{_LETTER}*{_VOWEL_Y}", "zing", _stem(3, "e")),  # sizing -> size
    (f"{_LETTER}+{_SS_ZZ}", "ing", _stem(3)),
    (f"{_CONS}+{_VOWEL}", "lled", _stem(2)),  # called -> call
    (f"{_CONS}+{_VOWEL}", "lling", _stem(3)),
    (f"{_LETTER}*{_CONS}{_VOWEL}{_DOUBLED}", "ed", _UNDOUBLE_ED),  # stopped -> stop, vatted -> vatt
    (f"{_LETTER}*{_CONS}{_VOWEL}{_DOUBLED}", "ing", _UNDOUBLE_ING),
    (f"{_CONS_NO_Y}+", "ed", _KEEP),  # shed
    (f"{_PREFIX}*{_CONS}{_VOWEL}", "nged", _stem(2)),  # banged -> bang
    (f"{_LETTER}+", "icked", _stem(2)),  # picked -> pick
    (f"{_LETTER}*{_CONS}", "ined", _stem(2, "e")),  # lined -> line
    (f"{_LETTER}*{_CONS}{_VOWEL}[npwxNPWX]", "ed", _stem(2)),  # snowed -> snow
    (f"{_PREFIX}*{_CONS}+", "ored", _stem(2, "e")),  # stored -> store
    (f"{_LETTER}+", "ctored", _stem(2)),  # factored -> factor
    (f"{_LETTER}*{_CONS}[clntCLNT]", "ored", _stem(2, "e")),
    (f"{_LETTER}+[eoEO]", "red", _stem(2)),  # covered -> cover
    (f"{_LETTER}+{_CONS}", "ied", _stem(3, "y")),  # tried -> try
    (f"{_LETTER}*{_lit('qu')}{_VOWEL}{_CONS}", "ed", _stem(2, "e")),  # quoted -> quote
    (f"{_LETTER}+{_lit('u')}{_VOWEL}", "ded", _stem(2, "e")),  # persuaded -> persuade
    (f"{_LETTER}*{_CONS}", "leted", _stem(2, "e")),  # deleted -> delete
    (f"{_PREFIX}*{_CONS}+[eiEI]", "ted", _stem(2, "e")),  # sited -> site
    (f"{_LETTER}+[eiEI]", "ted", _stem(2)),  # visited -> visit
    (f"{_PREFIX}{_CONS_NO_Y}{_CONS_NO_Y}", "eated", _stem(2)),
    (f"{_LETTER}*{_VOWEL}{_CONS_NO_Y}{_CONS_NO_Y}", "eated", _stem(2, "e")),
    (f"{_LETTER}+[eoEO]", "ated", _stem(2)),  # coated -> coat
    (f"{_LETTER}+{_VOWEL}", "ated", _stem(2, "e")),  # decorated -> decorate
    (f"{_LETTER}*{_VOWEL}{_VOWEL}[cgsvCGSV]", "ed", _stem(2, "e")),  # seized -> seize
    (f"{_LETTER}*{_VOWEL}{_VOWEL}{_CONS}", "ed", _stem(2)),  # cooked -> cook
    (f"{_LETTER}+[rwRW]", "led", _stem(2)),  # curled -> curl
    (f"{_LETTER}+", "thed", _stem(2, "e")),  # bathed -> bathe
    (f"{_LETTER}+", "ued", _stem(2, "e")),  # glued -> glue
    (f"{_LETTER}+{_CONS_NO_Y}[cglsvCGLSV]", "ed", _stem(2, "e")),  # danced -> dance
    (f"{_LETTER}+{_CONS_NO_Y}{_CONS_NO_Y}", "ed", _stem(2)),  # parked -> park
    (f"{_LETTER}+{_VOWEL_Y}{_VOWEL_Y}", "ed", _stem(2)),  # played -> play
    (f"{_LETTER}+", "ed", _stem(2, "e")),  # smiled -> smile
    (f"{_CONS_NO_Y}+", "ing", _KEEP),  # string
    (f"{_PREFIX}*{_CONS}{_VOWEL}", "nging", _stem(3)),  # banging -> bang
    (f"{_LETTER}+", "icking", _stem(3)),
    (f"{_LETTER}*{_CONS}", "ining", _stem(3, "e")),  # shining -> shine
    (f"{_LETTER}*{_CONS}{_VOWEL}[npwxNPWX]", "ing", _stem(3)),  # snowing -> snow
    (f"{_LETTER}*{_lit('qu')}{_VOWEL}{_CONS}", "ing", _stem(3, "e")),
    (f"{_LETTER}+{_lit('u')}{_VOWEL}", "ding", _stem(3, "e")),
    (f"{_LETTER}*{_CONS}", "leting", _stem(3, "e")),
    (f"{_PREFIX}*{_CONS}+[eiEI]", "ting", _stem(3, "e")),  # writing -> write
    (f"{_LETTER}+[eiEI]", "ting", _stem(3)),  # visiting -> visit
    (f"{_LETTER}*{_PREFIX}{_CONS_NO_Y}{_CONS_NO_Y}", "eating", _stem(3)),
    (f"{_LETTER}*{_VOWEL}{_CONS_NO_Y}{_CONS_NO_Y}", "eating", _stem(3, "e")),
    (f"{_LETTER}+[eoEO]", "ating", _stem(3)),  # floating -> float
    (f"{_LETTER}+{_VOWEL}", "ating", _stem(3, "e")),  # skating -> skate
    (f"{_LETTER}*{_VOWEL}{_VOWEL}[cgsvCGSV]", "ing", _stem(3, "e")),
    (f"{_LETTER}*{_VOWEL}{_VOWEL}{_CONS}", "ing", _stem(3)),  # looking -> look
    (f"{_LETTER}+[rwRW]", "ling", _stem(3)),  # curling -> curl
    (f"{_LETTER}+", "thing", _stem(3, "e")),
    (f"{_LETTER}+{_CONS_NO_Y}[cglsvCGLSV]", "ing", _stem(3, "e")),  # dancing -> dance
    (f"{_LETTER}+{_CONS_NO_Y}{_CONS_NO_Y}", "ing", _stem(3)),  # parking -> park
    (f"{_LETTER}+", "uing", _stem(3, "e")),
    (f"{_LETTER}+{_VOWEL_Y}{_VOWEL_Y}", "ing", _stem(3)),  # playing -> play
    (f"{_LETTER}+", "ying", _stem(3)),
    (f"{_LETTER}*{_CONS_NO_Y}", "oing", _stem(3)),
    (f"{_PREFIX}*{_CONS}+", "oring", _stem(3, "e")),
    (f"{_LETTER}+", "ctoring", _stem(3)),
    (f"{_LETTER}*{_CONS}[cltCLT]", "oring", _stem(3, "e")),
    (f"{_LETTER}+[eoEO]", "ring", _stem(3)),
    (f"{_LETTER}+", "ing", _stem(3, "e")),  # riding -> ride
]

_Dispatch = dict[str, tuple[re.Pattern[str], list[_Action]]]


def _dispatch(rules: list[_Rule]) -> _Dispatch:
    """The rules grouped by the last letter of their ending, each group as one pattern.

    A group's pattern is the alternation of its rules in order, so the first alternative that
    matches the whole piece (``lastindex``) is the rule the lexer applies.
    """
    groups: dict[str, list[_Rule]] = {}
    for rule in rules:
        groups.setdefault(rule[1][-1], []).append(rule)
    return {
        last: (re.compile("|".join(f"({start}{_lit(ending)})" for start, ending, _ in group)), [r[2] for r in group])
        for last, group in groups.items()
    }


_GENERAL = {
    "noun": _dispatch([*_USES, *_NOUN_ONLY, *_PLURAL]),
    "verb": _dispatch([*_USES, *_USED, *_PLURAL, *_PAST]),
}


class _Tables:
    """The observed word lists of one lexer state pair (noun, verb).

    ``forms``: whole forms (lower-case) and their lemmas; ``endings``: endings that act the same
    after any run of the rule letters (``{letters}houses`` -> ``{letters}house``), with the least
    number of letters they need before them; ``stems``: the stems whose final consonant is
    undoubled before -ed/-ing; ``kept``: for the few forms where the lexer copies fewer leading
    characters of the word into the lemma than the two have in common ("is" -> ``is`` copies
    none), that number. It shows only on words with "ı", "İ" or "ſ", letters the lexer's fixed
    strings match but its lower-casing keeps.
    """

    def __init__(
        self,
        forms: dict[str, dict[str, str]],
        endings: dict[str, dict[str, tuple[str, int]]],
        stems: frozenset[str],
        kept: dict[str, dict[str, int]] | None = None,
    ) -> None:
        self.forms = forms
        self.endings = endings
        self.stems = stems
        self.kept = kept or {"noun": {}, "verb": {}}
        self.longest = max((len(form) for table in forms.values() for form in table), default=0)
        self.ending_sizes = {
            state: sorted({len(ending) for ending in table}, reverse=True) for state, table in endings.items()
        }


_STATES = {"noun": ("noun",), "verb": ("verb",), "both": ("noun", "verb")}


def _load_tables() -> _Tables:
    from capeval.data import data_path

    forms: dict[str, dict[str, str]] = {"noun": {}, "verb": {}}
    endings: dict[str, dict[str, tuple[str, int]]] = {"noun": {}, "verb": {}}
    kept: dict[str, dict[str, int]] = {"noun": {}, "verb": {}}
    stems: set[str] = set()
    path = data_path("morpha", "morpha-3.6.0.tsv.gz")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            fields = line.rstrip("\n").split("\t")
            kind = fields[0].rstrip("*+")
            if fields[0] == "stem" and len(fields) == 2:
                stems.add(fields[1])
            elif kind in _STATES and (len(fields) == 3 or (len(fields) == 4 and fields[3].isdigit())):
                for state in _STATES[kind]:
                    if kind == fields[0]:
                        forms[state][fields[1]] = fields[2]
                        if len(fields) == 4:
                            kept[state][fields[1]] = int(fields[3])
                    else:
                        endings[state][fields[1]] = (fields[2], 0 if fields[0].endswith("*") else 1)
            else:
                raise ValueError(f"{path}:{number}: not a Morpha table line: {line!r}")
    return _Tables(forms, endings, frozenset(stems), kept)


_tables: _Tables | None = None


def _get_tables() -> _Tables:
    global _tables
    if _tables is None:
        _tables = _load_tables()
    return _tables


# Special forms the lexer reads before it looks at the tag's class: word, what the tag must start
# with, characters to drop from the word, text to add. Word and tag prefix are matched
# case-insensitively; a drop of None keeps the word as written ("I"). The longest word + tag
# prefix wins (the lexer counts the tag in the match); "an" with a tag starting with an upper-case
# A or D (tested case-sensitively) becomes "a".
_SPECIAL: list[tuple[str, str, int | None, str]] = [
    ("were", "VBDR", 4, "be"), ("was", "VBDZ", 3, "be"), ("am", "VBM", 2, "be"), ("are", "VBR", 3, "be"),
    ("were", "VBD", 4, "be"), ("was", "VBD", 3, "be"), ("am", "VBP", 2, "be"), ("are", "VBP", 3, "be"),
    ("is", "VBZ", 2, "be"), ("du", "VBP", 2, "do"), ("no", "VB", 2, "know"),
    ("'d", "VH", 2, "have"), ("'d", "VBD", 2, "have"), ("'d", "VM", 2, "would"), ("'d", "MD", 2, "would"),
    ("d", "MD", 1, "would"), ("'s", "VBZ", 2, "be"), ("s", "VBZ", 1, "be"), ("'s", "VDZ", 2, "do"),
    ("'s", "VHZ", 2, "have"), ("'s", "$", 2, "'s"), ("'s", "POS", 2, "'s"), ("'s", "CSA", 2, "as"),
    ("'s", "CJS", 2, "as"), ("not", "XX", 3, "not"), ("ai", "VB", 2, "be"), ("ai", "VH", 2, "have"),
    ("ca", "VM", 2, "can"), ("ca", "MD", 2, "can"), ("sha", "VM", 3, "shall"), ("sha", "MD", 3, "shall"),
    ("wo", "VM", 2, "will"), ("wo", "MD", 2, "will"), ("'ll", "MD", 3, "will"), ("ll", "MD", 2, "will"),
    ("wilt", "MD", 4, "will"), ("n't", "XX", 3, "not"), ("n't", "RB", 3, "not"), ("n", "RB", 1, "not"),
    ("him", "P", 3, "he"), ("her", "P", 3, "she"), ("them", "P", 1, "y"), ("me", "P", 2, "I"),
    ("us", "P", 2, "we"), ("i", "P", None, ""), ("their", "P", 2, "y"), ("my", "P", 1, "y"),
    ("your", "P", 1, ""), ("his", "P", 2, "e"), ("our", "P", 3, "we"), ("an", "", 1, ""),
]  # fmt: skip
# A token runs to the next "_" or white space.
_TOKEN_END = re.compile(r"[_ \t\r\n\u2028\u2029\x0b\x0c\x85]")
_HAS_SKIP = re.compile(r"[\t\r\u2028\u2029\x0b\x0c\x85]")


def _folded(text: str) -> str:
    """The text the lexer's case-insensitive fixed strings compare with (lower-case, ſ as s, ...)."""
    return text.lower() if text.isascii() else text.translate(_FOLD).lower()


def _token_end(text: str, pos: int) -> int:
    found = _TOKEN_END.search(text, pos)
    return len(text) if found is None else found.start()


# How many characters of the tag the lexer's tag tests read: the special forms win over a test that
# reads no more of the tag than they do.
_TEST_SIZE = {"noun": 3, "proper": 3, "verb": 1, "lower": 0}


@lru_cache(maxsize=4096)
def _tag_plan(tag: str) -> tuple[str, dict[str, tuple[int | None, str]]]:
    """What the lexer does under ``tag``: the tag test that applies, and the special forms that win."""
    head = _folded(tag[:3])
    if head[:2] == "nn" and len(tag) >= 3 and tag[2] != "P":
        test = "noun"
    elif head == "nnp":
        test = "proper"
    elif head[:1] == "v":
        test = "verb"
    else:
        test = "lower"
    best: dict[str, tuple[int, int | None, str]] = {}
    for word, prefix, drop, add in _SPECIAL:
        if prefix:
            size, matched = len(prefix), _folded(tag[: len(prefix)]) == prefix.lower()
        else:  # "an": the tag starts with an upper-case A or D
            size, matched = 1, tag[:1] in ("A", "D")
        if matched and size >= _TEST_SIZE[test] and size > best.get(word, (0, None, ""))[0]:
            best[word] = (size, drop, add)
    return test, {word: (drop, add) for word, (_, drop, add) in best.items()}


def _dispatch_tag(word: str, tag: str) -> str:
    """The first token of ``word_tag`` when ``word`` is not empty and has no "_" or white space."""
    test, specials = _tag_plan(tag)
    if specials:
        special = specials.get(_folded(word))
        if special is not None:
            drop, add = special
            return word if drop is None else _java_lower(word[: len(word) - drop]) + add
    if test == "lower":
        return _java_lower(word)
    if test == "proper":
        return word
    return _reading(f"{word}_{tag}", 0, test)[0] or ""


def _scan(text: str) -> str | None:
    """The first token of ``text`` when it holds white space or an empty word (the general case)."""
    pos = 0
    while pos < len(text):
        end = _token_end(text, pos)
        if end > pos and end < len(text) and text[end] == "_":
            return _dispatch_tag(text[pos:end], text[end + 1 :])
        if text[pos] == "_" and _token_end(text, pos + 1) > pos + 1:
            return text[pos : _token_end(text, pos + 1)]
        if text[pos] in _SKIP:
            return text[pos]
        pos += 1  # a character no rule takes is skipped
    return None


def _reading(text: str, pos: int, state: str) -> tuple[str | None, int]:
    """The next token from ``pos`` in the noun or verb state, and where reading stopped."""
    while pos < len(text):
        char = text[pos]
        if char == "_":
            end = _token_end(text, pos + 1)
            if end > pos + 1:
                return text[pos:end], end
            pos += 1
            continue
        if char in _SKIP:
            return char, pos + 1
        return _piece(text, pos, state)
    return None, pos


def _piece(text: str, pos: int, state: str) -> tuple[str | None, int]:
    """The token at ``pos`` (not "_" nor white space) in the noun or verb state."""
    tables = _get_tables()
    end = _token_end(text, pos)
    stop = text.find("-", pos, end)
    if stop < 0:
        stop = end
    # A listed form wins when it is the longest match: at least the whole piece up to the hyphen,
    # and past the hyphen when there is one (the hyphen rule reaches that far).
    forms = tables.forms[state]
    for until in range(min(end, pos + tables.longest), max(stop + (stop < end), pos + 1) - 1, -1):
        key = _folded(text[pos:until])
        found = forms.get(key)
        if found is not None:
            return _listed(text[pos:until], found, tables.kept[state].get(key)), until
    if stop < end:  # a hyphen: the piece is kept as it is and the rest is read on
        rest, after = _reading(text, stop + 1, state)
        head = _java_lower(text[pos : stop + 1])
        return (head if rest is None else head + rest), after
    return _general(text[pos:stop], state, tables), stop


def _general(piece: str, state: str, tables: _Tables) -> str:
    """A piece of word (no hyphen) through the listed endings and the general rules."""
    endings = tables.endings[state]
    for size in tables.ending_sizes[state]:
        if size <= len(piece):
            found = endings.get(_folded(piece[-size:]))
            if found is not None and len(piece) - size >= found[1] and _LETTERS.fullmatch(piece, 0, len(piece) - size):
                return _java_lower(piece[: len(piece) - size]) + found[0]
    group = _GENERAL[state].get(_folded(piece[-1:]))
    match = group[0].fullmatch(piece) if group is not None else None
    if match is None:
        return _java_lower(piece)
    kind, drop, add = group[1][match.lastindex - 1]  # type: ignore[index,operator]
    if kind == "keep":
        return _java_lower(piece)
    stem = _java_lower(piece[: len(piece) - drop])
    if kind == "stem":
        return stem + add
    return stem[:-1] if stem[:-1].lower() in tables.stems else stem


def _listed(original: str, found: str, kept: int | None) -> str:
    """A listed form's lemma; the lexer copies the word's own characters into the part it keeps."""
    if original.isascii():
        return found
    if kept is None:
        key = _folded(original)
        kept = 0
        while kept < min(len(key), len(found)) and key[kept] == found[kept]:
            kept += 1
    return _java_lower(original[:kept]) + found[kept:]


def _java_split_underscore(word: str) -> list[str]:
    """``word.split("_")`` as Java does it (trailing empty strings removed)."""
    parts = word.split("_")
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _morphology(word: str, tag: str) -> str:
    """``Morphology.lemma(word, tag)``: the lexer's first token for ``word_tag``."""
    swapped = "_" in word or " " in word or "\n" in word
    if swapped:
        for old, new in _SWAPS:
            word = word.replace(old, new)
    result = _dispatch_tag(word, tag) if word and not _HAS_SKIP.search(word) else _scan(f"{word}_{tag}")
    if result is None:
        raise ValueError(f"Morpha gives no lemma for {word!r}/{tag!r}")
    if swapped:
        for old, new in _SWAPS:
            result = result.replace(new, old)
    return result


@lru_cache(maxsize=1 << 18)
def lemma(word: str, tag: str) -> str:
    """The lemma CoreNLP 3.6.0's lemma annotator gives the token ``word`` tagged ``tag``.

    Args:
        word: The token's text as the parser sees it (PTB-escaped: ``-LRB-``, `````).
        tag: Its part-of-speech tag (any string but the empty one; the parser emits the
            Penn Treebank tags).

    Returns:
        The lemma: lower-cased except for ``NNP``/``NNPS`` words and "I"; nouns tagged ``NNS``
        and verbs in their base form; a few special forms ("me"/PRP -> ``I``).

    Raises:
        ValueError: ``tag`` is empty (the annotator then ignores the tag altogether, a
            path no parser output takes), or the lexer returns nothing for the pair.
        TypeError: ``word`` or ``tag`` is not a string.

    Example:
        >>> lemma("women", "NNS"), lemma("riding", "VBG"), lemma("Frisbee", "NNP"), lemma("An", "DT")
        ('woman', 'ride', 'Frisbee', 'a')
    """
    if not isinstance(word, str) or not isinstance(tag, str):
        raise TypeError(f"lemma() takes two strings, got {type(word).__name__} and {type(tag).__name__}")
    if not tag:
        raise ValueError(f"lemma() needs a part-of-speech tag for {word!r}")
    if tag.startswith("VB") and "_" in word:
        parts = _java_split_underscore(word)
        if len(parts) == 2 and parts[1] in PARTICLES:
            return f"{_morphology(parts[0], tag)}_{parts[1]}"
    return _morphology(word, tag)


def _set_tables(tables: _Tables) -> Callable[[], None]:
    """Use other word lists (for deriving the shipped ones); returns a function that restores them."""
    global _tables
    previous = _tables
    _tables = tables
    lemma.cache_clear()

    def restore() -> None:
        global _tables
        _tables = previous
        lemma.cache_clear()

    return restore
