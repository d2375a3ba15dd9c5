"""Skip marker of the learned-metric tests that compute every feature metric for real."""

from __future__ import annotations

import pytest


def missing_features() -> str | None:
    """Why the feature metrics of NNEval and nneval-v2 cannot run here (``None`` when they can).

    They need METEOR's data (pycocoevalcap 1.2) and SPICE's parser grammar (CoreNLP 3.6.0's
    englishPCFG, the features' exact SPICE), already on this machine: tests do not download it.
    """
    try:
        from capeval.metrics.meteor._resources import locate_pycocoevalcap

        locate_pycocoevalcap()
    except Exception as exc:  # noqa: BLE001 - any failure to find the data means: skip
        return f"METEOR data (pycocoevalcap 1.2) is missing: {exc}"
    from capeval.metrics.spice.corenlp import sources

    if sources.converted_grammar_path().is_file():
        return None
    try:
        sources.locate_grammar(download=False)
    except sources.GrammarError as exc:
        return f"SPICE's parser grammar (CoreNLP 3.6.0 englishPCFG) is not on this machine: {exc}"
    return None


# A per-test skip (not a module-level one), so CAPEVAL_NO_SKIP=1 turns it into a failure.
needs_all_features = pytest.mark.skipif(missing_features() is not None, reason=str(missing_features()))
