"""The semantic head finder the UD converter uses (content words head; the copula does not).

Every constituent gets a head child by a table of category rules (search direction and the
categories to look for, tried in order), with three refinements:

* in a verb phrase, an auxiliary or a passive/progressive "be"/"get" passes the head on to the
  inner VP (or ADJP after a copula); a copula passes it to its complement (VP, ADJP, NP, UCP,
  PP, WHADJP, WHNP) unless the clause is existential ("there is ...") or a WH-question;
* in a coordination ``X CC Y`` the head is the first conjunct, not the word just before the
  conjunction, skipping commas and punctuation back to the first conjunct of a list;
* a few fixed ``CONJP``s ("but not", "but also", "and yet") are headed by their adverb.

:func:`head_child` is the rule for one node; :func:`find_heads` annotates a whole tree bottom-up
(each node's head child and head word, and the highest node each head word projects to).
"""

from __future__ import annotations

from .nodes import PUNCT_TAGS, Node, basic_category
from .transforms import COPULAR, PASSIVE_AUX

__all__ = ["head_child", "find_heads", "AUXILIARIES"]

#: Words that make a verb-tagged child an auxiliary (compared in lower case).
AUXILIARIES = frozenset(
    "will wo shall sha may might should would can could ca must 'll ll -ll cold has have had having 've ve v of "
    "hav hvae as get gets getting got gotten do does did 'd d du to 2 na a ot ta the too".split()
)
_VERB_TAGS = frozenset({"TO", "MD", "VB", "VBD", "VBP", "VBZ", "VBG", "VBN", "AUX", "AUXG"})
_AUX_ONLY_TAGS = frozenset({"TO", "MD", "AUX", "AUXG"})
_PARTICIPLES = frozenset({"VBN", "VBG", "VBD"})

# (direction, categories); "left"/"right" look for each category in turn, "leftdis"/"rightdis"
# for the first child in any of them, scanning from that side.
Rule = tuple[str, tuple[str, ...]]


def _r(direction: str, cats: str = "") -> Rule:
    return (direction, tuple(cats.split()))


_NP_RULES = (
    _r("rightdis", "NN NNP NNPS NNS NX NML JJR WP"),
    _r("left", "NP PRP"),
    _r("rightdis", "$ ADJP FW CD JJ QP"),
    _r("rightdis", "JJS DT WDT NML PRN RB RBR ADVP"),
    _r("left", "POS"),
)
_PP_RULES = (_r("left", "NP S SBAR SBARQ ADVP PP VP ADJP FRAG UCP PRN"), _r("right"))
_VP_RULES = (_r("left", "TO VBD VBN MD VBZ VB VBG VBP VP AUX AUXG ADJP JJP NN NNS JJ NP NNP"),)

