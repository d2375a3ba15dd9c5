"""Tokenizers: turn raw captions into the space-joined token strings the metrics score.

Every tokenizer maps a batch of captions to a batch of token strings, one per caption and
in the same order (tokens separated by single spaces). Batches matter: the official COCO
tokenizer reads all captions as one stream, so a caption's last token can depend on the
next caption. See :mod:`capeval.tokenizers.ptb`.
"""

from __future__ import annotations

from capeval.tokenizers.base import Tokenizer, get_tokenizer, list_tokenizers

__all__ = ["Tokenizer", "get_tokenizer", "list_tokenizers"]
