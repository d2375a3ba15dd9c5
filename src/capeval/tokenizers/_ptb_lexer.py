"""A longest-match scanner that behaves like the PTB lexer of stanford-corenlp 3.4.1 and 3.6.0.

This is capeval's own implementation of the observable behaviour of ``PTBTokenizer`` in its default
PTB3 mode, written from a behavioural description and checked against the official jars; it is not
derived from the GPL grammar or its generated tables. Two versions of the lexer are known:

* ``"3.4.1"``: the jar ``pycocoevalcap`` runs for the COCO tokenizer (the default here);
* ``"3.6.0"``: the jar official SPICE 1.0 runs (``tokenize`` annotator, options
  ``invertible,ptb3Escaping=true``). It differs in a handful of rules: four or more dots before
  spaces and a letter give ``...`` and a sentence-final ``.``, and any longer run of dots is one
  ``...``; apostrophe words and words like ``O’Neil`` get their quote characters normalised
  (``O'Neil``); ``E!``, ``Yahoo!``, ``f*ck`` spellings, ``==``, SGML attributes without quotes,
  more file extensions (and ``_``, ``-`` inside file names) and five more sentence-start words
  after an acronym; U+2043 is a symbol; the CP1252 characters U+0095 and U+0099 become ``•`` and
  ``™``.

How the scanner decides, at every position of the text:

* every rule is a regular expression, optionally followed by *trailing context* (text that must
  follow the token but is not part of it);
* the rule whose match, *including* its trailing context, is longest wins; ties go to the rule
  listed first (the semantics of a JFlex lexer);
* the winning rule's action turns the matched text into zero or more tokens (normalising quotes,
  brackets, dashes, currency symbols, fractions, ...).

Trailing context may look past the end of the current caption into the following ones (the
official tokenizer reads all captions as one text), but a token never spans two captions.
"""

from __future__ import annotations

import bisect
import importlib
import re
import unicodedata
from collections.abc import Callable
from typing import Any

# The regular-expression parser, used only to find the possible first characters of each rule.
try:  # Python >= 3.11
    _sre_parser: Any = importlib.import_module("re._parser")
    _sre_constants: Any = importlib.import_module("re._constants")
except ImportError:  # Python 3.10
    _sre_parser = importlib.import_module("sre_parse")
    _sre_constants = importlib.import_module("sre_constants")

from capeval.tokenizers._patterns import PatternSet
from capeval.tokenizers._ptb_chars import (
    ALPHA_RANGES,
    DIGIT_RANGES,
    LETTER_RANGES,
    SYMBOL_RANGES,
    UPPER_RANGES,
    ranges_to_class,
)

__all__ = ["ABBREVIATION_WORDS", "ASSIMILATIONS", "VERSIONS", "lexer", "scan_caption"]

# ---------------------------------------------------------------------------------------------
# Character classes (bodies of [...] classes).
_L = ranges_to_class(LETTER_RANGES)
_D = ranges_to_class(DIGIT_RANGES)
_SYM = ranges_to_class(SYMBOL_RANGES)
# 3.6.0 also stands U+2043 (hyphen bullet) alone as a symbol.
_SYM_360 = _SYM + "\u2043"
# Java's [:letter:] (no combining marks), used by apostrophe words and hyphenated words.
_A = ranges_to_class(ALPHA_RANGES)
_DIG = f"[{_D}]"
_UPPER = f"[{ranges_to_class(UPPER_RANGES)}]"
_ALPHA = f"[{_A}]"
_AD0 = f"[{_A}{_D}]"
_AD = f"[{_A}{_D}]"
# Letters of WORD also admit the soft hyphen, which is removed from the token text, and the entities
# of accented vowels ("caf&eacute;").
_SPLET = "&[aeiouAEIOU](?i:acute|grave|uml);"
_WLET = f"(?:[{_L}\u00ad]|{_SPLET})"
_WLD = f"(?:[{_L}{_D}\u00ad]|{_SPLET})"
_SPACE = "[ \t\u00a0\u2000-\u200a\u3000]"
_NEWLINE = "(?:\r\n|[\r\n\u2028\u2029\x0b\x0c\x85])"
_SPACENL = f"(?:{_SPACE}|{_NEWLINE})"
_APOS = "(?:['\u0092\u2019]|&apos;)"
# Apostrophes of clitics ('s) are ' and U+2019 (and U+0092, "&apos;"); inside words and in n't a
# backquote, U+2018, U+201B and U+0091 also count (observed: "O\u2018Neil", "O`Neil" and "n\u2018t" are
# single tokens, "man\u2018s" is not split as a clitic).
_APOSETC = "(?:['`\u0091\u0092\u2018\u2019\u201b]|&apos;)"
_HYPHEN = "[-_\u058a\u2010\u2011]"

# SGML tags: a declaration or processing instruction, an opening tag with attributes, or a closing
# tag. Attribute values are quoted; 3.6.0 also takes a bare name as a value.
_SGML_NAME = "[A-Za-z][A-Za-z0-9_:.-]*"
_SGML_VALUE = "'[^']*'|\"[^\"]*\""
_SGML_VALUE_360 = f"{_SGML_VALUE}|{_SGML_NAME}"


