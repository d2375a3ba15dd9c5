"""A dependency graph that visits its words and edges in the order CoreNLP 3.6.0's graph does.

The CC-processing steps of the converter are order-sensitive in a few places: which of two
coordinators names a conjunct, which of two case markers names an ``nmod``, which parent a word
reports first. CoreNLP keeps a graph's words and edges in Java hash maps keyed by the word, and
a word hashes to its position in the sentence (plus 29 times the sentence number), so a map
visits its keys bucket by bucket: ``hash mod capacity``, the capacity being 16 and doubling
whenever the map has held more than three quarters of it; keys in one bucket keep their
insertion order. :class:`OrderedMap` reproduces exactly that order; :class:`Graph` builds the
multigraph (words, labelled edges, roots) on it.

Words are :class:`Word` objects. Two words are equal when they have the same position and copy
number (a *copy* of a word is made when a coordinated preposition or PP is expanded, and is
printed with the same position); distinct but equal objects matter only for how copies are
numbered, which follows the object the copy is made from.
"""

from __future__ import annotations

import operator
from typing import TypeVar

from .javahash import HashOrderMap

__all__ = ["Word", "Edge", "OrderedMap", "Graph"]

V = TypeVar("V")


class Word(tuple):  # type: ignore[type-arg]
    """A word of the graph: position, copy number, text and tag.

    Equal, and hashed alike, when position and copy number are (it is the pair itself)."""

    pos: int
    copy: int
    word: str
    tag: str
    original: Word | None
    ncopies: int
    h: int

    def __new__(cls, index: int, word: str, tag: str, sentence: int = 0, copy: int = 0) -> Word:
        self = tuple.__new__(cls, (index, copy))
        self.pos = index
        self.copy = copy
        self.word = word
        self.tag = tag
        self.original = None
        self.ncopies = 0
        self.h = 29 * sentence + index if sentence else index
        return self

    def key(self) -> tuple[int, int]:
        """The sort key (position, then copy number)."""
        return (self.pos, self.copy)

    def soft_copy(self) -> Word:
        """A new copy of this word (numbered after the copies made so far from the same original)."""
        base = self.original if self.original is not None else self
        base.ncopies += 1
        new = Word(base.pos, base.word, base.tag, copy=base.ncopies)
        new.h = base.h
        new.original = base
        return new

    def __repr__(self) -> str:
        return f"{self.word}-{self.pos}" + ("'" * self.copy)


class Edge:
    """A labelled dependency ``rel(gov, dep)``."""

    __slots__ = ("gov", "dep", "rel")

    def __init__(self, gov: Word, dep: Word, rel: str) -> None:
        self.gov = gov
        self.dep = dep
        self.rel = rel

    def same(self, other: Edge) -> bool:
        """Equal as CoreNLP compares edges: relation, governor and dependent."""
        return self.rel == other.rel and self.gov == other.gov and self.dep == other.dep

    def key(self) -> tuple[int, int, int, int, str]:
        """Order by governor, then dependent, then relation name."""
        return (self.gov.pos, self.gov.copy, self.dep.pos, self.dep.copy, self.rel)

    def __repr__(self) -> str:
        return f"{self.rel}({self.gov!r}, {self.dep!r})"


#: A word's Java hash code (``IndexedWord.hashCode``).
_word_hash = operator.attrgetter("h")


