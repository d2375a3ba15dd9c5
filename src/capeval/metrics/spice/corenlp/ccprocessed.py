"""UD v1 basic -> collapsed, CC-processed dependencies (the graph official SPICE reads).

Starting from the basic dependencies (:mod:`.dependencies`), CoreNLP 3.6.0 rewrites the graph
in this order:

1. multi-word prepositions become one case marker with ``mwe`` parts: two-word ones whose words
   both hang from the object ("next to", "out of"), two-word ones whose first word heads the
   phrase ("next" in ``ADJP(next PP(to NP))``, which can move the root), three-word ones around
   a noun ("in front of", "on top of");
2. coordinated PPs ("on the couch and across from a laptop") and coordinated prepositions ("in
   and near") are expanded: the governor gets a *copy* (same position, printed as such) that
   governs the second PP, linked by ``conj``;
3. ``nmod``/``acl``/``advcl`` take the name of their case marker(s) (``nmod:on``,
   ``nmod:in_front_of``; ``nmod:agent`` for "by" under a passive);
4. ``conj`` takes the name of its coordinator (``conj:and``, ``conj:or``, ``conj:negcc``...);
5. every edge into a first conjunct (except ``case``) is copied to the other conjuncts, and a
   verbal or adjectival conjunct without a subject gets the first conjunct's.

Several decisions depend on the order in which CoreNLP's hash maps visit words; the graph of
:mod:`.semgraph` visits them in the same order, so ties come out the same. The result is listed
like the basic graph: sorted by dependent, governor and relation, then the root; copies print
with their original's position, so self-loops (``conj:and(3, 3)``) and repeated edges can occur.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .dependencies import Analysis, analyze
from .relations import CLAUSE_RELATIONS
from .semgraph import Edge, Graph, Word
from .trees import Tree

__all__ = ["ccprocessed", "collapse"]

Dependency = tuple[str, int, int]

_PREDEFINED = frozenset(
    {"nmod:tmod", "nmod:poss", "nmod:npmod", "acl:relcl", "det:predet", "cc:preconj", "compound:prt"}
)
_NAMED_FAMILIES = ("nmod:", "acl:", "advcl:", "conj:")

_REGULAR_2WP = (
    "across_from along_with alongside_of apart_from as_for as_from as_of as_per as_to aside_from based_on close_by "
    "close_to contrary_to compared_to compared_with  depending_on except_for exclusive_of far_from followed_by "
    "inside_of irrespective_of next_to near_to off_of out_of outside_of owing_to preliminary_to preparatory_to "
    "previous_to  prior_to pursuant_to regardless_of subsequent_to thanks_to together_with"
)
# The list holds two entries with a leading space, which no word pair can match.
REGULAR_TWO_WORD = tuple(w for w in _REGULAR_2WP.split(" ") if w)
COMPLEX_TWO_WORD = tuple(
    "apart_from as_from aside_from away_from close_by close_to contrary_to far_from next_to near_to out_of "
    "outside_of pursuant_to regardless_of together_with".split()
)
THREE_WORD = tuple(
    "by_means_of in_accordance_with in_addition_to in_case_of in_front_of in_lieu_of in_place_of in_spite_of "
    "on_account_of on_behalf_of on_top_of with_regard_to with_respect_to".split()
)


# --- relation names --------------------------------------------------------------------------------
def _family(rel: str) -> str | None:
    """``nmod`` for ``nmod:on`` and the like (names made from a word); None for fixed names."""
    if rel in _PREDEFINED:
        return None
    for prefix in _NAMED_FAMILIES:
        if rel.startswith(prefix):
            return prefix[:-1]
    return None


def _case_marked(rel: str, name: str) -> str:
    base = _family(rel) or rel
    if base == "nmod":
        if name in ("npmod", "tmod", "poss"):
            return "nmod:" + name
        return "nmod:" + name
    if base == "advcl":
        return "advcl:" + name
    if base == "acl":
        return "acl:" + name
    return rel


def _is_named_conj(rel: str) -> bool:
    return rel.startswith("conj:")


# --- building ------------------------------------------------------------------------------------------
def _graph(analysis: Analysis, sentence: int) -> Graph:
    words, tags = analysis.words, analysis.tags

    def word(i: int) -> Word:
        return Word(i, words[i - 1], tags[i - 1], sentence)

    listing: list[tuple[int, int, str]] = [(d, g, r) for r, g, d in analysis.edges]
    listing.append((analysis.root, 0, "root"))
    listing.sort()
    g = Graph()
    for dep, gov, rel in listing:
        if gov == 0:
            g.add_root(word(dep))
        else:
            g.add_edge(word(gov), word(dep), rel)
    return g


def _ordered_ints(values: set[int]) -> list[int]:
    """Integers in the order a Java hash set holding them visits them."""
    cap = 16
    while len(values) > (cap * 3) // 4:
        cap *= 2
    return sorted(values, key=lambda i: ((i ^ (i >> 16)) & (cap - 1), i))


def _childless(g: Graph, w: Word) -> bool:
    m = g.out.get(w)
    return m is None or not any(lst for _, lst in m.items())


# --- step 1: multi-word prepositions -------------------------------------------------------------------------
def _mwe(g: Graph, gov: Word, rel: str, words: tuple[Word, ...]) -> None:
    head: Word | None = None
    for w in words:
        parent = g.parent(w)
        if parent is not None:
            edge = g.edge(parent, w)
            if edge is not None:
                g.remove_edge(edge)
        if head is None:
            g.add_edge(gov, w, rel)
            head = w
        else:
            g.add_edge(head, w, "mwe")


def _regular_matches(g: Graph) -> Iterator[tuple[Word, Word, Word]]:
    for gov in g.topological_order():
        outs = g.out_edges(gov)
        for e1 in outs:
            if e1.rel not in ("case", "advmod") or not _childless(g, e1.dep):
                continue
            for e2 in outs:
                if e2.rel == "case" and e2.dep != e1.dep and _childless(g, e2.dep):
                    yield gov, e1.dep, e2.dep


def _complex_matches(g: Graph) -> Iterator[tuple[Word, Word, Word, Word | None]]:
    for w1 in g.topological_order():
        for e in g.out_edges(w1):
            if e.rel != "nmod":
                continue
            gov2 = e.dep
            for e2 in g.out_edges(gov2):
                if e2.rel != "case" or not _childless(g, e2.dep):
                    continue
                if w1 in g.roots:
                    yield w1, gov2, e2.dep, None
                for pe in g.in_edges(w1):
                    yield w1, gov2, e2.dep, pe.gov


def _three_word_matches(g: Graph) -> Iterator[tuple[Word, Word, Word, Word, Word | None]]:
    for w2 in g.topological_order():
        outs = g.out_edges(w2)
        for e in outs:
            if e.rel not in ("nmod", "acl", "advcl"):
                continue
            gov2 = e.dep
            for e2 in g.out_edges(gov2):
                if e2.rel not in ("case", "mark") or not _childless(g, e2.dep):
                    continue
                for e3 in outs:
                    if e3.rel != "case" or not _childless(g, e3.dep):
                        continue
                    for pe in g.in_edges(w2):
                        yield e3.dep, w2, e2.dep, gov2, pe.gov
                    if w2 in g.roots:
                        yield e3.dep, w2, e2.dep, gov2, None


def _move_children(g: Graph, source: Word, target: Word) -> None:
    for edge in sorted(g.out_edges(source), key=Edge.key):
        g.remove_edge(edge)
        g.add_edge(target, edge.dep, edge.rel)


def _detach(g: Graph, word: Word, object_: Word, gov: Word | None) -> tuple[Edge, Word | None] | None:
    """Take ``object_`` (the phrase's object) from under ``word`` (its first word, or "front").

    If ``word`` was the root, ``object_`` becomes the root and the governor is None; otherwise
    the governor is ``gov`` or ``word``'s parent. None when there is nothing to rewrite: no such
    edge, or (after removing it) no governor to hang the object from.
    """
    edge = g.edge(word, object_)
    if edge is None:
        return None
    g.remove_edge(edge)
    if word in g.roots:
        g.roots.remove(word)
        g.add_root(object_)
        return edge, None
    if gov is None:
        gov = g.parent(word)
    return None if gov is None else (edge, gov)


def _multiword_prepositions(g: Graph) -> None:
    if not len(g.roots):
        return
    ordered = sorted(g.vertices(), key=Word.key)
    bigrams: dict[str, set[int]] = {}
    trigrams: dict[str, set[int]] = {}
    for i in range(1, len(ordered)):
        bigram = ordered[i - 1].word.lower() + "_" + ordered[i].word.lower()
        bigrams.setdefault(bigram, set()).add(ordered[i - 1].pos)
        if i > 1:
            trigrams.setdefault(ordered[i - 2].word.lower() + "_" + bigram, set()).add(ordered[i - 2].pos)

    for bigram in REGULAR_TWO_WORD:
        for i in _ordered_ints(bigrams.get(bigram, set())):
            w1, w2 = g.node_at(i), g.node_at(i + 1)
            if w1 is None or w2 is None:
                continue
            gov = next((m[0] for m in _regular_matches(g) if m[1] == w1 and m[2] == w2), None)
            if gov is not None:
                _mwe(g, gov, "case", (w1, w2))

    for bigram in COMPLEX_TWO_WORD:
        for i in _ordered_ints(bigrams.get(bigram, set())):
            w1, w2 = g.node_at(i), g.node_at(i + 1)
            if w1 is None or w2 is None:
                continue
            found = next((m for m in _complex_matches(g) if m[0] == w1 and m[2] == w2), None)
            if found is None:
                continue
            _, gov2, _, gov = found
            detached = _detach(g, w1, gov2, gov)
            if detached is None:
                continue
            edge, gov = detached
            if gov is not None:
                rel = edge.rel
                if g.has_child_with(w1, "cop"):
                    up = g.edge(gov, w1)
                    if up is not None and up.rel in CLAUSE_RELATIONS:
                        rel = up.rel
                g.add_edge(gov, gov2, rel)
            _move_children(g, w1, gov2)
            _mwe(g, gov2, "case", (w1, w2))

    for trigram in THREE_WORD:
        for i in _ordered_ints(trigrams.get(trigram, set())):
            w1, w2, w3 = g.node_at(i), g.node_at(i + 1), g.node_at(i + 2)
            if w1 is None or w2 is None or w3 is None:
                continue
            match = next((m for m in _three_word_matches(g) if m[0] == w1 and m[1] == w2 and m[2] == w3), None)
            if match is None:
                continue
            gov2, gov = match[3], match[4]
            marker = "case"
            detached = _detach(g, w2, gov2, gov)
            if detached is None:
                continue
            edge, gov = detached
            if gov is not None:
                up = g.edge(gov, w2)
                rel = up.rel if up is not None else "dep"
                if rel == "nmod" and edge.rel in ("acl", "advcl"):
                    rel = edge.rel
                    marker = "mark"
                g.add_edge(gov, gov2, rel)
            _move_children(g, w2, gov2)
            _mwe(g, gov2, marker, (w1, w2, w3))


# --- step 2: coordinated PPs and prepositions ---------------------------------------------------------------
def _conj_value(cc: Word, g: Graph) -> str:
    pos = cc.pos
    value = cc.word.lower()
    if value == "not":
        before = g.node_at(pos - 1)
        if before is not None and before.word.lower() == "but":
            return "conj:negcc"
    after_word = g.node_at(pos + 1)
    if after_word is None:
        return "conj:" + cc.word
    after = after_word.word.lower()
    if value == "but":
        if after == "rather":
            value = "negcc"
        elif after == "also":
            value = "and"
    elif value == "if" and after == "not":
        value = "negcc"
    elif value == "instead" and after == "of":
        value = "negcc"
    elif value == "rather" and after == "than":
        value = "negcc"
    elif value == "as" and after == "well":
        value = "and"
    elif value == "not" and after == "to":
        third = g.node_at(pos + 2)
        if third is not None and third.word.lower() == "mention":
            value = "and"
    return "conj:" + value


def _name_conjuncts(g: Graph, gov: Word, conjuncts: list[Word], cc: Word) -> None:
    for conj in conjuncts:
        edge = g.edge(gov, conj)
        if edge is None:
            continue
        if edge.rel == "conj" or conj.pos > cc.pos:
            edge.rel = _conj_value(cc, g)


def _grouped(matches: Iterator[tuple[Word, Word, Word]]) -> Iterator[tuple[Word, Word, list[Word]]]:
    """Runs of matches ``(gov, cc, conj)`` with the same governor and coordinator."""
    current: tuple[Word, Word] | None = None
    conjuncts: list[Word] = []
    for gov, cc, conj in matches:
        if current is not None and not (gov == current[0] and cc == current[1]):
            yield current[0], current[1], conjuncts
            conjuncts = []
        current = (gov, cc)
        conjuncts.append(conj)
    if current is not None:
        yield current[0], current[1], conjuncts


def _coordination_matches(view: Graph, over: tuple[str, ...], pp: bool) -> Iterator[tuple[Word, Word, Word]]:
    """``{} >over (gov [>case {}] >cc cc >conj (conj [>case {}]))`` matches, in matcher order: the
    bracketed parts only for coordinated PPs (``pp``), where each case marker repeats the match."""
    for top in view.topological_order():
        for e in view.out_edges(top):
            if e.rel not in over:
                continue
            gov = e.dep
            outs = view.out_edges(gov)
            markers = sum(1 for c in outs if c.rel == "case") if pp else 1
            for _ in range(markers):
                for cc in outs:
                    if cc.rel != "cc":
                        continue
                    for conj in outs:
                        if conj.rel != "conj":
                            continue
                        repeats = sum(1 for c in view.out_edges(conj.dep) if c.rel == "case") if pp else 1
                        for _ in range(repeats):
                            yield gov, cc.dep, conj.dep


def _expand_pp_conjunctions(g: Graph) -> None:
    if not len(g.roots):
        return
    for gov, cc, conjuncts in list(_grouped(_coordination_matches(g.view(), _CLAUSAL_OR_NOMINAL, True))):
        head = g.parent(gov)
        if head is None:
            continue
        conj_gov = head.original if head.original is not None else head
        rel = g.relation(head, gov)
        assert rel is not None
        copies: list[Word] = []
        for conj in conjuncts:
            copy = head.soft_copy()
            edge = g.edge(gov, conj)
            if edge is not None:
                g.remove_edge(edge)
                g.add_edge(copy, conj, rel)
            g.add_edge(conj_gov, copy, "conj")
            copies.append(copy)
        edge = g.edge(gov, cc)
        if edge is not None:
            g.remove_edge(edge)
            g.add_edge(conj_gov, cc, "cc")
        _name_conjuncts(g, conj_gov, copies, cc)


def _expand_prep_conjunctions(g: Graph) -> None:
    if not len(g.roots):
        return
    for gov, cc, conjuncts in list(_grouped(_coordination_matches(g.view(), ("case",), False))):
        obj = g.parent(gov)
        if obj is None:
            continue
        head = g.parent(obj)
        if head is None:
            continue
        conj_gov = head.original if head.original is not None else head
        rel = g.relation(head, obj)
        assert rel is not None
        copies: list[Word] = []
        for conj in conjuncts:
            copy = head.soft_copy()
            g.add_edge(conj_gov, copy, "conj")
            copies.append(copy)
            g.add_edge(copy, obj, rel)
            _name_by_markers(g, copy, obj, [conj])
        _name_conjuncts(g, conj_gov, copies, cc)


# --- step 3: case markers ---------------------------------------------------------------------------------
def _name_by_markers(g: Graph, gov: Word, mod: Word, markers: list[Word]) -> None:
    edge = g.edge(gov, mod)
    if edge is None:
        return
    last = 0
    parts: list[str] = []
    first = True
    for marker in markers:
        if last == 0 or marker.pos == last + 1:
            if not first:
                parts.append("_")
            parts.append(marker.word)
            first = False
        else:
            g.add_edge(gov, mod, _case_marked(edge.rel, "".join(parts).lower()))
            parts = [marker.word]
            first = True
        last = marker.pos
    edge.rel = _case_marked(edge.rel, "".join(parts).lower())


_CLAUSAL_OR_NOMINAL = ("nmod", "advcl", "acl")


def _agent_matches(view: Graph) -> list[tuple[Word, Word]]:
    found: list[tuple[Word, Word]] = []
    for gov in view.topological_order():
        outs = view.out_edges(gov)
        for e in outs:
            if e.rel != "nmod":
                continue
            for c in view.out_edges(e.dep):
                if c.rel != "case" or c.dep.word.lower() != "by":
                    continue
                found += [(gov, e.dep) for aux in outs if aux.rel == "auxpass"]
    return found


def _marker_matches(view: Graph, mwe_parts: int) -> list[tuple[Word, Word, list[Word]]]:
    """``gov >nmod|acl|advcl (mod >case (c1 [>mwe c2 [>mwe c3]]))`` matches, in matcher order."""
    found: list[tuple[Word, Word, list[Word]]] = []
    for gov in view.topological_order():
        for e in view.out_edges(gov):
            if e.rel not in _CLAUSAL_OR_NOMINAL:
                continue
            for c in view.out_edges(e.dep):
                if c.rel != "case":
                    continue
                if mwe_parts == 0:
                    found.append((gov, e.dep, [c.dep]))
                    continue
                mwes = [m for m in view.out_edges(c.dep) if m.rel == "mwe"]
                for m2 in mwes:
                    if mwe_parts == 1:
                        found.append((gov, e.dep, [c.dep, m2.dep]))
                        continue
                    for m3 in mwes:
                        if m3.dep != m2.dep:
                            found.append((gov, e.dep, [c.dep, m2.dep, m3.dep]))
    return found


def _case_markers(g: Graph, rels: set[str]) -> None:
    if not len(g.roots):
        return
    if "auxpass" in rels:
        for gov, mod in _agent_matches(g.view()):
            edge = g.edge(gov, mod)
            if edge is not None:
                edge.rel = "nmod:agent"
    previous: list[Word] = []
    for parts in (2, 1, 0) if "mwe" in rels else (0,):
        for gov, mod, markers in _marker_matches(g.view(), parts):
            markers = sorted(markers, key=Word.key)
            if markers == previous:
                continue
            _name_by_markers(g, gov, mod, markers)
            previous = markers


# --- step 4: conjunctions ------------------------------------------------------------------------------------
def _conjunction_matches(view: Graph) -> Iterator[tuple[Word, Word, Word]]:
    for gov in view.topological_order():
        outs = view.out_edges(gov)
        for cc in outs:
            if cc.rel != "cc":
                continue
            for conj in outs:
                if conj.rel == "conj":
                    yield gov, cc.dep, conj.dep


def _conjunctions(g: Graph) -> None:
    if not len(g.roots):
        return
    for gov, cc, conjuncts in list(_grouped(_conjunction_matches(g.view()))):
        _name_conjuncts(g, gov, conjuncts, cc)


# --- step 5: propagation over conjuncts ------------------------------------------------------------------------
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass"})


def _definitely_active(tag: str) -> bool:
    return tag in ("VB", "VBZ", "VBP") or tag.startswith("JJ")


def _propagate(g: Graph) -> None:
    incoming: dict[Word, dict[tuple[int, int, int, int, str], Edge]] = {}
    subject: dict[Word, Edge] = {}
    passive: set[Word] = set()
    relcl_heads: list[Word] = []
    for edge in g.edges():
        incoming.setdefault(edge.dep, {}).setdefault(edge.key(), edge)
        if edge.rel == "auxpass":
            passive.add(edge.gov)
        if edge.rel in _SUBJECTS and edge.gov not in subject:
            subject[edge.gov] = edge
        if edge.rel == "acl:relcl":
            relcl_heads.append(edge.gov)
    for edge in [e for e in g.edges() if _is_named_conj(e.rel)]:
        gov, dep = edge.gov, edge.dep
        into = incoming.get(gov)
        if into is not None:
            both_relcl = gov in relcl_heads and dep in relcl_heads
            for key in sorted(into):
                e1 = into[key]
                if e1.gov == dep or e1.rel in ("root", "case"):
                    continue
                if both_relcl and e1.rel in ("dobj", "nsubj"):
                    continue
                g.add_edge(e1.gov, dep, e1.rel)
        tag = dep.tag
        subj = subject.get(gov)
        if subj is not None and tag.startswith(("VB", "JJ")) and dep not in subject:
            rel = subj.rel
            if rel == "nsubjpass" and _definitely_active(tag):
                rel = "nsubj"
            elif rel == "csubjpass" and _definitely_active(tag):
                rel = "csubj"
            elif rel == "nsubj" and dep in passive:
                rel = "nsubjpass"
            elif rel == "csubj" and dep in passive:
                rel = "csubjpass"
            g.add_edge(dep, subj.dep, rel)


# --- the whole collapse ---------------------------------------------------------------------------------------
def collapse(analysis: Analysis, *, sentence_index: int = 0) -> Graph:
    """The CC-processed graph of a basic analysis (see the module docstring for the steps).

    Steps that cannot apply (no multi-word preposition among the words, no coordination under
    a case-marked phrase, ...) are skipped; a skipped step would have left the graph unchanged.
    The basic graph already has its passive subjects corrected and no repeated edge, so the
    converter's first clean-up step has nothing to do here either.
    """
    g = _graph(analysis, sentence_index)
    if _may_have_multiword(analysis.words):
        _multiword_prepositions(g)
    rels = {e.rel for e in g.edges()}
    if "conj" in rels and "case" in rels:
        if "cc" in rels:
            _expand_pp_conjunctions(g)
            _expand_prep_conjunctions(g)
        rels = {e.rel for e in g.edges()}
    _case_markers(g, rels)
    if "cc" in rels and "conj" in rels:
        _conjunctions(g)
    if any(_is_named_conj(e.rel) for e in g.edges()):
        _propagate(g)
    return g


_FIRST_WORDS = frozenset(w.split("_")[0] for w in REGULAR_TWO_WORD + COMPLEX_TWO_WORD + THREE_WORD)
_SECOND_WORDS = frozenset(w.split("_")[1] for w in REGULAR_TWO_WORD + COMPLEX_TWO_WORD + THREE_WORD)


def _may_have_multiword(words: tuple[str, ...]) -> bool:
    lower = [w.lower() for w in words]
    return any(a in _FIRST_WORDS and b in _SECOND_WORDS for a, b in zip(lower, lower[1:], strict=False))


def _listing(g: Graph) -> list[Dependency]:
    edges = sorted(g.edges(), key=lambda e: (e.dep.pos, e.dep.copy, e.gov.pos, e.gov.copy, e.rel))
    out: list[Dependency] = [(e.rel, e.gov.pos, e.dep.pos) for e in edges]
    out += [("root", 0, r.pos) for r in g.roots.keys()]
    return out


def ccprocessed(tree: Tree | str, *, sentence_index: int = 0, lemmas: Sequence[str] | None = None) -> list[Dependency]:
    """CoreNLP 3.6.0's collapsed CC-processed UD v1 dependencies of a Penn tree.

    Args:
        tree: the parser's tree, as a :class:`~.trees.Tree` or as ``Tree.toString()`` prints it.
        sentence_index: the sentence's 0-based position in its text. CoreNLP hashes words by
            position and sentence, and the order in which it visits them decides a few labels
            (two coordinators on one head, two case markers on one noun): pass it for every
            sentence after the first of a caption.
        lemmas: the words' Morpha lemmas, if the caller has them (see
            :func:`~.dependencies.basic`).

    Returns:
        ``(relation, governor, dependent)`` triples with 1-based positions, sorted by dependent,
        governor and relation name, then ``("root", 0, i)``. A copy of a word (made when a
        coordinated preposition or PP is expanded) appears with its original's position.

    Example:
        >>> ccprocessed("(ROOT (NP (NP (DT a) (NN dog)) (PP (IN on) (NP (DT a) (NN bed)))))")
        [('det', 2, 1), ('case', 5, 3), ('det', 5, 4), ('nmod:on', 2, 5), ('root', 0, 2)]
    """
    analysis = analyze(tree, sentence_index=sentence_index, lemmas=lemmas)
    return _listing(collapse(analysis, sentence_index=sentence_index))
