"""Stress inputs for the CoreNLP 3.6.0 tokenizer and sentence splitter, and the fixture made from them.

The inputs: hand-written cases (the pipeline's documented behaviours, every rule that differs from
CoreNLP 3.4.1, Unicode punctuation and spaces), the inputs of the PTB 3.4.1 test vectors, random
captions glued from tricky pieces, and every BMP character in a few contexts.

Run as a script (needs Java: the official jars, installed by ``bench.oracle``) to write the
fixture of the default test suite from the official tokenizer::

    python tests/tokenizers/corenlp_stress.py

It writes ``tests/data/tokenizers/corenlp_vectors.jsonl.gz`` (one ``{"text", "sentences"}`` per
line) and ``tests/data/tokenizers/corenlp_bmp_behaviour.tsv.gz`` (per context, ranges of code points
that the official tokenizer treats alike).
"""

from __future__ import annotations

import gzip
import io
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

DATA = Path(__file__).parents[1] / "data" / "tokenizers"
VECTORS = DATA / "corenlp_vectors.jsonl.gz"
BMP_TABLE = DATA / "corenlp_bmp_behaviour.tsv.gz"

#: Contexts of the per-character table (``{}`` is the character).
BMP_CONTEXTS = ("xa{}bx", "a {} b", "1{}2", "{}", "The dog{}s ball.", "{}Hello there.", "O'{}x", "x-{}", "x{}.")
#: Seed and number of the random captions kept in the fixture.
FIXTURE_SEED, FIXTURE_RANDOM = 20260, 3000

