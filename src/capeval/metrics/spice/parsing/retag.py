"""Retagging: make spaCy's tags and attachments agree the way the official PCFG's joint analysis does.

spaCy tags and parses separately; the official SPICE parser (CoreNLP 3.6.0's lexicalised PCFG)
chooses tags and tree together. Each repair here rewrites a sentence's :class:`Word` records
(text, Penn tag, head offset, ClearNLP label) where the two disagree, measured on official
parser outputs; :func:`consistent_tags` applies them in a fixed order. The conversion to UD
dependencies (:mod:`.convert`) then reads the repaired records.
"""

from __future__ import annotations

from typing import NamedTuple

from capeval.metrics.spice.lemma import PLURAL_ONLY_NOUNS, MorphaLemmatizer
from capeval.metrics.spice.parsing.vocab import BE_FORMS, NOUN_TAGS, SENTENCE_END, TWO_WORD_PREPOSITIONS

__all__ = ["COLOUR_WORDS", "Word", "consistent_tags"]


class Word(NamedTuple):
    """One token of a parsed sentence, as the retagging and the conversion read it.

    Attributes:
        text: The token.
        tag: Its Penn Treebank tag.
        head: Offset of its head in the sentence (a token whose head is itself is a root).
        dep: Its dependency label (ClearNLP labels, as spaCy's English pipelines give them).
    """

    text: str
    tag: str
    head: int
    dep: str


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
#: Participles before a noun that the PCFG tags VBN, so their lemma is the attribute (4 of 5
#: "colored" in the official parser outputs; other participles there mostly stay adjectives).
_VERBAL_PARTICIPLES = frozenset({"colored"})
#: Dependencies of a noun that can start a comma-separated list (see _comma_lists).
_LIST_HEAD_DEPS = ("dobj", "pobj", "conj", "nsubj")
#: Dependents that make a verb a clause of its own.
_CLAUSE_DEPS = frozenset({"nsubj", "nsubjpass", "aux", "auxpass", "expl"})
#: Adjectives that head an object phrase without being nouns ("the other", "the same").
_NOT_NOUNS = frozenset({"other", "same"})
#: Auxiliary forms of "be" and "have" (see _subject_on_auxiliary).
_AUXILIARY_FORMS = BE_FORMS | frozenset({"has", "have", "had", "having"})


