"""The compatibility layer against the official pycocoevalcap 1.2, run live (slow).

Every class and call pattern of :mod:`capeval.compat.pycocoevalcap` must return what the official
code returns: same types, shapes, keys and numbers (within 1e-12), on the COCO demo and on the
val2014 human-agreement protocol (first caption vs the next four). SPICE is compared for types,
shapes and keys only: this suite replaces the SPICE jar call by a stand-in (it needs no CoreNLP models).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from bench.oracle import OracleUnavailable, val2014_captions
from tests.compat._parity import compare, run_compat, run_official_compat

pytestmark = pytest.mark.slow

DEMO = Path(__file__).resolve().parents[2] / "src" / "capeval" / "data" / "coco_demo"
#: Images of val2014 in the protocol run (the whole 40,504 with CAPEVAL_COMPAT_VAL2014=all).
VAL2014_IMAGES = os.environ.get("CAPEVAL_COMPAT_VAL2014", "5000")


def _protocol_files(tmp: Path) -> tuple[Path, Path]:
    with open(val2014_captions(), encoding="utf-8") as fh:
        data = json.load(fh)
    images = data["images"] if VAL2014_IMAGES == "all" else data["images"][: int(VAL2014_IMAGES)]
    wanted = {img["id"] for img in images}
    by_image: dict[int, list[dict[str, Any]]] = {}
    for ann in data["annotations"]:
        if ann["image_id"] in wanted:
            by_image.setdefault(ann["image_id"], []).append(ann)
    results = [{"image_id": img["id"], "caption": by_image[img["id"]][0]["caption"]} for img in images]
    annotations = [ann for img in images for ann in by_image[img["id"]][1:5]]
    ann_path, res_path = tmp / "protocol_annotations.json", tmp / "protocol_results.json"
    ann_path.write_text(
        json.dumps(
            {**{k: v for k, v in data.items() if k != "annotations"}, "images": images, "annotations": annotations}
        ),
        encoding="utf-8",
    )
    res_path.write_text(json.dumps(results), encoding="utf-8")
    return ann_path, res_path


def _check(ann_path: Path, res_path: Path) -> None:
    try:
        official = run_official_compat(ann_path, res_path)
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    ours = run_compat(ann_path, res_path)
    diffs: list[float] = []
    for key in ("eval", "imgToEval", "evalImgs", "tokenized"):
        compare(ours[key], official[key], key, diffs=diffs)
    for name, value in official["calls"].items():
        compare(ours["calls"][name], value, name, values=name != "spice", diffs=diffs)
    assert ours["bleu_printed"] == official["bleu_printed"]
    strip = [line for line in official["printed"].splitlines() if not line.startswith("SPICE:")]
    assert [line for line in ours["printed"].splitlines() if not line.startswith("SPICE:")] == strip
    print(f"compared {len(diffs)} numbers; max |diff| = {max(diffs):.3g}")


def test_coco_demo() -> None:
    """The official demo: 1,000 val2014 images with its fake results, every call pattern."""
    _check(DEMO / "captions_val2014_demo_subset.json", DEMO / "captions_val2014_fakecap_results.json")


def test_val2014_protocol(tmp_path: Path) -> None:
    """val2014 human agreement: each image's first caption against its next four."""
    try:
        ann_path, res_path = _protocol_files(tmp_path)
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    _check(ann_path, res_path)