HAND = [
    # The pipeline's documented behaviours.
    "A man's bike isn't red; it's \"blue\" (mostly).",
    "Mr. Smith and Dr. Jones at 5 p.m. in the U.S. today.",
    "The 1950s-era car costs $5,000 and 3/4 of it is rust -- really.",
    "It's a black-and-white photo of a T-shirt & a bike's wheel.",
    "He said 'hi' and left... then came back?!",
    "cannot gonna wanna dunno gotta lemme gimme 'tis 'twas",
    '"Hello," he said.',
    "A \u201csmiling\u201d man\u2019s dog \u2014 sitting on a sofa\u2026 with a toy \U0001f642",
    "Caf\u00e9, na\u00efve pi\u00f1ata, cr\u00e8me br\u00fbl\u00e9e.",
    "A cat sits on a mat. A dog runs! Is it raining? Yes...",
    "A plate of food on a table..",
    ".",
    "",
    "   ",
    "\t",
    # Sentence ends and what follows them.
    "He left. (Then he came back.) She stayed.",
    'She said "Stop." Then he stopped.',
    "She said 'Stop.' Then he stopped.",
    "Really?! No!!! Why??? Okay.",
    "A dog [in a hat.] A cat {on a mat.} Done.",
    "End. ) ] } '' ' \u2019 \u201d -RRB- more",
    "One. . Two.. Three... Four.... Five",
    "x . y . z .",
    "Wait.... Then it rained. Wait. . . . Then it snowed.",
    'Wait.... 3 cats. Wait.... "Go". Wait....',
    "Look\u2026 A cat\u2026. Then a dog.",
    "A...B...C",
    "a ....... b ........ c",
    "line one.\nline two\n\nline three",
    "tab\tseparated\ttokens. New\rline",
    "The U.S. Army. The U.S. is big. I. am here. He is from St. Louis. Go to Main St. Now.",
    "He arrived at 10 a.m. The train left. It was Jan. 5. Next.",
    "Calif. Wash. Penn. Inc. Ltd. Co. Corp. etc. vs. v. e.g. i.e. a.k.a. No. 5 Fig. 3",
    "Did you see the U.S. How about the U.K. Who knows the U.N. Why not E.U. During the A.M.",
    "I saw E! and Yahoo! and Jeopardy! on OK! magazine. OK! fine.",
    "What the f*ck, f**k, f*cking, f*cked, sh*t and sh*tty.",
    "a == b, c = d, e === f",
    "Files: movie.mp4, clip.avi, song.mp3, my_file-v2.wmv, data.tar.bz2, x.3gp, y.flv, z.mpg.",
    "O\u2019Neil, O\u2018Neil, d\u2019Artagnan, rock\u2019n\u2019roll, ma\u2019am, y\u2019all, Cap'n and c'est la vie.",
    "O&apos;Neil, don&apos;t, &quot;quoted&quot;, AT&amp;T, AT&T., &lt;tag&gt;",
    "O`Neil, O\u0091Neil, O\u201bNeil, don`t, caf&eacute; &Uuml;ber &lt;a@b.com&gt; S&amp;P-500 Cap&Gen",
    "Calif. \u00c9lan and Calif. \u00e9lan and Jan. \u00d6l.",
    "\u0095 bullet \u0099 mark \u2043 hyphen bullet \u2022 real bullet",
    "smiles :) :-) ;) :( :D :P =) ;-) :] :o) ^_^ (^_^) <3 8) xD",
    ":)",
    "end with a smiley :)",
    '<b>bold</b> <a href="x">link</a> <br/> <p class=x> <!-- c --> <?xml?>',
    "Visit www.example.com or http://example.com/path?q=1 or mail me@example.com #tag @user",
    "Prices: $5, $5.50, 5$, US$5, \u00a35, \u20ac5, \u00a55, 5\u00a2, 50%, #1",
    "Fractions \u00bd \u00bc \u00be 1 1/2 3/4 10\u20442",
    "Phones (555) 123-4567 and 555-123-4567 and +1 555.123.4567",
    "Dates 12/31/2020 and 2020-12-31 and 10:30 and 3.14 and 1,000,000 and .5",
    "Dashes - -- --- ---- \u2013 \u2014 \u2015 &mdash; &ndash;",
    "Quotes \u2018a\u2019 \u201cb\u201d \u201ac\u201e \u00abd\u00bb \u2039e\u203a ``f'' `g' \"h\" 'i'",
    "Brackets ( ) [ ] { } -LRB- -rrb-",
    "Spaces:\u00a0nbsp,\u2002en,\u2003em,\u3000ideographic,\u200bzero-width,\ufeffbom.",
    "Full-width: \uff21\uff22\uff23 \uff11\uff12\uff13 \uff01 \uff1f \uff08x\uff09 \u3002",
    "Combining: e\u0301 n\u0303 a\u0308 cafe\u0301 \u0301alone",
    "Emoji: \U0001f436 dog \U0001f600. \U0001f468\u200d\U0001f469\u200d\U0001f467 family \u2764\ufe0f",
    "Math: \U0001d400\U0001d401 and \U00020000 ideograph.",
    "Greek \u039f\u0394\u039f\u03a3 and Cyrillic \u043c\u0438\u0440 and Arabic \u0633\u0644\u0627\u0645"
    " and \u65e5\u672c\u8a9e.",
    "Soft\u00adhyphen, \u00ad alone, a\u00ad b, \u058a armenian \u058a-dash, x\u058ay, 1\u18852",
    "Control \x00 \x01 \x07 \x1b chars \x7f and \x85 nel and \u2028 ls \u2029 ps",
    "A dog.\u00a0.\u00a0. waits .\u00a0.\u00a0.\u00a0. B",
    "a \u00a0.www.site.com b",
    "Jan.\U0001f436",
    "Calif.\U0001f600 x",
    "The C++ and C# code, f# too.",
    "it's we're they've I'll she'd I'm 's 're n't 'em 'cause 'til '90s o'clock",
    "DON'T CAN'T WON'T SHAN'T AIN'T Can't Don'T",
    "3'6\" tall, 5' 10\", the '60s, rock 'n' roll",
    "The 1990s' best, the dogs' bowls, James' hat, Chris's bike",
    "non-U.S. pro- anti- S&P-500 C.D.s Cap&Gen",
    "x-ray, T-shirt, 3-year-old, well-known, e-mail, co-op, - dash - ",
    "A B C. D E F. G.",
    "I. Am. A. Robot.",
    "The end.\u201d Next one.\u2019 Another.",
    "Stop!\u201d she said. \u201cGo?\u201d he asked.",
    "Numbers: 1. 2. 3. Done.",
    "etc. And so on. e.g. Some. i.e. None.",
    "Two sentences.Without space.Here",
    "A man riding a horse on a beach",
    "a man riding a horse on a beach .",
    "A MAN WITH A HAT!!!",
    "The letter B. A sign.",
    "the letter b. a sign.",
]

