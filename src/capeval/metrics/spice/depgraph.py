"""Sentence dependency graphs in the form SPICE's rules read (CoreNLP 3.6.0 UD v1, CCprocessed).

A :class:`DepGraph` holds the tokens of one sentence (1-based positions that count every
token, punctuation included, as CoreNLP does), typed edges ``(governor, dependent,
relation)`` in insertion order, and the roots. Nodes are integer ids: a token's id is its
position; a *copy* of a token (CoreNLP copies a governor when it expands coordinated
prepositional phrases, "standing in and near a source") has a fresh id, the same position
and a copy count of 1 or more.

Three ways in:

* :meth:`DepGraph.from_stage`: one sentence of the official pipeline's stage output
  (``{"tokens": [[word, tag, lemma], ...], "ccprocessed": [[rel, gov, dep], ...]}``, roots as
  ``["root", 0, i]``), which is how the exact parser hands its result over;
* :meth:`DepGraph.from_dict`: hand-written graphs (tests, other parsers);
* the spaCy approximation, which builds graphs edge by edge.

:meth:`DepGraph.to_semgraph` gives the graph SPICE's rules run on
(:class:`~capeval.metrics.spice.semgraph.SemanticGraph`, which iterates like CoreNLP's).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from capeval.metrics.spice.semgraph import NodeData, SemanticGraph

__all__ = ["DepGraph", "Token"]


@dataclass
class Token:
    """One node: position (1-based), surface form, PTB tag, lemma, copy count (0: the token)."""

    index: int
    word: str
    tag: str
    lemma: str
    copy: int = 0


@dataclass
class DepGraph:
    """A typed dependency graph over the tokens of one sentence.

    Attributes:
        tokens: Node id -> token (an original token's id is its position).
        edges: ``(governor id, dependent id, relation)`` in insertion order.
        roots: Root node ids.
        sentence_index: 0-based position of the sentence in its caption (CoreNLP hashes it
            into every node, so it decides iteration order).
    """

    tokens: dict[int, Token] = field(default_factory=dict)
    edges: list[tuple[int, int, str]] = field(default_factory=list)
    roots: list[int] = field(default_factory=list)
    sentence_index: int = 0

    # --- construction --------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DepGraph:
        """Build from ``{"tokens": [[word, tag, lemma], ...], "edges": [[gov, dep, rel], ...], "roots": [...]}``.

        Positions are 1-based indexes into ``tokens``; edges are kept as given, duplicates
        included.

        Raises:
            ValueError: when an edge or root names a position that does not exist.
        """
        graph = cls(sentence_index=int(data.get("sentence_index", 0)))
        for i, tok in enumerate(data["tokens"], start=1):
            word, tag, lemma = tok
            graph.tokens[i] = Token(i, word, tag, lemma)
        for gov, dep, rel in data.get("edges", []):
            if gov not in graph.tokens or dep not in graph.tokens:
                raise ValueError(f"edge {gov}->{dep} ({rel}) names a position outside 1..{len(graph.tokens)}")
            graph.edges.append((gov, dep, rel))
        for root in data.get("roots", []):
            if root not in graph.tokens:
                raise ValueError(f"root {root} is outside 1..{len(graph.tokens)}")
            graph.roots.append(root)
        return graph

    @classmethod
    def from_stage(cls, sentence: Mapping[str, Any], sentence_index: int = 0) -> DepGraph:
        """Build from one sentence of the official pipeline's stage output.

        ``sentence["tokens"]`` is ``[[word, tag, lemma], ...]`` and ``sentence["ccprocessed"]``
        the CCprocessed edges ``[relation, governor, dependent]`` in CoreNLP's sorted order
        (by dependent, then governor, then relation; a copy sorts after its token), each
        root as ``["root", 0, position]``.

        The listing names nodes by position only, so copies are recovered from what the
        converter leaves behind: a self-loop ``conj:X(i, i)`` is the conjunction between token
        ``i`` and its copy; the copy receives the duplicates of the edges into token ``i`` (the
        converter copies a conjunct's incoming edges to it) and, among the edges out of ``i``,
        the repeated ones and the ones that come after the coordinator it stands for (see
        :func:`_assign_copies`).

        Args:
            sentence: One entry of a stage dict's ``"sentences"``.
            sentence_index: Its 0-based position in the caption.

        Raises:
            ValueError: for a malformed sentence (wrong shapes, positions out of range).
        """
        tokens = sentence.get("tokens")
        edges = sentence.get("ccprocessed")
        if not isinstance(tokens, Sequence) or not isinstance(edges, Sequence):
            raise ValueError("a stage sentence needs 'tokens' and 'ccprocessed' lists")
        graph = cls(sentence_index=sentence_index)
        for i, tok in enumerate(tokens, start=1):
            if not isinstance(tok, Sequence) or len(tok) != 3 or not all(isinstance(x, str) for x in tok):
                raise ValueError(f"token {i} must be [word, tag, lemma], got {tok!r}")
            graph.tokens[i] = Token(i, tok[0], tok[1], tok[2])
        n = len(tokens)
        listed: list[tuple[int, int, str]] = []
        for k, edge in enumerate(edges):
            if not isinstance(edge, Sequence) or len(edge) != 3 or not isinstance(edge[0], str):
                raise ValueError(f"edge {k} must be [relation, governor, dependent], got {edge!r}")
            rel, gov, dep = edge
            if not isinstance(gov, int) or not isinstance(dep, int) or not 1 <= dep <= n or not 0 <= gov <= n:
                raise ValueError(f"edge {k} {edge!r} names a position outside 1..{n}")
            if rel == "root" and gov == 0:
                graph.roots.append(dep)
            elif gov == 0:
                raise ValueError(f"edge {k} {edge!r}: only 'root' may have governor 0")
            else:
                listed.append((gov, dep, rel))
        basic = sentence.get("basic")
        basic_edges = (
            [(g, d, r) for r, g, d in basic if isinstance(g, int) and isinstance(d, int) and g > 0]
            if isinstance(basic, Sequence)
            else None
        )
        graph.edges = _assign_copies(graph, listed, basic_edges)
        return graph

    def add_copy(self, index: int) -> int:
        """Add a copy of the token at ``index``; returns the copy's node id."""
        original = self.tokens[index]
        copies = sum(1 for t in self.tokens.values() if t.index == index)
        node = max(self.tokens) + 1
        self.tokens[node] = Token(index, original.word, original.tag, original.lemma, copies)
        return node

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

    def to_semgraph(self) -> SemanticGraph:
        """The graph SPICE's rules run on.

        Insertion order decides iteration order only among nodes whose hashes share a bucket;
        edges go in as listed, then the roots, then any token without an edge.
        """
        sg = SemanticGraph(self.sentence_index)
        node = {i: (t.index, t.copy) for i, t in self.tokens.items()}
        for i, tok in self.tokens.items():
            sg.declare(node[i], NodeData(tok.word, tok.tag, tok.lemma))
        for gov, dep, rel in self.edges:
            sg.add_edge(node[gov], node[dep], rel)
        for root in self.roots:
            sg.add_root(node[root])
        for i in sorted(self.tokens, key=lambda i: node[i]):
            sg.add_vertex(node[i])
        return sg

    def to_dict(self) -> dict[str, Any]:
        """The inverse of :meth:`from_dict` (copy-free graphs with positions 1..n)."""
        return {
            "tokens": [[t.word, t.tag, t.lemma] for _, t in sorted(self.tokens.items())],
            "edges": [list(e) for e in self.edges],
            "roots": list(self.roots),
            "sentence_index": self.sentence_index,
        }

    def describe(self, edges: Sequence[tuple[int, int, str]] | None = None) -> list[str]:
        """Readable edges ``rel(gov-word, dep-word)`` for debugging and test messages."""

        def name(i: int) -> str:
            t = self.tokens[i]
            return f"{t.word}-{t.index}" + "'" * t.copy

        return [f"{rel}({name(g)}, {name(d)})" for g, d, rel in (edges or self.edges)]


_CASE_MARKED = re.compile(r"(nmod|acl|advcl):.+")


def _runs(keys: list[tuple[Any, ...]]) -> list[int]:
    """Split a listing into sorted runs: a key not greater than the one before starts a new run."""
    run, out = 0, []
    for k, key in enumerate(keys):
        if k and key <= keys[k - 1]:
            run += 1
        out.append(run)
    return out


def _second_conjuncts(basic: list[tuple[int, int, str]] | None, copied: set[int]) -> dict[int, list[int]]:
    """From the basic graph: for a copied governor H, the conjuncts K of its coordinated
    prepositional phrase (``H -nmod|acl|advcl-> N``, ``N -cc-> C``, ``N -conj-> K``, both N and K
    with a ``case`` child): the dependents its copies take."""
    if not basic:
        return {}
    children: dict[int, list[tuple[str, int]]] = {}
    for gov, dep, rel in basic:
        children.setdefault(gov, []).append((rel, dep))

    def has(node: int, rel: str) -> bool:
        return any(r == rel for r, _ in children.get(node, ()))

    found: dict[int, list[int]] = {}
    for head in copied:
        for rel, n in children.get(head, ()):
            if rel in ("nmod", "acl", "advcl") and has(n, "case") and has(n, "cc"):
                found.setdefault(head, []).extend(k for r, k in children.get(n, ()) if r == "conj" and has(k, "case"))
    return found


def _assign_copies(
    graph: DepGraph, listed: list[tuple[int, int, str]], basic: list[tuple[int, int, str]] | None = None
) -> list[tuple[int, int, str]]:
    """Turn a position-only edge listing into node-id edges, recovering copy nodes.

    CoreNLP makes a copy H' of a governor H when it expands a coordinated prepositional
    phrase ("a harbor with boats and on racks": H' takes the second PP, and the "cc" moves to
    H) or a coordinated preposition ("standing in and near a source": H' takes the edge named
    after the second preposition), adds ``conj(H, H')`` and, when it propagates over the
    conjunction, copies H's incoming edges and subject to H' and the copy's edge to the
    conjuncts of its dependent. The listing sorts edges by dependent (a copy after its
    token), then governor (likewise), then relation name, so:

    * the self-loop ``conj:X(i, i)`` is ``conj(H, H')``, one per copy;
    * the edges into position ``i`` form one sorted run per node (token, then each copy);
    * the edges from position ``i`` to one dependent form one sorted run per node; when they
      are still in order, a case-marked edge not named after the dependent's own case marker
      is a copy's (the second preposition);
    * a case-marked edge from ``i`` to the second conjunct of a coordinated PP is a copy's,
      one per copy in position order (the conjuncts are read from the basic graph when it is
      given; a dependent after H's last "cc" word stands in for one that a multi-word
      preposition moved, or when there is no basic graph);
    * an edge a copy took goes, with the same relation, to the conjuncts of its dependent.
    """
    copies: dict[int, list[int]] = {}
    for gov, dep, _ in listed:
        if gov == dep:
            copies.setdefault(gov, []).append(graph.add_copy(gov))
    if not copies:
        return listed

    def copy_node(position: int, run: int) -> int:
        nodes = copies[position]
        return position if run == 0 else nodes[min(run, len(nodes)) - 1]

    govs = [g for g, _, _ in listed]
    deps = [d for _, d, _ in listed]
    # Edges into a copied position: one sorted run per node; a self-loop is never the token's.
    into: dict[int, list[int]] = {}
    for k, (_, dep, _) in enumerate(listed):
        if dep in copies:
            into.setdefault(dep, []).append(k)
    for dep, ks in into.items():
        shift = 0
        for k, run in zip(ks, _runs([(listed[k][0], listed[k][2]) for k in ks]), strict=True):
            if listed[k][0] == dep and run + shift == 0:
                shift = 1
            deps[k] = copy_node(dep, run + shift)
    # Edges out of a copied position, per dependent.
    case_words: dict[int, list[str]] = {}
    last_cc: dict[int, int] = {}
    out_of: dict[tuple[int, int], list[int]] = {}
    for k, (gov, dep, rel) in enumerate(listed):
        if rel == "case":
            case_words.setdefault(gov, []).append(graph.tokens[dep].word.lower())
        elif rel == "cc" and gov in copies:
            last_cc[gov] = max(dep, last_cc.get(gov, 0))
        if gov in copies and gov != dep:
            out_of.setdefault((gov, dep), []).append(k)
    taken: set[int] = set()
    for (gov, dep), ks in out_of.items():
        runs = _runs([(listed[k][2],) for k in ks])
        if len(ks) > 1 and max(runs) == 0:
            own = {"_".join(case_words.get(dep, [])), *case_words.get(dep, [])}
            runs, extra = [], 0
            for k in ks:
                rel = listed[k][2]
                second = _CASE_MARKED.fullmatch(rel) is not None and rel.split(":", 1)[1] not in own
                extra += second
                runs.append(extra if second else 0)
        for k, run in zip(ks, runs, strict=True):
            if run:
                govs[k] = copy_node(gov, run)
                taken.add(k)
    conjuncts_pp = _second_conjuncts(basic, set(copies))
    for gov in copies:
        named = conjuncts_pp.get(gov, [])
        cc = last_cc.get(gov)
        candidates = [
            k
            for (g, dep), ks in out_of.items()
            if g == gov and (dep in named or (cc is not None and dep > cc))
            for k in ks
            if k not in taken and _CASE_MARKED.fullmatch(listed[k][2])
        ]
        candidates.sort(key=lambda k: (listed[k][1] not in named, listed[k][1]))
        for j, k in enumerate(candidates[: len(copies[gov])]):
            govs[k] = copy_node(gov, j + 1)
            taken.add(k)
    conjuncts: dict[int, set[int]] = {}
    for gov, dep, rel in listed:
        if rel.startswith("conj") and gov != dep:
            conjuncts.setdefault(gov, set()).add(dep)
    for k in sorted(taken):
        gov, dep, rel = listed[k]
        for conjunct in conjuncts.get(dep, ()):
            for j in out_of.get((gov, conjunct), []):
                if j not in taken and listed[j][2] == rel:
                    govs[j] = govs[k]
    return [(govs[k], deps[k], listed[k][2]) for k in range(len(listed))]
