"""The PTB tokenizer of the COCO caption evaluation, in pure Python.

``PTBTokenizer`` reproduces, token for token, what ``pycocoevalcap`` 1.2 (``tokenizer/ptbtokenizer.py``)
returns: the captions are joined with ``"\\n"`` into one text, tokenized by Stanford CoreNLP 3.4.1's
``edu.stanford.nlp.process.PTBTokenizer -preserveLines -lowerCase`` (PTB3 defaults), and each output
line is then filtered by the COCO punctuation list::

    PUNCTUATIONS = ["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-",
                    ".", "?", "!", ",", ":", "-", "--", "...", ";"]

Consequences of that pipeline that capeval keeps on purpose, because the official numbers depend
on them:

* The text is one stream, and the lexer's trailing context can look across the newline that joins
  two captions: ``"The letter B."`` becomes ``the letter b`` when the next caption starts with
  ``"A sign"`` (the period is split off as a sentence end) but ``the letter b.`` when it starts with
  ``"a sign"``. ``tokenize`` therefore tokenizes a batch as one stream, like the official code.
* Lower-casing happens after PTB escaping, so ``-lrb- -rrb- -lsb- -rsb- -lcb- -rcb-`` survive the
  (upper-case) punctuation filter.
* The filter splits lines on ``" "`` only, so tokens that contain a no-break space (``1\\u00a01/2``,
  phone numbers) stay single tokens. It first strips the line with Python's ``str.rstrip``, so a
  token at the end of a caption loses any trailing Unicode space (a URL ending in a no-break space).
* Characters outside the lexer's tables (emoji, zero-width joiner, control characters) are dropped.

Where capeval deliberately differs:

* **Line breaks never shift captions.** The official lexer treats ``\\r``, ``\\u2028``, ``\\u2029``,
  ``\\x0b`` and ``\\x0c`` as line breaks; ``ptbtokenizer.py`` only replaces ``\\n`` by a space, so a
  caption containing one of them produces two output lines, every later caption moves onto the wrong
  image and the last ones are silently dropped. capeval treats all six characters (``\\n`` included,
  as the official code does) as spaces inside a caption, so the output always has one entry per
  input, in order. ``\\x85`` (NEL) is not a problem in the official code (it becomes the in-line token
  ``...``), so capeval keeps that behaviour, including its role as a line end in trailing context.
* Tokens never span two captions (the official lexer could, in principle, build an SGML tag across
  the joining newline; no caption data set is known to trigger it).
* Lower-casing follows Java's ``toLowerCase(Locale.ENGLISH)`` (including its word-based rule for a
  final capital sigma) through Python's ``str.lower``; the two differ only for code points added in
  Unicode 14, which the lexer deletes anyway.

Speed: most captions (words, hyphenated words, clitics such as ``'s`` and ``n't``, spaces and
sentence punctuation, without abbreviations or numbers with separators) cannot trigger any other
lexer rule, whatever follows them; they are tokenized for the whole batch at once with byte and
NumPy operations (about 99.5% of COCO captions). The others go through a longest-match scanner
(:mod:`capeval.tokenizers._ptb_lexer`) that sees the rest of the stream as lookahead. The test suite
checks that both paths agree.

Reference: Stanford CoreNLP 3.4.1 ``PTBTokenizer`` as shipped in ``pycocoevalcap==1.2``
(``stanford-corenlp-3.4.1.jar``), run by ``pycocoevalcap/tokenizer/ptbtokenizer.py``.
"""

from __future__ import annotations

import string
from collections.abc import Sequence

import numpy as np

from capeval.tokenizers._ptb_lexer import ABBREVIATION_WORDS, ASSIMILATIONS, scan_caption

__all__ = ["COCO_PUNCTUATIONS", "PTBTokenizer"]

# pycocoevalcap 1.2, tokenizer/ptbtokenizer.py: tokens removed after PTB tokenization.
COCO_PUNCTUATIONS = frozenset(["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-",
                               "--", "...", ";"])  # fmt: skip

# Characters that the official lexer turns into line breaks; capeval reads them as spaces inside a
# caption (see the module docstring). \x85 is absent on purpose: the lexer makes it "...".
_OTHER_LINE_BREAKS = ("\r", "\u2028", "\u2029", "\x0b", "\x0c")