def consistent_tags(words: list[Word], lemmatize: MorphaLemmatizer) -> list[Word]:
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
    has_subject = {w.head for w in words if w.dep in ("nsubj", "nsubjpass")}
    for i, (text, tag, head, dep) in enumerate(words):
        if tag in ("NN", "NNS") and i in has_subject and dep in ("ROOT", "conj", "ccomp", "advcl", "relcl", "acl"):
            new = "VBG" if text.lower().endswith("ing") else "VBZ" if tag == "NNS" else "VBP"
            words[i] = Word(text, new, head, dep)
        elif text.lower() == "other" and i > 0 and words[i - 1].text.lower() == "each":
            # the PCFG's (NP each/DT other/JJ): no object, no verb relation, but a noun's
            # preposition keeps it ("cat at each other" -> (cat, at, other))
            words[i] = Word(text, "JJ", head, dep)
        elif tag in ("JJ", "RB") and dep in ("pobj", "dobj") and _noun_with_article(words, i, lemmatize):
            # "on a grassy plain/RB", "in a uniform/JJ": an article makes the phrase's head a noun.
            words[i] = Word(text, "NN", head, dep)
        elif tag == "NNP" and dep == "amod" and text.islower():
            # Lower-cased captions: spaCy's proper-noun tag on an adjective ("green/NNP tennis ball").
            words[i] = Word(text, "JJ", head, dep)
        elif tag == "VBG" and dep in ("pobj", "dobj", "nsubj", "nsubjpass") and _nominal_gerund(words, i):
            # "cupcake with brown frosting": a gerund with noun modifiers and no verb dependents.
            words[i] = Word(text, "NN", head, dep)
        elif tag == "NN" and dep == "acl" and text.lower().endswith("ing"):
            words[i] = Word(text, "VBG", head, dep)
        elif text.lower() in _VERBAL_PARTICIPLES and dep == "amod":
            # ... except those the PCFG's lexicon keeps as participles ("colored lights": (light, color))
            words[i] = Word(text, "VBN", head, dep)
        elif tag == "VBN" and dep == "amod" and head > i:
            # Pre-nominal past participles are adjectives to the PCFG ("fenced area", "melted
            # cheese"); present participles mostly stay verbs ("living room": (room, live), 9 of
            # 13 VBG-tagged ones in the official parser outputs).
            words[i] = Word(text, "JJ", head, dep)
    participles = any(w.tag.startswith("VB") for w in words)
    if not any(w.tag in _FINITE_TAGS for w in words):
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
                not s_tag.startswith("NN") or r + 1 >= len(words) or words[r + 1].tag not in _VERB_FOLLOWERS
            ):
                continue
            # Agreement: "dog runs" (NN + NNS -> VBZ) or "girls dance" (NNS + NN -> VBP).
            plural_subject = s_tag in ("NNS", "NNPS")
            if (tag == "NNS") == plural_subject:
                continue
            verb_tag = "VBP" if plural_subject else "VBZ"
            # Otherwise only "a/an ... NOUNS": a singular determiner cannot go with a plural noun.
            # A full stop marks a sentence (the PCFG then prefers a clause over a bare noun phrase).
            sentence = words[-1].tag in (".", ",", ":")
            if not sentence and not any(
                w.head == r and w.dep == "det" and w.text.lower() in ("a", "an") for w in words[:subject]
            ):
                continue
            if lemmatize(text, verb_tag) not in lemmatize.verb_index:
                continue
            words[r] = Word(text, verb_tag, head, dep)
            words[subject] = Word(s_text, s_tag if s_tag.startswith("NN") else "NN", r, "nsubj")
            for j, w in enumerate(words):
                if w.head != r:
                    continue
                if j < subject and w.dep in ("det", "amod", "nummod", "compound", "poss"):
                    # determiners and modifiers before the subject go with it
                    words[j] = Word(w.text, w.tag, subject, w.dep)
                elif j > r and w.dep == "appos":  # "a dog bites a white dog": the object
                    words[j] = Word(w.text, w.tag, r, "dobj")
            break
        else:
            if participles:
                _verb_after_participle_phrase(words, lemmatize)
            else:
                _verb_inside_subject(words, lemmatize)
    return words


def _subject_read_as_compound(words: list[Word]) -> None:
    """ "A wakeboarder leaps in the air .", "a golden retriever plays with a toy .": spaCy tags
    the verb right but hangs the noun before it on it as a ``compound`` (with the determiner
    and adjectives), leaving the verb without a subject. The PCFG reads subject + verb: the
    noun becomes the ``nsubj`` and takes its modifiers along."""
    for v, (_text, tag, _head, dep) in enumerate(words):
        if tag not in ("VBZ", "VBP", "VBD") or dep != "ROOT" or v == 0:
            continue
        s = v - 1
        s_text, s_tag, s_head, s_dep = words[s]
        if s_head != v or s_dep != "compound" or s_tag not in NOUN_TAGS:
            continue
        if any(w.head == v and w.dep in ("nsubj", "nsubjpass", "expl") for j, w in enumerate(words) if j != v):
            continue
        words[s] = Word(s_text, s_tag, v, "nsubj")
        for j in range(s):
            w = words[j]
            if w.head == v and w.dep in ("det", "amod", "compound", "nummod", "poss"):
                words[j] = Word(w.text, w.tag, s, w.dep)


