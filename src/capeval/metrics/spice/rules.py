"""SPICE 1.0's graph enhancements and scene-graph extraction rules, as the jar runs them.

Input: one sentence graph in CoreNLP 3.6.0 UD v1 CCprocessed form (a
:class:`~capeval.metrics.spice.depgraph.DepGraph`, or a
:class:`~capeval.metrics.spice.semgraph.SemanticGraph`). Output: the raw tuples SPICE's
parser emits for it, in the jar's order: relations ``[subject, object, predicate]``,
attributes ``[object, attribute]``, objects ``[object]``.

Steps, in the order ``SpiceParser.parseAnnotation`` runs them (behaviour from the project's
SPICE specification and observations of the jar; the code is an independent implementation):

1. quantificational modifiers rewritten, three patterns one after another ("a couple of dogs":
   the word "a" becomes the ``det:qmod`` of "dogs" and "couple" a stray noun);
2. pronouns pointed at an antecedent found breadth-first from the first root;
3. the rules: subject-verb-object, reduced relatives, subject-predicate pairs and copulas,
   adjectival modifiers, predicative adjectives, prepositional modifiers, possessives,
   passive agents, counts, compounds, objects.

Each rule is a Semgrex pattern in the jar. Semgrex tries the graph's nodes in topological
order (the vertex set's order when the graph has a cycle) and, for one node, enumerates its
constraints as nested loops, first constraint outermost, each over the node's edges in the
graph's iteration order; the count rules keep only the first match of each node. The graph
(:mod:`~capeval.metrics.spice.semgraph`) iterates exactly as CoreNLP's does, so matches come
out in the jar's order: that order decides which case marker and which particle a predicate
gets, the order of the words of "on top of", which object a count is checked on, and the
order of the raw tuples.

Official quirks kept on purpose: the noun-conjunction rule is dead code in SPICE (not
implemented); counts attach to plural nouns only, from a pre-nominal ``nummod`` or else the
``det:qmod`` word ("a lot of horses" -> ``(horse, a)``); stray nouns left by rewrites
("couple", "front", "top") are objects; both halves of a compound lose their object tuple;
``nmod:tmod`` / ``nmod:npmod`` give predicates ending in " tmod" / " npmod"; a particle under
"be" gives a predicate with a leading space.
"""

from __future__ import annotations

import re
from collections import deque

from capeval.metrics.spice.depgraph import DepGraph
from capeval.metrics.spice.semgraph import JavaHashMap, Node, SemanticGraph

__all__ = [
    "QMOD_P1_WORDS",
    "QMOD_P2_WORDS",
    "QMOD_P3_WORDS",
    "SINGULAR_PRONOUNS",
    "extract_tuples",
    "resolve_pronouns",
    "rewrite_quantifiers",
]

#: Quantifier heads of pattern 1 ("a couple of X"), from scenegraph-1.0 ``SemanticGraphEnhancer``.
QMOD_P1_WORDS = frozenset(
    """lot assortment number couple bunch handful litany sheaf slew dozen series variety multitude wad clutch
    wave mountain array spate string ton range plethora heap sort form kind type version bit pair triple
    total""".split()
)
#: Quantifier words of pattern 2 ("lots of X"), same source; plus digits followed by "s".
QMOD_P2_WORDS = frozenset(
    """lots many several plenty tons dozens multitudes mountains loads pairs tens hundreds thousands millions
    billions trillions""".split()
)
#: Quantifier words of pattern 3 ("two of the X", "all of them"), same source; plus digit strings.
QMOD_P3_WORDS = frozenset(
    """some all both neither everyone nobody one two three four five six seven eight nine ten hundred thousand
    million billion trillion""".split()
)
#: Pronouns treated as singular by ``SimplePronounResolution`` (CoreNLP's dcoref list; case-sensitive).
SINGULAR_PRONOUNS = frozenset(
    "i me myself mine my yourself he him himself his she her herself hers it itself its one oneself one's".split()
)

