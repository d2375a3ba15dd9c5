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

__all__ = ["HAVE_NUMBA", "N_STATS", "meteor_item_stats", "phrase_ngrams", "segment_score"]

try:  # numba is an optional accelerator; results are identical without it.
    from numba import njit as _njit

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - exercised only without numba
    HAVE_NUMBA = False


def _jit(func: Any) -> Any:
    if HAVE_NUMBA:
        return _njit(cache=True, nogil=True)(func)
    return func


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
#: Width of one statistics row (the 23 numbers of METEOR's SCORE reply).
N_STATS = 23


@_jit
def _phrase_find(hi: np.uint64, lo: np.uint64, phrase_hi: Any, phrase_lo: Any) -> int:
    a = 0
    b = phrase_hi.shape[0]
    while a < b:
        mid = (a + b) >> 1
        h = phrase_hi[mid]
        if h < hi or (h == hi and phrase_lo[mid] < lo):
            a = mid + 1
        else:
            b = mid
    if a < phrase_hi.shape[0] and phrase_hi[a] == hi and phrase_lo[a] == lo:
        return a
    return -1


@_jit
def phrase_ngrams(
    sent_off: Any, sent_words: Any, word_para: Any, phrase_hi: Any, phrase_lo: Any
) -> Any:
    """Phrase id of every (position, length) n-gram of every sentence, -1 when absent.

    Returns:
        int32 array of shape ``(n_words_total, MAX_PHRASE)``; row ``sent_off[s] + k`` holds
        the phrases that start at word ``k`` of sentence ``s``.
    """
    total = sent_words.shape[0]
    out = np.full((total, MAX_PHRASE), -1, dtype=np.int32)
    for s in range(sent_off.shape[0] - 1):
        start = sent_off[s]
        stop = sent_off[s + 1]
        for k in range(start, stop):
            hi = np.uint64(0)
            lo = np.uint64(0)
            for length in range(1, MAX_PHRASE + 1):
                pos = k + length - 1
                if pos >= stop:
                    break
                tok = word_para[sent_words[pos]]
                if tok == 0:
                    break
                if length <= 4:
                    hi = hi | (np.uint64(tok) << np.uint64(16 * (4 - length)))
                else:
                    lo = lo | (np.uint64(tok) << np.uint64(16 * (8 - length)))
                out[k, length - 1] = _phrase_find(hi, lo, phrase_hi, phrase_lo)
    return out


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
    return max(score, 0.0)


@_jit
def _ieee_div(a: float, b: float) -> float:
    # Java double division: x/0 is +-inf, 0/0 and nan operands give nan.
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.inf if (a > 0) == (math.copysign(1.0, b) > 0) else -math.inf
    return a / b


@_jit
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


@_jit
def _less(m_a: int, c_a: int, d_a: int, m_b: int, c_b: int, d_b: int) -> bool:
    # PARTIAL_COMPARE_TOTAL: more weighted matches, then fewer chunks, then less distance.
    if m_a != m_b:
        return m_a > m_b
    if c_a != c_b:
        return c_a < c_b
    return d_a < d_b


@_jit
def _stable_order(n: int, msum: Any, chunks: Any, dist: Any) -> Any:
    """Indices 0..n-1 stably sorted by the path comparator (bottom-up merge sort)."""
    order = np.arange(n)
    tmp = np.empty(n, dtype=np.int64)
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
                a = order[i]
                b = order[j]
                # take from the right run only when strictly better: keeps the sort stable
                if _less(msum[b], chunks[b], dist[b], msum[a], chunks[a], dist[a]):
                    tmp[k] = b
                    j += 1
                else:
                    tmp[k] = a
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
        order, tmp = tmp, order
        width *= 2
    return order


