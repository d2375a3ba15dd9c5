"""Penn tree -> UD v1 basic dependencies, as CoreNLP 3.6.0 converts the englishPCFG parser's trees.

The conversion (:func:`basic`) is a pure function of the tree string:

1. the tree is restructured (:mod:`.transforms`) and every node gets its head (:mod:`.heads`);
2. every constituent, top-down, offers its relations (:mod:`.relations`) to the highest node
   each target's head word projects to; an arc is kept when the dependent has no governor yet
   (or the same one) and it closes no cycle, and several relations on one arc merge into the
   first name in alphabetical order that each later one refines;
3. a phrase still unconnected hangs as ``dep`` from the head of the phrase containing it;
4. a stranded preposition's ``prep`` arc becomes ``case`` of an earlier ``nmod`` of its head (or
   ``nmod`` itself), a subject of a verb with a passive auxiliary becomes ``nsubjpass``.

Edges are listed as CoreNLP's sorted edge list prints them (by dependent, then governor, then
relation name), followed by ``("root", 0, i)``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from .heads import find_heads
from .nodes import Node, from_tree
from .relations import is_ancestor, relations_for
from .semgraph import Graph, Word
from .transforms import transform
from .trees import Tree, read_tree

__all__ = ["basic", "Analysis", "analyze"]

Dependency = tuple[str, int, int]


@dataclass(frozen=True)
class Analysis:
    """The basic dependencies of one tree, with the words they connect.

    Attributes:
        words: the sentence's words (position i at list index i - 1).
        tags: the parser's tag of each word.
        edges: ``(relation, governor, dependent)`` with 1-based positions, in the order of the
            converter's sorted list (dependent, governor, relation name).
        root: the position of the root word.
    """

    words: tuple[str, ...]
    tags: tuple[str, ...]
    edges: tuple[Dependency, ...]
    root: int


def _merge(labels: list[str]) -> str:
    """The relation of an arc that several relations claimed (first in name order, refined)."""
    current = "dep"
    for name in sorted(labels):
        if is_ancestor(current, name):
            current = name
    return current


def _label_order(order: list[Node]) -> None:
    for node in order:
        kids = node.kids
        node.kidset = frozenset([k.label for k in kids])
        for i, kid in enumerate(kids):
            kid.order = i


def _is_phrasal(node: Node) -> bool:
    kids = node.kids
    return bool(kids) and not (len(kids) == 1 and kids[0].word is not None)


class _Arcs:
    """Arcs between the highest nodes of head words (a forest plus the ``dep`` attachments)."""

    __slots__ = ("parent", "labels", "children", "order")

    def __init__(self) -> None:
        self.parent: dict[Node, Node] = {}
        self.labels: dict[tuple[Node, Node], list[str]] = {}
        self.children: dict[Node, list[Node]] = {}
        self.order: list[tuple[Node, Node]] = []

    def add(self, gov: Node, dep: Node, rel: str) -> None:
        key = (gov, dep)
        found = self.labels.get(key)
        if found is None:
            self.labels[key] = [rel]
            self.order.append(key)
            self.children.setdefault(gov, []).append(dep)
            self.children.setdefault(dep, [])
            self.parent.setdefault(dep, gov)
        else:
            found.append(rel)

    def reaches(self, start: Node, goal: Node) -> bool:
        """A directed path from ``start`` to ``goal`` (``goal`` is below ``start``)."""
        node: Node | None = goal
        seen = 0
        while node is not None:
            if node is start:
                return True
            node = self.parent.get(node)
            seen += 1
            if seen > 10000:  # pragma: no cover - the arcs form a forest
                return False
        return False

    def connected(self, a: Node, b: Node) -> bool:
        """An undirected path between ``a`` and ``b`` (both must already carry arcs)."""
        if a not in self.children or b not in self.children:
            return False
        neighbours: dict[Node, list[Node]] = {}
        for gov, dep in self.order:
            neighbours.setdefault(gov, []).append(dep)
            neighbours.setdefault(dep, []).append(gov)
        seen = {a}
        stack = [a]
        while stack:
            n = stack.pop()
            if n is b:
                return True
            for m in neighbours.get(n, ()):
                if m not in seen:
                    seen.add(m)
                    stack.append(m)
        return False


def _relate(order: list[Node]) -> _Arcs:
    arcs = _Arcs()
    for t in order:
        if not _is_phrasal(t):
            continue
        top = t.top
        assert top is not None
        for name, fn in relations_for(t.label, t.kidset):
            for u in fn(t):
                utop = u.top
                assert utop is not None
                if utop is top:
                    continue
                governor = arcs.parent.get(utop)
                if (governor is None or governor is top) and not arcs.reaches(utop, top):
                    arcs.add(top, utop, name)
    return arcs


def _attach_stranded(root: Node, arcs: _Arcs) -> None:
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        t, attach = stack.pop()
        if t.word is not None:
            continue
        if attach:
            assert t.parent is not None
            gov = t.parent.top
            assert gov is not None
            if (gov, t) not in arcs.labels and not arcs.connected(root, t):
                arcs.add(gov, t, "dep")
        for kid in reversed(t.kids):
            stack.append((kid, kid.head is not t.head))


def _convert_prep(g: Graph) -> None:
    """``prep`` arcs of stranded prepositions -> ``case`` of an earlier ``nmod``, else ``nmod``."""
    for prep in [e for e in g.edges() if e.rel == "prep"]:
        changed = False
        for nmod in g.out_edges(prep.gov):
            if nmod.rel not in ("nmod", "rel") or prep.dep.pos < nmod.dep.pos:
                continue
            g.remove_edge(prep)
            g.add_edge(nmod.dep, prep.dep, "case")
            changed = True
            if nmod.rel == "rel":
                nmod.rel = "nmod"
            break
        if not changed:
            prep.rel = "nmod"
    for edge in g.edges():
        if edge.rel == "rel":
            edge.rel = "dobj"


# VerbNet 3.2 verbs taking NP V S-INF (lemmas); used only for a rare WH re-attachment.
_NP_V_S_INF = frozenset(
    "acquiesce submit bow defer accede succumb yield capitulate despise disdain dislike regret like love enjoy fear "
    "hate pledge proceed begin start commence recommence resume undertake ally collaborate collude conspire "
    "discriminate legislate partner protest rebel retaliate scheme sin befriend continue broadcast cable e-mail fax "
    "modem netmail phone radio relay satellite semaphore sign signal telecast telegraph telephone telex wire "
    "wireless ache crave fall hanker hope hunger itch long lust pine pray thirst wish yearn dangle babble bark bawl "
    "bellow bleat blubber boom bray burble bluster cackle call carol chant chatter chirp chortle chuckle cluck coo "
    "croak croon crow cry drawl drone gabble gasp gibber groan growl grumble grunt hiss holler hoot howl jabber keen "
    "lilt lisp mewl moan mumble murmur mutter nasal natter pant prattle purr quaver rage rant rasp roar rumble scream "
    "screech shout shriek sibilate simper sigh sing smatter smile snap snarl snivel snuffle splutter squall squawk "
    "squeak squeal stammer stemmer stutter thunder tisk trill trumpet twang twitter vociferate wail warble wheeze "
    "whimper whine whisper whistle witter whoop yammer yap yell yelp yodel blare gurgle hum neglect fail forego forgo "
    "flub overleap manage omit seem appear prove try attempt intend expect mean plan propose think aim dream imagine "
    "yen".split()
)


# Irregular forms of the verbs above (the regular ones are found by stripping the inflection).
_IRREGULAR = {
    "fell": "fall", "fallen": "fall", "began": "begin", "begun": "begin", "sang": "sing", "sung": "sing",
    "thought": "think", "meant": "mean", "dreamt": "dream", "undertook": "undertake", "undertaken": "undertake",
    "proven": "prove", "forwent": "forgo", "forgone": "forgo", "forewent": "forego", "foregone": "forego",
    "overleapt": "overleap", "broadcasted": "broadcast", "hung": "hang",
}  # fmt: skip


def _lemma_candidates(word: str, tag: str) -> set[str]:
    """The word's possible lemmas (its inflection stripped when tagged as a verb or plural noun)."""
    w = word.lower()
    out = {w}
    if not (tag.startswith("VB") or tag == "NNS"):
        return out
    if w in _IRREGULAR:
        out.add(_IRREGULAR[w])
    for suffix, repl in (
        ("ies", "y"),
        ("es", ""),
        ("s", ""),
        ("ied", "y"),
        ("ed", ""),
        ("ed", "e"),
        ("ing", ""),
        ("ing", "e"),
    ):
        if w.endswith(suffix) and len(w) > len(suffix) + 1:
            stem = w[: -len(suffix)]
            out.add(stem + repl)
            if not repl and len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "aeiou":
                out.add(stem[:-1])
    return out


