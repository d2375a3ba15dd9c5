"""Tree -> UD v1 dependencies against CoreNLP 3.6.0, run live.

1. Fresh COCO val2014 captions (first caption of each image in the human-agreement protocol,
   outside the stage files and the fixtures: md5(caption) % 10 >= 7), raw and as COCOEvalCap
   feeds SPICE (capeval's PTB tokenizer with the COCO punctuation filter), through the complete
   official SPICE pipeline; from its trees, the converter must give its basic and CCprocessed
   dependencies exactly.
2. Trees no parser wrote: the fixture's trees mutated at random (labels and tags swapped,
   words replaced by ones the rules look at, constituents added and removed, sentences joined),
   run through CoreNLP's converter on its own (``bench/oracle/corenlp_ud``), first and second
   sentence of a text.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from bench.oracle import OracleUnavailable, human_agreement_protocol, run_stages
from bench.oracle.corenlp_ud import run_ud_trees

from capeval.metrics.spice.corenlp.ccprocessed import ccprocessed
from capeval.metrics.spice.corenlp.dependencies import basic
from capeval.metrics.spice.corenlp.trees import Tree, read_tree
from capeval.tokenizers.ptb import PTBTokenizer

pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parents[1] / "data" / "spice"
#: Captions per text form, and mutated trees per sentence position.
N_CAPTIONS, N_TREES = 1000, 3000


def _held_out(text: str) -> bool:
    return int(hashlib.md5(text.encode("utf-8")).hexdigest(), 16) % 10 >= 7


def _check(results: list[dict[str, Any]]) -> tuple[int, list[str]]:
    total = 0
    differ: list[str] = []
    for result in results:
        for i, s in enumerate(result["sentences"]):
            total += 1
            b = [list(e) for e in basic(s["tree"], sentence_index=i)]
            c = [list(e) for e in ccprocessed(s["tree"], sentence_index=i)]
            if b != s["basic"] or c != s["ccprocessed"]:
                differ.append(s["tree"])
    return total, differ


@pytest.fixture(scope="module")
def captions() -> list[str]:
    try:
        protocol = human_agreement_protocol()
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    fresh = [c.replace("\n", " ").strip() for c in protocol["candidates"] if _held_out(c)]
    return list(dict.fromkeys(c for c in fresh if c))[: 2 * N_CAPTIONS]


@pytest.mark.parametrize("form", ["raw", "ptb"])
def test_fresh_captions(captions: list[str], form: str) -> None:
    texts = captions[:N_CAPTIONS] if form == "raw" else captions[N_CAPTIONS:]
    if form == "ptb":
        texts = [t for t in PTBTokenizer().tokenize(texts) if t.strip()]
    try:
        results = run_stages(texts)
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    total, differ = _check(results)
    assert total >= len(texts)
    assert not differ, f"{len(differ)} of {total} sentences differ, e.g. {differ[:3]}"


# --- mutated trees ---------------------------------------------------------------------------------
_PHRASES = (
    "S SBAR SQ SINV SBARQ VP NP PP ADJP ADVP FRAG UCP QP WHNP WHADVP WHPP WHADJP PRN X NX NML RRC CONJP NP-TMP INTJ "
    "NAC PRT"
).split()
_WORDS = [
    tuple(pair.split("/"))
    for pair in (
        "not/RB n't/RB never/RB no/DT there/EX that/IN that/WDT which/WDT who/WP whose/WP$ what/WP when/WRB "
        "where/WRB how/WRB etc/FW both/DT both/CC either/CC all/PDT each/DT by/IN 's/POS 's/VBZ than/IN as/IN so/RB "
        "now/RB order/NN seems/VBZ became/VBD is/VBZ are/VBP was/VBD been/VBN being/VBG gets/VBZ got/VBD told/VBD "
        "ask/VB know/VBP has/VBZ had/VBD to/TO will/MD and/CC or/CC but/CC also/RB yet/RB rather/RB only/RB in/IN "
        "front/NN of/IN on/IN top/NN next/JJ out/IN with/IN close/RB from/IN up/RP down/RP at/IN least/JJS such/JJ "
        "because/IN whether/IN while/IN after/IN including/VBG according/VBG himself/PRP it/PRP his/PRP$ day/NN "
        "today/NN old/JJ $/$ 5/CD #/# ,/, :/: ;/: ``/`` ''/'' -LRB-/-LRB- -RRB-/-RRB- ./. oh/UH NASA/NNP man/NN "
        "men/NNS sits/VBZ sitting/VBG parked/VBN red/JJ bigger/JJR quickly/RB more/JJR let/VB alone/RB kind/NN "
        "between/IN well/RB fallen/VBN appear/VBP"
    ).split()
]
_TAGS = sorted({t for _, t in _WORDS})


def _mutate(tree: Tree, rng: random.Random) -> None:
    for _ in range(rng.randint(2, 10)):
        nodes: list[tuple[Tree, Tree | None]] = []
        stack: list[tuple[Tree, Tree | None]] = [(tree, None)]
        while stack:
            node, parent = stack.pop()
            nodes.append((node, parent))
            stack.extend((k, node) for k in node.children)
        phrases = [(n, p) for n, p in nodes if n.children and not n.is_preterminal() and p is not None]
        tags = [(n, p) for n, p in nodes if n.is_preterminal() and p is not None]
        r = rng.random()
        if r < 0.25 and phrases:
            rng.choice(phrases)[0].label = rng.choice(_PHRASES)
        elif r < 0.55 and tags:
            node = rng.choice(tags)[0]
            node.children[0].label, node.label = rng.choice(_WORDS)
        elif r < 0.65 and tags:
            rng.choice(tags)[0].label = rng.choice(_TAGS)
        elif r < 0.8 and phrases:
            node = rng.choice(phrases)[0]
            i = rng.randrange(len(node.children))
            j = rng.randrange(i, len(node.children))
            if j > i:
                node.children[i : j + 1] = [Tree(rng.choice(_PHRASES), node.children[i : j + 1])]
        elif r < 0.9 and phrases:
            node, parent = rng.choice(phrases)
            assert parent is not None
            i = next(k for k, c in enumerate(parent.children) if c is node)
            parent.children[i : i + 1] = node.children
        elif tags:
            node, parent = rng.choice(tags)
            assert parent is not None
            i = next(k for k, c in enumerate(parent.children) if c is node)
            word, tag = rng.choice(_WORDS)
            parent.children.insert(i + rng.randint(0, 1), Tree(tag, [Tree(word)]))


@pytest.fixture(scope="module")
def mutated() -> list[str]:
    with gzip.open(DATA / "corenlp_ud_dev_sample.jsonl.gz", "rt", encoding="utf-8") as fh:
        seeds = [json.loads(line)["tree"] for line in fh]
    rng = random.Random(27)
    out = []
    for _ in range(N_TREES):
        tree = read_tree(rng.choice(seeds))
        if rng.random() < 0.3:
            other = read_tree(rng.choice(seeds))
            joiner = Tree(rng.choice(["CC", ","]), [Tree(rng.choice(["and", "or", ","]))])
            tree = Tree("ROOT", [Tree(rng.choice(["S", "NP", "FRAG"]), [tree.children[0], joiner, other.children[0]])])
        _mutate(tree, rng)
        out.append(str(read_tree(str(tree))))
    return out


@pytest.mark.parametrize("sentence_index", [0, 1])
def test_mutated_trees(mutated: list[str], sentence_index: int) -> None:
    try:
        official = run_ud_trees(mutated, sentence_index=sentence_index)
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    differ = []
    for tree, want in zip(mutated, official, strict=True):
        try:
            got = {
                "basic": [list(e) for e in basic(tree, sentence_index=sentence_index)],
                "ccprocessed": [list(e) for e in ccprocessed(tree, sentence_index=sentence_index)],
            }
        except ValueError as exc:
            got = {"error": str(exc)}
        if ("error" in want) != ("error" in got) or ("error" not in want and got != want):
            differ.append(tree)
    assert not differ, f"{len(differ)} of {len(mutated)} trees differ, e.g. {differ[:3]}"


# --- second sentences ------------------------------------------------------------------------------
#: COCO val2014 captions (CC BY 4.0) whose dependencies change when the sentence is not the first of
#: its text: CoreNLP hashes a word by its position plus 29 times the sentence number, and the order
#: in which it visits words decides a label or an attachment in each of them.
SENTENCE_ORDER_SENSITIVE = [
    "Picture from inside the front seat of a car driving down a highway.",
    "An empty commercial kitchen with bowls on the counter and stacks of trays on the shelf above.",
    "a boy in a baseball hat stands in a dirt area with his baseball glove on",
    "room full of electronic and musical equipment with family photos",
    "an oval white dinner plate has a crispy chicken or fish sandwich with tomato and lettuce and a side of coleslaw",
    "restroom full of many urinals with smell eliminators",
    "cat staring into the camera in the day time",
    "raining with umbrella outside in the rain light on",
    "cat staring at something behind him while sitting in front of tv",
    "looking in to a straw lined pen of cows",
    "an infant being held in a person 's arms an holding a toy in it 's hand on with it 's mouth",
    "vase full of tulips arranged on a table in someones kitchen",
    "people watch while two people are on a small ramp covered with snow with snow skis on",
    "park full of trees with a table and umbrella in the middle",
    "vase full of yellow flowers on a red table",
    "dock full of many parked boats with a duck",
]


def test_second_sentences_hash_with_their_index() -> None:
    try:
        results = run_stages(["A cat. " + c for c in SENTENCE_ORDER_SENSITIVE])
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    agree_as_second = agree_as_first = 0
    for result in results:
        assert len(result["sentences"]) == 2, result["caption"]
        s = result["sentences"][1]
        for index in (0, 1):
            same = [list(e) for e in ccprocessed(s["tree"], sentence_index=index)] == s["ccprocessed"] and [
                list(e) for e in basic(s["tree"], sentence_index=index)
            ] == s["basic"]
            if index:
                agree_as_second += same
            else:
                agree_as_first += same
    assert agree_as_second == len(SENTENCE_ORDER_SENSITIVE)
    assert agree_as_first == 0
