"""The docstring examples of capeval.stats run and stay correct."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import capeval.stats as package

MODULES = sorted(f"{package.__name__}.{m.name}" for m in pkgutil.iter_modules(package.__path__))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
