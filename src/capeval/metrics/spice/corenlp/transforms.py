"""Tree restructuring before head finding (CoreNLP 3.6.0's coordination transformer, UD mode).

The converter does not read the parser's tree as it is: labels are reduced to their basic
category (``NP-TMP`` and ``NP-ADV`` excepted), fixed expressions become ``MWE`` nodes,
coordinated prepositions a ``PCONJP``, ``UCP`` is renamed after its first conjunct, flat NPs
with a conjunction get inner structure, ``QP`` is regrouped, a unary ``X`` over ``X`` is removed,
and adverbs after a conjunction are moved into the following conjunct. :func:`transform` runs
these steps in that order; each step rewrites the first place (in pre-order) where it applies
and starts again from the root until nothing is left to rewrite.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .nodes import Node, basic_category

__all__ = ["transform", "COPULAR", "PASSIVE_AUX"]

#: Forms of "be" the converter treats as copulas (compared case-insensitively).
COPULAR = frozenset("be being been am are r is ai was were 'm m 're 's s `s art ar wase".split())
#: Copulas plus forms of "get": the passive auxiliaries.
PASSIVE_AUX = COPULAR | frozenset("get getting gets got gotten".split())

_TMP = re.compile(r"(NP|UCP).*-TMP.*")
_ADV = re.compile(r"(NP|UCP).*-ADV.*")

Match = tuple[Node, ...]


def _clean_label(label: str) -> str:
    tmp = _TMP.fullmatch(label) is not None
    adv = _ADV.fullmatch(label) is not None
    label = basic_category(label)
    if tmp:
        return label + "-TMP"
    if adv:
        return label + "-ADV"
    return label


def _word(node: Node) -> str | None:
    """The word of a preterminal, else None."""
    kids = node.kids
    if len(kids) == 1 and kids[0].word is not None:
        return kids[0].word
    return None


def _has_word(node: Node, words: frozenset[str] | set[str], ignore_case: bool = True) -> bool:
    """``node`` has a leaf child with one of ``words`` (words given in lower case if ignoring case)."""
    for kid in node.kids:
        if kid.word is not None:
            w = kid.word.lower() if ignore_case else kid.word
            if w in words:
                return True
    return False


class _Rewrites:
    """How many rewrites the steps have made (a step that made none left the tree as it was)."""

    count = 0


def _rewrite_all(root: Node, find: Callable[[Node], Match | None], apply: Callable[[Match], Node | None]) -> Node:
    """Rewrite the first match in pre-order, then search again from the root, until none is left."""
    while True:
        for node in root.preorder():
            match = find(node)
            if match is not None:
                break
        else:
            return root
        _Rewrites.count += 1
        new_root = apply(match)
        if new_root is not None:
            root = new_root


# --- tree surgery -------------------------------------------------------------------------
def _wrap(label: str, first: Node, last: Node) -> Node:
    """Put the sisters ``first`` .. ``last`` (inclusive) under a new node labelled ``label``."""
    parent = first.parent
    assert parent is not None and last.parent is parent
    kids = parent.kids
    i = next(k for k, n in enumerate(kids) if n is first)
    j = next(k for k, n in enumerate(kids) if n is last)
    if j < i:
        i, j = j, i
    new = Node(label, kids[i : j + 1])
    parent.kids = kids[:i] + [new] + kids[j + 1 :]
    new.parent = parent
    return new


def _move_after(node: Node, anchor: Node) -> None:
    """Detach ``node`` and put it right after ``anchor``."""
    assert node.parent is not None
    node.parent.remove(node)
    parent = anchor.parent
    assert parent is not None
    parent.insert(anchor.position() + 1, node)


def _move_first(node: Node, into: Node) -> None:
    """Detach ``node`` and make it the first child of ``into``."""
    assert node.parent is not None
    node.parent.remove(node)
    into.insert(0, node)


def _excise(node: Node) -> None:
    """Replace ``node`` by its children."""
    parent = node.parent
    assert parent is not None
    i = parent.remove(node)
    for k, kid in enumerate(node.kids):
        parent.insert(i + k, kid)


# --- 1. labels ------------------------------------------------------------------------------
def _clean_labels(root: Node) -> None:
    if root.label == "TOP":
        root.label = "ROOT"
    stack = [root]
    while stack:
        node = stack.pop()
        if node.word is None:
            node.label = _clean_label(node.label)
            stack.extend(node.kids)
    # empty elements (never produced by the parser, but cheap to honour)
    for node in root.preorder():
        if node.word is None and node.label == "-NONE-" and node.parent is not None:
            parent: Node | None = node.parent
            child = node
            while parent is not None:
                parent.remove(child)
                if parent.kids or parent.parent is None:
                    break
                child, parent = parent, parent.parent


# --- 2. multi-word expressions ----------------------------------------------------------------
_CI = 1  # word compared case-insensitively
_CS = 0  # word compared exactly


def _pre(node: Node, tags: tuple[str, ...], words: frozenset[str], ci: int = _CI) -> bool:
    """``node`` is labelled one of ``tags`` and has a leaf child among ``words``."""
    return node.label in tags and _has_word(node, words, bool(ci))


def _adjacent(
    parent_cats: frozenset[str],
    first: tuple[tuple[str, ...], frozenset[str], int],
    second: tuple[tuple[str, ...], frozenset[str], int],
    third: tuple[tuple[str, ...], frozenset[str], int] | None = None,
) -> Callable[[Node], Match | None]:
    """A matcher for ``parent < (n1 $+ (n2 [$+ n3]))``: adjacent children with given tags and words."""

    def find(node: Node) -> Match | None:
        if node.word is not None or basic_category(node.label) not in parent_cats:
            return None
        kids = node.kids
        for i in range(len(kids) - 1):
            if not _pre(kids[i], *first):
                continue
            if not _pre(kids[i + 1], *second):
                continue
            if third is None:
                return (kids[i], kids[i + 1])
            if i + 2 < len(kids) and _pre(kids[i + 2], *third):
                return (kids[i], kids[i + 1], kids[i + 2])
        return None

    return find


def _w(*words: str) -> frozenset[str]:
    return frozenset(words)


def _find_as_well_as(node: Node) -> Match | None:
    if node.word is not None or basic_category(node.label) != "CONJP" or len(node.kids) < 2:
        return None
    k = node.kids
    if _pre(k[0], ("RB",), _w("as")) and _pre(k[1], ("RB",), _w("well")) and _pre(k[-1], ("IN",), _w("as")):
        return (k[0], k[1], k[-1])
    return None


def _find_as_well(node: Node) -> Match | None:
    if node.word is not None or basic_category(node.label) not in ("ADVP", "CONJP") or not node.kids:
        return None
    k = node.kids
    if _pre(k[0], ("RB",), _w("as")) and _pre(k[-1], ("IN", "RB"), _w("well")):
        return (k[0], k[-1])
    return None


def _is_word_phrase(node: Node, tags: tuple[str, ...], word: str, inner: tuple[str, ...]) -> bool:
    """``node`` labelled one of ``tags`` that has the (case-insensitive) word ``word`` as a leaf
    child, or whose only child is labelled one of ``inner`` with that word."""
    if node.label not in tags:
        return False
    if _has_word(node, _w(word)):
        return True
    return len(node.kids) == 1 and node.kids[0].label in inner and _has_word(node.kids[0], _w(word))


def _find_in_order(node: Node) -> Match | None:
    if node.word is not None or basic_category(node.label) not in ("SBAR", "PP"):
        return None
    k = node.kids
    for i in range(len(k) - 1):
        if _pre(k[i], ("IN", "RB"), _w("in")) and _is_word_phrase(k[i + 1], ("NN", "NP", "RB"), "order", ("NN",)):
            return (k[i], k[i + 1])
    return None


def _find_in_between(node: Node) -> Match | None:
    if node.word is not None or basic_category(node.label) not in ("ADVP", "PP"):
        return None
    k = node.kids
    for i in range(len(k) - 1):
        if _pre(k[i], ("IN", "RB"), _w("in")) and _is_word_phrase(
            k[i + 1], ("IN", "NP", "PP", "RB", "ADVP"), "between", ("IN", "RB")
        ):
            return (k[i], k[i + 1])
    return None


def _find_had_better(node: Node) -> Match | None:
    if node.word is not None or basic_category(node.label) != "VP":
        return None
    k = node.kids
    for i in range(len(k) - 1):
        nxt = k[i + 1]
        if (
            _pre(k[i], ("VBD",), _w("had", "'d"), _CS)
            and basic_category(nxt.label) in ("PRT", "ADVP")
            and len(nxt.kids) == 1
            and _pre(nxt.kids[0], ("RBR",), _w("better"))
        ):
            return (k[i], nxt)
    return None


def _find_at_least(node: Node) -> Match | None:
    if node.word is not None or basic_category(node.label) not in ("S", "SQ", "VP", "ADVP", "PP"):
        return None
    k = node.kids
    for j, advp in enumerate(k):
        if advp.word is not None or basic_category(advp.label) != "ADVP":
            continue
        if j + 1 < len(k):
            nxt = k[j + 1]
            if nxt.label == "RB" and any(
                c.word is not None and ("once" in c.word.lower() or "twice" in c.word.lower()) for c in nxt.kids
            ):
                continue
        a = advp.kids
        for i in range(len(a) - 1):
            if _pre(a[i], ("IN", "RB"), _w("at")) and _pre(a[i + 1], ("JJS", "RBS"), _w("least")):
                return (a[i], a[i + 1])
    return None


_MWE_FINDERS: list[tuple[frozenset[str], Callable[[Node], Match | None]]] = [
    (_w("as"), _find_as_well_as),
    (_w("as"), _find_as_well),
    (_w("such"), _adjacent(_w("PP"), (("JJ",), _w("such"), _CI), (("IN",), _w("as"), _CI))),
    (_w("due"), _adjacent(_w("PP"), (("JJ", "IN"), _w("due"), _CI), (("IN", "TO"), _w("to"), _CI))),
    (
        _w("because", "instead"),
        _adjacent(_w("PP", "CONJP"), (("IN", "RB"), _w("because", "instead"), _CI), (("IN",), _w("of"), _CS)),
    ),
    (_w("in"), _adjacent(_w("ADVP", "SBAR"), (("IN", "RB"), _w("in"), _CI), (("NN",), _w("case"), _CI))),
    (_w("of"), _adjacent(_w("ADVP", "PP"), (("IN", "RB"), _w("of"), _CI), (("NN", "RB"), _w("course"), _CI))),
    (_w("in"), _find_in_order),
    (
        _w("rather"),
        _adjacent(_w("PP", "CONJP", "SBAR"), (("IN", "RB"), _w("rather"), _CI), (("IN",), _w("than"), _CI)),
    ),
    (
        _w("not"),
        _adjacent(
            _w("CONJP"),
            (("IN", "RB"), _w("not"), _CI),
            (("TO",), _w("to"), _CI),
            (("VB", "RB"), _w("mention"), _CI),
        ),
    ),
    (_w("so"), _adjacent(_w("PP", "SBAR"), (("JJ", "IN", "RB"), _w("so"), _CI), (("IN", "TO"), _w("that"), _CI))),
    (_w("as"), _adjacent(_w("SBAR"), (("IN", "RB"), _w("as"), _CI), (("IN",), _w("if"), _CI))),
    (_w("prior"), _adjacent(_w("PP"), (("JJ", "RB"), _w("prior"), _CI), (("TO", "IN"), _w("to"), _CI))),
    (_w("as"), _adjacent(_w("PP"), (("IN",), _w("as"), _CI), (("TO", "IN"), _w("to"), _CI))),
    (_w("kind"), _adjacent(_w("ADVP"), (("RB", "NN"), _w("kind"), _CI), (("IN", "RB"), _w("of"), _CI))),
    (
        _w("whether"),
        _adjacent(_w("SBAR"), (("IN", "RB"), _w("whether"), _CI), (("CC",), _w("or"), _CI), (("RB",), _w("not"), _CI)),
    ),
    (
        _w("opposed"),
        _adjacent(_w("CONJP"), (("IN",), _w("as"), _CI), (("VBN",), _w("opposed"), _CI), (("TO", "IN"), _w("to"), _CI)),
    ),
    (
        _w("let"),
        _adjacent(_w("ADVP", "CONJP"), (("VB", "RB", "VBD"), _w("let"), _CI), (("RB", "JJ"), _w("alone"), _CI)),
    ),
    (_w("in"), _find_in_between),
    (
        _w("all"),
        _adjacent(_w("ADVP", "QP", "ADJP"), (("DT", "RB"), _w("all"), _CI), (("CC", "RB", "IN"), _w("but"), _CI)),
    ),
    (
        _w("that"),
        _adjacent(_w("ADVP", "INTJ"), (("NN", "DT", "RB"), _w("that"), _CI), (("VBZ", "RB"), _w("is"), _CI)),
    ),
    (_w("how"), _adjacent(_w("WHADVP"), (("WRB",), _w("how"), _CI), (("VB",), _w("come"), _CI))),
    (_w("had", "'d"), _find_had_better),
    (
        _w("more", "less"),
        _adjacent(_w("QP", "XS"), (("JJR", "RBR", "IN"), _w("more", "less"), _CI), (("IN",), _w("than"), _CI)),
    ),
    (_w("up"), _adjacent(_w("QP"), (("JJR", "RBR", "IN"), _w("up"), _CI), (("IN", "TO"), _w("to"), _CI))),
    (_w("at"), _find_at_least),
]


def _make_mwe(match: Match) -> Node | None:
    first, second = match[0], match[1]
    _wrap("MWE", first, second)
    if len(match) == 3:
        _move_after(match[2], second)
    return None


def _find_according_to(node: Node) -> Match | None:
    if node.label != "PP":
        return None
    k = node.kids
    for i in range(len(k) - 1):
        if _pre(k[i], ("VBG",), _w("according")) and k[i + 1].label == "PP":
            for to in k[i + 1].kids:
                if _pre(to, ("TO", "IN"), _w("to"), _CS):
                    return (k[i], k[i + 1], to)
    return None


def _make_according_to(match: Match) -> Node | None:
    according, pp2, to = match
    mwe = _wrap("MWE", according, according)
    _move_after(to, according)
    _ = mwe
    _excise(pp2)
    return None


def _find_but_also(node: Node) -> Match | None:
    if node.label != "CONJP" or node.parent is None:
        return None
    cc = next((k for k in node.kids if _pre(k, ("CC",), _w("but"), _CS)), None)
    rb = next((k for k in node.kids if _pre(k, ("RB",), _w("also"), _CS)), None)
    if cc is None or rb is None:
        return None
    sisters = node.parent.kids
    i = node.position()
    nxt = sisters[i + 1] if i + 1 < len(sisters) else None
    if nxt is not None and not any(k.kids for k in nxt.kids):
        nxt = None
    return (node, cc, rb) if nxt is None else (node, cc, rb, nxt)


def _make_but_also(match: Match) -> Node | None:
    conjp, cc, rb = match[0], match[1], match[2]
    _move_after(cc, conjp)
    _move_after(rb, cc)
    if len(match) == 4:
        _move_first(rb, match[3])
    _wrap("ADVP", rb, rb)
    assert conjp.parent is not None
    conjp.parent.remove(conjp)
    return None


def _find_at_rbs(node: Node) -> Match | None:
    if node.word is not None or basic_category(node.label) not in ("ADVP", "QP"):
        return None
    k = node.kids
    for i in range(len(k) - 1):
        if _pre(k[i], ("IN", "RB"), _w("at")) and k[i + 1].label in ("JJS", "RBS"):
            return (k[i], k[i + 1])
    return None


def _make_at_rbs(match: Match) -> Node | None:
    at, sup = match
    at.label = "IN"
    _wrap("ADVP", at, at)
    _move_after(sup, at)
    _wrap("NP", sup, sup)
    return None


def _find_at_all(node: Node) -> Match | None:
    if node.word is not None or basic_category(node.label) != "ADVP":
        return None
    k = node.kids
    for i in range(len(k) - 1):
        if _pre(k[i], ("RB", "IN"), _w("at")) and _pre(k[i + 1], ("RB", "DT"), _w("all")):
            return (node, k[i], k[i + 1])
    return None


def _make_at_all(match: Match) -> Node | None:
    head, at, all_ = match
    head.label = "PP"
    at.label = "IN"
    _wrap("NP", all_, all_)
    return None


def _multiword(root: Node, words: set[str]) -> Node:
    for triggers, find in _MWE_FINDERS:
        if triggers & words:
            root = _rewrite_all(root, find, _make_mwe)
    if "according" in words:
        root = _rewrite_all(root, _find_according_to, _make_according_to)
    if "but" in words and "also" in words:
        root = _rewrite_all(root, _find_but_also, _make_but_also)
    if "at" in words:
        root = _rewrite_all(root, _find_at_rbs, _make_at_rbs)
        root = _rewrite_all(root, _find_at_all, _make_at_all)
    return root


# --- 3. coordinated prepositions ------------------------------------------------------------------
def _find_prep_cc(node: Node) -> Match | None:
    if node.label != "PP" or len(node.kids) < 3:
        return None
    k = node.kids
    if k[0].label in ("IN", "TO") and k[1].label == "CC" and k[2].label in ("IN", "TO"):
        return (k[0], k[1], k[2])
    return None


def _make_pconjp(match: Match) -> Node | None:
    p1, cc, p2 = match
    _wrap("PCONJP", p1, cc)
    _move_after(p2, cc)
    return None


# --- 4. UCP ------------------------------------------------------------------------------------
def _find_ucp(node: Node) -> Match | None:
    if not node.label.startswith("UCP") or not node.kids:
        return None
    k = node.kids

    def adj_like(n: Node) -> bool:
        return n.label.startswith("JJ") or n.label.startswith("ADJP")

    if adj_like(k[0]) or (len(k) > 1 and k[0].label == "DT" and adj_like(k[1])):
        return (node, k[0])  # -> ADJP
    last = k[-1]
    if last.label == "ADJP" and any(c.label == "JJR" and _has_word(c, _w("younger", "older")) for c in last.kids):
        return (node, k[0])
    if k[0].label.startswith("N") or (len(k) > 1 and k[0].label == "DT" and k[1].label.startswith("N")):
        return (node, k[0], k[0])  # -> NP
    if k[0].label.startswith("ADVP"):
        return (node, k[0], k[0], k[0])  # -> ADVP
    return None


def _rename_ucp(match: Match) -> Node | None:
    node = match[0]
    rest = node.label[3:]
    node.label = ("ADJP" + rest, "NP" + rest, "ADVP")[len(match) - 2]
    return None


# --- 5. flat NPs with a conjunction ------------------------------------------------------------------
def _head_tag(node: Node) -> str:
    if node.label.startswith("JJ"):
        return "ADJP"
    return "NP"


def _find_cc_np(root: Node) -> tuple[Node, int] | None:
    for node in root.preorder():
        if not node.is_preterminal() or not node.label.startswith("CC"):
            continue
        parent = node.parent
        if parent is None or not parent.label.startswith("NP"):
            continue
        kids = parent.kids
        i = next(j for j, k in enumerate(kids) if k is node)
        if len(kids) <= i + 2 or i == 0:
            continue
        if any(k.label.startswith("NP") for k in kids[i:]):
            continue
        if i != len(kids) - 1 and kids[i + 1].label.startswith("CC"):
            continue
        return parent, i
    return None


def _restructure_cc(t: Node, cc_index: int) -> None:
    sib = list(t.kids)
    n = len(sib)
    later_ccs = [i for i in range(cc_index + 1, n) if sib[i].label.startswith("CC") and i < n - 1]
    before = sib[cc_index - 1].label
    kids = list(t.kids)

    if (
        cc_index == 1
        and (before in ("DT", "JJ", "RB") or sib[cc_index + 1].label != "DT")
        and not (before.startswith("NP") or before in ("ADJP", "NNS"))
    ):
        # a CC b c ... -> (a CC b) c ...
        left = Node(_head_tag(sib[cc_index - 1]), sib[: cc_index + 2])
        kids = kids[cc_index + 2 :]
        if later_ccs:
            comma = False
            index = later_ccs[0]
            if sib[index - 1].label == ",":
                index -= 1
                comma = True
            head = _head_tag(sib[index - 1])
            if cc_index + 2 < index:
                tree = Node(head, [left] + sib[cc_index + 2 : index])
                kids = kids[index - (cc_index + 2) :]
                kids.insert(0, tree)
            else:
                kids.insert(0, left)
            start = 3 if comma else 2
            right = Node("NP", kids[start:])
            kids = kids[:start] + [right]
        else:
            kids.insert(0, left)
        t.set_kids(kids)
        return

    if (
        cc_index == 2
        and sib[0].label.startswith("DT")
        and sib[cc_index - 1].label != "NNS"
        and (n == 5 or (later_ccs and later_ccs[0] == 5))
    ):
        # DT a CC b c -> DT (a CC b) c
        child = Node(_head_tag(sib[cc_index - 1]), sib[1 : cc_index + 2])
        t.set_kids([sib[0], child] + sib[cc_index + 2 :])
        return

    if cc_index > 2 and sib[cc_index - 2].label == "," and sib[cc_index - 1].label != "NNS":
        # ... a , b CC c ... -> ... (a , b CC c) ...
        members = sib[cc_index - 3 : cc_index + 2]
        i = cc_index - 4
        while i > 0 and sib[i].label == ",":
            members = [sib[i - 1], sib[i]] + members
            i -= 2
        if i < 0:
            i = -1
        child = Node(_head_tag(sib[cc_index - 1]), members)
        t.set_kids(sib[: i + 1] + [child] + sib[cc_index + 2 :])
        return

    # the new phone book and tour guide -> (NP the new phone book) (CC and) (NP tour guide)
    conj_t = Node("CC")
    preconj = False
    begin = 0
    first = sib[0]
    lead = first.kids[0] if first.kids else None
    if lead is not None and lead.label.lower() in ("either", "neither", "both"):
        preconj = True
        begin = 1
        first.kids.remove(lead)
        conj_t.append(lead)
    left = Node(_head_tag(sib[cc_index - 1]))
    left_kids = sib[begin : cc_index - 1]
    comma_left = sib[cc_index - 1].label == ","
    if not comma_left:
        left_kids = left_kids + [sib[cc_index - 1]]
    cc = sib[cc_index]
    next_cc = later_ccs[0] if later_ccs else n
    right = Node(_head_tag(sib[next_cc - 1]))
    right_kids = sib[cc_index + 1 : next_cc - 1]
    comma_right = sib[next_cc - 1].label == ","
    if not comma_right:
        right_kids = right_kids + [sib[next_cc - 1]]
    rest = sib[next_cc:]
    group: list[Node] = []
    if preconj:
        group.append(conj_t)
    if left_kids:
        left.set_kids(left_kids)
        group.append(left)
    if comma_left:
        group.append(sib[cc_index - 1])
    group.append(cc)
    if right_kids:
        right.set_kids(right_kids)
        group.append(right)
    if later_ccs:
        tree = Node("NP", group)
        front = [tree] + ([sib[next_cc - 1]] if comma_right else [])
        t.set_kids(front + rest)
    else:
        if comma_right:
            group.append(sib[next_cc - 1])
        t.set_kids(group + rest)


def _flat_np_coordination(root: Node) -> None:
    while True:
        found = _find_cc_np(root)
        if found is None:
            return
        _restructure_cc(*found)


# --- 6. QP -----------------------------------------------------------------------------------------
def _find_np_qp_qp(node: Node) -> Match | None:
    if node.label != "NP":
        return None
    k = node.kids
    for i in range(len(k) - 1):
        if k[i].label == "QP" and k[i + 1].label == "QP" and any(c.label == "CC" for c in k[i + 1].kids):
            return (k[i], k[i + 1])
    return None


def _merge_qps(match: Match) -> Node | None:
    left, right = match
    _wrap("QP", left, right)
    _excise(left)
    _excise(right)
    return None


def _money_or_cc(label: str) -> bool:
    return label.startswith("$") or label.endswith("CC")


def _find_qp_cc(node: Node) -> Match | None:
    if node.label != "QP" or not node.kids:
        return None
    k = node.kids
    if any(any(g.kids for g in c.kids) for c in k):
        return None
    for i in range(1, len(k) - 1):
        if k[i].label != "CC":
            continue
        return (k[0], k[i - 1], k[i], k[i + 1], k[-1])
    return None


def _split_qp(match: Match) -> Node | None:
    """``QP`` halves when the other side has a ``$`` or a conjunction, else ``NP``."""
    l1, r1, cc, l2, r2 = match
    sisters = cc.parent.kids if cc.parent is not None else []
    i = next(j for j, n in enumerate(sisters) if n is cc)
    left_num = any(_money_or_cc(n.label) for n in sisters[:i])
    right_num = any(_money_or_cc(n.label) for n in sisters[i + 1 :])
    _wrap("QP" if left_num else "NP", l1, r1)
    _wrap("QP" if right_num else "NP", l2, r2)
    return None


def _find_money(node: Node) -> Match | None:
    if node.label != "QP" or len(node.kids) < 2:
        return None
    k = node.kids
    for i in range(len(k) - 1):
        if k[i].label != "$":
            continue
        right = k[i + 1 :]
        if any(not (r.label.startswith("$") or r.label.startswith("CD")) for r in right):
            continue
        if any(any(g.kids for g in r.kids) for r in right):
            continue
        return (k[i + 1], k[-1])
    return None


def _group_money(match: Match) -> Node | None:
    _wrap("QP", match[0], match[1])
    return None


# --- 7. copular WH-questions -------------------------------------------------------------------------
def _find_sq_flatten(node: Node) -> Match | None:
    if node.label != "SBARQ":
        return None
    k = node.kids
    for i in range(len(k) - 1):
        what, sq = k[i], k[i + 1]
        if what.label != "WHNP" or not any(c.label == "WP" for c in what.kids) or sq.label != "SQ":
            continue
        s = sq.kids

        def copular_kid(c: Node) -> bool:
            return any(g.label.lower() in COPULAR for g in c.kids)

        def other_kid(c: Node) -> bool:
            return any(g.label.lower() not in COPULAR for g in c.kids)

        if any(c.label.startswith("VB") and other_kid(c) for c in s):
            continue
        if any(c.label.startswith("V") and any(g.label.startswith("VB") for g in c.kids) and other_kid(c) for c in s):
            continue
        if s[0].label.startswith("VB") and copular_kid(s[0]) and len(s) > 1:
            after = s[1]
            if after.label == "NP" and any(c.label == "EX" and _has_word(c, _w("there"), False) for c in after.kids):
                continue
        if any(
            c.label == "ADJP"
            and any(p.label == "PP" and len(p.kids) == 1 and p.kids[0].label in ("IN", "TO") for p in c.kids)
            for c in s
        ):
            continue
        for j, verb in enumerate(s):
            if not (verb.label.startswith("VB") and copular_kid(verb)):
                continue
            if j + 1 < len(s) and s[j + 1].label == "PP":
                continue
            return (sq,)
    return None


def _flatten_sq(match: Match) -> Node | None:
    _excise(match[0])
    return None


# --- 8. dates --------------------------------------------------------------------------------------
_MONTH = re.compile(
    r"January|February|March|April|May|June|July|August|September|October|November|December|"
    r"Jan\.|Feb\.|Mar\.|Apr\.|Aug\.|Sep\.|Sept\.|Oct\.|Nov\.|Dec\."
)


def _only(node: Node, label: str) -> Node | None:
    if len(node.kids) == 1 and node.kids[0].label == label:
        return node.kids[0]
    return None


def _month_np(node: Node) -> Node | None:
    """``NP <: (NNP <: month)``: the NNP."""
    nnp = _only(node, "NNP") if node.label == "NP" else None
    if nnp is not None and len(nnp.kids) == 1 and _MONTH.search(nnp.kids[0].label):
        return nnp
    return None


def _dates(root: Node) -> None:
    def month_year(node: Node) -> Match | None:
        if node.label != "NP" or len(node.kids) < 2:
            return None
        month = _month_np(node.kids[0])
        year_np = node.kids[1]
        if month is None or year_np.label != "NP" or node.kids[-1] is not year_np:
            return None
        year = _only(year_np, "CD")
        if year is None or len(year.kids) != 1:
            return None
        return (node, month, year)

    def month_day_year(node: Node) -> Match | None:
        if node.label != "NP" or len(node.kids) < 3:
            return None
        md, comma, year_np = node.kids[0], node.kids[1], node.kids[2]
        if md.label != "NP" or len(md.kids) < 2 or node.kids[-1] is not year_np:
            return None
        month, day = md.kids[0], md.kids[1]
        if month.label != "NNP" or len(month.kids) != 1 or not _MONTH.search(month.kids[0].label):
            return None
        if day.label != "CD" or len(day.kids) != 1 or md.kids[-1] is not day:
            return None
        if comma.label != "," or len(comma.kids) != 1 or comma.kids[0].label != ",":
            return None
        year = _only(year_np, "CD") if year_np.label == "NP" else None
        if year is None or len(year.kids) != 1:
            return None
        return (node, month, day, comma, year)

    def regroup(match: Match) -> Node | None:
        match[0].set_kids(list(match[1:]))
        return None

    _rewrite_all(root, month_year, regroup)
    _rewrite_all(root, month_day_year, regroup)


# --- 9. X over X ------------------------------------------------------------------------------------
def _find_x_over_x(node: Node) -> Match | None:
    if len(node.kids) == 1:
        kid = node.kids[0]
        if kid.word is None and kid.label == node.label and kid.kids:
            return (node,)
    return None


def _remove_x_over_x(match: Match) -> Node | None:
    node = match[0]
    if node.parent is None:
        new_root = node.kids[0]
        new_root.parent = None
        return new_root
    _excise(node)
    return None


# --- 10. "and yet", "and so" ------------------------------------------------------------------------
def _s_pp_vp(label: str) -> bool:
    return label.startswith(("PP", "VP")) or (label.startswith("S") and not label.startswith("SYM"))


def _find_flat_conjp(node: Node) -> Match | None:
    if not node.label.startswith(("S", "PP", "VP")):
        return None
    k = node.kids
    for j, x in enumerate(k):
        if not _s_pp_vp(x.label):
            continue
        for i in range(j + 1, len(k) - 2):
            cc, adv, after = k[i], k[i + 1], k[i + 2]
            if cc.label != "CC" or adv.label not in ("RB", "ADVP") or not _s_pp_vp(after.label):
                continue
            if not _has_word(cc, _w("and"), False):
                continue
            if adv.label == "RB" and _has_word(adv, _w("yet", "so"), False):
                return (cc, adv)
            if adv.label == "ADVP" and any(c.label in ("RB", "IN") and _has_word(c, _w("so"), False) for c in adv.kids):
                return (cc, adv)
    return None


def _make_conjp(match: Match) -> Node | None:
    _wrap("CONJP", match[0], match[1])
    return None


# --- 11. adverbs after a conjunction ------------------------------------------------------------------
def _adv_after_separator(sep: Node, sisters: list[Node], i: int) -> Node | None:
    """The RB not/then or ADVP(RB) right after the separator at ``i``."""
    if i + 1 >= len(sisters):
        return None
    adv = sisters[i + 1]
    if adv.label == "RB" and _has_word(adv, _w("not", "then"), False):
        return adv
    if adv.label == "ADVP" and len(adv.kids) == 1 and adv.kids[0].label == "RB":
        return adv
    return None


def _find_move_rb(
    parent_ok: Callable[[str], bool], conjunct_ok: Callable[[str], bool], dest_ok: Callable[[str], bool]
) -> Callable[[Node], Match | None]:
    def find(node: Node) -> Match | None:
        if node.word is not None or not parent_ok(node.label):
            return None
        k = node.kids
        for j, x in enumerate(k):
            if not conjunct_ok(x.label):
                continue
            for i in range(j + 1, len(k)):
                if k[i].label not in (",", "CC", "CONJP"):
                    continue
                adv = _adv_after_separator(k[i], k, i)
                if adv is None or i + 2 >= len(k):
                    continue
                dest = k[i + 2]
                if dest_ok(dest.label):
                    return (adv, dest)
        return None

    return find


def _move_rb(match: Match) -> Node | None:
    _move_first(match[0], match[1])
    return None


def _find_frag_rb(node: Node) -> Match | None:
    if not node.label.startswith("FRAG"):
        return None
    k = node.kids
    for i in range(len(k) - 1):
        if k[i].label in ("ADVP", "RB") and k[i + 1].label == "VP":
            return (k[i], k[i + 1])
    return None


_MOVE_RB = (
    _find_move_rb(
        lambda lab: lab.startswith(("S", "PP", "VP", "NP")),
        lambda lab: lab.startswith(("S", "PP", "VP", "NP")),
        lambda lab: lab.startswith(("PP", "VP", "NP")) or (lab.startswith("S") and not lab.startswith("SYM")),
    ),
    _find_move_rb(
        lambda lab: lab.startswith("ADVP"),
        lambda lab: lab.startswith("ADVP"),
        lambda lab: lab.startswith(("NP-ADV", "ADVP", "PP")),
    ),
    _find_frag_rb,
)


# --- 12, 13. SBAR as PP, "now that" ----------------------------------------------------------------------
def _find_sbar_pp(node: Node) -> Match | None:
    if node.label != "NP":
        return None
    k = node.kids
    for j, np in enumerate(k):
        if np.label != "NP":
            continue
        for sbar in k[j + 1 :]:
            if sbar.label != "SBAR":
                continue
            s = sbar.kids
            for i, c in enumerate(s):
                if (
                    c.label == "IN"
                    and _has_word(c, _w("after", "before", "until", "since", "during"))
                    and any(x.label == "S" for x in s[i + 1 :])
                ):
                    return (sbar,)
    return None


def _relabel_pp(match: Match) -> Node | None:
    match[0].label = "PP"
    return None


def _find_now_that(node: Node) -> Match | None:
    if node.label != "ADVP" or len(node.kids) < 2:
        return None
    rb, sbar = node.kids[0], node.kids[1]
    if rb.label == "RB" and _has_word(rb, _w("now")) and sbar.label == "SBAR" and sbar.kids:
        first = sbar.kids[0]
        if first.label == "IN" and _has_word(first, _w("that")):
            return (node, sbar)
    return None


def _now_that(match: Match) -> Node | None:
    advp, sbar = match
    advp.label = "SBAR"
    _excise(sbar)
    return None


# --- the whole transformation -------------------------------------------------------------------------
class _Inventory:
    """The labels and (lower-cased) words of a tree, to skip steps that cannot apply."""

    __slots__ = ("labels", "words", "unary_repeat")

    def __init__(self, root: Node) -> None:
        self.labels: set[str] = set()
        self.words: set[str] = set()
        self.unary_repeat = False
        self.update(root)

    def update(self, root: Node) -> None:
        labels = self.labels
        labels.clear()
        for node in root.preorder():
            if node.word is not None:
                self.words.add(node.word.lower())
                continue
            labels.add(node.label)
            kids = node.kids
            if len(kids) == 1 and kids[0].word is None and kids[0].label == node.label and kids[0].kids:
                self.unary_repeat = True

    def has(self, *labels: str) -> bool:
        return any(label in self.labels for label in labels)

    def has_prefix(self, prefix: str) -> bool:
        return any(label.startswith(prefix) for label in self.labels)


def transform(root: Node) -> Node:
    """Apply the transformer's steps in order; the (possibly new) root.

    Each step is skipped when the tree lacks a label or word it needs (a skipped step would
    find nothing to rewrite); the inventory of labels is refreshed after a step that rewrote.
    """
    _clean_labels(root)
    inv = _Inventory(root)
    words = inv.words

    def step(root: Node, find: Callable[[Node], Match | None], apply: Callable[[Match], Node | None]) -> Node:
        before = _Rewrites.count
        root = _rewrite_all(root, find, apply)
        if _Rewrites.count != before:
            inv.update(root)
        return root

    if any(triggers & words for triggers, _ in _MWE_FINDERS) or words & {"according", "at", "but"}:
        root = _multiword(root, words)
        inv.update(root)
    if inv.has("PP") and inv.has("CC"):
        root = step(root, _find_prep_cc, _make_pconjp)
    if inv.has_prefix("UCP"):
        root = step(root, _find_ucp, _rename_ucp)
    if inv.has_prefix("CC") and inv.has_prefix("NP"):
        _flat_np_coordination(root)
        inv.update(root)
    if inv.has("QP"):
        root = step(root, _find_np_qp_qp, _merge_qps)
        root = step(root, _find_qp_cc, _split_qp)
        root = step(root, _find_money, _group_money)
    if inv.has("SBARQ"):
        root = step(root, _find_sq_flatten, _flatten_sq)
    if inv.has("NNP") and inv.has("CD"):
        _dates(root)
        inv.update(root)
    if inv.unary_repeat:
        root = step(root, _find_x_over_x, _remove_x_over_x)
    if inv.has("CC") and "and" in words:
        root = step(root, _find_flat_conjp, _make_conjp)
    if inv.has(",", "CC", "CONJP") and inv.has("RB", "ADVP"):
        root = step(root, _MOVE_RB[0], _move_rb)
        root = step(root, _MOVE_RB[1], _move_rb)
    if inv.has_prefix("FRAG") and inv.has("RB", "ADVP"):
        root = step(root, _MOVE_RB[2], _move_rb)
    if inv.has("SBAR") and inv.has("NP"):
        root = step(root, _find_sbar_pp, _relabel_pp)
    if "now" in words:
        root = step(root, _find_now_that, _now_that)
    return root