RULES: dict[str, tuple[Rule, ...]] = {
    "ADJP": (
        _r("left", "$"),
        _r("rightdis", "NNS NN NNP JJ QP VBN VBG"),
        _r("left", "ADJP"),
        _r("rightdis", "JJP JJR JJS DT RB RBR CD IN VBD"),
        _r("left", "ADVP NP"),
    ),
    "JJP": (_r("left", "NNS NN $ QP JJ VBN VBG ADJP JJP JJR NP JJS DT FW RBR RBS SBAR RB"),),
    "ADVP": (
        _r("rightdis", "RB RBR RBS JJ JJR JJS"),
        _r("rightdis", "RP DT NN CD NP VBN NNP CC FW NNS ADJP NML"),
        _r("left"),
    ),
    "CONJP": (_r("right", "JJ RB"), _r("left", "CC IN"), _r("right", "VB")),
    "FRAG": (_r("left", "IN"), _r("right", "RB"), _r("left", "NP"), _r("left", "ADJP ADVP FRAG S SBAR VP")),
    "INTJ": (_r("rightdis", "NNS NN NNP"), _r("left")),
    "LST": (_r("right", "LS :"),),
    "NAC": (_r("left", "NN NNS NML NNP NNPS NP NAC EX $ CD QP PRP VBG JJ JJS JJR ADJP JJP FW"),),
    "PP": _PP_RULES,
    "WHPP": _PP_RULES,
    "PRN": (_r("left", "VP SQ S SINV SBAR NP ADJP PP ADVP INTJ WHNP NAC VBP JJ NN NNP"),),
    "PRT": (_r("right", "RP"),),
    "QP": (_r("right", "$ NNS NN CD JJ PDT DT IN RB NCD QP JJR JJS"),),
    "RRC": (_r("left", "RRC"), _r("right", "VP ADJP JJP NP PP ADVP")),
    "S": (_r("left", "VP S FRAG SBAR ADJP UCP TO"), _r("right", "NP")),
    "SBAR": (_r("left", "S SQ SINV SBAR FRAG VP WHNP WHPP WHADVP WHADJP IN DT"),),
    "SBARQ": (_r("left", "SQ S SINV SBARQ FRAG SBAR"),),
    "SINV": (_r("left", "VBZ VBD VBP VB MD VBN VP S SINV ADJP JJP NP"),),
    "SQ": (_r("left", "VP SQ ADJP VB VBZ VBD VBP MD AUX AUXG"),),
    "UCP": (_r("left"),),
    "VP": _VP_RULES,
    "VB": _VP_RULES,
    "WHADJP": (_r("left", "ADJP JJ JJR WP"), _r("right", "RB"), _r("right")),
    "WHADVP": (_r("rightdis", "WRB WHADVP RB JJ"),),
    "WHNP": (
        _r("rightdis", "NN NNP NNPS NNS NX NML JJR WP"),
        _r("left", "WHNP NP"),
        _r("rightdis", "$ ADJP PRN FW"),
        _r("right", "CD"),
        _r("rightdis", "JJ JJS RB QP"),
        _r("left", "WHPP WHADJP WP$ WDT"),
    ),
    "X": (_r("right", "S VP ADJP JJP NP SBAR PP X"),),
    "NP": _NP_RULES,
    "NX": _NP_RULES,
    "NML": _NP_RULES,
    "POSSP": (_r("right", "POS"),),
    "ROOT": (_r("left", "S SQ SINV SBAR FRAG"),),
    "TOP": (_r("left", "S SQ SINV SBAR FRAG"),),
    "TYPO": (_r("left", "NN NP NML NNP NNPS TO VBD VBN MD VBZ VB VBG VBP VP ADJP JJP FRAG"),),
    "ADV": (_r("right", "RB RBR RBS FW ADVP TO CD JJR JJ IN NP NML JJS NN"),),
    "EDITED": (_r("left"),),
    "META": (_r("left"),),
    "XS": (_r("right", "IN"),),
    "EMBED": (_r("right", "INTJ"),),
    "MWE": (_r("left"),),
    "PCONJP": (_r("left"),),
}


# --- the generic search --------------------------------------------------------------------------
def _skippable(node: Node, after_interjection: bool) -> bool:
    if node.is_preterminal() and (node.label in PUNCT_TAGS or (not after_interjection and node.label == "UH")):
        return True
    return node.label == "INTJ" and not after_interjection


def _previous_conjunct(i: int, kids: list[Node], after_interjection: bool) -> int:
    separated = False
    j = i
    while j >= 0:
        j -= 1
        if j < 0:
            return j
        cat = basic_category(kids[j].label)
        if cat in (",", ":"):
            separated = True
        elif (kids[j].is_preterminal() and (cat in PUNCT_TAGS or (not after_interjection and cat == "UH"))) or (
            cat == "INTJ" and not after_interjection
        ):
            pass
        else:
            if not separated:
                j = -1
            break
    return j


def _coordination_fix(i: int, kids: list[Node]) -> int:
    """Move the head from the last conjunct to the first one."""
    if i >= 2 and basic_category(kids[i - 1].label) in ("CC", "CONJP"):
        after_interjection = basic_category(kids[i].label) == "UH"
        j = i - 2
        while j >= 0 and _skippable(kids[j], after_interjection):
            j -= 1
        while j >= 2:
            k = _previous_conjunct(j, kids, after_interjection)
            if k < 0:
                break
            j = k
        if j >= 0:
            return j
    return i