def _correct_wh_attachment(g: Graph, lemmas: Sequence[str] | None) -> None:
    """A WH word hanging from a control verb moves to the embedded verb (not seen in captions)."""
    view = g.soft_copy()
    for root in view.topological_order():
        outs = view.out_edges(root)
        embedded = next((e.dep for e in outs if e.rel == "xcomp"), None)
        wh = next((e.dep for e in outs if e.rel in ("dep", "dobj")), None)
        if embedded is None or wh is None or not wh.tag.startswith("W"):
            continue
        has_object = any(e.rel in ("dobj", "iobj") for e in outs)
        if lemmas is not None:
            control = lemmas[root.pos - 1].lower() in _NP_V_S_INF
        else:
            control = bool(_lemma_candidates(root.word, root.tag) & _NP_V_S_INF)
        if has_object or control:
            edge = g.edge(root, wh)
            if edge is not None:
                g.remove_edge(edge)
                g.add_edge(embedded, wh, "dobj")


def _as_tree(tree: Tree | str) -> Tree:
    if isinstance(tree, Tree):
        return tree
    if isinstance(tree, str):
        return read_tree(tree)
    raise TypeError(f"expected a Penn tree (Tree or str), not {type(tree).__name__}")


def analyze(tree: Tree | str, *, sentence_index: int = 0, lemmas: Sequence[str] | None = None) -> Analysis:
    """The basic dependencies of ``tree`` with its words and tags.

    The analysis of a tree string is remembered for the next few calls (it is immutable), so
    :func:`basic` and :func:`~.ccprocessed.ccprocessed` of one sentence convert its tree once.

    Args:
        tree: the parser's tree, as a :class:`~.trees.Tree` or as ``Tree.toString()`` prints it.
        sentence_index: the sentence's 0-based position in its text (see :func:`basic`).
        lemmas: the words' lemmas (see :func:`basic`).

    Raises:
        TreeSyntaxError: ``tree`` is a malformed tree string.
        ValueError: a constituent label the converter has no head rule for, or ``lemmas`` not
            one per word.
    """
    if isinstance(tree, str):
        return _analyze_text(tree, sentence_index, None if lemmas is None else tuple(lemmas))
    return _analyze(tree, sentence_index, lemmas)


