"""The PTB lexer's compiled patterns kept on disk (``capeval.tokenizers._patterns``)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from capeval.tokenizers import _patterns, _ptb_lexer
from capeval.tokenizers.ptb import PTBTokenizer

#: Captions that go through the lexer's rules (not the fast path).
HARD = ["He's 3'6\" tall, e.g. at 5:30 p.m.", "A café's \u00e9t\u00e9 sign (U.S.A.) costs $4.50...", "Don't-stop"]


@pytest.fixture
def fresh_lexer(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty cache directory and a lexer that has compiled nothing yet."""
    monkeypatch.setenv("CAPEVAL_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_ptb_lexer, "_LEXERS", {})
    return tmp_path


def _reset() -> None:
    _ptb_lexer._LEXERS.clear()


def test_kept_patterns_are_the_compiled_ones(fresh_lexer: Path) -> None:
    expected = PTBTokenizer().tokenize(HARD)  # builds and keeps the file
    (kept,) = fresh_lexer.glob("ptb-patterns-*.marshal")
    _reset()
    patterns = _ptb_lexer.lexer().compiled()
    samples = [*HARD, "e.g.", "3/4", "o'clock", "www.example.com", "-lrb-", "\u00a0x", ""]
    for source in patterns.sources:
        ours, theirs = patterns.compile(source), re.compile(source)
        assert (ours.pattern, ours.flags, ours.groups, ours.groupindex) == (
            theirs.pattern,
            theirs.flags,
            theirs.groups,
            theirs.groupindex,
        )
        for text in samples:
            for pos in range(len(text) + 1):
                a, b = ours.match(text, pos), theirs.match(text, pos)
                assert (a and (a.span(), a.groupdict())) == (b and (b.span(), b.groupdict()))
    assert PTBTokenizer().tokenize(HARD) == expected
    assert kept.stat().st_size > 0


def test_a_damaged_or_foreign_file_is_rebuilt(fresh_lexer: Path) -> None:
    expected = PTBTokenizer().tokenize(HARD)
    (kept,) = fresh_lexer.glob("ptb-patterns-*.marshal")
    for damage in (b"", b"not marshal data", kept.read_bytes()[:100]):
        kept.write_bytes(damage)
        _reset()
        assert PTBTokenizer().tokenize(HARD) == expected
        assert kept.stat().st_size > 100  # written again, whole


def test_an_unwritable_cache_still_tokenizes(fresh_lexer: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = PTBTokenizer().tokenize(HARD)
    _reset()
    blocked = fresh_lexer / "file-not-dir"
    blocked.write_text("x")
    monkeypatch.setenv("CAPEVAL_CACHE_DIR", str(blocked))
    assert PTBTokenizer().tokenize(HARD) == expected
    assert not list(fresh_lexer.glob("**/ptb-patterns-*"))[1:]  # nothing besides the first file


def test_without_the_engine_internals_patterns_are_compiled(fresh_lexer: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = PTBTokenizer().tokenize(HARD)
    _reset()
    monkeypatch.setattr(_patterns, "_internals", lambda: None)
    assert PTBTokenizer().tokenize(HARD) == expected


def test_the_file_name_follows_the_patterns(monkeypatch: Any) -> None:
    one = _patterns.PatternSet(["a+", "b"], lambda s: None)
    other = _patterns.PatternSet(["a+", "c"], lambda s: None)
    assert one.key() != other.key() and one.key() == _patterns.PatternSet(["a+", "b"], lambda s: None).key()
    assert os.sep not in one.key()