@_jit
def _align(
    hyp: Any,
    ref: Any,
    hyp_ng: Any,
    ref_ng: Any,
    w_hash: Any,
    w_stem: Any,
    w_func: Any,
    syn_off: Any,
    syn_ids: Any,
    phrase_len: Any,
    group_off: Any,
    group_dst: Any,
    out: Any,
) -> None:
    """Align one hypothesis (``words1``) with one reference (``words2``); fill ``out`` (23 stats)."""
    nh = hyp.shape[0]
    nr = ref.shape[0]
    identical = nh == nr
    if identical:
        for k in range(nh):
            if w_hash[hyp[k]] != w_hash[ref[k]]:
                identical = False
                break
    # --- candidate matches, per reference position, in the Java module order ---
    cap = 64 + 4 * (nh + nr)
    c_start = np.empty(cap, dtype=np.int64)
    c_len = np.empty(cap, dtype=np.int64)
    c_mstart = np.empty(cap, dtype=np.int64)
    c_mlen = np.empty(cap, dtype=np.int64)
    c_mod = np.empty(cap, dtype=np.int64)
    pos_off = np.zeros(nr + 1, dtype=np.int64)
    n = 0
    for j in range(nr):
        b = ref[j]
        hb = w_hash[b]
        for module in range(4 if not identical else 1):
            if module <= 2:
                for i in range(nh):
                    a = hyp[i]
                    ha = w_hash[a]
                    if module == 0:
                        ok = ha == hb
                    elif module == 1:
                        ok = ha != hb and w_stem[a] == w_stem[b]
                    else:
                        ok = ha != hb and _synonym_overlap(a, b, syn_off, syn_ids)
                    if ok:
                        if n == cap:
                            cap *= 2
                            c_start = _grow(c_start, cap)
                            c_len = _grow(c_len, cap)
                            c_mstart = _grow(c_mstart, cap)
                            c_mlen = _grow(c_mlen, cap)
                            c_mod = _grow(c_mod, cap)
                        c_start[n] = j
                        c_len[n] = 1
                        c_mstart[n] = i
                        c_mlen[n] = 1
                        c_mod[n] = module
                        n += 1
                continue
            # paraphrase, direction 1: phrases of the reference starting at j
            for length in range(1, MAX_PHRASE + 1):
                if j + length > nr:
                    break
                pid = ref_ng[j, length - 1]
                if pid < 0:
                    continue
                for e in range(group_off[pid], group_off[pid + 1]):
                    d = group_dst[e]
                    dl = phrase_len[d]
                    for i in range(nh - dl + 1):
                        if hyp_ng[i, dl - 1] == d:
                            if n == cap:
                                cap *= 2
                                c_start = _grow(c_start, cap)
                                c_len = _grow(c_len, cap)
                                c_mstart = _grow(c_mstart, cap)
                                c_mlen = _grow(c_mlen, cap)
                                c_mod = _grow(c_mod, cap)
                            c_start[n] = j
                            c_len[n] = length
                            c_mstart[n] = i
                            c_mlen[n] = dl
                            c_mod[n] = 3
                            n += 1
            # paraphrase, direction 2: phrases of the hypothesis whose paraphrase starts at j
            for i in range(nh):
                for length in range(1, MAX_PHRASE + 1):
                    if i + length > nh:
                        break
                    pid = hyp_ng[i, length - 1]
                    if pid < 0:
                        continue
                    for e in range(group_off[pid], group_off[pid + 1]):
                        d = group_dst[e]
                        dl = phrase_len[d]
                        if j + dl <= nr and ref_ng[j, dl - 1] == d:
                            if n == cap:
                                cap *= 2
                                c_start = _grow(c_start, cap)
                                c_len = _grow(c_len, cap)
                                c_mstart = _grow(c_mstart, cap)
                                c_mlen = _grow(c_mlen, cap)
                                c_mod = _grow(c_mod, cap)
                            c_start[n] = j
                            c_len[n] = dl
                            c_mstart[n] = i
                            c_mlen[n] = length
                            c_mod[n] = 3
                            n += 1
        pos_off[j + 1] = n
    # --- coverage and definite matches ---
    cov1 = np.zeros(nh, dtype=np.int64)
    cov2 = np.zeros(nr, dtype=np.int64)
    for c in range(n):
        for k in range(c_mlen[c]):
            cov1[c_mstart[c] + k] += 1
        for k in range(c_len[c]):
            cov2[c_start[c] + k] += 1
    max_cands = 0
    for j in range(nr):
        max_cands = max(max_cands, pos_off[j + 1] - pos_off[j])
    # Paths live in a pool of rows; lists of row ids play the role of Java's ArrayLists,
    # so a path that moves on unchanged is never copied.
    pool = BEAM_SIZE * (max_cands + 1) + 1
    width_r = max(nr, 1)
    width_h = max(nh, 1)
    p_match = np.full((pool, width_r), -1, dtype=np.int64)
    p_u1 = np.zeros((pool, width_h), dtype=np.bool_)
    p_u2 = np.zeros((pool, width_r), dtype=np.bool_)
    p_m1 = np.zeros(pool, dtype=np.int64)
    p_m2 = np.zeros(pool, dtype=np.int64)
    p_chunks = np.zeros(pool, dtype=np.int64)
    p_idx = np.zeros(pool, dtype=np.int64)
    p_last = np.full(pool, -1, dtype=np.int64)
    p_dist = np.zeros(pool, dtype=np.int64)
    p_msum = np.zeros(pool, dtype=np.int64)
    free = np.arange(pool - 1, -1, -1)
    n_free = pool
    n_free -= 1
    start_row = free[n_free]
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
                    p_u2[start_row, j + k] = True
                for k in range(c_mlen[c]):
                    p_u1[start_row, c_mstart[c] + k] = True
    paths = np.empty(pool, dtype=np.int64)
    nexts = np.empty(pool, dtype=np.int64)
    nexts[0] = start_row
    n_next = 1
    for cur in range(nr + 1):
        paths, nexts = nexts, paths
        n_paths = n_next
        for r in range(n_paths):
            row = paths[r]
            p_msum[r] = p_m1[row] + p_m2[row]
        order = _stable_order(n_paths, p_msum, _gather(p_chunks, paths, n_paths), _gather(p_dist, paths, n_paths))
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
            if p_u2[p, cur]:
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
                    if p_u2[p, c_start[c] + k]:
                        used = True
                for k in range(c_mlen[c]):
                    if p_u1[p, c_mstart[c] + k]:
                        used = True
                if used:
                    continue
                n_free -= 1
                q = free[n_free]
                p_match[q, :] = p_match[p, :]
                p_u1[q, :] = p_u1[p, :]
                p_u2[q, :] = p_u2[p, :]
                p_chunks[q] = p_chunks[p]
                p_dist[q] = p_dist[p]
                for k in range(c_len[c]):
                    p_u2[q, c_start[c] + k] = True
                for k in range(c_mlen[c]):
                    p_u1[q, c_mstart[c] + k] = True
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
            row = paths[order[0]]
            for k in range(n_free):
                if free[k] == row:
                    free[k] = free[n_free - 1]
                    n_free -= 1
                    break
            nexts[0] = row
            n_next = 1
    for r in range(n_next):
        row = nexts[r]
        p_msum[r] = p_m1[row] + p_m2[row]
    order = _stable_order(n_next, p_msum, _gather(p_chunks, nexts, n_next), _gather(p_dist, nexts, n_next))
    best = nexts[order[0]]
    # --- statistics of the best alignment ---
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
        c = p_match[best, j]
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