# Semgrex regular expressions match the whole string (Java ``Matcher.matches``); Python's
# fullmatch does the same. ``(?i:...)`` in the jar's patterns: ASCII case folding.
_P1 = re.compile("|".join(sorted(QMOD_P1_WORDS)), re.IGNORECASE | re.ASCII)
_P2 = re.compile("|".join(sorted(QMOD_P2_WORDS)) + "|[0-9]+s", re.IGNORECASE | re.ASCII)
_P3 = re.compile("|".join(sorted(QMOD_P3_WORDS)) + "|[0-9]+", re.IGNORECASE | re.ASCII)
_A_AN = re.compile("an?", re.IGNORECASE | re.ASCII)
_OF = re.compile("of", re.IGNORECASE | re.ASCII)
_NOUN_OR_PRONOUN = re.compile("NN.*|PRP.*", re.DOTALL)
_NN_ANY = re.compile("NN.*", re.DOTALL)
_PRP_ANY = re.compile("PRP.*", re.DOTALL)
_NMOD_ANY = re.compile("nmod.*", re.DOTALL)

_NOUN = re.compile("NNP?S?")
_PLURAL = re.compile("NNP?S")
_OBJ_REL = re.compile(r"(iobj|dobj|nmod:.*)", re.DOTALL)
_DOT_OBJ = re.compile(r"(.obj)", re.DOTALL)
_DOT_OBJ_BARE = re.compile(r".obj", re.DOTALL)
_NMOD_NOT_AGENT = re.compile(r"(nmod:((?!agent).)*$)", re.DOTALL)
_OBJ_OR_NMOD = re.compile(r".obj|nmod.*", re.DOTALL)
_NMOD_SPECIFIC = re.compile(r"nmod:.*", re.DOTALL)
_VERB = re.compile("V.*", re.DOTALL)
_ADJ = re.compile("J.*", re.DOTALL)
_SINGULAR_NOUN = re.compile("NNP?")
_ANY_NOUN = re.compile("NNP?S?")

_QMOD = "det:qmod"
_MATCHES: dict[tuple[re.Pattern[str], str], bool] = {}


def _matches(pattern: re.Pattern[str], rel: str) -> bool:
    """``pattern`` matches the whole relation name (memoized: few names, many tests)."""
    key = (pattern, rel)
    found = _MATCHES.get(key)
    if found is None:
        if len(_MATCHES) > 100_000:
            _MATCHES.clear()
        found = _MATCHES[key] = pattern.fullmatch(rel) is not None
    return found


def _graph(graph: DepGraph | SemanticGraph) -> SemanticGraph:
    return graph.to_semgraph() if isinstance(graph, DepGraph) else graph


