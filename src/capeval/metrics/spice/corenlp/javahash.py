"""The iteration order of ``java.util.HashMap`` and ``java.util.HashSet`` (Java 8 and later).

The parser's unary closure is computed by Java when the grammar is loaded, by adding the core
unary rules one by one in the iteration order of a ``HashSet`` copied from a deserialized
``HashMap``; its float sums depend on that order. :class:`JavaHashMap` reproduces where Java's
table puts every key, so that iterating it gives Java's order: the hash spreading, power-of-two
tables that double when full, list bins, and the red-black tree bins that long bins turn into
(with their own list order: a root moved to the front and new nodes linked right after their tree
parent). Keys carry their Java ``hashCode()`` explicitly; equal keys are Python-equal keys.

Keys whose hashes collide exactly (and are not equal) inside a tree bin are ordered by Java with
``compareTo`` or, failing that, by identity hash codes that differ from run to run; this module
refuses such keys rather than guess (the grammar has none).

:class:`HashOrderMap` is the light model the dependency graphs use (CoreNLP's ``SemanticGraph``
keeps its words and edges in ``HashMap``s keyed by the word): keys with small non-negative hash
codes, in list bins only. That is exact while no bin holds more than eight keys in a table of 64
or more, which a sentence's graph does not reach by far.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Generic, TypeVar

__all__ = [
    "DEFAULT_LOAD_FACTOR",
    "HashOrderMap",
    "JavaHashMap",
    "hashset_copy",
    "java_int",
    "spread",
    "table_size_for",
]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

DEFAULT_LOAD_FACTOR = 0.75
_DEFAULT_CAPACITY = 16
_MAXIMUM_CAPACITY = 1 << 30
_TREEIFY_THRESHOLD = 8
_UNTREEIFY_THRESHOLD = 6
_MIN_TREEIFY_CAPACITY = 64
_INT_MAX = (1 << 31) - 1


def _f32(x: float) -> float:
    """``x`` rounded to the nearest 32-bit float (Java's ``float`` arithmetic, one operation at a time)."""
    result: float = struct.unpack("<f", struct.pack("<f", x))[0]
    return result


def java_int(x: int) -> int:
    """``x`` wrapped to a signed 32-bit Java ``int``."""
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def spread(hash_code: int) -> int:
    """The hash a ``HashMap`` files a key under: ``h ^ (h >>> 16)`` (a signed int)."""
    h = hash_code & 0xFFFFFFFF
    return java_int(h ^ (h >> 16))


def table_size_for(capacity: int) -> int:
    """The smallest power of two at least ``capacity`` (at least 1, at most 2**30), as Java rounds it."""
    if capacity <= 1:
        return 1
    return min(1 << (capacity - 1).bit_length(), _MAXIMUM_CAPACITY)


class _Node(Generic[K]):
    """A table entry; the tree fields are used only while it sits in a tree bin."""

    __slots__ = ("hash", "key", "left", "next", "parent", "prev", "red", "right", "tree")

    def __init__(self, hash_: int, key: K, next_: _Node[K] | None, *, tree: bool = False) -> None:
        self.hash = hash_
        self.key = key
        self.next = next_
        self.tree = tree
        self.parent: _Node[K] | None = None
        self.left: _Node[K] | None = None
        self.right: _Node[K] | None = None
        self.prev: _Node[K] | None = None
        self.red = False


def _rotate_left(root: _Node[K], p: _Node[K]) -> _Node[K]:
    r = p.right
    if r is None:
        return root
    rl = p.right = r.left
    if rl is not None:
        rl.parent = p
    pp = r.parent = p.parent
    if pp is None:
        root = r
        r.red = False
    elif pp.left is p:
        pp.left = r
    else:
        pp.right = r
    r.left = p
    p.parent = r
    return root


def _rotate_right(root: _Node[K], p: _Node[K]) -> _Node[K]:
    left = p.left
    if left is None:
        return root
    lr = p.left = left.right
    if lr is not None:
        lr.parent = p
    pp = left.parent = p.parent
    if pp is None:
        root = left
        left.red = False
    elif pp.right is p:
        pp.right = left
    else:
        pp.left = left
    left.right = p
    p.parent = left
    return root


def _balance_insertion(root: _Node[K], x: _Node[K]) -> _Node[K]:
    """Restore the red-black properties after ``x`` was attached (returns the possibly new root)."""
    x.red = True
    while True:
        xp = x.parent
        if xp is None:
            x.red = False
            return x
        xpp = xp.parent
        if not xp.red or xpp is None:
            return root
        xppl = xpp.left
        if xp is xppl:
            xppr = xpp.right
            if xppr is not None and xppr.red:
                xppr.red = False
                xp.red = False
                xpp.red = True
                x = xpp
                continue
            if x is xp.right:
                x = xp
                root = _rotate_left(root, x)
                xp = x.parent
                xpp = None if xp is None else xp.parent
            if xp is not None:
                xp.red = False
                if xpp is not None:
                    xpp.red = True
                    root = _rotate_right(root, xpp)
        else:
            if xppl is not None and xppl.red:
                xppl.red = False
                xp.red = False
                xpp.red = True
                x = xpp
                continue
            if x is xp.left:
                x = xp
                root = _rotate_right(root, x)
                xp = x.parent
                xpp = None if xp is None else xp.parent
            if xp is not None:
                xp.red = False
                if xpp is not None:
                    xpp.red = True
                    root = _rotate_left(root, xpp)


def _direction(h: int, node: _Node[K], key: K) -> int:
    """-1 (left) or 1 (right) for a new key of hash ``h`` at a tree node; exact collisions are refused."""
    if node.hash > h:
        return -1
    if node.hash < h:
        return 1
    raise NotImplementedError(
        f"keys {key!r} and {node.key!r} have the same hash {h}: Java orders them in a tree bin by compareTo "
        "or by identity, which is not simulated"
    )


class JavaHashMap(Generic[K]):
    """The key layout of a ``java.util.HashMap``, for its iteration order.

    Only what decides the order is kept: keys (with their Java hash codes) and the table.
    Values are not stored; putting an existing key leaves the order unchanged, as in Java.

    Args:
        initial_capacity: as ``new HashMap<>(initialCapacity)``; None for ``new HashMap<>()``.
        load_factor: as Java's ``loadFactor`` (0.75 by default).
    """

    def __init__(self, initial_capacity: int | None = None, load_factor: float = DEFAULT_LOAD_FACTOR) -> None:
        if initial_capacity is not None and initial_capacity < 0:
            raise ValueError(f"illegal initial capacity: {initial_capacity}")
        if not load_factor > 0:
            raise ValueError(f"illegal load factor: {load_factor}")
        self.load_factor = _f32(load_factor)
        self._table: list[_Node[K] | None] | None = None
        self._size = 0
        self._threshold = 0 if initial_capacity is None else table_size_for(initial_capacity)

    @classmethod
    def deserialized(
        cls, keys: Iterable[K], hash_codes: Iterable[int], load_factor: float = DEFAULT_LOAD_FACTOR
    ) -> JavaHashMap[K]:
        """The map ``HashMap.readObject`` rebuilds from a stream holding ``keys`` in this order."""
        keys = list(keys)
        hashes = list(hash_codes)
        if len(keys) != len(hashes):
            raise ValueError(f"{len(keys)} keys but {len(hashes)} hash codes")
        lf = min(max(0.25, _f32(load_factor)), 4.0)
        fc = _f32(_f32(len(keys) / lf) + 1.0)
        if fc < _DEFAULT_CAPACITY:
            cap = _DEFAULT_CAPACITY
        elif fc >= _MAXIMUM_CAPACITY:
            cap = _MAXIMUM_CAPACITY
        else:
            cap = table_size_for(int(fc))
        out: JavaHashMap[K] = cls(load_factor=lf)
        ft = _f32(cap * lf)
        out._threshold = int(ft) if cap < _MAXIMUM_CAPACITY and ft < _MAXIMUM_CAPACITY else _INT_MAX
        out._table = [None] * cap
        for key, code in zip(keys, hashes, strict=True):
            out.put(key, code)
        return out

    def __len__(self) -> int:
        return self._size

    @property
    def capacity(self) -> int:
        """The table's current length (0 before the first insertion)."""
        return 0 if self._table is None else len(self._table)

    def _entries(self) -> Iterator[_Node[K]]:
        for first in self._table or ():
            node = first
            while node is not None:
                yield node
                node = node.next

    def __iter__(self) -> Iterator[K]:
        """The keys in Java's iteration order (buckets in index order, each bin's list in order)."""
        return (node.key for node in self._entries())

    def hash_codes(self) -> list[int]:
        """The spread hashes of the keys, in iteration order."""
        return [node.hash for node in self._entries()]

    def put(self, key: K, hash_code: int) -> bool:
        """``map.put(key, ...)`` for a key whose ``hashCode()`` is ``hash_code``; True if the key is new."""
        h = spread(hash_code)
        if self._table is None or not self._table:
            self._resize()
        tab = self._table
        assert tab is not None
        n = len(tab)
        i = h & (n - 1)
        p = tab[i]
        if p is None:
            tab[i] = _Node(h, key, None)
        elif p.hash == h and p.key == key:
            return False
        elif p.tree:
            if not self._put_tree(tab, p, h, key):
                return False
        else:
            bin_count = 0
            while True:
                e = p.next
                if e is None:
                    p.next = _Node(h, key, None)
                    if bin_count >= _TREEIFY_THRESHOLD - 1:
                        self._treeify_bin(tab, h)
                    break
                if e.hash == h and e.key == key:
                    return False
                p = e
                bin_count += 1
        self._size += 1
        if self._size > self._threshold:
            self._resize()
        return True

    # -- table growth --------------------------------------------------------------------------

    def _resize(self) -> None:
        old = self._table
        old_cap = 0 if old is None else len(old)
        old_thr = self._threshold
        new_thr = 0
        if old_cap > 0:
            if old_cap >= _MAXIMUM_CAPACITY:
                self._threshold = _INT_MAX
                return
            new_cap = old_cap << 1
            if new_cap < _MAXIMUM_CAPACITY and old_cap >= _DEFAULT_CAPACITY:
                new_thr = java_int(old_thr << 1)
        elif old_thr > 0:
            new_cap = old_thr
        else:
            new_cap = _DEFAULT_CAPACITY
            new_thr = int(_DEFAULT_CAPACITY * DEFAULT_LOAD_FACTOR)
        if new_thr == 0:
            ft = _f32(new_cap * self.load_factor)
            new_thr = int(ft) if new_cap < _MAXIMUM_CAPACITY and ft < _MAXIMUM_CAPACITY else _INT_MAX
        self._threshold = new_thr
        tab: list[_Node[K] | None] = [None] * new_cap
        self._table = tab
        if old is None:
            return
        for j in range(old_cap):
            e = old[j]
            if e is None:
                continue
            old[j] = None
            if e.next is None:
                tab[e.hash & (new_cap - 1)] = e
            elif e.tree:
                self._split_tree(tab, e, j, old_cap)
            else:
                lo: list[_Node[K]] = []
                hi: list[_Node[K]] = []
                node: _Node[K] | None = e
                while node is not None:
                    (lo if node.hash & old_cap == 0 else hi).append(node)
                    node = node.next
                for index, part in ((j, lo), (j + old_cap, hi)):
                    if part:
                        for a, b in zip(part, part[1:], strict=False):
                            a.next = b
                        part[-1].next = None
                        tab[index] = part[0]

    def _split_tree(self, tab: list[_Node[K] | None], b: _Node[K], index: int, bit: int) -> None:
        lo: list[_Node[K]] = []
        hi: list[_Node[K]] = []
        e: _Node[K] | None = b
        while e is not None:
            nxt = e.next
            e.next = None
            part = lo if e.hash & bit == 0 else hi
            e.prev = part[-1] if part else None
            if part:
                part[-1].next = e
            part.append(e)
            e = nxt
        for slot, part, other in ((index, lo, hi), (index + bit, hi, lo)):
            if not part:
                continue
            if len(part) <= _UNTREEIFY_THRESHOLD:
                for node in part:  # back to plain list nodes, same order
                    node.tree = False
                    node.parent = node.left = node.right = node.prev = None
                    node.red = False
                tab[slot] = part[0]
            else:
                tab[slot] = part[0]
                if other:
                    self._treeify(tab, part[0])

    # -- tree bins -----------------------------------------------------------------------------

    def _treeify_bin(self, tab: list[_Node[K] | None], h: int) -> None:
        n = len(tab)
        if n < _MIN_TREEIFY_CAPACITY:
            self._resize()
            return
        index = h & (n - 1)
        e = tab[index]
        prev: _Node[K] | None = None
        while e is not None:
            e.tree = True
            e.prev = prev
            e.parent = e.left = e.right = None
            prev = e
            e = e.next
        head = tab[index]
        if head is not None:
            self._treeify(tab, head)

    def _treeify(self, tab: list[_Node[K] | None], head: _Node[K]) -> None:
        root: _Node[K] | None = None
        x: _Node[K] | None = head
        while x is not None:
            nxt = x.next
            x.left = x.right = None
            if root is None:
                x.parent = None
                x.red = False
                root = x
            else:
                p = root
                while True:
                    d = _direction(x.hash, p, x.key)
                    xp = p
                    child = p.left if d <= 0 else p.right
                    if child is None:
                        x.parent = xp
                        if d <= 0:
                            xp.left = x
                        else:
                            xp.right = x
                        root = _balance_insertion(root, x)
                        break
                    p = child
            x = nxt
        assert root is not None
        self._move_root_to_front(tab, root)

    def _put_tree(self, tab: list[_Node[K] | None], first: _Node[K], h: int, key: K) -> bool:
        root = first
        while root.parent is not None:
            root = root.parent
        p = root
        while True:
            if p.hash == h and p.key == key:
                return False
            d = _direction(h, p, key)
            xp = p
            child = p.left if d <= 0 else p.right
            if child is None:
                xpn = xp.next
                x = _Node(h, key, xpn, tree=True)
                if d <= 0:
                    xp.left = x
                else:
                    xp.right = x
                xp.next = x
                x.parent = x.prev = xp
                if xpn is not None:
                    xpn.prev = x
                self._move_root_to_front(tab, _balance_insertion(root, x))
                return True
            p = child

    @staticmethod
    def _move_root_to_front(tab: list[_Node[K] | None], root: _Node[K]) -> None:
        index = root.hash & (len(tab) - 1)
        first = tab[index]
        if root is first:
            return
        tab[index] = root
        rp = root.prev
        rn = root.next
        if rn is not None:
            rn.prev = rp
        if rp is not None:
            rp.next = rn
        if first is not None:
            first.prev = root
        root.next = first
        root.prev = None


def hashset_copy(source: JavaHashMap[K], hash_codes: dict[K, int]) -> JavaHashMap[K]:
    """``new HashSet<>(source.keySet())``: a new set filled in ``source``'s iteration order.

    Args:
        source: the map (or set) copied.
        hash_codes: every key's Java ``hashCode()``.
    """
    size = len(source)
    out: JavaHashMap[K] = JavaHashMap(max(int(_f32(size / _f32(0.75))) + 1, _DEFAULT_CAPACITY))
    for key in source:
        out.put(key, hash_codes[key])
    return out


class HashOrderMap(Generic[K, V]):
    """A map that iterates in ``java.util.HashMap``'s order, for keys with small non-negative hashes.

    A key's place is its bucket, ``(h ^ (h >>> 16)) & (capacity - 1)``, then its insertion order
    within the bucket (a key removed and put back goes last). The capacity starts at ``capacity``
    (a power of two; Java's default is 16) and doubles whenever the map holds more than three
    quarters of it; it never shrinks. Replacing a value keeps the key's place.

    Args:
        hash_of: a key's Java ``hashCode()``.
        capacity: the initial table size.

    Example:
        >>> m = HashOrderMap(lambda k: k)
        >>> for k in (17, 1, 16, 2):
        ...     m.put(k, str(k))
        >>> m.keys()
        [16, 17, 1, 2]
    """

    __slots__ = ("_hash_of", "_order", "capacity", "entries")

    def __init__(self, hash_of: Callable[[K], int], capacity: int = _DEFAULT_CAPACITY) -> None:
        self._hash_of = hash_of
        #: The table size Java's map would have now.
        self.capacity = capacity
        #: Key -> value, in insertion order (the order within a bucket).
        self.entries: dict[K, V] = {}
        self._order: list[K] | None = None

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def get(self, key: K) -> V | None:
        """The value of ``key``, or ``None``."""
        return self.entries.get(key)

    def put(self, key: K, value: V) -> None:
        """Insert or replace (a replaced key keeps its place)."""
        entries = self.entries
        if key in entries:
            entries[key] = value
            return
        entries[key] = value
        while len(entries) > self.capacity * DEFAULT_LOAD_FACTOR:
            self.capacity *= 2
        self._order = None

    def remove(self, key: K) -> None:
        """Remove ``key`` if present."""
        if key in self.entries:
            del self.entries[key]
            self._order = None

    def keys(self) -> list[K]:
        """The keys in Java's iteration order."""
        order = self._order
        if order is None:
            if len(self.entries) < 2:
                order = list(self.entries)
            else:
                mask = self.capacity - 1
                hash_of = self._hash_of

                def bucket(key: K) -> int:
                    h = hash_of(key)
                    return (h ^ (h >> 16)) & mask

                order = sorted(self.entries, key=bucket)
            self._order = order
        return order

    def values(self) -> list[V]:
        """The values in the keys' order."""
        entries = self.entries
        return [entries[k] for k in self.keys()]

    def items(self) -> list[tuple[K, V]]:
        """``(key, value)`` pairs in the keys' order."""
        entries = self.entries
        return [(k, entries[k]) for k in self.keys()]