class OrderedMap(HashOrderMap[Word, V]):
    """A map from words whose iteration order is that of a Java ``HashMap`` keyed by the word."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(_word_hash)


class Graph:
    """A multigraph of words with labelled edges and a set of roots."""

    __slots__ = ("out", "inc", "roots", "irregular")

    def __init__(self) -> None:
        self.out: OrderedMap[OrderedMap[list[Edge]]] = OrderedMap()
        self.inc: OrderedMap[OrderedMap[list[Edge]]] = OrderedMap()
        self.roots: OrderedMap[None] = OrderedMap()
        #: True once the graph holds a copied word or a word with more than twelve neighbours on
        #: one side; only then can a fresh copy of the graph visit words in another order.
        self.irregular = False

    # building ----------------------------------------------------------------------------
    def add_vertex(self, w: Word) -> None:
        if w not in self.out:
            self.out.put(w, OrderedMap())
            self.inc.put(w, OrderedMap())

    def add_root(self, w: Word) -> None:
        self.add_vertex(w)
        self.roots.put(w, None)

    def add_edge(self, gov: Word, dep: Word, rel: str) -> Edge:
        edge = Edge(gov, dep, rel)
        out_map = self.out.get(gov)
        if out_map is None:
            out_map = OrderedMap()
            self.out.put(gov, out_map)
            self.inc.put(gov, OrderedMap())
        in_map = self.inc.get(dep)
        if in_map is None:
            self.out.put(dep, OrderedMap())
            in_map = OrderedMap()
            self.inc.put(dep, in_map)
        out_list = out_map.get(dep)
        if out_list is None:
            out_list = []
            out_map.put(dep, out_list)
        in_list = in_map.get(gov)
        if in_list is None:
            in_list = []
            in_map.put(gov, in_list)
        out_list.append(edge)
        in_list.append(edge)
        if gov.copy or dep.copy or out_map.capacity > 16 or in_map.capacity > 16:
            self.irregular = True
        return edge

    def remove_edge(self, edge: Edge) -> bool:
        gov, dep = edge.gov, edge.dep
        out_map = self.out.get(gov)
        in_map = self.inc.get(dep)
        if out_map is None or in_map is None:
            return False
        out_list = out_map.get(dep)
        if out_list is None:
            return False
        found = False
        for i, e in enumerate(out_list):
            if e.same(edge):
                del out_list[i]
                found = True
                break
        in_list = in_map.get(gov)
        if in_list is not None:
            for i, e in enumerate(in_list):
                if e.same(edge):
                    del in_list[i]
                    break
        if not out_list:
            out_map.remove(dep)
        if in_list is not None and not in_list:
            in_map.remove(gov)
        return found

    # reading ---------------------------------------------------------------------------------
    def vertices(self) -> list[Word]:
        return self.out.keys()

    def out_edges(self, w: Word) -> list[Edge]:
        """Outgoing edges of ``w``: child by child (in map order), each child's edges in order."""
        m = self.out.entries.get(w)
        if m is None:
            return []
        return [e for lst in m.values() for e in lst]

    def in_edges(self, w: Word) -> list[Edge]:
        m = self.inc.entries.get(w)
        if m is None:
            return []
        return [e for lst in m.values() for e in lst]

    def edges(self) -> list[Edge]:
        """Every edge, governor by governor in map order."""
        out: list[Edge] = []
        for m in self.out.values():
            for lst in m.values():
                out.extend(lst)
        return out

    def edge(self, gov: Word, dep: Word) -> Edge | None:
        """The first edge from ``gov`` to ``dep``."""
        m = self.out.get(gov)
        if m is None:
            return None
        lst = m.get(dep)
        return lst[0] if lst else None

    def relation(self, gov: Word, dep: Word) -> str | None:
        """The relation of the first outgoing edge of ``gov`` that reaches ``dep``."""
        for e in self.out_edges(gov):
            if e.dep == dep:
                return e.rel
        return None

    def has_child_with(self, w: Word, rel: str) -> bool:
        return any(e.rel == rel for e in self.out_edges(w))

    def parents_sorted(self, w: Word) -> list[Word]:
        m = self.inc.get(w)
        if m is None:
            return []
        return sorted(m.entries, key=Word.key)

    def parent(self, w: Word) -> Word | None:
        """The first parent on a path to a root (parents tried in position order); None for a root."""
        path = self._path_to_root(w, [])
        if not path:
            return None
        return path[-1]

    def _path_to_root(self, w: Word, used: list[Word]) -> list[Word] | None:
        used.append(w)
        parents = [p for p in self.parents_sorted(w) if p not in used]
        is_root = w in self.roots
        if is_root or not parents:
            used.pop()
            return [] if is_root else None
        for p in parents:
            path = self._path_to_root(p, used)
            if path is not None:
                path.append(p)
                used.pop()
                return path
        used.pop()
        return None

    def node_at(self, index: int) -> Word | None:
        """The first word (in map order) at position ``index``."""
        for w in self.out.keys():
            if w.pos == index:
                return w
        return None

    def view(self) -> Graph:
        """The graph a matcher should read: a fresh copy, or the graph itself when a copy would
        visit words and edges in exactly the same order (callers collect matches before editing)."""
        return self.soft_copy() if self.irregular else self

    def soft_copy(self) -> Graph:
        """A new graph with the same words and new edge objects, edge by edge in order."""
        g = Graph()
        if len(self.roots):
            g.add_root(self.roots.keys()[0])
        for e in self.edges():
            g.add_edge(e.gov, e.dep, e.rel)
        return g

    def topological_order(self) -> list[Word]:
        """Governors before dependents (depth-first, reversed); map order if the graph has a cycle."""
        result: list[Word] = []
        temporary: set[Word] = set()
        permanent: set[Word] = set()

        def visit(v: Word) -> None:
            temporary.add(v)
            for e in self.out_edges(v):
                t = e.dep
                if t in permanent:
                    continue
                if t in temporary:
                    raise _Cycle
                visit(t)
            result.append(v)
            permanent.add(v)

        try:
            for v in self.out.keys():
                if v not in temporary:
                    visit(v)
        except _Cycle:
            return list(self.out.keys())
        result.reverse()
        return result

    def delete_duplicate_edges(self) -> None:
        for side in (self.out, self.inc):
            for _, m in side.items():
                for _, lst in m.items():
                    unique: dict[tuple[int, int, int, int, str], Edge] = {}
                    for e in lst:
                        unique.setdefault(e.key(), e)
                    lst[:] = [unique[key] for key in sorted(unique)]


class _Cycle(Exception):
    pass
