"""SPICE / SPIDEr as metrics: statistics rows, corpus reduction, details, cache, input handling."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from capeval.metrics.spice import SPICE, PrecomputedParser, SPIDEr
from capeval.metrics.spice.cache import TupleCache

TUPLES = {
    "a red bus on a street": [["bus", "street", "on"], ["bus", "red"], ["bus"], ["street"]],
    "a bus": [["bus"]],
    "a white dog": [["dog", "white"], ["dog"]],
    "two dogs": [["dog", "two"], ["dog"]],
    "a dog on grass": [["dog", "grass", "on"], ["dog"], ["grass"]],
    "nothing here": [],
    "a big red bus": [["bus", "big"], ["bus", "red"], ["bus"]],
}


def make(**kw: object) -> SPICE:
    kw.setdefault("cache", False)
    return SPICE(tokenizer="none", parser=PrecomputedParser(TUPLES), **kw)  # type: ignore[arg-type]


def test_registry_paths_resolve() -> None:
    from capeval.registry import metric_class

    assert metric_class("spice") is SPICE
    assert metric_class("spider") is SPIDEr


def test_item_scores_and_corpus_mean() -> None:
    m = make()
    res = m.score(
        candidates=["a bus", "a white dog", "nothing here"],
        references=[["a red bus on a street", "a big red bus"], ["two dogs", "a dog on grass"], ["a bus"]],
    )
    # item 0: candidate {bus}; references {bus, street, bus:red, bus:big, bus-on-street} -> P 1, R 1/5
    assert res.item_scores[0] == pytest.approx(2 * 1 * 0.2 / 1.2)
    assert res.item_scores[2] == 0.0
    assert res.score == pytest.approx(res.item_scores.mean())
    assert res.scores["spice"] == res.score
    assert math.isnan(res.item_table["spice-relation-f"][1]) is False
    # Colour: item 1 has a white candidate but no colour reference -> NaN for that item
    assert math.isnan(res.item_table["spice-color-f"][1])
    # corpus colour = mean over items where defined (item 0: refs have red, candidate none -> 0)
    assert res.scores["spice-color-f"] == 0.0
    assert m.official_names["spice"] == "SPICE"


def test_stats_rows_sum_like_the_whole() -> None:
    m = make()
    cands = ["a bus", "a white dog", "two dogs", "a dog on grass"]
    refs = [["a red bus on a street"], ["two dogs"], ["a dog on grass", "a white dog"], ["two dogs"]]
    whole = m.score(candidates=cands, references=refs)
    a = m.score(candidates=cands[:2], references=refs[:2])
    b = m.score(candidates=cands[2:], references=refs[2:])
    merged = m.compute(a.stats.sum(axis=0) + b.stats.sum(axis=0))
    for key, value in whole.scores.items():
        if math.isnan(value):
            assert math.isnan(merged[key])
        else:
            assert merged[key] == pytest.approx(value)
    perm = m.score(candidates=cands[::-1], references=refs[::-1])
    assert perm.score == pytest.approx(whole.score)
    assert np.allclose(perm.item_scores[::-1], whole.item_scores)


def test_details_carry_tuples_and_truth() -> None:
    res = make().score(candidates=["a white dog"], references=[["two dogs"]])
    detail = res.details[0]
    assert detail["test_tuples"][0] == {"tuple": ["dog"], "truth_value": True}
    assert {"tuple": ["dog", "white"], "truth_value": False} in detail["test_tuples"]
    assert detail["scores"]["Color"]["f"] is None
    assert make(detailed=False).score(candidates=["a bus"], references=[["a bus"]]).details is None


def test_no_synonyms_mode_signature() -> None:
    m = make(synonyms=False)
    res = m.score(candidates=["a bus"], references=[["a bus"]])
    assert res.score == 1.0
    assert "syn:no" in str(res.signature) and "parser:precomputed" in str(res.signature)


def test_bad_input_is_named() -> None:
    m = make()
    with pytest.raises(ValueError, match="item 1"):
        m.score(candidates=["a bus", "a bus"], references=[["a bus"], []])
    with pytest.raises(ValueError, match="no precomputed tuples"):
        m.score(candidates=["unknown caption"], references=[["a bus"]])
    with pytest.raises(ValueError, match="unknown SPICE parser"):
        SPICE(tokenizer="none", parser="stanford")


def test_empty_corpus() -> None:
    res = make().score(candidates=[], references=[])
    assert res.score == 0.0 and res.n_items == 0


def test_cache_roundtrip_and_corrupt_entry(tmp_path: Path) -> None:
    path = tmp_path / "spice.sqlite"
    cache = TupleCache(path, "fp")
    cache.put({"a bus": [["bus"]], "two dogs": [["dog", "two"], ["dog"]]})
    assert cache.get(["a bus", "two dogs", "x"]) == {"a bus": [["bus"]], "two dogs": [["dog", "two"], ["dog"]]}
    # A different fingerprint never sees those entries.
    assert TupleCache(path, "other").get(["a bus"]) == {}
    cache.close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE parses SET payload = '[[\"car\"]]'")
    assert TupleCache(path, "fp").get(["a bus"]) == {}  # checksum mismatch -> treated as missing


def test_corrupt_cache_is_recomputed_by_the_metric(tmp_path: Path) -> None:
    path = tmp_path / "spice.sqlite"
    first = make(cache=path).score(candidates=["a bus"], references=[["a big red bus"]])
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE parses SET checksum = 'bad'")
    second = make(cache=path).score(candidates=["a bus"], references=[["a big red bus"]])
    assert second.score == first.score
    assert len(TupleCache(path, "precomputed").get(["a bus", "a big red bus"])) == 2  # rewritten


def test_unreadable_cache_file_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "spice.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    res = make(cache=path).score(candidates=["a bus"], references=[["a bus"]])
    assert res.score == 1.0
    assert list(tmp_path.glob("spice.sqlite.corrupt-*"))


#: Three writers forked from one process that opened the cache first (each must open its own
#: connection). They are forked from a fresh interpreter: forking the test process itself could
#: copy a lock that another of its threads held inside SQLite at that moment, and hang the child.
_FORKED_WRITERS = r"""
import multiprocessing as mp, sys
from capeval.metrics.spice.cache import TupleCache

