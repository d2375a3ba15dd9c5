"""CIDEr-D document-frequency pickles of self-critical training code, read safely.

Self-critical (SCST) codebases cache the document frequencies of their training references in a
pickle: ``{"document_frequency": {ngram: count}, "ref_len": number_of_images}``, where ``ngram``
is a tuple of 1..4 words (``("a", "dog")``; word indices as strings in the ``-idxs`` variant),
the mapping a ``dict`` or ``collections.defaultdict(float)`` and ``ref_len`` the number of
documents (images). ``CiderD(df=name)`` reads ``data/<name>.p``.

:func:`load_df_pickle` reads such a file with a restricted unpickler: only ``dict``,
``collections.defaultdict`` (with ``float`` or ``int`` as default factory), tuples, strings,
integers and floats can be built; any other import (the mechanism of ``__reduce__`` payloads),
a wrong structure or a truncated file is refused with a message naming the problem. Nothing in
the file is executed.

:func:`frequencies_from_mapping` turns the mapping into capeval's
:class:`~capeval.metrics.cider.DocumentFrequencies` (save it as ``.npz`` once with
``capeval cider-df convert``), and :func:`build_frequencies` counts them from a COCO captions file
or a Karpathy split JSON as the self-critical preprocessing (``prepro_ngrams``) does.
"""

from __future__ import annotations

import io
import math
import os
import pickle
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from capeval.metrics.cider import CIDER_MAX_N, DocumentFrequencies

__all__ = [
    "DfPickleError",
    "build_frequencies",
    "frequencies_from_mapping",
    "load_df_pickle",
    "read_df",
    "resolve_df_path",
    "save_df_pickle",
]

#: The only globals a document-frequency pickle may import (module, name).
_ALLOWED_GLOBALS = {
    ("collections", "defaultdict"): defaultdict,
    ("builtins", "float"): float,
    ("builtins", "int"): int,
    ("__builtin__", "float"): float,  # Python 2 pickles
    ("__builtin__", "int"): int,
    ("__builtin__", "long"): int,
}
#: Largest accepted pickle (bytes); the COCO training frequencies take about 100 MB.
MAX_PICKLE_BYTES = 4 << 30


class DfPickleError(ValueError):
    """A document-frequency pickle that is malformed, truncated or not allowed."""


