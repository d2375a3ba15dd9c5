"""SPICE scoring core against the official code, run live.

The official SPICE 1.0 classes (``spice-1.0.jar`` from pycocoevalcap 1.2) build the scene
graphs, merge the references, make the tuple sets and match them; only the parser needs the
Stanford CoreNLP download, which cannot be installed here. So both sides are fed the same raw
tuples (capeval's parser output on COCO val2014 captions, and random tuples over words that
share WordNet synsets) and must agree on every count of every category, and on the F-score
bit for bit. The synsets of every concept word are compared with METEOR 1.5's own lookup.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from bench.oracle import OracleUnavailable, human_agreement_protocol, run_spice_core

from capeval.metrics.spice import SPICE
from capeval.metrics.spice.metric import PrecomputedParser
from capeval.metrics.spice.score import CATEGORIES

pytestmark = pytest.mark.slow

#: COCO val2014 images parsed for the comparison (first caption against the next four).
N_IMAGES = 1000
#: Columns per category in SPICE's statistics rows, and where tp, fp, fn sit among them.
_WIDTH, _COUNTS = 7, slice(4, 7)


def _official(mode: str, payload: Any, *, exact: bool = False) -> list[str]:
    try:
        return run_spice_core(mode, payload, exact=exact)
    except OracleUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def parsed() -> dict[str, Any]:
    """Candidates and references of the first val2014 images, with capeval's raw tuples."""
    from capeval.metrics.spice.spacy_parser import SpacyParser

    try:
        protocol = human_agreement_protocol()
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    candidates = protocol["candidates"][:N_IMAGES]
    references = protocol["references"][:N_IMAGES]
    texts = sorted(set(candidates) | {r for refs in references for r in refs})
    return {
        "candidates": candidates,
        "references": references,
        "tuples": dict(zip(texts, SpacyParser().parse(texts), strict=True)),
    }


def _compare(
    candidates: list[str], references: list[list[str]], tuples: dict[str, list[list[str]]], exact: bool
) -> None:
    payload = [
        {"test": tuples[c], "refs": [tuples[r] for r in refs]} for c, refs in zip(candidates, references, strict=True)
    ]
    official = [line.split() for line in _official("score", payload, exact=exact)]
    assert len(official) == len(candidates)
    metric = SPICE(tokenizer="none", parser=PrecomputedParser(tuples), cache=False, synonyms=not exact, detailed=False)
    result = metric.score(candidates=candidates, references=references)
    ours = np.concatenate([result.stats[:, k * _WIDTH :][:, _COUNTS] for k in range(len(CATEGORIES))], axis=1)
    expected = np.array([[int(v) for v in row[:-1]] for row in official])
    differ = np.flatnonzero((ours != expected).any(axis=1))
    assert differ.size == 0, (
        f"{differ.size} items differ; first: {candidates[differ[0]]!r} "
        f"capeval {ours[differ[0]].tolist()} official {expected[differ[0]].tolist()}"
    )
    # The F-score bit for bit (Java prints doubles so that they read back exactly).
    f_official = np.array([float(row[-1]) for row in official])
    assert np.array_equal(result.item_scores, f_official)


@pytest.mark.parametrize("exact", [False, True], ids=["synsets", "exact"])
def test_scoring_equals_official_on_parsed_captions(parsed: dict[str, Any], exact: bool) -> None:
    _compare(parsed["candidates"], parsed["references"], parsed["tuples"], exact)


def test_scoring_equals_official_on_random_tuples() -> None:
    """Tuples over words with shared synsets (car/auto/automobile, dog/puppy/pup/tail, colour
    and size words, counts, relations with and without "be "): merging order, merged
    concepts matching several tuples, duplicate relations, every category."""
    objects = "car auto automobile motorcar dog puppy pup tail hound man person guy boy child kid street".split()
    objects += "road grass ball frisbee".split()
    attributes = "red crimson white small little large big two 2 three wooden young stone-gray stone-grey".split()
    attributes += "run running".split()
    relations = ["on", "be on", "near", "next to", "ride", "sit on", "chase", "follow", "dog", "tail", "in"]
    relations += ["be in", "hold", "carry"]
    rng = random.Random(0)

    def caption() -> list[list[str]]:
        out: list[list[str]] = []
        for _ in range(rng.randint(0, 7)):
            kind = rng.random()
            if kind < 0.3:
                out.append([rng.choice(objects)])
            elif kind < 0.65:
                out.append([rng.choice(objects), rng.choice(attributes)])
            else:
                out.append([rng.choice(objects), rng.choice(objects), rng.choice(relations)])
        return out

    tuples: dict[str, list[list[str]]] = {}
    candidates, references = [], []
    for i in range(500):
        candidates.append(f"c{i}")
        tuples[f"c{i}"] = caption()
        references.append([f"r{i}.{j}" for j in range(rng.randint(1, 5))])
        for r in references[-1]:
            tuples[r] = caption()
    for exact in (False, True):
        _compare(candidates, references, tuples, exact)


def test_synsets_equal_meteor_on_caption_vocabulary(parsed: dict[str, Any]) -> None:
    """Every concept of the parsed tuples and every caption token: METEOR 1.5's synsets
    (``getSynSets`` + ``getStemSynSets`` of the lower-cased, underscore-joined string)."""
    from capeval.metrics.spice.synonyms import load_synonyms

    words = {w for caption in parsed["tuples"].values() for t in caption for w in t}
    words |= {w for text in parsed["tuples"] for w in text.lower().split()}
    words = sorted(w for w in words if w.strip() and "\n" not in w and "\r" not in w)
    official = _official("synsets", words)
    assert len(official) == len(words)
    synonyms = load_synonyms()
    wrong = []
    for word, line in zip(words, official, strict=True):
        _, _, ids = line.partition("\t")
        if synonyms.concept_synsets(word) != frozenset(int(x) for x in ids.split()):
            wrong.append(word)
    assert not wrong, f"{len(wrong)} of {len(words)} words differ, e.g. {wrong[:5]}"