# Byte classes for the fast path (ASCII; every byte of a non-ASCII character is "other").
_OTHER, _LETTER, _DIGIT, _SPACE, _COMMA, _PERIOD, _NEWLINE, _HYPHEN, _APOSTROPHE, _QUOTE, _COLON, _STOP = range(12)
_BYTE_CLASS = np.zeros(256, dtype=np.uint8)
_BYTE_CLASS[np.frombuffer(string.ascii_letters.encode(), dtype=np.uint8)] = _LETTER
_BYTE_CLASS[np.frombuffer(string.digits.encode(), dtype=np.uint8)] = _DIGIT
for _char, _class in ((" ", _SPACE), (",", _COMMA), (".", _PERIOD), ("\n", _NEWLINE), ("-", _HYPHEN),
                      ("'", _APOSTROPHE), ('"', _QUOTE), (":", _COLON), (";", _COLON), ("?", _STOP),
                      ("!", _STOP)):  # fmt: skip
    _BYTE_CLASS[ord(_char)] = _class
_LOWER = np.frombuffer(bytes(range(256)).lower(), dtype=np.uint8)
_IS_LETTER = _BYTE_CLASS == _LETTER
_IS_ALNUM = _IS_LETTER | (_BYTE_CLASS == _DIGIT)
_IS_SEPARATOR = (_BYTE_CLASS == _SPACE) | (_BYTE_CLASS == _COMMA) | (_BYTE_CLASS == _PERIOD)
_IS_LINE_END = _BYTE_CLASS == _NEWLINE
_IS_SPACE_OR_LINE_END = (_BYTE_CLASS == _SPACE) | _IS_LINE_END
# What may follow a clitic on the fast path (a hyphen would not join it to the next word).
_ENDS_CLITIC = _IS_SEPARATOR | _IS_LINE_END
_PADDING = 4  # bytes of line end added around the stream so that neighbours can be read without bounds checks
# Output of the fast path: periods, commas, colons, semicolons, question and exclamation marks are
# dropped (single-character tokens that the COCO filter removes), double quotes become a space (they
# are `` or '' tokens, also removed).
_FAST_OUTPUT = bytes.maketrans(b'"', b" ")
_FAST_DELETE = b",.:;?!"
# What may precede a period that the fast path drops.
_BEFORE_PERIOD = _IS_ALNUM | (_BYTE_CLASS == _SPACE) | (_BYTE_CLASS == _QUOTE)

# Abbreviations before a period are found by packing the lower-cased word (at most 8 letters) into
# one integer per period, walking back from the period: the last letter is the lowest byte.
_MAX_ABBREVIATION = max(len(word) for word in ABBREVIATION_WORDS)
if _MAX_ABBREVIATION > 8:  # pragma: no cover - guards a future edit of the word list
    raise RuntimeError("abbreviation words longer than 8 letters do not fit the fast-path packing")
_ABBREVIATION_CODES = np.array(
    sorted(int.from_bytes(word.encode(), "big") for word in ABBREVIATION_WORDS), dtype=np.uint64
)
# Assimilations are found by their doubled letter ("nn", "tt", "mm" at offsets 2-3), then by the
# packed 5 or 6 lower-case bytes around it.
_IS_ASSIMILATION_PAIR = np.zeros(256, dtype=bool)
_IS_ASSIMILATION_PAIR[[ord(word[2]) for word in ASSIMILATIONS]] = True
if any(word[2] != word[3] for word in ASSIMILATIONS):  # pragma: no cover - guards a future edit
    raise RuntimeError("the assimilation search expects a doubled letter at offsets 2-3")
_FIVE_BYTES = (1 << 40) - 1
# (The window is packed forwards: the first letter is the lowest byte.)
_ASSIMILATION_CODES_5, _ASSIMILATION_CODES_6 = (
    np.array(sorted(int.from_bytes(w.encode(), "little") for w in ASSIMILATIONS if len(w) == n), dtype=np.uint64)
    for n in (5, 6)
)
# A clitic after an apostrophe: 's 'm 'd (one letter) or 're 've 'll (two), lower case only.
_CLITIC_1 = np.zeros(256, dtype=bool)
_CLITIC_1[[ord(c) for c in "smd"]] = True
_CLITIC_2 = {(ord(a), ord(b)) for a, b in ("re", "ve", "ll")}
# Longest letter run walked back before "n't" (longer words just go through the scanner).
_MAX_NT_WORD = 24


