"""The CoreNLP pipeline (``corenlp.pipeline``) with fake components: schema, order, nulls, cache.

The real parser, Morpha and converters are tested on their own; here fakes stand for them, so the
composition is checked whatever this version of capeval has.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from capeval.metrics.spice.corenlp import pipeline as pipeline_module
from capeval.metrics.spice.corenlp import sources
from capeval.metrics.spice.corenlp.pipeline import CoreNLPPipeline, preterminal_tags


class Calls:
    def __init__(self) -> None:
        self.parsed: list[list[str]] = []


def fake_parser(calls: Calls) -> Any:
    def parse(words: list[str]) -> str:
        calls.parsed.append(list(words))
        leaves = " ".join(f"(T{i + 1} {word})" for i, word in enumerate(words))
        return f"(ROOT (X {leaves}))"

    return parse


def fake_lemma(word: str, tag: str) -> str:
    return f"{word.lower()}/{tag}"


def fake_basic(tree: str) -> list[tuple[str, int, int]]:
    n = tree.count("(T")
    return [("dep", 1, i) for i in range(2, n + 1)] + [("root", 0, 1)]


def fake_cc(tree: str) -> list[tuple[str, int, int]]:
    return [("cc:" + rel, gov, dep) for rel, gov, dep in fake_basic(tree)]


def full(calls: Calls | None = None, **kwargs: Any) -> CoreNLPPipeline:
    return CoreNLPPipeline(
        parser=fake_parser(calls or Calls()), lemmatizer=fake_lemma, basic=fake_basic, ccprocessed=fake_cc, **kwargs
    )


def test_schema_and_order() -> None:
    result = full(tokenizer="none").parse("A dog runs. (Fast!)")
    assert list(result) == ["caption", "sentences"]
    assert result["caption"] == "A dog runs. (Fast!)"
    first, second = result["sentences"]
    assert list(first) == ["tokens", "tree", "basic", "ccprocessed"]
    assert first["tokens"] == [
        ["A", "T1", "a/T1"],
        ["dog", "T2", "dog/T2"],
        ["runs", "T3", "runs/T3"],
        [".", "T4", "./T4"],
    ]
    assert first["tree"] == "(ROOT (X (T1 A) (T2 dog) (T3 runs) (T4 .)))"
    assert first["basic"] == [["dep", 1, 2], ["dep", 1, 3], ["dep", 1, 4], ["root", 0, 1]]
    assert first["ccprocessed"][0] == ["cc:dep", 1, 2]
    assert [t[0] for t in second["tokens"]] == ["-LRB-", "Fast", "!", "-RRB-"]
    json.dumps(result)  # plain JSON types


def test_missing_components_leave_nulls() -> None:
    none = CoreNLPPipeline(parser=None, lemmatizer=None, basic=None, ccprocessed=None)
    assert none.stages == {"parser": False, "lemmatizer": False, "basic": False, "ccprocessed": False}
    (sentence,) = none.parse("A dog.")["sentences"]
    assert sentence == {
        "tokens": [["A", None, None], ["dog", None, None], [".", None, None]],
        "tree": None,
        "basic": None,
        "ccprocessed": None,
    }
    calls = Calls()
    no_lemma = CoreNLPPipeline(parser=fake_parser(calls), lemmatizer=None, basic=fake_basic, ccprocessed=None)
    (sentence,) = no_lemma.parse("A dog.")["sentences"]
    assert sentence["tokens"][1] == ["dog", "T2", None]
    assert sentence["basic"] is not None and sentence["ccprocessed"] is None


def test_empty_and_blank_captions_have_no_sentences() -> None:
    calls = Calls()
    pipe = full(calls)
    for text in ("", "   ", "\t\u00a0", "\U0001f436"):
        assert pipe.parse(text) == {"caption": text, "sentences": []}
    assert calls.parsed == []


def test_repeated_captions_are_parsed_once() -> None:
    calls = Calls()
    pipe = full(calls, tokenizer="none")
    results = pipe.parse_batch(["A dog.", "A cat.", "A dog.", "A dog."])
    assert calls.parsed == [["A", "dog", "."], ["A", "cat", "."]]
    assert results[0] == results[2] == results[3]
    results[0]["sentences"][0]["tokens"][0][0] = "changed"  # results are the caller's own
    assert pipe.parse("A dog.")["sentences"][0]["tokens"][0][0] == "A"


def test_the_cache_is_bounded() -> None:
    calls = Calls()
    pipe = full(calls, cache_size=2)
    pipe.parse_batch(["a", "b", "c", "a"])
    assert [w for (w,) in calls.parsed] == ["a", "b", "c", "a"]
    pipe.parse_batch(["c", "a"])
    assert len(calls.parsed) == 4
    uncached = full(calls, cache_size=0)
    uncached.parse_batch(["z", "z"])
    assert [w for (w,) in calls.parsed[4:]] == ["z", "z"]


def test_ptb_mode_is_what_cocoevalcap_feeds_spice() -> None:
    calls = Calls()
    pipe = full(calls, tokenizer="ptb")
    results = pipe.parse_batch(["A man's hat, (red).", "The letter B.", "A sign."])
    assert [r["caption"] for r in results] == ["A man's hat, (red).", "The letter B.", "A sign."]
    assert calls.parsed == [["a", "man", "'s", "hat", "-lrb-", "red", "-rrb-"], ["the", "letter", "b"], ["a", "sign"]]
    # one stream, as COCOEvalCap: the next caption changes how "B." is split
    assert pipe.texts(["The letter B.", "a sign."]) == ["the letter b.", "a sign"]
    assert pipe.texts(["The letter B."]) == ["the letter b."]


def test_parse_takes_any_iterable_and_refuses_bad_input() -> None:
    pipe = full()
    assert len(pipe.parse_batch(caption for caption in ["a", "b"])) == 2  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not a single string"):
        pipe.parse_batch("a dog")
    with pytest.raises(TypeError, match="caption 1 is int"):
        pipe.parse_batch(["a", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="tokenizer must be one of"):
        CoreNLPPipeline(tokenizer="spacy")
    with pytest.raises(ValueError, match="cache_size"):
        CoreNLPPipeline(cache_size=-1)
    with pytest.raises(TypeError, match="parser must be callable"):
        CoreNLPPipeline(parser="yes")  # type: ignore[arg-type]


def test_a_parser_whose_leaves_are_not_the_words_is_an_error() -> None:
    pipe = CoreNLPPipeline(parser=lambda words: "(ROOT (NN other))", lemmatizer=None, basic=None, ccprocessed=None)
    with pytest.raises(ValueError, match="no leaf 'dog'"):
        pipe.parse("dog")
    pipe = CoreNLPPipeline(parser=lambda words: ["not", "a", "string"], lemmatizer=None)  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="not a Penn tree string"):
        pipe.parse("dog")


def test_preterminal_tags() -> None:
    tree = "(ROOT (S (NP (DT A) (NN dog)) (VP (VBZ runs)) (. .)))"
    assert preterminal_tags(tree, ["A", "dog", "runs", "."]) == ["DT", "NN", "VBZ", "."]
    # words are matched as they are: brackets, quotes, no-break spaces
    tree = "(ROOT (NP (-LRB- -LRB-) (CD 1\u00a01/2) (`` ``) (SYM <a\u00a0href='f(x)'>) (-RRB- -RRB-)))"
    words = ["-LRB-", "1\u00a01/2", "``", "<a\u00a0href='f(x)'>", "-RRB-"]
    assert preterminal_tags(tree, words) == ["-LRB-", "CD", "``", "SYM", "-RRB-"]
    assert preterminal_tags("(ROOT (INTJ (UH .)))", ["."]) == ["UH"]


def test_default_components_are_capevals_own_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    """Present modules are used (the parser with the grammar of load_grammar); absent ones give nulls."""
    present = {"parser", "lemmatizer"}
    loaded: list[Any] = []

    class FakePCFGParser:
        def __init__(self, grammar: Any) -> None:
            loaded.append(grammar)

        def parse(self, words: list[str]) -> str:
            return "(ROOT (X " + " ".join(f"(NN {w})" for w in words) + "))"

    owns = {"parser": FakePCFGParser, "lemmatizer": fake_lemma}
    monkeypatch.setattr(pipeline_module, "component_available", lambda stage: stage in present)
    monkeypatch.setattr(pipeline_module, "_own", lambda stage: owns[stage])
    monkeypatch.setattr(sources, "load_grammar", lambda path=None, **kw: ("grammar", path, kw))
    pipe = CoreNLPPipeline(grammar="/my/models.jar", download=False)
    assert pipe.stages == {"parser": True, "lemmatizer": True, "basic": False, "ccprocessed": False}
    assert loaded == []  # nothing is loaded before the first parse
    (sentence,) = pipe.parse("A dog")["sentences"]
    assert sentence["tokens"] == [["A", "NN", "a/NN"], ["dog", "NN", "dog/NN"]]
    assert sentence["basic"] is None and sentence["ccprocessed"] is None
    pipe.parse("Another one")
    assert loaded == [("grammar", "/my/models.jar", {"download": False})]  # loaded once


def test_a_present_module_with_a_bug_is_not_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(word: str, tag: str) -> str:
        raise KeyError("a real bug")

    monkeypatch.setattr(pipeline_module, "component_available", lambda stage: stage == "lemmatizer")
    monkeypatch.setattr(pipeline_module, "_own", lambda stage: broken)
    pipe = CoreNLPPipeline(parser=lambda words: "(ROOT " + " ".join(f"(NN {w})" for w in words) + ")")
    with pytest.raises(KeyError, match="a real bug"):
        pipe.parse("dog")


def test_module_availability_is_checked_without_importing() -> None:
    import sys

    for stage in ("parser", "lemmatizer", "basic", "ccprocessed"):
        available = pipeline_module.component_available(stage)
        module = f"capeval.metrics.spice.corenlp.{pipeline_module._MODULES[stage][0]}"
        assert available == (pipeline_module.importlib.util.find_spec(module) is not None)
        if not available:
            assert module not in sys.modules


def test_docstring_example() -> None:
    import doctest

    assert doctest.testmod(pipeline_module).failed == 0


def test_fingerprint_and_annotate_many(monkeypatch: pytest.MonkeyPatch) -> None:
    """What SPICE's exact parser asks of the pipeline: its stages, and what identifies them."""

    class Graded:
        sha256 = "ab" * 32

    class FakePCFGParser:
        def __init__(self, grammar: Any) -> None:
            pass

        def parse(self, words: list[str]) -> str:
            return "(ROOT (X " + " ".join(f"(NN {w})" for w in words) + "))"

    monkeypatch.setattr(pipeline_module, "component_available", lambda stage: stage == "parser")
    monkeypatch.setattr(pipeline_module, "_own", lambda stage: FakePCFGParser)
    monkeypatch.setattr(sources, "load_grammar", lambda path=None, **kw: Graded())
    pipe = CoreNLPPipeline(lemmatizer=fake_lemma, download=False)
    assert pipe.fingerprint() == (
        "pcfg-abababababababab-lemmatizer=tests.spice.test_corenlp_pipeline.fake_lemma"
        "-basic=none-ccprocessed=none-tok:none"
    )
    stages = pipe.annotate_many(["A dog", "Two cats. Run"])
    assert [s["caption"] for s in stages] == ["A dog", "Two cats. Run"]
    assert [len(s["sentences"]) for s in stages] == [1, 2]
    assert stages == pipe.parse_batch(["A dog", "Two cats. Run"])


