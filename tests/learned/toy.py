"""Toy training data shared by the nneval-v2 tests."""

from __future__ import annotations

import numpy as np

from capeval.metrics.learned.training_v2 import Corpus


def graded_corpus(target: np.ndarray) -> Corpus:
    """An Expert-like graded corpus of ``len(target)`` items, three per image, one reference each."""
    n = target.shape[0]
    return Corpus(
        "expert",
        tuple(f"c{i}" for i in range(n)),
        (("r",),) * n,
        tuple(f"img{i // 3}" for i in range(n)),
        target,
        target[:, None],
    )