def _locate(kids: list[Node], rule: Rule, last_resort: bool) -> Node | None:
    direction, cats = rule
    n = len(kids)
    found = -1
    if direction == "left":
        for cat in cats:
            for i in range(n):
                if basic_category(kids[i].label) == cat:
                    found = i
                    break
            if found >= 0:
                break
    elif direction == "right":
        for cat in cats:
            for i in range(n - 1, -1, -1):
                if basic_category(kids[i].label) == cat:
                    found = i
                    break
            if found >= 0:
                break
    elif direction == "leftdis":
        for i in range(n):
            if basic_category(kids[i].label) in cats:
                found = i
                break
    elif direction == "rightdis":
        for i in range(n - 1, -1, -1):
            if basic_category(kids[i].label) in cats:
                found = i
                break
    elif direction == "leftexcept":
        for i in range(n):
            if basic_category(kids[i].label) not in cats:
                found = i
                break
    elif direction == "rightexcept":
        for i in range(n - 1, -1, -1):
            if basic_category(kids[i].label) not in cats:
                found = i
                break
    else:  # pragma: no cover - the table only holds the directions above
        raise ValueError(direction)
    if found < 0:
        if not last_resort:
            return None
        if direction.startswith("left"):
            fallback, default = ("leftexcept", tuple(PUNCT_TAGS)), 0
        else:
            fallback, default = ("rightexcept", tuple(PUNCT_TAGS)), n - 1
        kid = _locate(kids, fallback, False)
        return kid if kid is not None else kids[default]
    return kids[_coordination_fix(found, kids)]


# --- the semantic refinements -----------------------------------------------------------------------
def _verbal(node: Node, words: frozenset[str], tag_alone: bool) -> bool:
    """A preterminal verb (or TO/MD when ``tag_alone``) whose word is in ``words``."""
    if not node.is_preterminal():
        return False
    tag = node.label
    if tag_alone and tag in _AUX_ONLY_TAGS:
        return True
    word = node.kids[0].word
    return tag in _VERB_TAGS and word is not None and word.lower() in words


def _has_participle(node: Node) -> bool:
    return any(k.is_preterminal() and k.label in _PARTICIPLES for k in node.kids)


def _passive_or_progressive(kids: list[Node]) -> bool:
    aux = False
    participle = False
    for kid in kids:
        if _verbal(kid, PASSIVE_AUX, False):
            aux = True
        elif kid.is_phrasal() and kid.label.startswith("VP"):
            plain_vp = kid.label == "VP"
            inner_participle = False
            for sub in kid.kids:
                if sub.is_preterminal():
                    if sub.label in _PARTICIPLES:
                        participle = True
                        break
                    if sub.label == "CC" and inner_participle:
                        participle = True
                        break
                elif sub.is_phrasal() and plain_vp:
                    inner_participle = _has_participle(sub)
        if aux and participle:
            break
    return aux and participle


def _keeps(node: Node) -> bool:
    """Children considered by the semantic VP rules (temporal/adverbial NPs left out)."""
    label = node.label
    if "-TMP" in label or "-ADV" in label:
        return False
    if label.startswith("VP") and any(k.label == "NP-TMP" for k in node.kids):
        if not any(
            k.label.startswith("V") or k.label in ("NNP", "NN", "NNPS", "NNS", "NP", "JJ", "ADJP", "S")
            for k in node.kids
        ):
            return False
    return True


def _existential(node: Node, parent: Node | None) -> bool:
    if parent is None:
        return False
    cat = basic_category(node.label)
    if cat == "VP":
        for kid in parent.kids:
            if kid.label == "VP":
                break
            if any(p.label == "EX" for p in kid.preterminals()):
                return True
        return False
    if cat.startswith("SQ"):
        return any(
            not kid.label.startswith("VB") and any(p.label == "EX" for p in kid.preterminals()) for kid in parent.kids
        )
    return False


def _wh_question(node: Node, parent: Node | None) -> bool:
    return (
        node.label.startswith("SQ")
        and parent is not None
        and parent.label == "SBARQ"
        and any(k.label.startswith("WH") for k in parent.kids)
    )


def _conjp_head(node: Node) -> Node | None:
    kids = node.kids
    for i, cc in enumerate(kids[:-1]):
        if cc.label != "CC" or len(cc.kids) != 1:
            continue
        word = cc.kids[0].label.lower()
        nxt = kids[i + 1]
        if word in ("but", "and") and nxt.label == "RB" and len(nxt.kids) == 1 and nxt.kids[0].label.lower() == "not":
            return nxt
    for targets, cc_word in ((("also", "rather"), "but"), (("yet",), "and")):
        for i, cc in enumerate(kids[:-1]):
            if cc.label != "CC" or len(cc.kids) != 1 or cc.kids[0].label.lower() != cc_word:
                continue
            nxt = kids[i + 1]
            if nxt.label == "RB" and len(nxt.kids) == 1 and nxt.kids[0].label.lower() in targets:
                return nxt
            if nxt.label == "ADVP" and len(nxt.kids) == 1:
                rb = nxt.kids[0]
                if rb.label == "RB" and len(rb.kids) == 1 and rb.kids[0].label.lower() in targets:
                    return nxt
    return None