# Pieces for random captions: words, abbreviations, clitics, numbers, symbols, quotes, brackets,
# dots, 3.6.0's new rules and non-ASCII text.
PIECES = [
    *"a the dog dogs man men on of with table street sign letter bus train kitchen pizza".split(),
    *"A The Two It There An Some This They He She We You When While Then Here".split(),
    *"Did During How Who Why About After But If In Many Now Once Our So That These What Yet".split(),
    *"Mr Dr St Mt Ft No Co Inc etc U.S B I a b x s v US Jan Sept Calif Ltd vs e.g p.m U.N A.M".split(),
    "cannot", "gonna", "gotta", "lemme", "gimme", "wanna", "Gonna", "CANNOT",
    "can't", "don't", "won't", "isn't", "dn't", "x2n't", "man's", "it's", "we're", "I'm",
    "dogs'", "O'Neil", "o'clock", "ma'am", "y'all", "'90s", "'s", "n't", "'", "''", "``", '"', '"Hi"',
    "O\u2019Neil", "O\u2018Neil", "rock\u2019n\u2019roll", "d\u2019Art", "Cap'n", "c'est", "&apos;", "&quot;",
    "t-shirt", "x-ray", "3-year-old", "2-3", "12-10", "-", "--", "---", "pro-", "non-U.S.", "cat's-eye",
    "1", "2", "10", "1,000", "3.5", ".5", "1 1/2", "3/4", "555", "123", "4567", "(555)", "10:30", "$5", "50%",
    ".", ",", "..", "...", "....", ".....", "......", ". . .", ". . . .", ".\u00a0.\u00a0.", "\u2026", "\x85",
    "!", "?", "!!", "?!", ";", ":", ":)", ":-(", ";)", ":D", "(", ")", "[", "]", "{", "}",
    "&", "AT&T", "AT&amp;T", "@user", "#tag", "www.site.com", "a@b.com", "http://x.org/a",
    "<b>", "</b>", "<a href=x>", "<", ">", "/", "*", "=", "==", "+", "~",
    "E!", "Yahoo!", "OK!", "magazine", "f*ck", "f**king", "sh*tty", "clip.mp4", "my_file-v2.avi", "x.tar.bz2",
    "\u00a0", "\t", "\n", "\u2002", "\u3000", "\u200b", "\ufeff", "\u00ad", "\u058a", "\x95", "\x99", "\u2043",
    "caf\u00e9", "e\u0301", "\u2019s", "\u201cquoted\u201d", "\u2018single\u2019", "\u00abguill\u00bb",
    "\u2014", "\u2013", "\u00bd", "\u00a3", "\u20ac", "\u00a2", "\U0001f436", "\U0001d400",
    "\uff21\uff22", "\uff01", "\u3002", "\u65e5\u672c", "\u039f\u0394\u039f\u03a3", "\u0633\u0644\u0627\u0645",
    "O`Neil", "O\u0091Neil", "O\u201bNeil", "don`t", "caf&eacute;", "&Uuml;ber", "&lt;", "&gt;", "&lt;a@b.com&gt;",
    "<p class=x>", "</p>", "\u00c9lan", "\u00e9lan", "S&amp;P-500", "Cap&Gen", "&amp;", "&nbsp;", "&#39;", "\x7f",
]  # fmt: skip
GLUE = [" ", " ", " ", " ", " ", "", "  ", ",", ", ", ".", ". ", " . ", "-", "'", ": ", "; ", "? ", "! ",
        '" ', ' "', ".) ", '." ', ".' ", "?! ", "\u00a0", "\n"]  # fmt: skip
ENDS = [".", ". ", " .", "", " ", "!", "..", "?", '."', '".', " . .", ". . .", ":", "....", ".)", "?!"]


