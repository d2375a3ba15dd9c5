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


def _compat_calls() -> list[tuple[str, object]]:
    from capeval.compat.pycocoevalcap.bleu.bleu import Bleu
    from capeval.compat.pycocoevalcap.cider.cider import Cider
    from capeval.compat.pycocoevalcap.meteor.meteor import Meteor
    from capeval.compat.pycocoevalcap.rouge.rouge import Rouge

    return [
        ("Bleu", lambda gts, res: Bleu(4).compute_score(gts, res, verbose=0)),
        ("Meteor", lambda gts, res: Meteor().compute_score(gts, res)),
        ("Rouge", lambda gts, res: Rouge().compute_score(gts, res)),
        ("Cider", lambda gts, res: Cider().compute_score(gts, res)),
    ]


def test_compat_scorers_name_the_image_of_an_empty_candidate() -> None:
    """Each compat scorer warns by image id (not position), CIDEr included, at the calling line."""
    from capeval.metrics.meteor._resources import MeteorDataError, load_meteor_data

    try:
        load_meteor_data()
    except MeteorDataError as exc:
        pytest.skip(str(exc))
    gts = {k: [r.lower().rstrip(".") for r in v] for k, v in REFS.items()}
    res = {k: [v] for k, v in CANDS.items()}
    for name, call in _compat_calls():
        with pytest.warns(EmptyCandidateWarning) as caught:
            call(gts, res)
        messages = [str(w.message) for w in caught]
        assert messages == [
            f"{name}: 1 empty candidate caption(s) (image 102): scored as the official code scores them (0)"
        ]
        assert caught[0].filename == __file__


def test_compat_evaluation_loop_warns_once_by_image_id() -> None:
    from capeval.compat.pycocoevalcap.eval import COCOEvalCap

    class Captions:
        def __init__(self, captions: dict[int, list[str]]) -> None:
            self.imgToAnns = {k: [{"image_id": k, "caption": c} for c in v] for k, v in captions.items()}

        def getImgIds(self) -> list[int]:
            return list(self.imgToAnns)

    evaluator = COCOEvalCap(Captions(REFS), Captions({**{k: [v] for k, v in CANDS.items()}, 102: ["..."]}))
    evaluator._scorers = lambda: [pair for pair in COCOEvalCap._scorers(evaluator) if pair[1] in ("ROUGE_L", "CIDEr")]
    with pytest.warns(EmptyCandidateWarning) as caught:
        evaluator.evaluate()
    assert [str(w.message) for w in caught] == [
        "COCOEvalCap: 1 empty candidate caption(s) (image 102): scored as the official code scores them (0)"
    ]
    assert evaluator.imgToEval[102]["CIDEr"] == 0.0


def test_compat_cider_rewards_name_the_image_of_an_empty_sample() -> None:
    from capeval.compat.pyciderevalcap.ciderD.ciderD import CiderD

    gts = {k: [r.lower().rstrip(".") for r in v] for k, v in REFS.items()}
    res = [{"image_id": k, "caption": [c]} for k, c in CANDS.items()] + [{"image_id": 103, "caption": [""]}]
    with pytest.warns(EmptyCandidateWarning, match=r"^CiderD: 2 empty candidate caption\(s\) \(image 102, 103\)"):
        _, scores = CiderD().compute_score(gts, res)
    assert scores[1] == 0.0 and scores[3] == 0.0 and scores[0] > 0