def _java_lower_trim(text: str) -> str:
    """``String.trim().toLowerCase()``: trim strips code points up to U+0020 only."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end].lower()


# --- 1. quantificational modifiers -------------------------------------------------------------


def _first_qmod1(sg: SemanticGraph, w2: Node) -> tuple[Node, Node, Node] | None:
    """``{word:P1}=w2 >det {word:a|an}=w1 >/nmod.*/ ({tag:NN.*|PRP.*}=gov >case {word:of}=w3) . {}=w3``."""
    if not _P1.fullmatch(sg.word(w2)):
        return None
    for rel, w1 in sg.outgoing(w2):
        if rel != "det" or not _A_AN.fullmatch(sg.word(w1)):
            continue
        for rel2, gov in sg.outgoing(w2):
            if not _NMOD_ANY.fullmatch(rel2) or not _NOUN_OR_PRONOUN.fullmatch(sg.tag(gov)):
                continue
            for rel3, w3 in sg.outgoing(gov):
                if rel3 == "case" and _OF.fullmatch(sg.word(w3)) and w3[0] == w2[0] + 1:
                    return w1, gov, w3
    return None


def _first_qmod2(sg: SemanticGraph, w1: Node) -> tuple[Node, Node] | None:
    """``{word:P2}=w1 >/nmod.*/ ({tag:NN.*|PRP.*}=gov >case {word:of}=w2) . {}=w2``."""
    if not _P2.fullmatch(sg.word(w1)):
        return None
    for rel, gov in sg.outgoing(w1):
        if not _NMOD_ANY.fullmatch(rel) or not _NOUN_OR_PRONOUN.fullmatch(sg.tag(gov)):
            continue
        for rel2, w2 in sg.outgoing(gov):
            if rel2 == "case" and _OF.fullmatch(sg.word(w2)) and w2[0] == w1[0] + 1:
                return gov, w2
    return None


def _first_qmod3(sg: SemanticGraph, w1: Node) -> tuple[Node, Node] | None:
    """``{word:P3}=w1 [>/nmod.*/ ({tag:NN.*}=gov >case ({word:of}=w2 $+ {}=det) >det {}=det)
    | >/nmod.*/ ({tag:PRP.*}=gov >case {word:of}=w2)] . {}=w2``."""
    if not _P3.fullmatch(sg.word(w1)):
        return None
    for rel, gov in sg.outgoing(w1):
        if not _NMOD_ANY.fullmatch(rel) or not _NN_ANY.fullmatch(sg.tag(gov)):
            continue
        dets = {d for r, d in sg.outgoing(gov) if r == "det"}
        for rel2, w2 in sg.outgoing(gov):
            if rel2 != "case" or not _OF.fullmatch(sg.word(w2)) or w2[0] != w1[0] + 1:
                continue
            if any(d[0] == w2[0] + 1 for d in dets):
                return gov, w2
    for rel, gov in sg.outgoing(w1):
        if not _NMOD_ANY.fullmatch(rel) or not _PRP_ANY.fullmatch(sg.tag(gov)):
            continue
        for rel2, w2 in sg.outgoing(gov):
            if rel2 == "case" and _OF.fullmatch(sg.word(w2)) and w2[0] == w1[0] + 1:
                return gov, w2
    return None


def _promote(sg: SemanticGraph, head: Node, gov: Node) -> bool:
    """``gov`` takes the quantifier head's place; False where the jar gives up on the sentence."""
    if head not in sg.roots:
        parent = sg.parent(head)
        if parent is None:
            return False
        rel = sg.get_edge(parent, head)
        if rel is not None:
            sg.remove_edge(parent, head, rel)
            sg.add_edge(parent, gov, rel)
    else:
        sg.roots.remove(head)
        sg.add_root(gov)
    rel = sg.get_edge(head, gov)
    if rel is not None:  # (the jar fails on a missing edge; it never occurs in practice)
        sg.remove_edge(head, gov, rel)
    return True


def _multiword(sg: SemanticGraph, gov: Node, words: list[Node]) -> None:
    """``createMultiWordExpression``: first word ``det:qmod`` of ``gov``, the others its ``mwe``."""
    if not len(sg.roots):
        return
    head: Node | None = None
    for word in words:
        for rel, g in sg.incoming(word):
            sg.remove_edge(g, word, rel)
        if head is None:
            sg.add_edge(gov, word, _QMOD)
            head = word
        else:
            sg.add_edge(head, word, "mwe")


def _candidates(graph: SemanticGraph, words: re.Pattern[str]) -> bool:
    """Whether a pattern can match at all: a node with one of its words and an ``nmod*`` edge."""
    return any(
        words.fullmatch(graph.word(node)) and any(_NMOD_ANY.fullmatch(rel) for rel, _ in graph.outgoing(node))
        for node in graph.vertex_set()
    )


def rewrite_quantifiers(graph: SemanticGraph) -> None:
    """``processQuanftificationModifiers``: the three patterns, each matched on a copy of the
    graph as it was before that pattern, rewrites applied to the graph itself. (A pattern that
    cannot match is skipped without copying: the copy has the graph's structure.)"""
    if _candidates(graph, _P1):
        copy = graph.soft_copy()
        for w2 in copy.match_order():
            found1 = _first_qmod1(copy, w2)
            if found1 is None:
                continue
            w1, gov, w3 = found1
            if not _promote(graph, w2, gov):
                return
            words = [w1, w2, w3] + [c for c in graph.children_with_reln(w2, "amod") if c[0] < w2[0]]
            _multiword(graph, gov, sorted(words))
    for pattern, words_of in ((_first_qmod2, _P2), (_first_qmod3, _P3)):
        if not _candidates(graph, words_of):
            continue
        copy = graph.soft_copy()
        for w1 in copy.match_order():
            found = pattern(copy, w1)
            if found is None:
                continue
            gov, of_word = found
            if not _promote(graph, w1, gov):
                return
            words = [w1, of_word] + [c for c in graph.children(w1) if c[0] < w1[0]]
            _multiword(graph, gov, sorted(words))


