"""Empty candidates: scored as the official code scores them, the same in the CLI and the Python API,
with a warning naming the images (``--strict``: an error). Dict inputs in the Python API."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from capeval import get_metric
from capeval.cli.main import main
from capeval.metrics.base import EmptyCandidateWarning

CANDS = {101: "a dog runs on the grass", 102: "", 103: "a cat sleeping on a bed"}
REFS = {
    101: ["A dog running in a field.", "The dog is on the grass."],
    102: ["Two men talking.", "Two people are standing."],
    103: ["A cat is sleeping.", "A cat on a bed."],
}


def test_python_api_scores_empty_candidates_and_warns() -> None:
    metric = get_metric("cider-d")
    with pytest.warns(EmptyCandidateWarning, match=r"1 empty candidate caption\(s\) \(image 102\)"):
        result = metric.score(candidates=list(CANDS.values()), references=list(REFS.values()), ids=list(CANDS))
    assert result.item_scores[1] == 0.0 and result.item_scores[0] > 0


def test_dict_inputs_equal_list_inputs() -> None:
    metric = get_metric("bleu")
    with pytest.warns(EmptyCandidateWarning):
        from_dicts = metric.score(candidates=CANDS, references=REFS)
        from_lists = metric.score(candidates=list(CANDS.values()), references=list(REFS.values()))
        single = metric.score(candidates={k: [v] for k, v in CANDS.items()}, references=REFS)
    assert from_dicts.ids == (101, 102, 103)
    np.testing.assert_array_equal(from_dicts.item_scores, from_lists.item_scores)
    np.testing.assert_array_equal(single.item_scores, from_lists.item_scores)
    with pytest.raises(ValueError, match="no references"):
        metric.score(candidates={1: "a"}, references={2: ["a"]})
    with pytest.raises(ValueError, match="both as lists or both as"):
        metric.score(candidates=CANDS, references=list(REFS.values()))


def test_cli_scores_empty_candidates_like_the_api(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "results.json"
    results.write_text(json.dumps([{"image_id": k, "caption": v} for k, v in CANDS.items()]))
    refs = tmp_path / "refs.json"
    refs.write_text(json.dumps({str(k): v for k, v in REFS.items()}))
    per_image = tmp_path / "per_image.json"
    args = ["score", "--results", str(results), "--references", str(refs), "--metrics", "cider-d", "--format", "json"]
    assert main([*args, "--per-image", str(per_image)]) == 0
    err = capsys.readouterr().err
    assert "1 empty candidate caption(s) (image 102)" in err and "--strict" in err
    with pytest.warns(EmptyCandidateWarning):
        api = get_metric("cider-d").score(candidates=CANDS, references=REFS)
    cli = json.loads(per_image.read_text())
    assert [cli[str(k)]["CIDEr"] for k in CANDS] == api.item_scores.tolist()
    assert main([*args, "--strict"]) == 2
    assert "empty candidate caption(s) (image 102)" in capsys.readouterr().err
