"""SPICE's enhancements and rules as the spaCy approximation applies them.

The spaCy parser (:mod:`capeval.metrics.spice.spacy_parser`) was calibrated against official
outputs with these rules: a simplified reading of SPICE 1.0's patterns on
:class:`~capeval.metrics.spice.depgraph.DepGraph` (nodes parents first, then by position,
instead of CoreNLP's hash order; the quantifier patterns' word sets; one pass per pattern). They
stay as they are so that the approximation, its cached tuples and what was trained on them keep
their values. The exact rules, for graphs from the official pipeline, are
:mod:`capeval.metrics.spice.rules`.

Output: raw tuples, relations ``[subject, object, predicate]``, attributes ``[object,
attribute]``, objects ``[object]``. Official quirks kept: the noun-conjunction rule is dead
code in SPICE (not implemented); counts attach to plural nouns only, from a pre-nominal
``nummod`` or else the ``det:qmod`` word ("a lot of horses" -> ``(horse, a)``); stray nouns
left by rewrites ("couple", "front", "top") are objects; both halves of a compound lose their
object tuple; ``nmod:tmod`` / ``nmod:npmod`` give predicates ending in " tmod" / " npmod".
"""

from __future__ import annotations

import re
from collections import deque

from capeval.metrics.spice.depgraph import DepGraph
from capeval.metrics.spice.rules import QMOD_P1_WORDS, QMOD_P2_WORDS, QMOD_P3_WORDS, SINGULAR_PRONOUNS

__all__ = ["extract_tuples"]

_DIGITS_S = re.compile(r"[0-9]+s")
_DIGITS = re.compile(r"[0-9]+")

_NOUN = re.compile(r"NNP?S?")
_PLURAL = re.compile(r"NNP?S")
_OBJ_REL = re.compile(r"iobj|dobj|nmod:.*")
_DOBJ_IOBJ = frozenset({"dobj", "iobj"})


def _node_order(graph: DepGraph) -> list[int]:
    """Nodes parents first, then by position; plain position order if the graph has a cycle."""
    indegree = dict.fromkeys(graph.tokens, 0)
    out: dict[int, list[int]] = {i: [] for i in graph.tokens}
    seen: set[tuple[int, int]] = set()
    for g, d, _ in graph.edges:
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
    if len(order) != len(graph.tokens):
        return sorted(graph.tokens)
    return order


def _is_noun(graph: DepGraph, i: int) -> bool:
    return _NOUN.fullmatch(graph.tokens[i].tag) is not None


def _is_plural(graph: DepGraph, i: int) -> bool:
    return _PLURAL.fullmatch(graph.tokens[i].tag) is not None


def _noun_or_pronoun(graph: DepGraph, i: int) -> bool:
    tag = graph.tokens[i].tag
    return _NOUN.fullmatch(tag) is not None or tag.startswith("PRP")


# --- 1. quantificational modifiers -------------------------------------------------------------


def _nmod_children(graph: DepGraph, i: int) -> list[int]:
    return [d for rel, d in graph.children(i) if rel == "nmod" or rel.startswith("nmod:")]


def _case_of(graph: DepGraph, gov: int, position: int) -> int | None:
    for rel, d in graph.children(gov):
        if rel == "case" and d == position and graph.tokens[d].word.lower() == "of":
            return d
    return None


def _apply_qmod(graph: DepGraph, head: int, gov: int, words: set[int]) -> None:
    # gov takes over the quantifier head's incoming edges (or its place as root).
    graph.remove_edge_any(head, gov)
    for rel, g in graph.parents(head):
        graph.remove_edge(g, head, rel)
        if g != gov:
            graph.add_edge(g, gov, rel)
    if head in graph.roots:
        graph.roots[graph.roots.index(head)] = gov
    ordered = sorted(words)
    for w in ordered:
        for rel, g in graph.parents(w):
            graph.remove_edge(g, w, rel)
    first = ordered[0]
    graph.add_edge(gov, first, "det:qmod")
    for w in ordered[1:]:
        graph.add_edge(first, w, "mwe")


