"""``capeval spice parse``: input handling, output, errors; stages faked (the library is tested elsewhere).

The slow smoke run at the end uses the real grammar (``$CAPEVAL_SPICE_GRAMMAR`` or the oracle's models
jar) and compares every stage this version computes with the official pipeline (``run_stages``).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from capeval.cli.main import main
from capeval.metrics.spice.corenlp import pipeline as pipeline_module
from capeval.metrics.spice.corenlp import sources

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _lemma(word: str, tag: str) -> str:
    return word.lower()


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """capeval's own stages replaced by fakes: a flat tree, lower-case lemmas, no converters."""
    parsed: list[list[str]] = []

    class FakePCFGParser:
        def __init__(self, grammar: Any) -> None:
            pass

        def parse(self, words: list[str]) -> str:
            parsed.append(list(words))
            return "(ROOT (X " + " ".join(f"(NN {w})" for w in words) + "))"

    owns = {"parser": FakePCFGParser, "lemmatizer": _lemma}
    monkeypatch.setattr(pipeline_module, "component_available", lambda stage: stage in owns)
    monkeypatch.setattr(pipeline_module, "_own", lambda stage: owns[stage])
    monkeypatch.setattr(sources, "load_grammar", lambda path=None, **kw: object())
    return parsed


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, Any]], str]:
    code = main(["spice", "parse", *args])
    out, err = capsys.readouterr()
    assert out == "" or out.endswith("\n")
    return code, [json.loads(line) for line in out.splitlines()], err  # no line separator inside a line


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def test_a_file_gives_one_json_line_per_caption_in_order(
    fakes: list[list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "captions.txt"
    path.write_text("A dog runs. Fast!\nTwo cats\n", encoding="utf-8")
    code, results, err = _run(capsys, "--tokenizer", "none", str(path))
    assert code == 0
    assert [r["caption"] for r in results] == ["A dog runs. Fast!", "Two cats"]
    first = results[0]["sentences"]
    assert [[t[0] for t in s["tokens"]] for s in first] == [["A", "dog", "runs", "."], ["Fast", "!"]]
    assert first[0]["tokens"][0] == ["A", "NN", "a"]
    assert first[0]["tree"] == "(ROOT (X (NN A) (NN dog) (NN runs) (NN .)))"
    assert first[0]["basic"] is None and first[0]["ccprocessed"] is None
    assert "does not compute basic, ccprocessed yet" in err


def test_ptb_is_the_default_and_tokenizes_the_file_as_one_stream(
    fakes: list[list[str]], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, b"The letter B.\na sign.\nA man's hat, (red).\n")
    code, results, _ = _run(capsys)
    assert code == 0
    assert [r["caption"] for r in results] == ["The letter B.", "a sign.", "A man's hat, (red)."]
    assert fakes == [["the", "letter", "b."], ["a", "sign"], ["a", "man", "'s", "hat", "-lrb-", "red", "-rrb-"]]


def test_line_ends_byte_order_mark_and_empty_lines(
    fakes: list[list[str]], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, "\ufeffa dog\r\n\r\nmy cat\rbirds\u2028fly\x85\n".encode())
    code, results, err = _run(capsys, "--tokenizer", "none", "-")
    assert code == 0
    assert [r["caption"] for r in results] == ["a dog", "", "my cat", "birds\u2028fly\x85"]
    assert results[1] == {"caption": "", "sentences": []}
    assert "1 empty caption(s) (line 2)" in err
    _stdin(monkeypatch, b"")
    assert _run(capsys, "--quiet")[:2] == (0, [])


def test_undecodable_input_names_the_line(
    fakes: list[list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("a dog\nun caf\u00e9\n".encode("latin-1"))
    code, results, err = _run(capsys, str(path))
    assert (code, results) == (2, [])
    assert f"{path}: line 2 is not valid UTF-8 (byte 0xe9 at column 7)" in err


def test_file_and_grammar_errors(
    fakes: list[list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, str(tmp_path / "missing.txt"))
    assert code == 2 and "missing.txt" in err
    code, _, err = _run(capsys, "--grammar", str(tmp_path / "nowhere.jar"), "-")
    assert code == 2 and "--grammar" in err and "nowhere.jar" in err

    def not_found(path: Any = None, **kwargs: Any) -> Any:
        raise sources.GrammarNotFound("SPICE's exact parser needs the grammar ... get_stanford_models ...")

    monkeypatch.setattr(sources, "load_grammar", not_found)
    _stdin(monkeypatch, b"a dog\n")
    code, results, err = _run(capsys, "--no-download")
    assert code == 2 and results == [] and "get_stanford_models" in err


def test_no_download_and_grammar_reach_the_pipeline(
    fakes: list[list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[Any] = []
    jar = tmp_path / "models.jar"
    jar.write_bytes(b"x")
    monkeypatch.setattr(sources, "load_grammar", lambda path=None, **kw: seen.append((path, kw)))
    _stdin(monkeypatch, b"a dog\n")
    assert _run(capsys, "--grammar", str(jar), "--no-download", "--quiet")[0] == 0
    assert seen == [(str(jar), {"download": False})]


def test_quiet_means_nothing_on_stderr(fakes: list[list[str]], monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    _stdin(monkeypatch, b"\n\na dog\n")
    code, results, err = _run(capsys, "--quiet")
    assert (code, len(results), err) == (0, 3, "")


def test_spice_needs_a_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["spice"])
    assert exc.value.code == 2
    assert "parse" in capsys.readouterr().err


def test_the_command_imports_only_its_module() -> None:
    probe = (
        f"import sys; sys.path.insert(0, {SRC!r})\n"
        "from capeval.cli.main import main\n"
        "try:\n    main(['spice', 'parse', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('capeval.cli.cmd_')))\n"
        "print('capeval.metrics.spice.corenlp.pipeline' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-2:] == ["['capeval.cli.cmd_spice']", "False"]


# ---------------------------------------------------------------------------------------------
# smoke run with the real grammar (slow)


def _real_grammar() -> str:
    if os.environ.get(sources.ENV_GRAMMAR):
        return os.environ[sources.ENV_GRAMMAR]
    oracle_jar = Path("/tmp/capeval-oracle/spice-full/lib") / sources.MODELS_JAR
    if oracle_jar.is_file():
        return str(oracle_jar)
    try:
        from bench.oracle import OracleUnavailable, corenlp_models_jar

        return str(corenlp_models_jar())
    except (ImportError, OracleUnavailable) as exc:
        pytest.skip(f"no CoreNLP 3.6.0 models jar ({sources.ENV_GRAMMAR} unset, oracle unavailable: {exc})")


@pytest.mark.slow
def test_smoke_run_against_the_official_pipeline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every stage this version computes equals the official pipeline's, field by field."""
    grammar = _real_grammar()
    from bench.oracle import run_stages

    monkeypatch.setenv("CAPEVAL_CACHE_DIR", str(tmp_path / "cache"))
    captions = ["A man riding a horse on a beach.", "Two dogs play. One runs (fast)!", "", "a plate of food .."]
    path = tmp_path / "captions.txt"
    path.write_text("\n".join(captions) + "\n", encoding="utf-8")
    code, results, _ = _run(capsys, "--tokenizer", "none", "--grammar", grammar, "--no-download", str(path))
    assert code == 0
    official = run_stages(captions)
    stages = pipeline_module.CoreNLPPipeline(grammar=grammar, download=False).stages
    for ours, theirs in zip(results, official, strict=True):
        assert ours["caption"] == theirs["caption"]
        assert len(ours["sentences"]) == len(theirs["sentences"])
        for mine, want in zip(ours["sentences"], theirs["sentences"], strict=True):
            assert [t[0] for t in mine["tokens"]] == [t[0] for t in want["tokens"]]
            if stages["parser"]:
                assert mine["tree"] == want["tree"]
                assert [t[1] for t in mine["tokens"]] == [t[1] for t in want["tokens"]]
            if stages["lemmatizer"] and stages["parser"]:
                assert [t[2] for t in mine["tokens"]] == [t[2] for t in want["tokens"]]
            for field in ("basic", "ccprocessed"):
                if stages[field] and stages["parser"]:
                    assert mine[field] == want[field]
