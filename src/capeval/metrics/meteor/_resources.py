"""METEOR 1.5 language data: locate, verify, convert once, and load fast.

Where each table comes from:

* **Synonyms** (``english.synsets``, ``english.exceptions``): shipped in
  ``capeval/data/meteor/``, byte-identical to the copies inside ``meteor-1.5.jar``;
  extracted from WordNet 3.0 and covered by the WordNet 3.0 licence
  (``capeval/data/meteor/COPYING.WORDNET``).
* **Paraphrases** (``paraphrase-en.gz``), **function words** (``function/english.words``)
  and **non-breaking prefixes** (``nonbreaking/english.prefixes``): part of METEOR
  (LGPL), read at run time from an installed ``pycocoevalcap==1.2`` wheel and never
  redistributed. Both source files are checked against pinned SHA-256 digests.

The paraphrase table (5.27 M entries, 62 MB gzip) is converted once into flat numpy
arrays in the user cache directory (``$CAPEVAL_CACHE_DIR``, else
``$XDG_CACHE_HOME/capeval``, else ``~/.cache/capeval``). The cache is written to a
temporary directory and renamed into place, so concurrent first runs are safe; its
manifest records the SHA-256 of every file, with its size and modification time: a file is
hashed again on load whenever its size or modification time differs from the recorded ones
(a cache read-only to this user is simply hashed on every load).
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import importlib.util
import itertools
import json
import logging
import os
import shutil
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from capeval._cache import cache_root
from capeval.metrics.meteor._words import WordFeatures, word_features

__all__ = [
    "MeteorData",
    "MeteorDataError",
    "ParaphraseTable",
    "cache_root",
    "load_meteor_data",
    "locate_pycocoevalcap",
]

logger = logging.getLogger("capeval")

#: SHA-256 of ``pycocoevalcap/meteor/meteor-1.5.jar`` in the pycocoevalcap 1.2 wheel.
JAR_SHA256 = "1e57b4c72c0830ebe68558f1c799a624e96cbc1b6045c9f6330e26dcff6eafc2"
#: SHA-256 of ``pycocoevalcap/meteor/data/paraphrase-en.gz`` in the pycocoevalcap 1.2 wheel.
PARAPHRASE_SHA256 = "c147ac7d2c91f2fbb3ad31e4b352235061eb83145e0434daf217ee9ca5975f48"
#: SHA-256 of the shipped (gzip) synonym tables; their contents equal the jar's ``synonym/`` files.
SYNSETS_SHA256 = "e3eb16057491a7e9d3ea37fc4af8db6820ad0d34f426cfe0217bada3c00eca54"
EXCEPTIONS_SHA256 = "4c3bd065e3029ac8cfe78e262d7fd4bd8df9ed6d7584841f86de0c19fcf00c65"

#: Bumped whenever the on-disk cache layout changes.
CACHE_FORMAT = 3
#: Bits per token id in a packed phrase key (the paraphrase vocabulary has 43,139 words).
TOKEN_BITS = 16
#: Tokens packed into one uint64 key word; phrases have at most 7 tokens, so two words suffice.
TOKENS_PER_WORD = 4
#: Longest paraphrase phrase, in tokens (measured on paraphrase-en.gz).
MAX_PHRASE_LEN = 2 * TOKENS_PER_WORD - 1

_INSTALL_HINT = (
    "METEOR needs the METEOR 1.5 paraphrase table, function-word and prefix lists from the "
    "pycocoevalcap 1.2 wheel (read at run time, never downloaded): pip install 'pycocoevalcap==1.2'"
)


class MeteorDataError(RuntimeError):
    """A METEOR data file is missing, altered, or unreadable."""


def locate_pycocoevalcap() -> Path:
    """Directory of the installed ``pycocoevalcap`` package.

    ``$CAPEVAL_PYCOCOEVALCAP_DIR`` overrides the lookup (a directory that contains
    ``meteor/meteor-1.5.jar``).

    Raises:
        MeteorDataError: if pycocoevalcap is not installed.
    """
    override = os.environ.get("CAPEVAL_PYCOCOEVALCAP_DIR")
    if override:
        path = Path(override)
        if not (path / "meteor" / "meteor-1.5.jar").is_file():
            raise MeteorDataError(f"CAPEVAL_PYCOCOEVALCAP_DIR={override!r} has no meteor/meteor-1.5.jar")
        return path
    try:
        spec = importlib.util.find_spec("pycocoevalcap")
    except (ImportError, ValueError):
        spec = None
    # pycocoevalcap is a namespace package: no __init__.py, origin is None.
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for loc in locations:
        if (Path(loc) / "meteor" / "meteor-1.5.jar").is_file():
            return Path(loc)
    raise MeteorDataError(_INSTALL_HINT)


def _stat_key(path: Path) -> list[int]:
    """Size and modification time (ns) of ``path``: when both are unchanged, so is the file."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def _java_lines(data: bytes) -> list[str]:
    """Lines as Java ``BufferedReader.readLine`` yields them (``\\n``, ``\\r``, ``\\r\\n``)."""
    text = data.decode("utf-8")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