class _RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that builds only the types a document-frequency pickle holds."""

    def find_class(self, module: str, name: str) -> Any:
        found = _ALLOWED_GLOBALS.get((module, name))
        if found is None:
            raise DfPickleError(
                f"refused: the pickle asks to import {module}.{name}; a document-frequency pickle may only hold "
                "a dict or collections.defaultdict of n-gram tuples to counts and a float ref_len"
            )
        return found

    def persistent_load(self, pid: Any) -> Any:
        raise DfPickleError("refused: the pickle uses persistent ids, which a document-frequency pickle never holds")


def load_df_pickle(path: str | os.PathLike[str], *, n: int = CIDER_MAX_N) -> tuple[dict[tuple[str, ...], float], float]:
    """Read a document-frequency pickle safely and check its structure.

    Returns:
        ``(document_frequency, ref_len)``: n-gram tuples of strings to counts, and the number of
        documents. Entries whose n-gram holds integers (which a scorer comparing words never
        matches) are dropped.

    Raises:
        DfPickleError: for a file that is not a well-formed document-frequency pickle, naming the
            problem (a refused import, a wrong type, a missing key, a truncated file).
        OSError: if the file cannot be read.
    """
    path = Path(path)
    size = path.stat().st_size
    if size > MAX_PICKLE_BYTES:
        raise DfPickleError(
            f"{path}: {size:,} bytes is larger than any document-frequency pickle ({MAX_PICKLE_BYTES:,})"
        )
    data = path.read_bytes()
    try:
        obj = _RestrictedUnpickler(io.BytesIO(data), encoding="latin1").load()
    except DfPickleError as exc:
        raise DfPickleError(f"{path}: {exc}") from None
    except (EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError, IndexError, KeyError) as exc:
        raise DfPickleError(
            f"{path}: not a readable pickle (truncated or corrupt: {type(exc).__name__}: {exc})"
        ) from None
    except RecursionError:
        raise DfPickleError(f"{path}: not a document-frequency pickle (nested too deeply)") from None
    try:
        return check_df_object(obj, n=n)
    except DfPickleError as exc:
        raise DfPickleError(f"{path}: {exc}") from None


def check_df_object(obj: Any, *, n: int = CIDER_MAX_N) -> tuple[dict[tuple[str, ...], float], float]:
    """Validate an unpickled ``{"document_frequency": ..., "ref_len": ...}`` object (see :func:`load_df_pickle`)."""
    if not isinstance(obj, dict):
        raise DfPickleError(f"expected a dict with 'document_frequency' and 'ref_len', got {type(obj).__name__}")
    keys = set(obj)
    if keys != {"document_frequency", "ref_len"}:
        missing = sorted(map(str, {"document_frequency", "ref_len"} - keys))
        extra = sorted(map(repr, keys - {"document_frequency", "ref_len"}))
        parts = ([f"missing {', '.join(missing)}"] if missing else []) + (
            [f"unexpected {', '.join(extra)}"] if extra else []
        )
        raise DfPickleError("expected exactly the keys 'document_frequency' and 'ref_len': " + "; ".join(parts))
    ref_len = obj["ref_len"]
    if (
        isinstance(ref_len, bool)
        or not isinstance(ref_len, (int, float))
        or not (math.isfinite(ref_len) and ref_len > 0)
    ):
        raise DfPickleError(f"'ref_len' must be a positive number (the number of images), got {ref_len!r:.80}")
    table = obj["document_frequency"]
    if not isinstance(table, dict):
        raise DfPickleError(
            f"'document_frequency' must be a dict of n-gram tuples to counts, got {type(table).__name__}"
        )
    if isinstance(table, defaultdict) and table.default_factory not in (float, int):
        raise DfPickleError("'document_frequency' is a defaultdict with a default factory other than float or int")
    out: dict[tuple[str, ...], float] = {}
    dropped = 0
    for ngram, count in table.items():
        if type(ngram) is not tuple or not 1 <= len(ngram) <= n:
            raise DfPickleError(f"n-gram {ngram!r:.80} is not a tuple of 1 to {n} words")
        if isinstance(count, bool) or not isinstance(count, (int, float)) or not (math.isfinite(count) and count >= 0):
            raise DfPickleError(f"count of n-gram {ngram!r:.80} must be a non-negative number, got {count!r:.80}")
        if all(type(w) is str for w in ngram):
            out[ngram] = float(count)
        elif all(type(w) in (str, int) for w in ngram):
            dropped += 1
        else:
            raise DfPickleError(f"n-gram {ngram!r:.80} holds something other than strings and integers")
    if dropped:
        import logging

        logging.getLogger("capeval").warning(
            "%d n-grams of integers dropped from the document frequencies: a scorer comparing the words of "
            "caption strings never matches them",
            dropped,
        )
    return out, float(ref_len)


def frequencies_from_mapping(
    table: Mapping[tuple[str, ...], float], n_documents: float, *, name: str = "external", n: int = CIDER_MAX_N
) -> DocumentFrequencies:
    """Build :class:`DocumentFrequencies` from ``{ngram tuple: document count}``.

    Prefixes of listed n-grams that are missing themselves get a count of 0 (as unseen n-grams
    have), so the index stays complete. Vectorized: about 1.5 s for the 1.4 million n-grams of
    COCO val2014.
    """
    keys = list(table)
    lengths = np.fromiter(map(len, keys), np.int64, count=len(keys))
    bad = np.flatnonzero((lengths < 1) | (lengths > n))
    if bad.size:
        raise ValueError(f"n-gram {keys[int(bad[0])]!r:.80} is not of order 1..{n}")
    all_counts = np.fromiter(table.values(), np.float64, count=len(keys))
    vocab = tuple(sorted(set(chain.from_iterable(keys))))
    word_id = {w: i for i, w in enumerate(vocab)}
    n_words = len(vocab)
    flat = np.fromiter(map(word_id.__getitem__, chain.from_iterable(keys)), np.int64, count=int(lengths.sum()))
    starts = np.cumsum(lengths) - lengths
    rows: list[np.ndarray] = []
    values: list[np.ndarray] = []
    for k in range(1, n + 1):
        which = np.flatnonzero(lengths == k)
        rows.append(flat[starts[which][:, None] + np.arange(k)])
        values.append(all_counts[which])
    for k in range(n - 1, 0, -1):  # close under prefixes, longest first: missing prefixes count 0
        merged = np.concatenate([rows[k - 1], rows[k][:, :-1]])
        merged_values = np.concatenate([values[k - 1], np.zeros(rows[k].shape[0])])
        rows[k - 1], first = _unique_rows(merged, n_words)  # existing rows come first
        values[k - 1] = merged_values[first]
    unigram_df = np.zeros(n_words)
    unigram_df[rows[0][:, 0]] = values[0]
    prefix_parts = [np.full(n_words, -1, dtype=np.int64)]
    last_parts = [np.arange(n_words, dtype=np.int64)]
    df_parts = [unigram_df]
    offsets = [0, n_words]
    sorted_keys: dict[int, np.ndarray] = {}

    def ids_of(block: np.ndarray) -> np.ndarray:
        """Global ids of n-grams given as word-id rows (all present in the orders built so far)."""
        order = block.shape[1]
        if order == 1:
            return block[:, 0]
        local = ids_of(block[:, :-1]) - offsets[order - 2]
        return offsets[order - 1] + np.searchsorted(sorted_keys[order], local * n_words + block[:, -1])

    for k in range(2, n + 1):
        prefix = ids_of(rows[k - 1][:, :-1])
        last = rows[k - 1][:, -1]
        keys = (prefix - offsets[k - 2]) * n_words + last
        order = np.argsort(keys, kind="stable")
        sorted_keys[k] = keys[order]
        prefix_parts.append(prefix[order])
        last_parts.append(last[order])
        df_parts.append(values[k - 1][order])
        offsets.append(offsets[-1] + len(order))
    documents: float = int(n_documents) if float(n_documents).is_integer() else float(n_documents)
    return DocumentFrequencies(
        n_documents=documents,  # type: ignore[arg-type]
        name=name,
        n=n,
        vocab=vocab,
        prefix=np.concatenate(prefix_parts),
        last_word=np.concatenate(last_parts),
        offsets=np.asarray(offsets, dtype=np.int64),
        df=np.concatenate(df_parts),
    )


def _unique_rows(rows: np.ndarray, n_words: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct rows of word ids and the index of each one's first occurrence."""
    width = rows.shape[1]
    if n_words**width < 2**62:  # pack each row into one integer: a fast one-dimensional sort
        packed = np.zeros(rows.shape[0], dtype=np.int64)
        for j in range(width):
            packed = packed * n_words + rows[:, j]
        unique, first = np.unique(packed, return_index=True)
        out = np.empty((unique.shape[0], width), dtype=np.int64)
        for j in range(width - 1, -1, -1):
            unique, out[:, j] = np.divmod(unique, n_words)
        return out, first
    found, first = np.unique(rows, axis=0, return_index=True)
    return found, first