def _sgml(value: str) -> str:
    attribute = f"{_SGML_NAME}[ ]*=[ ]*(?:{value})|{_SGML_NAME}"
    return f"<(?:[!?][A-Za-z-][^>\r\n]*|{_SGML_NAME}(?:[ ]+(?:{attribute}))*[ ]*/?|/{_SGML_NAME})[ ]*>"


_SGML = _sgml(_SGML_VALUE)
_SGML_360 = _sgml(_SGML_VALUE_360)
_WORD = f"{_WLET}{_WLD}*(?:[.!?]{_WLET}{_WLD}*)*"
_ACRO = (
    "(?:[A-Za-z](?:\\.[A-Za-z])*|(?i:canada|sino|korean|eu|japan|non)-(?i:u\\.s)|(?i:u\\.s\\.-(?:u\\.k|u\\.s\\.s\\.r)))"
)
_THING = f"(?:[dDoOlL]{_APOSETC}{_AD0}{_AD}+|{_AD0}{_AD}*)(?:{_HYPHEN}(?:[dDoOlL]{_APOSETC}{_AD})?{_AD}+)*"
_ACRO2 = "[A-Za-z](?:\\.[A-Za-z])+"
_HTHING = f"[A-Za-z0-9][A-Za-z0-9.,\u00ad]*(?:-(?:{_ACRO2}\\.|[A-Za-z0-9\u00ad]+))+"
_THINGA = "[A-Z]+(?:(?:[+&]|&amp;)[A-Z]+)+"
# Abbreviation word lists (observed behaviour of the official lexer; matched case-insensitively
# except where a leading upper-case letter is required, written as [X]).
_ABMONTH = "jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec"
_ABDAYS = "mon|tues?|wed|thu(?:rs)?|fri"
_ABSTATE = (
    "ala|ariz|(?-i:A)rk|calif|colo|conn|ct|dak|(?-i:D)el|fla|ga|(?-i:I)ll|ind|kans?|ky|(?-i:L)a|(?-i:M)ass|md"
    "|mich|minn|(?-i:M)iss|mo|mont|neb|nev|okla|(?-i:O)re|(?-i:P)a|penn|tenn|(?-i:T)ex|va|vt|(?-i:W)ash|wisc?|wyo"
)
_ABCOMP = "inc|cos?|corp|pp?t(?-i:[ye])s?|ltd|plc|bancorp|bhd|assn|univ|intl|sys"
_ABNUM = "tel|est|ext|sq"
_ABPTIT = "jr|sr|bros|(?:ed|ph)\\.d|blvd|rd|esq"
_ABBREV1 = f"(?i:(?:{_ABMONTH}|{_ABDAYS}|{_ABSTATE}|{_ABCOMP}|{_ABNUM}|{_ABPTIT}|etc|al|seq|(?-i:A)z|rt|bldg)\\.)"
_ABTITLE = (
    "mr|mrs|ms|(?-i:M)iss|drs?|profs?|sens?|reps?|attys?|lt|col|gen|messrs|govs?|adm|rev|maj|sgt|cpl|pvt"
    "|capt|ste?|ave|pres|lieut|hon|brig|co?mdr|pfc|spc|supts?|det|m|mme|mlle|mt|m(?-i:tg)|ft|dept|ph|adj|adv|ens|m(?-i:fg)|sfc"
    "|asst|elec|insp|invt|msgr|natl|assoc"
)
_ABBREV4 = f"(?:(?i:{_ABTITLE}|vs|alex|wm|jos|cie|a\\.k\\.a|cf|treas)|{_ACRO})"
_ABBREV3 = "(?i:(?:ca|figs?|prop|nos?|art|bldg|pp|op)\\.)"
_SENT_START_WORDS = (
    "(?-i:A)(?i:bout|ccording|dditionally|fter|n|s|t)?|(?-i:B)(?i:ut)|(?-i:E)(?i:arlier)"
    "|(?-i:H)(?i:e|er|ere|owever)|(?-i:I)(?i:f|n|t)|(?-i:L)(?i:ast)|(?-i:M)(?i:any|ore|r\\.|s\\.)"
    "|(?-i:N)(?i:ow)|(?-i:O)(?i:nce|ne|ther|ur)|(?-i:S)(?i:he|ince|o|ome|uch)"
    "|(?-i:T)(?i:hat|he|heir|hen|here|hese|hey|his)|(?-i:W)(?i:e|hen|hile|hat)|(?-i:Y)(?i:et|ou)"
)
_SENT_START = f"(?:{_SENT_START_WORDS}|{_SGML})"
# 3.6.0 knows five more words that start a sentence after an acronym.
_SENT_START_360 = f"(?:{_SENT_START_WORDS}|(?-i:D)(?i:id|uring)|(?-i:H)(?i:ow)|(?-i:W)(?i:ho|hy)|{_SGML_360})"
_SENTEND = f"{_SPACENL}(?:{_SPACENL}|{_UPPER}|{_SGML})"
_SENTEND_360 = f"{_SPACENL}(?:{_SPACENL}|{_UPPER}|{_SGML_360})"
_FILENAME_EXT = (
    "bat|bmp|c|class|cgi|cpp|dll|doc|docx|exe|gif|gz|h|htm|html|jar|java|jpeg|jpg|mov|mp3|pdf|php|pl|png|ppt"
    "|ps|py|sql|tar|txt|wav|x|xml|zip"
)
_FILENAME_EXT_360 = _FILENAME_EXT + "|bz2|3gp|wm[va]|avi|flv|mp[34g]"
_URL_END = '[^ \t\n\f\r"<>|.!?(){},-]'
_PHONE_SEP = "[- \u00a0]"

