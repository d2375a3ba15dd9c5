"""Fixtures of the metric tests."""

from __future__ import annotations

import pytest

from capeval.metrics.meteor import METEOR
from capeval.metrics.meteor._resources import MeteorDataError, load_meteor_data


@pytest.fixture(scope="module")
def meteor() -> METEOR:
    """METEOR on pre-tokenized text, with its tables loaded (skipped where the official package is missing)."""
    try:
        load_meteor_data()
    except MeteorDataError as exc:
        pytest.skip(str(exc))
    return METEOR(tokenizer="none")
