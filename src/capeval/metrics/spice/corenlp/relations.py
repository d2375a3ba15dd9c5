"""Typed relations between constituents: which child (or relative) of a node bears which relation.

Each relation of CoreNLP 3.6.0's UD v1 English converter is recognised by a handful of
structural *configurations*. A configuration is a function from a constituent to the
constituents that bear the relation to it (the dependency then links their head words),
registered with :func:`_on` for the labels it applies to; a relation also only ever looks at
constituents whose label passes its *source* test (:data:`SOURCES`). The configurations are
plain Python over the working tree (:mod:`.nodes`): labels, children, sisters to the left or
right, the head child, words. :func:`relations_for` gives, per label, the configurations to run.

Conventions used in the configurations:

* labels are compared exactly unless the code says "startswith" or uses the basic category;
* words are compared exactly unless the set they are looked up in is lower-cased (then the
  word is lower-cased first);
* "the head child" is the head finder's choice *without* the existential test (``bare``);
* ``kidset`` is the set of a node's children's labels, used to skip configurations early;
* a configuration returns every target it finds; duplicates are harmless.

:data:`RELATIONS` lists the relations in the converter's order; :data:`PARENT` is the hierarchy
the label merge (:mod:`.dependencies`) uses when several relations claim one arc.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from .heads import bare_head_child as bare
from .nodes import Node, basic_category
from .transforms import COPULAR, PASSIVE_AUX

__all__ = ["RELATIONS", "SOURCES", "relations_for", "PARENT", "is_ancestor", "CLAUSE_RELATIONS"]

Targets = list[Node]

# --- word lists -------------------------------------------------------------------------------------
TIME = frozenset(
    "monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays saturday saturdays "
    "sunday sundays year years month months week weeks day days morning mornings evening evenings night nights "
    "january jan. february feb. march mar. april apr. may june july august aug. september sept. october oct. "
    "november nov. december dec. today yesterday tomorrow spring summer fall autumn winter".split()
)
TIME_LOT = TIME | {"lot"}
BE_AUX = frozenset("am is are r be being 's 're 'm was were been s ai m art ar wase".split())
CLAUSAL = frozenset(
    "seem seems seemed seeming resemble resembles resembled resembling become becomes became becoming "
    "remain remains remained remaining".split()
)
HAVE = frozenset("have had has having 've ve v 'd d hvae hav as".split())
SELF = frozenset("myself yourself himself herself itself ourselves yourselves themselves".split())
XCOMP_VERBS = frozenset(
    "advise advises advised advising allow allows allowed allowing ask asks asked asking beg begs begged begging "
    "convice convinces convinced convincing demand demands demanded demanding desire desires desired desiring "
    "expect expects expected expecting encourage encourages encouraged encouraging force forces forced forcing "
    "implore implores implored imploring lobby lobbies lobbied lobbying order orders ordered ordering persuade "
    "persuades persuaded persuading pressure pressures pressured pressuring prompt prompts prompted prompting "
    "require requires required requiring tell tells told telling urge urges urged urging".split()
)
CCOMP_VERBS = frozenset(
    "ask asks asked asking know knows knew knowing specify specifies specified specifying tell tells told telling "
    "understand understands understood understanding wonder wonders wondered wondering".split()
)
CCOMP_OBJ_VERBS = frozenset("tell tells told telling".split())
NOT_WORDS = frozenset({"not", "nt", "n't", "never"})
_WESTERN_SMILEY = re.compile(
    r"^(?:[<>]?[:;=8][\-o\*']?(?:-RRB-|-LRB-|[DPdpO/\\:}{@|\[\]])|(?:-RRB-|-LRB-|[DPdpO/\\:}{@|\[\]])[\-o\*']?[:;=8][<>]?)$"
)
_ASIAN_SMILEY = re.compile(r"(?!^--$)^(?:-LRB-)?[\-\^x=~<>'][_.]?[\-\^x=~<>'](?:-RRB-)?$")
_ABBREVIATION = re.compile(r"^(?:[A-Z]\.?){2,}")


# --- structural tests -----------------------------------------------------------------------------------
def _kid_has(node: Node, words: frozenset[str] | set[str]) -> bool:
    """A child labelled (or a leaf worded) exactly one of ``words``."""
    return any(k.label in words for k in node.kids)


def _kid_has_ci(node: Node, words: frozenset[str] | set[str]) -> bool:
    """A child whose label, lower-cased, is one of ``words`` (case-insensitive word test)."""
    return any(k.label.lower() in words for k in node.kids)


def _kid_prefix(node: Node, prefixes: tuple[str, ...]) -> bool:
    return any(k.label.startswith(prefixes) for k in node.kids)


def _right(node: Node) -> list[Node]:
    p = node.parent
    return p.kids[node.order + 1 :] if p is not None else []


def _left(node: Node) -> list[Node]:
    p = node.parent
    return p.kids[: node.order] if p is not None else []


def _next(node: Node) -> Node | None:
    p = node.parent
    if p is None or node.order + 1 >= len(p.kids):
        return None
    return p.kids[node.order + 1]


def _prev(node: Node) -> Node | None:
    p = node.parent
    if p is None or node.order == 0:
        return None
    return p.kids[node.order - 1]


def _between(a: Node, b: Node) -> list[Node]:
    """Sisters strictly between ``a`` and ``b`` (same parent; ``a`` left of ``b``)."""
    p = a.parent
    assert p is not None
    return p.kids[a.order + 1 : b.order]


def _time_headed(node: Node, words: frozenset[str] = TIME) -> bool:
    """``node <# (/^NN/ < time-word)``."""
    if node.word is not None or not node.kids:
        return False
    head = bare(node)
    return head.label.startswith("NN") and _kid_has_ci(head, words)


def _is_etc(node: Node) -> bool:
    return node.label == "FW" and _kid_has_ci(node, _ETC)


def _is_fw_etc(node: Node) -> bool:
    return node.label in ("ADVP", "NP") and bool(node.kids) and _is_etc(node.kids[0])


_ETC = frozenset({"etc", "ect"})


def _last_is_etc(node: Node) -> bool:
    return bool(node.kids) and (_is_etc(node.kids[-1]) or _is_fw_etc(node.kids[-1]))


def _has_etc_kid(node: Node) -> bool:
    return any(_is_etc(k) or _is_fw_etc(k) for k in node.kids)


def _copular(node: Node) -> bool:
    """A node labelled VB*/AUX* with a copular child (leaf)."""
    return node.label.startswith(("VB", "AUX")) and _kid_has_ci(node, COPULAR)


def _chain(node: Node, through: Callable[[str], bool]) -> Iterable[Node]:
    """``node <+(C) X`` candidates: children, and children of C-children, recursively."""
    stack = list(reversed(node.kids))
    while stack:
        kid = stack.pop()
        yield kid
        if through(kid.label):
            stack.extend(reversed(kid.kids))


def _rightmost_path(node: Node) -> Iterable[Node]:
    """Nodes X with ``node <<- X``: the last child, its last child, ... down to a leaf."""
    while node.kids:
        node = node.kids[-1]
        yield node


def _leftmost_path(node: Node) -> Iterable[Node]:
    while node.kids:
        node = node.kids[0]
        yield node


def _descendants(node: Node) -> Iterable[Node]:
    stack = list(node.kids)
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.kids)


def _head_path(node: Node) -> Iterable[Node]:
    """Nodes X with ``node <<# X``: the head child, its head child, ... down to the word."""
    while node.kids:
        node = node.kids[0] if node.is_preterminal() else bare(node)
        yield node


# --- the registry ---------------------------------------------------------------------------------------
LabelTest = frozenset[str] | re.Pattern[str] | Callable[[str], bool]
Pattern = Callable[[Node], Targets]
_EMPTY: Targets = []
_TABLE: list[tuple[str, LabelTest, frozenset[str] | None, Pattern]] = []


def _on(
    relation: str, labels: LabelTest, needs: set[str] | frozenset[str] | None = None
) -> Callable[[Pattern], Pattern]:
    """Register a configuration of ``relation`` for constituents whose label passes ``labels``
    (a set of labels, a regular expression that must match the whole label, or a predicate)
    and, when ``needs`` is given, that have a child labelled one of ``needs`` (the configuration
    finds nothing otherwise, so it is not even called)."""

    def register(fn: Pattern) -> Pattern:
        _TABLE.append((relation, labels, frozenset(needs) if needs is not None else None, fn))
        return fn

    return register


def _passes(test: LabelTest, label: str) -> bool:
    if isinstance(test, frozenset):
        return label in test
    if isinstance(test, re.Pattern):
        return test.fullmatch(label) is not None
    return bool(test(label))


def _labels(*labels: str) -> frozenset[str]:
    return frozenset(labels)


def _basic_in(*cats: str) -> Callable[[str], bool]:
    wanted = frozenset(cats)
    return lambda label: basic_category(label) in wanted


# --- aux, auxpass, cop ---------------------------------------------------------------------------------------
_AUX_TAGS = frozenset({"MD", "AUX", "AUXG", "POS"})


@_on("aux", _labels("VP"), needs={"VP"})
def _aux_vp(t: Node) -> Targets:
    if "VP" not in t.kidset:
        return _EMPTY
    return [k for k in t.kids if k.label in _AUX_TAGS or k.label.startswith("VB")]


@_on("aux", _labels("SQ", "SINV"))
def _aux_sq(t: Node) -> Targets:
    return [
        k
        for k in t.kids
        if k.label.startswith(("VB", "MD", "AUX")) and any(r.label.startswith(("VP", "ADJP")) for r in _right(k))
    ]


@_on("aux", _labels("SINV"))
def _aux_sinv(t: Node) -> Targets:
    return [
        k
        for k in t.kids
        if k.label == "VP"
        and any(v.label.startswith(("VB", "AUX", "POS")) and _kid_has_ci(v, BE_AUX) for v in k.kids)
        and any(x.label == "VP" and "VBG" in x.kidset for x in _left(k))
    ]


def _participle_phrase(x: Node) -> bool:
    """``VP|ADJP [ < VBN|VBD | < (VP|ADJP < VBN|VBD) < CC ]``."""
    if x.label not in ("VP", "ADJP"):
        return False
    ks = x.kidset
    if "VBN" in ks or "VBD" in ks:
        return True
    return "CC" in ks and any(k.label in ("VP", "ADJP") and ("VBN" in k.kidset or "VBD" in k.kidset) for k in x.kids)


@_on("auxpass", _labels("VP"), needs={"VP", "ADJP"})
def _auxpass_vp(t: Node) -> Targets:
    if not any(_participle_phrase(k) for k in t.kids):
        return _EMPTY
    return [k for k in t.kids if k.label.startswith(("VB", "AUX", "POS")) and _kid_has_ci(k, PASSIVE_AUX)]


@_on("auxpass", _labels("SQ", "SINV"))
def _auxpass_sq(t: Node) -> Targets:
    return [
        k
        for k in t.kids
        if k.label.startswith(("VB", "AUX", "POS"))
        and _kid_has_ci(k, BE_AUX)
        and any(r.label == "VP" and ("VBD" in r.kidset or "VBN" in r.kidset) for r in _right(k))
    ]


@_on("auxpass", _labels("SINV"))
def _auxpass_sinv(t: Node) -> Targets:
    out: Targets = []
    for k in t.kids:
        if k.label != "VP" or not any(x.label == "VP" and ("VBD" in x.kidset or "VBN" in x.kidset) for x in _left(k)):
            continue
        if any(v.label.startswith(("VB", "AUX", "POS")) and _kid_has_ci(v, BE_AUX) for v in k.kids):
            out.append(k)
        elif any(
            v.label == "VP" and any(w.label.startswith(("VB", "AUX", "POS")) and _kid_has_ci(w, BE_AUX) for w in v.kids)
            for v in k.kids
        ):
            out.append(k)
    return out


def _cop_complement(x: Node) -> bool:
    """``/^(?:ADJP|NP$|WHNP$|PP|UCP)/ !< (VBN|VBD !$++ /^N/)``."""
    lab = x.label
    if not (lab.startswith(("ADJP", "PP", "UCP")) or lab in ("NP", "WHNP")):
        return False
    for k in x.kids:
        if k.label in ("VBN", "VBD") and not any(r.label.startswith("N") for r in _right(k)):
            return False
    return True


def _adjp_s(x: Node) -> bool:
    """``S <: (ADJP < JJ)``."""
    return x.label == "S" and len(x.kids) == 1 and x.kids[0].label == "ADJP" and "JJ" in x.kids[0].kidset


@_on("cop", _labels("VP"))
def _cop_vp(t: Node) -> Targets:
    return [k for k in t.kids if _copular(k) and any(_cop_complement(r) or _adjp_s(r) for r in _right(k))]


@_on("cop", _labels("SQ", "SINV"))
def _cop_sq(t: Node) -> Targets:
    out: Targets = []
    for k in t.kids:
        if not _copular(k):
            continue
        right = _right(k)
        if (
            any(r.label == "ADJP" and not ("VBN" in r.kidset or "VBD" in r.kidset) for r in right)
            or any(r.label == "NP" and any(q.label == "NP" for q in _right(r)) for r in right)
            or any(_adjp_s(r) for r in right)
        ):
            out.append(k)
    return out


@_on("cop", _labels("SBARQ"))
def _cop_sbarq(t: Node) -> Targets:
    if not any(k.label == "WHNP" and "WP" in k.kidset for k in t.kids):
        return _EMPTY
    return [k for k in t.kids if _copular(k)]


@_on("cop", _labels("SINV"))
def _cop_sinv(t: Node) -> Targets:
    out: Targets = []
    head = bare(t)
    if head.label == "NP":
        for np in _right(head):
            if np.label != "NP":
                continue
            for vp in _right(np):
                if vp.label == "VP" and any(_copular(v) for v in vp.kids):
                    out.append(vp)
    return out


# --- conj, cc, punct ---------------------------------------------------------------------------------------
_CONJ_NOT_TARGET = frozenset({"SBAR", "PRN", "``", "''", "-LRB-", "-RRB-", ",", ":", "."})
_CONJ_NOT_TARGET2 = frozenset({"PRN", "``", "''", "-LRB-", "-RRB-", ",", ":", "."})
_CLAUSE_CONJ_PARENTS = frozenset({"VP", "S", "SBAR", "SBARQ", "SINV", "SQ", "RRC"})
_PHRASE_CONJ_PARENTS = frozenset(
    {"ADJP", "JJP", "PP", "QP", "NP", "NP-TMP", "NP-ADV", "WHNP", "WHNP-TMP", "WHNP-ADV", "ADVP", "UCP", "UCP-TMP",
     "UCP-ADV", "NX", "NML"}
)  # fmt: skip
_PHRASE_CONJ_PARENTS2 = _PHRASE_CONJ_PARENTS - {"JJP", "QP"}
_LIST_PARENTS = frozenset(
    {"VP", "S", "SBAR", "SBARQ", "SINV", "ADJP", "PP", "QP", "NP", "NP-TMP", "NP-ADV", "WHNP", "WHNP-TMP", "WHNP-ADV",
     "ADVP", "UCP", "UCP-TMP", "UCP-ADV", "NX", "NML"}
)  # fmt: skip
_CC_CONJP = frozenset({"CC", "CONJP"})
_BAD_LEFT_CLAUSE = ("``", "-LRB-", "PRN", "PP", "ADVP", "RB", "MWE")
_BAD_LEFT_CLAUSE2 = ("``", "-LRB-", "PRN", "PP", "ADVP", "RB")


def _conj_like(label: str) -> bool:
    """``/^S|SINV$|^(?:A|N|V|PP|PRP|J|W|R)/``."""
    return label.startswith(("S", "A", "N", "V", "PP", "PRP", "J", "W", "R")) or label.endswith("SINV")