# Quote and bracket normalisation (PTB3 defaults: latexQuotes, normalizeParentheses, ...).
_QUOTE_MAP = str.maketrans(
    {
        "\u2018": "`", "\u201b": "`", "\u0091": "`", "\u2039": "`",
        "\u2019": "'", "\u0092": "'", "\u203a": "'",
        "\u201c": "``", "\u0093": "``", "\u00ab": "``",
        "\u201d": "''", "\u0094": "''", "\u00bb": "''",
    }
)  # fmt: skip
_BRACKETS = {"(": "-LRB-", ")": "-RRB-", "[": "-LSB-", "]": "-RSB-", "{": "-LCB-", "}": "-RCB-"}
_CURRENCY = {"\u00a2": "cents", "\u00a3": "#", "\u00a4": "$", "\u20ac": "$", "\u0080": "$", "\u20a0": "$"}
_FRACTIONS = {"\u00bc": "1/4", "\u00bd": "1/2", "\u00be": "3/4", "\u2153": "1/3", "\u2154": "2/3"}

Action = Callable[[str], list[str]]


def _same(text: str) -> list[str]:
    return [text]


def _no_soft_hyphen(text: str) -> list[str]:
    # A token of soft hyphens only is not dropped: it becomes "-".
    return [text.replace("\u00ad", "") or "-"]


def _apos(text: str) -> list[str]:
    return [text.replace("&apos;", "'").translate(_QUOTE_MAP).replace("\u00b4", "'").replace("\u2032", "'")]


def _nbsp(text: str) -> list[str]:
    return [text.replace(" ", "\u00a0")]


def _phone(text: str) -> list[str]:
    return ["".join(_BRACKETS.get(c, c) for c in text.replace(" ", "\u00a0"))]


class _PushBack:
    """Action after which the last ``n`` characters of the match are scanned again.

    The token is ``token(text)``; by default the text minus those characters.
    """

    def __init__(self, n: int, token: Callable[[str], str] | None = None) -> None:
        self.n = n
        self.token = token

    def __call__(self, text: str) -> list[str]:
        return [self.token(text) if self.token else text[: -self.n]]


def _const(token: str) -> Action:
    return lambda text: [token]


# An abbreviation that ends a sentence keeps its period, and the period is scanned again (usually a
# "." token of its own; ".2" at the end of "Jan.2").
_WITH_PERIOD = _PushBack(1, lambda text: text)
# An acronym before a sentence start: a one-letter acronym loses its period, longer ones keep it;
# either way the period is scanned again (observed behaviour of the official lexer).
_ACRONYM_SENTENCE_END = _PushBack(1, lambda text: text if len(text) > 2 else text[:1])


def _latex_quotes(text: str) -> str:
    """Quote characters inside a word as 3.6.0 normalises them (as closing quotes)."""
    if "&" in text:
        text = text.replace("&apos;", "'").replace("&quot;", '"')
    return text.replace('"', "''").translate(_QUOTE_MAP)


def _quote(text: str) -> list[str]:
    return [_latex_quotes(text)]


def _amp(text: str) -> list[str]:
    return [text.replace("&amp;", "&")]


def _smiley(text: str) -> list[str]:
    # Only round brackets are escaped inside a smiley.
    return [text.replace("(", "-LRB-").replace(")", "-RRB-")]


def _hyphens(text: str) -> list[str]:
    return ["--" if len(text) in (3, 4) else text]