def _subject_on_auxiliary(words: list[Word]) -> None:
    """ "A boy is whispering to a girl": spaCy sometimes hangs the subject on the auxiliary
    ("is") instead of the verb; in UD the subject belongs to the verb the auxiliary serves."""
    for i, (text, tag, head, dep) in enumerate(words):
        if dep not in ("nsubj", "nsubjpass") or head == i:
            continue
        a_text, _a_tag, a_head, a_dep = words[head]
        if a_dep in ("aux", "auxpass") and a_text.lower() in _AUXILIARY_FORMS and a_head != head:
            words[i] = Word(text, tag, a_head, dep)


def _preposition_under_adverb(words: list[Word]) -> None:
    """ "A black dog jumping off of a dock .", "a hawk flies down towards the grass": spaCy
    hangs the preposition on the verb's particle or adverb, where the PCFG attaches the
    prepositional phrase to the verb itself. Two-word prepositions ("next to", "away from")
    after an adverb are left to the preposition collapsing."""
    for j, (text, tag, head, dep) in enumerate(words):
        if dep != "prep" or head == j:
            continue
        a_text, _a_tag, a_head, a_dep = words[head]
        if a_dep not in ("prt", "advmod") or a_head == head or not words[a_head].tag.startswith("VB"):
            continue
        if a_dep == "advmod" and f"{a_text.lower()}_{text.lower()}" in TWO_WORD_PREPOSITIONS:
            continue
        words[j] = Word(text, tag, a_head, dep)


def _conjunct_read_as_compound(words: list[Word]) -> None:
    """ "A child with a pink headband and blue shirt smiling .": spaCy hangs the noun after
    "and" on the following verb as a ``compound``; the PCFG coordinates it with the noun
    before "and" (the child is with the headband and with the shirt)."""
    for s, (text, tag, head, dep) in enumerate(words):
        if dep != "compound" or tag not in NOUN_TAGS or head != s + 1 or not words[head].tag.startswith("VB"):
            continue
        k = s - 1
        while k > 0 and words[k].tag in ("JJ", "DT") and words[k].head == s:
            k -= 1
        if words[k].dep != "cc" or words[k].text.lower() not in ("and", "or"):
            continue
        n = words[k].head
        if not (n < k and words[n].tag in NOUN_TAGS):
            continue
        words[s] = Word(text, tag, n, "conj")


def _bare_participle_clauses(words: list[Word]) -> None:
    """ "Two lizards fighting .": spaCy makes the participle a clause with the noun as its
    subject; without a finite verb or auxiliary the PCFG reads a noun phrase with a reduced
    relative, so the noun heads the sentence and the participle is its ``acl`` (no subject,
    hence no (lizard, fight) attribute). The same holds for a passive participle after "being"
    ("a man in a harness being dragged across the water .": the man is dragged across the
    water, a relation)."""
    if any(w.tag in _FINITE_TAGS for w in words):
        return
    for v, (text, tag, _head, dep) in enumerate(words):
        if dep != "ROOT" or tag not in ("VBG", "VBN"):
            continue
        deps = [(j, w.dep) for j, w in enumerate(words) if w.head == v and j != v]
        passive = tag == "VBN" and [words[j].text.lower() for j, d in deps if d in ("aux", "auxpass")] == ["being"]
        if not passive and any(d in ("aux", "auxpass", "cop", "expl") for _, d in deps):
            continue
        subject_dep = "nsubjpass" if passive else "nsubj"
        subjects = [j for j, d in deps if d == subject_dep and j < v and words[j].tag in NOUN_TAGS]
        if len(subjects) != 1:
            continue
        s = subjects[0]
        words[s] = Word(words[s].text, words[s].tag, s, "ROOT")
        words[v] = Word(text, tag, s, "acl")
        for j, d in deps:
            if d == "punct" or j < s:
                words[j] = Word(words[j].text, words[j].tag, s, d)