def _clause_cc(k: Node, bad_left: tuple[str, ...]) -> bool:
    """A CC/CONJP with some left sister not starting with any of ``bad_left``."""
    return k.label in _CC_CONJP and any(not s.label.startswith(bad_left) for s in _left(k))


def _phrase_cc(k: Node) -> bool:
    return k.label in _CC_CONJP and any(s.label not in ("``", "-LRB-", "PRN") for s in _left(k))


def _separator(label: str) -> bool:
    """``/^:|,$/``: starts with a colon or ends with a comma."""
    return label.startswith(":") or label.endswith(",")


def _has_cc(t: Node) -> bool:
    ks = t.kidset
    return "CC" in ks or "CONJP" in ks


@_on("conj", _CLAUSE_CONJ_PARENTS, needs=_CC_CONJP)
def _conj_clause(t: Node) -> Targets:
    if not _has_cc(t):
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if _clause_cc(k, _BAD_LEFT_CLAUSE):
            nxt = _next(k)
            if nxt is not None and nxt.label not in _CONJ_NOT_TARGET:
                out.append(nxt)
        if _clause_cc(k, _BAD_LEFT_CLAUSE2):
            adv = _next(k)
            if adv is not None and adv.label == "ADVP":
                nxt = _next(adv)
                if nxt is not None and nxt.label not in _CONJ_NOT_TARGET2:
                    out.append(nxt)
    return out


@_on("conj", _labels("SBAR"), needs=_CC_CONJP)
def _conj_sbar(t: Node) -> Targets:
    if not _has_cc(t):
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label in _CC_CONJP and any(basic_category(s.label) == "SBAR" for s in _left(k)):
            nxt = _next(k)
            if nxt is not None and basic_category(nxt.label) == "SBAR":
                out.append(nxt)
    return out


@_on("conj", _CLAUSE_CONJ_PARENTS - {"RRC"}, needs=_CC_CONJP)
def _conj_after_comma_in_clause(t: Node) -> Targets:
    """The conjunct right after a comma/bracket in a coordinated clause."""
    if not _has_cc(t):
        return _EMPTY
    kids = t.kids
    if not any(_clause_cc(k, _BAD_LEFT_CLAUSE2) for k in kids):
        return _EMPTY
    head = bare(t)
    out: Targets = []
    for p in kids:
        if p.label not in _CONJ_NOT_TARGET2:
            continue
        target = _next(p)
        if target is None or not _conj_like(target.label):
            continue
        ok = False
        for c in _left(target):
            if c.label in _CC_CONJP and any(s is head for s in _left(c)):
                if not any(_separator(x.label) and x.order < target.order for x in _right(c)):
                    ok = True
                    break
        if not ok:
            for s2 in _left(target):
                if not _separator(s2.label) or not any(x is head for x in _left(s2)):
                    continue
                if not any(x.label.startswith("CC") or x.label.endswith("CONJP") for x in _left(s2)):
                    ok = True
                    break
                if target.kids and target.word is None:
                    thead = bare(target)
                    if any(c.label == "," and any(r is thead for r in _right(c)) for c in target.kids):
                        ok = True
                        break
        if ok:
            out.append(target)
    return out


def _etc_in(t: Node) -> bool:
    return "FW" in t.kidset or (("ADVP" in t.kidset or "NP" in t.kidset) and _has_etc_kid(t))


@_on("conj", _PHRASE_CONJ_PARENTS, needs=_CC_CONJP | {"FW", "ADVP", "NP"})
def _conj_phrase(t: Node) -> Targets:
    cc = _has_cc(t)
    etc = _etc_in(t)
    if not cc and not etc:
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if cc and _phrase_cc(k):
            nxt = _next(k)
            if nxt is not None and nxt.label not in _CONJ_NOT_TARGET2:
                out.append(nxt)
        if etc and (_is_etc(k) or _is_fw_etc(k)):
            out.append(k)
    return out


@_on("conj", _PHRASE_CONJ_PARENTS2, needs=_CC_CONJP | {"FW", "ADVP", "NP"})
def _conj_phrase_adverb(t: Node) -> Targets:
    cc = _has_cc(t)
    etc = _etc_in(t)
    if not cc and not etc:
        return _EMPTY
    kids = t.kids
    out: Targets = []
    if cc:
        for k in kids:
            if _phrase_cc(k):
                adv = _next(k)
                if adv is not None and adv.label == "ADVP":
                    nxt = _next(adv)
                    if nxt is not None and nxt.label not in _CONJ_NOT_TARGET2:
                        out.append(nxt)
    if any(_phrase_cc(k) or _is_etc(k) or _is_fw_etc(k) for k in kids):
        for k in kids:
            if k.label in _CONJ_NOT_TARGET2:
                nxt = _next(k)
                if nxt is not None and (_conj_like(nxt.label) or _is_etc(nxt)):
                    out.append(nxt)
    return out


@_on("conj", _labels("NX", "NML"))
def _conj_nx(t: Node) -> Targets:
    kids = t.kids
    if not (any(k.label in _CC_CONJP and k.order > 0 for k in kids) or any(_is_etc(k) for k in kids)):
        return _EMPTY
    out: Targets = []
    for k in kids:
        if k.label == ",":
            prev = _prev(k)
            if prev is not None and prev.label.startswith(("A", "N", "V", "PP", "PRP", "J", "W", "R", "S")):
                out.append(prev)
    return out


@_on("conj", _LIST_PARENTS)
def _conj_preconjunct(t: Node) -> Targets:
    kids = t.kids
    out: Targets = []
    if "CC" in t.kidset:
        for k in kids:
            if k.label != "CC":
                continue
            for c in _right(k):
                if c.label in _CC_CONJP:
                    nxt = _next(c)
                    if nxt is not None and nxt.label not in _CONJ_NOT_TARGET2:
                        out.append(nxt)
    if kids and (_is_etc(kids[-1]) or _is_fw_etc(kids[-1])):
        out.append(kids[-1])
    return out


@_on("conj", _labels("PCONJP"))
def _conj_pconjp(t: Node) -> Targets:
    out: Targets = []
    for k in t.kids:
        if k.label == "CC":
            nxt = _next(k)
            if nxt is not None and nxt.label in ("IN", "TO"):
                out.append(nxt)
    return out


@_on("conj", lambda label: True)
def _conj_slash(t: Node) -> Targets:
    kids = t.kids
    out: Targets = []
    for i in range(len(kids) - 2):
        a, m, b = kids[i], kids[i + 1], kids[i + 2]
        if "," in m.label and b.label == a.label and any("/" in c.label for c in m.kids):
            out.append(b)
    return out


_PRECONJ = frozenset({"either", "neither", "both"})
_NOT = frozenset({"not"})
_ONLY = frozenset({"only", "just", "merely"})


@_on("cc", lambda label: True, needs=_CC_CONJP)
def _cc(t: Node) -> Targets:
    if not _has_cc(t):
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label == "CC":
            if not _kid_has_ci(k, _PRECONJ):
                out.append(k)
        elif k.label == "CONJP":
            blocked = False
            for r in k.kids:
                if r.label == "RB" and _kid_has_ci(r, _NOT):
                    nxt = _next(r)
                    if nxt is not None and nxt.label in ("RB", "JJ") and _kid_has_ci(nxt, _ONLY):
                        blocked = True
                        break
            if not blocked:
                out.append(k)
    return out


_PUNCT_LABELS = frozenset({".", ":", ",", "''", "``", "*", "-LRB-", "-RRB-", "HYPH"})


def _smiley(node: Node) -> bool:
    return any(_WESTERN_SMILEY.search(k.label) or _ASIAN_SMILEY.search(k.label) for k in node.kids)


@_on("punct", lambda label: True, needs=_PUNCT_LABELS | {"NFP"})
def _punct(t: Node) -> Targets:
    ks = t.kidset
    if ks.isdisjoint(_PUNCT_LABELS) and "NFP" not in ks:
        return _EMPTY
    return [k for k in t.kids if k.label in _PUNCT_LABELS or (k.label == "NFP" and not _smiley(k))]


# --- subjects ------------------------------------------------------------------------------------------------
_NP_WHNP = frozenset({"NP", "WHNP"})


@_on("nsubj", _labels("S"), needs=_NP_WHNP)
def _nsubj_s(t: Node) -> Targets:
    ks = t.kidset
    if "NP" not in ks and "WHNP" not in ks:
        return _EMPTY
    kids = t.kids
    out: Targets = []
    under_vp = t.parent is not None and t.parent.label == "VP"
    if "VP" in ks:
        for k in kids:
            if k.label not in _NP_WHNP:
                continue
            verbs = [r for r in _right(k) if r.label == "VP"]
            if not verbs:
                continue
            if "EX" not in k.kidset and not _time_headed(k):
                if not under_vp or any("TO" not in v.kidset for v in verbs):
                    out.append(k)
            if k.label == "NP" and _time_headed(k) and not any(r.label == "NP" for r in _right(k)):
                out.append(k)
    if under_vp:
        for k in kids:
            nxt = _next(k)
            if k.label == "NP" and nxt is not None and nxt.label in ("NP", "ADJP"):
                out.append(k)
    if any(k.label == "NP" and "EX" in k.kidset for k in kids):
        for vp in _chain(t, lambda x: x == "VP"):
            if vp.label == "VP":
                out += [np for np in vp.kids if np.label == "NP"]
    return out


@_on("nsubj", _labels("SQ", "PRN"), needs={"NP"})
def _nsubj_sq_prn(t: Node) -> Targets:
    if "NP" not in t.kidset:
        return _EMPTY
    return [k for k in t.kids if k.label == "NP" and "EX" not in k.kidset and any(r.label == "VP" for r in _right(k))]


@_on("nsubj", _labels("SQ"), needs={"NP"})
def _nsubj_sq(t: Node) -> Targets:
    if "NP" not in t.kidset:
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label != "NP" or "EX" in k.kidset:
            continue
        prev = _prev(k)
        no_vp_after = not any(r.label == "VP" for r in _right(k))
        if prev is not None and _copular(prev) and no_vp_after:
            out.append(k)
        if (
            prev is not None
            and prev.label.startswith(("VB", "AUX"))
            and no_vp_after
            and not any(s.label in _NP_WHNP for s in _left(t))
        ):
            out.append(k)
        if prev is not None and prev.label == "RB" and no_vp_after:
            pp = _prev(prev)
            if pp is not None and pp.label.startswith(("VB", "AUX")):
                out.append(k)
    for k in t.kids:
        if k.label == "NP" and "EX" in k.kidset:
            out += [r for r in _right(k) if r.label == "NP"]
    return out


@_on("nsubj", _labels("SBARQ"))
def _nsubj_sbarq(t: Node) -> Targets:
    out: Targets = []
    kids = t.kids
    whnps = [k for k in kids if k.label == "WHNP"]
    sqs = [k for k in kids if k.label == "SQ"]
    if whnps and any(
        any(v.label == "VP" and not any(x.label == "NP" for x in _left(v)) for v in sq.kids) for sq in sqs
    ):
        out += whnps
    if whnps and any(
        any(
            v.label.startswith("VB")
            and not _kid_has_ci(v, COPULAR)
            and not any(x.label == "NP" for x in _left(v))
            and not any(x.label == "VP" for x in _right(v))
            for v in sq.kids
        )
        for sq in sqs
    ):
        out += whnps
    for sq in sqs:
        if any(_copular(v) for v in sq.kids) and "VP" not in sq.kidset:
            out.append(sq)
    if any(_copular(k) for k in kids) and any(w.label == "WHNP" and "WP" in w.kidset for w in kids):
        out += [k for k in kids if k.label == "NP"]
    for wh in whnps:
        for verb in _right(wh):
            if not _copular(verb):
                continue
            for adj in _right(verb):
                if adj.label == "ADJP" and not any(
                    np.label == "NP" and any(r is adj for r in _right(np)) for np in _right(verb)
                ):
                    out.append(wh)
    if kids and kids[0].label == "WHNP":
        for sq in sqs:
            if any(_copular(v) for v in sq.kids) and (
                any(np.label == "NP" and "EX" in np.kidset for np in sq.kids) or "PP" in sq.kidset
            ):
                out.append(kids[0])
    return out


_SINV_VERBISH = frozenset({"VP", "VBZ", "VBD", "VBP", "VB", "MD", "AUX"})


@_on("nsubj", _labels("SINV"))
def _nsubj_sinv(t: Node) -> Targets:
    kids = t.kids
    out: Targets = []
    for k in kids:
        if k.label not in _NP_WHNP:
            continue
        prev = _prev(k)
        if prev is not None and prev.label in _SINV_VERBISH:
            out.append(k)
        elif (
            prev is not None
            and basic_category(prev.label) in ("RB", "ADVP")
            and (p2 := _prev(prev)) is not None
            and p2.label in _SINV_VERBISH
        ):
            out.append(k)
        elif prev is None and not any(basic_category(s.label) == "NP" for s in kids if s is not k):
            out.append(k)
    for k in kids:
        if k.label != "NP":
            continue
        for np in _right(k):
            if np.label == "NP" and any(vp.label == "VP" and any(_copular(v) for v in vp.kids) for vp in _right(np)):
                out.append(np)
    return out


@_on("nsubj", _labels("SBAR"))
def _nsubj_sbar(t: Node) -> Targets:
    kids = t.kids
    out: Targets = []
    ks = t.kidset
    if "WHNP" in ks:
        for wh in kids:
            if wh.label != "WHNP":
                continue
            if any(
                s.label == "S"
                and any(v.label == "VP" and not any(x.label == "NP" for x in _left(v)) for v in s.kids)
                and "SBAR" not in s.kidset
                for s in kids
            ):
                out.append(wh)
            elif any(v.label == "VP" and not any(x.label == "NP" for x in _left(v)) for v in kids) and "S" not in ks:
                out.append(wh)
    elif any(
        s.label == "S" and not any(np.label == "NP" and any(r.label == "VP" for r in _right(np)) for np in s.kids)
        for s in kids
    ):
        vp = t.parent
        if vp is not None and vp.label == "VP" and vp.parent is not None and vp.parent.label == "S":
            relative = _prev(vp.parent)
            if relative is not None and relative.label == "WHNP":
                out.append(relative)
    return out


@_on("nsubjpass", _labels("S", "SQ"), needs={"VP"})
def _nsubjpass(t: Node) -> Targets:
    if "VP" not in t.kidset:
        return _EMPTY
    kids = t.kids
    if not any(
        vp.label == "VP"
        and any(v.label.startswith(("VB", "AUX")) and _kid_has_ci(v, PASSIVE_AUX) for v in vp.kids)
        and any(x.label == "VP" and ("VBN" in x.kidset or "VBD" in x.kidset) for x in vp.kids)
        for vp in kids
    ):
        return _EMPTY
    return [k for k in kids if k.label in ("WHNP", "NP") and "EX" not in k.kidset]


def _clausal_subjects(t: Node) -> Iterable[Node]:
    for k in t.kids:
        if k.label in ("SBAR", "S"):
            nxt = _next(k)
            if nxt is None or nxt.label != ",":
                yield k


@_on("csubj", _labels("S"), needs={"S", "SBAR"})
def _csubj(t: Node) -> Targets:
    ks = t.kidset
    if "VP" not in ks or ("S" not in ks and "SBAR" not in ks):
        return _EMPTY
    return [
        k
        for k in _clausal_subjects(t)
        if any(vp.label == "VP" and not any(x.label == "NP" for x in _left(vp)) for vp in _right(k))
    ]


