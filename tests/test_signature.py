"""Signature strings are stable and round-trip."""

from __future__ import annotations

import pytest

from capeval import __version__
from capeval.metrics.bleu import BLEU
from capeval.metrics.cider import CIDErD
from capeval.signature import Signature


def test_exact_strings() -> None:
    refs = [["a b", "c d"], ["e f", "g h", "i j"]]
    assert str(CIDErD().signature(None, refs)) == f"cider-d|n:4|sigma:6|df:refs|tok:ptb|nrefs:2-3|v:{__version__}"
    expected = f"bleu|n:4|reflen:closest|tok:none|nrefs:1|v:{__version__}"
    assert str(BLEU(tokenizer="none").signature(None, [["a"]])) == expected


def test_parse_round_trip_and_errors() -> None:
    sig = Signature("rouge-l", (("beta", "1.2"), ("tok", "ptb")), "0.1.0")
    assert Signature.parse(str(sig)) == sig
    assert sig.get("beta") == "1.2" and sig.get("missing") is None
    with pytest.raises(ValueError, match="not a capeval signature"):
        Signature.parse("bleu|n:4")
    with pytest.raises(ValueError, match="malformed signature field"):
        Signature.parse("bleu|n4|v:0.1.0")
    with pytest.raises(ValueError, match="contains"):
        Signature("bleu", (("n", "4|5"),), "0.1.0")