def test_the_grammar_is_loaded_once_per_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """Every pipeline of a process (one per unpickled SPICE metric on a Dask worker, say) shares
    the parser and its grammar; another copy of the grammar is another parser."""
    loaded: list[Any] = []

    class Graded:
        sha256 = "cd" * 32

    class FakePCFGParser:
        def __init__(self, grammar: Any) -> None:
            self.grammar = grammar

        def parse(self, words: list[str]) -> str:
            return "(ROOT (X " + " ".join(f"(NN {w})" for w in words) + "))"

    def load(path: Any = None, **kw: Any) -> Graded:
        loaded.append(path)
        return Graded()

    monkeypatch.setattr(pipeline_module, "component_available", lambda stage: stage == "parser")
    monkeypatch.setattr(pipeline_module, "_own", lambda stage: FakePCFGParser)
    monkeypatch.setattr(sources, "load_grammar", load)
    monkeypatch.delenv(sources.ENV_GRAMMAR, raising=False)
    monkeypatch.setenv("CAPEVAL_CACHE_DIR", str(tmp_path))
    for _ in range(3):
        CoreNLPPipeline(lemmatizer=None, basic=None, ccprocessed=None).parse("A dog")
    assert loaded == [None]
    copy = tmp_path / "models.jar"
    CoreNLPPipeline(grammar=copy, lemmatizer=None, basic=None, ccprocessed=None).parse("A dog")
    CoreNLPPipeline(grammar=copy, lemmatizer=None, basic=None, ccprocessed=None).parse("A cat")
    assert loaded == [None, copy]
