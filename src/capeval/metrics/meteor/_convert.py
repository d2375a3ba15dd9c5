"""One-pass parser of METEOR's ``paraphrase-en.gz`` into packed phrase keys (compiled with numba).

The file is line triples (probability, phrase, paraphrase). Phrases are split on single
spaces; every token gets an id in order of first appearance, over all reference-side
phrases first and then all paraphrases (the order the cache has always used), and every
phrase becomes two 64-bit keys of ``TOKEN_BITS``-bit ids. Working on the raw bytes keeps the
conversion to a few seconds and the memory to the file plus a few arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from capeval.metrics._numba import helper, jit

__all__ = ["parse_paraphrases"]

_NEWLINE = 10
_SPACE = 32
#: Result codes of :func:`parse_paraphrases`.
OK = 0
BAD_LINE_COUNT = 1
TOO_LONG = 2
TOO_MANY_WORDS = 3


@helper
def _same_bytes(buf: Any, a: int, b: int, length: int) -> bool:
    """Whether ``buf[a:a+length]`` and ``buf[b:b+length]`` hold the same bytes."""
    for k in range(length):
        if buf[a + k] != buf[b + k]:
            return False
    return True


@helper
def _token_id(buf: Any, start: int, end: int, slots: Any, tok_start: Any, tok_len: Any, n_tok: int) -> tuple[int, int]:
    """Id of the token ``buf[start:end]`` (1-based) and the new token count."""
    h = np.uint64(14695981039346656037)
    for k in range(start, end):
        h = (h ^ np.uint64(buf[k])) * np.uint64(1099511628211)
    mask = slots.shape[0] - 1
    slot = int(h >> np.uint64(40)) & mask
    length = end - start
    while slots[slot] != 0:
        t = slots[slot]
        if tok_len[t] == length and _same_bytes(buf, tok_start[t], start, length):
            return t, n_tok
        slot = (slot + 1) & mask
    n_tok += 1
    if n_tok >= tok_start.shape[0]:
        return -1, n_tok
    slots[slot] = n_tok
    tok_start[n_tok] = start
    tok_len[n_tok] = length
    return n_tok, n_tok


@helper
def _grow(a: Any, size: int) -> Any:
    if size <= a.shape[0]:
        return a
    b = np.empty(2 * a.shape[0] + size, dtype=a.dtype)
    # element by element: an array slice assignment compiles numba's shape-error formatting,
    # which takes seconds (the conversion's first run compiles this for three dtypes)
    for i in range(a.shape[0]):
        b[i] = a[i]
    return b


@jit
def parse_paraphrases(buf: Any, token_bits: int, per_word: int) -> Any:
    """Distinct phrases of every entry, as packed keys, and the vocabulary.

    Returns:
        ``(code, phrase, hi, lo, length, tok_start, tok_len, n_tok)``: ``phrase`` has
        ``2 * n_entries`` rows, the distinct-phrase number (in order of first appearance) of
        the reference-side phrase of every entry, then of its paraphrase; ``hi``/``lo``/
        ``length`` describe the distinct phrases; token ``t`` (1-based) is
        ``buf[tok_start[t]:tok_start[t] + tok_len[t]]``. ``code`` is ``OK`` or the reason the
        file was refused.
    """
    n = buf.shape[0]
    n_lines = 0
    for k in range(n):
        if buf[k] == _NEWLINE:
            n_lines += 1
    if n > 0 and buf[n - 1] != _NEWLINE:
        n_lines += 1
    none = np.zeros(0, dtype=np.int64)
    none32 = np.zeros(0, dtype=np.int32)
    empty = np.zeros(0, dtype=np.uint64)
    if n_lines % 3 != 0:
        return BAD_LINE_COUNT, none32, empty, empty, np.zeros(0, dtype=np.int8), none, none, 0
    n_ent = n_lines // 3
    max_tokens = 1 << token_bits
    max_len = 2 * per_word - 1
    slots = np.zeros(1 << 18, dtype=np.int64)
    tok_start = np.zeros(max_tokens, dtype=np.int64)
    tok_len = np.zeros(max_tokens, dtype=np.int64)
    n_tok = 0
    size = 1 << 16
    while size < 2 * n_ent:
        size *= 2
    table = np.full(size, -1, dtype=np.int32)
    mask = size - 1
    phrase = np.empty(2 * n_ent, dtype=np.int32)
    u_hi = np.empty(1 << 16, dtype=np.uint64)
    u_lo = np.empty(1 << 16, dtype=np.uint64)
    u_len = np.empty(1 << 16, dtype=np.int8)
    n_u = 0
    for side in range(2):  # reference-side phrases of all entries first, then the paraphrases
        line = 0
        a = 0
        # The previous phrase of this side: the file lists each reference-side phrase's
        # paraphrases one after the other (92% of those lines repeat the line before), and a
        # repeated line is the same phrase, with no new token (its first reading added them).
        prev_a = 0
        prev_len = -1
        prev_id = 0
        for b in range(n + 1):
            if b < n and buf[b] != _NEWLINE:
                continue
            if b == n and (n == 0 or buf[n - 1] == _NEWLINE):
                break
            if line % 3 == 1 + side and b - a == prev_len and _same_bytes(buf, prev_a, a, prev_len):
                phrase[side * n_ent + line // 3] = prev_id
                line += 1
                a = b + 1
                continue
            if line % 3 == 1 + side:
                hi = np.uint64(0)
                lo = np.uint64(0)
                count = 0
                tok_begin = a
                for k in range(a, b + 1):
                    if k == b or buf[k] == _SPACE:
                        t, n_tok = _token_id(buf, tok_begin, k, slots, tok_start, tok_len, n_tok)
                        if t < 0:
                            return TOO_MANY_WORDS, none32, empty, empty, np.zeros(0, dtype=np.int8), none, none, 0
                        if count >= max_len:
                            return TOO_LONG, none32, empty, empty, np.zeros(0, dtype=np.int8), none, none, 0
                        if count < per_word:
                            hi |= np.uint64(t) << np.uint64(token_bits * (per_word - 1 - count))
                        else:
                            lo |= np.uint64(t) << np.uint64(token_bits * (2 * per_word - 1 - count))
                        count += 1
                        tok_begin = k + 1
                h = (hi * np.uint64(0x9E3779B97F4A7C15)) ^ (lo * np.uint64(0xC2B2AE3D27D4EB4F))
                slot = int(h >> np.uint64(32)) & mask
                while table[slot] >= 0 and (u_hi[table[slot]] != hi or u_lo[table[slot]] != lo):
                    slot = (slot + 1) & mask
                if table[slot] < 0:
                    if n_u == u_hi.shape[0]:
                        u_hi = _grow(u_hi, n_u + 1)
                        u_lo = _grow(u_lo, n_u + 1)
                        u_len = _grow(u_len, n_u + 1)
                    table[slot] = n_u
                    u_hi[n_u] = hi
                    u_lo[n_u] = lo
                    u_len[n_u] = count
                    n_u += 1
                phrase[side * n_ent + line // 3] = table[slot]
                prev_a = a
                prev_len = b - a
                prev_id = table[slot]
            line += 1
            a = b + 1
    return OK, phrase, u_hi[:n_u], u_lo[:n_u], u_len[:n_u], tok_start[: n_tok + 1], tok_len[: n_tok + 1], n_tok
