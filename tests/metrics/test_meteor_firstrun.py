"""METEOR's first use: the background conversion and the aligner compiled on an empty job."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from capeval.metrics.meteor import METEOR, _firstrun, _kernel, _resources
from capeval.metrics.meteor._resources import MeteorDataError, load_meteor_data

numba = pytest.importorskip("numba")


def test_warm_job_has_the_argument_types_of_real_jobs(meteor: METEOR) -> None:
    real = meteor._prepare_job(["a dog runs on the grass"], [["a dog is running", "the cat sleeps"]])
    warm = _firstrun.warm_job()
    assert [numba.typeof(a) for a in warm] == [numba.typeof(a) for a in real]
    assert _kernel.meteor_item_stats(*warm).shape == (0, _kernel.N_STATS)


def test_compiling_on_the_warm_job_covers_scoring(meteor: METEOR) -> None:
    _firstrun.compile_kernels()
    before = {f: len(f.signatures) for f in (_kernel.meteor_item_stats, _kernel.segment_scores, _kernel.segment_score)}
    result = meteor.score_tokenized(candidates=["a dog runs"], references=[["a dog is running"]])
    assert 0.0 < result.score < 1.0
    after = {f: len(f.signatures) for f in before}
    assert after == before  # nothing new was compiled


def test_loading_the_kernels_covers_the_word_index_and_the_segmenting(meteor: METEOR) -> None:
    from capeval.metrics.meteor import _batch

    _firstrun.load_kernels()
    kernels = (_batch._intern, _batch._line_words, _kernel.meteor_item_stats, _kernel.segment_scores)
    before = {f: len(f.signatures) for f in kernels}
    result = meteor.score_tokenized(candidates=["a dog runs ."], references=[["a dog is running", "the cat , sleeps"]])
    assert 0.0 < result.score < 1.0
    assert {f: len(f.signatures) for f in kernels} == before  # nothing new was compiled


@pytest.mark.slow
def test_first_use_converts_in_the_background(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        _resources.locate_pycocoevalcap()
    except MeteorDataError as exc:
        pytest.skip(str(exc))
    monkeypatch.setenv("CAPEVAL_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_resources, "_LOADED", None)
    assert not (_resources.cache_dir() / "manifest.json").exists()
    _firstrun.prepare_first_use()
    assert (_resources.cache_dir() / "manifest.json").is_file()  # written by the background process
    data = load_meteor_data()
    assert data.paraphrases.phrase_hi.shape[0] > 1_000_000
    assert np.all(np.diff(data.paraphrases.group_offsets[:100]) >= 0)
    monkeypatch.setattr(_resources, "_LOADED", None)


def test_no_background_conversion_without_the_official_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CAPEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CAPEVAL_PYCOCOEVALCAP_DIR", str(tmp_path))  # holds no meteor-1.5.jar

    def started() -> None:
        raise AssertionError("a conversion was started although the data cannot be found")

    monkeypatch.setattr(_firstrun, "_start_conversion", started)
    _firstrun.prepare_first_use()  # returns at once: the caller's load reports the problem
    with pytest.raises(MeteorDataError, match="meteor-1.5.jar"):
        _resources.locate_pycocoevalcap()


def test_a_missing_official_package_fails_before_the_aligner_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # many items: the threaded path, where the aligner's code loads while the tables load
    monkeypatch.setenv("CAPEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CAPEVAL_PYCOCOEVALCAP_DIR", str(tmp_path))  # holds no meteor-1.5.jar
    monkeypatch.setattr(_resources, "_LOADED", None)

    loads: list[str] = []
    monkeypatch.setattr(_firstrun, "load_kernels", lambda: loads.append("kernels"))
    meteor = METEOR(tokenizer="none", n_threads=2)
    with pytest.raises(MeteorDataError, match="meteor-1.5.jar"):
        meteor.score_tokenized(candidates=["a dog runs"] * 3000, references=[["a dog is running"]] * 3000)
    assert loads == []


def test_a_conversion_started_ahead_is_the_one_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        _resources.locate_pycocoevalcap()
    except MeteorDataError as exc:
        pytest.skip(str(exc))
    monkeypatch.setenv("CAPEVAL_CACHE_DIR", str(tmp_path))  # nothing converted here yet
    started: list[subprocess.Popen[bytes]] = []

    def start() -> subprocess.Popen[bytes]:  # a real process standing in for the 8 s conversion
        started.append(subprocess.Popen([sys.executable, "-c", "pass"]))
        return started[-1]

    monkeypatch.setattr(_firstrun, "_start_conversion", start)
    METEOR(tokenizer="none").prefetch()  # what a scoring run does before it scores anything
    _firstrun.start_first_use()  # a second request starts nothing more
    assert len(started) == 1
    _firstrun.prepare_first_use()  # waits for that process instead of starting another
    assert len(started) == 1
    assert started[0].returncode == 0
    assert _firstrun._started is None


def test_no_early_conversion_when_the_tables_are_converted(meteor: METEOR, monkeypatch: pytest.MonkeyPatch) -> None:
    def started() -> None:
        raise AssertionError("a conversion was started although the tables are converted")

    monkeypatch.setattr(_firstrun, "_start_conversion", started)
    METEOR(tokenizer="none").prefetch()
    _firstrun.start_first_use()
    assert _firstrun._started is None