class PTBTokenizer:
    """COCO-exact PTB tokenizer (Stanford CoreNLP 3.4.1 + the pycocoevalcap punctuation filter).

    Example:
        >>> PTBTokenizer().tokenize(["A man's hat, (red).", "Don't  stop!"])
        ["a man 's hat -lrb- red -rrb-", "do n't stop"]
        >>> PTBTokenizer().tokenize(["The letter B.", "A sign."])  # the next caption matters
        ['the letter b', 'a sign']
        >>> PTBTokenizer().tokenize(["The letter B.", "a sign."])
        ['the letter b.', 'a sign']
    """

    name = "ptb"

    def tokenize(self, texts: Sequence[str]) -> list[str]:
        """Tokenize a batch of captions as one stream, like one call of the official tokenizer.

        Args:
            texts: raw captions. The result depends on the order, because a caption can change how
                the last token of the caption before it is split.

        Returns:
            One string per caption: its tokens joined by single spaces (empty for a caption without
            tokens), in input order.

        Raises:
            ValueError: if ``texts`` is a single string or an item is not a string.
        """
        if isinstance(texts, str):
            raise ValueError("tokenize() takes a sequence of captions, not a single string")
        captions = list(texts)
        if not captions:
            return []
        try:
            stream = "\n".join(captions)
        except TypeError:
            index, bad = next((i, c) for i, c in enumerate(captions) if not isinstance(c, str))
            raise ValueError(f"caption {index} is {type(bad).__name__}, expected str") from None
        if stream.count("\n") != len(captions) - 1:
            captions = [caption.replace("\n", " ") if "\n" in caption else caption for caption in captions]
            stream = "\n".join(captions)
        for char in _OTHER_LINE_BREAKS:
            if char in stream:
                stream = stream.replace(char, " ")

        data = stream.encode("utf-8", "surrogatepass")
        lowered = data.lower()
        complex_indices, crowded_indices, trailing_indices, insert_spaces, line_ends = _classify(data, lowered)
        # Fast path for the whole batch (see _classify); captions that need the scanner are replaced
        # below.
        if insert_spaces.size:
            lowered = np.insert(np.frombuffer(lowered, dtype=np.uint8), insert_spaces, ord(" ")).tobytes()
        lines = lowered.translate(_FAST_OUTPUT, _FAST_DELETE).decode("utf-8", "surrogatepass").split("\n")
        for index in crowded_indices:
            lines[index] = " ".join(lines[index].split())
        for index in trailing_indices:
            lines[index] = lines[index][:-1]
        if complex_indices:
            if len(data) == len(stream):  # ASCII: byte offsets are character offsets
                ends = line_ends + 1
            else:
                ends = np.cumsum(np.fromiter(map(len, captions), dtype=np.int64, count=len(captions)) + 1)
            for index in complex_indices:
                start = int(ends[index - 1]) if index else 0
                tokens = scan_caption(stream, start, start + len(captions[index]))
                # The official wrapper strips each output line (str.rstrip: any Unicode space).
                raw = " ".join(tokens).rstrip()
                lines[index] = " ".join(token for token in raw.split(" ") if token not in COCO_PUNCTUATIONS)
        return lines


def _is_in(values: np.ndarray, sorted_codes: np.ndarray) -> np.ndarray:
    """Element-wise membership of ``values`` in the sorted array ``sorted_codes``."""
    index = np.minimum(np.searchsorted(sorted_codes, values), sorted_codes.size - 1)
    return np.asarray(sorted_codes[index] == values)


