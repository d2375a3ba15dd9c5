"""CoreNLP 3.6.0's lemma annotator (Morpha), run as an oracle on (word, tag) pairs.

``morpha/MorphaOracle.java`` hands each pair, as one token with that text and part-of-speech tag,
to CoreNLP's own ``MorphaAnnotator``: the annotator SPICE 1.0's pipeline runs after the parser.
It is compiled with ``javac`` on first use against the CoreNLP jar that :mod:`.spice_full`
installs; outputs are cached under the oracle directory, keyed by a hash of the input and the
harness. capeval never runs any of this; only the slow suites and the benchmarks do.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import zipfile
from collections.abc import Iterable
from pathlib import Path

from .official import OracleUnavailable, oracle_dir
from .spice_full import corenlp_models_jar, spice_full_dir

__all__ = ["PTB_TAGS", "caption_words", "flickr8k_captions", "grammar_words", "run_morpha", "time_morpha"]

_SOURCES = Path(__file__).with_name("morpha")
#: Flickr8K's captions in the reference material beside the repository (absent on a fresh clone).
FLICKR8K_TOKENS = Path(__file__).resolve().parents[3] / "shared" / "data" / "flickr8k-raw-dev" / "Flickr8k.token.txt"

#: The part-of-speech tags CoreNLP 3.6.0's English PCFG can put on a word: the 45 Penn Treebank
#: tags its 614 tag states reduce to (the boundary tag ``.$$.`` aside).
PTB_TAGS = (
    "#", "$", "''", ",", "-LRB-", "-RRB-", ".", ":", "CC", "CD", "DT", "EX", "FW", "IN", "JJ", "JJR", "JJS",
    "LS", "MD", "NN", "NNP", "NNPS", "NNS", "PDT", "POS", "PRP", "PRP$", "RB", "RBR", "RBS", "RP", "SYM",
    "TO", "UH", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "WDT", "WP", "WP$", "WRB", "``",
)  # fmt: skip

_PIECES = re.compile(r"[A-Za-z]+(?=n't\b)|n't|'[A-Za-z]+|[A-Za-z0-9]+(?:[-.'/][A-Za-z0-9]+)*|[^\sA-Za-z0-9]+|\S")
_ESCAPED = {"(": "-LRB-", ")": "-RRB-", "[": "-LSB-", "]": "-RSB-", "{": "-LCB-", "}": "-RCB-", '"': "``"}


def caption_words(captions: Iterable[str]) -> set[str]:
    """A generous word list of ``captions``: every token a PTB tokenizer could plausibly make.

    Each white-space separated chunk, its word, clitic (``n't``, ``'s``) and punctuation pieces,
    PTB escapes of brackets and quotes, each as written and lower-cased.
    """
    words: set[str] = set()
    for text in captions:
        for chunk in text.split():
            words.add(chunk)
            for piece in _PIECES.findall(chunk):
                words.add(piece)
                words.add(_ESCAPED.get(piece, piece))
    words |= {word.lower() for word in words}
    words.discard("")
    return words


_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def flickr8k_captions() -> list[str] | None:
    """The 40,460 captions of ``Flickr8k.token.txt``, or None when the file is not there."""
    if not FLICKR8K_TOKENS.exists():
        return None
    lines = FLICKR8K_TOKENS.read_text(encoding="utf-8").splitlines()
    return [line.split("\t", 1)[1] for line in lines if "\t" in line]


def grammar_words() -> list[str]:
    """The 48,050 words of the parser's lexicon (``englishPCFG.ser.gz``, read with ``javaobj-py3``).

    The grammar is ``CAPEVAL_SPICE_GRAMMAR`` when set (the models jar or its ``englishPCFG.ser.gz``),
    else the one in the oracle's CoreNLP models jar. The word list is cached under the oracle directory.
    """
    path = Path(os.environ.get("CAPEVAL_SPICE_GRAMMAR") or corenlp_models_jar())
    if zipfile.is_zipfile(path):  # the models jar
        with zipfile.ZipFile(path) as jar:
            blob = jar.read("edu/stanford/nlp/models/lexparser/englishPCFG.ser.gz")
    else:
        blob = path.read_bytes()
    cache = oracle_dir() / "cache" / f"grammar-words-{hashlib.sha256(blob).hexdigest()[:16]}.json"
    if not cache.exists():
        try:
            import javaobj.v1 as javaobj  # type: ignore[import-untyped]
        except ImportError:
            raise OracleUnavailable("reading the grammar needs javaobj-py3 (pip install javaobj-py3)") from None
        words = [str(word) for word in javaobj.loads(gzip.decompress(blob)).wordIndex.objects]
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name(f"{cache.name}.tmp{os.getpid()}")
        tmp.write_text(json.dumps(words, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, cache)
    result: list[str] = json.loads(cache.read_text(encoding="utf-8"))
    return result


def _harness() -> tuple[str, bytes]:
    """The harness's classpath (compiled on first use) and the bytes of its sources."""
    if shutil.which("java") is None or shutil.which("javac") is None:
        raise OracleUnavailable("java and javac are needed (apt-get install -y default-jdk-headless)")
    sources = sorted(_SOURCES.glob("*.java"))
    blob = b"".join(p.read_bytes() for p in sources)
    corenlp = spice_full_dir() / "lib" / "stanford-corenlp-3.6.0.jar"
    classes = oracle_dir() / f"morpha-{hashlib.sha256(blob).hexdigest()[:16]}"
    if not classes.exists():
        tmp = classes.with_name(f"{classes.name}.tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        command = ["javac", "-nowarn", "-encoding", "UTF-8", "-cp", str(corenlp), "-d", str(tmp)]
        subprocess.run([*command, *map(str, sources)], check=True, capture_output=True)
        os.replace(tmp, classes)
    return os.pathsep.join((str(classes), str(corenlp))), blob


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text
    out, i = [], 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            i += 1
            char = {"t": "\t", "n": "\n", "r": "\r"}.get(text[i], text[i])
        out.append(char)
        i += 1
    return "".join(out)


def run_morpha(pairs: Iterable[tuple[str, str]], *, timeout: float = 3600) -> list[str | None]:
    """The lemma CoreNLP 3.6.0's ``MorphaAnnotator`` gives each ``(word, tag)`` token, in input order.

    None where the annotator sets no lemma (a degenerate pair such as an empty word tagged ``_``).

    Args:
        pairs: ``(word, tag)`` pairs: the token's text (PTB-escaped, as the parser sees it) and
            its part-of-speech tag. Any characters are allowed except lone surrogates.
        timeout: Seconds the Java process may take.

    Raises:
        ValueError: A word or tag cannot be encoded as UTF-8.
        OracleUnavailable: Java or the CoreNLP jar cannot be had.
    """
    lines = []
    for position, (word, tag) in enumerate(pairs):
        if not isinstance(word, str) or not isinstance(tag, str):
            raise ValueError(f"pair {position}: word and tag must be strings, got {(word, tag)!r}")
        lines.append(f"{word.translate(_ESCAPES)}\t{tag.translate(_ESCAPES)}\n")
    try:
        blob = "".join(lines).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"a word or tag is not valid text: {exc}") from None
    classpath, harness = _harness()
    cache = oracle_dir() / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    out_path = cache / f"morpha-{hashlib.sha256(blob + harness).hexdigest()[:16]}.json"
    if not out_path.exists():
        done = subprocess.run(
            ["java", "-Xmx4G", "-cp", classpath, "MorphaOracle"],
            input=blob,
            check=True,
            capture_output=True,
            timeout=timeout,
        )
        out = done.stdout.decode("utf-8").split("\n")
        if out[-1] != "" or len(out) - 1 != len(lines):
            raise OracleUnavailable(f"the Morpha harness wrote {len(out) - 1} lemmas for {len(lines)} pairs")
        tmp = out_path.with_name(f"{out_path.name}.tmp{os.getpid()}")
        lemmas = [None if text == "\\N" else _unescape(text) for text in out[:-1]]
        tmp.write_text(json.dumps(lemmas, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, out_path)
    with open(out_path, encoding="utf-8") as fh:
        result: list[str | None] = json.load(fh)
    return result


def time_morpha(pairs: list[tuple[str, str]], *, timeout: float = 3600) -> float:
    """Seconds CoreNLP's annotator spends lemmatising ``pairs`` (inside the JVM, after start-up; not cached)."""
    classpath, _ = _harness()
    blob = "".join(f"{word.translate(_ESCAPES)}\t{tag.translate(_ESCAPES)}\n" for word, tag in pairs).encode("utf-8")
    command = ["java", "-Xmx4G", "-cp", classpath, "MorphaOracle"]
    done = subprocess.run(command, input=blob, check=True, capture_output=True, timeout=timeout)
    for line in done.stderr.decode("utf-8", "replace").splitlines():
        if line.startswith("annotate-ns "):
            return int(line.split()[1]) / 1e9
    raise OracleUnavailable("the Morpha harness did not report its time")
