"""The exhaustive CKY chart of CoreNLP 3.6.0's PCFG parser, and its best tree, as numba kernels.

Scores are float32 and every sum is the float32 sum Java computes, in Java's order: a binary
candidate is ``(rule + left) + right``, a unary step ``child + closed rule``. A cell's binary
scores are a plain maximum over rules and splits, so any loop order gives Java's value; here
the loop runs, per split, over the left cell's states that are the left child of some rule, and
their rules, without branches. The unary pass then walks the cell's states in ascending id,
applying the closed unary rules, exactly as Java does (a parent raised from a lower-numbered
child is later processed with its new value).

Cells are rows of one float32 matrix, indexed by :func:`cell_index`; each cell also keeps a
bit set of its finite states and the list of those that are some rule's left child (rows of
preallocated matrices), so that nothing is allocated per cell. The best tree is read from the
chart as CoreNLP's k-best code does for k = 1: at every vertex the first candidate, in
CoreNLP's enumeration order, whose score (summed in double) is the largest.

Speed: about 6 times Java's chart on COCO captions (CPU time, ``bench/bench_spice_parse.py``).
Other loop shapes were measured and were not faster here: Java's own (each rule once per cell,
its splits bounded by where its children occur), a per-cell expansion of the left cell's rules,
compact right-child and parent numberings, a branch-free filter on the right child's presence.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from capeval.metrics._numba import helper, jit

__all__ = ["best_tree", "cell_index", "compile_kernels", "inside", "num_cells", "presence_words"]

_NEG_INF = np.float32(-np.inf)

#: Node kinds of :func:`best_tree`'s output.
NODE_TAG = 0
NODE_BINARY = 1
NODE_UNARY = 2


@helper
def cell_index(i: int, j: int, n: int) -> int:  # pragma: no cover - compiled
    """Row of span [i, j) (0 <= i < j <= n) in the chart: the spans in order of start, then end."""
    return i * n - (i * (i - 1)) // 2 + (j - i - 1)


def num_cells(n: int) -> int:
    """Number of spans of a chart over ``n`` positions."""
    return n * (n + 1) // 2


#: Bits of one presence word.
_WORD = 64
#: de Bruijn sequence for the index of a 64-bit word's lowest set bit.
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.array(
    [
        0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4,
        62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
        63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
        46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6,
    ],
    dtype=np.int64,
)  # fmt: skip


def presence_words(num_states: int) -> int:
    """Number of 64-bit words of a cell's presence bit set."""
    return (num_states + _WORD - 1) // _WORD


@helper
def _lowest_bit(x: np.uint64) -> int:  # pragma: no cover - compiled
    """Index of the lowest set bit of a non-zero word."""
    low = x & (~x + np.uint64(1))
    return _DEBRUIJN_INDEX[(low * _DEBRUIJN) >> np.uint64(58)]


@helper
def _unary_pass(
    cell: Any, bits: Any, closed_ptr: Any, closed_parent: Any, closed_score: Any
) -> None:  # pragma: no cover - compiled
    """Java's unary pass: states in ascending id, each with its value when the pass reaches it.

    The finite states are found through the presence bits; a parent first made finite here is
    visited later only if its id is higher than the child's (as in Java's loop over all ids).
    """
    one = np.uint64(1)
    for w in range(bits.shape[0]):
        done = np.uint64(0)
        while True:
            rest = bits[w] & ~done
            if rest == np.uint64(0):
                break
            b = _lowest_bit(rest)
            # every id up to this one is now behind the loop
            done = (one << np.uint64(b)) | ((one << np.uint64(b)) - one)
            s = np.uint64(w * _WORD + b)
            v = cell[s]
            for k in range(closed_ptr[s], closed_ptr[s + one]):
                p = closed_parent[k]
                t = v + closed_score[k]
                if t > cell[p]:
                    cell[p] = t
                    bits[p >> np.uint32(6)] |= one << np.uint64(p & np.uint32(63))


@helper
def _presence(cell: Any, bits: Any) -> None:  # pragma: no cover - compiled
    """Set the presence bits of a cell from its scores (finite = present)."""
    size = cell.shape[0]
    for w in range(bits.shape[0]):
        word = np.uint64(0)
        base = w * _WORD
        for b in range(min(_WORD, size - base)):
            word |= np.uint64(cell[base + b] != _NEG_INF) << np.uint64(b)
        bits[w] = word


