"""Training-style scripts (``scripts/``) that switch with their import lines only.

Each script is run as written (imports of ``capeval.compat``); the slow tests run the same file with
``capeval.compat.`` removed from its import lines under the official package and compare outputs.
"""

from __future__ import annotations

import json
import pickle
import random
import runpy
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.spice.grammar_fixture import default_grammar

SCRIPTS = Path(__file__).with_name("scripts")
DEMO = Path(__file__).resolve().parents[2] / "src" / "capeval" / "data" / "coco_demo"
TOLERANCE = 1e-12


def _run_here(script: str, *args: str) -> Any:
    out = Path(args[-1])
    saved = sys.argv
    sys.argv = [script, *args]
    try:
        runpy.run_path(str(SCRIPTS / script), run_name="__main__")
    finally:
        sys.argv = saved
    return json.loads(out.read_text())


def _run_official(script: str, *args: str, preamble: str = "") -> Any:
    from bench.oracle import OracleUnavailable, oracle_python

    try:
        python = oracle_python()
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    source = (SCRIPTS / script).read_text()
    lines = [line.replace("capeval.compat.", "") if line.startswith("from ") else line for line in source.splitlines()]
    official = Path(args[-1]).with_name(f"official_{script}")
    official.write_text(preamble + "\n".join(lines) + "\n")
    out = Path(args[-1]).with_suffix(".official.json")
    subprocess.run([str(python), str(official), *args[:-1], str(out)], check=True, capture_output=True, timeout=3600)
    return json.loads(out.read_text())


def _assert_close(ours: Any, official: Any, where: str = "") -> None:
    if isinstance(official, dict):
        assert ours.keys() == official.keys(), where
        for key in official:
            _assert_close(ours[key], official[key], f"{where}.{key}")
    elif isinstance(official, list):
        assert len(ours) == len(official), where
        for i, (a, b) in enumerate(zip(ours, official, strict=True)):
            _assert_close(a, b, f"{where}[{i}]")
    elif isinstance(official, float):
        assert abs(ours - official) <= TOLERANCE, f"{where}: {ours} vs {official}"
    else:
        assert ours == official, where


def _demo_subset(tmp: Path, n_images: int) -> tuple[Path, Path]:
    data = json.loads((DEMO / "captions_val2014_demo_subset.json").read_text())
    results = json.loads((DEMO / "captions_val2014_fakecap_results.json").read_text())
    keep = {img["id"] for img in data["images"][:n_images]}
    data["images"] = [img for img in data["images"] if img["id"] in keep]
    data["annotations"] = [a for a in data["annotations"] if a["image_id"] in keep]
    ann, res = tmp / "annotations.json", tmp / "results.json"
    ann.write_text(json.dumps(data))
    res.write_text(json.dumps([r for r in results if r["image_id"] in keep]))
    return ann, res


def _captions_file(tmp: Path, n_images: int) -> Path:
    data = json.loads((DEMO / "captions_val2014_demo_subset.json").read_text())
    results = {
        r["image_id"]: r["caption"] for r in json.loads((DEMO / "captions_val2014_fakecap_results.json").read_text())
    }
    refs: dict[int, list[str]] = defaultdict(list)
    for ann in data["annotations"]:
        refs[ann["image_id"]].append(ann["caption"])
    items = [{"candidate": results[i], "references": refs[i]} for i in list(results)[:n_images]]
    path = tmp / "captions.json"
    path.write_text(json.dumps(items))
    return path


def _reward_batch(tmp: Path, df: str = "coco-train-idxs", by_image: bool = False) -> tuple[Path, Path]:
    """A df pickle built as self-critical's prepro_ngrams builds it, and a batch of sampled captions
    (five samples and five greedy captions per image); ``df="corpus"`` counts the batch's own."""
    data = json.loads((DEMO / "captions_val2014_demo_subset.json").read_text())
    refs: dict[int, list[list[str]]] = defaultdict(list)
    for ann in data["annotations"]:
        refs[ann["image_id"]].append(ann["caption"].lower().replace(".", " ").replace(",", " ").split())
    counts: dict[str, int] = defaultdict(int)
    for sents in refs.values():
        for sent in sents:
            for w in sent:
                counts[w] += 1
    words = sorted(w for w, c in counts.items() if c > 2)
    word_to_ix = {w: str(i + 1) for i, w in enumerate(words)}
    word_to_ix["UNK"] = str(len(words) + 1)
    word_to_ix["<eos>"] = "0"
    image_ids = sorted(refs)
    train, batch_images = image_ids[:800], image_ids[800:816]

    def idxs(tokens: list[str]) -> str:
        return " ".join(word_to_ix[w if w in word_to_ix else "UNK"] for w in [*tokens, "<eos>"])

    document_frequency: defaultdict[tuple[str, ...], float] = defaultdict(float)
    for image in train:
        seen = set()
        for sent in refs[image]:
            tokens = idxs(sent).split()
            for k in range(1, 5):
                for i in range(len(tokens) - k + 1):
                    seen.add(tuple(tokens[i : i + k]))
        for ngram in seen:
            document_frequency[ngram] += 1
    (tmp / "data").mkdir(exist_ok=True)
    with open(tmp / "data" / "coco-train-idxs.p", "wb") as fh:
        pickle.dump({"document_frequency": document_frequency, "ref_len": len(train)}, fh)
    rng = random.Random(0)
    seq_per_img = 5
    images = [i for i in range(len(batch_images)) for _ in range(seq_per_img)]
    gts = {i: [idxs(s) for s in refs[image]] for i, image in enumerate(batch_images)}

    def sample(i: int) -> str:
        ref = rng.choice(gts[i]).split()[:-1]
        noisy = [w if rng.random() < 0.7 else rng.choice(list(word_to_ix.values())) for w in ref]
        return " ".join([*noisy[: rng.randint(1, len(noisy))], "0"])

    batch = {
        "df": df,
        "by_image": by_image,
        "gts": gts,
        "images": images,
        "samples": [sample(i) for i in images],
        "greedy": [sample(i) for i in images],
    }
    path = tmp / "batch.json"
    path.write_text(json.dumps(batch))
    return path, tmp


