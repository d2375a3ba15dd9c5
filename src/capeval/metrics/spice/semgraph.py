"""A sentence dependency graph that behaves, and iterates, like CoreNLP 3.6.0's ``SemanticGraph``.

SPICE's rules read the order in which CoreNLP's graph hands out nodes and edges: which case
marker names a copular relation ("on"), in which order the words of "on top of" are joined,
which plural object a count is checked on, and the order of the raw tuples (which decides the
word order of merged scene-graph concepts). That order is a property of Java's ``HashMap``:

* a node's hash is ``29 * sentence_index + token_index`` (its copy count is not hashed);
* a ``HashMap`` visits its buckets in order, bucket ``hash & (capacity - 1)``; the capacity
  starts at 16 and doubles whenever the map holds more than three quarters of it, and never
  shrinks; keys in one bucket keep the order they were inserted in (a removed key that is put
  back goes to the end of its bucket);
* the graph keeps, per node, a map from each child to the list of edges towards it (and the
  same for parents); the vertex set is the key set of the outer map.

:class:`SemanticGraph` keeps the same maps with the same capacities and insertion order, so
every traversal below returns what the Java method of the same name returns. Nodes are
``(index, copy)`` pairs (copy 0 is the token itself; coordination creates copies with the same
index), and compare as CoreNLP's ``IndexedWord`` does: by index, then copy count.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TypeVar

from capeval.metrics.spice.corenlp.javahash import HashOrderMap

__all__ = ["JavaHashMap", "Node", "NodeData", "SemanticGraph"]

#: A graph node: ``(token index, copy count)``.
Node = tuple[int, int]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class JavaHashMap(HashOrderMap[K, V]):
    """A map that iterates in the order ``java.util.HashMap`` would.

    Args:
        hashes: Key -> Java hash code (``hashCode()``).
        capacity: Initial table size (a power of two; Java's default is 16).
    """

    __slots__ = ()

    def __init__(self, hashes: Mapping[K, int], capacity: int = 16) -> None:  # Java's default
        super().__init__(hashes.__getitem__, capacity)


@dataclass(frozen=True)
class NodeData:
    """What a node carries: surface word, PTB tag, lemma."""

    word: str
    tag: str
    lemma: str


class SemanticGraph:
    """A typed dependency multigraph with CoreNLP 3.6.0's iteration order.

    Args:
        sentence_index: 0-based position of the sentence in its document (part of every
            node's hash).
    """

    def __init__(self, sentence_index: int = 0) -> None:
        self.sentence_index = sentence_index
        self.data: dict[Node, NodeData] = {}
        self._hashes: dict[Node, int] = {}
        self._out: JavaHashMap[Node, JavaHashMap[Node, list[str]]] = JavaHashMap(self._hashes)
        self._in: JavaHashMap[Node, JavaHashMap[Node, list[str]]] = JavaHashMap(self._hashes)
        self.roots: JavaHashMap[Node, None] = JavaHashMap(self._hashes)
        # Edge lists in iteration order, per node, until an edge of that node changes.
        self._out_lists: dict[Node, list[tuple[str, Node]]] = {}
        self._in_lists: dict[Node, list[tuple[str, Node]]] = {}

    # --- nodes ------------------------------------------------------------------------------
    def declare(self, node: Node, data: NodeData) -> None:
        """Make ``node`` known (its word, tag, lemma) without adding it to the vertex set."""
        self.data[node] = data
        self._hashes[node] = (29 * self.sentence_index + node[0]) & 0xFFFFFFFF

    def add_vertex(self, node: Node) -> None:
        """``addVertex``: add to the vertex set if absent."""
        if node not in self._out:
            self._out.put(node, JavaHashMap(self._hashes))
            self._in.put(node, JavaHashMap(self._hashes))

    def vertex_set(self) -> list[Node]:
        """``vertexSet()`` in iteration order."""
        return self._out.keys()

    def vertex_list_sorted(self) -> list[Node]:
        """``vertexListSorted()``: by index, then copy count."""
        return sorted(self._out.keys())

    def size(self) -> int:
        """Number of vertices."""
        return len(self._out)

    def node_by_index(self, index: int) -> Node | None:
        """``getNodeByIndexSafe``: the first vertex (in iteration order) with that index."""
        for node in self._out.keys():
            if node[0] == index:
                return node
        return None

    def word(self, node: Node) -> str:
        """Surface form."""
        return self.data[node].word

    def tag(self, node: Node) -> str:
        """PTB tag."""
        return self.data[node].tag

    def lemma(self, node: Node) -> str:
        """Lemma."""
        return self.data[node].lemma

    # --- roots ------------------------------------------------------------------------------
    def add_root(self, node: Node) -> None:
        """``addRoot``: add to the vertex set and to the roots."""
        self.add_vertex(node)
        self.roots.put(node, None)

    def root_list(self) -> list[Node]:
        """``getRoots()`` in iteration order."""
        return self.roots.keys()

    def first_root(self) -> Node | None:
        """``getFirstRoot()`` (``None`` where Java throws)."""
        keys = self.roots.keys()
        return keys[0] if keys else None

    # --- edges ------------------------------------------------------------------------------
    def add_edge(self, gov: Node, dep: Node, rel: str) -> None:
        """``addEdge``: append an edge (duplicates allowed, as in the multigraph)."""
        # DirectedMultiGraph creates a missing vertex (in both maps) on first use: source first.
        out_map = self._out.get(gov)
        if out_map is None:
            out_map = JavaHashMap(self._hashes)
            self._out.put(gov, out_map)
            self._in.put(gov, JavaHashMap(self._hashes))
        in_map = self._in.get(dep)
        if in_map is None:
            self._out.put(dep, JavaHashMap(self._hashes))
            in_map = JavaHashMap(self._hashes)
            self._in.put(dep, in_map)
        self._out_lists.pop(gov, None)
        self._in_lists.pop(dep, None)
        out_list = out_map.get(dep)
        if out_list is None:
            out_list = []
            out_map.put(dep, out_list)
        in_list = in_map.get(gov)
        if in_list is None:
            in_list = []
            in_map.put(gov, in_list)
        out_list.append(rel)
        in_list.append(rel)

    def remove_edge(self, gov: Node, dep: Node, rel: str) -> bool:
        """``removeEdge``: drop the first equal edge; an emptied child entry disappears."""
        out_map = self._out.get(gov)
        in_map = self._in.get(dep)
        if out_map is None or in_map is None:
            return False
        out_list = out_map.get(dep)
        in_list = in_map.get(gov)
        if out_list is None or in_list is None or rel not in out_list:
            return False
        out_list.remove(rel)
        in_list.remove(rel)
        self._out_lists.pop(gov, None)
        self._in_lists.pop(dep, None)
        if not out_list:
            out_map.remove(dep)
        if not in_list:
            in_map.remove(gov)
        return True

    def outgoing(self, node: Node) -> list[tuple[str, Node]]:
        """``outgoingEdgeIterable``: ``(relation, dependent)`` in iteration order (do not modify)."""
        found = self._out_lists.get(node)
        if found is None:
            out_map = self._out.get(node)
            found = [] if out_map is None else [(rel, dep) for dep, rels in out_map.items() for rel in rels]
            self._out_lists[node] = found
        return found

    def incoming(self, node: Node) -> list[tuple[str, Node]]:
        """``incomingEdgeIterable``: ``(relation, governor)`` in iteration order (do not modify)."""
        found = self._in_lists.get(node)
        if found is None:
            in_map = self._in.get(node)
            found = [] if in_map is None else [(rel, gov) for gov, rels in in_map.items() for rel in rels]
            self._in_lists[node] = found
        return found

    def edges(self) -> Iterator[tuple[Node, Node, str]]:
        """``edgeIterable``: every edge, vertex by vertex."""
        for gov, out_map in self._out.items():
            for dep, rels in out_map.items():
                for rel in rels:
                    yield gov, dep, rel

    def children(self, node: Node) -> list[Node]:
        """``getChildren`` in iteration order."""
        out_map = self._out.get(node)
        return [] if out_map is None else out_map.keys()

    def parents(self, node: Node) -> list[Node]:
        """``getParents`` in iteration order."""
        in_map = self._in.get(node)
        return [] if in_map is None else in_map.keys()

    def get_edge(self, gov: Node, dep: Node) -> str | None:
        """``getEdge(gov, dep)``: the relation of the first edge between them, or ``None``."""
        out_map = self._out.get(gov)
        rels = None if out_map is None else out_map.get(dep)
        return rels[0] if rels else None

    def has_child_with_reln(self, node: Node, rel: str) -> bool:
        """``hasChildWithReln``."""
        return self.child_with_reln(node, rel) is not None

    def child_with_reln(self, node: Node, rel: str) -> Node | None:
        """``getChildWithReln``: the first such dependent in iteration order."""
        for r, dep in self.outgoing(node):
            if r == rel:
                return dep
        return None

    def children_with_reln(self, node: Node, rel: str) -> list[Node]:
        """``getChildrenWithReln``: a fresh ``HashSet`` of those dependents, in its order."""
        found: JavaHashMap[Node, None] = JavaHashMap(self._hashes)
        for r, dep in self.outgoing(node):
            if r == rel:
                found.put(dep, None)
        return found.keys()

    def incoming_sorted(self, node: Node) -> list[tuple[str, Node]]:
        """``getIncomingEdgesSorted``: by governor, then relation name."""
        return sorted(self.incoming(node), key=lambda e: (e[1], e[0]))

    def outgoing_sorted(self, node: Node) -> list[tuple[str, Node]]:
        """``getOutEdgesSorted``: by dependent, then relation name."""
        return sorted(self.outgoing(node), key=lambda e: (e[1], e[0]))

    # --- paths and orders -------------------------------------------------------------------
    def parent(self, node: Node) -> Node | None:
        """``getParent``: the first parent (by index) on a path up to a root; ``None`` for a
        root or a node with no such path."""
        path = self._path_to_root(node, [])
        return path[-1] if path else None

    def _path_to_root(self, node: Node, used: list[Node]) -> list[Node] | None:
        used.append(node)
        parents = [p for p in sorted(self.parents(node)) if p not in used]
        if node in self.roots or not parents:
            used.pop()
            return [] if node in self.roots else None
        for parent in parents:
            path = self._path_to_root(parent, used)
            if path is not None:
                path.append(parent)
                used.pop()
                return path
        used.pop()
        return None

    def topological_sort(self) -> list[Node] | None:
        """``topologicalSort()``, or ``None`` where Java throws (the graph has a cycle)."""
        temporary: set[Node] = set()
        permanent: set[Node] = set()
        result: list[Node] = []

        def visit(start: Node) -> bool:
            # Iterative depth-first search: (node, its outgoing dependents, next position).
            temporary.add(start)
            stack: list[tuple[Node, list[Node], int]] = [(start, [d for _, d in self.outgoing(start)], 0)]
            while stack:
                node, targets, pos = stack[-1]
                if pos == len(targets):
                    stack.pop()
                    result.append(node)
                    permanent.add(node)
                    continue
                stack[-1] = (node, targets, pos + 1)
                target = targets[pos]
                if target in permanent:
                    continue
                if target in temporary:
                    return False
                temporary.add(target)
                stack.append((target, [d for _, d in self.outgoing(target)], 0))
            return True

        for vertex in self.vertex_set():
            if vertex not in temporary and not visit(vertex):
                return None
        result.reverse()
        return result

    def match_order(self) -> list[Node]:
        """The order in which Semgrex tries nodes: topological, else the vertex set's."""
        order = self.topological_sort()
        return order if order is not None else list(self.vertex_set())

    def soft_copy(self) -> SemanticGraph:
        """``makeSoftCopy``: the first root, then every edge in iteration order."""
        copy = SemanticGraph(self.sentence_index)
        copy.data = self.data
        copy._hashes.update(self._hashes)
        first = self.first_root()
        if first is not None:
            copy.roots.put(first, None)
        for gov, dep, rel in list(self.edges()):
            copy.add_edge(gov, dep, rel)
        return copy

    def describe(self, edges: Iterable[tuple[Node, Node, str]] | None = None) -> list[str]:
        """Readable edges ``rel(word-index, word-index)`` (copies primed), for messages."""

        def name(node: Node) -> str:
            return f"{self.data[node].word}-{node[0]}" + "'" * node[1]

        return [f"{rel}({name(g)}, {name(d)})" for g, d, rel in (self.edges() if edges is None else edges)]
