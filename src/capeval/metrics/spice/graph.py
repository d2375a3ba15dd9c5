"""Scene graphs as SPICE 1.0 builds them: concepts, nodes, attributes, edges, merging.

A caption's raw tuples (``[object]``, ``[object, attribute]``,
``[subject, object, predicate]``) are replayed into a :class:`SceneGraph`. The candidate
gets its own graph; all references of an item are replayed, caption after caption, into
one graph (their union). With synonym merging on, a new object is folded into the most
similar existing node (shared word or shared WordNet synset), an attribute into the first
similar attribute of its node, and a relation into the first similar relation between the
same two nodes, exactly as ``edu.anu.spice.SceneGraph`` does.

Departure from the official code, by necessity: Java iterates nodes and attributes in hash
order (identity hash codes for nodes), which can change between runs; here everything is
iterated in insertion order. This only decides which of several *equally* similar nodes
receives a merge.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "Concept",
    "Edge",
    "Node",
    "SceneGraph",
    "SynsetLookup",
    "graph_tuples",
    "java_string_hash",
    "tuple_sort_key",
]

#: Function mapping a concept string to its synset ids (empty set when synonyms are off).
SynsetLookup = Callable[[str], frozenset[int]]

#: ``SceneGraph.addRelation`` strips a leading "be " from predicates (SPICE 1.0).
_LEADING_BE = re.compile(r"^be ")


def java_string_hash(text: str) -> int:
    """``String.hashCode()`` (over UTF-16 code units), as an unsigned 32-bit value."""
    h = 0
    if text.isascii():
        for ch in text.encode("ascii"):
            h = (31 * h + ch) & 0xFFFFFFFF
        return h
    data = text.encode("utf-16-be")
    for k in range(0, len(data), 2):
        h = (31 * h + (data[k] << 8 | data[k + 1])) & 0xFFFFFFFF
    return h


def java_string_key(text: str) -> str | bytes:
    """A sort key that orders strings as ``String.compareTo`` does (by UTF-16 code unit)."""
    return text if all(ord(c) < 0x10000 for c in text) else text.encode("utf-16-be")


def _float_ratio(numerator: int, denominator: int) -> float:
    """``(float) a / (float) b`` in Java: the quotient rounded to single precision."""
    return float(np.float32(numerator / denominator))


class Concept:
    """A set of words plus a set of WordNet synset ids (``SemanticConcept``).

    The words are kept in the order Java's ``HashSet<String>`` iterates them (bucket of the
    string's hash in a table of 16 slots, doubled past three quarters full; insertion order
    within a bucket), because that order is what the jar prints ("gray/grey") and sorts tuples
    by. ``word_set`` is the same words as a set, for comparisons.

    Args:
        words: The concept's words, in insertion order.
        synsets: WordNet synset ids.
    """

    __slots__ = ("_capacity", "_inserted", "synsets", "text", "word_set", "words")

    def __init__(self, words: list[str], synsets: frozenset[int] = frozenset()) -> None:
        self._inserted: list[str] = []
        self._capacity = 16
        self.synsets = synsets
        self._add(words)

    def _add(self, words: Iterable[str]) -> None:
        known = set(self._inserted)
        for word in words:
            if word not in known:
                known.add(word)
                self._inserted.append(word)
        while len(self._inserted) > self._capacity * 0.75:
            self._capacity *= 2
        mask = self._capacity - 1
        slots = {w: (_spread(java_string_hash(w)) & mask, k) for k, w in enumerate(self._inserted)}
        self.words = sorted(self._inserted, key=slots.__getitem__)
        self.word_set = frozenset(self.words)
        self.text = "/".join(self.words)

    def __repr__(self) -> str:
        return f"Concept({self.words!r}, {set(self.synsets)!r})"

    @classmethod
    def of(cls, word: str, lookup: SynsetLookup | None) -> Concept:
        """A single-word concept with its synsets (none when ``lookup`` is ``None``)."""
        return cls([word], lookup(word) if lookup is not None else frozenset())

    def equals(self, other: Concept) -> bool:
        """Same words and same synsets (``SemanticConcept.equals``)."""
        return self.word_set == other.word_set and self.synsets == other.synsets

    def similar(self, other: Concept) -> bool:
        """Shared synset or shared word (``SemanticConcept.similarTo``)."""
        return not self.word_set.isdisjoint(other.word_set) or not self.synsets.isdisjoint(other.synsets)

    def similarity(self, other: Concept) -> float:
        """1 for a shared word, else Jaccard of the synsets in single precision (NaN for two empty sets)."""
        if not self.word_set.isdisjoint(other.word_set):
            return 1.0
        union = len(self.synsets | other.synsets)
        if union == 0:
            return math.nan
        return _float_ratio(len(self.synsets & other.synsets), union)

    def merge(self, other: Concept) -> None:
        """Union of words (added in ``other``'s iteration order) and synsets, in place."""
        self._add(other.words)
        self.synsets = self.synsets | other.synsets

    def sort_key(self) -> tuple[list[str | bytes], list[int]]:
        """``SemanticConcept.compareTo``: the words lexicographically in iteration order, then
        the synsets (sorted here: they only decide between concepts with the same words)."""
        return [java_string_key(w) for w in self.words], sorted(self.synsets)

    def __str__(self) -> str:
        """Words joined by ``/`` in iteration order, the form category word lists are tested against."""
        return self.text


def _spread(h: int) -> int:
    """``HashMap.hash``: the high half folded into the low half."""
    return h ^ (h >> 16)


@dataclass
class Node:
    """An object of the scene with its attributes."""

    concept: Concept
    attributes: list[Concept] = field(default_factory=list)


@dataclass
class Edge:
    """A relation between two nodes."""

    source: Node
    target: Node
    relation: Concept


class SceneGraph:
    """One caption's (or one item's merged references') scene graph.

    Two decisions depend, in the jar, on the iteration order of identity-hashed sets, which
    changes from run to run: which of several *equally* similar nodes a new object merges
    into, and which of several similar attributes of a node a new attribute merges into.
    Here the first in insertion order is taken; ``choose`` can take another (the jar's own
    outputs show both), and :attr:`ties` counts such decisions.

    Args:
        lookup: Concept string -> synset ids; ``None`` disables synsets.
        merge: Merge similar concepts (SPICE's default; off with ``-noSynsets``).
        choose: Given the number of tied candidates (2 or more), the index of the one to take.

    Example:
        >>> g = SceneGraph(lookup=None, merge=False)
        >>> g.add_relation("man", "horse", "be on")
        >>> [str(e.relation) for e in g.edges]
        ['on']
    """

    def __init__(
        self, lookup: SynsetLookup | None, merge: bool = True, choose: Callable[[int], int] | None = None
    ) -> None:
        self.lookup = lookup
        self.merge = merge
        self.choose = choose
        self.ties = 0
        self.nodes: list[Node] = []
        self.edges: list[Edge] = []

    def _pick(self, count: int) -> int:
        if count < 2:
            return 0
        self.ties += 1
        return self.choose(count) if self.choose is not None else 0

    def _concept(self, word: str) -> Concept:
        return Concept.of(word, self.lookup)

    def node_for(self, word: str) -> Node:
        """``getOrAddNode``: an equal node, else (merging) the most similar node, else a new one."""
        concept = self._concept(word)
        best: list[Node] = []
        best_similarity = 0.0
        for node in self.nodes:
            if node.concept.equals(concept):
                return node
            similarity = node.concept.similarity(concept)
            # Strictly greater wins (NaN never does); equals ties.
            if similarity > best_similarity:
                best, best_similarity = [node], similarity
            elif similarity == best_similarity and best:
                best.append(node)
        if self.merge and best:
            chosen = best[self._pick(len(best))]
            chosen.concept.merge(concept)
            return chosen
        node = Node(concept)
        self.nodes.append(node)
        return node

    def add_object(self, word: str) -> None:
        """Add an object (``addObject``)."""
        self.node_for(word)

    def add_attribute(self, word: str, attribute: str) -> None:
        """Add an attribute to an object (``addAttribute``)."""
        node = self.node_for(word)
        concept = self._concept(attribute)
        if any(a.equals(concept) for a in node.attributes):
            return
        if self.merge:
            similar = [a for a in node.attributes if a.similar(concept)]
            if similar:
                similar[self._pick(len(similar))].merge(concept)
                return
        node.attributes.append(concept)

    def add_relation(self, subject: str, obj: str, predicate: str) -> None:
        """Add a relation ``subject -predicate-> obj`` (``addRelation``; strips a leading "be ")."""
        source = self.node_for(subject)
        target = self.node_for(obj)
        concept = self._concept(_LEADING_BE.sub("", predicate))
        same_ends = [e for e in self.edges if e.source is source and e.target is target]
        if any(e.relation.equals(concept) for e in same_ends):
            return
        if self.merge:
            for edge in same_ends:
                if edge.relation.similar(concept):
                    edge.relation.merge(concept)
                    return
        self.edges.append(Edge(source, target, concept))

    def add_tuples(self, tuples: Iterable[Sequence[str]]) -> None:
        """Replay raw parser tuples: 1 -> object, 2 -> attribute, 3 -> relation."""
        for tup in tuples:
            if len(tup) == 1:
                self.add_object(tup[0])
            elif len(tup) == 2:
                self.add_attribute(tup[0], tup[1])
            elif len(tup) == 3:
                self.add_relation(tup[0], tup[1], tup[2])
            else:
                raise ValueError(f"scene-graph tuple must have 1-3 elements, got {list(tup)!r}")


def graph_tuples(graph: SceneGraph) -> list[tuple[Concept, ...]]:
    """The graph's tuples: ``(object)``, ``(object, attribute)``, ``(subject, relation, object)``.

    Sorted as ``TupleSet`` sorts them (:func:`tuple_sort_key`); the first-match matching
    follows that order.
    """
    tuples: list[tuple[Concept, ...]] = []
    for node in graph.nodes:
        tuples.append((node.concept,))
        for attribute in node.attributes:
            tuples.append((node.concept, attribute))
    for edge in graph.edges:
        tuples.append((edge.source.concept, edge.relation, edge.target.concept))
    tuples.sort(key=tuple_sort_key)
    return tuples


def tuple_sort_key(tup: Sequence[Concept]) -> list[tuple[list[str | bytes], list[int]]]:
    """``SemanticTuple.compareTo`` without the truth value: concepts lexicographically."""
    return [c.sort_key() for c in tup]
