"""Conversion: a retagged spaCy sentence -> the CoreNLP UD v1 CCprocessed graph SPICE's rules read.

See :mod:`capeval.metrics.spice.spacy_parser` for the rewrites (prepositions, renames, copulas,
conjunctions). :func:`emulate_fragment` then emulates the official PCFG on noun-phrase fragments.
"""

from __future__ import annotations

from collections.abc import Sequence

from capeval.metrics.spice.depgraph import DepGraph, Token
from capeval.metrics.spice.lemma import MorphaLemmatizer
from capeval.metrics.spice.parsing.retag import Word, consistent_tags
from capeval.metrics.spice.parsing.vocab import (
    BE_FORMS,
    SENTENCE_END,
    THREE_WORD_PREPOSITIONS,
    TWO_WORD_PREPOSITIONS,
)

__all__ = ["convert_sentence", "emulate_fragment"]

_RENAMES = {
    "prt": "compound:prt",
    "relcl": "acl:relcl",
    "npadvmod": "nmod:npmod",
    "quantmod": "advmod",
    "predet": "det:predet",
    "oprd": "xcomp",
    "poss": "nmod:poss",
    "intj": "discourse",
    "meta": "dep",
    "preconj": "cc:preconj",
    "dative": "iobj",
}
#: Three-word prepositions that official output splits after a noun (measured on the
#: official parser outputs: 9 of 10 noun-attached "on top of"; "in front of" mostly collapses).
_NP_SPLIT_PREPOSITIONS = frozenset({"on_top_of"})
#: Two-word prepositions whose first word, after a verb, the PCFG reads as the verb's adverb,
#: so they do not collapse ("trucks parked next to a plane" -> (truck, park to, plane): 4 of 5
#: verb-attached "next to" in the official parser outputs).
_VERB_ADVERB_PREPOSITIONS = frozenset({"next_to"})
#: Objects (dobj or nmod) of a fragment's participle from which the PCFG reads the participle
#: as a compound head rather than a dangling phrase (measured on Flickr8K-Expert candidates).
_FRAGMENT_COMPOUND_OBJECTS = 2
_PREP_LABELS = frozenset({"prep", "agent", "dative"})
_NON_PREDICATE_NMOD = frozenset({"nmod:agent", "nmod:poss", "nmod:tmod", "nmod:npmod"})


class _Edges:
    """Mutable edge list with the lookups the converter needs."""

    def __init__(self, edges: list[tuple[int, int, str]]) -> None:
        self.edges = edges

    def children(self, gov: int, rels: Sequence[str] | None = None) -> list[tuple[str, int]]:
        return sorted(
            ((r, d) for g, d, r in self.edges if g == gov and (rels is None or r in rels)), key=lambda x: x[1]
        )

    def parents(self, dep: int) -> list[tuple[str, int]]:
        return [(r, g) for g, d, r in self.edges if d == dep]

    def remove(self, gov: int, dep: int, rel: str) -> None:
        if (gov, dep, rel) in self.edges:
            self.edges.remove((gov, dep, rel))

    def add(self, gov: int, dep: int, rel: str) -> None:
        if (gov, dep, rel) not in self.edges and gov != dep:
            self.edges.append((gov, dep, rel))


def _flatten_noun_phrases(tokens: dict[int, Token], e: _Edges) -> None:
    """Pre-nominal nouns all modify the head noun, as in CoreNLP's flat PTB noun phrases.

    spaCy nests "kitchen counter top" as ``compound(counter, kitchen)``,
    ``compound(top, counter)``; the PCFG's flat NP gives ``compound(top, kitchen)`` and
    ``compound(top, counter)`` (so SPICE yields (top, kitchen), (top, counter)).
    """
    changed = True
    while changed:
        changed = False
        for g, d, r in list(e.edges):
            if r != "compound" or d > g:
                continue
            for r2, x in e.children(d, ("compound",)):
                if x < d:
                    e.remove(d, x, r2)
                    e.add(g, x, r2)
                    changed = True
    # Adjectives before a compound modifier also go to the head ("green street signs": sign is green).
    for g, d, r in list(e.edges):
        if r != "compound" or d > g or tokens[g].word.lower().endswith("ing") or not tokens[g].tag.startswith("NN"):
            continue
        if not e.parents(g) and tokens[g].tag != "NN":
            continue
        for r2, a in e.children(d, ("amod",)):
            if a < d:
                e.remove(d, a, r2)
                e.add(g, a, r2)