@dataclass(frozen=True)
class ParaphraseTable:
    """The paraphrase table as flat arrays.

    Attributes:
        vocab_text: The tokens, one per line: the token on line ``i`` (from 0) has the id
            ``i + 1`` (ids start at 1; 0 means "no token"). ``vocab`` maps them as a dict.
        phrase_hi: Packed first four token ids of every distinct phrase, sorted with ``phrase_lo``.
        phrase_lo: Packed tokens five to seven.
        phrase_len: Tokens per phrase.
        group_offsets: ``group_dst[group_offsets[p]:group_offsets[p + 1]]`` are the paraphrases
            of phrase ``p`` (as reference-side phrase), in file order.
        group_dst: Phrase ids of the paraphrases.
        group_dlen: Token length of each ``group_dst`` phrase (stored alongside for locality).
    """

    vocab_text: str
    phrase_hi: npt.NDArray[np.uint64]
    phrase_lo: npt.NDArray[np.uint64]
    phrase_len: npt.NDArray[np.int8]
    group_offsets: npt.NDArray[np.int64]
    group_dst: npt.NDArray[np.int32]
    group_dlen: npt.NDArray[np.int8]
    #: ``first_offsets[t]:first_offsets[t + 1]`` are the phrases whose first token is ``t``.
    first_offsets: npt.NDArray[np.int64]

    @functools.cached_property
    def vocab(self) -> dict[str, int]:
        """Token string -> token id."""
        return {word: i + 1 for i, word in enumerate(self.vocab_text.split("\n"))}


@dataclass(frozen=True)
class MeteorData:
    """Every table METEOR 1.5 ``-l en -norm`` needs.

    The synonym dictionaries are only needed for words outside the paraphrase vocabulary,
    so they are parsed on first use.
    """

    function_words: frozenset[str]
    #: Non-breaking prefix -> True when it is ``#NUMERIC_ONLY#``.
    prefixes: dict[str, bool]
    synset_words_text: str
    synset_offsets: npt.NDArray[np.int64]
    synset_ids: npt.NDArray[np.int32]
    exceptions_text: str
    paraphrases: ParaphraseTable
    #: Matcher features of the paraphrase vocabulary, indexed by token id (see ``_words.word_features``).
    vocab_features: WordFeatures
    #: Function-word flag of the paraphrase vocabulary, indexed by token id.
    vocab_function: npt.NDArray[np.bool_]
    source: str

    @functools.cached_property
    def synset_index(self) -> dict[str, int]:
        """Word -> index into ``synset_offsets``."""
        return _synset_index(self.synset_words_text)

    @functools.cached_property
    def exceptions(self) -> dict[str, tuple[str, ...]]:
        """Inflected form -> base forms (WordNet exception list)."""
        return _parse_exceptions(self.exceptions_text)


def warm_paraphrase_text() -> npt.NDArray[np.uint8]:
    """A one-entry paraphrase text of the array type :func:`_gunzip` returns (writable: a
    read-only array would be another specialization for numba to compile)."""
    return np.array(bytearray(b"0\na\nb\n"), dtype=np.uint8)


def _gunzip(gz_path: Path) -> npt.NDArray[np.uint8]:
    """The content of a one-member gzip file, inflated straight into one array (no second copy).

    The array's size comes from the gzip trailer (the content size mod 2**32); zlib checks the
    CRC-32 and length, and a content of any other size is refused. Input is fed in 256 kB
    pieces, which inflates the 62 MB paraphrase file about a third faster than ``gzip`` reads it.
    """
    with open(gz_path, "rb") as handle:
        handle.seek(-4, os.SEEK_END)
        size = int.from_bytes(handle.read(4), "little")
        handle.seek(0)
        buf = np.empty(size, dtype=np.uint8)
        filled = 0
        inflater = zlib.decompressobj(wbits=31)
        while piece := handle.read(1 << 18):
            try:
                out = inflater.decompress(piece)
            except zlib.error as exc:
                raise MeteorDataError(f"{gz_path}: not a valid gzip file ({exc})") from exc
            if inflater.unused_data:
                raise MeteorDataError(f"{gz_path}: data after the end of the compressed content")
            if filled + len(out) > size:
                raise MeteorDataError(f"{gz_path}: the content size differs from the gzip trailer")
            buf[filled : filled + len(out)] = np.frombuffer(out, dtype=np.uint8)
            filled += len(out)
    if not inflater.eof or filled != size:
        raise MeteorDataError(f"{gz_path}: the content size differs from the gzip trailer (or the file is cut short)")
    return buf