def resolve_df_path(df: str | os.PathLike[str]) -> Path:
    """Where ``CiderD(df=...)`` finds its document frequencies.

    In order: ``df`` itself if it is an existing file (``.p`` pickle or capeval ``.npz``), then
    ``data/<df>.p`` relative to the working directory (the self-critical convention:
    ``df="coco-train-idxs"`` reads ``data/coco-train-idxs.p``), then ``data/<df>.npz``. A
    ``data/<df>.npz`` (written by ``capeval cider-df convert``) at least as new as ``data/<df>.p``
    is used instead of the pickle: same frequencies, loaded in a fraction of the time.

    Raises:
        FileNotFoundError: naming every place looked at.
    """
    text = os.fspath(df)
    pickled, converted = Path("data") / f"{text}.p", Path("data") / f"{text}.npz"
    if not Path(text).is_file() and pickled.is_file() and converted.is_file():
        if converted.stat().st_mtime >= pickled.stat().st_mtime:
            return converted
    candidates = [Path(text), pickled, converted]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise FileNotFoundError(
        f"document frequencies {text!r} not found (looked for {tried} from {Path.cwd()}); build them with "
        "'capeval cider-df build' or pass df='corpus'"
    )


def read_df(df: str | os.PathLike[str], *, n: int = CIDER_MAX_N) -> DocumentFrequencies:
    """Document frequencies named as ``CiderD(df=...)`` names them (see :func:`resolve_df_path`)."""
    path = resolve_df_path(df)
    if path.suffix == ".npz":
        return DocumentFrequencies.load(path)
    table, ref_len = load_df_pickle(path, n=n)
    name = path.name[: -len(path.suffix)] if path.suffix else path.name
    return frequencies_from_mapping(table, ref_len, name=name, n=n)