@_jit
def _gather(values: Any, rows: Any, n: int) -> Any:
    out = np.empty(n, dtype=np.int64)
    for r in range(n):
        out[r] = values[rows[r]]
    return out


@_jit
def _grow(arr: Any, cap: int) -> Any:
    out = np.empty(cap, dtype=arr.dtype)
    out[: arr.shape[0]] = arr
    return out


@_jit
def meteor_item_stats(
    item_hyp: Any,
    ref_off: Any,
    ref_sent: Any,
    sent_off: Any,
    sent_words: Any,
    ngrams: Any,
    w_hash: Any,
    w_stem: Any,
    w_func: Any,
    syn_off: Any,
    syn_ids: Any,
    phrase_len: Any,
    group_off: Any,
    group_dst: Any,
) -> Any:
    """Statistics rows of the best reference of each item (highest score, earliest on ties).

    Returns:
        float64 array ``(n_items, N_STATS)`` in the SCORE-line layout; the chunks column is
        zeroed for perfect segments so that column sums reproduce METEOR's aggregate.
    """
    n_items = item_hyp.shape[0]
    result = np.zeros((n_items, N_STATS), dtype=np.float64)
    row = np.zeros(N_STATS, dtype=np.float64)
    for it in range(n_items):
        h = item_hyp[it]
        hyp = sent_words[sent_off[h] : sent_off[h + 1]]
        hyp_ng = ngrams[sent_off[h] : sent_off[h + 1]]
        best = -1.0
        for r_i in range(ref_off[it], ref_off[it + 1]):
            r = ref_sent[r_i]
            ref = sent_words[sent_off[r] : sent_off[r + 1]]
            ref_ng = ngrams[sent_off[r] : sent_off[r + 1]]
            _align(hyp, ref, hyp_ng, ref_ng, w_hash, w_stem, w_func, syn_off, syn_ids, phrase_len, group_off,
                   group_dst, row)
            score = segment_score(row)
            if score > best:
                best = score
                result[it, :] = row
        st = result[it]
        t_total = st[4] + st[6] + st[8] + st[10] + st[12] + st[14] + st[16] + st[18]
        r_total = st[5] + st[7] + st[9] + st[11] + st[13] + st[15] + st[17] + st[19]
        if t_total == st[0] and r_total == st[1] and st[20] == 1.0:
            # MeteorStats.addStats leaves out the chunk of a perfect segment.
            st[20] = 0.0
    return result