def _passive_vp(vp: Node) -> bool:
    return any(v.label.startswith(("VB", "AUX")) and _kid_has_ci(v, PASSIVE_AUX) for v in vp.kids)


@_on("csubjpass", _labels("S"), needs={"S", "SBAR"})
def _csubjpass(t: Node) -> Targets:
    ks = t.kidset
    if "VP" not in ks or ("S" not in ks and "SBAR" not in ks):
        return _EMPTY
    out: Targets = []
    for k in _clausal_subjects(t):
        for vp in _right(k):
            if vp.label != "VP" or any(x.label == "NP" for x in _left(vp)):
                continue
            if any(x.label == "VP" and ("VBN" in x.kidset or "VBD" in x.kidset) for x in vp.kids) and _passive_vp(vp):
                out.append(k)
                break
            if any(
                inner.label == "VP"
                and ("VBN" in inner.kidset or "VBD" in inner.kidset)
                and inner.parent is not None
                and inner.parent.label == "VP"
                and _passive_vp(inner.parent)
                for inner in _chain(vp, lambda x: x == "VP")
            ):
                out.append(k)
                break
    return out


# --- objects -------------------------------------------------------------------------------------------------
def _object_np(k: Node) -> bool:
    """``NP|WHNP [ [ !<# time !$+ NP ] | $+ NP-TMP | $+ (NP <# time) ]``."""
    if k.label not in _NP_WHNP:
        return False
    nxt = _next(k)
    if not _time_headed(k) and (nxt is None or nxt.label != "NP"):
        return True
    return nxt is not None and (nxt.label == "NP-TMP" or (nxt.label == "NP" and _time_headed(nxt)))


def _no_colon_parenthetical(t: Node, target: Node) -> bool:
    """``<# (__ !$++ (NP $++ (/^[:]$/ $++ =target)))``."""
    if ":" not in t.kidset:
        return True
    head = bare(t)
    for np in _right(head):
        if np.label == "NP" and any(c.label == ":" and c.order < target.order for c in _right(np)):
            return False
    return True


def _to_vp(s: Node) -> bool:
    """``S < (VP < TO)``."""
    return any(v.label == "VP" and "TO" in v.kidset for v in s.kids)


@_on("dobj", _labels("VP"), needs={"NP", "WHNP", "S"})
def _dobj_vp(t: Node) -> Targets:
    ks = t.kidset
    out: Targets = []
    if ("NP" in ks or "WHNP" in ks) and not any(
        k.label.startswith(("VB", "AUX")) and (_kid_has_ci(k, COPULAR) or _kid_has_ci(k, CLAUSAL)) for k in t.kids
    ):
        out += [k for k in t.kids if _object_np(k) and _no_colon_parenthetical(t, k)]
    if "S" in ks:
        for s in t.kids:
            if s.label == "S":
                for np in s.kids:
                    if np.label in _NP_WHNP and any(v.label == "VP" and "TO" in v.kidset for v in _right(np)):
                        out.append(np)
    return out


@_on("dobj", _labels("SQ"))
def _dobj_sq(t: Node) -> Targets:
    verbs = [k for k in t.kids if k.label.startswith("VB")]
    if (
        len(verbs) == 1
        and not _kid_has_ci(verbs[0], COPULAR)
        and any(s.label == "WHNP" for s in _left(t))
        and "VP" not in t.kidset
    ):
        return [k for k in t.kids if _object_np(k)]
    return _EMPTY


def _sbarq_wh_before_copula_adj(t: Node, adj_ok: Callable[[Node], bool]) -> Targets:
    """``SBARQ < (WHNP=target $++ (copula $++ ADJP=adj $++ (NP $++ =adj)))`` with a test on adj."""
    out: Targets = []
    for wh in t.kids:
        if wh.label != "WHNP":
            continue
        found = False
        for verb in _right(wh):
            if not _copular(verb):
                continue
            for adj in _right(verb):
                if (
                    adj.label == "ADJP"
                    and adj_ok(adj)
                    and any(np.label == "NP" and np.order < adj.order for np in _right(verb))
                ):
                    found = True
                    break
            if found:
                break
        if found:
            out.append(wh)
    return out


@_on("dobj", _labels("SBARQ"))
def _dobj_sbarq(t: Node) -> Targets:
    out: Targets = []
    for wh in t.kids:
        if wh.label != "WHNP" or "WRB" in wh.kidset or _time_headed(wh):
            continue
        for vp in _chain(t, lambda x: x in ("SQ", "SINV", "S", "VP")):
            if vp.label != "VP" or "NP" in vp.kidset or "TO" in vp.kidset:
                continue
            if any(s.label == "S" and _to_vp(s) for s in vp.kids):
                continue
            if any(
                _copular(v) and any(x.label == "VP" and ("VBN" in x.kidset or "VBD" in x.kidset) for x in _right(v))
                for v in vp.kids
            ):
                continue
            if any(p.label == "PP" and len(p.kids) == 1 and p.kids[0].label in ("IN", "TO") for p in vp.kids):
                continue
            if any(np.label == "NP" and "-NONE-" not in np.kidset for np in _left(vp)):
                out.append(wh)
                break
    out += _sbarq_wh_before_copula_adj(
        t, lambda adj: not any(p.label == "PP" and "NP" not in p.kidset for p in adj.kids)
    )
    return out


def _pp_ending_in(vp: Node, last: tuple[str, ...]) -> bool:
    """``vp <+(VP) (PP <- last)``."""
    return any(pp.label == "PP" and pp.kids and pp.kids[-1].label in last for pp in _chain(vp, lambda x: x == "VP"))


def _relative_pronouns(t: Node, vp_test: Callable[[Node], bool]) -> Targets:
    """``SBAR < (WHNP=target !< WRB) < (S < NP < (VP ...))`` with a test on the VP."""
    if "WHNP" not in t.kidset or "S" not in t.kidset:
        return _EMPTY
    out: Targets = []
    for wh in t.kids:
        if wh.label != "WHNP" or "WRB" in wh.kidset:
            continue
        if any(
            s.label == "S" and "NP" in s.kidset and any(vp.label == "VP" and vp_test(vp) for vp in s.kids)
            for s in t.kids
        ):
            out.append(wh)
    return out


def _clause_gap(vp: Node) -> bool:
    """The VP has an SBAR, a stranded preposition (through VPs), or an infinitival S."""
    return "SBAR" in vp.kidset or _pp_ending_in(vp, ("IN", "TO")) or any(x.label == "S" and _to_vp(x) for x in vp.kids)


@_on("dobj", _labels("SBAR"), needs={"WHNP"})
def _dobj_sbar(t: Node) -> Targets:
    return _relative_pronouns(t, lambda vp: not _clause_gap(vp))


@_on("iobj", _labels("VP"), needs={"NP"})
def _iobj(t: Node) -> Targets:
    if "NP" not in t.kidset:
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label != "NP":
            continue
        nxt = _next(k)
        if (
            nxt is not None
            and nxt.label == "NP"
            and not any("$" in c.label for c in k.kids)
            and not _time_headed(k)
            and not _time_headed(nxt)
        ):
            out.append(k)
        if "NP" not in k.kidset:
            continue
        for a in k.kids:
            if a.label != "NP" or any("$" in c.label for c in a.kids):
                continue
            sisters = k.kids
            if any(s is not a and (s.label in _CC_CONJP or s.label == ",") for s in sisters):
                continue
            if any(s.label == ":" for s in _right(a)):
                continue
            for b in _right(a):
                if b.label != "NP":
                    continue
                if len(b.kids) == 1 and b.kids[0].label == "PRP" and _kid_has_ci(b.kids[0], SELF):
                    continue
                if len(b.kids) == 1 and b.kids[0].label == "DT":
                    continue
                if any(c.label.startswith("NN") and _kid_has_ci(c, TIME_LOT) for c in b.kids):
                    continue
                out.append(k)
                break
    return out


# --- nmod ------------------------------------------------------------------------------------------------------
_NMOD_PARENTS = re.compile(r"(?:(?:WH)?(?:NP|ADJP|ADVP|NX|NML)(?:-TMP|-ADV)?|VP|NAC|SQ|FRAG|PRN|X|RRC)")
_PP_LABELS = frozenset({"WHPP", "WHPP-TMP", "PP", "PP-TMP"})
_PP_LABELS_ADV = frozenset({"WHPP", "WHPP-TMP", "WHPP-ADV", "PP", "PP-TMP", "PP-ADV"})


def _nominal(label: str) -> bool:
    """Basic category NP, WHNP or NML."""
    return basic_category(label) in ("NP", "WHNP", "NML")


def _has_nominal_kid(k: Node) -> bool:
    return any(_nominal(c.label) for c in k.kids)


@_on("nmod", _NMOD_PARENTS, needs=_PP_LABELS | {"S"})
def _nmod_pp(t: Node) -> Targets:
    ks = t.kidset
    out: Targets = []
    if not ks.isdisjoint(_PP_LABELS) and not _last_is_etc(t):
        for k in t.kids:
            if k.label in _PP_LABELS and (
                _has_nominal_kid(k) or any(c.label == "PP" and _has_nominal_kid(c) for c in k.kids)
            ):
                out.append(k)
    if "S" in ks:
        for k in t.kids:
            if k.label == "S" and len(k.kids) == 1 and k.kids[0].label in _PP_LABELS:
                out.append(k)
    return out


@_on("nmod", _PP_LABELS_ADV, needs=_PP_LABELS_ADV)
def _nmod_pp_in_pp(t: Node) -> Targets:
    if t.kidset.isdisjoint(_PP_LABELS_ADV):
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label in _PP_LABELS_ADV:
            prev = _prev(k)
            if prev is None or prev.label not in ("IN", "VBG", "VBN", "TO"):
                out.append(k)
    return out


@_on("nmod", _labels("S", "SINV"), needs={"PP", "PP-TMP"})
def _nmod_fronted(t: Node) -> Targets:
    ks = t.kidset
    if ("PP" not in ks and "PP-TMP" not in ks) or ("VP" not in ks and "S" not in ks):
        return _EMPTY
    return [k for k in t.kids if k.label in ("PP", "PP-TMP") and "SBAR" not in k.kidset and "S" not in k.kidset]


@_on("nmod", _labels("SBAR", "SBARQ"), needs={"S", "SQ"})
def _nmod_sbar(t: Node) -> Targets:
    ks = t.kidset
    if "S" not in ks and "SQ" not in ks:
        return _EMPTY
    return [k for k in t.kids if k.label.startswith(("PP", "WHPP"))]


@_on("nmod", _basic_in("NP"), needs={"UCP", "UCP-TMP", "UCP-ADV", "PRN"})
def _nmod_ucp(t: Node) -> Targets:
    return [
        k
        for k in t.kids
        if basic_category(k.label) in ("UCP", "PRN") and k.kids and basic_category(bare(k).label) == "PP"
    ]


def _bare_in_pp(p: Node) -> bool:
    return p.label == "PP" and len(p.kids) == 1 and p.kids[0].label == "IN"


@_on("nmod", _labels("SBARQ"))
def _nmod_sbarq(t: Node) -> Targets:
    out = _sbarq_wh_before_copula_adj(t, lambda adj: any(_bare_in_pp(p) for p in adj.kids))

    def vp_with_bare_in(vp: Node) -> bool:
        return vp.label == "VP" and any(_bare_in_pp(p) for p in vp.kids)

    for wh in t.kids:
        if wh.label == "WHNP" and any(
            vp_with_bare_in(r) or (r.label == "SQ" and any(vp_with_bare_in(v) for v in r.kids)) for r in _right(wh)
        ):
            out.append(wh)
    return out


# --- ccomp -------------------------------------------------------------------------------------------------------
_THAT_WHETHER = frozenset({"that", "whether"})
_HOW = frozenset({"how"})
_AS = frozenset({"as"})


def _s_chain_vp(s: Node) -> bool:
    """``S <+(S) VP``."""
    return any(v.label == "VP" for v in _chain(s, lambda x: x == "S"))


def _that_whether_first(sbar: Node) -> bool:
    first = sbar.kids[0] if sbar.kids else None
    return first is not None and first.label in ("IN", "DT") and _kid_has_ci(first, _THAT_WHETHER)


def _in_or_whadvp_start(sbar: Node) -> bool:
    """``<, (IN|WHADVP)`` or ``<2 (IN|WHADVP $- ADVP|RB)``."""
    k = sbar.kids
    if k and k[0].label in ("IN", "WHADVP"):
        return True
    return len(k) > 1 and k[1].label in ("IN", "WHADVP") and k[0].label in ("ADVP", "RB")


def _wh_sbar(sbar: Node) -> bool:
    """``=sbar < (WHADVP|WHNP < (WRB !< how) !$-- /^(?!RB|ADVP).*$/) !< (S < (VP < TO))``."""
    ok = False
    for w in sbar.kids:
        if w.label not in ("WHADVP", "WHNP"):
            continue
        if not any(r.label == "WRB" and not _kid_has_ci(r, _HOW) for r in w.kids):
            continue
        if any(not s.label.startswith(("RB", "ADVP")) for s in _left(w)):
            continue
        ok = True
        break
    if not ok:
        return False
    return not any(s.label == "S" and _to_vp(s) for s in sbar.kids)


def _sbar_choices(target: Node) -> list[Node]:
    """``[ == @SBAR=sbar | <# @SBAR=sbar ]``."""
    out = [target] if basic_category(target.label) == "SBAR" else []
    if target.word is None and target.kids:
        head = bare(target)
        if basic_category(head.label) == "SBAR":
            out.append(head)
    return out


@_on("ccomp", _labels("VP"), needs={"S", "SBAR", "SBARQ"})
def _ccomp_vp(t: Node) -> Targets:
    kids = t.kids
    out: Targets = []
    has_obj_verb = any(v.label.startswith("V") and _kid_has_ci(v, CCOMP_OBJ_VERBS) for v in kids)
    for s in kids:
        lab = s.label
        if lab == "S":
            if not any(x.label == "NP" for x in _left(s)) and any(
                v.label == "VP" and not (v.kids and v.kids[0].label in ("TO", "VBG", "VBN")) for v in s.kids
            ):
                out.append(s)
        elif lab == "SBAR":
            no_np_left = not any(x.label == "NP" for x in _left(s))
            if any(x.label == "S" and _s_chain_vp(x) for x in s.kids) and _that_whether_first(s):
                out.append(s)
            if not s.kidset.isdisjoint(_CC_CONJP) and any(
                x.label == "SBAR" and any(y.label == "S" and _s_chain_vp(y) for y in x.kids) and _that_whether_first(x)
                for x in s.kids
            ):
                out.append(s)
            s_vp = any(x.label == "S" and "VP" in x.kidset for x in s.kids)
            if s_vp and no_np_left and not _in_or_whadvp_start(s):
                out.append(s)
            if s_vp and has_obj_verb and not no_np_left and not _in_or_whadvp_start(s):
                out.append(s)
            if (
                s_vp
                and no_np_left
                and s.kids
                and s.kids[0].label == "WHADVP"
                and any(w.label == "WRB" and _kid_has_ci(w, _HOW) for w in s.kids[0].kids)
            ):
                out.append(s)
        if basic_category(lab) == "SBARQ":
            out.append(s)
    if "S" in t.kidset and any(v.label.startswith("VB") and _kid_has_ci(v, HAVE) for v in kids):
        for s in kids:
            if s.label == "S" and any(basic_category(x.label) == "NP" for x in s.kids) and "VP" in s.kidset:
                out.append(s)
    if any(v.label.startswith("V") and _kid_has_ci(v, CCOMP_VERBS) for v in kids):
        for s in kids:
            if basic_category(s.label) != "SBAR":
                continue
            if any(basic_category(x.label) in ("SBAR", "S") or x.label == ":" for x in _left(s)):
                continue
            if not (has_obj_verb or not any(x.label == "NP" for x in _left(s))):
                continue
            if any(_wh_sbar(c) for c in _sbar_choices(s)):
                out.append(s)
    return out