def random_caption(rng: random.Random) -> str:
    """A random caption glued from :data:`PIECES`."""
    parts = []
    for _ in range(rng.randint(0, 14)):
        parts.append(rng.choice(PIECES))
        parts.append(rng.choice(GLUE))
    caption = "".join(parts)
    if rng.random() < 0.3:
        caption = rng.choice([" ", "\u00a0", "\t"]) + caption
    if rng.random() < 0.6:
        caption += rng.choice(ENDS)
    return caption


def random_captions(seed: int, n: int) -> list[str]:
    """``n`` random captions (reproducible from ``seed``)."""
    rng = random.Random(seed)
    return [random_caption(rng) for _ in range(n)]


def ptb_vector_inputs() -> list[str]:
    """The inputs of the PTB 3.4.1 test vectors (``ptb_vectors.tsv``, ``ptb_batch_vectors.tsv``)."""
    inputs = []
    for name, column in (("ptb_vectors.tsv", 1), ("ptb_batch_vectors.tsv", 2)):
        lines = (DATA / name).read_text(encoding="utf-8").splitlines()
        rows = [line.split("\t") for line in lines if not line.startswith("#")][1:]
        inputs += [json.loads(row[column]) for row in rows]
    return inputs


def bmp_characters() -> list[str]:
    """Every BMP code point but the surrogates."""
    return [chr(c) for c in range(0x10000) if not 0xD800 <= c < 0xE000]


def behaviour_key(char: str, sentences: list[list[str]]) -> str:
    """How a context treated ``char``: its sentences as JSON, the character written as ``{}``."""
    return json.dumps([[token.replace(char, "{}") for token in sentence] for sentence in sentences])


def bmp_ranges(context: str, tokenize: Callable[[list[str]], list[list[list[str]]]]) -> list[tuple[int, int, str]]:
    """``(first, last, behaviour)`` ranges of code points that ``tokenize`` treats alike in ``context``."""
    chars = bmp_characters()
    results = tokenize([context.format(char) for char in chars])
    ranges: list[tuple[int, int, str]] = []
    for char, sentences in zip(chars, results, strict=True):
        key = behaviour_key(char, sentences)
        code = ord(char)
        if ranges and ranges[-1][2] == key and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code, key)
        else:
            ranges.append((code, code, key))
    return ranges


def stress_inputs() -> list[str]:
    """The caption inputs of the fixture (hand cases, PTB vector inputs, random captions)."""
    return [*HAND, *ptb_vector_inputs(), *random_captions(FIXTURE_SEED, FIXTURE_RANDOM)]


def _gzip_text(path: Path) -> io.TextIOWrapper:
    """A text file written gzip-compressed, the same bytes for the same text (no time stamp)."""
    return io.TextIOWrapper(gzip.GzipFile(path, "wb", compresslevel=9, mtime=0), encoding="utf-8", newline="\n")


def main() -> int:
    sys.path.insert(0, str(Path(__file__).parents[2]))
    from bench.oracle.corenlp_tokens import run_tokens

    texts = stress_inputs()
    with _gzip_text(VECTORS) as fh:
        for text, sentences in zip(texts, run_tokens(texts), strict=True):
            fh.write(json.dumps({"text": text, "sentences": sentences}, ensure_ascii=False) + "\n")
    lines = [
        "# Stanford CoreNLP 3.6.0 tokenize,ssplit (as official SPICE 1.0 runs them) on each context with every BMP",
        "# code point but the surrogates in place of {}. Columns: context (JSON), first and last code point of a",
        "# range treated alike, and the sentences (JSON) with the code point written as {}.",
        "context\tfirst\tlast\tsentences",
    ]
    for context in BMP_CONTEXTS:
        for first, last, key in bmp_ranges(context, run_tokens):
            lines.append(f"{json.dumps(context)}\tU+{first:04X}\tU+{last:04X}\t{key}")
    with _gzip_text(BMP_TABLE) as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"{len(texts)} vectors -> {VECTORS}; {len(lines) - 4} ranges -> {BMP_TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
