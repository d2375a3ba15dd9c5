"""The examples in the docstrings run and give the values they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "capeval",
    "capeval.signature",
    "capeval.tokenizers.base",
    "capeval.tokenizers.ptb",
    "capeval.metrics.ngrams",
    "capeval.metrics.bleu",
    "capeval.metrics.rouge",
    "capeval.metrics.cider",
    "capeval.engines.local",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