def _build_paraphrase_arrays(gz_path: Path) -> dict[str, np.ndarray | str]:
    """Convert ``paraphrase-en.gz`` (line triples: probability, phrase, paraphrase)."""
    from capeval.metrics.meteor import _convert

    # compile (or load) the parser before the text is in memory: compilation needs memory too
    _convert.parse_paraphrases(warm_paraphrase_text(), TOKEN_BITS, TOKENS_PER_WORD)
    buf = _gunzip(gz_path)
    code, phrase, u_hi, u_lo, u_len, tok_start, tok_len, n_tok = _convert.parse_paraphrases(
        buf, TOKEN_BITS, TOKENS_PER_WORD
    )
    if code == _convert.BAD_LINE_COUNT:
        raise MeteorDataError(f"{gz_path}: the number of lines is not a multiple of 3")
    if code == _convert.TOO_LONG:
        raise MeteorDataError(f"{gz_path}: a phrase is longer than {MAX_PHRASE_LEN} tokens")
    if code == _convert.TOO_MANY_WORDS:
        raise MeteorDataError(f"{gz_path}: the vocabulary exceeds {TOKEN_BITS}-bit ids")
    vocab_words = [bytes(buf[tok_start[t] : tok_start[t] + tok_len[t]]).decode("utf-8") for t in range(1, n_tok + 1)]
    del buf
    # Distinct phrases renumbered by sorted key, so that lookups are binary searches.
    order = np.lexsort((u_lo, u_hi))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    hi = u_hi[order]
    lo = u_lo[order]
    sorted_len = u_len[order]
    n_ent = phrase.size // 2
    src = rank[phrase[:n_ent]]
    dst = rank[phrase[n_ent:]]
    del phrase, rank, order
    # Group entries by reference-side phrase, keeping file order inside each group.
    by_src = np.argsort(src, kind="stable")
    counts = np.bincount(src, minlength=hi.size)
    offsets = np.zeros(hi.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    group_dst = dst[by_src].astype(np.int32)
    return {
        "phrase_hi": hi,
        "phrase_lo": lo,
        "phrase_len": sorted_len,
        "group_offsets": offsets,
        "group_dst": group_dst,
        "group_dlen": sorted_len[group_dst],
        "vocab": "\n".join(vocab_words),
    }


def _build_synonym_arrays(synsets_gz: Path) -> dict[str, np.ndarray | str]:
    with gzip.open(synsets_gz, "rb") as handle:
        lines = _java_lines(handle.read())
    words = lines[0::2]
    id_lists = [[int(tok) for tok in line.split()] for line in lines[1::2]]
    offsets = np.zeros(len(words) + 1, dtype=np.int64)
    np.cumsum([len(ids) for ids in id_lists], out=offsets[1:])
    flat = np.fromiter((i for ids in id_lists for i in ids), dtype=np.int32, count=int(offsets[-1]))
    return {"synset_offsets": offsets, "synset_ids": flat, "synset_words": "\n".join(words)}


def _data_dir() -> Path:
    return Path(str(resources.files("capeval").joinpath("data").joinpath("meteor")))


def _verify(path: Path, expected: str) -> None:
    actual = _sha256_file(path)
    if actual != expected:
        raise MeteorDataError(f"{path}: SHA-256 {actual} differs from the expected {expected}")


def _build_cache(target: Path, pkg_dir: Path) -> None:
    jar = pkg_dir / "meteor" / "meteor-1.5.jar"
    para = pkg_dir / "meteor" / "data" / "paraphrase-en.gz"
    _verify(jar, JAR_SHA256)
    _verify(para, PARAPHRASE_SHA256)
    data_dir = _data_dir()
    _verify(data_dir / "english.synsets.gz", SYNSETS_SHA256)
    _verify(data_dir / "english.exceptions.gz", EXCEPTIONS_SHA256)
    logger.info("converting the METEOR paraphrase table once into %s (about 10 s, first use only)", target)
    arrays = _build_paraphrase_arrays(para)
    arrays.update(_build_synonym_arrays(data_dir / "english.synsets.gz"))
    with zipfile.ZipFile(jar) as archive:
        arrays["function_words"] = "\n".join(_java_lines(archive.read("function/english.words")))
        arrays["prefixes"] = "\n".join(_java_lines(archive.read("nonbreaking/english.prefixes")))
    with gzip.open(data_dir / "english.exceptions.gz", "rb") as handle:
        arrays["exceptions"] = "\n".join(_java_lines(handle.read()))
    # Matcher features of every paraphrase-vocabulary word (index = token id; 0 is unused),
    # so that scoring only has to stem and look up words outside this vocabulary.
    syn_index = _synset_index(str(arrays["synset_words"]))
    features = word_features(
        ["", *str(arrays["vocab"]).split("\n")],
        syn_index,
        _parse_exceptions(str(arrays["exceptions"])),
        arrays["synset_offsets"],  # type: ignore[arg-type]
        arrays["synset_ids"],  # type: ignore[arg-type]
    )
    for name, value in zip(
        ("vocab_hash", "vocab_stem", "vocab_sig", "vocab_syn_off", "vocab_syn"), features, strict=False
    ):
        arrays[name] = np.asarray(value)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=target.name + ".tmp-", dir=target.parent))
    try:
        digests: dict[str, str] = {}
        for name, value in arrays.items():
            if isinstance(value, str):
                fname = name + ".txt"
                (tmp / fname).write_bytes(value.encode("utf-8"))
            else:
                fname = name + ".npy"
                np.save(tmp / fname, np.ascontiguousarray(value), allow_pickle=False)
            digests[fname] = _sha256_file(tmp / fname)
        manifest = {
            "format": CACHE_FORMAT,
            "paraphrase_sha256": PARAPHRASE_SHA256,
            "files": digests,
            "stat": {fname: _stat_key(tmp / fname) for fname in digests},
        }
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
        try:
            os.rename(tmp, target)
        except OSError:
            # Another process finished first; its (verified) copy wins.
            if not (target / "manifest.json").is_file():
                raise
        _remove_stale_caches(target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _remove_stale_caches(current: Path) -> None:
    """Delete caches of other formats or other paraphrase files (same naming scheme only)."""
    for other in current.parent.glob("meteor-v*-*"):
        if other != current and other.is_dir() and ".tmp-" not in other.name:
            shutil.rmtree(other, ignore_errors=True)


def _read_cache(target: Path) -> dict[str, np.ndarray | str]:
    manifest = json.loads((target / "manifest.json").read_text())
    if manifest.get("format") != CACHE_FORMAT:
        raise MeteorDataError(f"{target}: cache format {manifest.get('format')} != {CACHE_FORMAT}")
    out: dict[str, np.ndarray | str] = {}
    stats = manifest.get("stat") or {}
    rehashed = False
    for fname, digest in manifest["files"].items():
        path = target / fname
        # Hashing the 94 MB would add about 0.1 s to every start: a file whose size and
        # modification time are the ones recorded after its last full check is not hashed again.
        if stats.get(fname) != _stat_key(path):
            if _sha256_file(path) != digest:
                raise MeteorDataError(f"{path}: cache file is corrupt (SHA-256 mismatch)")
            rehashed = True
        stem, ext = fname.rsplit(".", 1)
        out[stem] = path.read_bytes().decode("utf-8") if ext == "txt" else np.load(path, mmap_mode="r")
    if rehashed:
        _record_stats(target, manifest)
    return out


def _record_stats(target: Path, manifest: dict[str, Any]) -> None:
    """Record the size and modification time of every (just verified) file in the manifest."""
    manifest = dict(manifest, stat={fname: _stat_key(target / fname) for fname in manifest["files"]})
    tmp = target / f"manifest.json.tmp-{os.getpid()}"
    try:
        tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True))
        os.replace(tmp, target / "manifest.json")
    except OSError:  # a read-only cache: verified by hashing on every load
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def _synset_index(words_text: str) -> dict[str, int]:
    # Java HashMap.put: a repeated word keeps its last synset list (as dict() of pairs does).
    return dict(zip(words_text.split("\n"), itertools.count()))


