"""CoreNLP 3.6.0's ``englishPCFG`` parser as SPICE runs it: tokens of one sentence in, Penn tree out.

:class:`PCFGParser` gives, for the tokens CoreNLP's tokenizer made of a sentence, the tree
string CoreNLP prints (``Tree.toString()``), tags included::

    (ROOT (S (NP (DT a) (NN man)) (VP (VBZ rides) (NP (DT a) (NN horse)))))

The steps are CoreNLP's: each token is americanized and looked up in the lexicon, a boundary
token ends the sentence, the exhaustive chart is filled (:mod:`.chart`), a sentence without
any parse is parsed again with every tag allowed for every word ("flood" recovery), the best
tree is read off as CoreNLP's k-best code does for k = 1, and then the binarization states are
spliced out, the boundary is removed, labels are reduced to their basic category (``NP-TMP``
kept) and the leaves are the tokens as given.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .americanize import americanize
from .chart import NODE_BINARY, NODE_TAG, NODE_UNARY, best_tree, inside, num_cells, presence_words
from .grammar import Grammar, GrammarError
from .lexicon import Lexicon

__all__ = ["PCFGParser", "basic_category", "final_label", "render_tree"]

#: Characters that start an annotation in a Penn Treebank label (``NP^S``, ``NN-TMP``, ``VP|…``).
_ANNOTATION_CHARS = frozenset("-=|#^~_[")
#: Default number of parsed sentences remembered (repeated sentences are not parsed again).
DEFAULT_CACHE_SIZE = 1 << 16
#: The boundary word CoreNLP adds at the end of every sentence, and its preterminal as printed.
_BOUNDARY_WORD = ".$."
_BOUNDARY_LEAF = "(.$$. .$.)"


def basic_category(label: str) -> str:
    """The label up to its first annotation character, as the Penn Treebank language pack cuts it.

    A character at position 0 never cuts; when the label starts with an annotation character,
    the next occurrence of that same character (at position 2 or later) does not cut either,
    so bracket tags keep their name.

    >>> [basic_category(x) for x in ("NP^S-B", "-LRB-^PRN", "PRP$^NP", "#^QP", "NN-TMP^NP", "ROOT")]
    ['NP', '-LRB-', 'PRP$', '#', 'NN', 'ROOT']
    """
    opener = ""
    for i, ch in enumerate(label):
        if ch not in _ANNOTATION_CHARS:
            continue
        if i == 0:
            opener = ch
        elif opener and i > 1 and ch == opener:
            opener = ""
        else:
            return label[:i]
    return label


def final_label(state: str, *, preterminal: bool) -> str:
    """A node's label in the final tree: the basic category, and ``-TMP`` kept on phrases.

    >>> final_label("NP-TMP^ROOT-B", preterminal=False), final_label("NN-TMP^NP", preterminal=True)
    ('NP-TMP', 'NN')
    """
    base = basic_category(state)
    if not preterminal and "-TMP" in state:
        return base + "-TMP"
    return base


#: Longest sentence (in positions: tokens and the boundary) whose chart buffers a thread keeps for
#: the next sentence (about 55 MB); longer ones get buffers of their own, freed after parsing.
_KEEP_POSITIONS = 40


class _Workspace:
    """Chart buffers of one thread, grown to the longest sentence seen."""

    def __init__(self, num_states: int, left_width: int) -> None:
        self.num_states = num_states
        self.left_width = left_width
        self.capacity = 0
        self.chart = np.empty((0, num_states), dtype=np.float32)
        self.left_present = np.empty((0, left_width), dtype=np.int16)
        self.bits = np.empty((0, presence_words(num_states)), dtype=np.uint64)
        self.n_left = np.empty(0, dtype=np.int32)
        self.tree = np.empty((0, 4), dtype=np.int64)

    def ensure(self, n: int) -> None:
        if n <= self.capacity:
            return
        cells = num_cells(n)
        words = presence_words(self.num_states)
        try:
            self.chart = np.empty((cells, self.num_states), dtype=np.float32)
            self.left_present = np.empty((cells, self.left_width), dtype=np.int16)
            self.bits = np.empty((cells, words), dtype=np.uint64)
        except MemoryError:
            size = cells * (4 * self.num_states + 2 * self.left_width + 8 * words) / 2**30
            raise MemoryError(f"a sentence of {n - 1} tokens needs {size:.1f} GiB for its parse chart") from None
        self.n_left = np.empty(cells, dtype=np.int32)
        self.tree = np.empty((16 * n + 64, 4), dtype=np.int64)
        self.capacity = n


def _grouped(
    keys: npt.NDArray[np.int32], size: int, *columns: npt.NDArray[Any], within: npt.NDArray[Any] | None = None
) -> tuple[npt.NDArray[np.int64], list[npt.NDArray[Any]]]:
    """Rows grouped by ``keys``, as CSR pointers + columns.

    Within a group, rows keep their original order, or are sorted by ``within`` if given.
    """
    order = np.argsort(keys, kind="stable") if within is None else np.lexsort((within, keys))
    ptr = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=size), out=ptr[1:])
    return ptr, [np.ascontiguousarray(col[order]) for col in columns]


class PCFGParser:
    """CoreNLP 3.6.0's exhaustive PCFG parser on a converted ``englishPCFG`` grammar.

    Parsing one sentence is thread-safe (each thread has its own chart). The parser pickles
    small when its grammar was loaded from a file (a process reloads the file, checking its
    sha256) and with the grammar's arrays otherwise.

    Args:
        grammar: the converted grammar (:meth:`Grammar.from_ser_gz` or :meth:`Grammar.load`).
        cache_size: how many parsed sentences to remember (0 turns the cache off).
    """

    def __init__(self, grammar: Grammar, *, cache_size: int = DEFAULT_CACHE_SIZE) -> None:
        self.grammar = grammar
        self.cache_size = cache_size
        self._setup()

    def _setup(self) -> None:
        g = self.grammar
        s = g.num_states
        self.lexicon = Lexicon(g)
        # unsigned pointers and ids: the chart kernel's hot loops then need no negative-index handling
        left_ptr, (left_right, left_parent, self._left_score) = _grouped(
            g.binary_left, s, g.binary_right, g.binary_parent, g.binary_score, within=g.binary_right
        )
        self._left_ptr = left_ptr.astype(np.uint64)
        self._left_right = left_right.astype(np.uint32)
        self._left_parent = left_parent.astype(np.uint32)
        self._is_left = np.zeros(s, dtype=np.bool_)
        self._is_left[g.binary_left] = True
        self._left_width = int(self._is_left.sum())
        closed_ptr, (closed_parent, self._closed_score) = _grouped(g.closed_child, s, g.closed_parent, g.closed_score)
        self._closed_ptr = closed_ptr.astype(np.uint64)
        self._closed_parent = closed_parent.astype(np.uint32)
        self._bin_ptr, (self._bin_left, self._bin_right, self._bin_score) = _grouped(
            g.binary_parent, s, g.binary_left, g.binary_right, g.binary_score
        )
        self._un_ptr, (self._un_child, self._un_score) = _grouped(g.unary_parent, s, g.unary_child, g.unary_score)
        self._is_tag = g.is_tag
        self._tag_state = g.tag_state
        states = g.states
        self._labels = [final_label(name, preterminal=bool(tag)) for name, tag in zip(states, g.is_tag, strict=True)]
        self._spliced = ["@" in name for name in states]
        boundary_tags, boundary_scores = self.lexicon.candidates(_BOUNDARY_WORD, 0)
        self._boundary = (self._tag_state[boundary_tags], boundary_scores)
        self._local = threading.local()
        self._cache: OrderedDict[tuple[str, ...], str] = OrderedDict()
        self._cache_lock = threading.Lock()

    # -- pickling ------------------------------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        g = self.grammar
        path = getattr(g, "source_path", None)
        if path is not None:
            return {"path": str(path), "sha256": g.sha256, "cache_size": self.cache_size}
        return {"grammar": g.to_arrays(), "sha256": g.sha256, "cache_size": self.cache_size}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.cache_size = state["cache_size"]
        if "path" in state:
            grammar = Grammar.load(Path(state["path"]))
            if grammar.sha256 != state["sha256"]:
                raise GrammarError(
                    f"{state['path']}: the grammar file changed (sha256 {grammar.sha256}, expected {state['sha256']})"
                )
        else:
            grammar = Grammar(state["grammar"], state["sha256"])
        self.grammar = grammar
        self._setup()

    # -- parsing -------------------------------------------------------------------------------

    def _workspace(self, n: int) -> _Workspace:
        ws: _Workspace | None = getattr(self._local, "ws", None) if n <= _KEEP_POSITIONS else None
        if ws is None:
            ws = _Workspace(self.grammar.num_states, self._left_width)
            if n <= _KEEP_POSITIONS:
                self._local.ws = ws
        ws.ensure(n)
        return ws

    def _lexical(self, words: Sequence[str], flood: bool) -> tuple[npt.NDArray[np.int64], Any, Any]:
        states: list[npt.NDArray[np.int32]] = []
        scores: list[npt.NDArray[np.float32]] = []
        for loc, word in enumerate(words):
            key = americanize(word)
            if flood and key != _BOUNDARY_WORD:  # CoreNLP floods every word but the boundary word
                states.append(self._tag_state)
                scores.append(self.lexicon.flood(key, loc))
            else:
                tags, tag_scores = self.lexicon.candidates(key, loc)
                states.append(self._tag_state[tags])
                scores.append(tag_scores)
        states.append(self._boundary[0])
        scores.append(self._boundary[1])
        ptr = np.zeros(len(states) + 1, dtype=np.int64)
        np.cumsum([len(x) for x in states], out=ptr[1:])
        return ptr, np.concatenate(states).astype(np.int32), np.concatenate(scores).astype(np.float32)

    def _chart(self, words: Sequence[str], ws: _Workspace, flood: bool) -> None:
        ptr, lex_states, lex_scores = self._lexical(words, flood)
        inside(
            ws.chart,
            ws.bits,
            ws.left_present,
            ws.n_left,
            len(words) + 1,
            ptr,
            lex_states,
            lex_scores,
            self._left_ptr,
            self._left_right,
            self._left_parent,
            self._left_score,
            self._closed_ptr,
            self._closed_parent,
            self._closed_score,
            self._is_left,
        )

    def parse(self, words: Sequence[str]) -> str:
        """The Penn tree CoreNLP 3.6.0 gives the tokens of one sentence.

        Args:
            words: the sentence's tokens as CoreNLP's tokenizer writes them (PTB-escaped, such as
                ``-LRB-``, ``n't``; case preserved).

        Returns:
            The tree as ``Tree.toString()`` prints it; the leaves are the tokens as given.

        Raises:
            ValueError: no tokens, or a token that is not a non-empty string.
        """
        key = tuple(words)
        if not key:
            raise ValueError("cannot parse an empty sentence (no tokens)")
        for i, word in enumerate(key):
            if not isinstance(word, str) or not word:
                raise ValueError(f"token {i} of {key!r:.200} is not a non-empty string")
        if self.cache_size:
            with self._cache_lock:
                hit = self._cache.get(key)
                if hit is not None:
                    self._cache.move_to_end(key)
                    return hit
        tree = self._parse(key)
        if self.cache_size:
            with self._cache_lock:
                self._cache[key] = tree
                if len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return tree

    def parse_many(self, sentences: Iterable[Sequence[str]]) -> list[str]:
        """:meth:`parse` of every sentence, in order."""
        return [self.parse(words) for words in sentences]

    def _parse(self, words: tuple[str, ...]) -> str:
        n = len(words) + 1
        ws = self._workspace(n)
        self._chart(words, ws, flood=False)
        goal = self.grammar.goal_state
        root = ws.chart[n - 1, goal]  # the span [0, n) (row n - 1: see chart.cell_index)
        if root == -np.inf:
            self._chart(words, ws, flood=True)
            if ws.chart[n - 1, goal] == -np.inf:
                # no parse even so (only the boundary word ".$." as a token does that): CoreNLP's
                # ParserAnnotator then gives every token the tag XX under an X node
                return "(X " + " ".join(f"(XX {word})" for word in words) + ")"
        size = best_tree(
            ws.chart,
            n,
            goal,
            self._is_tag,
            self._bin_ptr,
            self._bin_left,
            self._bin_right,
            self._bin_score,
            self._un_ptr,
            self._un_child,
            self._un_score,
            ws.tree,
        )
        if size < 0:
            raise RuntimeError(f"no tree could be read from the chart of {words!r:.200} (code {size})")
        return render_tree(ws.tree[:size].tolist(), words, self._labels, self._spliced)


def render_tree(
    rows: Sequence[Sequence[int]], words: Sequence[str], labels: Sequence[str], spliced: Sequence[bool]
) -> str:
    """The final tree string of a binarized tree, as CoreNLP post-processes and prints it.

    Nodes whose state is a binarization state (``@…``) are replaced by their children, the
    boundary preterminal ending the root's children is dropped, every other node gets its
    final label, and the leaves are the tokens as given.

    Args:
        rows: the binarized tree in preorder, one ``(state, start, end, kind)`` per node, as
            :func:`.chart.best_tree` writes it (``kind``: tag over a word, binary, unary).
        words: the sentence's tokens (the position after the last is the boundary).
        labels: the final label of every state (:func:`final_label`).
        spliced: per state, whether it is a binarization state.
    """
    stack: list[list[str]] = []
    last = len(rows) - 1
    for index, (state, start, _end, kind) in enumerate(reversed(rows)):
        if kind == NODE_TAG:
            word = words[start] if start < len(words) else _BOUNDARY_WORD
            stack.append([f"({labels[state]} {word})"])
            continue
        if kind == NODE_BINARY:
            left = stack.pop()
            children = left + stack.pop()
        elif kind == NODE_UNARY:
            children = stack.pop()
        else:
            raise ValueError(f"unknown node kind {kind}")
        if index == last and children and children[-1] == _BOUNDARY_LEAF:
            children.pop()  # the root: CoreNLP removes the boundary it added
        if spliced[state]:
            stack.append(children)
        else:
            stack.append([f"({labels[state]} {' '.join(children)})"])
    if len(stack) != 1 or len(stack[0]) != 1:
        raise ValueError("the rows are not one tree with a root that is kept")
    return stack[0][0]