def rewrite_quantifiers(graph: DepGraph) -> None:
    """Rewrite the three quantificational-modifier patterns in place (scenegraph-1.0, kept quirks)."""
    # Pattern 1: "a couple of dogs" (det a/an on the quantifier noun; "of" right after it).
    for w2 in list(_node_order(graph)):
        tok = graph.tokens[w2]
        if tok.word.lower() not in QMOD_P1_WORDS:
            continue
        dets = [d for rel, d in graph.children(w2) if rel == "det" and graph.tokens[d].word.lower() in ("a", "an")]
        if not dets:
            continue
        for gov in _nmod_children(graph, w2):
            if not _noun_or_pronoun(graph, gov):
                continue
            w3 = _case_of(graph, gov, w2 + 1)
            if w3 is None:
                continue
            words = {dets[0], w2, w3}
            words |= {d for rel, d in graph.children(w2) if rel == "amod" and d < w2}
            _apply_qmod(graph, w2, gov, words)
            break
    # Pattern 2: "lots of dogs", "two pairs of scissors".
    for w1 in list(_node_order(graph)):
        word = graph.tokens[w1].word.lower()
        if word not in QMOD_P2_WORDS and not _DIGITS_S.fullmatch(word):
            continue
        for gov in _nmod_children(graph, w1):
            if not _noun_or_pronoun(graph, gov):
                continue
            of_word = _case_of(graph, gov, w1 + 1)
            if of_word is None:
                continue
            words = {w1, of_word} | {d for _, d in graph.children(w1) if d < w1}
            _apply_qmod(graph, w1, gov, words)
            break
    # Pattern 3: "two of the men", "all of them".
    for w1 in list(_node_order(graph)):
        word = graph.tokens[w1].word.lower()
        if word not in QMOD_P3_WORDS and not _DIGITS.fullmatch(word):
            continue
        for gov in _nmod_children(graph, w1):
            of_word = _case_of(graph, gov, w1 + 1)
            if of_word is None:
                continue
            words = {w1, of_word}
            if _is_noun(graph, gov):
                dets = [d for rel, d in graph.children(gov) if rel == "det" and d == of_word + 1]
                if not dets:
                    continue
                words.add(dets[0])
            elif not graph.tokens[gov].tag.startswith("PRP"):
                continue
            words |= {d for _, d in graph.children(w1) if d < w1}
            _apply_qmod(graph, w1, gov, words)
            break


# --- 2. pronoun resolution -----------------------------------------------------------------------


def _antecedent(graph: DepGraph, singular: bool) -> int | None:
    if not graph.roots:
        return None
    wanted = ("NN", "NNP") if singular else ("NN", "NNS", "NNP", "NNPS")
    start = graph.roots[0]
    queue = deque([start])
    seen = {start}
    while queue:
        node = queue.popleft()
        if graph.tokens[node].tag in wanted:
            return node
        for _, d in graph.children(node):
            if d not in seen:
                seen.add(d)
                queue.append(d)
    return None


def resolve_pronouns(graph: DepGraph) -> None:
    """Point pronouns' edges at their antecedent (scenegraph-1.0 ``SimplePronounResolution``)."""
    pairs: list[tuple[int, int]] = []
    for i in sorted(graph.tokens):
        tok = graph.tokens[i]
        if i <= 1 or not tok.tag.startswith("PRP") or not graph.parents(i):
            continue
        ante = _antecedent(graph, tok.word in SINGULAR_PRONOUNS)
        if ante is not None and ante < i:
            pairs.append((i, ante))
    for pronoun, ante in pairs:
        if pronoun in graph.roots:
            graph.roots[graph.roots.index(pronoun)] = ante
        for rel, g in graph.parents(pronoun):
            graph.remove_edge(g, pronoun, rel)
            graph.add_edge(g, ante, rel)
        for rel, d in graph.children(pronoun):
            graph.remove_edge(pronoun, d, rel)
            graph.add_edge(ante, d, rel)