def _pronoun_phrase_after_noun(words: list[Word]) -> None:
    """ "the rock has moss on it", "a post with a clock on it": spaCy hangs "on it" on the verb
    or on the first noun, which makes a relation of the antecedent with itself once "it" is
    resolved. The PCFG attaches the phrase to the noun right before it: (moss, on, rock),
    (clock, on, post)."""
    for j, (text, tag, head, dep) in enumerate(words):
        if dep != "prep" or tag != "IN" or j < 2 or head == j - 1:
            continue
        if j + 1 >= len(words) or words[j + 1].text.lower() not in ("it", "them"):
            continue
        if words[j + 1].head != j or words[j + 1].dep != "pobj":
            continue
        noun = j - 1
        if words[noun].tag == "CD" and words[noun].head < noun:  # "the number 5 on it"
            noun = words[noun].head
        elif words[noun].dep == "conj" and words[noun].head < noun:  # "meat and vegetables on it"
            noun = words[noun].head
        if words[noun].tag not in NOUN_TAGS or words[noun].dep == "compound" or noun == head:
            continue
        words[j] = Word(text, tag, noun, dep)


def _in_between(words: list[Word]) -> None:
    """ "a light is in between the stuffed animals": CoreNLP has no "in between"; the PCFG's
    phrase is headed by "in", (light, in, animal)."""
    for j in range(len(words) - 1):
        if words[j].text.lower() != "in" or words[j + 1].text.lower() != "between" or words[j + 1].dep != "prep":
            continue
        if words[j].dep not in ("prep", "prt", "advmod") or any(w.head == j and w.dep == "pobj" for w in words):
            continue
        for k, w in enumerate(words):
            if w.head == j + 1 and w.dep == "pobj":
                words[k] = Word(w.text, w.tag, j, "pobj")
        words[j] = Word(words[j].text, "IN", words[j].head, "prep")


def _participle_after_of_phrase(words: list[Word]) -> None:
    """ "group of elephants walking in the water", "legs of man wearing red shirt": in a caption
    without a full stop the PCFG attaches the participle phrase to the noun right before it,
    (elephant, walk in, water); spaCy attaches it to the head of the "of" phrase. (5 of 5 such
    captions in the official parser outputs; the one with a full stop keeps the head.)"""
    if not words or words[-1].text in SENTENCE_END:
        return
    for v, (text, tag, head, dep) in enumerate(words):
        if tag != "VBG" or dep != "acl" or v < 3:
            continue
        noun = v - 1
        if words[noun].tag not in ("NN", "NNS", "NNPS") or words[noun].dep != "pobj" or head == noun:
            continue
        of = words[noun].head
        if words[of].text.lower() == "of" and words[of].head == head:
            words[v] = Word(text, tag, noun, dep)


def _noun_and_adjective_noun(words: list[Word]) -> None:
    """ "wearing a hat and red scarf": spaCy reads "hat and red" as a coordinated modifier of
    "scarf" (``nmod`` + ``conj``); the PCFG coordinates the nouns "hat" and "red scarf", so
    both are worn."""
    for i, (text, tag, head, dep) in enumerate(words):
        if dep != "nmod" or not tag.startswith("NN") or head <= i or not words[head].tag.startswith("NN"):
            continue
        kids = {w.dep: j for j, w in enumerate(words) if w.head == i and j != i}
        j = kids.get("conj")
        if "cc" not in kids or j is None or not words[j].tag.startswith("JJ") or not i < j < head:
            continue
        h_text, h_tag, h_head, h_dep = words[head]
        words[i] = Word(text, tag, h_head, h_dep)
        words[head] = Word(h_text, h_tag, i, "conj")
        words[j] = Word(words[j].text, words[j].tag, head, "amod")
        for k in range(i):  # the determiner before the first noun is its own
            if words[k].head == head and words[k].dep == "det":
                words[k] = Word(words[k].text, words[k].tag, i, "det")