def save_df_pickle(path: str | os.PathLike[str], table: Mapping[tuple[str, ...], float], ref_len: float) -> None:
    """Write ``{"document_frequency": defaultdict(float), "ref_len": ref_len}`` as self-critical code does."""
    frequencies: defaultdict[tuple[str, ...], float] = defaultdict(float)
    frequencies.update(table)
    with open(path, "wb") as fh:
        pickle.dump({"document_frequency": frequencies, "ref_len": ref_len}, fh, protocol=pickle.HIGHEST_PROTOCOL)


def _ngrams(words: Sequence[str], n: int) -> Iterable[tuple[str, ...]]:
    for k in range(1, n + 1):
        for i in range(len(words) - k + 1):
            yield tuple(words[i : i + k])


def count_document_frequencies(
    references: Iterable[Sequence[str]], *, n: int = CIDER_MAX_N
) -> tuple[dict[tuple[str, ...], float], int]:
    """``{ngram: number of documents containing it}`` and the number of documents.

    ``references`` yields, per document (image), its tokenized reference captions (space-joined).
    """
    counts: defaultdict[tuple[str, ...], float] = defaultdict(float)
    n_docs = 0
    for refs in references:
        n_docs += 1
        for ngram in {g for ref in refs for g in _ngrams(ref.split(), n)}:
            counts[ngram] += 1
    return dict(counts), n_docs


def build_frequencies(
    path: str | os.PathLike[str],
    *,
    split: str = "train",
    vocab: Mapping[str, str] | None = None,
    tokenizer: str = "ptb",
    eos: bool = False,
) -> tuple[dict[tuple[str, ...], float], int]:
    """Count document frequencies of a captions file's references.

    Args:
        path: A Karpathy split JSON (``{"images": [{"split", "sentences": [{"tokens"}]}]}``: the
            ``tokens`` are used as given; ``split="train"`` also takes ``restval``, as the
            self-critical preprocessing does; ``"all"`` takes every image) or a COCO captions file
            (``images`` + ``annotations``; captions tokenized with ``tokenizer``; every image).
        vocab: ``{word: index}`` (from the training code's ``ix_to_word``): words outside it become
            ``UNK`` and each word is replaced by its index, giving the ``-idxs`` variant.
        eos: Append the end-of-sentence token (``<eos>``, index ``0``) to every reference, as
            self-critical's ``prepro_ngrams`` does (its rewards score captions ending in ``0``).
    """
    from capeval.io import decode_json, parse_references

    name = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise ValueError(f"{name}: cannot read: {exc.strerror or exc}") from None
    data = decode_json(raw, name=name)
    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise ValueError(f"{path}: expected a Karpathy split JSON or a COCO captions file (an 'images' list)")
    documents: list[list[list[str]]] = []
    if "annotations" in data:
        from capeval.tokenizers.base import get_tokenizer

        # COCO captions: read by the library's one reader (images in file order, those without
        # captions left out, every caption checked), then tokenized.
        by_image = parse_references(raw, name=name)
        flat = get_tokenizer(tokenizer).tokenize([c for caps in by_image.values() for c in caps])
        pos = 0
        for caps in by_image.values():
            documents.append([line.split() for line in flat[pos : pos + len(caps)]])
            pos += len(caps)
    else:
        for img in data["images"]:
            img_split = img.get("split")
            if split == "all" or img_split == split or (split == "train" and img_split == "restval"):
                documents.append([list(sent["tokens"]) for sent in img["sentences"]])
        if not documents:
            raise ValueError(f"{path}: no images in split {split!r}")
    if eos or vocab is not None:
        end = "<eos>"
        word_index = dict(vocab) if vocab is not None else None
        if word_index is not None:
            word_index.setdefault(end, "0")
        for doc in documents:
            for j, tokens in enumerate(doc):
                tokens = [*tokens, end] if eos else tokens
                if word_index is not None:
                    tokens = [str(word_index.get(w, word_index.get("UNK", "UNK"))) for w in tokens]
                doc[j] = tokens
    return count_document_frequencies([" ".join(t) for t in doc] for doc in documents)