def _attach_of_to_root_noun(tokens: dict[int, Token], e: _Edges, roots: list[int]) -> None:
    """ "doors on the side of a bus": in a noun-phrase caption the PCFG attaches the "of" phrase
    to the head noun, giving (door, on, side) + (door, of, bus) (7 of 8 such captions in the
    official parser outputs); spaCy attaches it to "side"."""
    for root in roots:
        if not tokens[root].tag.startswith("NN"):
            continue
        for _, p in e.children(root, ("prep",)):
            if tokens[p].word.lower() == "of":
                continue
            for _, n in e.children(p, ("pobj",)):
                for _, of in e.children(n, ("prep",)):
                    if tokens[of].word.lower() == "of" and e.children(of, ("pobj",)):
                        e.remove(n, of, "prep")
                        e.add(root, of, "prep")


def _collapse_prepositions(tokens: dict[int, Token], e: _Edges, split_after_nouns: bool = False) -> None:
    def word(i: int) -> str:
        return tokens[i].word.lower()

    handled: set[int] = set()
    # Three-word prepositions: X -prep-> w1 -pobj-> w2 -prep-> w3 -pobj-> N.
    for gov, p, rel in list(e.edges):
        if rel not in _PREP_LABELS or p in handled:
            continue
        for _, w2 in e.children(p, ("pobj",)):
            for _, w3 in e.children(w2, ("prep",)):
                key = f"{word(p)}_{word(w2)}_{word(w3)}"
                objs = e.children(w3, ("pobj",))
                noun_gov = tokens[gov].tag.startswith("NN") and not any(r == "dobj" for r, _ in e.parents(gov))
                if split_after_nouns and key in _NP_SPLIT_PREPOSITIONS and noun_gov and objs:
                    # "flag on top of lighthouse": after a noun (not a verb's object) the PCFG
                    # attaches both phrases to it, (flag, on, top) + (flag, of, lighthouse).
                    e.remove(w2, w3, "prep")
                    e.add(gov, w3, "prep")
                    break
                if key in THREE_WORD_PREPOSITIONS and objs:
                    e.remove(gov, p, rel)
                    e.remove(p, w2, "pobj")
                    e.remove(w2, w3, "prep")
                    for _, n in objs:
                        e.remove(w3, n, "pobj")
                        e.add(gov, n, "nmod:" + key)
                        e.add(n, p, "case")
                    e.add(p, w2, "mwe")
                    e.add(p, w3, "mwe")
                    handled.add(p)
                    break
            if p in handled:
                break
    # Two-word prepositions: X -(prep|advmod|amod)-> w1 -prep-> w2 -pobj-> N.
    for gov, w1, rel in list(e.edges):
        if w1 in handled or rel not in ("prep", "advmod", "amod", "acomp", "prt", "agent"):
            continue
        for _, w2 in e.children(w1, ("prep",)):
            key = f"{word(w1)}_{word(w2)}"
            objs = e.children(w2, ("pobj", "pcomp"))
            if key in _VERB_ADVERB_PREPOSITIONS and rel == "advmod" and tokens[gov].tag.startswith("VB") and objs:
                # "standing next to the bales": after a verb the adverb stays the verb's advmod and
                # the preposition heads its own phrase on the verb, (lamb, stand to, bale).
                e.remove(w1, w2, "prep")
                e.add(gov, w2, "prep")
                break
            if key in TWO_WORD_PREPOSITIONS and objs:
                e.remove(gov, w1, rel)
                e.remove(w1, w2, "prep")
                for r, n in objs:
                    e.remove(w2, n, r)
                    e.add(gov, n, "nmod:" + key)
                    e.add(n, w1, "case")
                e.add(w1, w2, "mwe")
                handled.add(w1)
                break
    # Single prepositions.
    for gov, p, rel in list(e.edges):
        if rel not in _PREP_LABELS or p in handled:
            continue
        objs = e.children(p, ("pobj",))
        comps = e.children(p, ("pcomp",))
        # CoreNLP labels "by" as agent only inside a passive with an auxiliary ("is eaten by",
        # "being eaten by"); a reduced relative ("building surrounded by trees") keeps nmod:by.
        agent = rel == "agent" and bool(e.children(gov, ("auxpass",)))
        name = "agent" if agent else word(p).replace(" ", "_")
        if objs:
            e.remove(gov, p, rel)
            for _, n in objs:
                e.remove(p, n, "pobj")
                e.add(gov, n, "nmod:" + name)
                e.add(n, p, "case")
        elif comps:
            e.remove(gov, p, rel)
            for _, c in comps:
                e.remove(p, c, "pcomp")
                if tokens[c].tag.startswith("NN") or tokens[c].tag in ("PRP", "CD"):
                    e.add(gov, c, "nmod:" + name)
                    e.add(c, p, "case")
                else:
                    clausal = "acl:" if tokens[gov].tag.startswith("NN") else "advcl:"
                    e.add(gov, c, clausal + name)
                    e.add(c, p, "mark")
        elif rel == "dative":
            e.remove(gov, p, rel)
            e.add(gov, p, "iobj")
        handled.add(p)


