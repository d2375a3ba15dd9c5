"""Per-word matcher features of METEOR 1.5: Java hash, stem hash, WordNet synonym sets.

Shared by the one-time cache build (features of the whole paraphrase vocabulary) and by
the metric (features of words outside that vocabulary).
"""

from __future__ import annotations

import functools
import importlib.metadata
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["WordFeatures", "java_string_hash", "morph", "stem_words", "word_features"]

#: WordNet morphy detachment rules, in METEOR SynonymDictionary's order (suffix, replacement):
#: nouns, then verbs, then adjectives.
MORPH_RULES: tuple[tuple[str, str], ...] = (
    ("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
    ("ies", "y"), ("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"),
    ("ing", ""), ("er", ""), ("est", ""), ("er", "e"), ("est", "e"),
)  # fmt: skip
#: Multiplier of the synonym-set Bloom signature (Knuth's multiplicative hash constant).
SIG_MULT = 2654435761

WordFeatures = tuple[
    npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.uint64], npt.NDArray[np.int64], npt.NDArray[np.int32]
]


@functools.cache
def _compiled_stemmer() -> Any:
    """PyStemmer 2.2.0's English stemmer (the Snowball 2.2.0 algorithm, compiled), if installed."""
    try:
        import Stemmer  # type: ignore[import-not-found,unused-ignore]

        if not importlib.metadata.version("PyStemmer").startswith("2.2.0"):
            return None
        return Stemmer.Stemmer("english")
    except (ImportError, importlib.metadata.PackageNotFoundError):  # pragma: no cover - same stems without it
        return None


def stem_words(words: list[str]) -> list[str]:
    """Snowball (2.2.0) English stems of ``words``, as METEOR's stem matcher uses them.

    The compiled PyStemmer 2.2.0 when installed (about 20x faster), else snowballstemmer 2.2.0:
    the same algorithm from the same Snowball release, so the same stems.
    """
    compiled = _compiled_stemmer()
    if compiled is not None:
        return list(compiled.stemWords(words))
    from snowballstemmer.english_stemmer import EnglishStemmer  # type: ignore[import-untyped]

    stemmer = EnglishStemmer()
    return [stemmer.stemWord(w) for w in words]


def java_string_hash(text: str) -> int:
    """Java ``String.hashCode()`` (signed 32-bit, over UTF-16 code units)."""
    h = 0
    if text.isascii():
        for ch in text:
            h = (31 * h + ord(ch)) & 0xFFFFFFFF
    else:
        data = text.encode("utf-16-le")
        for k in range(0, len(data), 2):
            h = (31 * h + (data[k] | (data[k + 1] << 8))) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def morph(word: str, synset_index: Mapping[str, int]) -> str:
    """WordNet base form as METEOR's SynonymDictionary finds it (``""`` when none)."""
    if word.endswith("ss") or len(word) <= 2:
        return word
    for suffix, ending in MORPH_RULES:
        if word.endswith(suffix):
            candidate = word[: len(word) - len(suffix)] + ending
            if candidate in synset_index:
                return candidate
    return ""


def _synonym_ids(
    word: str,
    synset_index: Mapping[str, int],
    exceptions: Mapping[str, tuple[str, ...]],
    offsets: npt.NDArray[np.int64],
    ids: npt.NDArray[np.int32],
) -> list[int]:
    """Sorted synset ids of ``word``: its own synsets plus those of its base form(s)."""
    keys: list[int] = []
    if word in synset_index:
        keys.append(synset_index[word])
    if word in exceptions:
        keys.extend(synset_index[b] for b in exceptions[word] if b in synset_index)
    else:
        base = morph(word, synset_index)
        if base in synset_index:
            keys.append(synset_index[base])
    if not keys:
        return []
    # a few ids per word: Python's set and sort cost less than NumPy's per-call overhead
    merged: set[int] = set()
    for k in keys:
        merged.update(ids[offsets[k] : offsets[k + 1]].tolist())
    return sorted(merged)


def _signature(synsets: list[int]) -> int:
    # 64-bit Bloom signature: disjoint signatures prove that two words share no synset.
    sig = 0
    for sid in synsets:
        sig |= 1 << ((sid * SIG_MULT >> 11) & 63)
    return sig


def word_features(
    words: Iterable[str],
    synset_index: Mapping[str, int],
    exceptions: Mapping[str, tuple[str, ...]],
    offsets: npt.NDArray[np.int64],
    ids: npt.NDArray[np.int32],
) -> WordFeatures:
    """Hash, stem hash, synonym signature and synonym sets (CSR) of ``words``."""
    words = list(words)
    hashes: list[int] = []
    stems: list[int] = []
    sigs: list[int] = []
    sizes: list[int] = []
    flat_ids: list[int] = []
    for word, stem in zip(words, stem_words(words), strict=True):
        hashes.append(java_string_hash(word))
        stems.append(java_string_hash(stem))
        syn = _synonym_ids(word, synset_index, exceptions, offsets, ids)
        sizes.append(len(syn))
        flat_ids.extend(syn)
        sigs.append(_signature(syn))
    syn_off = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=syn_off[1:])
    flat = np.asarray(flat_ids, dtype=np.int32)
    return (
        np.asarray(hashes, dtype=np.int64),
        np.asarray(stems, dtype=np.int64),
        np.asarray(sigs, dtype=np.uint64),
        syn_off,
        flat,
    )