# --- 3. rules -------------------------------------------------------------------------------------


def _lemma(graph: DepGraph, i: int) -> str:
    return graph.tokens[i].lemma.strip().lower()


def _predicate(graph: DepGraph, p: int) -> str:
    lemma = graph.tokens[p].lemma
    particles = graph.children_by(p, ("compound:prt",))
    if particles:
        # A particle under "be" gives a predicate with a leading space (official quirk).
        head = "" if lemma == "be" else lemma
        return head + " " + graph.tokens[particles[0]].word
    return lemma


def _suffix(rel: str) -> str:
    if rel.startswith("nmod:") and rel not in ("nmod:poss", "nmod:agent"):
        return " " + rel[5:].replace("_", " ")
    return ""


def _object_children(graph: DepGraph, p: int) -> list[tuple[str, int]]:
    return [(rel, d) for rel, d in graph.children(p) if _OBJ_REL.fullmatch(rel) and _is_noun(graph, d)]


def _case_phrase(graph: DepGraph, c: int) -> str:
    words = [graph.tokens[c].word] + [graph.tokens[m].word for m in graph.children_by(c, ("mwe",))]
    return " ".join(words)


def _count_attribute(graph: DepGraph, w: int) -> list[str] | None:
    nummods = graph.children_by(w, ("nummod",))
    if nummods:
        n = nummods[0]
        return [_lemma(graph, w), _lemma(graph, n)] if n < w else None
    qmods = graph.children_by(w, ("det:qmod",))
    if qmods:
        return [_lemma(graph, w), _lemma(graph, qmods[0])]
    return None


def _plural_objects(graph: DepGraph, p: int) -> list[int]:
    """Plural ``dobj``/``iobj`` children, and plural case-marked non-agent ``nmod`` children."""
    out = []
    for rel, d in graph.children(p):
        if not _is_plural(graph, d):
            continue
        if rel in _DOBJ_IOBJ or (rel.startswith("nmod:") and rel != "nmod:agent" and graph.children_by(d, ("case",))):
            out.append(d)
    return out


def _counts(graph: DepGraph, order: list[int]) -> list[list[str]]:
    found: list[list[str]] = []

    def check(w: int, seen: set[int]) -> None:
        if w in seen:
            return
        seen.add(w)
        attr = _count_attribute(graph, w)
        if attr is not None:
            found.append(attr)

    subjects = {d for g, d, rel in graph.edges if rel == "nsubj"}
    # A: plural subject with a plural object.
    seen_a: set[int] = set()
    for p in order:
        subs = [s for s in graph.children_by(p, ("nsubj",)) if _is_plural(graph, s)]
        objs = _plural_objects(graph, p)
        if subs and objs:
            check(subs[0], seen_a)
            check(objs[0], seen_a)
    # B: plural root, or plural subject of a predicate without plural objects.
    seen_b: set[int] = set()
    for w in order:
        if not _is_plural(graph, w):
            continue
        if w in graph.roots:
            check(w, seen_b)
            continue
        for p in [g for g, d, rel in graph.edges if d == w and rel == "nsubj"]:
            if not _plural_objects(graph, p):
                check(w, seen_b)
                break
    # C: any other plural noun (not a root, not a subject, not an object of a plural subject's predicate).
    seen_c: set[int] = set()
    for w in order:
        if not _is_plural(graph, w) or w in graph.roots or w in subjects:
            continue
        excluded = False
        for rel, g in graph.parents(w):
            if (rel in _DOBJ_IOBJ or rel.startswith("nmod")) and any(
                _is_plural(graph, s) for s in graph.children_by(g, ("nsubj",))
            ):
                excluded = True
                break
        if not excluded:
            check(w, seen_c)
    return found