# --- 2. pronoun resolution -----------------------------------------------------------------------


class _IntegerHash(dict[int, int]):
    """Java's ``Integer.hashCode``: the value itself."""

    def __missing__(self, key: int) -> int:
        return key


def _antecedent(sg: SemanticGraph, singular: bool) -> Node | None:
    start = sg.first_root()
    if start is None:
        return None
    wanted = _SINGULAR_NOUN if singular else _ANY_NOUN
    queue = deque([start])
    seen = {start}
    while queue:
        node = queue.popleft()
        if wanted.fullmatch(sg.tag(node)):
            return node
        for child in sorted(sg.children(node)):
            if child not in seen:
                seen.add(child)
                queue.append(child)
    # The jar retries from the start's parent, which a root never has.
    return None


def resolve_pronouns(graph: SemanticGraph) -> None:
    """``SemanticGraphEnhancer.resolvePronouns`` with ``SimplePronounResolution``."""
    pairs: JavaHashMap[int, int] = JavaHashMap(_IntegerHash(), capacity=1)
    for token in graph.vertex_list_sorted():
        if token[0] <= 1 or not graph.tag(token).startswith("PRP"):
            continue
        singular = graph.word(token) in SINGULAR_PRONOUNS
        node = graph.node_by_index(token[0])
        if node is None or graph.parent(node) is None:
            continue
        antecedent = _antecedent(graph, singular)
        if antecedent is not None and antecedent[0] < node[0]:
            pairs.put(token[0], antecedent[0])
    for key, value in pairs.items():
        mention = graph.node_by_index(value)
        pronoun = graph.node_by_index(key)
        if mention is None or pronoun is None:
            continue
        if pronoun in graph.roots:
            graph.roots.remove(pronoun)
            graph.roots.put(mention, None)
        else:
            for rel, gov in graph.incoming_sorted(pronoun):
                graph.remove_edge(gov, pronoun, rel)
                graph.add_edge(gov, mention, rel)
        for rel, dep in graph.outgoing_sorted(pronoun):
            graph.remove_edge(pronoun, dep, rel)
            graph.add_edge(mention, dep, rel)


# --- 3. rules -------------------------------------------------------------------------------------


