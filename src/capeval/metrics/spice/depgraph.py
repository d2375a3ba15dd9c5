"""Sentence dependency graphs in the form SPICE's rules expect (CoreNLP 3.6.0 UD v1, CCprocessed).

A :class:`DepGraph` holds the tokens of one sentence (1-based positions that count every
token, punctuation included, as CoreNLP does), typed edges ``(governor, dependent,
relation)`` and the roots. Edges form a multigraph-free set: adding an edge that already
exists does nothing, as in CoreNLP's ``SemanticGraph``.

Graphs can be written by hand (tests, or tuples from another parser) with
:meth:`DepGraph.from_dict`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DepGraph", "Token"]


@dataclass
class Token:
    """One word of a sentence: position (1-based), surface form, PTB tag, lemma."""

    index: int
    word: str
    tag: str
    lemma: str


@dataclass
class DepGraph:
    """A typed dependency graph over the tokens of one sentence."""

    tokens: dict[int, Token] = field(default_factory=dict)
    edges: list[tuple[int, int, str]] = field(default_factory=list)
    roots: list[int] = field(default_factory=list)

    # --- construction --------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DepGraph:
        """Build from ``{"tokens": [[word, tag, lemma], ...], "edges": [[gov, dep, rel], ...], "roots": [...]}``.

        Positions are 1-based indexes into ``tokens``.

        Raises:
            ValueError: when an edge or root names a position that does not exist.
        """
        graph = cls()
        for i, tok in enumerate(data["tokens"], start=1):
            word, tag, lemma = tok
            graph.tokens[i] = Token(i, word, tag, lemma)
        for gov, dep, rel in data.get("edges", []):
            if gov not in graph.tokens or dep not in graph.tokens:
                raise ValueError(f"edge {gov}->{dep} ({rel}) names a position outside 1..{len(graph.tokens)}")
            graph.add_edge(gov, dep, rel)
        for root in data.get("roots", []):
            if root not in graph.tokens:
                raise ValueError(f"root {root} is outside 1..{len(graph.tokens)}")
            graph.roots.append(root)
        return graph

    def add_edge(self, gov: int, dep: int, rel: str) -> None:
        """Add an edge unless an identical one exists."""
        edge = (gov, dep, rel)
        if edge not in self.edges:
            self.edges.append(edge)

    def remove_edge(self, gov: int, dep: int, rel: str) -> None:
        """Remove an edge if present."""
        if (gov, dep, rel) in self.edges:
            self.edges.remove((gov, dep, rel))

    def remove_edge_any(self, gov: int, dep: int) -> None:
        """Remove every edge from ``gov`` to ``dep``, whatever its relation."""
        self.edges = [e for e in self.edges if not (e[0] == gov and e[1] == dep)]

    # --- queries -------------------------------------------------------------------------
    def children(self, gov: int) -> list[tuple[str, int]]:
        """``(relation, dependent)`` pairs of a node, in dependent position order."""
        return sorted(((rel, d) for g, d, rel in self.edges if g == gov), key=lambda x: (x[1], x[0]))

    def parents(self, dep: int) -> list[tuple[str, int]]:
        """``(relation, governor)`` pairs of a node."""
        return [(rel, g) for g, d, rel in self.edges if d == dep]

    def children_by(self, gov: int, rels: Iterable[str]) -> list[int]:
        """Dependents of ``gov`` whose relation is one of ``rels``."""
        wanted = set(rels)
        return [d for rel, d in self.children(gov) if rel in wanted]

    def node_order(self) -> list[int]:
        """Nodes parents-first, then by position; plain position order if the graph has a cycle.

        Stands in for Semgrex's topological order (which CoreNLP derives from hash order).
        """
        indegree = dict.fromkeys(self.tokens, 0)
        out: dict[int, list[int]] = {i: [] for i in self.tokens}
        seen: set[tuple[int, int]] = set()
        for g, d, _ in self.edges:
            if (g, d) in seen or g == d:
                continue
            seen.add((g, d))
            indegree[d] += 1
            out[g].append(d)
        ready = sorted(i for i, n in indegree.items() if n == 0)
        order: list[int] = []
        while ready:
            node = ready.pop(0)
            order.append(node)
            for d in out[node]:
                indegree[d] -= 1
                if indegree[d] == 0:
                    ready.append(d)
            ready.sort()
        if len(order) != len(self.tokens):
            return sorted(self.tokens)
        return order

    def to_dict(self) -> dict[str, Any]:
        """The inverse of :meth:`from_dict` (positions must be 1..n)."""
        return {
            "tokens": [[t.word, t.tag, t.lemma] for _, t in sorted(self.tokens.items())],
            "edges": [list(e) for e in self.edges],
            "roots": list(self.roots),
        }

    def describe(self, edges: Sequence[tuple[int, int, str]] | None = None) -> list[str]:
        """Readable edges ``rel(gov-word, dep-word)`` for debugging and test messages."""
        return [f"{rel}({self.tokens[g].word}-{g}, {self.tokens[d].word}-{d})" for g, d, rel in (edges or self.edges)]
