"""The pycocoevalcap-compatible API: return types and shapes, key checks with clear messages."""

from __future__ import annotations

import numpy as np
import pytest

from capeval.compat import CompatInputError
from capeval.compat.pycocoevalcap.bleu.bleu import Bleu
from capeval.compat.pycocoevalcap.cider.cider import Cider
from capeval.compat.pycocoevalcap.eval import COCOEvalCap
from capeval.compat.pycocoevalcap.rouge.rouge import Rouge
from capeval.compat.pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

GTS = {1: ["a dog runs on the grass", "the dog is running"], 2: ["a cat sleeps", "a cat on a bed"], 3: ["two men"]}
RES = {1: ["a dog runs"], 2: ["a cat sleeping on a bed"], 3: ["two men talking"]}


def test_return_types_and_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    score, scores = Bleu(4).compute_score(GTS, RES)
    assert isinstance(score, list) and len(score) == 4 and all(type(s) is float for s in score)
    assert len(scores) == 4 and all(len(s) == 3 and type(s[0]) is float for s in scores)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("{'testlen': 12, 'reflen': 11, 'guess': [12, 9, 6, 3]") and printed[1].startswith(
        "ratio: "
    )
    Bleu(4).compute_score(GTS, RES, verbose=0)
    assert capsys.readouterr().out == ""
    for scorer in (Rouge(), Cider()):
        mean, per_image = scorer.compute_score(GTS, RES)
        assert type(mean) is np.float64 and per_image.shape == (3,) and per_image.dtype == np.float64


@pytest.mark.parametrize(
    ("gts", "res", "message"),
    [
        (GTS, {1: ["a"], 2: ["b"]}, r"1 image\(s\) have references but no candidate: 3"),
        (GTS, {**RES, 4: ["x"]}, r"1 image\(s\) have a candidate but no references: 4"),
        (GTS, {**RES, 1: ["a", "b"]}, r"res\[1\] must hold exactly one caption, got 2"),
        (GTS, {**RES, 1: "a dog"}, r"res\[1\] must be a list with one caption, got str"),
        ({**GTS, 2: []}, RES, r"gts\[2\] has no reference captions"),
        (GTS, {**RES, 3: [{"caption": "x"}]}, r"must be a caption string, got dict \(tokenize first"),
        ([], RES, "gts must be a dict"),
    ],
)
def test_key_checks_have_clear_messages(gts: object, res: object, message: str) -> None:
    with pytest.raises(CompatInputError, match=message) as info:
        Cider().compute_score(gts, res)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError) and isinstance(info.value, AssertionError)


def test_tokenizer() -> None:
    out = PTBTokenizer().tokenize({1: [{"caption": "A dog, running."}, {"caption": "Line\rbreak"}], 2: []})
    assert out == {1: ["a dog running", "line break"]}
    with pytest.raises(CompatInputError, match="image 1, entry 0: expected a dict with a 'caption' string"):
        PTBTokenizer().tokenize({1: ["a dog"]})


class _Coco:
    def __init__(self, anns: dict[int, list[dict[str, str]]]) -> None:
        self.imgToAnns = anns

    def getImgIds(self) -> list[int]:  # noqa: N802 - the pycocotools name
        return list(self.imgToAnns)


def test_cocoevalcap_names_images_without_results() -> None:
    gts = _Coco({k: [{"caption": c} for c in v] for k, v in GTS.items()})
    res = _Coco({1: [{"caption": "a dog"}], 2: [], 3: []})
    evaluator = COCOEvalCap(gts, res, verbose=False)
    with pytest.raises(CompatInputError, match=r"2 of 3 images .* have no caption in the results \(2, 3\)"):
        evaluator.evaluate()