@_on("ccomp", _basic_in("S", "SINV"), needs={"S", "SBARQ"})
def _ccomp_quoted(t: Node) -> Targets:
    """``"...", he said``: a clause followed by a comma/period/quote."""
    out: Targets = []
    kids = t.kids
    for s in kids:
        if basic_category(s.label) not in ("S", "SBARQ"):
            continue
        nxt = _next(s)
        if nxt is None or nxt.label not in (",", ".", "''"):
            continue
        prev = _prev(s)
        if prev is not None and prev.label in ("CC", "CONJP", ":"):
            continue
        if prev is not None and prev.label == ",":
            pp = _prev(prev)
            if pp is not None and pp.label in _CC_CONJP:
                continue
        if any(v.label == "VP" and not v.kidset.isdisjoint(_TO_VBG_VBN) for v in s.kids):
            continue
        if any(
            v.label == "VP"
            and v.kids
            and v.kids[0].label == "VP"
            and (
                (v.kids[0].kids and v.kids[0].kids[0].label in ("VBG", "VBN"))
                or (
                    len(v.kids[0].kids) > 1
                    and v.kids[0].kids[1].label in ("VBG", "VBN")
                    and any(a.label == "ADVP" for a in _left(v.kids[0].kids[1]))
                )
            )
            for v in s.kids
        ):
            continue
        blocked = False
        for other in kids:
            if other is s or basic_category(other.label) != "S" or other.order > s.order:
                continue
            if not any(basic_category(c.label) in ("CC", "CONJP") for c in _right(other)):
                blocked = True
                break
        if not blocked:
            out.append(s)
    return out


_TO_VBG_VBN = frozenset({"TO", "VBG", "VBN"})


@_on("ccomp", _labels("ADVP"), needs={"SBAR"})
def _ccomp_advp(t: Node) -> Targets:
    if "SBAR" not in t.kidset:
        return _EMPTY
    out: Targets = []
    for s in t.kids:
        if s.label != "SBAR":
            continue
        if "WHNP" in s.kidset:
            out.append(s)
        elif any(
            i.label == "IN" and any(c.label.lower().startswith(("as", "that")) for c in i.kids) for i in s.kids
        ) and any(x.label == "S" and any(v.label == "VP" and "TO" not in v.kidset for v in x.kids) for x in s.kids):
            out.append(s)
    return out


@_on("ccomp", _labels("ADJP"), needs={"SBAR"})
def _ccomp_adjp(t: Node) -> Targets:
    if "SBAR" not in t.kidset:
        return _EMPTY
    return [
        s
        for s in t.kids
        if s.label == "SBAR" and not any(i.label == "IN" and _kid_has(i, _AS) for i in s.kids) and "S" in s.kidset
    ]


@_on("ccomp", _labels("S"), needs={"SBAR"})
def _ccomp_s_that(t: Node) -> Targets:
    kids = t.kids
    if kids:
        s = kids[0]
        if s.label == "SBAR" and s.kids and s.kids[0].label == "IN" and _kid_has_ci(s.kids[0], _THAT_WHETHER):
            nxt = _next(s)
            if nxt is None or nxt.label != "VP":
                return [s]
    return _EMPTY


@_on("ccomp", _basic_in("NP"), needs={"SBAR"})
def _ccomp_np(t: Node) -> Targets:
    ks = t.kidset
    if "SBAR" not in ks or ("JJ" not in ks and "NN" not in ks and "NNS" not in ks):
        return _EMPTY
    out: Targets = []
    for s in t.kids:
        if s.label != "SBAR":
            continue
        infinitival = any(x.label == "S" and _to_vp(x) for x in s.kids)
        if not infinitival or not any(x.label in ("NP", "NN", "NNP", "NNS") for x in _left(s)):
            out.append(s)
    return out


# --- xcomp ---------------------------------------------------------------------------------------------------------
_ORDER = frozenset({"order"})
_BE = frozenset({"be"})


def _not_after_order(s: Node) -> bool:
    prev = _prev(s)
    return not (prev is not None and prev.label == "NN" and _kid_has(prev, _ORDER))


def _adjp_jj_s(s: Node) -> bool:
    """``@S < (@ADJP < /^JJ/ ! $-- @NP|S)``."""
    return basic_category(s.label) == "S" and any(
        basic_category(a.label) == "ADJP"
        and _kid_prefix(a, ("JJ",))
        and not any(basic_category(x.label) in ("NP", "S") for x in _left(a))
        for a in s.kids
    )


def _copula_before(t: Node) -> bool:
    return any(v.label.startswith("VB") and _kid_has_ci(v, COPULAR) for v in _left(t))


@_on("xcomp", _labels("VP"))
def _xcomp_vp(t: Node) -> Targets:
    kids = t.kids
    ks = t.kidset
    out: Targets = []
    if "S" in ks:
        for s in kids:
            if s.label != "S":
                continue
            to_vp = _to_vp(s)
            left = _left(s)
            after_order = not _not_after_order(s)
            if (
                to_vp
                and not after_order
                and (
                    not any(x.label == "NP" for x in left)
                    or any(x.label.startswith("V") and _kid_has_ci(x, XCOMP_VERBS) for x in left)
                )
            ):
                out.append(s)
            if not after_order and any(
                np.label == "NP" and (n := _next(np)) is not None and n.label in ("NP", "ADJP") for np in s.kids
            ):
                out.append(s)
            if (
                not after_order
                and len(s.kids) == 1
                and s.kids[0].label == "NP"
                and t.parent is not None
                and t.parent.label == "VP"
            ):
                out.append(s)
            if "VP" not in s.kidset:
                out.append(s)
            if (
                any(v.label == "VP" and "VBG" in v.kidset for v in s.kids)
                and "NP" not in s.kidset
                and not any(x.label == ":" or x.label == "VBG" for x in left)
            ):
                prev = _prev(s)
                blocked = False
                if prev is not None and prev.label == ",":
                    pp = _prev(prev)
                    if pp is not None:
                        b = basic_category(pp.label)
                        if b in ("NP", "VP"):
                            blocked = True
                        elif b in ("PP", "ADVP") and any(basic_category(x.label) == "NP" for x in _left(pp)):
                            blocked = True
                if not blocked:
                    out.append(s)
    if "SBAR" in ks:
        for s in kids:
            if s.label == "SBAR" and any(x.label == "S" and _not_after_order(x) and _to_vp(x) for x in s.kids):
                parent = t.parent
                if not (
                    parent is not None
                    and parent.label == "VP"
                    and any(v.label in ("VB", "AUX") and _kid_has(v, _BE) for v in parent.kids)
                ):
                    out.append(s)
    head = bare(t)
    if head.label.startswith(("VB", "AUX")):
        nxt = _next(head)
        if nxt is not None and nxt.label == "VP" and ("VB" in nxt.kidset or "VBG" in nxt.kidset):
            out.append(nxt)
    copula_before = _copula_before(t) if t.parent is not None else False
    if copula_before:
        for v in kids:
            if v.label.startswith("VB"):
                nxt = _next(v)
                if nxt is not None and _adjp_jj_s(nxt):
                    out.append(nxt)
    clausal_verb = any(v.label.startswith(("VB", "AUX")) and _kid_has_ci(v, CLAUSAL) for v in kids)
    if clausal_verb:
        if any(v.label.startswith("VB") and _kid_has_ci(v, CLAUSAL) for v in kids) and any(
            v.label.startswith(("VB", "AUX")) and _kid_has_ci(v, COPULAR) for v in _left(t)
        ):
            out += [np for np in kids if np.label == "NP"]
        out += [k for k in kids if _object_np(k) and _no_colon_parenthetical(t, k)]
    if head.label.startswith(("VB", "AUX")) and _kid_has_ci(head, COPULAR) and "NP" in ks:
        sisters = t.parent.kids if t.parent is not None else []
        if not any(s is not t and s.label == "NP" and "EX" in s.kidset for s in sisters):
            out += [np for np in kids if np.label == "NP"]
    if "ADJP" in ks:
        out += [a for a in kids if a.label == "ADJP"]
    if not copula_before:
        for v in kids:
            if not v.label.startswith("VB"):
                continue
            if _kid_has_ci(v, CLAUSAL):
                out += [x for x in _right(v) if x.label == "VP"]
            nxt = _next(v)
            if nxt is not None and _adjp_jj_s(nxt):
                out.append(nxt)
    return out


@_on("xcomp", _labels("ADJP"), needs={"S"})
def _xcomp_adjp(t: Node) -> Targets:
    if "S" not in t.kidset:
        return _EMPTY
    return [
        s
        for s in t.kids
        if s.label == "S" and s.kids and s.kids[0].label == "VP" and s.kids[0].kids and s.kids[0].kids[0].label == "TO"
    ]


@_on("xcomp", _labels("SINV"))
def _xcomp_sinv(t: Node) -> Targets:
    out: Targets = []
    head = bare(t)
    if head.label == "VP" and any(v.label.startswith(("VB", "AUX")) and _kid_has_ci(v, COPULAR) for v in head.kids):
        for np in _left(head):
            if np.label == "NP":
                out += [x for x in _left(np) if x.label == "NP"]
    return out


# --- mark, rel, expl -------------------------------------------------------------------------------------------
@_on("mark", _labels("VP"), needs={"TO"})
def _mark_to(t: Node) -> Targets:
    if "TO" not in t.kidset or "VP" not in t.kidset:
        return _EMPTY
    return [k for k in t.kids if k.label == "TO"]


@_on("mark", _labels("SBAR", "SBAR-TMP"), needs={"IN", "DT", "MWE"})
def _mark_sbar(t: Node) -> Targets:
    return [k for k in t.kids if k.label in ("IN", "DT", "MWE") and any(r.label in ("S", "FRAG") for r in _right(k))]


@_on("mark", _labels("SBAR"), needs={"IN", "DT"})
def _mark_that(t: Node) -> Targets:
    if "IN" not in t.kidset and "DT" not in t.kidset:
        return _EMPTY
    parent = t.parent
    ok = any(x.label.startswith(("VB", "AUX")) for x in _left(t))
    prev = _prev(t)
    ok = ok or (prev is not None and prev.label in ("NP", "NN", "NNS"))
    ok = ok or (parent is not None and parent.label in ("ADJP", "PP"))
    if not ok and parent is not None and basic_category(parent.label) in ("NP", "UCP", "SBAR"):
        ok = not parent.kidset.isdisjoint(_CC_CONJP) and any(x.label.startswith(("VB", "AUX")) for x in _left(parent))
    if not ok:
        return _EMPTY
    return [k for k in t.kids if k.label in ("IN", "DT") and _kid_has(k, _THAT_WHETHER)]


_MARKERS = frozenset({"IN", "TO", "MWE", "PCONJP", "VBN", "JJ"})


@_on("mark", _labels("PP", "PP-TMP", "PP-ADV"), needs=_MARKERS)
def _mark_pp(t: Node) -> Targets:
    out: Targets = []
    for k in t.kids:
        if k.label in _MARKERS:
            nxt = _next(k)
            if nxt is not None and basic_category(nxt.label) in ("SBAR", "S"):
                out.append(k)
    return out


@_on("rel", _labels("SBAR"), needs={"WHNP"})
def _rel_sbar(t: Node) -> Targets:
    return _relative_pronouns(t, _clause_gap)


@_on("rel", _labels("SBARQ"))
def _rel_sbarq(t: Node) -> Targets:
    out: Targets = []
    for wh in t.kids:
        if wh.label != "WHNP" or "WRB" in wh.kidset or _time_headed(wh):
            continue
        if any(
            _copular(v) and not any(r.label == "VP" for r in _right(v))
            for v in _chain(t, lambda x: x in ("SQ", "SINV"))
        ):
            out.append(wh)
    return out


@_on("expl", _labels("S", "SQ", "SINV"), needs={"NP"})
def _expl(t: Node) -> Targets:
    if "NP" not in t.kidset:
        return _EMPTY
    return [k for k in t.kids if k.label == "NP" and any(e.label == "EX" for e in _chain(k, lambda x: x == "NP"))]


# --- advcl -------------------------------------------------------------------------------------------------------
_THAN = frozenset({"than"})
_SO_NOW = frozenset({"so", "now"})
_THAT = frozenset({"that"})
_NOW = frozenset({"now"})


def _than_clause(sbar: Node, words: frozenset[str], marker_test: bool) -> bool:
    """The shared body of the comparative-clause configurations (advcl, acl:relcl)."""
    if marker_test:
        if not any(i.label in ("IN", "MWE") and _kid_has_ci(i, _THAN) for i in sbar.kids):
            return False
    elif any(i.label == "IN" and _kid_has_ci(i, words) for i in sbar.kids):
        return False
    if not sbar.kidset.isdisjoint(_WH_PHRASES):
        return False
    if len(sbar.kids) == 1 and sbar.kids[0].label == "S" and not _to_vp(sbar.kids[0]):
        return False
    last = ("IN", "TO", "MWE") if marker_test else ("IN", "TO")
    for s in sbar.kids:
        if s.label != "S":
            continue
        for np in s.kids:
            if basic_category(np.label) != "NP":
                continue
            for vp in _right(np):
                if vp.label != "VP":
                    continue
                if any(_copular(v) and ((n := _next(v)) is None or n.label != "VP") for v in vp.kids):
                    continue
                chain = list(_chain(vp, lambda x: x == "VP"))
                if any(
                    _copular(v)
                    and (n := _next(v)) is not None
                    and n.label == "VP"
                    and ("VBN" in n.kidset or "VBD" in n.kidset)
                    for v in chain
                ):
                    continue
                if any(x.label == "NP" for x in chain):
                    continue
                if "SBAR" in vp.kidset:
                    continue
                if any(p.label == "PP" and p.kids and p.kids[-1].label in last for p in chain):
                    continue
                return True
    return False


_WH_PHRASES = frozenset({"WHPP", "WHNP", "WHADVP"})


def _not_that_marker(k: Node) -> bool:
    """``IN|MWE !< /^(?i:that|whether)$/``."""
    return k.label in ("IN", "MWE") and not _kid_has_ci(k, _THAT_WHETHER)


def _first_marker(sbar: Node) -> bool:
    """``<, (IN|MWE !< that|whether !$+ (NN < order))``."""
    if not sbar.kids:
        return False
    first = sbar.kids[0]
    if not _not_that_marker(first):
        return False
    nxt = _next(first)
    return not (nxt is not None and nxt.label == "NN" and _kid_has(nxt, _ORDER))


def _sbar_marked(x: Node) -> bool:
    """The marked-SBAR shapes of the adverbial clause under a VP."""
    if basic_category(x.label) != "SBAR":
        return False
    kids = x.kids
    if any(_not_that_marker(k) for k in kids):
        return True
    if (
        len(kids) == 1
        and kids[0].label == "SINV"
        and kids[0].kids
        and kids[0].kids[0].label.startswith(("VB", "MD", "AUX"))
    ):
        return True
    if any(k.label in ("RB", "IN") and _kid_has(k, _SO_NOW) for k in kids) and any(
        k.label == "IN" and _kid_has(k, _THAT) for k in kids
    ):
        return True
    return (
        len(kids) > 1
        and kids[0].label == "ADVP"
        and any(r.label == "RB" and _kid_has(r, _NOW) for r in kids[0].kids)
        and kids[1].label == "IN"
        and _kid_has(kids[1], _THAT)
    )


