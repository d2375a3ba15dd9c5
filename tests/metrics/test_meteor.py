"""METEOR 1.5: bit-exact parity with the official jar on golden data, plus edge cases.

Golden data: tests/data/meteor/ (see PROVENANCE.md). Needs the METEOR tables of an installed
pycocoevalcap 1.2 (skipped with the install hint otherwise).
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from capeval.metrics.meteor import METEOR, MeteorDataError, java_string_hash, meteor_segments
from capeval.metrics.meteor._normalize import normalize_tokens
from capeval.metrics.meteor._resources import load_meteor_data

DATA = Path(__file__).resolve().parents[1] / "data" / "meteor"
#: Acceptance tolerances: per-item scores absolute, corpus relative (Java vs glibc pow, spec §0.7).
ITEM_ATOL = 1e-12
CORPUS_RTOL = 1e-15


def _curated() -> tuple[list[tuple[str, str, list[str], float, str]], float]:
    rows = []
    corpus = math.nan
    for line in (DATA / "meteor_vectors.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("# CORPUS"):
            corpus = float(line.rsplit(":", 1)[1])
            continue
        if line.startswith("#") or line.startswith("id\t"):
            continue
        ident, hyp, refs, score, stats = line.split("\t")
        rows.append((ident, json.loads(hyp), json.loads(refs), float(score), stats))
    return rows, corpus


def _official_row(stats_line: str) -> np.ndarray:
    """The jar's SCORE line as our statistics row (perfect segments carry 0 chunks)."""
    row = np.array([float(x) for x in stats_line.split()])
    perfect = row[4:20:2].sum() == row[0] and row[5:20:2].sum() == row[1] and row[20] == 1.0
    if perfect:
        row[20] = 0.0
    return row


def _check(result: Any, scores: list[float], corpus: float) -> None:
    diff = np.abs(result.item_scores - np.asarray(scores))
    assert int((diff > ITEM_ATOL).sum()) == 0, f"{int((diff > ITEM_ATOL).sum())} items differ, max {diff.max()}"
    assert result.score == pytest.approx(corpus, rel=CORPUS_RTOL, abs=0)


def test_curated_vectors(meteor: METEOR) -> None:
    rows, corpus = _curated()
    assert len(rows) == 16
    result = meteor.score_tokenized(candidates=[r[1] for r in rows], references=[r[2] for r in rows])
    _check(result, [r[3] for r in rows], corpus)
    for (ident, *_, stats), got in zip(rows, result.stats, strict=False):
        np.testing.assert_array_equal(got, _official_row(stats), err_msg=ident)


@pytest.mark.parametrize("batch", ["random1500", "fakecap1000"])
def test_bulk_vectors(meteor: METEOR, batch: str) -> None:
    with gzip.open(DATA / "meteor_bulk_vectors.jsonl.gz", "rt", encoding="utf-8") as handle:
        header = json.loads(handle.readline())
        rows = [r for r in map(json.loads, handle) if r["set"] == batch]
    result = meteor.score_tokenized(candidates=[r["hyp"] for r in rows], references=[r["refs"] for r in rows])
    _check(result, [r["score"] for r in rows], header["corpus"][batch])
    expected = np.vstack([_official_row(r["stats"]) for r in rows])
    np.testing.assert_array_equal(result.stats, expected)


def test_coco_demo(meteor: METEOR) -> None:
    with gzip.open(DATA / "coco_demo_meteor.json.gz", "rt", encoding="utf-8") as handle:
        demo = json.load(handle)
    items = demo["items"]
    assert len(items) == 1000
    result = meteor.score_tokenized(
        candidates=[it["candidate"] for it in items], references=[it["references"] for it in items]
    )
    _check(result, [it["meteor"] for it in items], demo["corpus_meteor"])
    assert result.score == demo["corpus_meteor"]


def test_corpus_is_summed_statistics_not_mean(meteor: METEOR) -> None:
    rows, corpus = _curated()
    result = meteor.score_tokenized(candidates=[r[1] for r in rows], references=[r[2] for r in rows])
    assert meteor.corpus_score(result.stats.sum(axis=0)) == result.score
    assert abs(float(np.mean(result.item_scores)) - corpus) > 0.05