def _parse_prefixes(text: str) -> dict[str, bool]:
    prefixes: dict[str, bool] = {}
    for line in text.split("\n"):
        toks = line.split()
        if not toks or toks[0].startswith("#"):
            continue
        prefixes[toks[0]] = len(toks) > 1 and toks[1] == "#NUMERIC_ONLY#"
    return prefixes


def _parse_exceptions(text: str) -> dict[str, tuple[str, ...]]:
    lines = text.split("\n")
    table: dict[str, list[str]] = {}
    for base, forms in zip(lines[0::2], lines[1::2], strict=False):
        for form in forms.split():
            table.setdefault(form, []).append(base)
    return {form: tuple(bases) for form, bases in table.items()}


_LOADED: MeteorData | None = None


def cache_dir() -> Path:
    """The directory of the converted tables (it holds ``manifest.json`` once they are built)."""
    return cache_root() / f"meteor-v{CACHE_FORMAT}-{PARAPHRASE_SHA256[:16]}"


def _first_offsets(phrase_hi: npt.NDArray[np.uint64], n_words: int) -> npt.NDArray[np.int64]:
    """Where the phrases whose first token is ``t`` start in the sorted keys, ``t = 0 .. n_words + 1``.

    The first token is the top ``TOKEN_BITS`` of ``hi``, so ``(hi >> shift) >= t`` exactly when
    ``hi >= t << shift``: the boundaries are searched for in the keys as they are, without
    shifting a copy of all of them (which also reads the whole memory-mapped file).
    """
    shift = np.uint64(TOKEN_BITS * (TOKENS_PER_WORD - 1))
    tokens = np.arange(n_words + 2, dtype=np.uint64)
    if n_words + 1 < 1 << (64 - int(shift)):  # t << shift fits in 64 bits (the parser's vocabulary limit)
        found = np.searchsorted(phrase_hi, tokens << shift)
    else:
        found = np.searchsorted(np.asarray(phrase_hi) >> shift, tokens)
    return np.asarray(found, dtype=np.int64)


