"""The tokenizer protocol and the tokenizer lookup by name."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

__all__ = ["IdentityTokenizer", "Tokenizer", "WhitespaceTokenizer", "get_tokenizer", "list_tokenizers"]


@runtime_checkable
class Tokenizer(Protocol):
    """Maps captions to space-joined token strings, one output per input, order kept."""

    #: Short name recorded in signatures (``tok:<name>``).
    name: str

    def tokenize(self, texts: Sequence[str]) -> list[str]:
        """Tokenize a batch of captions (one stream, like the official tokenizer)."""
        ...


class IdentityTokenizer:
    """Passes captions through unchanged: for text that is already tokenized.

    Example:
        >>> IdentityTokenizer().tokenize(["a dog ."])
        ['a dog .']
    """

    name = "none"

    def tokenize(self, texts: Sequence[str]) -> list[str]:
        """Return the captions as given."""
        return list(texts)


class WhitespaceTokenizer:
    """Lower-cases and splits on whitespace; no punctuation handling.

    Example:
        >>> WhitespaceTokenizer().tokenize(["A  Dog\\tRuns"])
        ['a dog runs']
    """

    name = "ws"

    def tokenize(self, texts: Sequence[str]) -> list[str]:
        """Return lower-cased captions with whitespace runs collapsed to one space."""
        return [" ".join(text.lower().split()) for text in texts]


# name -> "module:attribute"; imported lazily so that importing capeval stays cheap.
_TOKENIZERS: dict[str, str] = {
    "ptb": "capeval.tokenizers.ptb:PTBTokenizer",
    "none": "capeval.tokenizers.base:IdentityTokenizer",
    "ws": "capeval.tokenizers.base:WhitespaceTokenizer",
}


def list_tokenizers() -> list[str]:
    """Names accepted by :func:`get_tokenizer`."""
    return sorted(_TOKENIZERS)


def get_tokenizer(name: str | Tokenizer) -> Tokenizer:
    """Return a tokenizer instance by name (``"ptb"``, ``"none"``, ``"ws"``), or pass one through.

    Raises:
        ValueError: for an unknown name.
    """
    if not isinstance(name, str):
        return name
    try:
        module_name, attr = _TOKENIZERS[name].split(":")
    except KeyError:
        raise ValueError(f"unknown tokenizer {name!r}; choose from {', '.join(list_tokenizers())}") from None
    factory = getattr(importlib.import_module(module_name), attr)
    tokenizer: Tokenizer = factory()
    return tokenizer