def _restructure_copulas(tokens: dict[int, Token], e: _Edges, roots: list[int]) -> None:
    for b in sorted(tokens):
        if tokens[b].word.lower() not in BE_FORMS or not tokens[b].tag.startswith("VB"):
            continue
        incoming = e.parents(b)
        if any(r in ("aux", "auxpass") for r, _ in incoming):
            continue
        children = e.children(b)
        if any(r == "expl" for r, _ in children):
            for r, d in children:
                if r == "attr":
                    e.remove(b, d, r)
                    e.add(b, d, "nsubj")
            continue
        if not any(r in ("nsubj", "csubj") for r, _ in children):
            continue
        pred = next((d for r, d in children if r in ("attr", "acomp")), None)
        pred_rel = "attr"
        if pred is None:
            found = next(((r, d) for r, d in children if r.startswith("nmod:") and r not in _NON_PREDICATE_NMOD), None)
            if found is None:
                continue
            pred_rel, pred = found
        else:
            pred_rel = next(r for r, d in children if d == pred)
        e.remove(b, pred, pred_rel)
        for r, g in incoming:
            e.remove(g, b, r)
            e.add(g, pred, r)
        if b in roots:
            roots[roots.index(b)] = pred
        for r, d in e.children(b):
            e.remove(b, d, r)
            e.add(pred, d, r)
        e.add(pred, b, "cop")


def _attach_participles_low(tokens: dict[int, Token], e: _Edges) -> None:
    """ "a dog sits on a lawn wearing a jacket": spaCy attaches a subject-less participle
    phrase to the verb (``advcl``); the PCFG attaches it low, as a reduced relative of the
    nearest noun before it, (lawn, wear, jacket). Phrases opened by "while", "after" ...
    (``mark``) stay adverbial clauses."""
    for gov, v, rel in list(e.edges):
        if rel != "advcl" or tokens[v].tag != "VBG":
            continue
        if e.children(v, ("nsubj", "nsubjpass", "aux", "mark")):
            continue
        nouns = [i for i in tokens if i < v and tokens[i].tag.startswith("NN")]
        if nouns:
            e.remove(gov, v, rel)
            e.add(max(nouns), v, "acl")


def _process_conjunctions(tokens: dict[int, Token], e: _Edges) -> None:
    # Flatten chains X -conj-> Y -conj-> Z onto X, gather cc words onto the first conjunct.
    changed = True
    while changed:
        changed = False
        for g, d, r in list(e.edges):
            if r != "conj":
                continue
            for r2, x in e.parents(g):
                if r2 == "conj":
                    e.remove(g, d, r)
                    e.add(x, d, "conj")
                    changed = True
                    break
    heads = sorted({g for g, _, r in e.edges if r == "conj"})
    for x in heads:
        conjuncts = [d for _, d in e.children(x, ("conj",))]
        cc_words = [d for m in [x, *conjuncts] for _, d in e.children(m, ("cc",))]
        for cc in cc_words:
            for r, g in e.parents(cc):
                if r == "cc" and g != x:
                    e.remove(g, cc, r)
                    e.add(x, cc, "cc")
        label = "conj:" + tokens[cc_words[0]].word.lower() if cc_words else "conj:and"
        label = {"conj:&": "conj:and", "conj:nor": "conj:nor"}.get(label, label)
        for d in conjuncts:
            e.remove(x, d, "conj")
            e.add(x, d, label)
        # CCprocessed: the other conjuncts share the first one's governors ...
        for r, g in e.parents(x):
            if r in ("root", "case") or r.startswith("conj"):
                continue
            in_relcl = any(r2 == "acl:relcl" for r2, _ in e.parents(g))
            if in_relcl and r in ("nsubj", "dobj"):
                continue
            for d in conjuncts:
                e.add(g, d, r)
        # ... and verbal/adjectival conjuncts without a subject share its subject.
        subjects = e.children(x, ("nsubj", "nsubjpass"))
        if subjects:
            for d in conjuncts:
                if not (tokens[d].tag.startswith("VB") or tokens[d].tag.startswith("JJ")):
                    continue
                if e.children(d, ("nsubj", "nsubjpass")):
                    continue
                for r, s in subjects:
                    e.add(d, s, r)