def load_meteor_data() -> MeteorData:
    """Load (building the cache on first use) every METEOR table; memoized per process.

    Raises:
        MeteorDataError: when pycocoevalcap 1.2 is missing or a file fails verification.
    """
    global _LOADED
    if _LOADED is not None:
        return _LOADED
    pkg_dir = locate_pycocoevalcap()
    target = cache_dir()
    para = pkg_dir / "meteor" / "data" / "paraphrase-en.gz"
    if not para.is_file():
        raise MeteorDataError(f"{para} is missing; {_INSTALL_HINT}")
    if not (target / "manifest.json").is_file():
        _build_cache(target, pkg_dir)
    try:
        raw = _read_cache(target)
    except (MeteorDataError, OSError, ValueError, KeyError) as exc:
        logger.warning("rebuilding the METEOR cache %s (%s)", target, exc)
        shutil.rmtree(target, ignore_errors=True)
        _build_cache(target, pkg_dir)
        raw = _read_cache(target)
    vocab_text = str(raw["vocab"])
    vocab_words = vocab_text.split("\n")
    table = ParaphraseTable(
        vocab_text=vocab_text,
        phrase_hi=raw["phrase_hi"],  # type: ignore[arg-type]
        phrase_lo=raw["phrase_lo"],  # type: ignore[arg-type]
        phrase_len=raw["phrase_len"],  # type: ignore[arg-type]
        group_offsets=raw["group_offsets"],  # type: ignore[arg-type]
        group_dst=raw["group_dst"],  # type: ignore[arg-type]
        group_dlen=raw["group_dlen"],  # type: ignore[arg-type]
        first_offsets=_first_offsets(raw["phrase_hi"], len(vocab_words)),  # type: ignore[arg-type]
    )
    function_words = frozenset(str(raw["function_words"]).split("\n"))
    _LOADED = MeteorData(
        function_words=function_words,
        prefixes=_parse_prefixes(str(raw["prefixes"])),
        synset_words_text=str(raw["synset_words"]),
        synset_offsets=raw["synset_offsets"],  # type: ignore[arg-type]
        synset_ids=raw["synset_ids"],  # type: ignore[arg-type]
        exceptions_text=str(raw["exceptions"]),
        paraphrases=table,
        vocab_features=cast(
            WordFeatures, tuple(raw[k] for k in ("vocab_hash", "vocab_stem", "vocab_sig", "vocab_syn_off", "vocab_syn"))
        ),
        vocab_function=np.array(
            # (the converted vocabulary is lower-case already: then no word needs lower-casing)
            [False]
            + [
                w in function_words
                for w in (vocab_words if vocab_text == vocab_text.lower() else map(str.lower, vocab_words))
            ],
            dtype=np.bool_,
        ),
        source=str(pkg_dir),
    )
    return _LOADED