def _rule_specs(version: str) -> list[tuple[str | list[str], Action]]:
    """The lexer's rules as ``(pattern, action)``, in order, for ``version`` ("3.4.1" or "3.6.0").

    A pattern may define a group "t": the token is group "t" and the rest of the match is trailing
    context; otherwise the whole match is the token. Order matters for ties.
    """
    v360 = version == "3.6.0"
    sym = _SYM_360 if v360 else _SYM
    sent_start = _SENT_START_360 if v360 else _SENT_START
    sentend = _SENTEND_360 if v360 else _SENTEND
    sgml = _SGML_360 if v360 else _SGML
    extensions = _FILENAME_EXT_360 if v360 else _FILENAME_EXT
    filename_sep = "[._-]" if v360 else "\\."
    # Words with apostrophes and THINGs ("O'Neil") normalise their quote characters in 3.6.0.
    word_quotes = _quote if v360 else _same
    # 3.6.0 also takes "f*ck" spellings and "sh*t(ty)" whole.
    tbspec_360 = "|f\\*[c*]k(?:in[g']|e[dr])?|sh\\*t(?:ty)?" if v360 else ""
    spaced_dots = "\\.[ \u00a0](?:\\.[ \u00a0])+\\." if v360 else "\\.(?:[ \u00a0]\\.){2,4}"
    dots = "\\.\\.\\.+" if v360 else "\\.{3,5}"
    specs: list[tuple[str | list[str], Action]] = [
        ("(?i:c\\+\\+|c#|f#)", _same),
        # PTB3 splitAssimilations: the end is pushed back and scanned again ("can" + "not").
        ("(?i:cannot)", _PushBack(3)),
        ("(?i:'twas)", _PushBack(3)),
        ("(?i:'tis)", _PushBack(2)),
        ("(?i:gonna|gotta|lemme|gimme|wanna)", _PushBack(2)),
        (sgml, _nbsp),
        ("&(?:MD|mdash|ndash);|[\u0096\u0097\u2013\u2014\u2015]", _const("--")),
        ("&amp;", _const("&")),
        ("&(?:HT|TL|UR|LR|QC|QL|QR|odq|cdq|#[0-9]+);", _same),
        (f"(?P<t>{_WORD}){_APOS}(?:[msdMSD]|(?i:re|ve|ll))", _no_soft_hyphen),
        (f"(?P<t>[A-Za-z\u00ad]*[A-MO-Za-mo-z]\u00ad*)(?i:n){_APOSETC}(?i:t)", _no_soft_hyphen),
        (_WORD, _no_soft_hyphen),
        (
            [
                f"{_APOS}(?i:n){_APOS}?",
                f"[lLdDjJ]{_APOS}",
                f"(?i:dunkin|somethin|ol){_APOS}",
                f"{_APOS}(?i:em)",
                f"[A-HJ-XZn]{_APOSETC}{_ALPHA}{{2}}{_ALPHA}*",
                f"{_APOS}[2-9]0(?i:s)",
                f"{_APOS}(?i:till?)",
                f"{_ALPHA}+[aeiouyAEIOUY]{_APOSETC}[aeiouA-Z]{_ALPHA}*",
                f"{_APOS}(?i:cause)",
                "(?i:cont'd\\.?|'twas|nor'easter|c'mon|e'er|s'mores|ev'ry|li'l|nat'l)",
                f"(?i:o){_APOSETC}(?i:o)",
            ],
            word_quotes,  # 3.4.1 keeps the apostrophe as written
        ),
        (f"(?P<t>[yY]{_APOS})[A-Za-z]", _same),
        (f'(?i:https?)://[^ \t\n\f\r"<>|(){{}}]+{_URL_END}', _same),
        (
            [
                f'(?:www\\.(?:[^ \t\n\f\r"<>|.!?(){{}},]+\\.)+[a-zA-Z]{{2,4}})(?:/[^ \t\n\f\r"<>|()]+{_URL_END})?',
                f'(?:(?:[^ \t\n\f\r"`\'<>|.!?(){{}},-_$]+\\.)+(?:com|net|org|edu))(?:/[^ \t\n\f\r"<>|()]+{_URL_END})?',
            ],
            _same,
        ),
        (
            '(?:&lt;|<)?[a-zA-Z0-9][^ \t\n\f\r"<>|(){}\u00a0]*@(?:[^ \t\n\f\r"<>|(){}.\u00a0]+\\.)*'
            '[^ \t\n\f\r"<>|(){}.\u00a0]+(?:&gt;|>)?',
            _same,
        ),
        (f"@[a-zA-Z_][a-zA-Z_0-9]*|#{_WLET}+", _same),
        (f"(?P<t>{_APOS}(?:[msdMSD]|(?i:re|ve|ll)))[^A-Za-z]", _apos),
        (f"(?P<t>(?i:n){_APOSETC}(?i:t))[^A-Za-z]", _apos),
        (f"{_DIG}{{1,2}}[-/]{_DIG}{{1,2}}[-/]{_DIG}{{2,4}}", _same),
        (f"[-+]?(?:{_DIG}*(?:[.:,\u00ad\u066b\u066c]{_DIG}+)+|{_DIG}+)", _no_soft_hyphen),
        ("[\u207a\u207b\u208a\u208b]?(?:[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+|[\u2080-\u2089]+)", _same),
        (f"(?:{_DIG}{{1,4}}[- \u00a0])?{_DIG}{{1,4}}(?:\\\\?/|\u2044){_DIG}{{1,4}}", _nbsp),
        ("[\u00bc\u00bd\u00be\u2153\u2154]", lambda text: [_FRACTIONS[text]]),
        (
            "(?i:-(?:RRB|LRB|RCB|LCB|RSB|LSB)-|C\\.D\\.s|pro-|anti-|S(?:&|&amp;)P-500|S(?:&|&amp;)Ls"
            + f"|Cap{_APOS}n|c{_APOS}est{tbspec_360})",
            _amp,
        ),
        *(
            # 3.6.0: "E!", "Yahoo!", "Jeopardy!" are words, and "OK!" before "magazine".
            [("(?i:E|Yahoo|Jeopardy)!", _same), (f"(?P<t>(?i:OK!)){_SPACENL}(?i:magazine)", _same)] if v360 else []
        ),
        ("[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}(?:\\\\?/[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}){1,2}", _same),
        ("[A-Z]*\\$|#", _same),
        (
            "[\u00a2-\u00a5\u0080\u20a0\u20ac\u060b\u0e3f\u20a4\uffe0\uffe1\uffe5\uffe6]",
            lambda t: [_CURRENCY.get(t, t)],
        ),
        (f"(?P<t>{_ACRO}\\.){_SPACENL}+{sent_start}{_SPACENL}", _ACRONYM_SENTENCE_END),
        (f"(?P<t>{_ABBREV3}){_SPACENL}?{_DIG}", _same),
        (f"(?P<t>(?i:pt(?-i:[ey])|co)\\.){_SPACE}(?i:ltd|lim)", _same),
        (f"(?P<t>{_ABBREV1}){sentend}", _WITH_PERIOD),
        (f"(?P<t>{_ABBREV1})[\\s\\S]{{2}}", _same),
        (_ABBREV1, _WITH_PERIOD),
        (f"{_ABBREV4}\\.", _same),
        (f"(?P<t>{_ABBREV4}){_SPACE}", _same),
        (f"(?P<t>{_ACRO}){_SPACENL}", _same),
        (f"(?P<t>{_APOS}[0-9][0-9]){_SPACENL}", _same),
        (
            f"(?P<t>{_WLD}+(?:{filename_sep}{_WLD}+)*\\.(?i:{extensions}))(?:{_SPACENL}|[.?!,])",
            _same,
        ),
        (f"(?P<t>{_WORD}\\.)[,;:\u3001]", _no_soft_hyphen),
        (
            [
                f"(?:\\([0-9]{{2,3}}\\)[ \u00a0]?|(?:\\+\\+?)?(?:[0-9]{{2,4}}{_PHONE_SEP})?[0-9]{{2,4}}{_PHONE_SEP})"
                f"[0-9]{{3,4}}{_PHONE_SEP}?[0-9]{{3,5}}",
                "(?:(?:\\+\\+?)?[0-9]{2,4}\\.)?[0-9]{2,4}\\.[0-9]{3,4}\\.[0-9]{3,5}",
            ],
            _phone,
        ),
        ('(?P<t>"|&quot;)[A-Za-z0-9$]', _const("``")),
        ('"|&quot;', _const("''")),
        ("<<|>>|<|>", _same),
        ("&lt;", _const("<")),
        ("&gt;", _const(">")),
        # (A smiley needs a character after it: at the very end of the text ":)" is ":" and ")".)
        ("(?P<t>[<>]?[:;=][-o*']?[()DPdpO\\\\{@|\\[\\]])[^A-Za-z0-9]", _smiley),
        ("[-\\^x=~<>']_[-\\^x=~<>']", _same),
        ("\\([-\\^x=~<>'][_.]?[-\\^x=~<>']\\)|\\([\\^x=~<>']-[\\^x=~<>'`]\\)", _smiley),
        ("[(){}\\[\\]]", lambda t: [_BRACKETS[t]]),
        ("-+", _hyphens),
        *(
            # 3.6.0: a fourth (or later) dot before spaces and a letter is a sentence-final period.
            [
                (f"(?P<t>{dots}|[\u2026\u0085])\\.{_SPACENL}+{_ALPHA}", _const("...")),
                (f"(?P<t>{spaced_dots}){_SPACE}\\.{_SPACENL}+{_ALPHA}", _const("...")),
            ]
            if v360
            else []
        ),
        (f"{dots}|{spaced_dots}|[\u2026\u0085]", _const("...")),
        ("@+|#+|_+|\\*+", _same),
        ("[,;:\u3001]", _same),
        ("[?!]+", _same),
        ("[.\u00bf\u00a1\u037e\u0589\u061f\u06d4\u0700-\u0702\u0964\u0965]", _same),
        ("=+|/" if v360 else "[=/]", _same),
        # A word with its period before a comma or colon is one token (WORD above, and these).
        (f"(?P<t>{_HTHING}\\.)[,;:\u3001]", _no_soft_hyphen),
        (_HTHING, _no_soft_hyphen),
        (f"(?P<t>{_THING}\\.)[,;:\u3001]", word_quotes),
        (_THING, word_quotes),
        (f"(?P<t>{_THINGA}\\.)[,;:\u3001]", _amp),
        (_THINGA, _amp),
        ("(?P<t>')[A-Za-z][^ \t\n\r\u00a0]", _const("`")),
        (f"{_APOS}(?:[msdMSD]|(?i:re|ve|ll))", _apos),
        (f"(?i:n){_APOSETC}(?i:t)", _apos),
        (
            [
                _APOS,
                "''",
                # Low quotes (U+201A, U+201E) join a two-quote run but are not normalised.
                "[`\u2018\u2019\u201a\u201b\u201e\u0091\u0092\u0093\u0094\u201c\u201d\u2039\u203a\u00ab\u00bb]{1,2}",
            ],
            _quote,
        ),
        (f"[+%&~^|\\\\{sym}]", _same),
        # 3.6.0 reads the CP1252 bullet and trade mark sign as their Unicode characters.
        *([("\x95", _const("\u2022")), ("\x99", _const("\u2122"))] if v360 else []),
        # Spaces and zero-width characters separate tokens and give none. They are a rule like the
        # others: a longer match (a URL starting with a no-break space) wins over them.
        ("[ \t\u00a0\u2000-\u200a\u3000]+|[\x00\u200b\u200e\u200f\ufeff]|&nbsp;", lambda text: []),
    ]
    return specs


