"""METEOR's stem matcher: the compiled Snowball stemmer (PyStemmer 2.2.0) gives the same stems
as the pure-Python snowballstemmer 2.2.0 the matcher was checked against."""

from __future__ import annotations

import gzip
from importlib import resources

import pytest

from capeval.metrics.meteor import _words

Stemmer = pytest.importorskip("Stemmer")
snowball = pytest.importorskip("snowballstemmer.english_stemmer")


def _wordnet_words() -> list[str]:
    path = resources.files("capeval").joinpath("data", "meteor", "english.synsets.gz")
    with gzip.open(str(path), "rt", encoding="utf-8") as fh:
        return fh.read().split("\n")[0::2]


def test_compiled_and_pure_python_stems_agree() -> None:
    words = _wordnet_words()[::4]  # 37k words of METEOR's synonym table, inflections included
    words += ["running", "runs", "ran", "generously", "skies", "dying", "news", "cafés", "naïve", "'s", "3.50", ""]
    assert len(words) > 30000
    pure = snowball.EnglishStemmer()
    assert list(Stemmer.Stemmer("english").stemWords(words)) == [pure.stemWord(w) for w in words]


def test_the_metric_uses_the_compiled_stemmer() -> None:
    assert _words._compiled_stemmer() is not None
    assert _words.stem_words(["horses", "riding"]) == ["hors", "ride"]