def _participle_vp(verb: Node) -> bool:
    """``[ <1 VBG|VBN | <2 (VBG|VBN $-- ADVP) ]``."""
    k = verb.kids
    if k and k[0].label in ("VBG", "VBN"):
        return True
    return len(k) > 1 and k[1].label in ("VBG", "VBN") and k[0].label == "ADVP"


def _preceded_by_coordination(k: Node) -> bool:
    """``$- (@CC|CONJP $- __)``."""
    prev = _prev(k)
    return prev is not None and basic_category(prev.label) in ("CC", "CONJP") and _prev(prev) is not None


def _has_sbar(t: Node) -> bool:
    return any(basic_category(k.label) == "SBAR" for k in t.kids)


@_on("advcl", _labels("VP"), needs={"SBAR", "S"})
def _advcl_vp(t: Node) -> Targets:
    kids = t.kids
    out: Targets = []
    if _has_sbar(t):
        for k in kids:
            if basic_category(k.label) == "SBAR" and (_sbar_marked(k) or any(_sbar_marked(c) for c in k.kids)):
                out.append(k)
        has_ccomp_verb = any(v.label.startswith("V") and _kid_has_ci(v, CCOMP_VERBS) for v in kids)
        has_obj_verb = any(v.label.startswith("V") and _kid_has_ci(v, CCOMP_OBJ_VERBS) for v in kids)
        for k in kids:
            if basic_category(k.label) != "SBAR" or any(x.label == ":" for x in _left(k)):
                continue
            left = _left(k)
            if not (
                not has_ccomp_verb
                or any(basic_category(x.label) in ("SBAR", "S") for x in left)
                or (not has_obj_verb and any(x.label == "NP" for x in left))
            ):
                continue
            if any(_wh_sbar(c) for c in _sbar_choices(k)):
                out.append(k)
    for s in kids:
        if basic_category(s.label) != "S":
            continue
        if any(v.label == "VP" and _participle_vp(v) for v in s.kids):
            prev = _prev(s)
            if prev is not None and prev.label == ",":
                pp = _prev(prev)
                if pp is not None:
                    b = basic_category(pp.label)
                    if b in ("NP", "VP") or (
                        b in ("PP", "ADVP") and any(basic_category(x.label) == "NP" for x in _left(pp))
                    ):
                        out.append(s)
        if s.label != "S":
            continue
        if any(v.label == "VP" and "VBG" in v.kidset for v in s.kids):
            for ing in _left(s):
                if ing.label == "VBG" and not any(c.label == ":" and c.order > ing.order for c in _left(s)):
                    out.append(s)
                    break
        if (
            any(x.label == "NP" for x in _left(s))
            and _to_vp(s)
            and not any(x.label.startswith("V") and _kid_has_ci(x, XCOMP_VERBS) for x in _left(s))
        ):
            out.append(s)
    return out


@_on("advcl", _labels("S", "SQ", "SINV"), needs={"SBAR", "SBAR-TMP"})
def _advcl_fronted_sbar(t: Node) -> Targets:
    ks = t.kidset
    if "SBAR" not in ks and "SBAR-TMP" not in ks:
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label not in ("SBAR", "SBAR-TMP") or not _first_marker(k):
            continue
        nxt = _next(k)
        if not any(not x.label.startswith(("CC", "CONJP", "``", ",", "INTJ", "PP")) for x in _left(k)) and (
            nxt is None or nxt.label != "VP"
        ):
            out.append(k)
        if (
            nxt is not None
            and nxt.label == ","
            and basic_category(nxt.label) != "VP"
            and any(basic_category(x.label) == "NP" for x in _right(k))
        ):
            out.append(k)
    return out


@_on("advcl", _labels("SBARQ"))
def _advcl_sbarq(t: Node) -> Targets:
    out: Targets = []
    for k in t.kids:
        if k.label in ("SBAR", "SBAR-TMP", "SBAR-ADV") and _first_marker(k):
            nxt = _next(k)
            if (
                nxt is not None
                and nxt.label == ","
                and any(basic_category(x.label) in ("SQ", "S", "SBARQ") for x in _right(k))
            ):
                out.append(k)
    if "WHNP" in t.kidset:
        for s in t.kids:
            if s.label == "S" and any(v.label == "VP" and v.kids and v.kids[0].label == "TO" for v in s.kids):
                out.append(s)
    return out


@_on("advcl", _labels("S", "SQ"), needs={"SBAR"})
def _advcl_wh(t: Node) -> Targets:
    if not _has_sbar(t):
        return _EMPTY
    return [
        k
        for k in t.kids
        if basic_category(k.label) == "SBAR"
        and any(_wh_sbar(c) and not any(x.label == ":" for x in _left(c)) for c in _sbar_choices(k))
    ]


@_on("advcl", _basic_in("S"), needs={"SBAR", "S"})
def _advcl_before_subject(t: Node) -> Targets:
    out: Targets = []
    for k in t.kids:
        b = basic_category(k.label)
        if b == "SBAR":
            right = _right(k)
            if any(basic_category(x.label) == "NP" for x in right) and any(
                basic_category(x.label) == "VP" for x in right
            ):
                out.append(k)
        elif b == "S" and _to_vp(k):
            nxt = _next(k)
            if nxt is not None and nxt.label == "," and any(basic_category(x.label) == "NP" for x in _right(nxt)):
                out.append(k)
    return out


def _comparative_clauses(t: Node, words: frozenset[str], marker_test: bool) -> Targets:
    """``NP < (NP $++ (SBAR=target ...) !$++ (CC $++ =target))`` with the shared clause test."""
    if "SBAR" not in t.kidset or "NP" not in t.kidset:
        return _EMPTY
    out: Targets = []
    for np in t.kids:
        if np.label != "NP":
            continue
        for sbar in _right(np):
            if sbar.label == "SBAR" and _than_clause(sbar, words, marker_test):
                if not any(c.label == "CC" and np.order < c.order < sbar.order for c in t.kids):
                    out.append(sbar)
    return out


@_on("advcl", _labels("NP"), needs={"SBAR"})
def _advcl_than(t: Node) -> Targets:
    return _comparative_clauses(t, _THAN, True)


@_on("advcl", _labels("ADVP"), needs={"ADVP"})
def _advcl_advp(t: Node) -> Targets:
    if "ADVP" not in t.kidset:
        return _EMPTY
    return [k for k in t.kids if k.label == "SBAR"]


@_on("advcl", _labels("S", "SINV"), needs={"S"})
def _advcl_participle(t: Node) -> Targets:
    if "S" not in t.kidset:
        return _EMPTY
    out: Targets = []
    for s in t.kids:
        if s.label != "S":
            continue
        verbs = [v for v in s.kids if v.label == "VP"]
        verbs += [v.kids[0] for v in s.kids if v.label == "VP" and v.kids and v.kids[0].label == "VP"]
        if not any(_participle_vp(v) for v in verbs):
            continue
        prev, nxt = _prev(s), _next(s)
        ok = False
        if prev is not None and prev.label == ",":
            pp = _prev(prev)
            if pp is not None and (
                basic_category(pp.label) == "NP"
                or (
                    basic_category(pp.label) == "PP"
                    and any(basic_category(x.label) == "NP" for x in t.kids if x is not pp)
                )
            ):
                ok = True
        if not ok and nxt is not None and nxt.label == ",":
            n2 = _next(nxt)
            if n2 is not None and basic_category(n2.label) == "NP":
                ok = True
        if ok:
            out.append(s)
    return out


_ADVCL_PCOMP_PARENTS = re.compile(r"(?:(?:WH)?(?:ADJP|ADVP)(?:-TMP|-ADV)?|VP|SQ|FRAG|PRN|X|RRC|S)")
_NOT_PP_OR_IN = re.compile(r"^((?!(PP|IN)).)*$")
_NOT_PP_CC_COMMA = re.compile(r"^((?!(PP|CC|CONJP|,)).)*$")


@_on("advcl", _ADVCL_PCOMP_PARENTS, needs=_PP_LABELS)
def _advcl_pcomp(t: Node) -> Targets:
    if t.kidset.isdisjoint(_PP_LABELS) or _last_is_etc(t):
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label not in _PP_LABELS:
            continue
        if _has_nominal_kid(k) or _preceded_by_coordination(k):
            continue
        if len(k.kids) == 1 and k.kids[0].label in ("IN", "TO"):
            continue
        if any(basic_category(c.label) in ("CC", "CONJP") for c in k.kids):
            continue
        if any(_NOT_PP_OR_IN.match(c.label) for c in k.kids):
            out.append(k)
    return out


@_on("advcl", _labels("VP", "ADJP"), needs={"PP"})
def _advcl_coordinated_pp(t: Node) -> Targets:
    if "PP" not in t.kidset:
        return _EMPTY
    if any(
        basic_category(p.label) == "PP"
        and any(basic_category(c.label) in ("SBAR", "S") for c in p.kids)
        and any(r.label in _CC_CONJP for r in _right(p))
        for p in t.kids
    ):
        return [k for k in t.kids if k.label in ("PP", "PP-TMP", "PP-ADV")]
    return _EMPTY


# --- nmod:tmod -----------------------------------------------------------------------------------------------------
_OLD = frozenset({"old"})
_WHEN = frozenset({"when"})


@_on("nmod:tmod", _labels("VP", "ADJP", "RRC"), needs={"NP", "NP-TMP", "VP"})
def _tmod_vp(t: Node) -> Targets:
    out: Targets = []
    for k in t.kids:
        lab = k.label
        if lab == "NP-TMP":
            out.append(k)
        elif lab == "VP" and k.kids and bare(k).label == "NP-TMP":
            if not any(
                s is not k and (s.label.startswith(",") or "CC" in s.label or s.label.endswith("CONJP")) for s in t.kids
            ):
                out.append(k)
        if lab == "NP" and _time_headed(k):
            nxt = _next(k)
            if not (nxt is not None and nxt.label.startswith("JJ") and _kid_has(nxt, _OLD)):
                out.append(k)
    return out


@_on("nmod:tmod", _basic_in("PP"), needs={"IN", "TO", "VBG", "FW"})
def _tmod_pp(t: Node) -> Targets:
    out: Targets = []
    for k in t.kids:
        if k.label not in ("IN", "TO", "VBG", "FW"):
            continue
        for np in _right(k):
            if basic_category(np.label) != "NP":
                continue
            nxt = _next(np)
            if nxt is not None and (nxt.label == "NP-TMP" or (nxt.label == "NP" and _time_headed(nxt))):
                out.append(nxt)
    return out


@_on("nmod:tmod", _labels("S"), needs={"NP", "NP-TMP"})
def _tmod_s(t: Node) -> Targets:
    out: Targets = []
    for k in t.kids:
        if (
            k.label == "NP-TMP"
            and any(r.label == "VP" for r in _right(k))
            and any(s.label == "NP" for s in t.kids if s is not k)
        ):
            out.append(k)
        if (
            k.label == "NP"
            and _time_headed(k)
            and any(np.label == "NP" and any(v.label == "VP" for v in _right(np)) for np in _right(k))
        ):
            out.append(k)
    return out


@_on("nmod:tmod", _labels("SBAR"))
def _tmod_when(t: Node) -> Targets:
    parent = t.parent
    if (
        parent is not None
        and parent.label == "NP"
        and not any(x.label == "CC" for x in _left(t))
        and any(x.label == "NP" for x in _left(t))
        and any(
            basic_category(w.label) == "WHADVP" and any(r.label == "WRB" and _kid_has(r, _WHEN) for r in w.kids)
            for w in t.kids
        )
        and any(
            s.label == "S"
            and any(
                np.label == "NP"
                and (vp := _next(np)) is not None
                and vp.label == "VP"
                and not any(_copular(v) and ((n := _next(v)) is None or n.label != "VP") for v in vp.kids)
                for np in s.kids
            )
            for s in t.kids
        )
    ):
        return [parent]
    return _EMPTY


@_on("nmod:tmod", _labels("SBARQ"))
def _tmod_sbarq(t: Node) -> Targets:
    if any(s.label == "SQ" and any(basic_category(x.label) == "NP" for x in s.kids) for s in t.kids):
        return [w for w in t.kids if basic_category(w.label) == "WHNP" and _time_headed(w)]
    return _EMPTY


@_on("nmod:tmod", _labels("NP"), needs={"NP-TMP"})
def _tmod_np(t: Node) -> Targets:
    if "NP-TMP" not in t.kidset:
        return _EMPTY
    return [k for k in t.kids if k.label == "NP-TMP"]


# --- acl:relcl -----------------------------------------------------------------------------------------------------
_THAN_THAT_WHETHER = frozenset({"than", "that", "whether"})


@_on("acl:relcl", _basic_in("NP", "WHNP", "NML"))
def _relcl_inner(t: Node) -> Targets:
    parent = t.parent
    if parent is None or basic_category(parent.label) not in ("NP", "WHNP") or "SBAR" not in parent.kidset:
        return _EMPTY
    if any(_nominal(x.label) for x in _left(t)) or any(_is_etc(x) or _is_fw_etc(x) for x in _right(t)):
        return _EMPTY
    out: Targets = []
    for sbar in _right(t):
        if sbar.label != "SBAR":
            continue
        if any(c.label in _CC_CONJP and c.order < sbar.order for c in _right(t)):
            continue
        wh = any(w.label in ("WHPP", "WHNP") for w in _chain(sbar, lambda x: x == "SBAR"))
        bare_s = len(sbar.kids) == 1 and sbar.kids[0].label == "S" and not _to_vp(sbar.kids[0])
        if wh or bare_s:
            out.append(sbar)
    return out


def _where_why_when(sbar: Node) -> bool:
    return any(
        w.label == "WHADVP"
        and any(
            r.label == "WRB" and any(c.label.lower().startswith(("where", "why", "when")) for c in r.kids)
            for r in w.kids
        )
        for w in sbar.kids
    )


@_on("acl:relcl", _labels("NP", "NML"))
def _relcl_where(t: Node) -> Targets:
    parent = t.parent
    if parent is None or basic_category(parent.label) != "NP" or "SBAR" not in parent.kidset:
        return _EMPTY
    if any(x.label in ("NP", "NML") for x in _left(t)) or any(_is_etc(x) or _is_fw_etc(x) for x in _right(t)):
        return _EMPTY
    return [s for s in _right(t) if s.label == "SBAR" and _where_why_when(s)]


@_on("acl:relcl", _basic_in("NP", "WHNP"), needs={"RRC"})
def _relcl_rrc(t: Node) -> Targets:
    if "RRC" not in t.kidset or bare(t).label not in ("NP", "WHNP", "NML", "DT", "S"):
        return _EMPTY
    return [k for k in t.kids if k.label == "RRC"]


@_on("acl:relcl", _basic_in("ADVP"))
def _relcl_advp(t: Node) -> Targets:
    if any(
        basic_category(a.label) == "ADVP"
        and any(r.label == "RB" and any(c.label.endswith("where") for c in r.kids) for r in a.kids)
        for a in t.kids
    ):
        return [k for k in t.kids if basic_category(k.label) == "SBAR"]
    return _EMPTY


@_on("acl:relcl", _labels("NP"), needs={"SBAR"})
def _relcl_no_relativizer(t: Node) -> Targets:
    return _comparative_clauses(t, _THAN_THAT_WHETHER, False)


# --- nummod, amod, compound ----------------------------------------------------------------------------------------
_NOMINAL_EXACT = re.compile(r"(?:WH)?(?:NP|NX|NML)(?:-TMP|-ADV)?")


