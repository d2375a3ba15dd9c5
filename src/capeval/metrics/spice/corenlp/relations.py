"""Typed relations between constituents: which child (or relative) of a node bears which relation.

Each relation of CoreNLP 3.6.0's UD v1 English converter is a function from a constituent to
the constituents that depend on it with that relation (the dependency itself links their head
words). A relation only looks at constituents whose label passes its *source* test, and within
that, at one or more structural configurations, written here as plain Python over the working
tree (:mod:`.nodes`): labels, children, sisters to the left or right, the head child, words.

Conventions used in the configurations below:

* labels are compared exactly unless a comment says "starts with" or "basic category";
* words are compared exactly unless the set they are looked up in is lower-cased (then the
  word is lower-cased first);
* "the head child" is the head finder's choice *without* the existential test (``bare``);
* a relation returns every target of every configuration; duplicates are harmless.

:data:`RELATIONS` lists the relations in the order the converter applies them, which is also the
order of names the label merge (:mod:`.dependencies`) uses for ties.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from .heads import bare_head_child as bare
from .nodes import Node, basic_category
from .transforms import COPULAR, PASSIVE_AUX

__all__ = ["RELATIONS", "relations_for", "PARENT", "is_ancestor", "CLAUSE_RELATIONS"]

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


# --- small structural helpers ---------------------------------------------------------------------------
def _kid_has(node: Node, words: frozenset[str] | set[str]) -> bool:
    """A child labelled (or a leaf worded) exactly one of ``words``."""
    return any(k.label in words for k in node.kids)


def _kid_has_ci(node: Node, words: frozenset[str] | set[str]) -> bool:
    """A child whose label, lower-cased, is one of ``words`` (case-insensitive word test)."""
    return any(k.label.lower() in words for k in node.kids)


def _kid_label(node: Node, labels: frozenset[str] | set[str] | tuple[str, ...]) -> bool:
    return any(k.label in labels for k in node.kids)


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


def _bare_label(node: Node) -> str:
    """The label of ``node``'s head child (head finder without the parent)."""
    if node.word is not None:
        return ""
    return bare(node).label


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


def _np_basic(label: str) -> bool:
    return label == "NP" or label.startswith("NP-")