# An ASCII space or tab starts no token in any rule but the last one, which then takes the whole run
# of spaces (no-break ones included), so such runs are skipped directly. (A run that starts with
# another space goes through the rules: a URL may start with a no-break or zero-width space.)
_SKIP = re.compile("[ \t][ \t\u00a0\u2000-\u200a\u3000]*")


# Shortcuts for the commonest tokens of captions. Each alternative only fires where no rule can match
# more text and every rule that matches as much gives the same token (see the comments), so taking
# it is equivalent to the full longest-match decision; anything else goes through all rules.
_FAST = re.compile(
    # A plain word before a space, a line end, the end of the text, or a comma or period and one of
    # those. Assimilations ("gonna") and abbreviations before a period are sent back (see below).
    "(?P<w>[A-Za-z][A-Za-z0-9]*)(?=[.,]?(?:[ \n]|\\Z))"
    # Hyphenated words ("t-shirt", "3-year-old"): one token, whichever of the hyphen rules matches.
    # Components after the first start with a letter, so no number, date or phone rule applies.
    "|(?P<h>(?:[A-Za-z][A-Za-z0-9]*|[0-9]+)(?:-[A-Za-z][A-Za-z0-9]*)+)(?=[.,]?(?:[ \n]|\\Z))"
    # A word before a clitic ("man's", "we're"); not when an e-mail address could continue the chunk.
    "|(?P<a>[A-Za-z]{2,}[A-Za-z0-9]*)(?='(?:s|re|ve|ll|m|d)(?![A-Za-z])(?![^ \n]*@))"
    # The word before "n't" ("do" of "don't").
    "|(?P<n>[A-Za-z]*[A-MO-Za-mo-z])(?=n't(?![A-Za-z])(?![^ \n]*@))"
    # The clitic itself, when a character follows (at the very end of the text "'re" is split by the
    # quote heuristic instead, as in the official lexer).
    "|(?P<r>'(?:s|re|ve|ll|m|d)|n't)(?=[\x00-@\\[-`{-\x7f])(?![^ \n]*@)"
    # A comma that does not start a number (",5"), a period that does not start an ellipsis.
    f"|(?P<p>,(?!{_DIG})|\\.(?=[ \n]|\\Z)(?! \\.))"
    # A double quote: an opening quote before a letter, digit or dollar sign, else a closing one.
    '|(?P<q>")'
)
_OPENING_QUOTE_NEXT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789$")