def _classify(data: bytes, lowered: bytes) -> tuple[list[int], list[int], list[int], np.ndarray, np.ndarray]:
    """Decide which captions the fast path can tokenize, and how.

    A caption stays on the fast path when every byte is an ASCII letter, digit, space, comma, period,
    colon, semicolon, question or exclamation mark, hyphen, apostrophe or double quote, and

    * every period follows a letter, digit, space or double quote, is followed by a space or the
      end of the caption but not by `` .`` (an ellipsis), and does not end an abbreviation
      (``"Mr."``, ``"B."``, ``"etc."``);
    * every colon, semicolon, question or exclamation mark is followed by a space or the end of the
      caption and is not part of a run like ``"?!"``;
    * every comma is followed by a space, a comma or the end of the caption (``",5"`` is a number);
    * no digit is separated from the next digit by spaces, commas or periods only (numbers, phone
      numbers);
    * every hyphen joins a letter or digit to a letter (``t-shirt``, ``3-year-old``: one token);
    * every apostrophe starts a lower-case clitic (``'s 'm 'd 're 've 'll``) after at least two
      letters or digits, or is the apostrophe of ``n't`` after a word of letters that does not end
      in ``n`` and does not follow a hyphen (``do n't``); the clitic is followed by a space, comma,
      period or the caption end;
    * no assimilation (``"gonna"``) occurs.

    For such a caption no lexer rule can match anything but the words, hyphenated words, clitics and
    the ``,`` ``.`` ````` ``''`` tokens, whatever the next caption is; the COCO filter then removes the
    punctuation. So its output is the lower-cased text with a space before each clitic, without
    periods and commas, with double quotes turned into spaces, and with normalised spacing.

    Args:
        data: the UTF-8 encoded stream (captions joined by ``"\\n"``).
        lowered: ``data.lower()``.

    Returns:
        Sorted indices of captions that need the full scanner; sorted indices of the other captions
        whose spacing needs normalising; sorted indices of those that only end with one space too
        many; the byte offsets before which the fast path inserts a space (clitics); and the byte
        offsets of the line ends.
    """
    arr = np.frombuffer(data, dtype=np.uint8)
    # padded[i + _PADDING] is arr[i]; the padding reads as line ends.
    pad = np.full(_PADDING, 10, dtype=np.uint8)
    padded = np.concatenate((pad, arr, pad))
    p = _PADDING
    low = np.frombuffer(lowered, dtype=np.uint8)
    # Only bytes other than letters and spaces need a look; classify those. (Plain arithmetic is
    # much faster than a table look-up over the whole stream: after lower-casing, the letters are
    # exactly the bytes b with b - 97 < 26 in uint8 arithmetic.)
    marked = np.flatnonzero(((low - np.uint8(97)) >= 26) & (low != ord(" ")))
    classes = _BYTE_CLASS[arr[marked]]
    suspicious = [marked[classes == _OTHER]]

    periods = marked[classes == _PERIOD]
    before, after = padded[periods + p - 1], padded[periods + p + 1]
    # " . . ." is an ellipsis token; a period followed by " ." may start one.
    ellipsis = (after == ord(" ")) & (padded[periods + p + 2] == ord("."))
    suspicious.append(periods[~_BEFORE_PERIOD[before] | ~_IS_SPACE_OR_LINE_END[after] | ellipsis])
    period_ends_word = _IS_ALNUM[before]

    # Colons, semicolons, "?" and "!" before a space or line end are single tokens (runs like "?!"
    # and "!!!" are kept by the COCO filter, so they go to the scanner).
    colons = marked[(classes == _COLON) | (classes == _STOP)]
    before, after = padded[colons + p - 1], padded[colons + p + 1]
    run = (_BYTE_CLASS[before] == _STOP) & (_BYTE_CLASS[padded[colons + p]] == _STOP)
    colon_ends_word = _IS_ALNUM[before]
    suspicious.append(colons[~_IS_SPACE_OR_LINE_END[after] | run])

    commas = marked[classes == _COMMA]
    after = padded[commas + p + 1]
    suspicious.append(commas[~(_IS_SPACE_OR_LINE_END[after] | (_BYTE_CLASS[after] == _COMMA))])

    hyphens = marked[classes == _HYPHEN]
    suspicious.append(hyphens[~_IS_ALNUM[padded[hyphens + p - 1]] | ~_IS_LETTER[padded[hyphens + p + 1]]])

    # A digit followed by a run of separators and then another digit.
    digits = marked[classes == _DIGIT]
    run_start = digits[_IS_SEPARATOR[padded[digits + p + 1]]]
    position = run_start + 1
    while position.size:
        following = padded[position + p]
        suspicious.append(run_start[_BYTE_CLASS[following] == _DIGIT])
        more = _IS_SEPARATOR[following]
        run_start, position = run_start[more], position[more] + 1

    # Apostrophes: clitics ('s) and n't; anything else goes to the scanner.
    apostrophes = marked[classes == _APOSTROPHE]
    previous2, previous1, next1, next2, next3 = (padded[apostrophes + p + k] for k in (-2, -1, 1, 2, 3))
    two_letter = np.zeros(apostrophes.size, dtype=bool)
    for first, second in _CLITIC_2:
        two_letter |= (next1 == first) & (next2 == second)
    # (A two-letter clitic at the very end of the text is split differently; the scanner handles it.)
    at_end = apostrophes + 3 >= arr.size
    clitic = (_CLITIC_1[next1] & _ENDS_CLITIC[next2]) | (two_letter & _ENDS_CLITIC[next3] & ~at_end)
    clitic &= _IS_ALNUM[previous1] & _IS_ALNUM[previous2]
    n_t = (previous1 == ord("n")) & (next1 == ord("t")) & _ENDS_CLITIC[next2]
    n_t &= _IS_LETTER[previous2] & ~np.isin(previous2, (ord("n"), ord("N")))
    # The word before "n't" must consist of letters only (a digit makes it a different token).
    candidates = np.flatnonzero(n_t)
    offset = apostrophes[candidates] + p - 2
    alive = np.ones(candidates.size, dtype=bool)
    for _ in range(_MAX_NT_WORD):
        offset = offset - 1
        byte = padded[offset]
        n_t[candidates[alive & (_BYTE_CLASS[byte] == _DIGIT)]] = False
        # After a hyphen the word is part of a hyphenated token, which keeps the "n".
        n_t[candidates[alive & (_BYTE_CLASS[byte] == _HYPHEN)]] = False
        alive &= _IS_ALNUM[byte]
        if not alive.any():
            break
    n_t[candidates[alive]] = False
    suspicious.append(apostrophes[~(clitic | n_t)])
    insert_spaces = np.sort(np.concatenate((apostrophes[clitic], apostrophes[n_t] - 1)))

    # Abbreviations before a period: pack the alphanumeric run that ends at each period.
    candidates = periods[period_ends_word]
    code = np.zeros(candidates.size, dtype=np.uint64)
    alive = np.ones(candidates.size, dtype=bool)
    for k in range(_MAX_ABBREVIATION + 1):
        byte = padded[candidates + p - 1 - k]
        alive &= _IS_ALNUM[byte]
        if not alive.any():
            break
        code |= (_LOWER[byte] * alive).astype(np.uint64) << np.uint64(8 * k)
    suspicious.append(candidates[~alive & _is_in(code, _ABBREVIATION_CODES)])

    # Repeated bytes: double spaces (spacing to normalise) and the doubled letter of an assimilation.
    pairs = np.flatnonzero(low[1:] == low[:-1])
    pair_bytes = low[pairs]
    double_spaces = pairs[pair_bytes == ord(" ")]
    # Every assimilation has its doubled letter at offsets 2-3 ("go|nn|a", "ca|nn|ot"); pack the
    # lower-cased window and compare with the packed words.
    doubled = pairs[_IS_ASSIMILATION_PAIR[pair_bytes]] - 2 + p
    low_padded = np.concatenate((pad, low, pad))
    window = np.zeros(doubled.size, dtype=np.uint64)
    for k in range(6):
        window |= low_padded[doubled + k].astype(np.uint64) << np.uint64(8 * k)
    hit = _is_in(window & np.uint64(_FIVE_BYTES), _ASSIMILATION_CODES_5) | _is_in(window, _ASSIMILATION_CODES_6)
    suspicious.append(doubled[hit] - p)

    line_ends = marked[classes == _NEWLINE]
    n_lines = line_ends.size + 1
    complex_mask = np.zeros(n_lines, dtype=bool)
    complex_mask[np.searchsorted(line_ends, np.concatenate(suspicious))] = True

    # Lines whose spacing needs normalising after periods and commas are dropped and quotes become
    # spaces: repeated or leading spaces, quotes, punctuation not right after a word. A line whose
    # only problem is a space before its end just loses its last character. (Line j ends at
    # line_ends[j].)
    quotes = marked[classes == _QUOTE]
    loose_commas = commas[~_IS_ALNUM[padded[commas + p - 1]]]
    loose_periods = periods[~period_ends_word]
    loose_colons = colons[~colon_ends_word]
    crowded_mask = np.zeros(n_lines, dtype=bool)
    crowded = np.concatenate((double_spaces, quotes, loose_commas, loose_periods, loose_colons))
    crowded_mask[np.searchsorted(line_ends, crowded)] = True
    crowded_mask[1:] |= padded[line_ends + p + 1] == ord(" ")
    crowded_mask[0] |= data[:1] == b" "
    trailing_mask = np.zeros(n_lines, dtype=bool)
    trailing_mask[:-1] = padded[line_ends + p - 1] == ord(" ")
    trailing_mask[-1] = data[-1:] == b" "
    crowded_mask &= ~complex_mask
    trailing_mask &= ~(complex_mask | crowded_mask)
    complex_set, crowded_set, trailing_set = (np.flatnonzero(m) for m in (complex_mask, crowded_mask, trailing_mask))
    return complex_set.tolist(), crowded_set.tolist(), trailing_set.tolist(), insert_spaces, line_ends