def convert_sentence(
    words: Sequence[Word], lemmatize: MorphaLemmatizer, *, emulate_attachment: bool = False
) -> DepGraph:
    """One spaCy sentence -> CoreNLP-style UD v1 CCprocessed :class:`DepGraph`.

    Args:
        words: One :class:`~capeval.metrics.spice.parsing.retag.Word` per token (or a plain
            ``(text, tag, head, dep)`` tuple), heads as offsets in the sentence (a token whose
            head is itself is a root).
        lemmatize: the Morpha-like lemmatiser.
        emulate_attachment: Reproduce two attachments the official PCFG prefers in noun-phrase
            captions (see :func:`_attach_of_to_root_noun` and :data:`_NP_SPLIT_PREPOSITIONS`).
    """
    tokens: dict[int, Token] = {}
    raw: list[tuple[int, int, str]] = []
    roots: list[int] = []
    for i, (text, tag, head, dep) in enumerate(consistent_tags([Word(*w) for w in words], lemmatize), start=1):
        tokens[i] = Token(i, text, tag, lemmatize(text, tag))
        label = dep.lower()
        if head == i - 1 or label == "root":
            roots.append(i)
        else:
            raw.append((head + 1, i, _RENAMES.get(label, label) if label not in ("dative",) else label))
    e = _Edges(raw)
    _flatten_noun_phrases(tokens, e)
    if emulate_attachment:
        _attach_of_to_root_noun(tokens, e, roots)
    # A particle with an object ("shaking off water"): the object belongs to the verb (dobj).
    for g, p, r in list(e.edges):
        if r == "compound:prt":
            for _, n in e.children(p, ("pobj",)):
                e.remove(p, n, "pobj")
                e.add(g, n, "dobj")
            # "walking down a sidewalk": spaCy's bare-NP adverbial after a particle is its object.
            for _, n in e.children(g, ("nmod:npmod",)):
                if n > p and tokens[n].tag.startswith("NN"):
                    e.remove(g, n, "nmod:npmod")
                    e.add(g, n, "dobj")
    _collapse_prepositions(tokens, e, split_after_nouns=emulate_attachment)
    for g, d, r in list(e.edges):
        if r == "dative":
            e.remove(g, d, r)
            e.add(g, d, "iobj")
    _restructure_copulas(tokens, e, roots)
    for g, d, r in list(e.edges):
        if r in ("attr", "acomp"):
            e.remove(g, d, r)
            e.add(g, d, "xcomp")
    _process_conjunctions(tokens, e)
    _attach_participles_low(tokens, e)
    graph = DepGraph(tokens=tokens, roots=roots)
    for g, d, r in e.edges:
        graph.add_edge(g, d, r)
    return graph


def emulate_fragment(graph: DepGraph) -> None:
    """PCFG behaviour on "NOUN VERB-ing ..." fragments without final punctuation.

    The PCFG reads such a caption as a noun phrase, in one of two ways (measured on official
    outputs): with a short participle phrase ("vase sitting on the table", "a dog wading into
    the water") the phrase hangs under ``dep`` and yields no relation; with a longer one, two
    or more objects ("a dog wading in the water with a ball in his mouth", "a woman riding a
    bike in a park"), the participle right after the noun is tagged as a noun that heads a
    compound: (wading, dog), (wading, in, water), and the noun itself is no object. The
    compound reading needs the participle right after its noun; a participle further away
    ("man in black shirt sitting on floor") hangs under ``dep`` (13 of 14 such captions).
    """
    last = graph.tokens[max(graph.tokens)].word
    if last in SENTENCE_END:
        return
    for root in list(graph.roots):
        if graph.tokens[root].tag not in ("NN", "NNP"):
            continue
        if graph.children_by(root, ("cop", "nsubj")):  # "this is a dog running ...": a clause
            continue
        participles = [d for rel, d in graph.children(root) if rel == "acl" and graph.tokens[d].tag == "VBG"]
        if not participles:
            continue
        d = participles[0]
        # A collapsed three-word preposition ("in front of") is two phrases to the PCFG.
        objects = sum(
            2 if rel.count("_") == 2 else 1 for rel, _ in graph.children(d) if rel == "dobj" or rel.startswith("nmod:")
        )
        if objects >= _FRAGMENT_COMPOUND_OBJECTS and d == root + 1:
            _participle_compound(graph, root, d)
        else:
            for p in participles:
                graph.remove_edge(root, p, "acl")
                graph.add_edge(root, p, "dep")
        return


def _participle_compound(graph: DepGraph, noun: int, participle: int) -> None:
    """The participle becomes a noun heading the phrase, with the old head noun as compound."""
    token = graph.tokens[participle]
    token.tag = "NN"
    token.lemma = token.word.lower()
    graph.remove_edge(noun, participle, "acl")
    graph.roots[graph.roots.index(noun)] = participle
    for rel, c in graph.children(noun):
        if (c < noun and rel in ("det", "amod", "compound", "nummod", "nmod:poss")) or c > participle:
            graph.remove_edge(noun, c, rel)
            graph.add_edge(participle, c, rel)
    graph.add_edge(participle, noun, "compound")
    for rel, c in graph.children(participle):
        if rel == "dobj":  # a noun takes no object: the PCFG's flat phrase leaves it unattached
            graph.remove_edge(participle, c, rel)
            graph.add_edge(participle, c, "dep")
