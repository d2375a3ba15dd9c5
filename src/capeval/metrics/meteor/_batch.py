"""Normalize and encode many METEOR segments at once.

Most COCO segments are plain ASCII letters, digits and spaces, which METEOR's ``-norm``
normalizer leaves unchanged (only lower-casing and the split remain). Those are found and
split for a whole batch with a few vectorized passes over the joined text; the others go
through :func:`~capeval.metrics.meteor._normalize.normalize_tokens` one by one. Both give
exactly ``normalize_tokens`` of every segment.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from capeval.metrics.meteor._normalize import normalize_tokens

__all__ = ["segment_tokens"]

#: Bytes of a segment that needs no normalization: ASCII letters, digits and the space.
_PLAIN = np.zeros(256, dtype=np.bool_)
for _c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \n":
    _PLAIN[_c] = True
_NEWLINE = 10
_SPACE = 32


def segment_tokens(
    texts: Sequence[str], prefixes: dict[str, bool], ids_of: Callable[[list[str]], list[int]]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Word ids of the normalized words of every segment.

    Args:
        texts: Trimmed segments without line breaks (as the jar receives them).
        prefixes: Non-breaking prefixes (see ``normalize_tokens``).
        ids_of: Maps a list of words to their ids (registering new words).

    Returns:
        ``(counts, ids)``: words per segment, and the ids of all words, segment after segment.
    """
    n = len(texts)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    joined = "\n".join(texts)
    raw = np.frombuffer(joined.encode("utf-8"), dtype=np.uint8)
    line_of = np.zeros(raw.size, dtype=np.int64)
    newline = raw == _NEWLINE
    if int(newline.sum()) != n - 1:
        raise ValueError("METEOR segments must not contain line breaks")
    np.cumsum(newline[:-1], out=line_of[1:])
    special = np.zeros(n, dtype=np.bool_)
    special[line_of[~_PLAIN[raw]]] = True
    # words of the plain segments: a word starts at a non-blank byte after a blank or line start
    blank = newline | (raw == _SPACE)
    starts = ~blank
    starts[1:] &= blank[:-1]
    counts = np.bincount(line_of[starts], minlength=n).astype(np.int64)
    special_idx = np.flatnonzero(special).tolist()
    if not special_idx:
        return counts, np.asarray(ids_of(joined.lower().split()), dtype=np.int64)
    counts[special] = 0
    plain_texts = list(texts)
    special_words: list[str] = []
    for i in special_idx:
        plain_texts[i] = ""
        words = normalize_tokens(texts[i], prefixes)
        counts[i] = len(words)
        special_words.extend(words)
    plain_ids = np.asarray(ids_of(" ".join(plain_texts).lower().split()), dtype=np.int64)
    out = np.empty(int(counts.sum()), dtype=np.int64)
    in_special = np.repeat(special, counts)
    out[~in_special] = plain_ids
    out[in_special] = np.asarray(ids_of(special_words), dtype=np.int64)
    return counts, out
