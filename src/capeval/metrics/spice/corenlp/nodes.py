"""The working tree of the dependency converter: mutable nodes with parent links and heads.

:mod:`.transforms` restructures it, :mod:`.heads` annotates every node with its head child and
head word, and :mod:`.relations` reads it. Leaves keep their word, their 1-based position and
the part-of-speech tag the parser gave them (the tag survives even when a transform later
relabels or moves the preterminal).
"""

from __future__ import annotations

from .trees import Tree

__all__ = ["Node", "from_tree", "basic_category", "PUNCT_TAGS"]

#: Tags the head finder avoids as heads in its last-resort rules.
PUNCT_TAGS = frozenset({"''", "``", "-LRB-", "-RRB-", ".", ":", ","})

_ANNOTATION_CHARS = frozenset("-=|#^~_[")


_BASIC: dict[str, str] = {}


def basic_category(label: str) -> str:
    """The label without function tags: ``NP-TMP`` -> ``NP``; a leading ``-`` is kept (``-LRB-``)."""
    found = _BASIC.get(label)
    if found is None:
        found = _basic_category(label)
        if len(_BASIC) < 20_000:
            _BASIC[label] = found
    return found


def _basic_category(label: str) -> str:
    if not label:
        return label
    first = label[0]
    at_zero = first in _ANNOTATION_CHARS
    for i in range(1, len(label)):
        ch = label[i]
        if ch in _ANNOTATION_CHARS:
            if at_zero and i > 1 and ch == first:
                at_zero = False
            else:
                return label[:i]
    return label


class Node:
    """One node of the working tree.

    Attributes:
        label: category, tag, or (for a leaf) the word.
        kids: the children, left to right (empty for a leaf).
        parent: the parent node (None at the root).
        word: the word of a leaf (None for other nodes).
        index: the 1-based position of a leaf (0 for other nodes).
        tag: the parser's tag of a leaf.
        head: the leaf that heads this node (set by :func:`.heads.find_heads`).
        hkid: the head child (set by :func:`.heads.find_heads`; None for leaves).
        top: the highest ancestor-or-self with the same head word.
        order: this node's position among its parent's children (set once the tree is final).
        kidset: the labels of the children (set once the tree is final).
    """

    __slots__ = (
        "label",
        "kids",
        "parent",
        "word",
        "index",
        "tag",
        "head",
        "hkid",
        "bare_hkid",
        "top",
        "order",
        "kidset",
    )

    def __init__(self, label: str, kids: list[Node] | None = None) -> None:
        self.label = label
        self.kids: list[Node] = []
        self.parent: Node | None = None
        self.word: str | None = None
        self.index = 0
        self.tag = ""
        self.head: Node | None = None
        self.hkid: Node | None = None
        self.bare_hkid: Node | None = None
        self.top: Node | None = None
        self.order = 0
        self.kidset: frozenset[str] = frozenset()
        if kids:
            self.set_kids(kids)

    # structure -------------------------------------------------------------------------
    def set_kids(self, kids: list[Node]) -> None:
        """Replace the children (and point them at this node)."""
        self.kids = kids
        for kid in kids:
            kid.parent = self

    def insert(self, position: int, kid: Node) -> None:
        """Insert ``kid`` before the child at ``position``."""
        self.kids.insert(position, kid)
        kid.parent = self

    def append(self, kid: Node) -> None:
        """Add ``kid`` as the last child."""
        self.kids.append(kid)
        kid.parent = self

    def remove(self, kid: Node) -> int:
        """Remove ``kid`` (by identity); its former position."""
        for i, k in enumerate(self.kids):
            if k is kid:
                del self.kids[i]
                return i
        raise ValueError("not a child")

    def position(self) -> int:
        """This node's position among its parent's children."""
        assert self.parent is not None
        for i, k in enumerate(self.parent.kids):
            if k is self:
                return i
        raise ValueError("not a child of its parent")

    # tests -----------------------------------------------------------------------------
    def is_leaf(self) -> bool:
        return self.word is not None

    def is_preterminal(self) -> bool:
        kids = self.kids
        return len(kids) == 1 and kids[0].word is not None

    def is_phrasal(self) -> bool:
        kids = self.kids
        return bool(kids) and not (len(kids) == 1 and kids[0].word is not None)

    def leaf_word(self) -> str | None:
        """The word of a preterminal (None otherwise)."""
        kids = self.kids
        if len(kids) == 1 and kids[0].word is not None:
            return kids[0].word
        return None

    def leaves(self) -> list[Node]:
        out: list[Node] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node.word is not None:
                out.append(node)
            else:
                stack.extend(reversed(node.kids))
        return out

    def preterminals(self) -> list[Node]:
        """The part-of-speech nodes under (or at) this node, left to right."""
        out: list[Node] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node.word is not None:
                continue
            if node.is_preterminal():
                out.append(node)
            else:
                stack.extend(reversed(node.kids))
        return out

    def preorder(self) -> list[Node]:
        """This node and every node below it, parents before children, left to right."""
        out: list[Node] = []
        stack = [self]
        while stack:
            node = stack.pop()
            out.append(node)
            if node.kids:
                stack.extend(reversed(node.kids))
        return out

    def __repr__(self) -> str:
        if self.word is not None:
            return f"{self.word}-{self.index}"
        return "(" + self.label + " " + " ".join(repr(k) for k in self.kids) + ")"


def from_tree(tree: Tree) -> tuple[Node, list[Node]]:
    """A working copy of ``tree`` and its leaves (position i at list index i - 1)."""
    leaves: list[Node] = []

    def copy(t: Tree, parent_label: str) -> Node:
        if not t.children:
            leaf = Node(t.label)
            leaf.word = t.label
            leaf.tag = parent_label
            leaves.append(leaf)
            leaf.index = len(leaves)
            return leaf
        node = Node(t.label)
        node.set_kids([copy(c, t.label) for c in t.children])
        return node

    root = copy(tree, "")
    return root, leaves
