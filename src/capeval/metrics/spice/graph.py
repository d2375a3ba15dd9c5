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

__all__ = ["Concept", "Edge", "Node", "SceneGraph", "SynsetLookup", "graph_tuples"]

#: Function mapping a concept string to its synset ids (empty set when synonyms are off).
SynsetLookup = Callable[[str], frozenset[int]]

#: ``SceneGraph.addRelation`` strips a leading "be " from predicates (SPICE 1.0).
_LEADING_BE = re.compile(r"^be ")


class Concept:
    """A set of words plus a set of WordNet synset ids.

    ``words`` keeps insertion order so that printing a merged concept is deterministic;
    comparisons use it as a set (``word_set``). ``text`` is the printed form.

    Args:
        words: The concept's words.
        synsets: WordNet synset ids.
    """

    __slots__ = ("synsets", "text", "word_set", "words")

    def __init__(self, words: list[str], synsets: frozenset[int] = frozenset()) -> None:
        self.words = words
        self.synsets = synsets
        self.word_set = frozenset(words)
        self.text = words[0] if len(words) == 1 else "/".join(sorted(self.word_set))

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
        """1 for a shared word, else Jaccard of the synsets (NaN for two empty sets)."""
        if not self.word_set.isdisjoint(other.word_set):
            return 1.0
        union = len(self.synsets | other.synsets)
        if union == 0:
            return math.nan
        return len(self.synsets & other.synsets) / union

    def merge(self, other: Concept) -> None:
        """Union of words and synsets, in place."""
        for word in other.words:
            if word not in self.word_set:
                self.words.append(word)
        self.word_set = frozenset(self.words)
        self.text = "/".join(sorted(self.word_set))
        self.synsets = self.synsets | other.synsets

    def __str__(self) -> str:
        """Words joined by ``/`` (sorted), the form category word lists are tested against."""
        return self.text


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

    Args:
        lookup: Concept string -> synset ids; ``None`` disables synsets.
        merge: Merge similar concepts (SPICE's default; off with ``-noSynsets``).

    Example:
        >>> g = SceneGraph(lookup=None, merge=False)
        >>> g.add_relation("man", "horse", "be on")
        >>> [str(e.relation) for e in g.edges]
        ['on']
    """

    def __init__(self, lookup: SynsetLookup | None, merge: bool = True) -> None:
        self.lookup = lookup
        self.merge = merge
        self.nodes: list[Node] = []
        self.edges: list[Edge] = []

    def _concept(self, word: str) -> Concept:
        return Concept.of(word, self.lookup)

    def node_for(self, word: str) -> Node:
        """``getOrAddNode``: an equal node, else (merging) the most similar node, else a new one."""
        concept = self._concept(word)
        best: Node | None = None
        best_similarity = 0.0
        for node in self.nodes:
            if node.concept.equals(concept):
                return node
            similarity = node.concept.similarity(concept)
            # Strictly greater: the first of equally similar nodes wins; NaN never wins.
            if similarity > best_similarity:
                best, best_similarity = node, similarity
        if self.merge and best is not None:
            best.concept.merge(concept)
            return best
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
            for existing in node.attributes:
                if existing.similar(concept):
                    existing.merge(concept)
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

    Sorted by their printed form, as ``TupleSet`` sorts them for stable output.
    """
    tuples: list[tuple[Concept, ...]] = []
    for node in graph.nodes:
        tuples.append((node.concept,))
        for attribute in node.attributes:
            tuples.append((node.concept, attribute))
    for edge in graph.edges:
        tuples.append((edge.source.concept, edge.relation, edge.target.concept))
    tuples.sort(key=lambda t: [c.text for c in t])
    return tuples