def _copula_question_head(node: Node) -> Node | None:
    kids = node.kids
    if node.label == "SBARQ":
        for i, wh in enumerate(kids):
            if wh.label != "WHNP":
                continue
            for j in range(i + 1, len(kids)):
                verb = kids[j]
                if verb.label.startswith("VB") and any(k.label.lower() in COPULAR for k in verb.kids):
                    for adjp in kids[j + 1 :]:
                        if adjp.label == "ADJP":
                            return adjp
        for i, wh in enumerate(kids):
            if wh.label != "WHNP":
                continue
            for j in range(i + 1, len(kids) - 1):
                verb = kids[j]
                if (
                    verb.label.startswith("VB")
                    and any(k.label.lower() in COPULAR for k in verb.kids)
                    and kids[j + 1].label == "NP"
                    and not any(k.label == "ADJP" for k in kids[j + 1 :])
                ):
                    return wh
    if node.label == "SINV":
        for i, np in enumerate(kids):
            if np.label != "NP":
                continue
            for j in range(i + 1, len(kids)):
                if kids[j].label != "NP":
                    continue
                for vp in kids[j + 1 :]:
                    if vp.label == "VP" and any(
                        (v.label.startswith("VB") or v.label.startswith("AUX"))
                        and any(w.label.lower() in COPULAR for w in v.kids)
                        for v in vp.kids
                    ):
                        return np
    return None


def head_child(node: Node, parent: Node | None) -> Node:
    """The head child of ``node`` (a constituent); ``parent`` decides the existential test.

    Raises:
        ValueError: a category without a head rule.
    """
    kids = node.kids
    if len(kids) == 1:
        return kids[0]
    cat = basic_category(node.label)
    if cat == "CONJP":
        found = _conjp_head(node)
        if found is not None:
            return found
    if cat in ("SBARQ", "SINV"):
        found = _copula_question_head(node)
        if found is not None:
            return found
    if cat in ("VP", "SQ", "SINV"):
        kept: list[Node] | None = None
        if any(_verbal(k, AUXILIARIES, True) for k in kids) or _passive_or_progressive(kids):
            cats = "VP ADJP" if any(_verbal(k, COPULAR, True) for k in kids) else "VP"
            kept = [k for k in kids if _keeps(k)]
            found = _locate(kept, _r("left", cats), False) if kept else None
            if found is not None:
                return found
        if (
            any(_verbal(k, COPULAR, False) for k in kids)
            and not _existential(node, parent)
            and not _wh_question(node, parent)
        ):
            direction = "right" if cat == "SQ" else "left"
            if kept is None:
                kept = [k for k in kids if _keeps(k)]
            found = _locate(kept, _r(direction, "VP ADJP NP UCP PP WHADJP WHNP"), False) if kept else None
            if cat == "SQ" and found is not None and found.label.startswith("NP"):
                another = False
                for k in kids:
                    if k is found:
                        break
                    if k.label.startswith("NP"):
                        another = True
                        break
                if not another:
                    found = None
            if found is not None:
                return found
    rules = RULES.get(cat)
    if rules is None:
        raise ValueError(f"no head rule for category {cat!r} in {node!r}")
    last = len(rules) - 1
    for i, rule in enumerate(rules):
        found = _locate(kids, rule, i == last)
        if found is not None:
            return found
    raise AssertionError("the last rule always finds a head")  # pragma: no cover


def bare_head_child(node: Node) -> Node:
    """The head child as found without looking at the parent (the existential test off)."""
    found = node.bare_hkid
    if found is None:
        if node.word is not None or node.is_preterminal():
            found = node.hkid
        else:
            found = head_child(node, None)
        node.bare_hkid = found
    assert found is not None
    return found


def find_heads(root: Node, order: list[Node] | None = None) -> None:
    """Set ``hkid``, ``head`` and ``top`` on every node below and at ``root``
    (``order``: the tree's nodes in pre-order, when the caller has them)."""
    if order is None:
        order = root.preorder()
    for node in reversed(order):
        node.bare_hkid = None
        if node.word is not None:
            node.head = node
            node.hkid = None
            continue
        kid = head_child(node, node.parent)
        node.hkid = kid
        node.head = kid.head
    for node in order:
        parent = node.parent
        if parent is not None and parent.head is node.head:
            node.top = parent.top
        else:
            node.top = node