def writer(path, k):
    cache = TupleCache(path, "fp")
    for i in range(0, 200, 20):
        cache.put({f"caption {k} {j}": [["w"], ["w", str(j)]] for j in range(i, i + 20)})

if __name__ == "__main__":
    path = sys.argv[1]
    TupleCache(path, "fp").put({"opened by the parent": [["w"]]})
    procs = [mp.get_context("fork").Process(target=writer, args=(path, k)) for k in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    sys.exit(max(p.exitcode if p.exitcode is not None else 99 for p in procs))
"""


def test_cache_is_shared_between_processes(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "spice.sqlite"
    script = tmp_path / "writers.py"
    script.write_text(_FORKED_WRITERS, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    found = TupleCache(path, "fp").get([f"caption {k} {i}" for k in range(3) for i in range(200)])
    assert len(found) == 600


def test_spider_is_mean_of_cider_and_spice() -> None:
    pytest.importorskip("capeval.metrics.cider")
    from capeval.metrics.cider import CIDErD

    cands = ["a bus", "a white dog", "two dogs"]
    refs = [["a red bus on a street", "a big red bus"], ["two dogs", "a dog on grass"], ["two dogs", "a white dog"]]
    spider = SPIDEr(tokenizer="none", parser=PrecomputedParser(TUPLES), cache=False)
    res = spider.score(candidates=cands, references=refs)
    cider = CIDErD(tokenizer="none").score(candidates=cands, references=refs)
    spice = make().score(candidates=cands, references=refs)
    assert res.scores["spider-cider-d"] == pytest.approx(cider.score)
    assert res.scores["spider-spice"] == pytest.approx(spice.score)
    assert res.score == pytest.approx((cider.score + spice.score) / 2)
    assert np.allclose(res.item_scores, (cider.item_scores + spice.item_scores) / 2)
