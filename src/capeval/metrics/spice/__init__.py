"""SPICE and SPIDEr without Java.

``SPICE`` reproduces official SPICE 1.0: scoring (scene-graph merging, WordNet synonym
matching with METEOR 1.5's tables, categories, NaN rules), and the graph enhancements and
rules that turn the parser's dependencies into tuples. Captions are parsed by the Stanford
CoreNLP 3.6.0 pipeline official SPICE runs, reimplemented in Python (``parser="corenlp"``,
:class:`CoreNLPParser`, the default: :data:`DEFAULT_PARSER`; its grammar is read from the
user's copy of CoreNLP's models), or, on request, by a spaCy approximation of it
(``parser="spacy"``, with an :class:`ApproximateParserWarning`). :class:`StagesParser` serves
the pipeline's stages computed in advance. ``SPIDEr`` is the mean of CIDEr-D and SPICE.
Registry keys: ``"spice"``, ``"spider"``.
"""

from __future__ import annotations

from capeval.metrics.spice.corenlp_parser import CoreNLPParser
from capeval.metrics.spice.metric import (
    DEFAULT_PARSER,
    PARSERS,
    SPICE,
    ApproximateParserWarning,
    CaptionParser,
    PrecomputedParser,
    SPIDEr,
)
from capeval.metrics.spice.stages import StagesParser, tuples_from_stage

__all__ = [
    "DEFAULT_PARSER",
    "PARSERS",
    "SPICE",
    "ApproximateParserWarning",
    "CaptionParser",
    "CoreNLPParser",
    "PrecomputedParser",
    "SPIDEr",
    "StagesParser",
    "tuples_from_stage",
]