def test_threads_do_not_change_results(meteor: METEOR) -> None:
    with gzip.open(DATA / "meteor_bulk_vectors.jsonl.gz", "rt", encoding="utf-8") as handle:
        handle.readline()
        rows = [json.loads(line) for line in handle]
    cands, refs = [r["hyp"] for r in rows], [r["refs"] for r in rows]
    one = METEOR(tokenizer="none", n_threads=1).score_tokenized(candidates=cands, references=refs)
    two = METEOR(tokenizer="none", n_threads=2).score_tokenized(candidates=cands, references=refs)
    np.testing.assert_array_equal(one.stats, two.stats)


@pytest.mark.parametrize(("n", "n_threads"), [(2000, 2), (2001, 2), (40504, 2), (40504, 4), (100_000, 3)])
def test_aligner_blocks_cover_the_items_and_shrink_at_the_end(n: int, n_threads: int) -> None:
    from capeval.metrics.meteor import _MIN_ITEMS_PER_THREAD, _MIN_TAIL_ITEMS, _blocks

    ranges = _blocks(n, n_threads)
    assert ranges[0][0] == 0 and ranges[-1][1] == n
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:], strict=False))  # contiguous, in order
    sizes = [hi - lo for lo, hi in ranges]
    assert max(sizes) <= max(_MIN_ITEMS_PER_THREAD, -(-n // (8 * n_threads)))
    assert sizes == sorted(sizes, reverse=True)  # never larger than the block before
    assert min(sizes[:-1], default=_MIN_TAIL_ITEMS) >= _MIN_TAIL_ITEMS
    # the blocks that end a run hold about a 2 * n_threads-th of what remains
    assert sizes[-2] <= max(_MIN_TAIL_ITEMS, -(-(sizes[-2] + sizes[-1]) // (2 * n_threads)))


def test_registry_and_official_name() -> None:
    from capeval.registry import metric_class

    cls = metric_class("meteor")
    assert cls is METEOR
    assert METEOR.official_names == {"meteor": "METEOR"}
    assert len(METEOR(tokenizer="none").stat_names) == 23


# --- building blocks ----------------------------------------------------------------------


def test_java_string_hash() -> None:
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("as") == java_string_hash("c5")  # a real collision METEOR treats as equal
    assert java_string_hash("café") == ((99 * 31 + 97) * 31 + 102) * 31 + 233
    assert java_string_hash("\U0001f600") == 0xD83D * 31 + 0xDE00  # two UTF-16 code units


def test_normalizer_examples(meteor: METEOR) -> None:
    prefixes = load_meteor_data().prefixes
    assert normalize_tokens("the man 's red hat", prefixes) == "the man ' s red hat".split()
    assert normalize_tokens("a man's hat -lrb- red -rrb- & 1,000.5 dogs' e-mail u.s. ...", prefixes) == (
        "a man 's hat -lrb- red -rrb- & 1,000.5 dogs ' e mail us ...".split()
    )
    assert normalize_tokens("A Man's HAT, (red) \u201cnice\u201d -- well-known x-ray!", prefixes) == (
        'a man \'s hat , ( red ) " nice " - well known x ray !'.split()
    )
    assert normalize_tokens("", prefixes) == []
    # each rewrite runs only where its character occurs; these take one rule at a time (values of
    # the normalizer before that shortcut)
    assert normalize_tokens("DOTMULTI.x", prefixes) == ["..", "x"]  # the text itself says DOTMULTI.
    assert normalize_tokens("a DOTMULTI. b", prefixes) == ["a", "..", "b"]
    assert normalize_tokens("x..y", prefixes) == ["x", "..", "y"]
    assert normalize_tokens("a--b", prefixes) == ["a", "b"]
    assert normalize_tokens("it's 90's", prefixes) == ["it", "'s", "90", "'s"]
    assert normalize_tokens("l'amour", prefixes) == ["l", "'amour"]
    assert normalize_tokens("\u2018\u2018quoted\u2019\u2019", prefixes) == ['"', "quoted", '"']
    assert normalize_tokens("1,000 , 2,x a,3", prefixes) == ["1,000", ",", "2", ",", "x", "a", ",", "3"]


#: The text "DOTMULTI" (the jar's marker for runs of dots) becomes "." in the jar's tokenizer, also
#: in otherwise plain segments. Golden values: pycocoevalcap 1.2 (METEOR 1.5 jar, ``-norm``) on
#: these pairs, one reference each.
DOTMULTI_CASES = [
    ("a DOTMULTI b dog", "a . b dog", 1.0),
    ("a DOTMULTI b dog", "a dotmulti b dog", 0.322386),
    ("x DOTMULTI. y", "x . . y", 0.294479),
    ("dogs DOTMULTI", "dogs .", 1.0),
    ("aDOTMULTIb c", "a.b c", 1.0),
    ("the DOTMULTIDOTMULTI end", "the . . end", 0.260163),
    ("a dotmulti b", "a . b", 0.301887),
    ("DOTMULTI", ".", 1.0),
]


def test_the_text_dotmulti_is_a_period_as_in_the_jar(meteor: METEOR) -> None:
    cands = [c for c, _, _ in DOTMULTI_CASES]
    refs = [[r] for _, r, _ in DOTMULTI_CASES]
    got = meteor.score_tokenized(candidates=cands, references=refs).item_scores
    np.testing.assert_allclose(got, [v for _, _, v in DOTMULTI_CASES], atol=5e-7)
    assert normalize_tokens("a DOTMULTI b", load_meteor_data().prefixes) == ["a", ".", "b"]


def test_meteor_segments_mirror_meteor_py() -> None:
    # '|||' is dropped from the candidate but splits a reference into two.
    hyp, refs = meteor_segments("a ||| dog", ["a cat ||| a dog", " x "])
    assert hyp == "a dog"
    assert refs == ["a cat", "a dog", "x"]
    # Java trim() strips control characters as well as spaces.
    assert meteor_segments("\x01a dog\x1f", ["r"]) == ("a dog", ["r"])


# --- robustness ---------------------------------------------------------------------------


def test_empty_and_whitespace_captions(meteor: METEOR) -> None:
    result = meteor.score_tokenized(candidates=["", "   ", "a dog", ""], references=[["a dog"], ["a dog"], [""], [""]])
    assert result.item_scores.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert result.score == 0.0
    assert result.stats[0, 1] == 2.0  # the reference length still counts
    empty = meteor.score_tokenized(candidates=[], references=[])
    assert empty.score == 0.0 and empty.stats.shape == (0, 23)


def test_separator_and_newlines_inside_captions(meteor: METEOR) -> None:
    plain = meteor.score_tokenized(candidates=["a dog runs"], references=[["a dog runs fast", "a cat"]])
    piped = meteor.score_tokenized(candidates=["a dog ||| runs"], references=[["a dog runs fast ||| a cat"]])
    assert piped.item_scores[0] == plain.item_scores[0]
    broken = meteor.score_tokenized(candidates=["a dog\nruns"], references=[["a dog\r\nruns fast", "a cat"]])
    assert broken.item_scores[0] == plain.item_scores[0]


def test_non_ascii(meteor: METEOR) -> None:
    result = meteor.score_tokenized(
        candidates=["un café avec décor naïve", "\u4e00\u53ea\u732b", "\U0001f600 dog"],
        references=[["un café avec décor"], ["\u4e00\u53ea\u732b"], ["\U0001f600 dog"]],
    )
    assert 0.0 < result.item_scores[0] < 1.0
    assert result.item_scores[1] == 1.0
    assert result.item_scores[2] == 1.0


def test_long_captions_finish(meteor: METEOR) -> None:
    rng = np.random.default_rng(0)
    vocab = "a man riding horse on beach next to the ocean while people walk their dogs sand".split()
    vocab += [f"w{i}" for i in range(3000)]
    long_caption = " ".join(rng.choice(vocab, size=5000))
    result = meteor.score_tokenized(
        candidates=[long_caption, "a man riding a horse"],
        references=[["a man riding a horse on the beach"], [long_caption]],
    )
    assert np.all(np.isfinite(result.item_scores))
    assert result.stats[0, 0] == 5000 and result.stats[1, 1] == 5000


def test_pathological_pair_raises_naming_the_item(meteor: METEOR) -> None:
    huge = " ".join(["a dog"] * 2500)
    with pytest.raises(ValueError, match="item 1"):
        meteor.score_tokenized(candidates=["a dog", huge], references=[["a dog"], [huge]])


def test_bad_input_shapes_raise(meteor: METEOR) -> None:
    with pytest.raises(ValueError, match="item 0"):
        meteor.score_tokenized(candidates=["a"], references=[[]])
    with pytest.raises(ValueError):
        meteor.score_tokenized(candidates=["a", "b"], references=[["a"]])
    with pytest.raises(ValueError, match="n_threads"):
        METEOR(tokenizer="none", n_threads=0)


def test_pure_python_fallback_is_exact(meteor: METEOR) -> None:
    """Without numba (NUMBA_DISABLE_JIT=1 runs the same kernel as plain Python) nothing changes."""
    import os
    import subprocess
    import sys

    script = (
        "import json, sys\n"
        "from capeval.metrics.meteor import METEOR\n"
        "rows = json.loads(sys.stdin.read())\n"
        "r = METEOR(tokenizer='none').score_tokenized(\n"
        "    candidates=[x[0] for x in rows], references=[x[1] for x in rows])\n"
        "print(json.dumps([r.score, r.item_scores.tolist()]))\n"
    )
    rows, corpus = _curated()
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps([[r[1], r[2]] for r in rows]),
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    score, items = json.loads(proc.stdout)
    assert items == [r[3] for r in rows]
    assert score == corpus


@pytest.mark.slow
def test_cache_is_built_verified_and_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """First use converts the data into the cache; a corrupted cache file is detected and rebuilt."""
    from capeval.metrics.meteor import _resources

    monkeypatch.setenv("CAPEVAL_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_resources, "_LOADED", None)
    try:
        first = _resources.load_meteor_data()
    except MeteorDataError as exc:
        pytest.skip(str(exc))
    (cache,) = [p for p in tmp_path.iterdir() if p.name.startswith("meteor-v")]
    assert (cache / "manifest.json").is_file()
    n_phrases = first.paraphrases.phrase_hi.shape[0]
    del first
    target = cache / "group_dst.npy"
    blob = bytearray(target.read_bytes())
    blob[-1] ^= 0xFF
    target.write_bytes(bytes(blob))
    monkeypatch.setattr(_resources, "_LOADED", None)
    second = _resources.load_meteor_data()
    assert second.paraphrases.phrase_hi.shape[0] == n_phrases
    assert (
        _resources._sha256_file(target) == json.loads((cache / "manifest.json").read_text())["files"]["group_dst.npy"]
    )
    monkeypatch.setattr(_resources, "_LOADED", None)


def test_halves_merge_and_order_invariance(meteor: METEOR) -> None:
    with gzip.open(DATA / "coco_demo_meteor.json.gz", "rt", encoding="utf-8") as handle:
        items = json.load(handle)["items"][:300]
    cands = [it["candidate"] for it in items]
    refs = [it["references"] for it in items]
    whole = meteor.score_tokenized(candidates=cands, references=refs)
    first = meteor.score_tokenized(candidates=cands[:150], references=refs[:150])
    second = meteor.score_tokenized(candidates=cands[150:], references=refs[150:])
    merged = meteor.result_from_stats(np.vstack([first.stats, second.stats]), references=refs)
    assert merged.score == whole.score
    np.testing.assert_array_equal(merged.item_scores, whole.item_scores)
    perm = np.random.default_rng(3).permutation(len(cands))
    shuffled = meteor.score_tokenized(candidates=[cands[i] for i in perm], references=[refs[i] for i in perm])
    np.testing.assert_array_equal(shuffled.item_scores, whole.item_scores[perm])
    assert shuffled.score == whole.score
    assert str(whole.signature).startswith("meteor|release:1.5|lang:en|norm:yes|mods:ex_st_sy_pa|tok:none|nrefs:5")


def _best_one_by_one(meteor: METEOR, cands: list[str], refs: list[list[str]]) -> np.ndarray:
    """Each item's row from aligning its candidate with every reference on its own: the highest
    score, the earliest reference on ties (what the aligner must pick among several references)."""
    flat_c = [c for c, rs in zip(cands, refs, strict=True) for _ in rs]
    flat_r = [[r] for rs in refs for r in rs]
    single = meteor.score_tokenized(candidates=flat_c, references=flat_r)
    rows = []
    pos = 0
    for rs in refs:
        scores = single.item_scores[pos : pos + len(rs)]
        rows.append(single.stats[pos + int(np.argmax(scores))])
        pos += len(rs)
    return np.array(rows)


def test_best_reference_skips_are_exact(meteor: METEOR) -> None:
    """References that provably cannot beat the best one so far are not searched: the chosen row
    is still the earliest of the highest-scoring ones (ties between equal references, references
    with equal scores but different statistics, the best one first or last)."""
    rng = np.random.default_rng(5)
    vocab = "a an the dog dogs puppy run runs running man men person guy sits sitting on top of in at table".split()
    cands: list[str] = []
    refs: list[list[str]] = []
    for _ in range(400):
        cand = " ".join(rng.choice(vocab, size=int(rng.integers(1, 12))))
        item = [" ".join(rng.choice(vocab, size=int(rng.integers(1, 14)))) for _ in range(int(rng.integers(1, 6)))]
        item.append(cand)  # a perfect reference, somewhere among others
        if rng.random() < 0.5:
            item.append(item[0])  # equal references: equal scores
        perm = rng.permutation(len(item))
        cands.append(cand)
        refs.append([item[i] for i in perm])
        cands.append(cand)
        refs.append([r for r in item if r != cand])  # no perfect one
    cands += ["a man sits", "a dog on a table", "a dog on a table"]
    refs += [
        ["a guy sits", "a person sits", "a man sits"],  # synonym ties before the exact match
        ["the dog on the table", "a dog at a table", "a dog on a table", "a dog on a table"],
        ["a table on a dog", "dog a on table a", "a dog a on table"],
    ]
    keep = [i for i, rs in enumerate(refs) if rs]
    cands = [cands[i] for i in keep]
    refs = [refs[i] for i in keep]
    result = meteor.score_tokenized(candidates=cands, references=refs)
    np.testing.assert_array_equal(result.stats, _best_one_by_one(meteor, cands, refs))


def test_phrase_prefix_memo_gives_the_walks_steps(meteor: METEOR) -> None:
    """The n-gram table of a sentence is the same from a fresh memo, a warm one and a full one
    (which stores nothing more), for prefixes of 2 to 7 words."""
    from capeval.metrics.meteor import _kernel

    texts = [
        "a man riding a horse on the beach next to the ocean",
        "a man riding a horse on the beach",
        "there is a cat sitting on top of the table in the kitchen",
        "in the middle of the street at night",
        "a man riding a horse",
    ]
    job = meteor._prepare_job(texts, [["a dog"]] * len(texts))
    s_off, s_words, w_para, phrase_hi, phrase_lo, first_off = job[3], job[4], job[5], job[6], job[7], job[8]
    size = _kernel._MEMO_LONG + 3 * _kernel._MEMO_SIZE + 1

    def table(i: int, memo: np.ndarray) -> np.ndarray:
        words = s_words[s_off[i] : s_off[i + 1]]
        return np.asarray(_kernel.sentence_ngrams(words, w_para, phrase_hi, phrase_lo, first_off, memo))

    warm = np.zeros(size, dtype=np.uint64)
    full = np.zeros(size, dtype=np.uint64)
    full[2 * _kernel._MEMO_SIZE] = full[-1] = _kernel._MEMO_SIZE // 2
    found_long = False
    for _ in range(2):
        for i in range(len(texts)):
            fresh = table(i, np.zeros(size, dtype=np.uint64))
            np.testing.assert_array_equal(table(i, warm), fresh)
            np.testing.assert_array_equal(table(i, full), fresh)
            found_long |= bool((fresh[:, 4:] >= 0).any())
    assert found_long  # some phrase of 5 or more words was looked up and found
    assert warm[-1] > 0 and warm[2 * _kernel._MEMO_SIZE] > 0
    assert not full[: 2 * _kernel._MEMO_SIZE].any()