class _Rule:
    __slots__ = ("_compiled", "_patterns", "action", "first_ends", "first_starts", "sources")

    def __init__(self, spec: str | list[str], action: Action, compiled: PatternSet) -> None:
        self.sources = sources = _sources(spec)
        self._compiled = compiled
        self._patterns: list[tuple[re.Pattern[str], bool]] | None = None
        self.action = action
        # Characters a match can start with, as merged code point ranges (None: unknown, try the
        # rule everywhere).
        self.first_starts: list[int] | None = None
        self.first_ends: list[int] = []
        firsts = [compiled.first_chars(source) for source in sources]
        if all(f is not None for f in firsts):
            merged: list[list[int]] = []
            for lo, hi in sorted(r for f in firsts for r in f or ()):
                if merged and lo <= merged[-1][1] + 1:
                    merged[-1][1] = max(merged[-1][1], hi)
                else:
                    merged.append([lo, hi])
            self.first_starts = [lo for lo, _hi in merged]
            self.first_ends = [hi for _lo, hi in merged]

    @property
    def patterns(self) -> list[tuple[re.Pattern[str], bool]]:
        """``(compiled pattern, whether it has trailing context in a group "t")``, compiled when
        the rule is first tried (a text reaches only the rules of the characters it holds)."""
        if self._patterns is None:  # threads may race here: they compile the same patterns
            self._patterns = [(self._compiled.compile(source), "(?P<t>" in source) for source in self.sources]
        return self._patterns

    def may_start_with(self, char: str) -> bool:
        """Whether a match of this rule can start with ``char`` (True when unknown)."""
        if self.first_starts is None:
            return True
        index = bisect.bisect_right(self.first_starts, ord(char)) - 1
        return index >= 0 and ord(char) <= self.first_ends[index]


