"""SPICE from the official pipeline's stages against the unmodified jar, run live.

Both sides start from the same text: the jar (``bench.oracle.run_spice``, ``-subset -detailed``)
parses it with Stanford CoreNLP 3.6.0 and scores; capeval reads the stages the same pipeline
computes (``bench.oracle.run_stages``) and does everything after them (graph reading,
enhancements, rules, scene graphs, scoring). Items must agree in every tuple, truth value and
category value (ties the jar breaks by identity hash: see ``tests/spice/official.py``).

* the whole COCO caption-evaluation demo (1,000 images, COCOEvalCap's PTB-tokenized input);
* 2,000 COCO val2014 captions one by one (1,000 as written, 1,000 PTB-tokenized as COCOEvalCap
  feeds them), each the candidate against one fixed reference;
* 400 random graphs through SPICE's own rules (``run_graph_tuples``): raw tuples in order.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from tests.spice.official import check_item

from capeval.metrics.spice.rules import extract_tuples
from capeval.metrics.spice.semgraph import NodeData, SemanticGraph
from capeval.metrics.spice.stages import tuples_from_stage

pytestmark = pytest.mark.slow

#: The reference every single caption is scored against.
DUMMY_REFERENCE = "a dog"


def _oracle() -> Any:
    import bench.oracle as oracle

    try:
        oracle.spice_full_dir()
    except oracle.OracleUnavailable as exc:
        pytest.skip(str(exc))
    return oracle


def _compare(items: list[dict[str, Any]], threads: int = 2) -> tuple[int, list[Any]]:
    """Stages and jar for ``items``; returns (tied items, items that differ)."""
    oracle = _oracle()
    captions = list(dict.fromkeys(c for item in items for c in [item["test"], *item["refs"]]))
    stages = {s["caption"]: s for s in oracle.run_stages(captions, threads=threads)}
    official = oracle.run_spice(items, threads=threads)
    assert [o["image_id"] for o in official] == [i["image_id"] for i in items]
    tied, wrong = 0, []
    for item, entry in zip(items, official, strict=True):
        test = tuples_from_stage(stages[item["test"]])
        refs = [tuples_from_stage(stages[r]) for r in item["refs"]]
        diff, had_ties = check_item(test, refs, entry)
        tied += had_ties
        if diff:
            wrong.append((item["image_id"], item["test"], diff[:3]))
    return tied, wrong


def test_coco_demo_every_image() -> None:
    from capeval.data import demo_paths
    from capeval.io import load_corpus
    from capeval.tokenizers.base import get_tokenizer

    corpus = load_corpus(*demo_paths())
    ptb = get_tokenizer("ptb")
    cands = ptb.tokenize(list(corpus.candidates))
    flat = iter(ptb.tokenize([r for refs in corpus.references for r in refs]))
    refs = [[next(flat) for _ in item] for item in corpus.references]
    order = sorted(range(len(corpus)), key=lambda k: corpus.ids[k])  # type: ignore[no-any-return]
    items = [{"image_id": corpus.ids[k], "test": cands[k], "refs": refs[k]} for k in order]
    _, wrong = _compare(items)
    assert not wrong, f"{len(wrong)} of {len(items)} images differ: {wrong[:3]}"


def test_val2014_captions_one_by_one() -> None:
    oracle = _oracle()
    from capeval.tokenizers.base import get_tokenizer

    with open(oracle.val2014_captions(), encoding="utf-8") as fh:
        annotations = json.load(fh)["annotations"]
    rng = random.Random(2016)
    raw = sorted({" ".join(a["caption"].split()) for a in rng.sample(annotations, 1100)})[:1000]
    ptb = sorted(set(get_tokenizer("ptb").tokenize([a["caption"] for a in rng.sample(annotations, 1100)])))[:1000]
    items = [{"image_id": k, "test": c, "refs": [DUMMY_REFERENCE]} for k, c in enumerate(raw + ptb) if c]
    _, wrong = _compare(items)
    assert not wrong, f"{len(wrong)} of {len(items)} captions differ: {wrong[:3]}"


_WORDS = {
    "NN": "man dog lot couple pair front top bunch number kind group water Lot bit".split(),
    "NNS": "men dogs lots pairs horses people tons dozens 1950s kinds".split(),
    "NNP": ["Bob"],
    "VBG": "riding holding sitting".split(),
    "VBZ": "is rides has".split(),
    "VBN": "eaten parked".split(),
    "JJ": "red tall many several".split(),
    "PRP": "it he them one It".split(),
    "PRP$": "his their its".split(),
    "DT": "a an the some all both A".split(),
    "IN": "of on in by Of".split(),
    "CD": "two one 12 ten".split(),
    "RP": ["up"],
}
_LEMMAS = {"men": "man", "dogs": "dog", "lots": "lot", "is": "be", "rides": "ride", "riding": "ride", "his": "he"}
_RELATIONS = (
    "nsubj nsubj nsubjpass dobj iobj nmod:on nmod:in_front_of nmod:of nmod:poss nmod:agent nmod:tmod nmod acl acl "
    "acl:relcl amod nummod compound compound:prt cop case mwe det conj:and cc dep det:qmod"
).split()


def _random_document(rng: random.Random) -> dict[str, Any]:
    sentences = []
    for _ in range(rng.choice([1, 1, 2])):
        n = rng.choice([2, 4, 8, 13, 17, 22, 33])
        nodes = []
        for i in range(1, n + 1):
            tag = rng.choice(list(_WORDS))
            word = rng.choice(_WORDS[tag])
            nodes.append([i, 0, word, tag, _LEMMAS.get(word, word if tag == "NNP" else word.lower())])
        for _ in range(rng.choice([0, 0, 1])):
            j = rng.randrange(n)
            nodes.append([nodes[j][0], 1, *nodes[j][2:]])
        keys = [(x[0], x[1]) for x in nodes]
        order = list(range(1, n + 1))
        rng.shuffle(order)
        rank = {v: k for k, v in enumerate(order)}
        edges = [[rng.choice(_RELATIONS), [order[rng.randrange(k)], 0], [order[k], 0]] for k in range(1, n)]
        for _ in range(rng.choice([0, 2, 5])):
            a, b = rng.choice(keys), rng.choice(keys)
            if rank[a[0]] > rank[b[0]]:
                a, b = b, a
            edges.append([rng.choice(_RELATIONS), list(a), list(b)])
        for key in keys:
            if key[1]:
                edges.append(["conj:and", [key[0], 0], list(key)])
                edges.append([rng.choice(_RELATIONS), list(key), list(rng.choice(keys))])
        rng.shuffle(edges)
        sentences.append({"nodes": nodes, "edges": edges, "roots": [[order[0], 0]]})
    return {"sentences": sentences}


def test_random_graphs_give_the_jars_raw_tuples() -> None:
    oracle = _oracle()
    rng = random.Random(36)
    documents = [_random_document(rng) for _ in range(400)]
    jar = oracle.run_graph_tuples(documents)
    compared, wrong = 0, []
    for document, expected in zip(documents, jar, strict=True):
        if isinstance(expected, dict):  # the jar fails on this graph (its pronoun search loops)
            continue
        compared += 1
        ours: list[list[str]] = []
        for k, sentence in enumerate(document["sentences"]):
            sg = SemanticGraph(k)
            for index, copy, word, tag, lemma in sentence["nodes"]:
                sg.declare((index, copy), NodeData(word, tag, lemma))
                sg.add_vertex((index, copy))
            for rel, gov, dep in sentence["edges"]:
                sg.add_edge(tuple(gov), tuple(dep), rel)  # type: ignore[arg-type]
            for root in sentence["roots"]:
                sg.add_root(tuple(root))  # type: ignore[arg-type]
            ours.extend(extract_tuples(sg))
        if ours != expected:
            wrong.append(document)
    assert compared > 300
    assert not wrong, f"{len(wrong)} of {compared} graphs differ; first: {json.dumps(wrong[0])[:2000]}"
