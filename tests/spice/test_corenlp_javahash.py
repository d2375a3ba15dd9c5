"""``java.util.HashMap`` iteration order, against orders printed by Java 17 (``HashMapOrders.java``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from capeval.metrics.spice.corenlp.javahash import JavaHashMap, hashset_copy, java_int, spread, table_size_for

DATA = Path(__file__).parents[1] / "data" / "spice" / "corenlp_pcfg"


def _cases() -> list[dict[str, Any]]:
    with open(DATA / "java_hashmap_orders.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["name"])
def test_iteration_order_is_javas(case: dict[str, Any]) -> None:
    keys: list[int] = case["keys"]
    if case["hashset_copy"]:
        source: JavaHashMap[int] = JavaHashMap()
        for key in keys:
            source.put(key, key)
        table = hashset_copy(source, {k: k for k in keys})
    else:
        table = JavaHashMap(case["capacity"])
        for key in keys:
            table.put(key, key)
    assert list(table) == case["order"]
    assert len(table) == len(set(keys))


def test_repeated_keys_keep_their_place() -> None:
    table: JavaHashMap[str] = JavaHashMap()
    assert table.put("a", 97)
    assert table.put("b", 98)
    assert not table.put("a", 97)
    assert list(table) == ["a", "b"]


def test_deserialized_map_gets_the_capacity_readobject_computes() -> None:
    # 3,135 entries (englishPCFG's unary rules): 3135 / 0.75 + 1 = 4181 -> 8192 buckets
    keys = list(range(3135))
    table = JavaHashMap.deserialized(keys, keys)
    assert table.capacity == 8192
    assert list(table) == keys  # small Integer keys: bucket = value
    assert JavaHashMap.deserialized([], []).capacity == 16


def test_helpers() -> None:
    assert java_int(0x80000000) == -(1 << 31)
    assert java_int(-1) == -1
    assert spread(0x12345678) == java_int(0x12345678 ^ 0x1234)
    assert spread(-1) == java_int(0xFFFFFFFF ^ 0xFFFF)
    assert [table_size_for(c) for c in (0, 1, 2, 3, 16, 17, 4181)] == [1, 1, 2, 4, 16, 32, 8192]


def test_colliding_distinct_keys_in_a_tree_bin_are_refused() -> None:
    table: JavaHashMap[str] = JavaHashMap(64)
    for i in range(8):
        table.put(f"k{i}", i * 64)
    table.put("x", 9 * 64)  # the bin becomes a tree
    with pytest.raises(NotImplementedError, match="same hash"):
        table.put("y", 9 * 64)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="capacity"):
        JavaHashMap(-1)
    with pytest.raises(ValueError, match="load factor"):
        JavaHashMap(16, 0.0)
    with pytest.raises(ValueError, match="hash codes"):
        JavaHashMap.deserialized([1, 2], [1])