@_on("nummod", _NOMINAL_EXACT, needs={"CD", "QP", "ADJP"})
def _nummod(t: Node) -> Targets:
    ks = t.kidset
    out: Targets = []
    if "CD" in ks or "QP" in ks:
        for k in t.kids:
            if k.label in ("CD", "QP"):
                prev = _prev(k)
                if prev is None or prev.label != "CC":
                    out.append(k)
    if "ADJP" in ks:
        for k in t.kids:
            if k.label == "ADJP" and len(k.kids) == 1 and k.kids[0].label == "QP" and "$" not in k.kids[0].kidset:
                out.append(k)
    return out


@_on("nummod", _labels("QP"), needs={"$"})
def _nummod_money(t: Node) -> Targets:
    if "$" not in t.kidset:
        return _EMPTY
    return [k for k in t.kids if k.label == "QP"]


_AMOD_TARGETS = frozenset({"ADJP", "WHADJP", "JJ", "JJR", "JJS", "JJP", "VBN", "VBG", "VBD", "IN"})


@_on("amod", _labels("NP", "NP-TMP", "NP-ADV", "NX", "NML", "NAC", "WHNP", "INTJ"), needs=_AMOD_TARGETS)
def _amod(t: Node) -> Targets:
    if t.kidset.isdisjoint(_AMOD_TARGETS):
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label not in _AMOD_TARGETS:
            continue
        if "QP" in k.kidset and any(q.label == "QP" and "$" not in q.kidset for q in k.kids):
            continue
        prev = _prev(k)
        if prev is not None and prev.label == "CC":
            continue
        out.append(k)
    return out


@_on("amod", _labels("ADJP"), needs={"JJ", "NNP"})
def _amod_adjp(t: Node) -> Targets:
    if not t.kidset.isdisjoint(_CC_CONJP):
        return _EMPTY
    adjs = [k for k in t.kids if k.label in ("JJ", "NNP")]
    return adjs if len(adjs) > 1 else _EMPTY


@_on("amod", _labels("WHNP", "WHNP-TMP", "WHNP-ADV", "NP", "NP-TMP", "NP-ADV"), needs={","})
def _amod_age(t: Node) -> Targets:
    if "," not in t.kidset:
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label == "NP" and len(k.kids) == 1 and k.kids[0].label == "CD":
            prev = _prev(k)
            if (
                prev is not None
                and prev.label == ","
                and any(x.label.startswith(("NP", "WHNP")) for x in _left(k))
                and not any(s is not k and s.label in _CC_CONJP for s in t.kids)
            ):
                out.append(k)
    return out


_COMPOUND_PARENTS = re.compile(r"(?:WH)?(?:NP|NX|NAC|NML)(?:-TMP|-ADV)?")
_COMPOUND_TARGETS = frozenset({"NP", "NML", "NN", "NNS", "NNP", "NNPS", "FW", "AFX"})
_COMPOUND_SISTERS = frozenset({"NN", "NNS", "NNP", "NNPS", "FW", "CD"})
_NOUNS = frozenset({"NN", "NNS", "NNP", "NNPS"})
_APOS_S = frozenset({"'s"})
_ADJ_TAGS = frozenset({"JJ", "JJR", "JJS"})


def _ends_possessive(node: Node) -> bool:
    """``<<- POS`` or ``<<- (VBZ < 's)``."""
    for x in _rightmost_path(node):
        if x.label == "POS" or (x.label == "VBZ" and _kid_has(x, _APOS_S)):
            return True
    return False


@_on("compound", _COMPOUND_PARENTS, needs=_COMPOUND_TARGETS)
def _compound(t: Node) -> Targets:
    ks = t.kidset
    if ks.isdisjoint(_COMPOUND_SISTERS) or ks.isdisjoint(_COMPOUND_TARGETS):
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label not in _COMPOUND_TARGETS:
            continue
        first_sister = next((r for r in _right(k) if r.label in _COMPOUND_SISTERS), None)
        if first_sister is None or _ends_possessive(k):
            continue
        prev = _prev(k)
        if prev is not None and prev.label == ",":
            continue
        if any(p.label == "POS" for p in _between(k, first_sister)):
            continue
        out.append(k)
    return out


@_on("compound", _COMPOUND_PARENTS, needs=_ADJ_TAGS)
def _compound_before_adjective(t: Node) -> Targets:
    ks = t.kidset
    if ks.isdisjoint(_ADJ_TAGS) or bare(t).label not in _NOUNS or _ends_possessive(t):
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        nxt = _next(k)
        if (
            k.label in ("NP", "NML", "NN", "NNS", "NNP", "NNPS", "FW")
            and nxt is not None
            and nxt.label in _ADJ_TAGS
            and not _ends_possessive(k)
        ):
            out.append(k)
    return out


@_on("compound", _labels("QP", "ADJP"), needs={"CD", "#"})
def _compound_number(t: Node) -> Targets:
    out: Targets = []
    for k in t.kids:
        if k.label in ("CD", "#"):
            prev = _prev(k)
            if prev is None or prev.label != "CC":
                out.append(k)
    return out


_ETC1 = frozenset({"etc"})
_IN_IN = frozenset({"in", "In"})


@_on("compound", _labels("ADJP", "ADVP"), needs={"FW"})
def _compound_foreign(t: Node) -> Targets:
    if "FW" not in t.kidset:
        return _EMPTY
    out: Targets = []
    for fw in t.kids:
        if fw.label != "FW":
            continue
        prev = _prev(fw)
        if prev is not None and (
            (prev.label == "FW" and not _kid_has_ci(prev, _ETC1)) or (prev.label == "IN" and _kid_has(prev, _IN_IN))
        ):
            out.append(prev)
    return out


# --- appos, discourse, acl ----------------------------------------------------------------------------------------
_APPOS_PARENTS = frozenset({"WHNP", "WHNP-TMP", "WHNP-ADV", "NP", "NP-TMP", "NP-ADV"})
_PRN_BLOCK = re.compile(r"(?:POS|(?:WP|PRP)\$|[,$#]|CC|RB|CD)")


def _plain(t: Node) -> bool:
    """No CC/CONJP child and no "etc" child."""
    return t.kidset.isdisjoint(_CC_CONJP) and not _has_etc_kid(t)


@_on("appos", _APPOS_PARENTS | {"FRAG"}, needs={",", "PRN"})
def _appos_comma(t: Node) -> Targets:
    ks = t.kidset
    out: Targets = []
    if "," in ks and "NP" in ks and _plain(t):
        for k in t.kids:
            if k.label != "NP" or (len(k.kids) == 1 and k.kids[0].label == "CD"):
                continue
            prev = _prev(k)
            if prev is not None and prev.label == "," and any(x.label.startswith(("NP", "WHNP")) for x in _left(k)):
                out.append(k)
    if "PRN" in ks:
        for prn in t.kids:
            if prn.label != "PRN":
                continue
            for np in prn.kids:
                if (
                    np.label == "NP"
                    and _kid_prefix(np, ("NN", "CD"))
                    and any(x.label == "-LRB-" for x in _left(np))
                    and (n := _next(np)) is not None
                    and n.label == "-RRB-"
                ):
                    out.append(prn)
                    break
    return out


@_on("appos", _basic_in("WHNP", "NP"), needs={"NP"})
def _appos_brackets(t: Node) -> Targets:
    if "NP" not in t.kidset:
        return _EMPTY
    return [
        k
        for k in t.kids
        if k.label == "NP"
        and not (len(k.kids) == 1 and k.kids[0].label == "CD")
        and k.kids
        and k.kids[0].label == "-LRB-"
        and k.kids[-1].label == "-RRB-"
        and any(x.label.startswith(("NP", "WHNP")) for x in _left(k))
        and not any(s is not k and s.label in _CC_CONJP for s in t.kids)
    ]


@_on("appos", _labels("NP", "NP-TMP", "NP-ADV"), needs={"NNP"})
def _appos_names(t: Node) -> Targets:
    if "NNP" not in t.kidset or "," not in t.kidset or not _plain(t):
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label == "NNP":
            comma = _next(k)
            if comma is not None and comma.label == ",":
                nnp = _next(comma)
                if nnp is not None and nnp.label == "NNP":
                    out.append(nnp)
    return out


@_on("appos", _APPOS_PARENTS, needs={"PRN", "NP"})
def _appos_abbreviation(t: Node) -> Targets:
    ks = t.kidset
    out: Targets = []
    if "PRN" in ks:
        for prn in t.kids:
            if (
                prn.label == "PRN"
                and prn.kids
                and prn.kids[0].label == "-LRB-"
                and prn.kids[-1].label == "-RRB-"
                and not any(_PRN_BLOCK.fullmatch(d.label) for d in _descendants(prn))
                and any(
                    x.label in ("NNP", "NN") and any(_ABBREVIATION.search(c.label) for c in x.kids)
                    for x in _chain(prn, lambda y: y == "NP")
                )
            ):
                out.append(prn)
    if "NP" in ks and _plain(t):
        for k in t.kids:
            if k.label == "NP" and len(k.kids) == 1 and k.kids[0].label == "NNP":
                prev = _prev(k)
                if prev is not None and prev.label.startswith(("NP", "WHNP")) and "POS" not in prev.kidset:
                    out.append(k)
    return out


@_on("appos", _labels("FRAG", "NP"), needs={"NP"})
def _appos_colon(t: Node) -> Targets:
    out: Targets = []
    for np in t.kids:
        if np.label == "NP" and len(np.kids) == 1 and np.kids[0].label in ("NN", "NNS"):
            colon = _next(np)
            if colon is not None and ":" in colon.label:
                target = _next(colon)
                if target is not None and basic_category(target.label) in ("SQ", "S"):
                    out.append(target)
    return out


@_on("discourse", lambda label: True, needs={"NFP", "INTJ", "PRN"})
def _discourse(t: Node) -> Targets:
    ks = t.kidset
    if "NFP" not in ks and "INTJ" not in ks and "PRN" not in ks:
        return _EMPTY
    out: Targets = [k for k in t.kids if k.label == "NFP" and _smiley(k)]
    for k in t.kids:
        if k.label == "INTJ":
            out.append(k)
        elif k.label == "PRN" and len(k.kids) >= 2 and k.kids[0].label in (",", "-LRB-") and k.kids[1].label == "INTJ":
            if len(k.kids) == 2 or k.kids[2].label in (",", "-RRB-"):
                out.append(k)
    return out


_ACL_PARENTS = frozenset({"WHNP", "WHNP-TMP", "WHNP-ADV", "NP", "NP-TMP", "NP-ADV", "NML", "NX"})
_NP_ANY_FUNCTION = re.compile(r"NP(?:-[A-Z]+)?")
_PARTICIPLES = frozenset({"VBG", "VBN", "VBD"})


@_on("acl", _ACL_PARENTS, needs={"VP"})
def _acl_vp(t: Node) -> Targets:
    ks = t.kidset
    if "VP" not in ks:
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label == "VP":
            if not k.kidset.isdisjoint(_PARTICIPLES) and any(
                basic_category(x.label) in ("NP", "NML", "NX") for x in _left(k)
            ):
                out.append(k)
            prev = _prev(k)
            if prev is not None and prev.label == "," and _participle_vp(k):
                out.append(k)
    return out


@_on("acl", _NOMINAL_EXACT, needs=_PP_LABELS)
def _acl_pcomp(t: Node) -> Targets:
    if t.kidset.isdisjoint(_PP_LABELS) or _last_is_etc(t):
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label not in _PP_LABELS or _has_nominal_kid(k):
            continue
        if _preceded_by_coordination(k):
            continue
        if not any(_NOT_PP_CC_COMMA.match(c.label) for c in k.kids):
            continue
        if any(
            basic_category(p.label) == "PP"
            and len(p.kids) > 1
            and p.kids[0].label in ("IN", "RB", "MWE", "PCONJP", "VBN", "JJ")
            and basic_category(p.kids[1].label) == "NP"
            for p in k.kids
        ):
            continue
        out.append(k)
    return out


@_on("acl", _NP_ANY_FUNCTION, needs={"S", "SBAR"})
def _acl_infinitive(t: Node) -> Targets:
    ks = t.kidset
    if "S" not in ks and "SBAR" not in ks:
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label not in ("S", "SBAR") or not any(x.label in ("NP", "NN", "NNP", "NNS") for x in _left(k)):
            continue
        if k.label == "S" and _to_vp(k):
            out.append(k)
        if k.label == "SBAR" and any(s.label == "S" and _to_vp(s) for s in k.kids):
            out.append(k)
    return out


# --- advmod, neg ---------------------------------------------------------------------------------------------------
_ADVMOD_PARENTS = re.compile(r"(?:VP|ADJP|JJP|WHADJP|SQ?|SBARQ?|SINV|XS|RRC|(?:WH)?NP(?:-TMP|-ADV)?)")
_ADVERBS = frozenset({"RB", "RBR", "RBS", "WRB", "ADVP", "WHADVP"})
_ADVERBS_JJ = _ADVERBS | {"JJ"}
_PP_END = re.compile(r"(?:WH)?PP(?:-TMP|-ADV)?$")
_NO = frozenset({"no"})
_MORE_LESS = frozenset({"more", "less"})


def _plain_adverb(k: Node) -> bool:
    """An adverb child that is neither a negation nor "etc"."""
    return not _kid_has_ci(k, NOT_WORDS) and not any(_is_etc(c) for c in k.kids)


def _at_least_like(k: Node) -> bool:
    """Both ``<+(/ADVP/) (@ADVP < (IN < /(?i:at)/))`` and ``<+(/ADVP/) (@ADVP < NP)``."""
    if k.word is not None or not k.kids:
        return False
    found_at = found_np = False
    for x in _chain(k, lambda lab: "ADVP" in lab):
        if basic_category(x.label) != "ADVP":
            continue
        if any(i.label == "IN" and any("at" in c.label.lower() for c in i.kids) for i in x.kids):
            found_at = True
        if "NP" in x.kidset:
            found_np = True
    return found_at and found_np


@_on("advmod", _ADVMOD_PARENTS, needs=_ADVERBS)
def _advmod(t: Node) -> Targets:
    if t.kidset.isdisjoint(_ADVERBS):
        return _EMPTY
    return [k for k in t.kids if k.label in _ADVERBS and _plain_adverb(k) and not _at_least_like(k)]


_QP_MODIFIERS = frozenset({"IN", "RB", "RBR", "RBS", "PDT", "DT", "JJ", "JJR", "JJS", "XS"})


@_on("advmod", _labels("QP"), needs=_QP_MODIFIERS | {"MWE"})
def _advmod_qp(t: Node) -> Targets:
    out: Targets = [k for k in t.kids if k.label in _QP_MODIFIERS]
    for k in t.kids:
        if (
            k.label == "MWE"
            and any(x.label in ("JJR", "RBR", "IN") and _kid_has_ci(x, _MORE_LESS) for x in k.kids)
            and any(x.label == "IN" and _kid_has_ci(x, _THAN) for x in k.kids)
        ):
            out.append(k)
    return out


@_on("advmod", _labels("ADVP", "WHADVP"), needs=_ADVERBS_JJ)
def _advmod_advp(t: Node) -> Targets:
    kids = t.kids
    if t.kidset.isdisjoint(_ADVERBS_JJ):
        return _EMPTY
    cc_like = [c for c in kids if c.label.startswith("CC") or c.label.endswith("CONJP")]
    head = bare(t) if cc_like else None
    out: Targets = []
    for k in kids:
        if k.label not in _ADVERBS_JJ or not _plain_adverb(k) or _kid_has_ci(k, _NO):
            continue
        if head is None:
            out.append(k)
            continue
        if not any(head.order < c.order < k.order or k.order < c.order < head.order for c in cc_like):
            out.append(k)
    return out


