"""Penn trees as the parser prints them: reading, printing, leaves with their token positions.

The parser's output is the one-line bracketed form ``(ROOT (S (NP (DT a) (NN man)) (VP ...)))``:
every constituent is ``(LABEL child child ...)``, every word a bare token, words and labels
separated by single spaces. :func:`read_tree` reads that form (and any whitespace between items),
``str(tree)`` prints it back exactly, so a tree survives a round trip unchanged.

Labels are kept exactly as written, function tags included (``NP-TMP`` stays ``NP-TMP``: the
converter needs it). Words are any run of characters other than whitespace (U+0000 to U+0020) and parentheses; the
tokenizer escapes brackets in the text as ``-LRB-``/``-RRB-`` (and ``-LCB-`` ...), so a literal
parenthesis inside a word is malformed input and is reported as such.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["Tree", "TreeSyntaxError", "read_tree"]

# Whitespace is what the treebank reader skips: the control characters and the space (U+0000 to
# U+0020); other spaces, such as U+00A0 inside a number like "22 3/4", belong to the word.
_TOKEN = re.compile(r"\(|\)|[^\x00-\x20()]+")


class TreeSyntaxError(ValueError):
    """The text is not one well-formed bracketed tree."""


class Tree:
    """A constituent (a label over children) or a word (a leaf: its text and 1-based position).

    Attributes:
        label: the node's label (``NP``, ``NN``, ``-LRB-``, ...) or, for a leaf, the word itself.
        children: the daughters, left to right; empty for a leaf.
        index: for a leaf, its 1-based position among the sentence's words; 0 for constituents.
    """

    __slots__ = ("children", "index", "label")

    def __init__(self, label: str, children: list[Tree] | None = None, index: int = 0) -> None:
        self.label = label
        self.children = children if children is not None else []
        self.index = index

    def is_leaf(self) -> bool:
        """True for a word."""
        return not self.children

    def is_preterminal(self) -> bool:
        """True for a part-of-speech node: one child, and that child a word."""
        return len(self.children) == 1 and not self.children[0].children

    def leaves(self) -> list[Tree]:
        """The words under this node, left to right."""
        out: list[Tree] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node.children:
                stack.extend(reversed(node.children))
            else:
                out.append(node)
        return out

    def words(self) -> list[str]:
        """The words under this node, left to right."""
        return [leaf.label for leaf in self.leaves()]

    def preterminals(self) -> Iterator[Tree]:
        """The part-of-speech nodes, left to right."""
        stack = [self]
        while stack:
            node = stack.pop()
            if node.is_preterminal():
                yield node
            else:
                stack.extend(reversed(node.children))

    def tags(self) -> list[str]:
        """The part-of-speech tags (labels of the preterminals), left to right."""
        return [node.label for node in self.preterminals()]

    def __str__(self) -> str:
        parts: list[str] = []
        _print(self, parts)
        return "".join(parts)

    def __repr__(self) -> str:
        return f"Tree({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tree) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


def _print(node: Tree, out: list[str]) -> None:
    if not node.children:
        out.append(node.label)
        return
    out.append("(")
    out.append(node.label)
    for child in node.children:
        out.append(" ")
        _print(child, out)
    out.append(")")


def read_tree(text: str) -> Tree:
    """The tree in ``text`` (one bracketed tree, as ``Tree.toString()`` prints it).

    Leaves are numbered 1, 2, ... from the left (``Tree.index``).

    Raises:
        TreeSyntaxError: unbalanced brackets, a constituent without a label, text outside the
            tree, or an empty input; the message names the character position.
    """
    if not isinstance(text, str):
        raise TypeError(f"read_tree wants the tree as a string, not {type(text).__name__}")
    tokens = [(m.group(), m.start()) for m in _TOKEN.finditer(text)]
    if not tokens:
        raise TreeSyntaxError("empty tree text")
    if tokens[0][0] != "(":
        raise TreeSyntaxError(f"a tree starts with '(', not {tokens[0][0]!r} (position {tokens[0][1]})")
    stack: list[Tree] = []
    root: Tree | None = None
    leaf_count = 0
    i = 0
    n = len(tokens)
    while i < n:
        tok, pos = tokens[i]
        if tok == "(":
            if root is not None:
                raise TreeSyntaxError(f"text after the end of the tree at position {pos}")
            if i + 1 >= n or tokens[i + 1][0] in "()":
                raise TreeSyntaxError(f"constituent without a label at position {pos}")
            node = Tree(tokens[i + 1][0])
            if stack:
                stack[-1].children.append(node)
            stack.append(node)
            i += 2
            continue
        if tok == ")":
            if not stack:
                raise TreeSyntaxError(f"unbalanced ')' at position {pos}")
            node = stack.pop()
            if not node.children:
                raise TreeSyntaxError(f"constituent {node.label!r} without children (ending at position {pos})")
            if not stack:
                root = node
            i += 1
            continue
        if not stack:
            raise TreeSyntaxError(f"word {tok!r} outside any constituent at position {pos}")
        leaf_count += 1
        stack[-1].children.append(Tree(tok, index=leaf_count))
        i += 1
    if stack or root is None:
        raise TreeSyntaxError(f"unbalanced '(': {len(stack)} constituent(s) not closed")
    return root