def _comma_lists(words: list[Word]) -> None:
    """ "wearing black clothes , a purple scarf , and a pink hat": spaCy often hangs the second
    item of a comma-separated noun list on an earlier noun (``appos``/``conj``); the PCFG
    coordinates the list items, so the item joins the noun before the comma as its ``conj``
    and shares that noun's governor (wear scarf, wear hat)."""
    for k, (text, _tag, _head, _dep) in enumerate(words):
        if text != "," or k == 0:
            continue
        c = k - 1
        if words[c].tag not in NOUN_TAGS or words[c].dep not in _LIST_HEAD_DEPS:
            continue
        a = k + 1
        while a < len(words) and words[a].tag in ("DT", "JJ", "CD", "PRP$", "CC", *NOUN_TAGS):
            if words[a].tag in NOUN_TAGS and words[a].dep != "compound":
                break
            a += 1
        if a >= len(words) or words[a].tag not in NOUN_TAGS or words[a].dep not in ("appos", "conj"):
            continue
        if (words[a].head == c and words[a].dep == "conj") or words[a].head > a:
            continue
        # A list needs a further item: ", and B" / "and B" / ", B" right after this one.
        nxt = words[a + 1].text.lower() if a + 1 < len(words) else ""
        if nxt not in (",", "and", "or"):
            continue
        words[a] = Word(words[a].text, words[a].tag, c, "conj")


def _noun_with_article(words: list[Word], i: int, lemmatize: MorphaLemmatizer) -> bool:
    """An object tagged as adjective or adverb, with an article of its own and a noun reading."""
    lower = words[i].text.lower()
    if lower in _NOT_NOUNS or lower not in lemmatize.noun_index:
        return False
    return any(w.head == i and w.dep == "det" and w.text.lower() in ("a", "an", "the") for w in words[:i])


def _nominal_gerund(words: list[Word], i: int) -> bool:
    deps = {w.dep for w in words if w.head == i and w is not words[i]}
    return bool(deps & {"det", "amod", "nummod"}) and not deps & {"dobj", "prep", "prt", "advmod", "aux"}


def _noun_readings(words: list[Word], lemmatize: MorphaLemmatizer) -> None:
    """Nouns spaCy tags as verbs where the PCFG sees nouns.

    "pillows on a bed": a caption-initial plural noun read as a subject-less verb (VBZ).
    "wearing a suit and tie": a bare verb conjunct with nothing under it, right after
    "NOUN and", is that noun's conjunct (the PCFG coordinates the two nouns).
    """
    first = words[0] if words else None
    if first is not None and first.tag == "VBZ" and first.dep == "ROOT" and first.text.lower().endswith("s"):
        has_core = any(w.head == 0 and w.dep in ("nsubj", "nsubjpass", "dobj", "expl") for w in words[1:])
        if not has_core and lemmatize(first.text, "NNS") in lemmatize.noun_index:
            words[0] = Word(first.text, "NNS", first.head, first.dep)
    heads = {w.head for w in words}
    for i, (text, tag, _head, dep) in enumerate(words):
        if tag in ("VB", "VBP") and dep == "conj" and i not in heads and i >= 2 and words[i - 1].dep == "cc":
            noun = words[i - 1].head
            if words[noun].tag in ("NN", "NNS") and noun < i - 1 and lemmatize(text, "NN") in lemmatize.noun_index:
                words[i] = Word(text, "NN", noun, "conj")


def _participle_heads(words: list[Word], lemmatize: MorphaLemmatizer) -> None:
    """ "a dog swimming in a river": spaCy often reads "dog swimming" as a compound noun headed
    by "swimming" (NN). The PCFG reads a noun modified by a participle phrase: the noun takes
    the head's place and the participle becomes its ``acl``. Nouns in -ing ("building",
    "clothing") are left alone. The same holds for a subject-less gerund root (VBG)."""
    for i, (text, tag, head, dep) in enumerate(words):
        lower = text.lower()
        if tag not in ("NN", "VBG") or not lower.endswith("ing") or lower in _ING_NOUNS or dep not in ("ROOT", "conj"):
            continue
        if i == 0 or (tag == "VBG" and (dep != "ROOT" or any(w.head == i and w.dep in _CLAUSE_DEPS for w in words))):
            continue  # a verb-tagged head only as a subject-less root ("dog jumping for frisbee")
        j = i - 1
        n_text, n_tag, n_head, n_dep = words[j]
        if n_head != i or n_dep != "compound" or n_tag not in ("NN", "NNS"):
            continue
        if lemmatize(text, "VBG") not in lemmatize.verb_index:
            continue
        words[j] = Word(n_text, n_tag, j if dep == "ROOT" else head, dep)
        words[i] = Word(text, "VBG", j, "acl")
        for k in range(j):
            w = words[k]
            if w.head == i:
                words[k] = Word(w.text, w.tag, j, w.dep)


