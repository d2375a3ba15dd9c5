"""The docstring examples of the compatibility and multi-caption modules run and give the values they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["capeval.metrics.multi", "capeval.compat.pycocoevalcap.tokenizer.ptbtokenizer"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
