"""SPICE and SPIDEr without Java.

``SPICE`` reproduces official SPICE 1.0 scoring (scene-graph merging, WordNet synonym
matching with METEOR 1.5's tables, categories, NaN rules) on tuples from a spaCy-based
parser that emulates the official Stanford CoreNLP pipeline. ``SPIDEr`` is the mean of
CIDEr-D and SPICE. Registry keys: ``"spice"``, ``"spider"``.
"""

from __future__ import annotations

from capeval.metrics.spice.metric import SPICE, CaptionParser, PrecomputedParser, SPIDEr

__all__ = ["SPICE", "SPIDEr", "CaptionParser", "PrecomputedParser"]