@helper
def _collect(bits: Any, is_left: Any, left_row: Any) -> int:  # pragma: no cover - compiled
    """List the cell's states that are some rule's left child in ``left_row``; returns their number."""
    left = 0
    for w in range(bits.shape[0]):
        word = bits[w]
        while word != np.uint64(0):
            s = w * _WORD + _lowest_bit(word)
            word &= word - np.uint64(1)
            if is_left[s]:
                left_row[left] = s
                left += 1
    return left


@jit
def inside(
    chart: Any,
    bits: Any,
    left_present: Any,
    n_left: Any,
    n: int,
    lex_ptr: Any,
    lex_state: Any,
    lex_score: Any,
    left_ptr: Any,
    left_right: Any,
    left_parent: Any,
    left_score: Any,
    closed_ptr: Any,
    closed_parent: Any,
    closed_score: Any,
    is_left: Any,
) -> None:  # pragma: no cover - compiled
    """Fill the inside chart of a sentence of ``n`` positions (tokens and the boundary).

    The binary phase of a cell runs, per split, over the left cell's states that are some
    rule's left child and over their rules, without branches: a rule whose right child is
    absent from the right cell sums to minus infinity and changes nothing. Indices into the
    rule and state arrays are unsigned, so that the compiled loop carries no negative-index
    handling.

    Args:
        chart: float32 ``(cells, states)``; every row this sentence uses is overwritten.
        bits: uint64 ``(cells, presence_words)``: per cell, which states are finite.
        left_present, n_left: per cell, its finite states that are some rule's left child (a row
            of int16 state ids) and their number.
        lex_ptr, lex_state, lex_score: per position, the tag states and scores (CSR).
        left_ptr, left_right, left_parent, left_score: binary rules grouped by left child
            (uint64 pointers; uint32 right children and parents; float32 scores).
        closed_ptr, closed_parent, closed_score: closed unary rules grouped by child (uint64
            pointers, uint32 parents, float32 scores).
        is_left: per state, whether it is some binary rule's left child.
    """
    one = np.uint64(1)
    for c in range(n * (n + 1) // 2):
        chart[c, :] = _NEG_INF
        bits[c, :] = 0
        n_left[c] = 0
    for i in range(n):
        c = cell_index(i, i + 1, n)
        cell = chart[c]
        cbits = bits[c]
        for k in range(lex_ptr[i], lex_ptr[i + 1]):
            s = lex_state[k]
            cell[s] = lex_score[k]
            cbits[s >> 6] |= one << np.uint64(s & 63)
        _unary_pass(cell, cbits, closed_ptr, closed_parent, closed_score)
        n_left[c] = _collect(cbits, is_left, left_present[c])
    for diff in range(2, n + 1):
        last_start = 0 if diff == n else n - diff - 1
        for start in range(last_start + 1):
            end = start + diff
            c = cell_index(start, end, n)
            cell = chart[c]
            cbits = bits[c]
            for split in range(start + 1, end):
                lc = cell_index(start, split, n)
                lcell = chart[lc]
                rcell = chart[cell_index(split, end, n)]
                lrow = left_present[lc]
                for a in range(n_left[lc]):
                    left = np.uint64(lrow[a])
                    lv = lcell[left]
                    for k in range(left_ptr[left], left_ptr[left + one]):
                        t = (left_score[k] + lv) + rcell[left_right[k]]
                        p = left_parent[k]
                        cur = cell[p]
                        cell[p] = t if t > cur else cur
            _presence(cell, cbits)
            _unary_pass(cell, cbits, closed_ptr, closed_parent, closed_score)
            n_left[c] = _collect(cbits, is_left, left_present[c])


@jit
def best_tree(
    chart: Any,
    n: int,
    goal: int,
    is_tag: Any,
    bin_ptr: Any,
    bin_left: Any,
    bin_right: Any,
    bin_score: Any,
    un_ptr: Any,
    un_child: Any,
    un_score: Any,
    out: Any,
) -> int:  # pragma: no cover - compiled
    """Write the best tree in preorder into ``out`` (rows ``state, start, end, kind``); returns its size.

    At a vertex (state, i, j) the candidates are, in this order: the word, for a tag over one
    position; every binary rule of the state (in grammar order) at every split (ascending,
    split-major); every core unary rule of the state (in Java's order). Each candidate scores
    the rule's score plus its children's inside scores, summed in double; the first candidate
    with the largest score wins. Returns -1 if ``out`` is too small.

    Args:
        bin_ptr, bin_left, bin_right, bin_score: binary rules grouped by parent, grammar order.
        un_ptr, un_child, un_score: core unary rules grouped by parent, Java's order.
    """
    stack = np.empty((out.shape[0] + 2, 3), dtype=np.int64)
    stack[0, 0] = goal
    stack[0, 1] = 0
    stack[0, 2] = n
    top = 1
    size = 0
    while top > 0:
        top -= 1
        state = stack[top, 0]
        i = stack[top, 1]
        j = stack[top, 2]
        if size >= out.shape[0]:
            return -1
        row = out[size]
        size += 1
        row[0] = state
        row[1] = i
        row[2] = j
        if is_tag[state] and j == i + 1:
            row[3] = NODE_TAG
            continue
        best = -np.inf
        kind = -1
        arg = -1
        arg_split = -1
        for split in range(i + 1, j):
            lcell = chart[cell_index(i, split, n)]
            rcell = chart[cell_index(split, j, n)]
            for k in range(bin_ptr[state], bin_ptr[state + 1]):
                x = np.float64(bin_score[k]) + np.float64(lcell[bin_left[k]]) + np.float64(rcell[bin_right[k]])
                if x > best:
                    best = x
                    kind = NODE_BINARY
                    arg = k
                    arg_split = split
        cell = chart[cell_index(i, j, n)]
        for k in range(un_ptr[state], un_ptr[state + 1]):
            x = np.float64(un_score[k]) + np.float64(cell[un_child[k]])
            if x > best:
                best = x
                kind = NODE_UNARY
                arg = k
        if kind < 0:
            return -2
        row[3] = kind
        if top + 2 > stack.shape[0]:
            return -1
        if kind == NODE_BINARY:
            # right first, so that the left child is expanded (and written) first
            stack[top, 0] = bin_right[arg]
            stack[top, 1] = arg_split
            stack[top, 2] = j
            stack[top + 1, 0] = bin_left[arg]
            stack[top + 1, 1] = i
            stack[top + 1, 2] = arg_split
            top += 2
        else:
            stack[top, 0] = un_child[arg]
            stack[top, 1] = i
            stack[top, 2] = j
            top += 1
    return size


def compile_kernels() -> None:
    """Run the kernels once on a toy grammar with the argument types of real use.

    This compiles them (or loads numba's cache) without CoreNLP's grammar, which is not shipped:
    the wheel build calls it (:mod:`capeval.engines.precompile`) so that an installed parser
    compiles nothing on its first sentence.
    """
    num_states, n = 3, 2  # states: 0 = goal, 1 = tag, 2 = phrase; rule 0 -> 1 2 and 2 -> 1
    words = presence_words(num_states)
    cells = num_cells(n)
    chart = np.empty((cells, num_states), dtype=np.float32)
    bits = np.empty((cells, words), dtype=np.uint64)
    left_present = np.empty((cells, num_states), dtype=np.int16)
    n_left = np.empty(cells, dtype=np.int32)
    inside(
        chart,
        bits,
        left_present,
        n_left,
        n,
        np.array([0, 1, 2], dtype=np.int64),
        np.array([1, 1], dtype=np.int32),
        np.array([-1.0, -1.0], dtype=np.float32),
        np.array([0, 0, 1, 1], dtype=np.uint64),
        np.array([2], dtype=np.uint32),
        np.array([0], dtype=np.uint32),
        np.array([-0.5], dtype=np.float32),
        np.array([0, 0, 1, 1], dtype=np.uint64),
        np.array([2], dtype=np.uint32),
        np.array([-0.25], dtype=np.float32),
        np.array([False, True, False]),
    )
    out = np.empty((16, 4), dtype=np.int64)
    best_tree(
        chart,
        n,
        0,
        np.array([False, True, False]),
        np.array([0, 1, 1, 1], dtype=np.int64),
        np.array([1], dtype=np.int32),
        np.array([2], dtype=np.int32),
        np.array([-0.5], dtype=np.float32),
        np.array([0, 0, 0, 1], dtype=np.int64),
        np.array([1], dtype=np.int32),
        np.array([-0.25], dtype=np.float32),
        out,
    )