@_on("advmod", _labels("SBAR"), needs={"WHNP"})
def _advmod_sbar(t: Node) -> Targets:
    return [k for k in t.kids if k.label == "WHNP" and "WRB" in k.kidset]


@_on("advmod", _labels("SBARQ"))
def _advmod_sbarq(t: Node) -> Targets:
    kids = t.kids
    return [kids[0]] if kids and kids[0].label == "WHADVP" else _EMPTY


@_on("advmod", _labels("XS"), needs={"JJ"})
def _advmod_xs(t: Node) -> Targets:
    return [k for k in t.kids if k.label == "JJ"]


@_on("advmod", lambda label: _PP_END.search(label) is not None)
def _advmod_pp(t: Node) -> Targets:
    out: Targets = []
    head = bare(t)
    out += [k for k in _left(head) if k.label in _ADVERBS and _plain_adverb(k)]
    if any(basic_category(k.label) in ("NP", "WHNP") for k in t.kids):
        out += [k for k in t.kids if k.label in _ADVERBS and _plain_adverb(k)]
    return out


@_on("advmod", _labels("CONJP"), needs={"RB"})
def _advmod_conjp(t: Node) -> Targets:
    return [k for k in t.kids if k.label == "RB" and _plain_adverb(k)]


_NEG_DET_SISTER = re.compile(r"^(?:N[MNXP]|CD|JJ|JJR|FW|ADJP|QP|RB|RBR|PRP(?![$])|PRN)")


@_on("neg", _labels("VP", "NP", "NP-TMP", "NP-ADV", "ADJP", "SQ", "S", "FRAG", "CONJP", "PP"), needs={"RB"})
def _neg_rb(t: Node) -> Targets:
    if "RB" not in t.kidset:
        return _EMPTY
    return [k for k in t.kids if k.label == "RB" and _kid_has_ci(k, NOT_WORDS)]


@_on("neg", _labels("VP", "ADJP", "S", "SBAR", "SINV", "FRAG"), needs={"ADVP"})
def _neg_advp(t: Node) -> Targets:
    if "ADVP" not in t.kidset:
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label == "ADVP" and k.kids:
            head = bare(k)
            if head.label == "RB" and _kid_has_ci(head, NOT_WORDS):
                out.append(k)
    return out


@_on("neg", _labels("VP"))
def _neg_question(t: Node) -> Targets:
    if t.parent is not None and t.parent.label == "SQ":
        return [k for k in _left(t) if k.label == "RB" and _kid_has_ci(k, NOT_WORDS)]
    return _EMPTY


@_on("neg", _labels("NP", "NP-TMP", "NP-ADV", "NAC", "NML", "NX", "ADJP", "ADVP"), needs={"DT", "RB"})
def _neg_no(t: Node) -> Targets:
    ks = t.kidset
    if "DT" not in ks and "RB" not in ks:
        return _EMPTY
    return [
        k
        for k in t.kids
        if k.label in ("DT", "RB") and _kid_has_ci(k, _NO) and any(_NEG_DET_SISTER.match(r.label) for r in _right(k))
    ]


@_on("neg", _labels("ADVP", "WHADVP"), needs=_ADVERBS_JJ)
def _neg_no_adverb(t: Node) -> Targets:
    if not t.kidset.isdisjoint(_CC_CONJP):
        return _EMPTY
    return [k for k in t.kids if k.label in _ADVERBS_JJ and _kid_has_ci(k, _NO)]


_MWE_TARGETS = frozenset({"IN", "TO", "RB", "NP", "NN", "JJ", "VB", "CC", "VBZ", "VBD", "ADVP", "PP", "JJS", "RBS"})


@_on("mwe", _labels("MWE"))
def _mwe(t: Node) -> Targets:
    return [k for k in t.kids if k.label in _MWE_TARGETS]


# --- det, det:predet, cc:preconj ----------------------------------------------------------------------------------
_DET_SISTER = re.compile(r"^(?:N[MNXP]|CD|JJ|FW|ADJP|QP|RB|PRP(?![$])|PRN)")
_EITHER = frozenset({"either", "neither", "both"})
_EITHER_NO = frozenset({"either", "neither", "both", "no"})
_ALL_BOTH_EACH = frozenset({"all", "both", "each"})


@_on("det", _labels("NP", "NP-TMP", "NP-ADV", "NAC", "NML", "NX", "X"), needs={"DT"})
def _det(t: Node) -> Targets:
    if "DT" not in t.kidset:
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label != "DT" or _kid_has_ci(k, _EITHER_NO):
            continue
        nxt = _next(k)
        if nxt is not None and nxt.label == "DT":
            continue
        right = _right(k)
        if any(r.label == "CC" for r in right):
            continue
        for d in right:
            if not _DET_SISTER.match(d.label):
                continue
            blocked = False
            for x in _between(k, d):
                if x.label.startswith("PRP$") or "POS" in x.label:
                    if not any("''" in q.label for q in _between(x, d)):
                        blocked = True
                        break
            if not blocked:
                out.append(k)
                break
    return out


@_on("det", _labels("NP", "NP-TMP", "NP-ADV"))
def _det_special(t: Node) -> Targets:
    kids = t.kids
    out: Targets = []
    if "DT" in t.kidset:
        for k in kids:
            if k.label != "DT":
                continue
            right = _right(k)
            nxt = _next(k)
            has_cc = any(r.label == "CC" for r in right)
            noun_right = any(r.label.startswith(("NN", "NX", "NML")) for r in right)
            before_dt = nxt is not None and nxt.label == "DT"
            if (
                _kid_has_ci(k, _EITHER)
                and not before_dt
                and not has_cc
                and noun_right
                and not any(r.label == "NP" and "CC" in r.kidset for r in right)
            ):
                out.append(k)
            elif not _kid_has_ci(k, _EITHER_NO) and has_cc and noun_right:
                out.append(k)
            elif (
                not _kid_has_ci(k, _NO)
                and any(
                    r.label.startswith("JJ") and not ((n := _next(r)) is not None and n.label.startswith("NN"))
                    for r in right
                )
                and not has_cc
                and not before_dt
            ):
                out.append(k)
    last = kids[-1] if kids else None
    if last is not None and last.label in ("NP", "DT", "RB") and any(x.label == "PRP" for x in _leftmost_path(t)):
        leaf = None
        for x in _rightmost_path(last):
            if x.label.lower() in _ALL_BOTH_EACH:
                leaf = x
        if leaf is not None:
            out.append(last)
    return out


@_on("det", _labels("WHNP"), needs={"NP"})
def _det_whnp(t: Node) -> Targets:
    out: Targets = []
    for np in t.kids:
        if np.label == "NP":
            out += [w for w in _left(np) if w.label == "WHNP" and "WDT" in w.kidset]
    return out


_DETERMINERS = frozenset({"DT", "WDT", "WP"})


@_on("det", _basic_in("WHNP", "ADVP", "ADJP"), needs=_DETERMINERS)
def _det_other(t: Node) -> Targets:
    if t.kidset.isdisjoint(_DETERMINERS):
        return _EMPTY
    out: Targets = []
    for a in t.kids:
        if not a.label.startswith(("NP", "NN", "CD", "RBS", "JJ")):
            continue
        for k in _left(a):
            if k.label not in _DETERMINERS or _kid_has_ci(k, _NO):
                continue
            if k.label in ("WDT", "WP") or not any(r.label in _CC_CONJP for r in _right(k)):
                out.append(k)
    return out


@_on("det", _basic_in("NP"), needs={"WDT", "WP"})
def _det_wh(t: Node) -> Targets:
    if "WDT" not in t.kidset and "WP" not in t.kidset:
        return _EMPTY
    out: Targets = []
    for a in t.kids:
        if a.label.startswith(("NP", "NN", "CD", "RBS")):
            out += [k for k in _left(a) if k.label in ("WDT", "WP")]
    return out


_PREDET_PARENTS = re.compile(r"(?:(?:WH)?NP(?:-TMP|-ADV)?|NX|NAC|NML)")


@_on("det:predet", _PREDET_PARENTS, needs={"PDT", "DT"})
def _predet(t: Node) -> Targets:
    ks = t.kidset
    if "PDT" not in ks and "DT" not in ks:
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label not in ("PDT", "DT"):
            continue
        nxt = _next(k)
        right = _right(k)
        if (
            nxt is not None
            and nxt.label in ("DT", "WP$", "PRP$")
            and any(r.label.startswith(("NN", "NX", "NML")) for r in right)
            and not any(r.label == "CC" for r in right)
        ):
            out.append(k)
    return out


@_on("det:predet", _APPOS_PARENTS, needs={"PDT", "DT"})
def _predet_other(t: Node) -> Targets:
    ks = t.kidset
    if "PDT" not in ks and "DT" not in ks:
        return _EMPTY
    kids = t.kids
    out: Targets = []
    if not any(r.label == "CC" for r in _right(t)):
        for k in kids:
            if k.label not in ("PDT", "DT"):
                continue
            nxt = _next(k)
            if (
                nxt is not None
                and nxt.label == "DT"
                and any(
                    r.label.startswith("JJ") and not ((n := _next(r)) is not None and n.label.startswith("NN"))
                    for r in _right(k)
                )
            ):
                out.append(k)
    if kids and kids[-1].label == "DT":
        out += [k for k in kids if k.label == "PDT"]
    return out


_PRECONJ_NP = frozenset({"NP", "NP-TMP", "NP-ADV", "NX", "NML"})
_PRECONJ_CLAUSE = re.compile(r"^S|VP|ADJP|PP|ADVP|UCP(?:-TMP|-ADV)?|NX|NML|SBAR$")
_ONLY_MERELY = frozenset({"only", "merely", "just"})


def _not_only(k: Node) -> bool:
    return (
        k.label == "CONJP"
        and any(r.label == "RB" and _kid_has_ci(r, _NOT) for r in k.kids)
        and any(r.label in ("RB", "JJ") and _kid_has_ci(r, _ONLY_MERELY) for r in k.kids)
    )


_PRECONJ_TAGS = frozenset({"PDT", "CC", "DT"})


@_on("cc:preconj", _PRECONJ_NP, needs=_PRECONJ_TAGS | {"CONJP"})
def _preconj_np(t: Node) -> Targets:
    ks = t.kidset
    if ks.isdisjoint(_PRECONJ_TAGS) and "CONJP" not in ks:
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label in _PRECONJ_TAGS and _kid_has_ci(k, _EITHER):
            if any(r.label == "CC" for r in _right(k)) or any(np.label == "NP" and "CC" in np.kidset for np in t.kids):
                out.append(k)
        if _not_only(k) and any(r.label in _CC_CONJP for r in _right(k)):
            out.append(k)
    return out


@_on("cc:preconj", lambda label: _PRECONJ_CLAUSE.search(label) is not None, needs=_CC_CONJP)
def _preconj_clause(t: Node) -> Targets:
    ks = t.kidset
    if "CC" not in ks and "CONJP" not in ks:
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label in _PRECONJ_TAGS and _kid_has(k, _EITHER) and any(r.label == "CC" for r in _right(k)):
            out.append(k)
        if _not_only(k) and any(r.label in _CC_CONJP for r in _right(k)):
            out.append(k)
    return out


# --- nmod:poss, case, compound:prt ----------------------------------------------------------------------------------
_POSS_PARENTS = re.compile(r"(?:WH)?(?:NP|INTJ|ADJP|PRN|NAC|NX|NML)(?:-.*)?")
_POSS_NP = re.compile(r"(?:WH)?(?:NP|NML)(?:-.*)?")
_POSS_NP2 = re.compile(r"(?:WH)?(?:NP|NML|NX)(?:-.*)?")
_NOMINALS = frozenset({"WHNP", "WHNML", "NP", "NML"})


def _possessive(x: Node) -> bool:
    return any(c.label == "POS" or (c.label == "VBZ" and _kid_has(c, _APOS_S)) for c in x.kids)


def _cc_before_nominal(x: Node) -> bool:
    return any(c.label in _CC_CONJP and any(r.label in _NOMINALS for r in _right(c)) for c in x.kids)


@_on("nmod:poss", _POSS_PARENTS, needs={"PRP$", "WP$"})
def _poss_pronoun(t: Node) -> Targets:
    ks = t.kidset
    if "PRP$" not in ks and "WP$" not in ks:
        return _EMPTY
    return [k for k in t.kids if k.label in ("WP$", "PRP$")]


@_on("nmod:poss", _POSS_NP, needs=_NOMINALS)
def _poss_np(t: Node) -> Targets:
    if t.kidset.isdisjoint(_NOMINALS):
        return _EMPTY
    kids = t.kids
    out: Targets = []
    if not _cc_before_nominal(t):
        out += [k for k in kids if k.label in _NOMINALS and _possessive(k)]
    for k in kids:
        if (
            k.label in _NOMINALS
            and _cc_before_nominal(k)
            and any(x.label in _NOMINALS and _possessive(x) for x in k.kids)
        ):
            out.append(k)
    return out


@_on("nmod:poss", _POSS_NP2, needs={"POS"})
def _poss_flat(t: Node) -> Targets:
    if "POS" not in t.kidset:
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if not k.label.startswith(("NN", "NP")):
            continue
        for pos in _right(k):
            if pos.label != "POS" or not any("'" in c.label for c in pos.kids):
                continue
            if not any(r.label.startswith("NN") for r in _right(pos)):
                continue
            if any(x.label.startswith(("NN", "NP")) for x in _between(k, pos)):
                continue
            out.append(k)
            break
    return out


@_on("case", lambda label: "PP" in label, needs=_MARKERS | {"CC", "VBG"})
def _case_pp(t: Node) -> Targets:
    kids = t.kids
    out: Targets = []
    for k in kids:
        if k.label not in _MARKERS:
            continue
        nxt = _next(k)
        if nxt is not None:
            b = basic_category(nxt.label)
            if b == "SBAR":
                continue
            if b == "S" and not (
                nxt.label == "S"
                and nxt.kids
                and nxt.kids[0].label == "VP"
                and nxt.kids[0].kids
                and nxt.kids[0].kids[0].label == "NN"
            ):
                continue
        out.append(k)
    if len(kids) > 1 and kids[0].label == "CC" and kids[1].label == "NP":
        out.append(kids[0])
    if (
        kids
        and kids[0].label == "VBG"
        and not any(
            basic_category(p.label) == "PP" and any(basic_category(c.label) in ("SBAR", "S") for c in p.kids)
            for p in kids
        )
    ):
        out.append(kids[0])
    return out


@_on("case", re.compile(r"(?:WH)?(?:NP|NML)(?:-TMP|-ADV)?"), needs={"POS", "VBZ"})
def _case_possessive(t: Node) -> Targets:
    ks = t.kidset
    if "POS" not in ks and "VBZ" not in ks:
        return _EMPTY
    return [k for k in t.kids if k.label == "POS" or (k.label == "VBZ" and _kid_has(k, _APOS_S))]


@_on("case", _basic_in("ADVP"), needs={"IN"})
def _case_advp(t: Node) -> Targets:
    if "IN" not in t.kidset:
        return _EMPTY
    return [k for k in t.kids if k.label == "IN"]


@_on("compound:prt", _labels("VP"), needs={"PRT"})
def _prt(t: Node) -> Targets:
    if "PRT" not in t.kidset:
        return _EMPTY
    return [k for k in t.kids if k.label == "PRT"]


@_on("compound:prt", _labels("ADJP"), needs={"RP"})
def _prt_adjp(t: Node) -> Targets:
    if "RP" not in t.kidset or not _kid_prefix(t, ("VB",)):
        return _EMPTY
    return [k for k in t.kids if k.label == "RP"]