def test_eval_loop(tmp_path: Path) -> None:
    default_grammar()  # COCOEvalCap scores SPICE too, with its exact default parser
    ann, res = _demo_subset(tmp_path, 40)
    out = _run_here("eval_loop.py", str(ann), str(res), str(tmp_path / "out.json"))
    assert out["n_eval_imgs"] == 40 and len(out["per_image"]) == 40
    assert set(out) >= {"Bleu_4", "METEOR", "ROUGE_L", "CIDEr"}


def test_scorers_after_tokenizer(tmp_path: Path) -> None:
    from capeval import get_metric

    captions = _captions_file(tmp_path, 60)
    out = _run_here("scorers_after_tokenizer.py", str(captions), str(tmp_path / "out.json"))
    items = json.loads(captions.read_text())
    native = get_metric("cider-d").score(
        candidates=[i["candidate"] for i in items], references=[i["references"] for i in items]
    )
    assert abs(out["CIDEr"][0] - native.score) <= TOLERANCE
    assert len(out["per_sample_bleu4"]) == 60


def test_cider_reward(tmp_path: Path) -> None:
    batch, workdir = _reward_batch(tmp_path)
    out = _run_here("cider_reward.py", str(batch), str(workdir), str(tmp_path / "out.json"))
    scores = np.array(out["scores"])
    assert scores.shape == (160,) and np.isfinite(scores).all() and scores.max() > 0


def test_cider_reward_corpus_df_counts_a_shared_reference_list_once_per_entry(tmp_path: Path) -> None:
    """With corpus document frequencies, each entry of ``res`` counts its image's references, as in
    the official scorer: sharing one list among an image's samples, giving each sample its own copy
    and keying the entries by image id all give the same rewards."""
    from capeval.compat.pyciderevalcap.ciderD.ciderD import CiderD

    batch_path, workdir = _reward_batch(tmp_path, df="corpus")
    shared = _run_here("cider_reward.py", str(batch_path), str(workdir), str(tmp_path / "shared.json"))
    batch_path, workdir = _reward_batch(tmp_path, df="corpus", by_image=True)
    by_image = _run_here("cider_reward.py", str(batch_path), str(workdir), str(tmp_path / "by_image.json"))
    batch = json.loads(batch_path.read_text())
    captions = batch["samples"] + batch["greedy"]
    images = batch["images"] + batch["images"]
    res = [{"image_id": i, "caption": [c]} for i, c in enumerate(captions)]
    copies = {i: list(batch["gts"][str(image)]) for i, image in enumerate(images)}
    _, scores = CiderD(df="corpus").compute_score(copies, res)
    np.testing.assert_allclose(shared["scores"], scores, rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(by_image["scores"], scores, rtol=0, atol=TOLERANCE)
    # One sample per image: nothing is shared, the native metric with reference frequencies agrees.
    from capeval.metrics.cider import CIDErD

    first = [images.index(i) for i in sorted(set(images))]
    native = CIDErD(tokenizer="none").score(
        candidates=[captions[i] for i in first], references=[copies[i] for i in first]
    )
    single = CiderD(df="corpus").compute_score({i: copies[i] for i in first}, [res[i] for i in first])[1]
    np.testing.assert_allclose(single, native.item_scores, rtol=0, atol=TOLERANCE)


_SPICE_STUB = (
    (Path(__file__).with_name("official_compat_runner.py").read_text().split("def main")[0]) + "_patch_spice()\n"
)


@pytest.mark.slow
def test_eval_loop_official(tmp_path: Path) -> None:
    ann, res = _demo_subset(tmp_path, 1000)
    ours = _run_here("eval_loop.py", str(ann), str(res), str(tmp_path / "out.json"))
    official = _run_official("eval_loop.py", str(ann), str(res), str(tmp_path / "out.json"), preamble=_SPICE_STUB)
    _assert_close(ours, official)


@pytest.mark.slow
def test_scorers_after_tokenizer_official(tmp_path: Path) -> None:
    captions = _captions_file(tmp_path, 1000)
    ours = _run_here("scorers_after_tokenizer.py", str(captions), str(tmp_path / "out.json"))
    official = _run_official("scorers_after_tokenizer.py", str(captions), str(tmp_path / "out.json"))
    _assert_close(ours, official)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("df", "by_image"),
    [("coco-train-idxs", False), ("corpus", False), ("corpus", True)],
    ids=["cached", "corpus", "corpus-by-image"],
)
def test_cider_reward_official(tmp_path: Path, df: str, by_image: bool) -> None:
    """Five samples and five greedy captions per image, the rewards of the official scorer within 1e-12:
    with cached document frequencies, and with the batch's own (``df="corpus"``), where the references
    of an image count once per entry that names them."""
    from bench.oracle import OracleUnavailable, oracle_python

    try:
        python = oracle_python(need_java=False)
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    batch, workdir = _reward_batch(tmp_path, df=df, by_image=by_image)
    ours = _run_here("cider_reward.py", str(batch), str(workdir), str(tmp_path / "out.json"))
    official_out = tmp_path / "official.json"
    harness = Path(__file__).with_name("official_ciderd.py")
    subprocess.run([str(python), str(harness), str(batch), str(workdir), str(official_out)], check=True, timeout=600)
    _assert_close(ours, json.loads(official_out.read_text()))
