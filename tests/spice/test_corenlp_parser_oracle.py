"""The englishPCFG parser against the official SPICE 1.0 pipeline (CoreNLP 3.6.0), run live.

COCO val2014 captions, raw and as COCOEvalCap feeds SPICE (capeval's PTB tokenizer, which gives
the official tokenizer's text), go through the official pipeline (``bench.oracle.run_stages``);
capeval parses the tokens the pipeline printed, and every tree (tags included) must be the same.
The grammar is the official pipeline's own models jar.
"""

from __future__ import annotations

from typing import Any

import pytest
from bench.oracle import OracleUnavailable, corenlp_models_jar, human_agreement_protocol, run_stages
from tests.spice.grammar_fixture import grammar_cache_dir, load_test_grammar

from capeval.metrics.spice.corenlp.parser import PCFGParser

pytestmark = pytest.mark.slow

#: val2014 images whose first caption is parsed (an offset away from the images of the fixtures).
IMAGES = slice(20_000, 21_500)


@pytest.fixture(scope="module")
def parser(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> PCFGParser:
    try:
        jar = corenlp_models_jar()
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    return PCFGParser(load_test_grammar(grammar_cache_dir(pytestconfig, tmp_path_factory), jar), cache_size=0)


@pytest.fixture(scope="module")
def captions() -> list[str]:
    try:
        protocol = human_agreement_protocol()
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    return [" ".join(c.split()) for c in protocol["candidates"][IMAGES]]


def _compare(parser: PCFGParser, stages: list[dict[str, Any]]) -> tuple[int, list[tuple[str, str, str]]]:
    total, wrong = 0, []
    for caption in stages:
        for sentence in caption["sentences"]:
            words = [token[0] for token in sentence["tokens"]]
            tree = parser.parse(words)
            total += 1
            if tree != sentence["tree"]:
                wrong.append((" ".join(words), sentence["tree"], tree))
    return total, wrong


def _stages(captions: list[str]) -> list[dict[str, Any]]:
    try:
        return run_stages(captions, threads=2)
    except OracleUnavailable as exc:
        pytest.skip(str(exc))


def test_raw_captions(parser: PCFGParser, captions: list[str]) -> None:
    total, wrong = _compare(parser, _stages(captions))
    assert total >= len(captions)
    assert not wrong, f"{len(wrong)} of {total} trees differ, e.g. {wrong[:2]}"


def test_ptb_fed_captions(parser: PCFGParser, captions: list[str]) -> None:
    from capeval.tokenizers.base import get_tokenizer

    fed = [text for text in get_tokenizer("ptb").tokenize(captions) if text]
    total, wrong = _compare(parser, _stages(fed))
    assert total >= len(fed)
    assert not wrong, f"{len(wrong)} of {total} trees differ, e.g. {wrong[:2]}"
