"""Shared pieces of the compatibility parity suites: the capeval side of the runner's call patterns."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import subprocess
from pathlib import Path
from typing import Any

from bench.oracle import oracle_dir, oracle_python
from tests.compat.official_compat_runner import describe

RUNNER = Path(__file__).with_name("official_compat_runner.py")
#: Acceptance bound on |capeval - official| for every number.
TOLERANCE = 1e-12


def run_official_compat(ann_path: Path, res_path: Path, timeout: float = 7200) -> dict[str, Any]:
    """The runner's output for these files, cached in the oracle directory by content hash."""
    digest = hashlib.sha256(ann_path.read_bytes() + res_path.read_bytes() + RUNNER.read_bytes()).hexdigest()[:16]
    cache = oracle_dir() / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    out_path = cache / f"official-compat-{digest}.json"
    if not out_path.exists():
        python = oracle_python(need_java=True)
        tmp = out_path.with_suffix(".tmp")
        subprocess.run(
            [str(python), str(RUNNER), str(ann_path), str(res_path), str(tmp)],
            check=True,
            capture_output=True,
            timeout=timeout,
        )
        tmp.replace(out_path)
    with open(out_path, encoding="utf-8") as fh:
        found: dict[str, Any] = json.load(fh)
    return found


def run_compat(ann_path: Path, res_path: Path) -> dict[str, Any]:
    """The same call patterns through ``capeval.compat.pycocoevalcap`` (only the imports differ)."""
    from pycocotools.coco import COCO

    from capeval.compat.pycocoevalcap.bleu.bleu import Bleu
    from capeval.compat.pycocoevalcap.cider.cider import Cider
    from capeval.compat.pycocoevalcap.eval import COCOEvalCap
    from capeval.compat.pycocoevalcap.meteor.meteor import Meteor
    from capeval.compat.pycocoevalcap.rouge.rouge import Rouge
    from capeval.compat.pycocoevalcap.spice.spice import Spice
    from capeval.compat.pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    out: dict[str, Any] = {}
    with contextlib.redirect_stdout(io.StringIO()):
        coco = COCO(str(ann_path))
        coco_res = coco.loadRes(str(res_path))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        evaluator = COCOEvalCap(coco, coco_res)
        evaluator.params["image_id"] = coco_res.getImgIds()
        evaluator.evaluate()
    out["eval"] = describe(evaluator.eval)
    out["imgToEval"] = describe(evaluator.imgToEval)
    out["evalImgs"] = describe(evaluator.evalImgs)
    out["printed"] = printed.getvalue()
    ids = coco_res.getImgIds()
    tokenizer = PTBTokenizer()
    gts = tokenizer.tokenize({i: coco.imgToAnns[i] for i in ids})
    res = tokenizer.tokenize({i: coco_res.imgToAnns[i] for i in ids})
    out["tokenized"] = describe([gts, res])
    calls: dict[str, Any] = {}
    with contextlib.redirect_stdout(io.StringIO()) as bleu_printed:
        calls["bleu4"] = Bleu(4).compute_score(gts, res)
        calls["bleu4_quiet"] = Bleu(4).compute_score(gts, res, verbose=0)
        calls["bleu2"] = Bleu(2).compute_score(gts, res, verbose=0)
    out["bleu_printed"] = bleu_printed.getvalue()
    calls["meteor"] = Meteor().compute_score(gts, res)
    calls["rouge"] = Rouge().compute_score(gts, res)
    calls["rouge_calc"] = [Rouge().calc_score(res[i], gts[i]) for i in ids[:50]]
    calls["cider"] = Cider().compute_score(gts, res)
    calls["cider_s3"] = Cider(sigma=3.0).compute_score(gts, res)
    calls["spice"] = Spice().compute_score(gts, res)
    sample = ids[:50]
    with contextlib.redirect_stdout(io.StringIO()):
        calls["bleu4_per_sample"] = [Bleu(4).compute_score({i: gts[i]}, {i: res[i]})[0][3] for i in sample]
    out["calls"] = {k: describe(v) for k, v in calls.items()}
    return out


def compare(ours: Any, official: Any, where: str, *, values: bool = True, diffs: list[float] | None = None) -> None:
    """Assert two :func:`describe` trees agree: same types and shapes, numbers within ``TOLERANCE``.

    With ``values=False`` (SPICE, whose official numbers cannot be produced here) only types,
    shapes and keys are compared. ``diffs`` collects every numeric difference.
    """
    kind, official_kind = ours[0], official[0]
    assert kind == official_kind, f"{where}: type {kind} != official {official_kind}"
    if kind == "ndarray":
        assert ours[1:3] == official[1:3], f"{where}: dtype/shape {ours[1:3]} != official {official[1:3]}"
        ours_items, official_items = ours[3], official[3]
    elif kind in ("list", "tuple"):
        ours_items, official_items = ours[1], official[1]
    elif kind == "dict":
        ours_keys = [k for k, _ in ours[1]]
        official_keys = [k for k, _ in official[1]]
        if values:
            assert ours_keys == official_keys, f"{where}: keys differ (or their order)"
        else:
            assert sorted(map(json.dumps, ours_keys)) == sorted(map(json.dumps, official_keys)), f"{where}: keys"
        official_map = {json.dumps(k): v for k, v in official[1]}
        for key, value in ours[1]:
            sub_values = values and key != ["str", "SPICE"]
            compare(value, official_map[json.dumps(key)], f"{where}[{key[1]!r}]", values=sub_values, diffs=diffs)
        return
    else:
        if not values:
            return
        a, b = ours[1], official[1]
        if kind in ("float", "float64"):
            if a is None or b is None:
                assert a is None and b is None, f"{where}: NaN on one side only ({a} vs {b})"
                return
            diff = abs(a - b)
            if diffs is not None:
                diffs.append(diff)
            assert diff <= TOLERANCE or (math.isinf(a) and a == b), f"{where}: {a!r} != official {b!r}"
        else:
            assert a == b, f"{where}: {a!r} != official {b!r}"
        return
    assert len(ours_items) == len(official_items), f"{where}: length {len(ours_items)} != {len(official_items)}"
    for i, (a, b) in enumerate(zip(ours_items, official_items, strict=True)):
        compare(a, b, f"{where}[{i}]", values=values, diffs=diffs)