class _Rules:
    """The extraction rules on one enhanced sentence graph."""

    def __init__(self, sg: SemanticGraph) -> None:
        self.sg = sg
        self.order = sg.match_order()
        #: The nodes with dependents, in match order (the only ones a pattern with a child can match).
        self.heads = [node for node in self.order if sg.outgoing(node)]
        self.out: list[list[str]] = []
        tags = {node: sg.tag(node) for node in self.order}
        self.nouns = {node for node, tag in tags.items() if _NOUN.fullmatch(tag)}
        self.plurals = {node for node, tag in tags.items() if _PLURAL.fullmatch(tag)}
        self._lemmas: dict[Node, str] = {}
        self._by_rel: dict[Node, dict[str, list[tuple[str, Node]]]] = {}

    def lemma(self, node: Node) -> str:
        found = self._lemmas.get(node)
        if found is None:
            found = self._lemmas[node] = _java_lower_trim(self.sg.lemma(node))
        return found

    def is_noun(self, node: Node) -> bool:
        return node in self.nouns

    def is_plural(self, node: Node) -> bool:
        return node in self.plurals

    def edges(self, node: Node, rel: re.Pattern[str] | str) -> list[tuple[str, Node]]:
        """Outgoing edges whose relation matches (a name exactly, a pattern entirely), in order."""
        if isinstance(rel, str):
            index = self._by_rel.get(node)
            if index is None:
                index = self._by_rel[node] = {}
                for edge in self.sg.outgoing(node):
                    index.setdefault(edge[0], []).append(edge)
            return index.get(rel, [])
        return [edge for edge in self.sg.outgoing(node) if _matches(rel, edge[0])]

    def has(self, node: Node, rel: re.Pattern[str] | str) -> bool:
        return bool(self.edges(node, rel))

    def predicate(self, pred: Node) -> str:
        """``getPredicate``: the lemma, with the first particle (``compound:prt``) appended."""
        lemma = self.sg.lemma(pred)
        particle = self.sg.child_with_reln(pred, "compound:prt")
        if particle is None:
            return lemma
        return f"{'' if lemma == 'be' else lemma} {self.sg.word(particle)}"

    def relation(self, subj: Node, obj: Node, pred: Node, reln: str) -> None:
        predicate = self.predicate(pred)
        if reln.startswith("nmod:") and reln not in ("nmod:poss", "nmod:agent"):
            predicate += reln.replace("nmod:", " ").replace("_", " ")
        self.out.append([self.lemma(subj), self.lemma(obj), predicate])

    # --- the patterns, in the jar's order ------------------------------------------------------
    def subject_predicate_object(self) -> None:
        """``{}=pred >nsubj {tag:/NNP?S?/}=subj >/(iobj|dobj|nmod:.*)/=objreln {tag:/NNP?S?/}=obj !> cop {}``."""
        for pred in self.heads:
            if self.has(pred, "cop"):
                continue
            for _, subj in self.edges(pred, "nsubj"):
                if not self.is_noun(subj):
                    continue
                for reln, obj in self.edges(pred, _OBJ_REL):
                    if self.is_noun(obj):
                        self.relation(subj, obj, pred, reln)

    def reduced_relative(self) -> None:
        """``{}=subj >acl ({tag:/V.*/}=pred >/(iobj|dobj|nmod:.*)/=objreln {tag:/NNP?S?/}=obj)``."""
        for subj in self.heads:
            for _, pred in self.edges(subj, "acl"):
                if not _VERB.fullmatch(self.sg.tag(pred)):
                    continue
                for reln, obj in self.edges(pred, _OBJ_REL):
                    if self.is_noun(obj):
                        self.relation(subj, obj, pred, reln)

    def subject_predicate(self) -> None:
        """``SUBJ_PRED_PAIR`` (``!>/(iobj|dobj|nmod:.*)/ {NN*}``, ``!>cop {}``), then ``COPULAR``
        (``>cop {}``, one match per cop edge): a case child makes a relation, else an attribute."""
        sg = self.sg
        for copular in (False, True):
            for pred in self.heads:
                cops = len(self.edges(pred, "cop"))
                if copular and not cops:
                    continue
                if not copular and (cops or any(self.is_noun(o) for _, o in self.edges(pred, _OBJ_REL))):
                    continue
                for _, subj in self.edges(pred, "nsubj"):
                    if not self.is_noun(subj):
                        continue
                    for _ in range(cops if copular else 1):
                        case = sg.child_with_reln(pred, "case")
                        if case is not None:
                            prep = " ".join([sg.word(case)] + [sg.word(m) for m in sg.children_with_reln(case, "mwe")])
                            self.out.append([self.lemma(subj), self.lemma(pred), prep])
                        elif sg.lemma(pred) != "be":
                            self.out.append([self.lemma(subj), self.lemma(pred)])

    def adjectives(self) -> None:
        """``{}=obj >/(amod)/ {}=adj``, then ``{tag:/J.*/}=adj >nsubj {}=obj``."""
        for obj in self.heads:
            for _, adj in self.edges(obj, "amod"):
                self.out.append([self.lemma(obj), self.lemma(adj)])
        for adj in self.heads:
            if _ADJ.fullmatch(self.sg.tag(adj)):
                for _, obj in self.edges(adj, "nsubj"):
                    self.out.append([self.lemma(obj), self.lemma(adj)])

    def prepositional(self) -> None:
        """``{tag:/NNP?S?/}=gov >/nmod:.*/=reln {}=mod`` (poss and agent skipped)."""
        for gov in self.heads:
            if not self.is_noun(gov):
                continue
            for reln, mod in self.edges(gov, _NMOD_SPECIFIC):
                predicate = reln.replace("nmod:", "").replace("_", " ")
                if predicate not in ("poss", "agent"):
                    self.out.append([self.lemma(gov), self.lemma(mod), predicate])

    def possessive(self) -> None:
        """``{tag:/NNP?S?/}=gov >/nmod:poss/=reln {tag:/NNP?S?/}=mod`` -> (mod, gov, have)."""
        for gov in self.heads:
            if not self.is_noun(gov):
                continue
            for _, mod in self.edges(gov, "nmod:poss"):
                if self.is_noun(mod):
                    self.out.append([self.lemma(mod), self.lemma(gov), "have"])

    def agent(self) -> None:
        """``{tag:/V.*/}=pred >/nmod:agent/=reln {NN*}=subj >nsubjpass {NN*}=obj``."""
        for pred in self.heads:
            if not _VERB.fullmatch(self.sg.tag(pred)):
                continue
            for _, subj in self.edges(pred, "nmod:agent"):
                if not self.is_noun(subj):
                    continue
                for _, obj in self.edges(pred, "nsubjpass"):
                    if self.is_noun(obj):
                        self.out.append([self.lemma(subj), self.lemma(obj), self.predicate(pred)])

    def count(self, word: Node) -> None:
        """``checkForNumericAttribute``: the first ``nummod`` if it precedes, else the first ``det:qmod``."""
        sg = self.sg
        nummod = sg.child_with_reln(word, "nummod")
        if nummod is not None:
            if nummod[0] < word[0]:
                self.out.append([self.lemma(word), self.lemma(nummod)])
            return
        qmod = sg.child_with_reln(word, _QMOD)
        if qmod is not None:
            self.out.append([self.lemma(word), self.lemma(qmod)])

    def plural_object(self, pred: Node) -> Node | None:
        """The first plural object of ``pred``: by ``.obj`` first, else by a case-marked
        non-agent ``nmod:``."""
        for _, obj in self.edges(pred, _DOT_OBJ):
            if self.is_plural(obj):
                return obj
        for _, obj in self.edges(pred, _NMOD_NOT_AGENT):
            if self.is_plural(obj) and self.has(obj, "case"):
                return obj
        return None

    def has_plural_object(self, pred: Node) -> bool:
        if any(self.is_plural(o) for _, o in self.edges(pred, _DOT_OBJ_BARE)):
            return True
        return any(self.is_plural(o) and self.has(o, "case") for _, o in self.edges(pred, _NMOD_NOT_AGENT))

    def counts(self) -> None:
        """The three plural patterns, first match of each node only."""
        sg = self.sg
        for pred in self.heads:
            for _, subj in self.edges(pred, "nsubj"):
                if not self.is_plural(subj):
                    continue
                obj = self.plural_object(pred)
                if obj is not None:
                    self.count(subj)
                    self.count(obj)
                    break
        for subj in self.order:
            if not self.is_plural(subj):
                continue
            if subj in sg.roots or any(
                rel == "nsubj" and not self.has_plural_object(gov) for rel, gov in sg.incoming(subj)
            ):
                self.count(subj)
        for word in self.order:
            if not self.is_plural(word) or word in sg.roots:
                continue
            parents = sg.incoming(word)
            if any(rel == "nsubj" for rel, _ in parents):
                continue
            if any(
                _OBJ_OR_NMOD.fullmatch(rel) and any(self.is_plural(s) for _, s in self.edges(gov, "nsubj"))
                for rel, gov in parents
            ):
                continue
            self.count(word)

    def compounds_and_objects(self) -> None:
        """``{NN*}=tail >/(compound)/ {NN*}=head`` -> (tail, head); then every noun outside a
        compound -> (noun). (The noun-conjunction rule between them never adds anything.)"""
        compound: set[Node] = set()
        for tail in self.heads:
            if not self.is_noun(tail):
                continue
            for _, head in self.edges(tail, "compound"):
                if self.is_noun(head):
                    compound.update((tail, head))
                    self.out.append([self.lemma(tail), self.lemma(head)])
        for word in self.order:
            if self.is_noun(word) and word not in compound:
                self.out.append([self.lemma(word)])


def extract_tuples(graph: DepGraph | SemanticGraph) -> list[list[str]]:
    """Run SPICE's enhancements and rules on one sentence graph.

    A :class:`SemanticGraph` is modified in place; a :class:`DepGraph` is first converted (and
    left as it was).
    """
    sg = _graph(graph)
    rewrite_quantifiers(sg)
    resolve_pronouns(sg)
    rules = _Rules(sg)
    rules.subject_predicate_object()
    rules.reduced_relative()
    rules.subject_predicate()
    rules.adjectives()
    rules.prepositional()
    rules.possessive()
    rules.agent()
    rules.counts()
    rules.compounds_and_objects()
    return rules.out
