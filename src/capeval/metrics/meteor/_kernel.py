"""The METEOR 1.5 aligner on integer arrays: matchers, beam search, statistics.

Everything here works on word ids into per-word tables prepared by the metric, so that
it compiles with numba (``@njit(cache=True)``) when numba is installed and runs as plain
(slow) Python otherwise. The logic follows ``edu.cmu.meteor.aligner.Aligner`` of
METEOR 1.5 exactly, including its quirks: Java ``int += double`` truncation of the
weighted match totals, the distance tie-breaker added to the parent path, definite
one-to-one matches fixed before the search, and a stable sort.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from capeval.metrics._numba import HAVE_NUMBA, helper, jit

__all__ = [
    "HAVE_NUMBA",
    "MAX_CANDIDATES",
    "MAX_SEARCH_WORK",
    "N_STATS",
    "meteor_item_stats",
    "segment_score",
    "segment_scores",
    "sentence_ngrams",
]

_jit = jit
_helper = helper

#: Longest paraphrase phrase in tokens (paraphrase-en.gz).
MAX_PHRASE = 7
#: Beam width (METEOR ``Constants.DEFAULT_BEAM_SIZE``).
BEAM_SIZE = 40
#: Module weights used while searching (``MeteorScorer.loadConfiguration``: exact 1, others 0.5).
SEARCH_W0 = 1.0
SEARCH_WX = 0.5
#: Scoring parameters for ``-l en`` task rank (``Constants.PARAM_RANK[0]``): alpha, beta, gamma, delta.
ALPHA = 0.85
BETA = 0.2
GAMMA = 0.6
DELTA = 0.75
#: Scoring module weights for ``-l en`` task rank (``Constants.WEIGHT_RANK[0]``).
W_EXACT = 1.0
W_STEM = 0.6
W_SYN = 0.8
W_PARA = 0.6
#: Rows of the reusable path pool (beam 40 x up to 15 candidates per position).
_WS_POOL = BEAM_SIZE * 16 + 1
#: Longest segment the reusable pool holds, in words (a multiple of 64).
_WS_WIDTH = 128
#: Per-path scalars and list buffers kept in the pool (m1, m2, chunks, idx, last, dist, free, lists, sort).
_N_SCAL = 11
#: Size (in 64-bit words) and hash multiplier of the per-hypothesis phrase bit filters.
_BITS_WORDS = 16
_BITS_MULT = 2654435761
#: Work limits of one alignment, far beyond any caption (the official jar would run for
#: minutes to hours on such input): candidate matches, and path-copy work of the beam search.
MAX_CANDIDATES = 2_000_000
MAX_SEARCH_WORK = 2.0e10
#: Ranges of the packed path-comparator key (matches, chunks, distance): 20 + 21 + 22 bits.
_KEY_MATCHES = 1 << 20
_KEY_CHUNKS = 1 << 21
_KEY_DIST = 1 << 22
#: Slots of the n-gram walk memo (:func:`sentence_ngrams`) and its hash multiplier.
_MEMO_BITS = 17
_MEMO_SIZE = 1 << _MEMO_BITS
_MEMO_MULT = 0x9E3779B97F4A7C15
#: Where the memo's slots for prefixes of 5 to 7 tokens start (after the 2-4 slots and their count).
_MEMO_LONG = 2 * _MEMO_SIZE + 1
#: Width of one statistics row (the 23 numbers of METEOR's SCORE reply).
N_STATS = 23


@_helper
def _lower_bound(hi: np.uint64, lo: np.uint64, phrase_hi: Any, phrase_lo: Any, a: int, b: int) -> int:
    """First index in ``[a, b)`` whose (hi, lo) key is not below ``(hi, lo)`` (``b`` if none)."""
    while a < b:
        mid = (a + b) >> 1
        h = phrase_hi[mid]
        if h < hi or (h == hi and phrase_lo[mid] < lo):
            a = mid + 1
        else:
            b = mid
    return a


@_helper
def _memo_slot(key: np.uint64) -> int:
    return np.int64((key * np.uint64(_MEMO_MULT)) >> np.uint64(64 - _MEMO_BITS))


@_helper
def sentence_ngrams(words: Any, word_para: Any, phrase_hi: Any, phrase_lo: Any, first_off: Any, memo: Any) -> Any:
    """Phrase id of every (position, length) n-gram of one sentence, -1 when absent.

    ``first_off[t]:first_off[t + 1]`` is the range of phrases whose first token is ``t``.
    ``memo`` remembers the trie walk's step for prefixes of 2 to 7 tokens (the same prefix always
    gives the same step), so that a prefix seen before costs one table probe instead of a binary
    search: ``2 ** _MEMO_BITS`` slots of a key and a value side by side for 2 to 4 tokens (key 0 =
    empty), the number of those used, then from ``_MEMO_LONG`` as many slots of two key words and
    a value for 5 to 7 tokens (second key word 0 = empty), and the number of those used.

    Returns:
        int32 array of shape ``(len(words), MAX_PHRASE)``.
    """
    out = np.empty((words.shape[0], MAX_PHRASE), dtype=np.int32)
    _sentence_ngrams_into(words, word_para, phrase_hi, phrase_lo, first_off, memo, out)
    return out


@_helper
def _sentence_ngrams_into(
    words: Any, word_para: Any, phrase_hi: Any, phrase_lo: Any, first_off: Any, memo: Any, out: Any
) -> None:
    """:func:`sentence_ngrams` written into the first ``len(words)`` rows of ``out``."""
    n = words.shape[0]
    for k in range(n):
        for length in range(MAX_PHRASE):
            out[k, length] = -1
    for k in range(n):
        hi = np.uint64(0)
        lo = np.uint64(0)
        first = 0
        stop = 0
        for length in range(1, MAX_PHRASE + 1):
            pos = k + length - 1
            if pos >= n:
                break
            tok = word_para[words[pos]]
            if tok == 0:
                break
            if length <= 4:
                hi = hi | (np.uint64(tok) << np.uint64(16 * (4 - length)))
            else:
                lo = lo | (np.uint64(tok) << np.uint64(16 * (8 - length)))
            # Keys pad missing tokens with 0, so a prefix sorts just before its extensions:
            # the lower bound of a phrase that is nobody's prefix ends the walk (a trie walk).
            if length == 1:
                # phrases are sorted by first token: its range comes from the index, and the
                # one-token key (zero padded) is the smallest key of that range
                first = first_off[tok]
                stop = first_off[tok + 1]
            else:
                # the prefix (nonzero tokens, zero padded) identifies its step, remembered as
                # (first << 2) | 2 when the walk ends here | 1 when the prefix is itself a phrase;
                # 2 to 4 tokens are keyed by hi (two words a slot), 5 to 7 by hi and lo (three)
                if length <= 4:
                    slot = _memo_slot(hi)
                    while memo[2 * slot] != 0 and memo[2 * slot] != hi:
                        slot = (slot + 1) & (_MEMO_SIZE - 1)
                    at = 2 * slot
                    found = memo[at] == hi
                    count_at = 2 * _MEMO_SIZE
                else:
                    slot = _memo_slot(lo ^ (hi * np.uint64(_MEMO_MULT)))
                    at = _MEMO_LONG + 3 * slot
                    while memo[at + 1] != 0 and (memo[at] != hi or memo[at + 1] != lo):
                        slot = (slot + 1) & (_MEMO_SIZE - 1)
                        at = _MEMO_LONG + 3 * slot
                    found = memo[at + 1] != 0
                    count_at = _MEMO_LONG + 3 * _MEMO_SIZE
                if found:
                    v = np.int64(memo[at + (1 if length <= 4 else 2)])
                else:
                    first = _lower_bound(hi, lo, phrase_hi, phrase_lo, first, stop)
                    v = first << 2
                    if first == stop:
                        v |= 2
                    else:
                        f_hi = phrase_hi[first]
                        f_lo = phrase_lo[first]
                        if f_hi == hi and f_lo == lo:
                            v |= 1
                        elif length <= 4:
                            if (f_hi >> np.uint64(16 * (4 - length))) != (hi >> np.uint64(16 * (4 - length))):
                                v |= 2
                        elif f_hi != hi or (f_lo >> np.uint64(16 * (8 - length))) != (
                            lo >> np.uint64(16 * (8 - length))
                        ):
                            v |= 2
                    if memo[count_at] < _MEMO_SIZE // 2:  # at most half full
                        memo[count_at] += np.uint64(1)
                        memo[at] = hi
                        if length <= 4:
                            memo[at + 1] = np.uint64(v)
                        else:
                            memo[at + 1] = lo
                            memo[at + 2] = np.uint64(v)
                first = v >> 2
                if v & 1:
                    out[k, length - 1] = first
                if v & 2:
                    break
                continue
            if first == stop:
                break
            f_hi = phrase_hi[first]
            f_lo = phrase_lo[first]
            if f_hi == hi and f_lo == lo:
                out[k, length - 1] = first
            elif (f_hi >> np.uint64(48)) != (hi >> np.uint64(48)):
                break


@_jit
def segment_score(st: Any) -> float:
    """METEOR score of one statistics row (``MeteorScorer.computeMetrics``, same operation order)."""
    t_len = st[0]
    r_len = st[1]
    t_func = st[2]
    r_func = st[3]
    weights = (W_EXACT, W_STEM, W_SYN, W_PARA)
    t_wl = (DELTA * (t_len - t_func)) + ((1.0 - DELTA) * t_func)
    r_wl = (DELTA * (r_len - r_func)) + ((1.0 - DELTA) * r_func)
    t_wm = 0.0
    r_wm = 0.0
    for i in range(4):
        t_wm += st[4 + 4 * i] * weights[i] * DELTA
    for i in range(4):
        r_wm += st[5 + 4 * i] * weights[i] * DELTA
    for i in range(4):
        t_wm += st[6 + 4 * i] * weights[i] * (1.0 - DELTA)
    for i in range(4):
        r_wm += st[7 + 4 * i] * weights[i] * (1.0 - DELTA)
    precision = _ieee_div(t_wm, t_wl)
    recall = _ieee_div(r_wm, r_wl)
    fmean = _ieee_div(1.0, _ieee_div(1.0 - ALPHA, precision) + _ieee_div(ALPHA, recall))
    t_total = st[4] + st[6] + st[8] + st[10] + st[12] + st[14] + st[16] + st[18]
    r_total = st[5] + st[7] + st[9] + st[11] + st[13] + st[15] + st[17] + st[19]
    chunks = st[20]
    if t_total == t_len and r_total == r_len and chunks == 1.0:
        frag = 0.0
    else:
        frag = _ieee_div(chunks, (st[21] + st[22]) / 2)
    if math.isnan(frag):
        return 0.0
    penalty = GAMMA * math.pow(frag, BETA)
    score = fmean * (1.0 - penalty)
    if math.isnan(score):
        return 0.0
    return float(max(score, 0.0))


@_helper
def _ieee_div(a: float, b: float) -> float:
    # Java double division: x/0 is +-inf, 0/0 and nan operands give nan.
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.inf if (a > 0) == (math.copysign(1.0, b) > 0) else -math.inf
    return a / b


@_helper
def _synonym_overlap(a: int, b: int, syn_off: Any, syn_ids: Any) -> bool:
    i = syn_off[a]
    i_end = syn_off[a + 1]
    j = syn_off[b]
    j_end = syn_off[b + 1]
    while i < i_end and j < j_end:
        x = syn_ids[i]
        y = syn_ids[j]
        if x == y:
            return True
        if x < y:
            i += 1
        else:
            j += 1
    return False


@_helper
def _synonym_slot(sid: int, size: int) -> int:
    return np.int64((np.uint64(sid) * np.uint64(_MEMO_MULT)) >> np.uint64(40)) & (size - 1)


@_helper
def _synonym_table(hyp: Any, syn_off: Any, syn_ids: Any) -> Any:
    """Synset id -> bit mask of the hypothesis positions (<= 64 words) in that synset.

    An open-addressing hash table, at most half full: ``(ids, masks)``, id -1 for an empty slot.
    """
    nh = min(hyp.shape[0], 64)
    total = 0
    for i in range(nh):
        total += syn_off[hyp[i] + 1] - syn_off[hyp[i]]
    size = 16
    while size < 2 * total:
        size *= 2
    ids = np.full(size, -1, dtype=np.int64)
    masks = np.zeros(size, dtype=np.uint64)
    for i in range(nh):
        bit = np.uint64(1) << np.uint64(i)
        for e in range(syn_off[hyp[i]], syn_off[hyp[i] + 1]):
            sid = syn_ids[e]
            slot = _synonym_slot(sid, size)
            while ids[slot] != -1 and ids[slot] != sid:
                slot = (slot + 1) & (size - 1)
            ids[slot] = sid
            masks[slot] |= bit
    return ids, masks


@_helper
def _synonym_mask(b: int, syn_off: Any, syn_ids: Any, table_ids: Any, table_masks: Any) -> np.uint64:
    """OR of the position masks of every synset of word ``b`` found in a hypothesis table."""
    mask = np.uint64(0)
    size = table_ids.shape[0]
    for e in range(syn_off[b], syn_off[b + 1]):
        sid = syn_ids[e]
        slot = _synonym_slot(sid, size)
        while table_ids[slot] != -1:
            if table_ids[slot] == sid:
                mask |= table_masks[slot]
                break
            slot = (slot + 1) & (size - 1)
    return mask


#: Bit position of a power of two ``x``: ``_DEBRUIJN[(x * _DEBRUIJN_MULT) >> 58]`` (64-bit product).
_DEBRUIJN_MULT = 0x03F79D71B4CB0A89
_DEBRUIJN = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN[((_DEBRUIJN_MULT << _i) & 0xFFFFFFFFFFFFFFFF) >> 58] = _i
del _i


@_helper
def _put_mask(cand: Any, n: int, j: int, mask: np.uint64, module: int, nh: int) -> int:
    """Candidates (j, 1, i, 1, module) for the hypothesis positions i in ``mask``, by position; the new count."""
    while mask != 0:
        low = mask & (~mask + np.uint64(1))
        _put(cand, n, j, 1, _DEBRUIJN[np.int64((low * np.uint64(_DEBRUIJN_MULT)) >> np.uint64(58))], 1, module)
        n += 1
        mask ^= low
    return n


@_helper
def _less(m_a: int, c_a: int, d_a: int, m_b: int, c_b: int, d_b: int) -> bool:
    # PARTIAL_COMPARE_TOTAL: more weighted matches, then fewer chunks, then less distance.
    if m_a != m_b:
        return m_a > m_b
    if c_a != c_b:
        return c_a < c_b
    return d_a < d_b


@_helper
def _set_bit(bits: Any, row: int, k: int) -> None:
    bits[row, k >> 6] |= np.uint64(1) << np.uint64(k & 63)


@_helper
def _get_bit(bits: Any, row: int, k: int) -> bool:
    return bool((bits[row, k >> 6] >> np.uint64(k & 63)) & np.uint64(1) != 0)


@_helper
def _stable_order_general(n: int, rows: Any, m1: Any, m2: Any, chunks: Any, dist: Any, order: Any, tmp: Any) -> Any:
    """Positions 0..n-1 of ``rows`` stably sorted by the path comparator (bottom-up merge sort).

    Any path statistics; :func:`_stable_order` is the fast form for ordinary ones.
    """
    for k in range(n):
        order[k] = k
    width = 1
    while width < n:
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            k = lo
            while i < mid and j < hi:
                a = rows[order[i]]
                b = rows[order[j]]
                # take from the right run only when strictly better: keeps the sort stable
                if _less(m1[b] + m2[b], chunks[b], dist[b], m1[a] + m2[a], chunks[a], dist[a]):
                    tmp[k] = order[j]
                    j += 1
                else:
                    tmp[k] = order[i]
                    i += 1
                k += 1
            while i < mid:
                tmp[k] = order[i]
                i += 1
                k += 1
            while j < hi:
                tmp[k] = order[j]
                j += 1
                k += 1
            lo = hi
        for k in range(n):
            order[k] = tmp[k]
        width *= 2
    return order


@_helper
def _stable_order(n: int, rows: Any, m1: Any, m2: Any, chunks: Any, dist: Any, order: Any, tmp: Any) -> Any:
    """Positions 0..n-1 of ``rows`` stably sorted by the path comparator.

    The comparator (more matches, fewer chunks, less distance) is packed into one integer key
    per path when the numbers fit (always, for captions), then sorted by a bottom-up merge
    sort that copies runs already in order; otherwise :func:`_stable_order_general`.
    """
    keys = np.empty(n, dtype=np.int64)
    for k in range(n):
        r = rows[k]
        order[k] = k
        c = chunks[r]
        d = dist[r]
        m = m1[r] + m2[r]
        if c < 0 or c >= _KEY_CHUNKS or d < 0 or d >= _KEY_DIST or m < 0 or m >= _KEY_MATCHES:
            return _stable_order_general(n, rows, m1, m2, chunks, dist, order, tmp)
        keys[k] = ((_KEY_MATCHES - 1 - m) * _KEY_CHUNKS + c) * _KEY_DIST + d
    width = 1
    while width < n:
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            if mid >= hi or keys[order[mid - 1]] <= keys[order[mid]]:
                for k in range(lo, hi):  # the two runs are already in order
                    tmp[k] = order[k]
                lo = hi
                continue
            i = lo
            j = mid
            k = lo
            while i < mid and j < hi:
                # take from the right run only when strictly better: keeps the sort stable
                if keys[order[j]] < keys[order[i]]:
                    tmp[k] = order[j]
                    j += 1
                else:
                    tmp[k] = order[i]
                    i += 1
                k += 1
            while i < mid:
                tmp[k] = order[i]
                i += 1
                k += 1
            while j < hi:
                tmp[k] = order[j]
                j += 1
                k += 1
            lo = hi
        for k in range(n):
            order[k] = tmp[k]
        width *= 2
    return order


@_helper
def _para_entries(ng: Any, group_off: Any, group_dst: Any, group_dlen: Any) -> Any:
    """Paraphrase entries ``(pos, len, paraphrase id, paraphrase len)`` of one sentence.

    In METEOR's trie order: by start position, then phrase length, then file order.
    """
    count = 0
    for k in range(ng.shape[0]):
        for length in range(MAX_PHRASE):
            pid = ng[k, length]
            if pid >= 0:
                count += group_off[pid + 1] - group_off[pid]
    ent = np.empty((count, 4), dtype=np.int64)
    n = 0
    for k in range(ng.shape[0]):
        for length in range(MAX_PHRASE):
            pid = ng[k, length]
            if pid >= 0:
                for e in range(group_off[pid], group_off[pid + 1]):
                    ent[n, 0] = k
                    ent[n, 1] = length + 1
                    ent[n, 2] = group_dst[e]
                    ent[n, 3] = group_dlen[e]
                    n += 1
    return ent


@_helper
def _bit_slot(value: int) -> int:
    return int((np.uint64(value) * np.uint64(_BITS_MULT)) >> np.uint64(20)) & (_BITS_WORDS * 64 - 1)


@_helper
def _bit_set(bits: Any, value: int) -> None:
    slot = _bit_slot(value)
    bits[slot >> 6] |= np.uint64(1) << np.uint64(slot & 63)


@_helper
def _bit_test(bits: Any, value: int) -> bool:
    slot = _bit_slot(value)
    return bool((bits[slot >> 6] >> np.uint64(slot & 63)) & np.uint64(1) != 0)


@_helper
def _reserve(cand: Any, size: int) -> Any:
    """``cand`` with room for ``size`` rows (grown geometrically when needed)."""
    if size <= cand.shape[0]:
        return cand
    bigger = np.empty((max(size, 2 * cand.shape[0]), 5), dtype=np.int64)
    # element by element: an array slice assignment compiles numba's shape-error formatting (seconds)
    for i in range(cand.shape[0]):
        for j in range(5):
            bigger[i, j] = cand[i, j]
    return bigger


@_helper
def _put(cand: Any, n: int, start: int, length: int, mstart: int, mlength: int, module: int) -> None:
    cand[n, 0] = start
    cand[n, 1] = length
    cand[n, 2] = mstart
    cand[n, 3] = mlength
    cand[n, 4] = module


@_helper
def _fill_stats(
    hyp: Any,
    ref: Any,
    match: Any,
    c_start: Any,
    c_len: Any,
    c_mstart: Any,
    c_mlen: Any,
    c_mod: Any,
    w_func: Any,
    out: Any,
) -> None:
    """The 23 statistics of an alignment (``match[j]``: candidate chosen at reference position j, or -1).

    Chunks are recounted from the matches (``Aligner.getCountAndChunks``).
    """
    nh = hyp.shape[0]
    nr = ref.shape[0]
    for k in range(N_STATS):
        out[k] = 0.0
    out[0] = nh
    out[1] = nr
    for i in range(nh):
        if w_func[hyp[i]]:
            out[2] += 1
    for j in range(nr):
        if w_func[ref[j]]:
            out[3] += 1
    j = 0
    chunks = 0
    last = -1
    while j < nr:
        c = match[j]
        if c < 0:
            if last != -1:
                chunks += 1
                last = -1
            j += 1
            continue
        base = 4 + 4 * c_mod[c]
        for k in range(c_mlen[c]):
            if w_func[hyp[c_mstart[c] + k]]:
                out[base + 2] += 1
            else:
                out[base] += 1
        for k in range(c_len[c]):
            if w_func[ref[c_start[c] + k]]:
                out[base + 3] += 1
            else:
                out[base + 1] += 1
        out[21] += c_mlen[c]
        out[22] += c_len[c]
        if last != -1 and c_mstart[c] != last:
            chunks += 1
        j = c_start[c] + c_len[c]
        last = c_mstart[c] + c_mlen[c]
    if last != -1:
        chunks += 1
    out[20] = chunks


@_helper
def _span_mask(start: int, length: int) -> np.uint64:
    """Bits ``start .. start + length - 1`` (within 64)."""
    if length >= 64:
        return ~np.uint64(0)
    return ((np.uint64(1) << np.uint64(length)) - np.uint64(1)) << np.uint64(start)


@_helper
def _sort_paths(n: int, keys: Any, order: Any) -> None:
    """The beam of the distinct keys ``keys[:n]``: ``order[:n]`` holds their low 16 bits (path
    positions), the ``BEAM_SIZE`` smallest keys first in order, then the others in any order.

    The keys are distinct (each ends in its path's position), so any sort is a stable sort of
    the paths by the rest of the key; the paths beyond the beam are only dropped.
    """
    m = min(n, BEAM_SIZE)
    for k in range(1, m):  # insertion sort of the first BEAM_SIZE keys
        key = keys[k]
        i = k
        while i > 0 and keys[i - 1] > key:
            keys[i] = keys[i - 1]
            i -= 1
        keys[i] = key
    for k in range(m, n):  # each later key enters the beam (and pushes out its last) or stays out
        key = keys[k]
        if key < keys[m - 1]:
            keys[k] = keys[m - 1]
            i = m - 1
            while i > 0 and keys[i - 1] > key:
                keys[i] = keys[i - 1]
                i -= 1
            keys[i] = key
    for k in range(n):
        order[k] = keys[k] & 0xFFFF


#: Rows of the small search's workspace: six path fields, keys, free rows, two path lists, order.
_N_SMALL = 11
#: Packed path key of the small search: (255 - matches) << 55 | chunks << 48 | distance << 16 | position.
_SMALL_DIST_MASK = (1 << 32) - 1
_SMALL_CHUNK = 1 << 48
#: Most paths one step of the small search may hold (positions are 16 bits of the key).
_SMALL_PATHS = 1 << 16


@_helper
def _small_key(m1: int, m2: int, chunks: int, dist: int, k: int) -> int:
    return ((255 - (m1 + m2)) << 55) | (chunks << 48) | (dist << 16) | k


@_helper
def _requeue_best(row: int, free: Any, n_free: int, nexts: Any) -> int:
    """Put path row ``row`` back as the only next path, taking it out of the free rows if it
    is there; the new number of free rows."""
    for k in range(n_free):
        if free[k] == row:
            free[k] = free[n_free - 1]
            n_free -= 1
            break
    nexts[0] = row
    return n_free


@_helper
def _most_candidates(pos_off: Any, nr: int) -> int:
    """The most candidate matches starting at one reference position."""
    most = 0
    for j in range(nr):
        most = max(most, pos_off[j + 1] - pos_off[j])
    return most


@_helper
def _search_small(
    nh: int,
    nr: int,
    n: int,
    pos_off: Any,
    c_start: Any,
    c_len: Any,
    c_mstart: Any,
    c_mlen: Any,
    c_mod: Any,
    cov1: Any,
    cov2: Any,
    ws_f: Any,
    ws_u: Any,
    ws_log: Any,
    ws_mask: Any,
    ws_cand_key: Any,
    match: Any,
) -> int:
    """The beam search of :func:`_align` for segments of at most 64 words; ``match[:nr]`` is the result.

    The same search, step for step, with every path reduced to a few numbers: the used-word
    flags are two 64-bit masks, and the matches a path chose are a chain in an append-only log
    (a path's matches are only read back for the winner; during the search only the definite
    matches, shared by all paths, are looked up).

    Returns:
        1 when done; 0 beyond the work limits (as the general search); -1 when the path keys do
        not fit (the caller runs the general search instead).
    """
    max_cands = _most_candidates(pos_off, nr)
    pool = BEAM_SIZE * (max_cands + 1) + 1
    if pool > _WS_POOL:
        work = float(nr + 1) * float(pool) * float(nh + 2 * nr + 16)
        if work > MAX_SEARCH_WORK:
            return 0
    if pool > _SMALL_PATHS:
        return -1
    if pool > ws_f.shape[1]:
        ws_f = np.empty((_N_SMALL, pool), dtype=np.int64)
        ws_u = np.empty((2, pool), dtype=np.uint64)
    n_log_max = nr * BEAM_SIZE * max_cands + 1
    if n_log_max > ws_log.shape[1]:
        ws_log = np.empty((3, n_log_max), dtype=np.int64)
    if n > ws_mask.shape[1]:
        ws_mask = np.empty((2, n), dtype=np.uint64)
    if n > ws_cand_key.shape[1]:
        ws_cand_key = np.empty((2, n), dtype=np.int64)
    f_key = ws_f[2]
    f_idx = ws_f[3]
    f_last = ws_f[4]
    f_node = ws_f[5]
    keys = ws_f[6]
    free = ws_f[7]
    paths = ws_f[8]
    nexts = ws_f[9]
    order = ws_f[10]
    f_u1 = ws_u[0]
    f_u2 = ws_u[1]
    log_prev = ws_log[0]
    log_pos = ws_log[1]
    log_c = ws_log[2]
    mk1 = ws_mask[0]
    mk2 = ws_mask[1]
    # per candidate: what it takes from a path's packed key (its matches, weighted as Java's
    # int += double truncates them: m + int(x) == int(m + x) for x >= 0), and its distance
    c_dm = ws_cand_key[0]
    c_dd = ws_cand_key[1]
    for c in range(n):
        mk1[c] = _span_mask(c_mstart[c], c_mlen[c])
        mk2[c] = _span_mask(c_start[c], c_len[c])
        w = SEARCH_W0 if c_mod[c] == 0 else SEARCH_WX
        c_dm[c] = (int(c_mlen[c] * w) + int(c_len[c] * w)) << 55
        c_dd[c] = abs(c_start[c] - c_mstart[c])
    # definite matches (one candidate, covering words no other candidate covers)
    u1 = np.uint64(0)
    u2 = np.uint64(0)
    for j in range(nr):
        match[j] = -1
        if pos_off[j + 1] - pos_off[j] == 1:
            c = pos_off[j]
            overlap = False
            for k in range(c_len[c]):
                if cov2[j + k] != 1:
                    overlap = True
            for k in range(c_mlen[c]):
                if cov1[c_mstart[c] + k] != 1:
                    overlap = True
            if not overlap:
                match[j] = c
                u1 |= mk1[c]
                u2 |= mk2[c]
    # Paths live in rows; lists of row ids play the role of Java's ArrayLists, so a path that
    # moves on (or only changes its own numbers) is never copied. Rows never used yet come after
    # n_rows; freed rows are reused first. A path's matches, chunks and distance are kept packed
    # as its sort key (see _small_key; the position is added when sorting); a key field that
    # would overflow sends the segment to the general search.
    n_free = 0
    n_rows = 1
    row = 0
    f_key[row] = _small_key(0, 0, 0, 0, 0)
    f_idx[row] = 0
    f_last[row] = -1
    f_node[row] = -1
    f_u1[row] = u1
    f_u2[row] = u2
    n_log = 0
    nexts[0] = row
    n_next = 1
    for cur in range(nr + 1):
        paths, nexts = nexts, paths
        n_paths = n_next
        for k in range(n_paths):
            keys[k] = f_key[paths[k]] | k
        _sort_paths(n_paths, keys, order)
        # rows beyond the beam are dropped
        for rank in range(BEAM_SIZE, n_paths):
            free[n_free] = paths[order[rank]]
            n_free += 1
        n_next = 0
        for rank in range(min(BEAM_SIZE, n_paths)):
            p = paths[order[rank]]
            if cur == nr:
                if f_last[p] != -1:
                    if (f_key[p] >> 48) & 127 == 127:
                        return -1
                    f_key[p] += _SMALL_CHUNK
            elif (f_u2[p] >> np.uint64(cur)) & np.uint64(1) != 0:
                if cur >= f_idx[p]:
                    c = match[f_idx[p]]
                    if c < 0:  # the path is dropped
                        free[n_free] = p
                        n_free += 1
                        continue
                    key = f_key[p] - c_dm[c]
                    if f_last[p] != -1 and c_mstart[c] != f_last[p]:
                        if (key >> 48) & 127 == 127:
                            return -1
                        key += _SMALL_CHUNK
                    d = c_dd[c]
                    if ((key >> 16) & _SMALL_DIST_MASK) + d > _SMALL_DIST_MASK:
                        return -1
                    f_key[p] = key + (d << 16)
                    f_idx[p] = c_start[c] + c_len[c]
                    f_last[p] = c_mstart[c] + c_mlen[c]
            else:
                pu1 = f_u1[p]
                pu2 = f_u2[p]
                plast = f_last[p]
                pkey = f_key[p]
                pnode = f_node[p]
                for c in range(pos_off[cur], pos_off[cur + 1]):
                    if (pu1 & mk1[c]) | (pu2 & mk2[c]) != np.uint64(0):
                        continue
                    if n_free > 0:
                        n_free -= 1
                        q = free[n_free]
                    else:
                        q = n_rows
                        n_rows += 1
                    f_u1[q] = pu1 | mk1[c]
                    f_u2[q] = pu2 | mk2[c]
                    # the parent's chunks and distance (before this match's distance is added to it)
                    key = pkey - c_dm[c]
                    if plast != -1 and c_mstart[c] != plast:
                        if (key >> 48) & 127 == 127:
                            return -1
                        key += _SMALL_CHUNK
                    f_key[q] = key
                    f_idx[q] = c_start[c] + c_len[c]
                    f_last[q] = c_mstart[c] + c_mlen[c]
                    f_node[q] = n_log
                    log_prev[n_log] = pnode
                    log_pos[n_log] = cur
                    log_c[n_log] = c
                    n_log += 1
                    # METEOR 1.5 adds the distance to the parent path, not to the new one.
                    d = c_dd[c]
                    if ((pkey >> 16) & _SMALL_DIST_MASK) + d > _SMALL_DIST_MASK:
                        return -1
                    pkey += d << 16
                    nexts[n_next] = q
                    n_next += 1
                if plast != -1:
                    if (pkey >> 48) & 127 == 127:
                        return -1
                    pkey += _SMALL_CHUNK
                    f_last[p] = -1
                f_key[p] = pkey
                f_idx[p] += 1
            nexts[n_next] = p
            n_next += 1
        if n_next == 0:
            # Java re-queues the best path of the previous step (unchanged: every path was
            # dropped; its row was freed above, so it is taken back).
            n_free = _requeue_best(paths[order[0]], free, n_free, nexts)
            n_next = 1
    for k in range(n_next):
        keys[k] = f_key[nexts[k]] | k
    _sort_paths(n_next, keys, order)
    node = f_node[nexts[order[0]]]
    while node >= 0:
        match[log_pos[node]] = log_c[node]
        node = log_prev[node]
    return 1


@_helper
def _word_weight(cov: np.uint64, exact: np.uint64, syn: np.uint64, k: int, func: bool) -> float:
    """Largest weighted-match contribution of word ``k`` (0 when no candidate covers it)."""
    bit = np.uint64(1) << np.uint64(k)
    if cov & bit == 0:
        return 0.0
    w = W_EXACT if exact & bit else (W_SYN if syn & bit else max(W_STEM, W_PARA))
    return w * ((1.0 - DELTA) if func else DELTA)


@_helper
def _runs(cov: np.uint64, weights: Any, n: int, run_w: Any, run_len: Any) -> int:
    """Runs of consecutive covered words: their weights and lengths, each in decreasing order."""
    k = 0
    for i in range(n):
        if (cov >> np.uint64(i)) & np.uint64(1) == 0:
            continue
        if i == 0 or (cov >> np.uint64(i - 1)) & np.uint64(1) == 0:
            run_w[k] = 0.0
            run_len[k] = 0.0
            k += 1
        run_w[k - 1] += weights[i]
        run_len[k - 1] += 1.0
    for row in (run_w, run_len):
        for a in range(1, k):
            x = row[a]
            b = a
            while b > 0 and row[b - 1] < x:
                row[b] = row[b - 1]
                b -= 1
            row[b] = x
    return k


@_helper
def _segment_weights(
    words: Any, cov: np.uint64, exact: np.uint64, syn: np.uint64, w_func: Any, weights: Any
) -> tuple[float, float, int]:
    """Each word's largest weighted-match contribution (into ``weights``); the segment's
    function words, the total of those contributions and the words covered."""
    n_func = 0.0
    total = 0.0
    covered = 0
    for i in range(words.shape[0]):
        f = w_func[words[i]]
        if f:
            n_func += 1.0
        weights[i] = _word_weight(cov, exact, syn, i, f)
        if weights[i] > 0.0:
            covered += 1
            total += weights[i]
    return n_func, total, covered


@_helper
def _runs_bound(
    cov: np.uint64,
    weights: Any,
    n: int,
    run_w: Any,
    run_len: Any,
    length_weight: float,
    other: float,
    other_covered: int,
    is_reference: bool,
) -> float:
    """The score bound from one segment's runs of covered words (see :func:`_score_bound`):
    the best over ``s`` of the F-mean with this segment's ``s`` heaviest runs matched (recall
    for the reference, precision for the hypothesis; ``other`` is the other one's bound) and
    the penalty of ``s`` chunks over at most its ``s`` longest runs' and ``other_covered`` words."""
    k = _runs(cov, weights, n, run_w, run_len)
    bound = 0.0
    weight = 0.0
    length = 0.0
    for s in range(k):
        weight += run_w[s]
        length += run_len[s]
        own = weight / length_weight
        precision, recall = (other, own) if is_reference else (own, other)
        fmean = 1.0 / ((1.0 - ALPHA) / precision + ALPHA / recall)
        bound = max(bound, fmean * (1.0 - GAMMA * math.pow(2.0 * (s + 1) / (other_covered + length), BETA)))
    return bound


@_helper
def _score_bound(
    hyp: Any,
    ref: Any,
    n: int,
    c_start: Any,
    c_len: Any,
    c_mstart: Any,
    c_mlen: Any,
    c_mod: Any,
    w_func: Any,
) -> float:
    """An upper bound of the score of any alignment made of the candidate matches ``[0, n)``.

    An alignment matches every word at most once, with at most the best weight among the
    candidates covering it, which bounds both weighted match totals (precision and recall,
    hence the F-mean, which grows with both). Unless every word of both segments is covered the
    alignment is not perfect, and a chunk never spans an uncovered word (METEOR's chunks are
    runs contiguous in both segments): an alignment touching ``s`` runs of covered reference
    words has at least ``s`` chunks, at most the ``s`` heaviest runs' weight and the ``s``
    longest runs' words matched there, which bounds its recall from above and its
    fragmentation penalty from below; the best over ``s`` bounds the score, and likewise from
    the hypothesis' runs (the smaller of the two bounds holds). Segments of at most 64 words,
    both non-empty.
    """
    nh = hyp.shape[0]
    nr = ref.shape[0]
    # best weight of a candidate covering each word (bit masks per module, best module first)
    cov_h = np.uint64(0)
    cov_r = np.uint64(0)
    exact_h = np.uint64(0)
    exact_r = np.uint64(0)
    syn_h = np.uint64(0)
    syn_r = np.uint64(0)
    for c in range(n):
        mh = _span_mask(c_mstart[c], c_mlen[c])
        mr = _span_mask(c_start[c], c_len[c])
        cov_h |= mh
        cov_r |= mr
        if c_mod[c] == 0:
            exact_h |= mh
            exact_r |= mr
        elif c_mod[c] == 2:
            syn_h |= mh
            syn_r |= mr
    ws = np.empty((6, 64), dtype=np.float64)
    t_func, t_wm, n_h = _segment_weights(hyp, cov_h, exact_h, syn_h, w_func, ws[0])
    r_func, r_wm, n_r = _segment_weights(ref, cov_r, exact_r, syn_r, w_func, ws[1])
    if n_h == 0 or n_r == 0:
        return 0.0
    t_wl = (DELTA * (nh - t_func)) + ((1.0 - DELTA) * t_func)
    r_wl = (DELTA * (nr - r_func)) + ((1.0 - DELTA) * r_func)
    precision = t_wm / t_wl
    recall = r_wm / r_wl
    if n_h == nh and n_r == nr:
        return 1.0 / ((1.0 - ALPHA) / precision + ALPHA / recall)
    bound_r = _runs_bound(cov_r, ws[1], nr, ws[2], ws[3], r_wl, precision, n_h, True)  # the reference's runs
    bound_h = _runs_bound(cov_h, ws[0], nh, ws[4], ws[5], t_wl, recall, n_r, False)  # the hypothesis'
    return min(bound_r, bound_h)


@_helper
def _align(
    hyp: Any,
    ref: Any,
    hyp_ng: Any,
    ref_ng: Any,
    hyp_ent: Any,
    hyp_ng_bits: Any,
    hyp_ent_bits: Any,
    hh: Any,
    hs: Any,
    hg: Any,
    hyp_syn_ids: Any,
    hyp_syn_mask: Any,
    w_hash: Any,
    w_stem: Any,
    w_sig: Any,
    w_func: Any,
    syn_off: Any,
    syn_ids: Any,
    group_off: Any,
    group_dst: Any,
    group_dlen: Any,
    ws_match: Any,
    ws_u1: Any,
    ws_u2: Any,
    ws_scal: Any,
    ws_cand: Any,
    ws_pos: Any,
    ws_f: Any,
    ws_u: Any,
    ws_log: Any,
    ws_mask: Any,
    ws_cand_key: Any,
    memo_masks: Any,
    stamp: int,
    best: float,
    out: Any,
) -> int:
    """Align one hypothesis (``words1``) with one reference (``words2``); fill ``out`` (23 stats).

    ``best`` is the highest score of the item's earlier references (-1 for the first one).

    Returns:
        1 when ``out`` holds the statistics; 2 (``out`` untouched) when the reference's score
        provably cannot exceed ``best`` (see :func:`_score_bound`); 0 (``out`` undefined) when
        the segment pair is beyond the work limits.
    """
    nh = hyp.shape[0]
    nr = ref.shape[0]
    identical = nh == nr
    if identical:
        for k in range(nh):
            if hh[k] != w_hash[ref[k]]:
                identical = False
                break
    # --- candidate matches, per reference position, in the Java module order ---
    hyp_sig = np.uint64(0)  # union of the hypothesis' synonym signatures: a quick no-overlap test
    for i in range(nh):
        hyp_sig |= hg[i]
    cand = ws_cand
    if nr + 1 <= ws_pos.shape[1] and nh <= ws_pos.shape[1]:
        pos_off = ws_pos[0]
        cov1 = ws_pos[1]
        cov2 = ws_pos[2]
    else:
        pos_off = np.empty(nr + 1, dtype=np.int64)
        cov1 = np.empty(max(nh, 1), dtype=np.int64)
        cov2 = np.empty(max(nr, 1), dtype=np.int64)
    pos_off[0] = 0
    n = 0
    for j in range(nr):
        # room for everything position j can add, so that the loops below write directly
        n_groups = 0
        for length in range(MAX_PHRASE):
            pid = ref_ng[j, length]
            if pid >= 0:
                n_groups += group_off[pid + 1] - group_off[pid]
        cand = _reserve(cand, n + (3 + n_groups) * nh + hyp_ent.shape[0])
        b = ref[j]
        hb = w_hash[b]
        if nh <= 64:
            # exact, stem and synonym matches of word b as position masks, once per item and word
            if memo_masks[b, 3] != np.uint64(stamp + 1):
                sb = w_stem[b]
                exact = np.uint64(0)
                stem = np.uint64(0)
                for i in range(nh):
                    if hh[i] == hb:
                        exact |= np.uint64(1) << np.uint64(i)
                    elif hs[i] == sb:
                        stem |= np.uint64(1) << np.uint64(i)
                syn = np.uint64(0)
                if (w_sig[b] & hyp_sig) != 0:
                    # positions of the hypothesis sharing a synset with b, from its synset table
                    syn = _synonym_mask(b, syn_off, syn_ids, hyp_syn_ids, hyp_syn_mask) & ~exact
                memo_masks[b, 3] = np.uint64(stamp + 1)
                memo_masks[b, 0] = exact
                memo_masks[b, 1] = stem
                memo_masks[b, 2] = syn
            n = _put_mask(cand, n, j, memo_masks[b, 0], 0, nh)
            if not identical:
                n = _put_mask(cand, n, j, memo_masks[b, 1], 1, nh)
                n = _put_mask(cand, n, j, memo_masks[b, 2], 2, nh)
        else:
            for i in range(nh):
                if hh[i] == hb:
                    _put(cand, n, j, 1, i, 1, 0)
                    n += 1
            if not identical:
                sb = w_stem[b]
                for i in range(nh):
                    if hh[i] != hb and hs[i] == sb:
                        _put(cand, n, j, 1, i, 1, 1)
                        n += 1
                gb = w_sig[b]
                if (gb & hyp_sig) != 0:
                    for i in range(nh):
                        if hh[i] != hb and (hg[i] & gb) != 0 and _synonym_overlap(hyp[i], b, syn_off, syn_ids):
                            _put(cand, n, j, 1, i, 1, 2)
                            n += 1
        if not identical:
            # paraphrase, direction 1: phrases of the reference starting at j
            # (by phrase length, then in file order, read from the table: METEOR's trie order)
            for length in range(MAX_PHRASE):
                pid = ref_ng[j, length]
                if pid < 0:
                    continue
                for e in range(group_off[pid], group_off[pid + 1]):
                    d = group_dst[e]
                    if not _bit_test(hyp_ng_bits, d):  # the hypothesis has no such phrase
                        continue
                    dl = group_dlen[e]
                    for i in range(nh - dl + 1):
                        if hyp_ng[i, dl - 1] == d:
                            _put(cand, n, j, length + 1, i, dl, 3)
                            n += 1
            # paraphrase, direction 2: phrases of the hypothesis whose paraphrase starts at j
            hit = False
            for length in range(MAX_PHRASE):
                pid = ref_ng[j, length]
                if pid >= 0 and _bit_test(hyp_ent_bits, pid):
                    hit = True
                    break
            if hit:
                for e in range(hyp_ent.shape[0]):
                    dl = hyp_ent[e, 3]
                    if j + dl <= nr and ref_ng[j, dl - 1] == hyp_ent[e, 2]:
                        _put(cand, n, j, dl, hyp_ent[e, 0], hyp_ent[e, 1], 3)
                        n += 1
        pos_off[j + 1] = n
        if n > MAX_CANDIDATES:
            return 0
    c_start = cand[:, 0]
    c_len = cand[:, 1]
    c_mstart = cand[:, 2]
    c_mlen = cand[:, 3]
    c_mod = cand[:, 4]
    # rows of the search's path pool (see below)
    max_cands = _most_candidates(pos_off, nr)
    pool = BEAM_SIZE * (max_cands + 1) + 1
    if best > 0.0 and nh <= 64 and nr <= 64 and nh > 0 and nr > 0 and pool <= _WS_POOL:
        # Skipped only where the search below could not stop at its work limits either (the
        # item's result would then be NaN): a small pool never reaches them.
        if _score_bound(hyp, ref, n, c_start, c_len, c_mstart, c_mlen, c_mod, w_func) < best - 1e-9:
            return 2
    # --- coverage and definite matches ---
    cov1[:nh] = 0
    cov2[:nr] = 0
    for c in range(n):
        for k in range(c_mlen[c]):
            cov1[c_mstart[c] + k] += 1
        for k in range(c_len[c]):
            cov2[c_start[c] + k] += 1
    if nr + 1 <= ws_pos.shape[1]:
        match = ws_pos[3]
    else:
        match = np.empty(nr + 1, dtype=np.int64)
    if nh <= 64 and nr <= 64:
        status = _search_small(
            nh,
            nr,
            n,
            pos_off,
            c_start,
            c_len,
            c_mstart,
            c_mlen,
            c_mod,
            cov1,
            cov2,
            ws_f,
            ws_u,
            ws_log,
            ws_mask,
            ws_cand_key,
            match,
        )
        if status == 0:
            return 0
        if status == 1:
            _fill_stats(hyp, ref, match, c_start, c_len, c_mstart, c_mlen, c_mod, w_func, out)
            return 1
    # Paths live in a pool of rows; lists of row ids play the role of Java's ArrayLists,
    # so a path that moves on unchanged is never copied.
    # used-word flags are bit sets (64 words per uint64)
    bw1 = max((nh + 63) >> 6, 1)
    bw2 = max((nr + 63) >> 6, 1)
    if pool <= ws_match.shape[0] and nr <= ws_match.shape[1] and bw1 <= ws_u1.shape[1] and bw2 <= ws_u2.shape[1]:
        p_match = ws_match
        p_u1 = ws_u1
        p_u2 = ws_u2
        scal = ws_scal
    else:  # unusually long or ambiguous segment: a private, larger pool
        # Java copies these arrays for every new path too; refuse what would run for hours.
        work = float(nr + 1) * float(pool) * float(nh + 2 * nr + 16)
        if work > MAX_SEARCH_WORK:
            return 0
        p_match = np.empty((pool, max(nr, 1)), dtype=np.int32)
        p_u1 = np.empty((pool, bw1), dtype=np.uint64)
        p_u2 = np.empty((pool, bw2), dtype=np.uint64)
        scal = np.empty((_N_SCAL, pool), dtype=np.int64)
    p_m1 = scal[0]
    p_m2 = scal[1]
    p_chunks = scal[2]
    p_idx = scal[3]
    p_last = scal[4]
    p_dist = scal[5]
    free = scal[6]
    paths = scal[7]
    nexts = scal[8]
    sort_a = scal[9]
    sort_b = scal[10]
    for k in range(pool):
        free[k] = pool - 1 - k
    n_free = pool - 1
    start_row = free[n_free]
    p_match[start_row, :nr] = -1
    p_u1[start_row, :bw1] = 0
    p_u2[start_row, :bw2] = 0
    p_m1[start_row] = 0
    p_m2[start_row] = 0
    p_chunks[start_row] = 0
    p_idx[start_row] = 0
    p_last[start_row] = -1
    p_dist[start_row] = 0
    for j in range(nr):
        if pos_off[j + 1] - pos_off[j] == 1:
            c = pos_off[j]
            overlap = False
            for k in range(c_len[c]):
                if cov2[j + k] != 1:
                    overlap = True
            for k in range(c_mlen[c]):
                if cov1[c_mstart[c] + k] != 1:
                    overlap = True
            if not overlap:
                p_match[start_row, j] = c
                for k in range(c_len[c]):
                    _set_bit(p_u2, start_row, j + k)
                for k in range(c_mlen[c]):
                    _set_bit(p_u1, start_row, c_mstart[c] + k)
    nexts[0] = start_row
    n_next = 1
    for cur in range(nr + 1):
        paths, nexts = nexts, paths
        n_paths = n_next
        order = _stable_order(n_paths, paths, p_m1, p_m2, p_chunks, p_dist, sort_a, sort_b)
        # rows beyond the beam are dropped
        for rank in range(BEAM_SIZE, n_paths):
            free[n_free] = paths[order[rank]]
            n_free += 1
        n_next = 0
        for rank in range(min(BEAM_SIZE, n_paths)):
            p = paths[order[rank]]
            if cur == nr:
                if p_last[p] != -1:
                    p_chunks[p] += 1
                nexts[n_next] = p
                n_next += 1
                continue
            if _get_bit(p_u2, p, cur):
                if cur < p_idx[p]:
                    nexts[n_next] = p
                    n_next += 1
                else:
                    c = p_match[p, p_idx[p]]
                    if c >= 0:
                        w = SEARCH_W0 if c_mod[c] == 0 else SEARCH_WX
                        p_m1[p] = int(p_m1[p] + c_mlen[c] * w)
                        p_m2[p] = int(p_m2[p] + c_len[c] * w)
                        if p_last[p] != -1 and c_mstart[c] != p_last[p]:
                            p_chunks[p] += 1
                        p_idx[p] = c_start[c] + c_len[c]
                        p_last[p] = c_mstart[c] + c_mlen[c]
                        p_dist[p] += abs(c_start[c] - c_mstart[c])
                        nexts[n_next] = p
                        n_next += 1
                    else:
                        free[n_free] = p
                        n_free += 1
                continue
            for c in range(pos_off[cur], pos_off[cur + 1]):
                used = False
                for k in range(c_len[c]):
                    if _get_bit(p_u2, p, c_start[c] + k):
                        used = True
                for k in range(c_mlen[c]):
                    if _get_bit(p_u1, p, c_mstart[c] + k):
                        used = True
                if used:
                    continue
                n_free -= 1
                q = free[n_free]
                for k in range(nr):
                    p_match[q, k] = p_match[p, k]
                for k in range(bw1):
                    p_u1[q, k] = p_u1[p, k]
                for k in range(bw2):
                    p_u2[q, k] = p_u2[p, k]
                p_chunks[q] = p_chunks[p]
                p_dist[q] = p_dist[p]
                for k in range(c_len[c]):
                    _set_bit(p_u2, q, c_start[c] + k)
                for k in range(c_mlen[c]):
                    _set_bit(p_u1, q, c_mstart[c] + k)
                p_match[q, cur] = c
                w = SEARCH_W0 if c_mod[c] == 0 else SEARCH_WX
                p_m1[q] = int(p_m1[p] + c_mlen[c] * w)
                p_m2[q] = int(p_m2[p] + c_len[c] * w)
                if p_last[p] != -1 and c_mstart[c] != p_last[p]:
                    p_chunks[q] += 1
                p_idx[q] = c_start[c] + c_len[c]
                p_last[q] = c_mstart[c] + c_mlen[c]
                # METEOR 1.5 adds the distance to the parent path, not to the new one.
                p_dist[p] += abs(c_start[c] - c_mstart[c])
                nexts[n_next] = q
                n_next += 1
            if p_last[p] != -1:
                p_chunks[p] += 1
                p_last[p] = -1
            p_idx[p] += 1
            nexts[n_next] = p
            n_next += 1
        if n_next == 0:
            # Java re-queues the best path of the previous step (its row was freed above
            # only if it fell outside the beam, which the best one never does).
            n_free = _requeue_best(paths[order[0]], free, n_free, nexts)
            n_next = 1
    order = _stable_order(n_next, nexts, p_m1, p_m2, p_chunks, p_dist, sort_a, sort_b)
    best = nexts[order[0]]
    for j in range(nr):
        match[j] = p_match[best, j]
    _fill_stats(hyp, ref, match, c_start, c_len, c_mstart, c_mlen, c_mod, w_func, out)
    return 1


@_helper
def _likely_best(lo: int, hi: int, hh: Any, ref_sent: Any, sent_off: Any, sent_words: Any, w_hash: Any) -> int:
    """The reference in ``[lo, hi)`` with the highest F-mean of exact word matches (the first on ties)."""
    nh = hh.shape[0]
    lead = lo
    lead_f = -1.0
    if hi - lo < 2 or nh == 0:
        return lead
    for r_i in range(lo, hi):
        r = ref_sent[r_i]
        nr = sent_off[r + 1] - sent_off[r]
        if nr == 0:
            continue
        m_r = 0
        for j in range(sent_off[r], sent_off[r + 1]):
            hb = w_hash[sent_words[j]]
            for i in range(nh):
                if hh[i] == hb:
                    m_r += 1
                    break
        if m_r == 0:
            continue
        # hypothesis words found in the reference: bounded by both counts, estimated by m_r
        p = min(m_r, nh) / nh
        rec = m_r / nr
        f = p * rec / ((1.0 - ALPHA) * rec + ALPHA * p)
        if f > lead_f:
            lead_f = f
            lead = r_i
    return lead


@_jit
def meteor_item_stats(
    item_hyp: Any,
    ref_off: Any,
    ref_sent: Any,
    sent_off: Any,
    sent_words: Any,
    word_para: Any,
    phrase_hi: Any,
    phrase_lo: Any,
    first_off: Any,
    w_hash: Any,
    w_stem: Any,
    w_sig: Any,
    w_func: Any,
    syn_off: Any,
    syn_ids: Any,
    group_off: Any,
    group_dst: Any,
    group_dlen: Any,
) -> Any:
    """Statistics rows of the best reference of each item (highest score, earliest on ties).

    Returns:
        float64 array ``(n_items, N_STATS)`` in the SCORE-line layout; the chunks column is
        zeroed for perfect segments so that column sums reproduce METEOR's aggregate.
    """
    n_items = item_hyp.shape[0]
    result = np.zeros((n_items, N_STATS), dtype=np.float64)
    row = np.zeros(N_STATS, dtype=np.float64)
    # reusable search workspace, enough for ordinary captions
    ws_match = np.empty((_WS_POOL, _WS_WIDTH), dtype=np.int32)
    ws_u1 = np.empty((_WS_POOL, _WS_WIDTH >> 6), dtype=np.uint64)
    ws_u2 = np.empty((_WS_POOL, _WS_WIDTH >> 6), dtype=np.uint64)
    ws_scal = np.empty((_N_SCAL, _WS_POOL), dtype=np.int64)
    ws_cand = np.empty((_WS_POOL, 5), dtype=np.int64)
    ws_pos = np.empty((4, _WS_WIDTH + 1), dtype=np.int64)
    ws_f = np.empty((_N_SMALL, _WS_POOL), dtype=np.int64)
    ws_u = np.empty((2, _WS_POOL), dtype=np.uint64)
    ws_log = np.empty((3, 64 * BEAM_SIZE * 16 + 1), dtype=np.int64)
    ws_mask = np.empty((2, _WS_POOL), dtype=np.uint64)
    ws_cand_key = np.empty((2, _WS_POOL), dtype=np.int64)
    memo = np.zeros(_MEMO_LONG + 3 * _MEMO_SIZE + 1, dtype=np.uint64)
    # per word: its exact, stem and synonym matches in a hypothesis, and 1 + the item of that
    # hypothesis (0: none yet), side by side
    memo_masks = np.zeros((w_hash.shape[0], 4), dtype=np.uint64)
    ws_ng = np.empty((_WS_WIDTH, MAX_PHRASE), dtype=np.int32)
    for it in range(n_items):
        h = item_hyp[it]
        hyp = sent_words[sent_off[h] : sent_off[h + 1]]
        hyp_ng = sentence_ngrams(hyp, word_para, phrase_hi, phrase_lo, first_off, memo)
        hyp_ent = _para_entries(hyp_ng, group_off, group_dst, group_dlen)
        # bit filters of the hypothesis' phrases and of their paraphrases
        hyp_ng_bits = np.zeros(_BITS_WORDS, dtype=np.uint64)
        for k in range(hyp_ng.shape[0]):
            for length in range(MAX_PHRASE):
                if hyp_ng[k, length] >= 0:
                    _bit_set(hyp_ng_bits, hyp_ng[k, length])
        hyp_ent_bits = np.zeros(_BITS_WORDS, dtype=np.uint64)
        for e in range(hyp_ent.shape[0]):
            _bit_set(hyp_ent_bits, hyp_ent[e, 2])
        nh = hyp.shape[0]
        hh = np.empty(nh, dtype=np.int64)
        hs = np.empty(nh, dtype=np.int64)
        hg = np.empty(nh, dtype=np.uint64)
        for i in range(nh):
            hh[i] = w_hash[hyp[i]]
            hs[i] = w_stem[hyp[i]]
            hg[i] = w_sig[hyp[i]]
        hyp_syn_ids, hyp_syn_mask = _synonym_table(hyp, syn_off, syn_ids)
        best = -1.0
        best_r = -1
        # the likeliest best reference first (more of the items' other references are then
        # skipped by _align), the others in their order; ties still go to the earliest one
        lead = _likely_best(ref_off[it], ref_off[it + 1], hh, ref_sent, sent_off, sent_words, w_hash)
        for step in range(ref_off[it] - 1, ref_off[it + 1]):
            if step < ref_off[it]:
                r_i = lead
            elif step == lead:
                continue
            else:
                r_i = step
            r = ref_sent[r_i]
            ref = sent_words[sent_off[r] : sent_off[r + 1]]
            if ref.shape[0] <= ws_ng.shape[0]:
                ref_ng = ws_ng[: ref.shape[0]]
                _sentence_ngrams_into(ref, word_para, phrase_hi, phrase_lo, first_off, memo, ref_ng)
            else:
                ref_ng = sentence_ngrams(ref, word_para, phrase_hi, phrase_lo, first_off, memo)
            ok = _align(
                hyp,
                ref,
                hyp_ng,
                ref_ng,
                hyp_ent,
                hyp_ng_bits,
                hyp_ent_bits,
                hh,
                hs,
                hg,
                hyp_syn_ids,
                hyp_syn_mask,
                w_hash,
                w_stem,
                w_sig,
                w_func,
                syn_off,
                syn_ids,
                group_off,
                group_dst,
                group_dlen,
                ws_match,
                ws_u1,
                ws_u2,
                ws_scal,
                ws_cand,
                ws_pos,
                ws_f,
                ws_u,
                ws_log,
                ws_mask,
                ws_cand_key,
                memo_masks,
                it,
                best,
                row,
            )
            if ok == 0:
                best = math.nan
                break
            if ok == 2:  # this reference cannot beat the best one so far
                continue
            score = segment_score(row)
            if score > best or (score == best and r_i < best_r):
                best = score
                best_r = r_i
                for j in range(N_STATS):  # not result[it, :] = row (see _reserve)
                    result[it, j] = row[j]
        st = result[it]
        if math.isnan(best):
            st[:] = math.nan
            continue
        t_total = st[4] + st[6] + st[8] + st[10] + st[12] + st[14] + st[16] + st[18]
        r_total = st[5] + st[7] + st[9] + st[11] + st[13] + st[15] + st[17] + st[19]
        if t_total == st[0] and r_total == st[1] and st[20] == 1.0:
            # MeteorStats.addStats leaves out the chunk of a perfect segment.
            st[20] = 0.0
    return result


@_jit
def segment_scores(stats: Any) -> Any:
    """:func:`segment_score` of every row."""
    out = np.empty(stats.shape[0], dtype=np.float64)
    for i in range(stats.shape[0]):
        out[i] = segment_score(stats[i])
    return out