def _first_chars(source: str) -> list[tuple[int, int]] | None:
    """Code point ranges covering every character that a match of ``source`` can start with.

    Computed from the parsed pattern; returns None when the analysis is not sure, so that the rule
    is then tried at every position. The result is only used to skip rules that cannot match.
    """
    try:
        parsed = _sre_parser.parse(source)
        ranges, nullable = _first_of_sequence(list(parsed), ignore_case=False)
    except Exception:  # noqa: BLE001 - any surprise in the private parser API: no pruning
        return None
    if ranges is None or nullable:
        return None
    return ranges


def _first_of_sequence(items: list[Any], ignore_case: bool) -> tuple[list[tuple[int, int]] | None, bool]:
    ranges: list[tuple[int, int]] = []
    for op, av in items:
        first, nullable = _first_of_item(op, av, ignore_case)
        if first is None:
            return None, False
        ranges.extend(first)
        if not nullable:
            return ranges, False
    return ranges, True


def _first_of_item(op: Any, av: Any, ignore_case: bool) -> tuple[list[tuple[int, int]] | None, bool]:
    c = _sre_constants
    if op is c.LITERAL:
        return _with_case([(av, av)], ignore_case), False
    if op is c.IN:
        ranges: list[tuple[int, int]] = []
        for sub_op, sub_av in av:
            if sub_op is c.LITERAL:
                ranges.append((sub_av, sub_av))
            elif sub_op is c.RANGE:
                ranges.append(tuple(sub_av))
            else:  # NEGATE, CATEGORY, ...: give up on this item
                return None, False
        return _with_case(ranges, ignore_case), False
    if op is c.BRANCH:
        union: list[tuple[int, int]] = []
        any_nullable = False
        for branch in av[1]:
            first, nullable = _first_of_sequence(list(branch), ignore_case)
            if first is None:
                return None, False
            union.extend(first)
            any_nullable = any_nullable or nullable
        return union, any_nullable
    if op is c.SUBPATTERN:
        _group, add_flags, del_flags, sub = av
        case = (ignore_case or bool(add_flags & re.IGNORECASE)) and not (del_flags & re.IGNORECASE)
        return _first_of_sequence(list(sub), case)
    if op in (c.MAX_REPEAT, c.MIN_REPEAT):
        low, _high, sub = av
        first, nullable = _first_of_sequence(list(sub), ignore_case)
        return first, nullable or low == 0
    if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
        return [], True
    return None, False


def _with_case(ranges: list[tuple[int, int]], ignore_case: bool) -> list[tuple[int, int]] | None:
    if not ignore_case:
        return ranges
    if any(hi >= 0x80 for _lo, hi in ranges):
        return None
    chars = {ch for lo, hi in ranges for ch in range(lo, hi + 1)}
    chars |= {ord(chr(ch).swapcase()) for ch in chars if chr(ch).isalpha()}
    return [(ch, ch) for ch in sorted(chars)]


# The rules are built on first use, and each rule's patterns compiled when it is first tried:
# ordinary captions never leave the fast path. Compiling all 79 patterns takes about 0.15 s;
# their compiled code is kept on disk after the first time (see _patterns).


def _sources(spec: str | list[str]) -> list[str]:
    """The patterns of a rule's spec (one or several)."""
    return [spec] if isinstance(spec, str) else spec


class _Lexer:
    """The rules of one version of the lexer, built and compiled on first use."""

    def __init__(self, version: str) -> None:
        self.specs = _rule_specs(version)
        self._patterns: PatternSet | None = None
        self._rules: list[_Rule] | None = None
        self._by_char: dict[str, list[_Rule]] = {}

    def compiled(self) -> PatternSet:
        """The compiled patterns of every rule (loaded when a rule is first tried)."""
        if self._patterns is None:
            self._patterns = PatternSet([s for spec, _ in self.specs for s in _sources(spec)], _first_chars)
        return self._patterns

    def rules_for(self, char: str) -> list[_Rule]:
        """The rules whose match may start with ``char``, in order."""
        rules = self._by_char.get(char)
        if rules is None:
            if self._rules is None:  # built whole before it is published (threads may race: same result)
                compiled = self.compiled()
                self._rules = [_Rule(spec, action, compiled) for spec, action in self.specs]
            rules = [rule for rule in self._rules if rule.may_start_with(char)]
            self._by_char[char] = rules
        return rules


#: The lexer versions that ``scan_caption`` knows.
VERSIONS = ("3.4.1", "3.6.0")
_LEXERS: dict[str, _Lexer] = {}


def lexer(version: str = "3.4.1") -> _Lexer:
    """The lexer of ``version`` (one of :data:`VERSIONS`), shared by every caller."""
    found = _LEXERS.get(version)
    if found is None:
        if version not in VERSIONS:
            raise ValueError(f"unknown PTB lexer version {version!r}; known: {', '.join(VERSIONS)}")
        found = _LEXERS.setdefault(version, _Lexer(version))
    return found


# Characters that do not end a word for Java's final-sigma rule (see _lower).
_WORD_INTERNAL = frozenset("-'.:\u2019\u00ad")