@functools.lru_cache(maxsize=16)
def _analyze_text(tree: str, sentence_index: int, lemmas: tuple[str, ...] | None) -> Analysis:
    return _analyze(read_tree(tree), sentence_index, lemmas)


def _analyze(tree: Tree, sentence_index: int, lemmas: Sequence[str] | None) -> Analysis:
    parsed = _as_tree(tree)
    root, leaves = from_tree(parsed)
    words = [leaf.word or "" for leaf in leaves]
    tags = [leaf.tag for leaf in leaves]
    if lemmas is not None and len(lemmas) != len(words):
        raise ValueError(f"{len(lemmas)} lemmas for {len(words)} words in {parsed}")
    root = transform(root)
    order = root.preorder()
    _label_order(order)
    find_heads(root, order)
    arcs = _relate(order)
    _attach_stranded(root, arcs)
    assert root.head is not None
    root_index = root.head.index
    found: list[tuple[str, int, int]] = []
    for gov, dep in arcs.order:
        assert gov.head is not None and dep.head is not None
        found.append((_merge(arcs.labels[(gov, dep)]), gov.head.index, dep.head.index))
    names = {rel for rel, _, _ in found}
    if (
        "prep" in names
        or "rel" in names
        or ("xcomp" in names and any(tags[d - 1].startswith("W") for _, _, d in found))
    ):
        found = _post_process(found, root_index, words, tags, sentence_index, lemmas)
    passive = {g for rel, g, _ in found if rel == "auxpass"}
    unique = {
        ({"nsubj": "nsubjpass", "csubj": "csubjpass"}.get(r, r) if g in passive else r, g, d) for r, g, d in found
    }
    ordered = sorted(unique, key=lambda d: (d[2], d[1], d[0]))
    return Analysis(tuple(words), tuple(tags), tuple(ordered), root_index)


def _post_process(
    found: list[tuple[str, int, int]],
    root: int,
    words: list[str],
    tags: list[str],
    sentence: int,
    lemmas: Sequence[str] | None,
) -> list[tuple[str, int, int]]:
    """WH re-attachment and stranded prepositions, on a graph that visits words as CoreNLP's does."""
    g = Graph()
    for rel, gov, dep in found:
        g.add_edge(
            Word(gov, words[gov - 1], tags[gov - 1], sentence), Word(dep, words[dep - 1], tags[dep - 1], sentence), rel
        )
    g.add_root(Word(root, words[root - 1], tags[root - 1], sentence))
    _correct_wh_attachment(g, lemmas)
    _convert_prep(g)
    return [(e.rel, e.gov.pos, e.dep.pos) for e in g.edges()]


def basic(tree: Tree | str, *, sentence_index: int = 0, lemmas: Sequence[str] | None = None) -> list[Dependency]:
    """CoreNLP 3.6.0's UD v1 basic dependencies of a Penn tree.

    Args:
        tree: the parser's tree, as a :class:`~.trees.Tree` or as ``Tree.toString()`` prints it.
        sentence_index: the sentence's 0-based position in its text. CoreNLP hashes words by
            position and sentence, and in two rare cases (a WH word under a control verb, a
            stranded preposition) the order in which it visits them decides an attachment.
        lemmas: the words' Morpha lemmas, if the caller has them. They decide one rare case (a
            WH word hanging from a verb that takes an object and an infinitive, like "want"),
            which is otherwise decided by stripping a regular inflection from the verb.

    Returns:
        ``(relation, governor, dependent)`` triples with 1-based word positions, sorted by
        dependent, governor and relation name, then ``("root", 0, i)`` for the root word.

    Example:
        >>> basic("(ROOT (NP (DT a) (NN dog)))")
        [('det', 2, 1), ('root', 0, 2)]
    """
    analysis = analyze(tree, sentence_index=sentence_index, lemmas=lemmas)
    return [*analysis.edges, ("root", 0, analysis.root)]