def _verb_after_participle_phrase(words: list[Word], lemmatize: MorphaLemmatizer) -> None:
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
        follower = words[v + 1].tag
        if c_text.lower() in COLOUR_WORDS:
            # "wearing red runs towards", "wearing blue smiles .": a bare colour, no determiner
            if follower not in _COLOUR_VERB_FOLLOWERS and not (follower == "." and v + 2 == len(words)):
                continue
            if any(w.head == v and w.dep in ("det", "nummod", "poss") for w in words[:v]):
                continue
        elif not c_tag.startswith("NN") or c_text.lower().endswith("ing") or follower not in _VERB_FOLLOWERS:
            continue
        attach = head if dep == "dobj" else words[head].head
        a_word = words[attach]
        if dep == "dobj" or a_word.dep != "ROOT":
            if a_word.tag not in ("VBG", "VBN") or a_word.dep != "acl":
                continue
            noun = a_word.head
        else:
            noun = attach  # a preposition on the noun itself ("a boy in black walks")
        if words[noun].tag not in ("NN", "NNP") or words[noun].dep != "ROOT":
            continue
        if lemmatize(text, "VBZ") not in lemmatize.verb_index:
            continue
        # The modifier takes the verb's place as object ...
        words[c] = Word(c_text, "NN" if c_tag.startswith("JJ") else c_tag, head, dep)
        for j in range(attach, c):
            if words[j].head == v:
                words[j] = Word(words[j].text, words[j].tag, c, words[j].dep)
        for j in range(v + 1, len(words)):  # what follows belongs to the verb ("waves a flag")
            if words[j].head in (v, attach, head):
                words[j] = Word(words[j].text, words[j].tag, v, words[j].dep)
        # ... and the verb heads the sentence, with the phrase's noun as its subject.
        words[v] = Word(text, "VBZ", v, "ROOT")
        n_word = words[noun]
        words[noun] = Word(n_word.text, n_word.tag, v, "nsubj")
        last = words[-1]
        if last.dep == "punct" and last.head in (noun, v):
            words[-1] = Word(last.text, last.tag, v, last.dep)
        return


def _verb_inside_subject(words: list[Word], lemmatize: MorphaLemmatizer) -> None:
    """ "A girl in a white dress walks next to ...": spaCy reads "dress walks" as the noun
    phrase of the preposition. In a verb-less sentence with a full stop, the plural noun that
    can be a verb becomes the verb, with the sentence's noun root as its subject."""
    if not words or words[-1].tag != ".":
        return
    roots = [i for i, w in enumerate(words) if w.dep == "ROOT"]
    if len(roots) != 1 or words[roots[0]].tag not in ("NN", "NNP"):
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
        if any(w.head == v and w.dep == "nummod" for w in words):  # "with two black dogs"
            continue
        # The modifier takes the verb's place as object of the preposition ...
        words[c] = Word(c_text, c_tag if c_tag.startswith("NN") else "NN", head, dep)
        for j in range(c):
            w = words[j]
            if w.head == v:
                words[j] = Word(w.text, w.tag, c, w.dep)
        # ... and the verb heads the sentence, with the old root as its subject.
        words[v] = Word(text, "VBZ", v, "ROOT")
        r = words[root]
        words[root] = Word(r.text, r.tag, v, "nsubj")
        for j, w in enumerate(words):
            if w.dep == "punct" and w.head == root and j == len(words) - 1:
                words[j] = Word(w.text, w.tag, v, w.dep)
        return