# --- relation functions -----------------------------------------------------------------------------------
def aux(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if lab == "VP" and _kid_label(t, ("VP",)):
        out += [k for k in kids if k.label in _AUX_TAGS or (k.label.startswith("VB"))]
    if lab in ("SQ", "SINV"):
        for k in kids:
            if k.label.startswith(("VB", "MD", "AUX")) and any(r.label.startswith(("VP", "ADJP")) for r in _right(k)):
                out.append(k)
    if lab == "SINV":
        for k in kids:
            if (
                k.label == "VP"
                and any(v.label.startswith(("VB", "AUX", "POS")) and _kid_has_ci(v, BE_AUX) for v in k.kids)
                and any(x.label == "VP" and _kid_label(x, ("VBG",)) for x in _left(k))
            ):
                out.append(k)
    return out


_AUX_TAGS = frozenset({"MD", "AUX", "AUXG", "POS"})


def _participle_phrase(x: Node) -> bool:
    """``VP|ADJP [ < VBN|VBD | < (VP|ADJP < VBN|VBD) < CC ]``."""
    if x.label not in ("VP", "ADJP"):
        return False
    if _kid_label(x, ("VBN", "VBD")):
        return True
    return _kid_label(x, ("CC",)) and any(k.label in ("VP", "ADJP") and _kid_label(k, ("VBN", "VBD")) for k in x.kids)


def auxpass(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    if lab == "VP" and any(_participle_phrase(k) for k in t.kids):
        out += [k for k in t.kids if k.label.startswith(("VB", "AUX", "POS")) and _kid_has_ci(k, PASSIVE_AUX)]
    if lab in ("SQ", "SINV"):
        for k in t.kids:
            if (
                k.label.startswith(("VB", "AUX", "POS"))
                and _kid_has_ci(k, BE_AUX)
                and any(r.label == "VP" and _kid_label(r, ("VBD", "VBN")) for r in _right(k))
            ):
                out.append(k)
    if lab == "SINV":
        for k in t.kids:
            if k.label != "VP" or not any(x.label == "VP" and _kid_label(x, ("VBD", "VBN")) for x in _left(k)):
                continue
            if any(v.label.startswith(("VB", "AUX", "POS")) and _kid_has_ci(v, BE_AUX) for v in k.kids):
                out.append(k)
            elif any(
                v.label == "VP"
                and any(w.label.startswith(("VB", "AUX", "POS")) and _kid_has_ci(w, BE_AUX) for w in v.kids)
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
    return x.label == "S" and len(x.kids) == 1 and x.kids[0].label == "ADJP" and _kid_label(x.kids[0], ("JJ",))


def cop(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    if lab == "VP":
        for k in t.kids:
            if _copular(k) and any(_cop_complement(r) or _adjp_s(r) for r in _right(k)):
                out.append(k)
    elif lab in ("SQ", "SINV"):
        for k in t.kids:
            if not _copular(k):
                continue
            right = _right(k)
            if any(r.label == "ADJP" and not _kid_label(r, ("VBN", "VBD")) for r in right):
                out.append(k)
            elif any(r.label == "NP" and any(q.label == "NP" for q in _right(r)) for r in right):
                out.append(k)
            elif any(_adjp_s(r) for r in right):
                out.append(k)
        if lab == "SINV":
            head = bare(t)
            if head.label == "NP":
                for np in _right(head):
                    if np.label != "NP":
                        continue
                    for vp in _right(np):
                        if vp.label == "VP" and any(_copular(v) for v in vp.kids):
                            out.append(vp)
    elif lab == "SBARQ":
        if any(k.label == "WHNP" and _kid_label(k, ("WP",)) for k in t.kids):
            out += [k for k in t.kids if _copular(k)]
    return out


_CONJ_NOT_TARGET = frozenset({"SBAR", "PRN", "``", "''", "-LRB-", "-RRB-", ",", ":", "."})
_CONJ_NOT_TARGET2 = frozenset({"PRN", "``", "''", "-LRB-", "-RRB-", ",", ":", "."})
_CLAUSE_CONJ_PARENTS = frozenset({"VP", "S", "SBAR", "SBARQ", "SINV", "SQ", "RRC"})
_PHRASE_CONJ_PARENTS = frozenset(
    {
        "ADJP",
        "JJP",
        "PP",
        "QP",
        "NP",
        "NP-TMP",
        "NP-ADV",
        "WHNP",
        "WHNP-TMP",
        "WHNP-ADV",
        "ADVP",
        "UCP",
        "UCP-TMP",
        "UCP-ADV",
        "NX",
        "NML",
    }
)
_PHRASE_CONJ_PARENTS2 = _PHRASE_CONJ_PARENTS - {"JJP", "QP"}
_LIST_PARENTS = frozenset(
    {
        "VP",
        "S",
        "SBAR",
        "SBARQ",
        "SINV",
        "ADJP",
        "PP",
        "QP",
        "NP",
        "NP-TMP",
        "NP-ADV",
        "WHNP",
        "WHNP-TMP",
        "WHNP-ADV",
        "ADVP",
        "UCP",
        "UCP-TMP",
        "UCP-ADV",
        "NX",
        "NML",
    }
)


def _conj_like(label: str) -> bool:
    """``/^S|SINV$|^(?:A|N|V|PP|PRP|J|W|R)/``."""
    return label.startswith(("S", "A", "N", "V", "PP", "PRP", "J", "W", "R")) or label.endswith("SINV")


def _clause_cc(k: Node, bad_left: tuple[str, ...]) -> bool:
    """A CC/CONJP with some left sister not starting with any of ``bad_left``."""
    return k.label in ("CC", "CONJP") and any(not s.label.startswith(bad_left) for s in _left(k))


_BAD_LEFT_CLAUSE = ("``", "-LRB-", "PRN", "PP", "ADVP", "RB", "MWE")
_BAD_LEFT_CLAUSE2 = ("``", "-LRB-", "PRN", "PP", "ADVP", "RB")


def _phrase_cc(k: Node) -> bool:
    return k.label in ("CC", "CONJP") and any(s.label not in ("``", "-LRB-", "PRN") for s in _left(k))


def _separator(label: str) -> bool:
    """``/^:|,$/``: starts with a colon or ends with a comma."""
    return label.startswith(":") or label.endswith(",")


def conj(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if lab in _CLAUSE_CONJ_PARENTS:
        for k in kids:
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
    if lab == "SBAR":
        for k in kids:
            if k.label in ("CC", "CONJP") and any(basic_category(s.label) == "SBAR" for s in _left(k)):
                nxt = _next(k)
                if nxt is not None and basic_category(nxt.label) == "SBAR":
                    out.append(nxt)
    if lab in _CLAUSE_CONJ_PARENTS and lab != "RRC":
        out += _conj_after_comma_in_clause(t)
    if lab in _PHRASE_CONJ_PARENTS:
        for k in kids:
            if _phrase_cc(k):
                nxt = _next(k)
                if nxt is not None and nxt.label not in _CONJ_NOT_TARGET2:
                    out.append(nxt)
            if _is_etc(k) or _is_fw_etc(k):
                out.append(k)
    if lab in _PHRASE_CONJ_PARENTS2:
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
    if lab in ("NX", "NML"):
        if any(k.label in ("CC", "CONJP") and k.order > 0 for k in kids) or any(_is_etc(k) for k in kids):
            for k in kids:
                if k.label == ",":
                    prev = _prev(k)
                    if prev is not None and prev.label.startswith(("A", "N", "V", "PP", "PRP", "J", "W", "R", "S")):
                        out.append(prev)
    if lab in _LIST_PARENTS:
        for k in kids:
            if k.label != "CC":
                continue
            for c in _right(k):
                if c.label in ("CC", "CONJP"):
                    nxt = _next(c)
                    if nxt is not None and nxt.label not in _CONJ_NOT_TARGET2:
                        out.append(nxt)
        if kids and (_is_etc(kids[-1]) or _is_fw_etc(kids[-1])):
            out.append(kids[-1])
    if lab == "PCONJP":
        for k in kids:
            if k.label == "CC":
                nxt = _next(k)
                if nxt is not None and nxt.label in ("IN", "TO"):
                    out.append(nxt)
    for i in range(len(kids) - 2):
        a, m, b = kids[i], kids[i + 1], kids[i + 2]
        if "," in m.label and any("/" in c.label for c in m.kids) and b.label == a.label:
            out.append(b)
    return out


def _conj_after_comma_in_clause(t: Node) -> Targets:
    """The conjunct right after a comma/bracket in a coordinated clause (conj p3)."""
    kids = t.kids
    if not any(_clause_cc(k, _BAD_LEFT_CLAUSE2) for k in kids):
        return []
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
            if c.label in ("CC", "CONJP") and any(s is head for s in _left(c)):
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


def cc(t: Node) -> Targets:
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


_PRECONJ = frozenset({"either", "neither", "both"})
_NOT = frozenset({"not"})
_ONLY = frozenset({"only", "just", "merely"})
_PUNCT_LABELS = frozenset({".", ":", ",", "''", "``", "*", "-LRB-", "-RRB-", "HYPH"})


def _smiley(node: Node) -> bool:
    return any(_WESTERN_SMILEY.search(k.label) or _ASIAN_SMILEY.search(k.label) for k in node.kids)


def punct(t: Node) -> Targets:
    return [k for k in t.kids if k.label in _PUNCT_LABELS or (k.label == "NFP" and not _smiley(k))]


def nsubj(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if lab == "S":
        under_vp = t.parent is not None and t.parent.label == "VP"
        for k in kids:
            if k.label not in ("NP", "WHNP"):
                continue
            verbs = [r for r in _right(k) if r.label == "VP"]
            if not verbs:
                continue
            if k.label in ("NP", "WHNP") and not _kid_label(k, ("EX",)) and not _time_headed(k):
                if not under_vp or any(not _kid_label(v, ("TO",)) for v in verbs):
                    out.append(k)
            if k.label == "NP" and _time_headed(k) and not any(r.label == "NP" for r in _right(k)):
                out.append(k)
        if under_vp:
            for k in kids:
                nxt = _next(k)
                if k.label == "NP" and nxt is not None and nxt.label in ("NP", "ADJP"):
                    out.append(k)
        if any(k.label == "NP" and _kid_label(k, ("EX",)) for k in kids):
            for vp in _chain(t, lambda x: x == "VP"):
                if vp.label == "VP":
                    out += [np for np in vp.kids if np.label == "NP"]
    if lab in ("SQ", "PRN"):
        for k in kids:
            if k.label == "NP" and not _kid_label(k, ("EX",)) and any(r.label == "VP" for r in _right(k)):
                out.append(k)
    if lab == "SQ":
        for k in kids:
            if k.label != "NP" or _kid_label(k, ("EX",)):
                continue
            prev = _prev(k)
            no_vp_after = not any(r.label == "VP" for r in _right(k))
            if prev is not None and _copular(prev) and no_vp_after:
                out.append(k)
            if (
                prev is not None
                and prev.label.startswith(("VB", "AUX"))
                and no_vp_after
                and not any(s.label in ("NP", "WHNP") for s in _left(t))
            ):
                out.append(k)
            if prev is not None and prev.label == "RB" and no_vp_after:
                pp = _prev(prev)
                if pp is not None and pp.label.startswith(("VB", "AUX")):
                    out.append(k)
        for k in kids:
            if k.label == "NP" and _kid_label(k, ("EX",)):
                out += [r for r in _right(k) if r.label == "NP"]
    if lab == "SBARQ":
        out += _nsubj_sbarq(t)
    if lab == "SINV":
        for k in kids:
            if k.label not in ("NP", "WHNP"):
                continue
            prev = _prev(k)
            verbish = ("VP", "VBZ", "VBD", "VBP", "VB", "MD", "AUX")
            if prev is not None and prev.label in verbish:
                out.append(k)
            elif (
                prev is not None
                and basic_category(prev.label) in ("RB", "ADVP")
                and ((p2 := _prev(prev)) is not None and p2.label in verbish)
            ):
                out.append(k)
            elif prev is None and not any(basic_category(s.label) == "NP" for s in t.kids if s is not k):
                out.append(k)
        for k in kids:
            if k.label != "NP":
                continue
            for np in _right(k):
                if np.label == "NP" and any(
                    vp.label == "VP" and any(_copular(v) for v in vp.kids) for vp in _right(np)
                ):
                    out.append(np)
    if lab == "SBAR":
        for wh in kids:
            if wh.label != "WHNP":
                continue
            if any(
                s.label == "S"
                and any(v.label == "VP" and not any(x.label == "NP" for x in _left(v)) for v in s.kids)
                and not _kid_label(s, ("SBAR",))
                for s in kids
            ):
                out.append(wh)
            elif any(v.label == "VP" and not any(x.label == "NP" for x in _left(v)) for v in kids) and not _kid_label(
                t, ("S",)
            ):
                out.append(wh)
        if not _kid_label(t, ("WHNP",)) and any(
            s.label == "S" and not any(np.label == "NP" and any(r.label == "VP" for r in _right(np)) for np in s.kids)
            for s in kids
        ):
            vp = t.parent
            if vp is not None and vp.label == "VP" and vp.parent is not None and vp.parent.label == "S":
                wh = _prev(vp.parent)
                if wh is not None and wh.label == "WHNP":
                    out.append(wh)
    return out


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
        if any(_copular(v) for v in sq.kids) and not _kid_label(sq, ("VP",)):
            out.append(sq)
    if any(_copular(k) for k in kids) and any(w.label == "WHNP" and _kid_label(w, ("WP",)) for w in kids):
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
                any(np.label == "NP" and _kid_label(np, ("EX",)) for np in sq.kids) or _kid_label(sq, ("PP",))
            ):
                out.append(kids[0])
    return out


def nsubjpass(t: Node) -> Targets:
    kids = t.kids
    if not any(
        vp.label == "VP"
        and any(v.label.startswith(("VB", "AUX")) and _kid_has_ci(v, PASSIVE_AUX) for v in vp.kids)
        and any(x.label == "VP" and _kid_label(x, ("VBN", "VBD")) for x in vp.kids)
        for vp in kids
    ):
        return []
    return [k for k in kids if k.label in ("WHNP", "NP") and not _kid_label(k, ("EX",))]


def csubj(t: Node) -> Targets:
    out: Targets = []
    for k in t.kids:
        if k.label not in ("SBAR", "S"):
            continue
        nxt = _next(k)
        if nxt is not None and nxt.label == ",":
            continue
        if any(vp.label == "VP" and not any(x.label == "NP" for x in _left(vp)) for vp in _right(k)):
            out.append(k)
    return out


def _passive_vp(vp: Node) -> bool:
    return any(v.label.startswith(("VB", "AUX")) and _kid_has_ci(v, PASSIVE_AUX) for v in vp.kids)


def csubjpass(t: Node) -> Targets:
    out: Targets = []
    for k in t.kids:
        if k.label not in ("SBAR", "S"):
            continue
        nxt = _next(k)
        if nxt is not None and nxt.label == ",":
            continue
        for vp in _right(k):
            if vp.label != "VP" or any(x.label == "NP" for x in _left(vp)):
                continue
            if any(x.label == "VP" and _kid_label(x, ("VBN", "VBD")) for x in vp.kids) and _passive_vp(vp):
                out.append(k)
                break
            found = False
            for inner in _chain(vp, lambda x: x == "VP"):
                if (
                    inner.label == "VP"
                    and _kid_label(inner, ("VBN", "VBD"))
                    and inner.parent is not None
                    and inner.parent.label == "VP"
                    and _passive_vp(inner.parent)
                ):
                    found = True
                    break
            if found:
                out.append(k)
                break
    return out


def _object_np(k: Node) -> bool:
    """``NP|WHNP [ [ !<# time !$+ NP ] | $+ NP-TMP | $+ (NP <# time) ]``."""
    if k.label not in ("NP", "WHNP"):
        return False
    nxt = _next(k)
    if not _time_headed(k) and (nxt is None or nxt.label != "NP"):
        return True
    return nxt is not None and (nxt.label == "NP-TMP" or (nxt.label == "NP" and _time_headed(nxt)))


def _no_colon_parenthetical(t: Node, target: Node) -> bool:
    """``<# (__ !$++ (NP $++ (/^[:]$/ $++ =target)))``."""
    head = bare(t)
    for np in _right(head):
        if np.label == "NP" and any(c.label == ":" and c.order < target.order for c in _right(np)):
            return False
    return True


def dobj(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if lab == "VP":
        if not any(
            k.label.startswith(("VB", "AUX")) and (_kid_has_ci(k, COPULAR) or _kid_has_ci(k, CLAUSAL)) for k in kids
        ):
            for k in kids:
                if _object_np(k) and _no_colon_parenthetical(t, k):
                    out.append(k)
        for s in kids:
            if s.label == "S":
                for np in s.kids:
                    if np.label in ("NP", "WHNP") and any(
                        v.label == "VP" and _kid_label(v, ("TO",)) for v in _right(np)
                    ):
                        out.append(np)
    elif lab == "SQ":
        verbs = [k for k in kids if k.label.startswith("VB")]
        if (
            len(verbs) == 1
            and not _kid_has_ci(verbs[0], COPULAR)
            and any(s.label == "WHNP" for s in _left(t))
            and not _kid_label(t, ("VP",))
        ):
            out += [k for k in kids if _object_np(k)]
    elif lab == "SBARQ":
        for wh in kids:
            if wh.label != "WHNP" or _kid_label(wh, ("WRB",)) or _time_headed(wh):
                continue
            for vp in _chain(t, lambda x: x in ("SQ", "SINV", "S", "VP")):
                if vp.label != "VP" or _kid_label(vp, ("NP", "TO")):
                    continue
                if any(
                    s.label == "S" and any(v.label == "VP" and _kid_label(v, ("TO",)) for v in s.kids) for s in vp.kids
                ):
                    continue
                if any(
                    _copular(v) and any(x.label == "VP" and _kid_label(x, ("VBN", "VBD")) for x in _right(v))
                    for v in vp.kids
                ):
                    continue
                if any(p.label == "PP" and len(p.kids) == 1 and p.kids[0].label in ("IN", "TO") for p in vp.kids):
                    continue
                if any(np.label == "NP" and not _kid_label(np, ("-NONE-",)) for np in _left(vp)):
                    out.append(wh)
                    break
        out += _sbarq_wh_before_copula_adj(
            t, lambda adj: not any(p.label == "PP" and not _kid_label(p, ("NP",)) for p in adj.kids)
        )
    elif lab == "SBAR":
        for wh in kids:
            if wh.label != "WHNP" or _kid_label(wh, ("WRB",)):
                continue
            for s in kids:
                if s.label != "S" or not _kid_label(s, ("NP",)):
                    continue
                if any(
                    vp.label == "VP"
                    and not _kid_label(vp, ("SBAR",))
                    and not _pp_ending_in(vp, ("IN", "TO"))
                    and not any(
                        x.label == "S" and any(v.label == "VP" and _kid_label(v, ("TO",)) for v in x.kids)
                        for x in vp.kids
                    )
                    for vp in s.kids
                ):
                    out.append(wh)
                    break
    return out


def _pp_ending_in(vp: Node, last: tuple[str, ...]) -> bool:
    """``vp <+(VP) (PP <- last)``."""
    return any(pp.label == "PP" and pp.kids and pp.kids[-1].label in last for pp in _chain(vp, lambda x: x == "VP"))


def _sbarq_wh_before_copula_adj(t: Node, adj_ok: Callable[[Node], bool]) -> Targets:
    """``SBARQ < (WHNP=target $++ (copula $++ ADJP=adj) $++ (NP $++ =adj))`` with a test on adj."""
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


def iobj(t: Node) -> Targets:
    out: Targets = []
    for k in t.kids:
        if k.label != "NP":
            continue
        nxt = _next(k)
        if (
            not any("$" in c.label for c in k.kids)
            and not _time_headed(k)
            and nxt is not None
            and nxt.label == "NP"
            and not _time_headed(nxt)
        ):
            out.append(k)
        for a in k.kids:
            if a.label != "NP" or any("$" in c.label for c in a.kids):
                continue
            sisters = [s for s in a.parent.kids if s is not a] if a.parent is not None else []
            if any(s.label in ("CC", "CONJP") or s.label == "," for s in sisters):
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


_NMOD_PARENTS = re.compile(r"(?:(?:WH)?(?:NP|ADJP|ADVP|NX|NML)(?:-TMP|-ADV)?|VP|NAC|SQ|FRAG|PRN|X|RRC)")
_PP_LABELS = frozenset({"WHPP", "WHPP-TMP", "PP", "PP-TMP"})
_PP_LABELS_ADV = frozenset({"WHPP", "WHPP-TMP", "WHPP-ADV", "PP", "PP-TMP", "PP-ADV"})


def _nominal(label: str) -> bool:
    """Basic category NP, WHNP or NML."""
    return basic_category(label) in ("NP", "WHNP", "NML")


def nmod(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if _NMOD_PARENTS.fullmatch(lab):
        if not _last_is_etc(t):
            for k in kids:
                if k.label in _PP_LABELS and (
                    any(_nominal(c.label) for c in k.kids)
                    or any(c.label == "PP" and any(_nominal(g.label) for g in c.kids) for c in k.kids)
                ):
                    out.append(k)
        for k in kids:
            if k.label == "S" and len(k.kids) == 1 and k.kids[0].label in _PP_LABELS:
                out.append(k)
    if lab in _PP_LABELS_ADV:
        for k in kids:
            if k.label in _PP_LABELS_ADV:
                prev = _prev(k)
                if prev is None or prev.label not in ("IN", "VBG", "VBN", "TO"):
                    out.append(k)
    if lab in ("S", "SINV") and _kid_label(t, ("VP", "S")):
        out += [k for k in kids if k.label in ("PP", "PP-TMP") and not _kid_label(k, ("SBAR", "S"))]
    if lab in ("SBAR", "SBARQ") and _kid_label(t, ("S", "SQ")):
        out += [k for k in kids if k.label.startswith(("PP", "WHPP"))]
    if basic_category(lab) == "NP":
        for k in kids:
            if basic_category(k.label) in ("UCP", "PRN") and k.kids and basic_category(bare(k).label) == "PP":
                out.append(k)
    if lab == "SBARQ":
        out += _sbarq_wh_before_copula_adj(
            t, lambda adj: any(p.label == "PP" and len(p.kids) == 1 and p.kids[0].label == "IN" for p in adj.kids)
        )

        def vp_with_bare_in(vp: Node) -> bool:
            return vp.label == "VP" and any(
                p.label == "PP" and len(p.kids) == 1 and p.kids[0].label == "IN" for p in vp.kids
            )

        for wh in kids:
            if wh.label == "WHNP" and any(
                vp_with_bare_in(r) or (r.label == "SQ" and any(vp_with_bare_in(v) for v in r.kids)) for r in _right(wh)
            ):
                out.append(wh)
    return out


def _s_with_vp(s: Node, first_ok: Callable[[Node], bool] | None = None) -> bool:
    return any(v.label == "VP" for v in s.kids)


def _s_chain_vp(s: Node) -> bool:
    """``S <+(S) VP``."""
    return any(v.label == "VP" for v in _chain(s, lambda x: x == "S"))


def _that_whether_first(sbar: Node) -> bool:
    first = sbar.kids[0] if sbar.kids else None
    return first is not None and first.label in ("IN", "DT") and _kid_has_ci(first, _THAT_WHETHER)


_THAT_WHETHER = frozenset({"that", "whether"})


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
    return not any(
        s.label == "S" and any(v.label == "VP" and _kid_label(v, ("TO",)) for v in s.kids) for s in sbar.kids
    )


_HOW = frozenset({"how"})


def _sbar_choices(target: Node) -> list[Node]:
    """``[ == @SBAR=sbar | <# @SBAR=sbar ]``."""
    out = [target] if basic_category(target.label) == "SBAR" else []
    if target.word is None and target.kids:
        head = bare(target)
        if basic_category(head.label) == "SBAR":
            out.append(head)
    return out


def ccomp(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if lab == "VP":
        has_obj_verb = any(v.label.startswith("V") and _kid_has_ci(v, CCOMP_OBJ_VERBS) for v in kids)
        for s in kids:
            no_np_left = not any(x.label == "NP" for x in _left(s))
            if (
                s.label == "S"
                and no_np_left
                and any(v.label == "VP" and not (v.kids and v.kids[0].label in ("TO", "VBG", "VBN")) for v in s.kids)
            ):
                out.append(s)
            if s.label == "SBAR":
                if any(x.label == "S" and _s_chain_vp(x) for x in s.kids) and _that_whether_first(s):
                    out.append(s)
                if _kid_label(s, ("CC", "CONJP")) and any(
                    x.label == "SBAR"
                    and any(y.label == "S" and _s_chain_vp(y) for y in x.kids)
                    and _that_whether_first(x)
                    for x in s.kids
                ):
                    out.append(s)
                s_vp = any(x.label == "S" and _kid_label(x, ("VP",)) for x in s.kids)
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
            if basic_category(s.label) == "SBARQ":
                out.append(s)
        if any(v.label.startswith("VB") and _kid_has_ci(v, HAVE) for v in kids):
            for s in kids:
                if s.label == "S" and any(basic_category(x.label) == "NP" for x in s.kids) and _kid_label(s, ("VP",)):
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
    if basic_category(lab) in ("S", "SINV"):
        out += _ccomp_quoted(t)
    if lab == "ADVP":
        for s in kids:
            if s.label != "SBAR":
                continue
            if _kid_label(s, ("WHNP",)):
                out.append(s)
            elif any(
                i.label == "IN" and any(c.label.lower().startswith(("as", "that")) for c in i.kids) for i in s.kids
            ) and any(
                x.label == "S" and any(v.label == "VP" and not _kid_label(v, ("TO",)) for v in x.kids) for x in s.kids
            ):
                out.append(s)
    if lab == "ADJP":
        for s in kids:
            if (
                s.label == "SBAR"
                and not any(i.label == "IN" and _kid_has(i, _AS) for i in s.kids)
                and _kid_label(s, ("S",))
            ):
                out.append(s)
    if lab == "S" and kids:
        s = kids[0]
        if s.label == "SBAR" and s.kids and s.kids[0].label == "IN" and _kid_has_ci(s.kids[0], _THAT_WHETHER):
            nxt = _next(s)
            if nxt is None or nxt.label != "VP":
                out.append(s)
    if basic_category(lab) == "NP" and _kid_label(t, ("JJ", "NN", "NNS")):
        for s in kids:
            if s.label != "SBAR":
                continue
            infinitival = any(
                x.label == "S" and any(v.label == "VP" and _kid_label(v, ("TO",)) for v in x.kids) for x in s.kids
            )
            if not infinitival or not any(x.label in ("NP", "NN", "NNP", "NNS") for x in _left(s)):
                out.append(s)
    return out


_AS = frozenset({"as"})


def _ccomp_quoted(t: Node) -> Targets:
    """``"...", he said``: a clause followed by a comma/period/quote (ccomp p9)."""
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
            if pp is not None and pp.label in ("CC", "CONJP"):
                continue
        if any(v.label == "VP" and _kid_label(v, ("TO", "VBG", "VBN")) for v in s.kids):
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


def _not_after_order(s: Node) -> bool:
    prev = _prev(s)
    return not (prev is not None and prev.label == "NN" and _kid_has(prev, _ORDER))


_ORDER = frozenset({"order"})


def _adjp_jj_s(s: Node) -> bool:
    """``@S < (@ADJP < /^JJ/ ! $-- @NP|S)``."""
    return basic_category(s.label) == "S" and any(
        basic_category(a.label) == "ADJP"
        and _kid_prefix(a, ("JJ",))
        and not any(basic_category(x.label) in ("NP", "S") for x in _left(a))
        for a in s.kids
    )


def xcomp(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if lab == "VP":
        for s in kids:
            if s.label == "S":
                to_vp = any(v.label == "VP" and _kid_label(v, ("TO",)) for v in s.kids)
                left = _left(s)
                if (
                    to_vp
                    and _not_after_order(s)
                    and (
                        not any(x.label == "NP" for x in left)
                        or any(x.label.startswith("V") and _kid_has_ci(x, XCOMP_VERBS) for x in left)
                    )
                ):
                    out.append(s)
                if _not_after_order(s) and any(
                    np.label == "NP" and (n := _next(np)) is not None and n.label in ("NP", "ADJP") for np in s.kids
                ):
                    out.append(s)
                if (
                    _not_after_order(s)
                    and len(s.kids) == 1
                    and s.kids[0].label == "NP"
                    and t.parent is not None
                    and t.parent.label == "VP"
                ):
                    out.append(s)
                if not _kid_label(s, ("VP",)):
                    out.append(s)
                if (
                    any(v.label == "VP" and _kid_label(v, ("VBG",)) for v in s.kids)
                    and not _kid_label(s, ("NP",))
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
            if s.label == "SBAR" and any(
                x.label == "S"
                and _not_after_order(x)
                and any(v.label == "VP" and _kid_label(v, ("TO",)) for v in x.kids)
                for x in s.kids
            ):
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
            if nxt is not None and nxt.label == "VP" and _kid_label(nxt, ("VB", "VBG")):
                out.append(nxt)
        if any(v.label.startswith("VB") and _kid_has_ci(v, COPULAR) for v in _left(t)):
            for v in kids:
                if v.label.startswith("VB"):
                    nxt = _next(v)
                    if nxt is not None and _adjp_jj_s(nxt):
                        out.append(nxt)
        clausal_verb = any(v.label.startswith("VB") and _kid_has_ci(v, CLAUSAL) for v in kids)
        if clausal_verb and any(v.label.startswith(("VB", "AUX")) and _kid_has_ci(v, COPULAR) for v in _left(t)):
            out += [np for np in kids if np.label == "NP"]
        if any(v.label.startswith(("VB", "AUX")) and _kid_has_ci(v, CLAUSAL) for v in kids):
            out += [k for k in kids if _object_np(k) and _no_colon_parenthetical(t, k)]
        head = bare(t)
        if head.label.startswith(("VB", "AUX")) and _kid_has_ci(head, COPULAR):
            sisters = t.parent.kids if t.parent is not None else []
            if not any(s is not t and s.label == "NP" and _kid_label(s, ("EX",)) for s in sisters):
                out += [np for np in kids if np.label == "NP"]
        out += [a for a in kids if a.label == "ADJP"]
        if not any(v.label.startswith("VB") and _kid_has_ci(v, COPULAR) for v in _left(t)):
            for v in kids:
                if not v.label.startswith("VB"):
                    continue
                if _kid_has_ci(v, CLAUSAL):
                    out += [x for x in _right(v) if x.label == "VP"]
                nxt = _next(v)
                if nxt is not None and _adjp_jj_s(nxt):
                    out.append(nxt)
    if lab == "ADJP":
        for s in kids:
            if (
                s.label == "S"
                and s.kids
                and s.kids[0].label == "VP"
                and s.kids[0].kids
                and s.kids[0].kids[0].label == "TO"
            ):
                out.append(s)
    if lab == "SINV" and kids:
        head = bare(t)
        if head.label == "VP" and any(v.label.startswith(("VB", "AUX")) and _kid_has_ci(v, COPULAR) for v in head.kids):
            for np in _left(head):
                if np.label == "NP":
                    out += [x for x in _left(np) if x.label == "NP"]
    return out


_BE = frozenset({"be"})


def mark(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if lab == "VP" and _kid_label(t, ("VP",)):
        out += [k for k in kids if k.label == "TO"]
    if lab in ("SBAR", "SBAR-TMP"):
        for k in kids:
            if k.label in ("IN", "DT", "MWE") and any(r.label in ("S", "FRAG") for r in _right(k)):
                out.append(k)
    if lab == "SBAR":
        parent = t.parent
        ok = any(x.label.startswith(("VB", "AUX")) for x in _left(t))
        prev = _prev(t)
        ok = ok or (prev is not None and prev.label in ("NP", "NN", "NNS"))
        ok = ok or (parent is not None and parent.label in ("ADJP", "PP"))
        if not ok and parent is not None and basic_category(parent.label) in ("NP", "UCP", "SBAR"):
            ok = _kid_label(parent, ("CC", "CONJP")) and any(x.label.startswith(("VB", "AUX")) for x in _left(parent))
        if ok:
            out += [k for k in kids if k.label in ("IN", "DT") and _kid_has(k, _THAT_WHETHER)]
    if lab in ("PP", "PP-TMP", "PP-ADV"):
        for k in kids:
            if k.label in ("IN", "TO", "MWE", "PCONJP", "VBN", "JJ"):
                nxt = _next(k)
                if nxt is not None and basic_category(nxt.label) in ("SBAR", "S"):
                    out.append(k)
    return out


def rel(t: Node) -> Targets:
    out: Targets = []
    kids = t.kids
    if t.label == "SBAR":
        for wh in kids:
            if wh.label != "WHNP" or _kid_label(wh, ("WRB",)):
                continue
            for s in kids:
                if s.label != "S" or not _kid_label(s, ("NP",)):
                    continue
                if any(
                    vp.label == "VP"
                    and (
                        _kid_label(vp, ("SBAR",))
                        or _pp_ending_in(vp, ("IN", "TO"))
                        or any(
                            x.label == "S" and any(v.label == "VP" and _kid_label(v, ("TO",)) for v in x.kids)
                            for x in vp.kids
                        )
                    )
                    for vp in s.kids
                ):
                    out.append(wh)
                    break
    elif t.label == "SBARQ":
        for wh in kids:
            if wh.label != "WHNP" or _kid_label(wh, ("WRB",)) or _time_headed(wh):
                continue
            if any(
                _copular(v) and not any(r.label == "VP" for r in _right(v))
                for v in _chain(t, lambda x: x in ("SQ", "SINV"))
            ):
                out.append(wh)
    return out


def expl(t: Node) -> Targets:
    return [k for k in t.kids if k.label == "NP" and any(e.label == "EX" for e in _chain(k, lambda x: x == "NP"))]


def _than_clause(sbar: Node, words: frozenset[str], marker_test: bool) -> bool:
    """The shared body of the advcl p8 / acl:relcl p4 configurations."""
    if marker_test:
        if not any(i.label in ("IN", "MWE") and _kid_has_ci(i, _THAN) for i in sbar.kids):
            return False
    elif any(i.label == "IN" and _kid_has_ci(i, words) for i in sbar.kids):
        return False
    if _kid_label(sbar, ("WHPP", "WHNP", "WHADVP")):
        return False
    if (
        len(sbar.kids) == 1
        and sbar.kids[0].label == "S"
        and not any(v.label == "VP" and _kid_label(v, ("TO",)) for v in sbar.kids[0].kids)
    ):
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
                if any(_copular(v) and (n := _next(v)) is not None and n.label != "VP" for v in vp.kids) or any(
                    _copular(v) and _next(v) is None for v in vp.kids
                ):
                    continue
                chain = list(_chain(vp, lambda x: x == "VP"))
                if any(
                    _copular(v) and (n := _next(v)) is not None and n.label == "VP" and _kid_label(n, ("VBN", "VBD"))
                    for v in chain
                ):
                    continue
                if any(x.label == "NP" for x in chain):
                    continue
                if _kid_label(vp, ("SBAR",)):
                    continue
                if any(p.label == "PP" and p.kids and p.kids[-1].label in last for p in chain):
                    continue
                return True
    return False


_THAN = frozenset({"than"})


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
    """The @SBAR shapes of advcl p0."""
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


_SO_NOW = frozenset({"so", "now"})
_THAT = frozenset({"that"})
_NOW = frozenset({"now"})


def _participle_vp(verb: Node) -> bool:
    """``[ <1 VBG|VBN | <2 (VBG|VBN $-- ADVP) ]``."""
    k = verb.kids
    if k and k[0].label in ("VBG", "VBN"):
        return True
    return len(k) > 1 and k[1].label in ("VBG", "VBN") and k[0].label == "ADVP"


_ADVCL_PCOMP_PARENTS = re.compile(r"(?:(?:WH)?(?:ADJP|ADVP)(?:-TMP|-ADV)?|VP|SQ|FRAG|PRN|X|RRC|S)")
_NOT_PP_OR_IN = re.compile(r"^((?!(PP|IN)).)*$")
_NOT_PP_CC_COMMA = re.compile(r"^((?!(PP|CC|CONJP|,)).)*$")


def _preceded_by_coordination(k: Node) -> bool:
    """``$- (@CC|CONJP $- __)``."""
    prev = _prev(k)
    return prev is not None and basic_category(prev.label) in ("CC", "CONJP") and _prev(prev) is not None


def advcl(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if lab == "VP":
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
            if basic_category(s.label) == "S" and any(v.label == "VP" and _participle_vp(v) for v in s.kids):
                prev = _prev(s)
                if prev is not None and prev.label == ",":
                    pp = _prev(prev)
                    if pp is not None:
                        b = basic_category(pp.label)
                        if b in ("NP", "VP") or (
                            b in ("PP", "ADVP") and any(basic_category(x.label) == "NP" for x in _left(pp))
                        ):
                            out.append(s)
            if s.label == "S" and any(v.label == "VP" and _kid_label(v, ("VBG",)) for v in s.kids):
                for ing in _left(s):
                    if ing.label == "VBG" and not any(c.label == ":" and c.order > ing.order for c in _left(s)):
                        out.append(s)
                        break
            if (
                s.label == "S"
                and any(x.label == "NP" for x in _left(s))
                and any(v.label == "VP" and _kid_label(v, ("TO",)) for v in s.kids)
                and not any(x.label.startswith("V") and _kid_has_ci(x, XCOMP_VERBS) for x in _left(s))
            ):
                out.append(s)
    if lab in ("S", "SQ", "SINV"):
        for k in kids:
            if k.label not in ("SBAR", "SBAR-TMP") or not _first_marker(k):
                continue
            nxt = _next(k)
            if not any(not x.label.startswith(("CC", "CONJP", "``", ",", "INTJ", "PP")) for x in _left(k)) and (
                nxt is None or nxt.label != "VP"
            ):
                out.append(k)
            if (
                (nxt is None or basic_category(nxt.label) != "VP")
                and nxt is not None
                and nxt.label == ","
                and any(basic_category(x.label) == "NP" for x in _right(k))
            ):
                out.append(k)
    if lab == "SBARQ":
        for k in kids:
            if k.label in ("SBAR", "SBAR-TMP", "SBAR-ADV") and _first_marker(k):
                nxt = _next(k)
                if (
                    nxt is not None
                    and nxt.label == ","
                    and any(basic_category(x.label) in ("SQ", "S", "SBARQ") for x in _right(k))
                ):
                    out.append(k)
        if any(k.label == "WHNP" for k in kids):
            for s in kids:
                if s.label == "S" and any(v.label == "VP" and v.kids and v.kids[0].label == "TO" for v in s.kids):
                    out.append(s)
    if lab in ("S", "SQ"):
        for k in kids:
            if basic_category(k.label) != "SBAR":
                continue
            if any(_wh_sbar(c) and not any(x.label == ":" for x in _left(c)) for c in _sbar_choices(k)):
                out.append(k)
    if basic_category(lab) == "S":
        for k in kids:
            if basic_category(k.label) == "SBAR":
                right = _right(k)
                if any(basic_category(x.label) == "NP" for x in right) and any(
                    basic_category(x.label) == "VP" for x in right
                ):
                    out.append(k)
            if basic_category(k.label) == "S" and any(v.label == "VP" and _kid_label(v, ("TO",)) for v in k.kids):
                nxt = _next(k)
                if nxt is not None and nxt.label == "," and any(basic_category(x.label) == "NP" for x in _right(nxt)):
                    out.append(k)
    if lab == "NP":
        for np in kids:
            if np.label != "NP":
                continue
            for sbar in _right(np):
                if sbar.label == "SBAR" and _than_clause(sbar, _THAN, True):
                    if not any(c.label == "CC" and c.order > np.order and c.order < sbar.order for c in _right(np)):
                        out.append(sbar)
    if lab == "ADVP" and _kid_label(t, ("ADVP",)):
        out += [k for k in kids if k.label == "SBAR"]
    if lab in ("S", "SINV"):
        for s in kids:
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
                        and any(basic_category(x.label) == "NP" for x in pp.parent.kids if x is not pp)
                    )
                ):
                    ok = True
            if not ok and nxt is not None and nxt.label == ",":
                n2 = _next(nxt)
                if n2 is not None and basic_category(n2.label) == "NP":
                    ok = True
            if ok:
                out.append(s)
    if _ADVCL_PCOMP_PARENTS.fullmatch(lab) and not _last_is_etc(t):
        for k in kids:
            if k.label not in _PP_LABELS:
                continue
            if any(_nominal(c.label) for c in k.kids):
                continue
            if _preceded_by_coordination(k):
                continue
            if len(k.kids) == 1 and k.kids[0].label in ("IN", "TO"):
                continue
            if any(basic_category(c.label) in ("CC", "CONJP") for c in k.kids):
                continue
            if any(_NOT_PP_OR_IN.match(c.label) for c in k.kids):
                out.append(k)
    if lab in ("VP", "ADJP"):
        if any(
            basic_category(p.label) == "PP"
            and any(basic_category(c.label) in ("SBAR", "S") for c in p.kids)
            and any(r.label in ("CONJP", "CC") for r in _right(p))
            for p in kids
        ):
            out += [k for k in kids if k.label in ("PP", "PP-TMP", "PP-ADV")]
    return out


def tmod(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if lab in ("VP", "ADJP", "RRC"):
        for k in kids:
            if k.label == "NP-TMP":
                out.append(k)
            elif k.label == "VP" and k.kids and bare(k).label == "NP-TMP":
                sisters = [s for s in t.kids if s is not k]
                if not any(s.label.startswith(",") or "CC" in s.label or s.label.endswith("CONJP") for s in sisters):
                    out.append(k)
            if k.label == "NP" and _time_headed(k):
                nxt = _next(k)
                if not (nxt is not None and nxt.label.startswith("JJ") and _kid_has(nxt, _OLD)):
                    out.append(k)
    if basic_category(lab) == "PP":
        for k in kids:
            if k.label not in ("IN", "TO", "VBG", "FW"):
                continue
            for np in _right(k):
                if basic_category(np.label) != "NP":
                    continue
                nxt = _next(np)
                if nxt is not None and (nxt.label == "NP-TMP" or (nxt.label == "NP" and _time_headed(nxt))):
                    out.append(nxt)
    if lab == "S":
        for k in kids:
            if (
                k.label == "NP-TMP"
                and any(r.label == "VP" for r in _right(k))
                and any(s.label == "NP" for s in kids if s is not k)
            ):
                out.append(k)
            if (
                k.label == "NP"
                and _time_headed(k)
                and any(np.label == "NP" and any(v.label == "VP" for v in _right(np)) for np in _right(k))
            ):
                out.append(k)
    if lab == "SBAR":
        parent = t.parent
        if (
            parent is not None
            and parent.label == "NP"
            and not any(x.label == "CC" for x in _left(t))
            and any(x.label == "NP" for x in _left(t))
            and any(
                basic_category(w.label) == "WHADVP" and any(r.label == "WRB" and _kid_has(r, _WHEN) for r in w.kids)
                for w in kids
            )
            and any(
                s.label == "S"
                and any(
                    np.label == "NP"
                    and (vp := _next(np)) is not None
                    and vp.label == "VP"
                    and not any(_copular(v) and (n := _next(v)) is not None and n.label != "VP" for v in vp.kids)
                    and not any(_copular(v) and _next(v) is None for v in vp.kids)
                    for np in s.kids
                )
                for s in kids
            )
        ):
            out.append(parent)
    if lab == "SBARQ" and any(s.label == "SQ" and any(basic_category(x.label) == "NP" for x in s.kids) for s in kids):
        out += [w for w in kids if basic_category(w.label) == "WHNP" and _time_headed(w)]
    if lab == "NP":
        out += [k for k in kids if k.label == "NP-TMP"]
    return out


_OLD = frozenset({"old"})
_WHEN = frozenset({"when"})


def relcl(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    parent = t.parent
    if parent is not None:
        pb = basic_category(parent.label)
        if basic_category(lab) in ("NP", "WHNP", "NML") and pb in ("NP", "WHNP"):
            if not any(_nominal(x.label) for x in _left(t)) and not any(_is_etc(x) or _is_fw_etc(x) for x in _right(t)):
                for sbar in _right(t):
                    if sbar.label != "SBAR":
                        continue
                    if any(c.label in ("CC", "CONJP") and c.order < sbar.order for c in _right(t)):
                        continue
                    wh = any(w.label in ("WHPP", "WHNP") for w in _chain(sbar, lambda x: x == "SBAR"))
                    bare_s = (
                        len(sbar.kids) == 1
                        and sbar.kids[0].label == "S"
                        and not any(v.label == "VP" and _kid_label(v, ("TO",)) for v in sbar.kids[0].kids)
                    )
                    if wh or bare_s:
                        out.append(sbar)
        if lab in ("NP", "NML") and basic_category(parent.label) == "NP":
            if not any(x.label in ("NP", "NML") for x in _left(t)) and not any(
                _is_etc(x) or _is_fw_etc(x) for x in _right(t)
            ):
                for sbar in _right(t):
                    if sbar.label == "SBAR" and any(
                        w.label == "WHADVP"
                        and any(
                            r.label == "WRB"
                            and any(c.label.lower().startswith(("where", "why", "when")) for c in r.kids)
                            for r in w.kids
                        )
                        for w in sbar.kids
                    ):
                        out.append(sbar)
    b = basic_category(lab)
    if b in ("NP", "WHNP") and t.kids and bare(t).label in ("NP", "WHNP", "NML", "DT", "S"):
        out += [k for k in t.kids if k.label == "RRC"]
    if b == "ADVP" and any(
        basic_category(a.label) == "ADVP"
        and any(r.label == "RB" and any(c.label.endswith("where") for c in r.kids) for r in a.kids)
        for a in t.kids
    ):
        out += [k for k in t.kids if basic_category(k.label) == "SBAR"]
    if lab == "NP":
        for np in t.kids:
            if np.label != "NP":
                continue
            for sbar in _right(np):
                if sbar.label == "SBAR" and _than_clause(sbar, _THAN_THAT_WHETHER, False):
                    if not any(c.label == "CC" and c.order < sbar.order for c in _right(np)):
                        out.append(sbar)
    return out


_THAN_THAT_WHETHER = frozenset({"than", "that", "whether"})
_NOMINAL_EXACT = re.compile(r"(?:WH)?(?:NP|NX|NML)(?:-TMP|-ADV)?")


def nummod(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    if _NOMINAL_EXACT.fullmatch(lab):
        for k in t.kids:
            if k.label in ("CD", "QP"):
                prev = _prev(k)
                if prev is None or prev.label != "CC":
                    out.append(k)
            if k.label == "ADJP" and len(k.kids) == 1 and k.kids[0].label == "QP" and not _kid_label(k.kids[0], ("$",)):
                out.append(k)
    if lab == "QP" and _kid_label(t, ("$",)):
        out += [k for k in t.kids if k.label == "QP"]
    return out


_AMOD_PARENTS = frozenset({"NP", "NP-TMP", "NP-ADV", "NX", "NML", "NAC", "WHNP", "INTJ"})
_AMOD_TARGETS = frozenset({"ADJP", "WHADJP", "JJ", "JJR", "JJS", "JJP", "VBN", "VBG", "VBD", "IN"})


def amod(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    if lab in _AMOD_PARENTS:
        for k in t.kids:
            if k.label not in _AMOD_TARGETS:
                continue
            if any(q.label == "QP" and not _kid_label(q, ("$",)) for q in k.kids):
                continue
            prev = _prev(k)
            if prev is not None and prev.label == "CC":
                continue
            out.append(k)
    if lab == "ADJP" and not _kid_label(t, ("CC", "CONJP")):
        adjs = [k for k in t.kids if k.label in ("JJ", "NNP")]
        if len(adjs) > 1:
            out += adjs
    if lab in ("WHNP", "WHNP-TMP", "WHNP-ADV", "NP", "NP-TMP", "NP-ADV"):
        for k in t.kids:
            if k.label == "NP" and len(k.kids) == 1 and k.kids[0].label == "CD":
                prev = _prev(k)
                if (
                    prev is not None
                    and prev.label == ","
                    and any(x.label.startswith(("NP", "WHNP")) for x in _left(k))
                    and not any(s.label in ("CC", "CONJP") for s in t.kids if s is not k)
                ):
                    out.append(k)
    return out


_COMPOUND_PARENTS = re.compile(r"(?:WH)?(?:NP|NX|NAC|NML)(?:-TMP|-ADV)?")
_COMPOUND_TARGETS = frozenset({"NP", "NML", "NN", "NNS", "NNP", "NNPS", "FW", "AFX"})
_COMPOUND_SISTERS = frozenset({"NN", "NNS", "NNP", "NNPS", "FW", "CD"})
_NOUNS = frozenset({"NN", "NNS", "NNP", "NNPS"})


def _ends_possessive(node: Node) -> bool:
    """``<<- POS`` or ``<<- (VBZ < 's)``."""
    for x in _rightmost_path(node):
        if x.label == "POS" or (x.label == "VBZ" and _kid_has(x, _APOS_S)):
            return True
    return False


_APOS_S = frozenset({"'s"})


def compound(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if _COMPOUND_PARENTS.fullmatch(lab):
        for k in kids:
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
        if (
            kids
            and any(k.label in ("JJ", "JJR", "JJS") for k in kids)
            and bare(t).label in _NOUNS
            and not _ends_possessive(t)
        ):
            for k in kids:
                nxt = _next(k)
                if (
                    k.label in ("NP", "NML", "NN", "NNS", "NNP", "NNPS", "FW")
                    and nxt is not None
                    and nxt.label in ("JJ", "JJR", "JJS")
                    and not _ends_possessive(k)
                ):
                    out.append(k)
    if lab in ("QP", "ADJP"):
        for k in kids:
            if k.label in ("CD", "#"):
                prev = _prev(k)
                if prev is None or prev.label != "CC":
                    out.append(k)
    if lab in ("ADJP", "ADVP"):
        for fw in kids:
            if fw.label != "FW":
                continue
            prev = _prev(fw)
            if prev is not None and (
                (prev.label == "FW" and not _kid_has_ci(prev, _ETC1)) or (prev.label == "IN" and _kid_has(prev, _IN_IN))
            ):
                out.append(prev)
    return out


_ETC1 = frozenset({"etc"})
_IN_IN = frozenset({"in", "In"})
_APPOS_PARENTS = frozenset({"WHNP", "WHNP-TMP", "WHNP-ADV", "NP", "NP-TMP", "NP-ADV"})
_PRN_BLOCK = re.compile(r"(?:POS|(?:WP|PRP)\$|[,$#]|CC|RB|CD)")


def appos(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    plain = not _kid_label(t, ("CC", "CONJP")) and not _has_etc_kid(t)
    if lab in _APPOS_PARENTS or lab == "FRAG":
        if plain:
            for k in kids:
                if k.label != "NP" or (len(k.kids) == 1 and k.kids[0].label == "CD"):
                    continue
                prev = _prev(k)
                if prev is not None and prev.label == "," and any(x.label.startswith(("NP", "WHNP")) for x in _left(k)):
                    out.append(k)
        for prn in kids:
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
    if basic_category(lab) in ("WHNP", "NP"):
        for k in kids:
            if (
                k.label == "NP"
                and not (len(k.kids) == 1 and k.kids[0].label == "CD")
                and k.kids
                and k.kids[0].label == "-LRB-"
                and k.kids[-1].label == "-RRB-"
                and any(x.label.startswith(("NP", "WHNP")) for x in _left(k))
                and not any(s.label in ("CC", "CONJP") for s in kids if s is not k)
            ):
                out.append(k)
    if lab in ("NP", "NP-TMP", "NP-ADV") and plain:
        for k in kids:
            if k.label == "NNP":
                comma = _next(k)
                if comma is not None and comma.label == ",":
                    nnp = _next(comma)
                    if nnp is not None and nnp.label == "NNP":
                        out.append(nnp)
    if lab in _APPOS_PARENTS:
        for prn in kids:
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
        if plain:
            for k in kids:
                if k.label == "NP" and len(k.kids) == 1 and k.kids[0].label == "NNP":
                    prev = _prev(k)
                    if prev is not None and prev.label.startswith(("NP", "WHNP")) and not _kid_label(prev, ("POS",)):
                        out.append(k)
    if lab in ("FRAG", "NP"):
        for np in kids:
            if np.label == "NP" and len(np.kids) == 1 and np.kids[0].label in ("NN", "NNS"):
                colon = _next(np)
                if colon is not None and ":" in colon.label:
                    target = _next(colon)
                    if target is not None and basic_category(target.label) in ("SQ", "S"):
                        out.append(target)
    return out


def discourse(t: Node) -> Targets:
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


def acl(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if lab in _ACL_PARENTS:
        for k in kids:
            if (
                k.label == "VP"
                and _kid_label(k, ("VBG", "VBN", "VBD"))
                and any(basic_category(x.label) in ("NP", "NML", "NX") for x in _left(k))
            ):
                out.append(k)
            if k.label == ",":
                vp = _next(k)
                if vp is not None and vp.label == "VP" and _participle_vp(vp):
                    out.append(vp)
    if _NOMINAL_EXACT.fullmatch(lab) and not _last_is_etc(t):
        for k in kids:
            if k.label not in _PP_LABELS or any(_nominal(c.label) for c in k.kids):
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
    if _NP_ANY_FUNCTION.fullmatch(lab):
        for k in kids:
            if not any(x.label in ("NP", "NN", "NNP", "NNS") for x in _left(k)):
                continue
            if k.label == "S" and any(v.label == "VP" and _kid_label(v, ("TO",)) for v in k.kids):
                out.append(k)
            if k.label == "SBAR" and any(
                s.label == "S" and any(v.label == "VP" and _kid_label(v, ("TO",)) for v in s.kids) for s in k.kids
            ):
                out.append(k)
    return out


_ADVMOD_PARENTS = re.compile(r"(?:VP|ADJP|JJP|WHADJP|SQ?|SBARQ?|SINV|XS|RRC|(?:WH)?NP(?:-TMP|-ADV)?)")
_ADVERBS = frozenset({"RB", "RBR", "RBS", "WRB", "ADVP", "WHADVP"})
_PP_END = re.compile(r"(?:WH)?PP(?:-TMP|-ADV)?$")
_NO = frozenset({"no"})


def _plain_adverb(k: Node) -> bool:
    """An adverb child that is neither a negation nor "etc"."""
    return not _kid_has_ci(k, NOT_WORDS) and not any(_is_etc(c) for c in k.kids)


def _at_least_like(k: Node) -> bool:
    """Both ``<+(/ADVP/) (@ADVP < (IN < /(?i:at)/))`` and ``<+(/ADVP/) (@ADVP < NP)``."""
    found_at = found_np = False
    for x in _chain(k, lambda lab: "ADVP" in lab):
        if basic_category(x.label) != "ADVP":
            continue
        if any(i.label == "IN" and any("at" in c.label.lower() for c in i.kids) for i in x.kids):
            found_at = True
        if _kid_label(x, ("NP",)):
            found_np = True
    return found_at and found_np


def advmod(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if _ADVMOD_PARENTS.fullmatch(lab):
        for k in kids:
            if k.label in _ADVERBS and _plain_adverb(k) and not _at_least_like(k):
                out.append(k)
    if lab == "QP":
        out += [k for k in kids if k.label in ("IN", "RB", "RBR", "RBS", "PDT", "DT", "JJ", "JJR", "JJS", "XS")]
        for k in kids:
            if (
                k.label == "MWE"
                and any(x.label in ("JJR", "RBR", "IN") and _kid_has_ci(x, _MORE_LESS) for x in k.kids)
                and any(x.label == "IN" and _kid_has_ci(x, _THAN) for x in k.kids)
            ):
                out.append(k)
    if lab in ("ADVP", "WHADVP"):
        cc_like = [c for c in kids if c.label.startswith("CC") or c.label.endswith("CONJP")]
        head = bare(t) if kids else None
        for k in kids:
            if k.label not in ("RB", "RBR", "RBS", "WRB", "ADVP", "WHADVP", "JJ"):
                continue
            if not _plain_adverb(k) or _kid_has_ci(k, _NO):
                continue
            if not cc_like:
                out.append(k)
                continue
            assert head is not None
            if not any(
                (c.order < head.order and c.order > k.order) or (c.order > head.order and c.order < k.order)
                for c in kids
                if c.label in ("CC", "CONJP") or c.label.startswith("CC") or c.label.endswith("CONJP")
            ):
                out.append(k)
    if lab == "SBAR":
        out += [k for k in kids if k.label == "WHNP" and _kid_label(k, ("WRB",))]
    if lab == "SBARQ" and kids and kids[0].label == "WHADVP":
        out.append(kids[0])
    if lab == "XS":
        out += [k for k in kids if k.label == "JJ"]
    if _PP_END.search(lab):
        if kids:
            head = bare(t)
            out += [k for k in _left(head) if k.label in _ADVERBS and _plain_adverb(k)]
        if any(basic_category(k.label) in ("NP", "WHNP") for k in kids):
            out += [k for k in kids if k.label in _ADVERBS and _plain_adverb(k)]
    if lab == "CONJP":
        out += [k for k in kids if k.label == "RB" and _plain_adverb(k)]
    return out


_MORE_LESS = frozenset({"more", "less"})
_NO_TARGET_SISTER = re.compile(r"^(?:N[MNXP]|CD|JJ|JJR|FW|ADJP|QP|RB|RBR|PRP(?![$])|PRN)")


def neg(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if lab in ("VP", "NP", "NP-TMP", "NP-ADV", "ADJP", "SQ", "S", "FRAG", "CONJP", "PP"):
        out += [k for k in kids if k.label == "RB" and _kid_has_ci(k, NOT_WORDS)]
    if lab in ("VP", "ADJP", "S", "SBAR", "SINV", "FRAG"):
        for k in kids:
            if k.label == "ADVP" and k.kids:
                head = bare(k)
                if head.label == "RB" and _kid_has_ci(head, NOT_WORDS):
                    out.append(k)
    if lab == "VP" and t.parent is not None and t.parent.label == "SQ":
        out += [k for k in _left(t) if k.label == "RB" and _kid_has_ci(k, NOT_WORDS)]
    if lab in ("NP", "NP-TMP", "NP-ADV", "NAC", "NML", "NX", "ADJP", "ADVP"):
        for k in kids:
            if (
                k.label in ("DT", "RB")
                and _kid_has_ci(k, _NO)
                and any(_NO_TARGET_SISTER.match(r.label) for r in _right(k))
            ):
                out.append(k)
    if lab in ("ADVP", "WHADVP") and not _kid_label(t, ("CC", "CONJP")):
        out += [
            k for k in kids if k.label in ("RB", "RBR", "RBS", "WRB", "ADVP", "WHADVP", "JJ") and _kid_has_ci(k, _NO)
        ]
    return out


def mwe(t: Node) -> Targets:
    return [k for k in t.kids if k.label in _MWE_TARGETS]


_MWE_TARGETS = frozenset({"IN", "TO", "RB", "NP", "NN", "JJ", "VB", "CC", "VBZ", "VBD", "ADVP", "PP", "JJS", "RBS"})
_DET_SISTER = re.compile(r"^(?:N[MNXP]|CD|JJ|FW|ADJP|QP|RB|PRP(?![$])|PRN)")
_DET_PARENTS = frozenset({"NP", "NP-TMP", "NP-ADV", "NAC", "NML", "NX", "X"})
_EITHER = frozenset({"either", "neither", "both"})
_EITHER_NO = frozenset({"either", "neither", "both", "no"})
_ALL_BOTH_EACH = frozenset({"all", "both", "each"})


def det(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if lab in _DET_PARENTS:
        for k in kids:
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
    if lab in ("NP", "NP-TMP", "NP-ADV"):
        for k in kids:
            if k.label != "DT":
                continue
            right = _right(k)
            nxt = _next(k)
            has_cc = any(r.label == "CC" for r in right)
            noun_right = any(r.label.startswith(("NN", "NX", "NML")) for r in right)
            if (
                _kid_has_ci(k, _EITHER)
                and not (nxt is not None and nxt.label == "DT")
                and not has_cc
                and noun_right
                and not any(r.label == "NP" and _kid_label(r, ("CC",)) for r in right)
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
                and not (nxt is not None and nxt.label == "DT")
            ):
                out.append(k)
        if kids and any(x.label == "PRP" for x in _leftmost_path(t)):
            last = kids[-1]
            if last.label in ("NP", "DT", "RB"):
                leaf = None
                for x in _rightmost_path(last):
                    leaf = x
                if leaf is not None and leaf.label.lower() in _ALL_BOTH_EACH:
                    out.append(last)
    if lab == "WHNP":
        for np in kids:
            if np.label == "NP":
                out += [w for w in _left(np) if w.label == "WHNP" and _kid_label(w, ("WDT",))]
    if basic_category(lab) in ("WHNP", "ADVP", "ADJP"):
        for a in kids:
            if not a.label.startswith(("NP", "NN", "CD", "RBS", "JJ")):
                continue
            for k in _left(a):
                if k.label not in ("DT", "WDT", "WP") or _kid_has_ci(k, _NO):
                    continue
                if k.label in ("WDT", "WP") or not any(r.label in ("CC", "CONJP") for r in _right(k)):
                    out.append(k)
    if basic_category(lab) == "NP":
        for a in kids:
            if a.label.startswith(("NP", "NN", "CD", "RBS")):
                out += [k for k in _left(a) if k.label in ("WDT", "WP")]
    return out


_PREDET_PARENTS = re.compile(r"(?:(?:WH)?NP(?:-TMP|-ADV)?|NX|NAC|NML)")


def predet(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if _PREDET_PARENTS.fullmatch(lab):
        for k in kids:
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
    if lab in _APPOS_PARENTS:
        right_of_t = _right(t)
        if not any(r.label == "CC" for r in right_of_t):
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


def _not_only(k: Node) -> bool:
    return (
        k.label == "CONJP"
        and any(r.label == "RB" and _kid_has_ci(r, _NOT) for r in k.kids)
        and any(r.label in ("RB", "JJ") and _kid_has_ci(r, _ONLY_MERELY) for r in k.kids)
    )


_ONLY_MERELY = frozenset({"only", "merely", "just"})


def preconj(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if lab in _PRECONJ_NP:
        for k in kids:
            if k.label in ("PDT", "CC", "DT") and _kid_has_ci(k, _EITHER):
                if any(r.label == "CC" for r in _right(k)) or any(
                    np.label == "NP" and _kid_label(np, ("CC",)) for np in kids
                ):
                    out.append(k)
            if _not_only(k) and any(r.label in ("CC", "CONJP") for r in _right(k)):
                out.append(k)
    if _PRECONJ_CLAUSE.search(lab):
        for k in kids:
            if k.label in ("PDT", "DT", "CC") and _kid_has(k, _EITHER) and any(r.label == "CC" for r in _right(k)):
                out.append(k)
            if _not_only(k) and any(r.label in ("CC", "CONJP") for r in _right(k)):
                out.append(k)
    return out


_POSS_PARENTS = re.compile(r"(?:WH)?(?:NP|INTJ|ADJP|PRN|NAC|NX|NML)(?:-.*)?")
_POSS_NP = re.compile(r"(?:WH)?(?:NP|NML)(?:-.*)?")
_POSS_NP2 = re.compile(r"(?:WH)?(?:NP|NML|NX)(?:-.*)?")
_NOMINALS = frozenset({"WHNP", "WHNML", "NP", "NML"})


def _possessive(x: Node) -> bool:
    return any(c.label == "POS" or (c.label == "VBZ" and _kid_has(c, _APOS_S)) for c in x.kids)


def _cc_before_nominal(x: Node) -> bool:
    return any(c.label in ("CC", "CONJP") and any(r.label in _NOMINALS for r in _right(c)) for c in x.kids)


def poss(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if _POSS_PARENTS.fullmatch(lab):
        out += [k for k in kids if k.label in ("WP$", "PRP$")]
    if _POSS_NP.fullmatch(lab):
        if not _cc_before_nominal(t):
            out += [k for k in kids if k.label in _NOMINALS and _possessive(k)]
        for k in kids:
            if (
                k.label in _NOMINALS
                and _cc_before_nominal(k)
                and any(x.label in _NOMINALS and _possessive(x) for x in k.kids)
            ):
                out.append(k)
    if _POSS_NP2.fullmatch(lab):
        for k in kids:
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


def case(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if "PP" in lab:
        for k in kids:
            if k.label not in ("IN", "TO", "MWE", "PCONJP", "VBN", "JJ"):
                continue
            nxt = _next(k)
            if nxt is not None and basic_category(nxt.label) == "SBAR":
                continue
            if nxt is not None and basic_category(nxt.label) == "S":
                if not (
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
    if _NOMINAL_EXACT.fullmatch(lab) and basic_category(lab) in ("NP", "WHNP", "NML"):
        for k in kids:
            if k.label == "POS" or (k.label == "VBZ" and _kid_has(k, _APOS_S)):
                out.append(k)
    if basic_category(lab) == "ADVP":
        out += [k for k in kids if k.label == "IN"]
    return out


def prt(t: Node) -> Targets:
    if t.label == "VP":
        return [k for k in t.kids if k.label == "PRT"]
    if t.label == "ADJP" and _kid_prefix(t, ("VB",)):
        return [k for k in t.kids if k.label == "RP"]
    return []


def npmod(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    b = basic_category(lab)
    if b in ("ADVP", "ADJP", "WHADJP", "WHADVP", "PP", "WHPP") and kids:
        head = bare(t)
        if head.label in ("JJ", "JJR", "IN", "RB", "RBR") and not _kid_has(head, _NOTWITHSTANDING):
            prev = _prev(head)
            if prev is not None and basic_category(prev.label) == "NP" and not _kid_label(prev, ("NNP", "NNPS")):
                out.append(prev)
    if b == "ADJP" and not _kid_label(t, ("CC", "CONJP")):
        out += [k for k in kids if k.label == "NN" and any(r.label.startswith("JJ") for r in _right(k))]
    if b == "ADVP" and kids:
        head = bare(t)
        if head.label.startswith(("RB", "ADVP")):
            out += [r for r in _right(head) if basic_category(r.label) == "NP"]
    if b in ("NP", "WHNP"):
        out += [k for k in kids if k.label.startswith("NP-ADV")]
        for k in kids:
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
    if b == "NP" and len(kids) == 2:
        first, second = kids
        if (
            basic_category(first.label) == "NP"
            and any(x.label == "%" for x in _head_path(first))
            and basic_category(second.label) == "NP"
            and any(x.label in ("days", "month", "months") for x in _head_path(second))
        ):
            out.append(second)
    if b == "VP":
        out += [k for k in kids if k.label.startswith("NP-ADV")]
    if b in ("NP", "ADVP", "QP"):
        for x in _chain(t, lambda lab: "ADVP" in lab):
            if (
                basic_category(x.label) == "ADVP"
                and any(i.label == "IN" and any("at" in c.label.lower() for c in i.kids) for i in x.kids)
                and _kid_label(x, ("NP",))
            ):
                out.append(x)
    return out


_NOTWITHSTANDING = frozenset({"notwithstanding"})


def _sep_or_cc(label: str) -> bool:
    """``/^,|CC|CONJP$/``: starts with a comma, contains CC, or ends with CONJP."""
    return label.startswith(",") or "CC" in label or label.endswith("CONJP")


def parataxis(t: Node) -> Targets:
    out: Targets = []
    lab = t.label
    kids = t.kids
    if lab == "VP":
        out += [k for k in kids if k.label == "PRN" and _kid_label(k, ("S", "SINV", "SBAR"))]
        if t.parent is not None:
            for s in t.parent.kids:
                if s is t or s.label != "PRN":
                    continue
                if _kid_label(s, ("S", "SINV", "SBAR")) or (
                    _kid_label(s, ("VP",)) and any(basic_category(c.label) == "NP" for c in s.kids)
                ):
                    out.append(s)
    if lab in ("S", "FRAG", "VP"):
        if not (kids and any(r.label in ("CC", "CONJP") for r in kids[1:])):
            for k in kids:
                if k.label == ":":
                    nxt = _next(k)
                    if nxt is not None and nxt.label.startswith("S"):
                        out.append(nxt)
    b = basic_category(lab)
    if b in ("S", "FRAG"):
        for k in kids:
            if basic_category(k.label) not in ("S", "SBARQ", "SQ", "FRAG"):
                continue
            right = _right(k)
            if any(basic_category(r.label) in ("CC", "CONJP", "MWE") for r in right):
                continue
            if any(":" in r.label and _kid_has_semicolon(r) for r in right):
                continue
            out += [x for x in right if basic_category(x.label) in ("S", "SBARQ", "SQ", "FRAG")]
    if b in ("S", "FRAG", "VP") and not any(basic_category(k.label) in ("CONJP", "CC") for k in kids):
        for k in kids:
            if k.label == ":" and any(x.label.startswith("V") for x in _left(k)):
                nxt = _next(k)
                if nxt is not None and basic_category(nxt.label) == "NP":
                    out.append(nxt)
    if lab in ("FRAG", "NP"):
        for np in kids:
            if np.label != "NP" or not any(d.label in ("NNP", "NNPS") for d in _descendants(np)):
                continue
            colon = _next(np)
            if colon is not None and ":" in colon.label:
                target = _next(colon)
                if target is not None and basic_category(target.label) in ("SQ", "S"):
                    out.append(target)
    return out


def _kid_has_semicolon(node: Node) -> bool:
    return any(";" in c.label for c in node.kids)


def goeswith(t: Node) -> Targets:
    return [k for k in t.kids if k.label == "GW"]


def list_(t: Node) -> Targets:
    out: Targets = []
    kids = t.kids
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
                    d = _next(c)
                    if d is not None and d.label == "NP":
                        out.append(d)
    return out


def prep(t: Node) -> Targets:
    return [k for k in t.kids if k.label == "PP" and len(k.kids) == 1 and k.kids[0].label in ("IN", "TO")]


# --- the table -----------------------------------------------------------------------------------------
#: (name, source test on the label (full match), relation function), in the converter's order.
RELATIONS: list[tuple[str, re.Pattern[str], Callable[[Node], Targets]]] = [
    ("aux", re.compile(r"VP|SQ|SINV|CONJP"), aux),
    ("auxpass", re.compile(r"VP|SQ|SINV"), auxpass),
    ("cop", re.compile(r"VP|SQ|SINV|SBARQ"), cop),
    (
        "conj",
        re.compile(
            r"VP|(?:WH)?NP(?:-TMP|-ADV)?|ADJP|PP|QP|ADVP|UCP(?:-TMP|-ADV)?|S|NX|SBAR|SBARQ|SINV|SQ|JJP|NML|RRC|PCONJP"
        ),
        conj,
    ),
    ("cc", re.compile(r".*"), cc),
    ("punct", re.compile(r".*"), punct),
    ("nsubj", re.compile(r"S|SQ|SBARQ|SINV|SBAR|PRN"), nsubj),
    ("nsubjpass", re.compile(r"S|SQ"), nsubjpass),
    ("csubj", re.compile(r"S"), csubj),
    ("csubjpass", re.compile(r"S"), csubjpass),
    ("dobj", re.compile(r"VP|SQ|SBARQ?"), dobj),
    ("iobj", re.compile(r"VP"), iobj),
    ("nmod", re.compile(r".*"), nmod),
    ("ccomp", re.compile(r"VP|SINV|S|ADJP|ADVP|NP(?:-.*)?"), ccomp),
    ("xcomp", re.compile(r"VP|ADJP|SINV"), xcomp),
    ("mark", re.compile(r"SBAR(?:-TMP)?|VP|PP(?:-TMP|-ADV)?"), mark),
    ("rel", re.compile(r"SBAR|SBARQ"), rel),
    ("expl", re.compile(r"S|SQ|SINV"), expl),
    ("advcl", re.compile(r"VP|S|SQ|SINV|SBARQ|NP|ADVP|ADJP"), advcl),
    ("nmod:tmod", re.compile(r"VP|S|ADJP|PP|SBAR|SBARQ|NP|RRC"), tmod),
    ("acl:relcl", re.compile(r"(?:WH)?(?:NP|NML|ADVP)(?:-.*)?"), relcl),
    ("nummod", re.compile(r"(?:WH)?NP(?:-TMP|-ADV)?|NML|NX|ADJP|WHADJP|QP"), nummod),
    ("amod", re.compile(r"NP(?:-TMP|-ADV)?|NX|NML|NAC|WHNP|ADJP|INTJ"), amod),
    ("compound", re.compile(r"(?:WH)?(?:NP|NX|NAC|NML|ADVP|ADJP|QP)(?:-TMP|-ADV)?"), compound),
    ("appos", re.compile(r"(?:WH)?NP(?:-TMP|-ADV)?|FRAG"), appos),
    ("acl", re.compile(r"WHNP|WHNP-TMP|WHNP-ADV|NP(?:-[A-Z]+)?|NML|NX"), acl),
    (
        "advmod",
        re.compile(
            r"VP|ADJP|WHADJP|ADVP|WHADVP|S|SBAR|SINV|SQ|SBARQ|XS|(?:WH)?(?:PP|NP)(?:-TMP|-ADV)?|RRC|CONJP|JJP|QP"
        ),
        advmod,
    ),
    ("neg", re.compile(r"VP|ADJP|S|SBAR|SINV|SQ|NP(?:-TMP|-ADV)?|FRAG|CONJP|PP|NAC|NML|NX|ADVP|WHADVP"), neg),
    ("mwe", re.compile(r"MWE"), mwe),
    ("det", re.compile(r"(?:WH)?NP(?:-TMP|-ADV)?|NAC|NML|NX|X|ADVP|ADJP"), det),
    ("det:predet", re.compile(r"(?:WH)?(?:NP|NX|NAC|NML)(?:-TMP|-ADV)?"), predet),
    ("cc:preconj", re.compile(r"S|VP|ADJP|PP|ADVP|UCP(?:-TMP|-ADV)?|NX|NML|SBAR|NP(?:-TMP|-ADV)?"), preconj),
    ("nmod:poss", re.compile(r"(?:WH)?(NP|ADJP|INTJ|PRN|NAC|NX|NML)(?:-.*)?"), poss),
    ("case", re.compile(r"(?:WH)?(?:PP.*|SBARQ|NP|NML|ADVP)(?:-TMP|-ADV)?"), case),
    ("compound:prt", re.compile(r"VP|ADJP"), prt),
    ("nmod:npmod", re.compile(r"VP|(?:WH)?(?:NP|ADJP|ADVP|PP|QP)(?:-TMP|-ADV)?"), npmod),
    ("parataxis", re.compile(r"S|VP|FRAG|NP"), parataxis),
    ("discourse", re.compile(r".*"), discourse),
    ("goeswith", re.compile(r".*"), goeswith),
    ("list", re.compile(r"FRAG"), list_),
    ("prep", re.compile(r"VP|ADJP"), prep),
]

_BY_LABEL: dict[str, tuple[tuple[str, Callable[[Node], Targets]], ...]] = {}


def relations_for(label: str) -> tuple[tuple[str, Callable[[Node], Targets]], ...]:
    """The relations whose source test admits ``label``, in order."""
    found = _BY_LABEL.get(label)
    if found is None:
        found = tuple((name, fn) for name, source, fn in RELATIONS if source.fullmatch(label))
        _BY_LABEL[label] = found
    return found


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