# --- nmod:npmod --------------------------------------------------------------------------------------------------
_NOTWITHSTANDING = frozenset({"notwithstanding"})
_NPMOD_HEADS = frozenset({"JJ", "JJR", "IN", "RB", "RBR"})


def _sep_or_cc(label: str) -> bool:
    """``/^,|CC|CONJP$/``: starts with a comma, contains CC, or ends with CONJP."""
    return label.startswith(",") or "CC" in label or label.endswith("CONJP")


@_on("nmod:npmod", _basic_in("ADVP", "ADJP", "WHADJP", "WHADVP", "PP", "WHPP"))
def _npmod_before_head(t: Node) -> Targets:
    head = bare(t)
    if head.label in _NPMOD_HEADS and not _kid_has(head, _NOTWITHSTANDING):
        prev = _prev(head)
        if (
            prev is not None
            and basic_category(prev.label) == "NP"
            and "NNP" not in prev.kidset
            and "NNPS" not in prev.kidset
        ):
            return [prev]
    return _EMPTY


@_on("nmod:npmod", _basic_in("ADJP"), needs={"NN"})
def _npmod_adjective(t: Node) -> Targets:
    if "NN" not in t.kidset or not t.kidset.isdisjoint(_CC_CONJP):
        return _EMPTY
    return [k for k in t.kids if k.label == "NN" and any(r.label.startswith("JJ") for r in _right(k))]


@_on("nmod:npmod", _basic_in("ADVP"))
def _npmod_after_adverb(t: Node) -> Targets:
    head = bare(t)
    if head.label.startswith(("RB", "ADVP")):
        return [r for r in _right(head) if basic_category(r.label) == "NP"]
    return _EMPTY


@_on("nmod:npmod", _basic_in("NP", "WHNP"))
def _npmod_np(t: Node) -> Targets:
    out: Targets = [k for k in t.kids if k.label.startswith("NP-ADV")]
    ks = t.kidset
    if "NP" in ks or "PRP" in ks:
        for k in t.kids:
            self_np = k.label == "NP" and len(k.kids) == 1 and k.kids[0].label == "PRP" and _kid_has_ci(k.kids[0], SELF)
            self_prp = k.label == "PRP" and _kid_has_ci(k, SELF)
            if not (self_np or self_prp):
                continue
            for noun in _left(k):
                if noun.label not in ("NP", "NN", "NNS", "NNP", "NNPS", "PRP"):
                    continue
                if not any(_sep_or_cc(x.label) for x in _between(noun, k)):
                    out.append(k)
                    break
    return out


@_on("nmod:npmod", _basic_in("NP"))
def _npmod_percent(t: Node) -> Targets:
    kids = t.kids
    if len(kids) == 2:
        first, second = kids
        if (
            basic_category(first.label) == "NP"
            and any(x.label == "%" for x in _head_path(first))
            and basic_category(second.label) == "NP"
            and any(x.label in ("days", "month", "months") for x in _head_path(second))
        ):
            return [second]
    return _EMPTY


@_on("nmod:npmod", _basic_in("VP"))
def _npmod_vp(t: Node) -> Targets:
    return [k for k in t.kids if k.label.startswith("NP-ADV")]


@_on("nmod:npmod", _basic_in("NP", "ADVP", "QP"))
def _npmod_at_least(t: Node) -> Targets:
    if "ADVP" not in t.kidset and not any("ADVP" in k.label for k in t.kids):
        return _EMPTY
    return [
        x
        for x in _chain(t, lambda lab: "ADVP" in lab)
        if basic_category(x.label) == "ADVP"
        and any(i.label == "IN" and any("at" in c.label.lower() for c in i.kids) for i in x.kids)
        and "NP" in x.kidset
    ]


# --- parataxis, goeswith, list, prep -----------------------------------------------------------------------------
def _kid_has_semicolon(node: Node) -> bool:
    return any(";" in c.label for c in node.kids)


_CLAUSES = frozenset({"S", "SBARQ", "SQ", "FRAG"})


@_on("parataxis", _labels("VP"))
def _parataxis_vp(t: Node) -> Targets:
    out: Targets = []
    if "PRN" in t.kidset:
        out += [k for k in t.kids if k.label == "PRN" and not k.kidset.isdisjoint(_S_SINV_SBAR)]
    if t.parent is not None and "PRN" in t.parent.kidset:
        for s in t.parent.kids:
            if s is t or s.label != "PRN":
                continue
            if not s.kidset.isdisjoint(_S_SINV_SBAR) or (
                "VP" in s.kidset and any(basic_category(c.label) == "NP" for c in s.kids)
            ):
                out.append(s)
    return out


_S_SINV_SBAR = frozenset({"S", "SINV", "SBAR"})


@_on("parataxis", _labels("S", "FRAG", "VP"), needs={":"})
def _parataxis_colon(t: Node) -> Targets:
    kids = t.kids
    if ":" not in t.kidset or any(r.label in _CC_CONJP for r in kids[1:]):
        return _EMPTY
    out: Targets = []
    for k in kids:
        if k.label == ":":
            nxt = _next(k)
            if nxt is not None and nxt.label.startswith("S"):
                out.append(nxt)
    return out


@_on("parataxis", _basic_in("S", "FRAG"))
def _parataxis_juxtaposed(t: Node) -> Targets:
    out: Targets = []
    for k in t.kids:
        if basic_category(k.label) not in _CLAUSES:
            continue
        right = _right(k)
        if any(basic_category(r.label) in ("CC", "CONJP", "MWE") for r in right):
            continue
        if any(":" in r.label and _kid_has_semicolon(r) for r in right):
            continue
        out += [x for x in right if basic_category(x.label) in _CLAUSES]
    return out


@_on("parataxis", _basic_in("S", "FRAG", "VP"), needs={":"})
def _parataxis_colon_np(t: Node) -> Targets:
    if ":" not in t.kidset or any(basic_category(k.label) in ("CONJP", "CC") for k in t.kids):
        return _EMPTY
    out: Targets = []
    for k in t.kids:
        if k.label == ":" and any(x.label.startswith("V") for x in _left(k)):
            nxt = _next(k)
            if nxt is not None and basic_category(nxt.label) == "NP":
                out.append(nxt)
    return out


@_on("parataxis", _labels("FRAG", "NP"), needs={"NP"})
def _parataxis_names(t: Node) -> Targets:
    out: Targets = []
    for np in t.kids:
        if np.label != "NP":
            continue
        colon = _next(np)
        if colon is None or ":" not in colon.label:
            continue
        target = _next(colon)
        if (
            target is not None
            and basic_category(target.label) in ("SQ", "S")
            and any(d.label in ("NNP", "NNPS") for d in _descendants(np))
        ):
            out.append(target)
    return out


@_on("goeswith", lambda label: True, needs={"GW"})
def _goeswith(t: Node) -> Targets:
    if "GW" not in t.kidset:
        return _EMPTY
    return [k for k in t.kids if k.label == "GW"]


@_on("list", _labels("FRAG"), needs={"NP"})
def _list(t: Node) -> Targets:
    kids = t.kids
    out: Targets = []
    for i, a in enumerate(kids):
        if a.label != "NP" or any(r.label in ("CC", "CONJP", "MWE") for r in _right(a)):
            continue
        if i + 4 < len(kids):
            c1, b, c2, d = kids[i + 1 : i + 5]
            if "," in c1.label and b.label == "NP" and "," in c2.label and d.label == "NP":
                out.append(b)
        if i + 2 < len(kids) and "," in kids[i + 1].label and kids[i + 2].label == "NP":
            b = kids[i + 2]
            for c in _right(b):
                if "," in c.label:
                    last = _next(c)
                    if last is not None and last.label == "NP":
                        out.append(last)
    return out


@_on("prep", _labels("VP", "ADJP"), needs={"PP"})
def _prep(t: Node) -> Targets:
    if "PP" not in t.kidset:
        return _EMPTY
    return [k for k in t.kids if k.label == "PP" and len(k.kids) == 1 and k.kids[0].label in ("IN", "TO")]


# --- the table -----------------------------------------------------------------------------------------
#: Each relation's source test: the full label a constituent must have for the relation to look at it.
SOURCES: dict[str, re.Pattern[str]] = {
    "aux": re.compile(r"VP|SQ|SINV|CONJP"),
    "auxpass": re.compile(r"VP|SQ|SINV"),
    "cop": re.compile(r"VP|SQ|SINV|SBARQ"),
    "conj": re.compile(
        r"VP|(?:WH)?NP(?:-TMP|-ADV)?|ADJP|PP|QP|ADVP|UCP(?:-TMP|-ADV)?|S|NX|SBAR|SBARQ|SINV|SQ|JJP|NML|RRC|PCONJP"
    ),
    "cc": re.compile(r".*"),
    "punct": re.compile(r".*"),
    "nsubj": re.compile(r"S|SQ|SBARQ|SINV|SBAR|PRN"),
    "nsubjpass": re.compile(r"S|SQ"),
    "csubj": re.compile(r"S"),
    "csubjpass": re.compile(r"S"),
    "dobj": re.compile(r"VP|SQ|SBARQ?"),
    "iobj": re.compile(r"VP"),
    "nmod": re.compile(r".*"),
    "ccomp": re.compile(r"VP|SINV|S|ADJP|ADVP|NP(?:-.*)?"),
    "xcomp": re.compile(r"VP|ADJP|SINV"),
    "mark": re.compile(r"SBAR(?:-TMP)?|VP|PP(?:-TMP|-ADV)?"),
    "rel": re.compile(r"SBAR|SBARQ"),
    "expl": re.compile(r"S|SQ|SINV"),
    "advcl": re.compile(r"VP|S|SQ|SINV|SBARQ|NP|ADVP|ADJP"),
    "nmod:tmod": re.compile(r"VP|S|ADJP|PP|SBAR|SBARQ|NP|RRC"),
    "acl:relcl": re.compile(r"(?:WH)?(?:NP|NML|ADVP)(?:-.*)?"),
    "nummod": re.compile(r"(?:WH)?NP(?:-TMP|-ADV)?|NML|NX|ADJP|WHADJP|QP"),
    "amod": re.compile(r"NP(?:-TMP|-ADV)?|NX|NML|NAC|WHNP|ADJP|INTJ"),
    "compound": re.compile(r"(?:WH)?(?:NP|NX|NAC|NML|ADVP|ADJP|QP)(?:-TMP|-ADV)?"),
    "appos": re.compile(r"(?:WH)?NP(?:-TMP|-ADV)?|FRAG"),
    "acl": re.compile(r"WHNP|WHNP-TMP|WHNP-ADV|NP(?:-[A-Z]+)?|NML|NX"),
    "advmod": re.compile(
        r"VP|ADJP|WHADJP|ADVP|WHADVP|S|SBAR|SINV|SQ|SBARQ|XS|(?:WH)?(?:PP|NP)(?:-TMP|-ADV)?|RRC|CONJP|JJP|QP"
    ),
    "neg": re.compile(r"VP|ADJP|S|SBAR|SINV|SQ|NP(?:-TMP|-ADV)?|FRAG|CONJP|PP|NAC|NML|NX|ADVP|WHADVP"),
    "mwe": re.compile(r"MWE"),
    "det": re.compile(r"(?:WH)?NP(?:-TMP|-ADV)?|NAC|NML|NX|X|ADVP|ADJP"),
    "det:predet": re.compile(r"(?:WH)?(?:NP|NX|NAC|NML)(?:-TMP|-ADV)?"),
    "cc:preconj": re.compile(r"S|VP|ADJP|PP|ADVP|UCP(?:-TMP|-ADV)?|NX|NML|SBAR|NP(?:-TMP|-ADV)?"),
    "nmod:poss": re.compile(r"(?:WH)?(NP|ADJP|INTJ|PRN|NAC|NX|NML)(?:-.*)?"),
    "case": re.compile(r"(?:WH)?(?:PP.*|SBARQ|NP|NML|ADVP)(?:-TMP|-ADV)?"),
    "compound:prt": re.compile(r"VP|ADJP"),
    "nmod:npmod": re.compile(r"VP|(?:WH)?(?:NP|ADJP|ADVP|PP|QP)(?:-TMP|-ADV)?"),
    "parataxis": re.compile(r"S|VP|FRAG|NP"),
    "discourse": re.compile(r".*"),
    "goeswith": re.compile(r".*"),
    "list": re.compile(r"FRAG"),
    "prep": re.compile(r"VP|ADJP"),
}

_BY_LABEL: dict[str, tuple[tuple[str, frozenset[str] | None, Pattern], ...]] = {}
_BY_NODE: dict[tuple[str, frozenset[str]], tuple[tuple[str, Pattern], ...]] = {}


def _for_label(label: str) -> tuple[tuple[str, frozenset[str] | None, Pattern], ...]:
    found = _BY_LABEL.get(label)
    if found is None:
        found = tuple(
            (name, needs, fn)
            for name, test, needs, fn in _TABLE
            if SOURCES[name].fullmatch(label) and _passes(test, label)
        )
        _BY_LABEL[label] = found
    return found


def relations_for(label: str, kids: frozenset[str] | None = None) -> tuple[tuple[str, Pattern], ...]:
    """The configurations (relation name, function) that apply to a constituent labelled
    ``label`` whose children carry the labels ``kids`` (all of them when ``kids`` is None)."""
    if kids is None:
        return tuple((name, fn) for name, _, fn in _for_label(label))
    key = (label, kids)
    found = _BY_NODE.get(key)
    if found is None:
        found = tuple(
            (name, fn) for name, needs, fn in _for_label(label) if needs is None or not needs.isdisjoint(kids)
        )
        if len(_BY_NODE) < 100_000:
            _BY_NODE[key] = found
    return found


#: The relations in the converter's order.
RELATIONS: tuple[str, ...] = tuple(SOURCES)

# --- the hierarchy ---------------------------------------------------------------------------------------
#: Each relation's parent in the hierarchy (``dep`` is the top).
PARENT: dict[str, str] = {
    "pred": "dep", "aux": "dep", "auxpass": "aux", "cop": "aux", "conj": "dep", "cc": "dep", "punct": "dep",
    "arg": "dep", "subj": "arg", "nsubj": "subj", "nsubjpass": "nsubj", "csubj": "subj", "csubjpass": "csubj",
    "comp": "arg", "obj": "comp", "dobj": "obj", "iobj": "obj", "ccomp": "comp", "xcomp": "comp", "rel": "comp",
    "prep": "comp", "ref": "dep", "expl": "dep", "mod": "dep", "nmod": "mod", "advcl": "mod", "acl:relcl": "mod",
    "mark": "mod", "amod": "mod", "nummod": "mod", "compound": "mod", "appos": "mod", "discourse": "mod",
    "acl": "mod", "advmod": "mod", "neg": "advmod", "nmod:npmod": "mod", "nmod:tmod": "nmod", "mwe": "mod",
    "det": "mod", "det:predet": "mod", "cc:preconj": "mod", "nmod:poss": "mod", "case": "mod",
    "compound:prt": "mod", "parataxis": "dep", "goeswith": "mod", "list": "dep", "sdep": "dep", "agent": "dep",
}  # fmt: skip

#: Relations that can link two clauses (the complex two-word preposition rule keeps them).
CLAUSE_RELATIONS = frozenset({"conj", "xcomp", "ccomp", "acl", "advcl", "acl:relcl", "parataxis", "appos", "list"})


def is_ancestor(upper: str, lower: str) -> bool:
    """``upper`` is ``lower`` or above it in the hierarchy."""
    node: str | None = lower
    while node is not None:
        if node == upper:
            return True
        node = PARENT.get(node)
    return False