def extract_tuples(graph: DepGraph) -> list[list[str]]:
    """Run SPICE's enhancements and rules on one sentence graph (mutates the graph)."""
    rewrite_quantifiers(graph)
    resolve_pronouns(graph)
    order = _node_order(graph)
    out: list[list[str]] = []
    lemma = _lemma

    # 1. subject-verb-object
    for p in order:
        if graph.children_by(p, ("cop",)):
            continue
        subjects = [s for s in graph.children_by(p, ("nsubj",)) if _is_noun(graph, s)]
        for s in subjects:
            for rel, o in _object_children(graph, p):
                out.append([lemma(graph, s), lemma(graph, o), _predicate(graph, p) + _suffix(rel)])
    # 2. reduced relative clause ("dog chasing a ball")
    for s in order:
        for p in graph.children_by(s, ("acl",)):
            if not graph.tokens[p].tag.startswith("V"):
                continue
            for rel, o in _object_children(graph, p):
                out.append([lemma(graph, s), lemma(graph, o), _predicate(graph, p) + _suffix(rel)])
    # 3. subject-predicate without object or copula; 4. copula
    for copular in (False, True):
        for p in order:
            if bool(graph.children_by(p, ("cop",))) != copular:
                continue
            subjects = [s for s in graph.children_by(p, ("nsubj",)) if _is_noun(graph, s)]
            if not subjects or (not copular and _object_children(graph, p)):
                continue
            cases = graph.children_by(p, ("case",))
            for s in subjects:
                if cases:
                    for c in cases:
                        out.append([lemma(graph, s), lemma(graph, p), _case_phrase(graph, c)])
                elif lemma(graph, p) != "be":
                    out.append([lemma(graph, s), lemma(graph, p)])
    # 5. adjectival modifier
    for o in order:
        for a in graph.children_by(o, ("amod",)):
            out.append([lemma(graph, o), lemma(graph, a)])
    # 6. predicative adjective
    for a in order:
        if graph.tokens[a].tag.startswith("J"):
            for o in graph.children_by(a, ("nsubj",)):
                out.append([lemma(graph, o), lemma(graph, a)])
    # 7. prepositional modifier of a noun
    for g in order:
        if not _is_noun(graph, g):
            continue
        for rel, m in graph.children(g):
            if rel.startswith("nmod:") and rel not in ("nmod:poss", "nmod:agent"):
                out.append([lemma(graph, g), lemma(graph, m), rel[5:].replace("_", " ")])
    # 8. possessive
    for g in order:
        if not _is_noun(graph, g):
            continue
        for m in graph.children_by(g, ("nmod:poss",)):
            if _is_noun(graph, m):
                out.append([lemma(graph, m), lemma(graph, g), "have"])
    # 9. passive with agent
    for p in order:
        if not graph.tokens[p].tag.startswith("V"):
            continue
        agents = [s for s in graph.children_by(p, ("nmod:agent",)) if _is_noun(graph, s)]
        patients = [o for o in graph.children_by(p, ("nsubjpass",)) if _is_noun(graph, o)]
        for s in agents:
            for o in patients:
                out.append([lemma(graph, s), lemma(graph, o), _predicate(graph, p)])
    # 10. counts
    out.extend(_counts(graph, order))
    # 11. compounds (both halves lose their object tuple)
    compound: set[int] = set()
    for t in order:
        if not _is_noun(graph, t):
            continue
        for h in graph.children_by(t, ("compound",)):
            if _is_noun(graph, h):
                out.append([lemma(graph, t), lemma(graph, h)])
                compound.update((t, h))
    # 12. noun conjunction: dead code in SPICE 1.0, deliberately absent.
    # 13. objects
    for i in sorted(graph.tokens):
        if _is_noun(graph, i) and i not in compound:
            out.append([lemma(graph, i)])
    return out