def _lower(token: str) -> str:
    """Lower-case a token like Java's ``toLowerCase``.

    Python and Java agree except for the Greek capital sigma: Java makes it final (U+03C2) only when
    no cased letter follows in the same word, where a word goes on across digits, marks and the
    word-internal punctuation ``- ' . :`` ("ΟΔΟΣ-Α" and "ΟΔΟΣ٣Ω" keep σ, "ΟΔΟΣ?Ζ" gets ς).
    """
    lowered = token.lower()
    if "\u03a3" not in token:
        return lowered
    chars = list(lowered)
    for index, char in enumerate(token):
        if char == "\u03a3" and chars[index] == "\u03c2" and _cased_letter_follows(token, index + 1):
            chars[index] = "\u03c3"
    return "".join(chars)


def _cased_letter_follows(token: str, start: int) -> bool:
    for char in token[start:]:
        if char.lower() != char.upper():
            return True
        if not (char.isalnum() or char in _WORD_INTERNAL or unicodedata.category(char).startswith("M")):
            return False
    return False


def scan_caption(stream: str, start: int, end: int, *, lower: bool = True, version: str = "3.4.1") -> list[str]:
    """Tokenize ``stream[start:end]`` (one caption) with the whole stream as lookahead.

    Args:
        stream: the captions joined by ``"\\n"``, as the official tokenizer reads them.
        start: offset of the caption in ``stream``.
        end: offset one past its last character (the joining newline or the end of the stream).
        lower: lower-case the tokens (``-lowerCase``, as the COCO tokenizer runs it); False keeps
            the case as written.
        version: the lexer to behave like, ``"3.4.1"`` (the COCO tokenizer) or ``"3.6.0"`` (the
            tokenizer of official SPICE 1.0's CoreNLP pipeline).

    Returns:
        The raw PTB tokens of the caption (lower-cased if ``lower``), before the COCO punctuation
        filter.
    """
    rules_for = lexer(version).rules_for
    tokens: list[str] = []
    pos = start
    while pos < end:
        skip = _SKIP.match(stream, pos, end)
        if skip is not None:
            pos = skip.end()
            continue
        fast = _FAST.match(stream, pos)
        if fast is not None:
            kind = fast.lastgroup
            token_end = fast.end()
            if kind == "q":
                tokens.append("``" if stream[token_end : token_end + 1] in _OPENING_QUOTE_NEXT else "''")
                pos = token_end
                continue
            text = fast.group()
            word = text.lower()
            if kind != "w" or (
                word not in ASSIMILATIONS
                and not (word in ABBREVIATION_WORDS and stream[token_end : token_end + 1] == ".")
            ):
                tokens.append(word if lower else text)
                pos = token_end
                continue
        best_len = 0
        best_end = 0
        best_rule: _Rule | None = None
        for rule in rules_for(stream[pos]):
            for pattern, has_context in rule.patterns:
                m = pattern.match(stream, pos)
                if m is None:
                    continue
                length = m.end() - pos
                if length <= best_len:
                    continue
                token_end = m.end("t") if has_context else m.end()
                if token_end > end:
                    continue
                best_len, best_end, best_rule = length, token_end, rule
        if best_rule is None:
            # Untokenizable character (or a line break inside the caption): dropped.
            pos += 1
            continue
        action = best_rule.action
        made = action(stream[pos:best_end])
        tokens.extend((_lower(token) for token in made if token) if lower else (token for token in made if token))
        pos = best_end - action.n if isinstance(action, _PushBack) else best_end
    return tokens


# Every word that the lexer may treat as an abbreviation (or acronym) when a period follows it,
# lower-cased; a superset of the lists above. The caption fast path refuses captions in which one of
# these words is followed by a period, so they always reach the full scanner (the test suite checks
# that this set covers the rules).
ABBREVIATION_WORDS = frozenset(
    """
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thurs fri
    ala ariz ark calif colo conn ct dak del fla ga ill ind kan kans ky la mass md mich minn miss mo mont neb
    nev okla ore pa penn tenn tex va vt wash wis wisc wyo
    inc co cos corp pt pte pty ptes ptys ppt ppte ppty pptes pptys ltd plc bancorp bhd assn univ intl sys
    tel est ext sq jr sr bros blvd rd esq etc al seq az rt bldg
    mr mrs ms dr drs prof profs sen sens rep reps atty attys lt col gen messrs gov govs adm rev maj sgt cpl
    pvt capt st ste ave pres lieut hon brig cmdr comdr pfc spc supt supts det m mme mlle mt mtg ft dept ph
    adj adv ens mfg sfc vs alex wm jos cie cf treas ca fig figs prop no nos art pp op lim
    asst elec insp invt msgr natl assoc
    """.split()
) | frozenset("abcdefghijklmnopqrstuvwxyz")

# Words that the lexer splits although they contain only letters (PTB3 splitAssimilations).
ASSIMILATIONS = ("cannot", "gonna", "gotta", "lemme", "gimme", "wanna")
