"""From the official pipeline's stages to SPICE's raw tuples.

The exact text pipeline (Stanford CoreNLP 3.6.0 as SPICE runs it: tokenizer, PCFG parser, UD v1
converter, Morpha) describes each caption as a *stage dict*::

    {"caption": str,
     "sentences": [{"tokens": [[word, tag, lemma], ...],
                    "tree": str,
                    "basic": [[rel, gov, dep], ...],
                    "ccprocessed": [[rel, gov, dep], ...]}, ...]}

with 1-based positions and each root as ``["root", 0, i]``. SPICE reads only the tokens (tags,
lemmas) and the CCprocessed dependencies. :func:`tuples_from_stage` turns one stage dict into
the raw tuples the jar's parser emits for the caption (sentences in order, concatenated), and
:class:`StagesParser` serves stage dicts computed in advance as a SPICE caption parser.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from capeval.metrics.spice.depgraph import DepGraph
from capeval.metrics.spice.rules import extract_tuples

__all__ = ["RULES_VERSION", "StagesParser", "tuples_from_stage"]

#: Bumped whenever the graph reading or the rules change output; part of every parser
#: fingerprint built on this module.
RULES_VERSION = "1"


def tuples_from_stage(stage: Mapping[str, Any]) -> list[list[str]]:
    """The raw SPICE tuples of one caption from its stage dict.

    Raises:
        ValueError: when the dict does not have the stage layout (the message names the
            sentence and what is wrong).
    """
    sentences = stage.get("sentences")
    if not isinstance(sentences, Sequence) or isinstance(sentences, str):
        raise ValueError(f"stage of {str(stage.get('caption'))[:60]!r} has no 'sentences' list")
    out: list[list[str]] = []
    for k, sentence in enumerate(sentences):
        if not isinstance(sentence, Mapping):
            raise ValueError(f"sentence {k} of {str(stage.get('caption'))[:60]!r} is not a mapping")
        try:
            graph = DepGraph.from_stage(sentence, sentence_index=k)
        except ValueError as exc:
            raise ValueError(f"sentence {k} of {str(stage.get('caption'))[:60]!r}: {exc}") from None
        out.extend(extract_tuples(graph))
    return out


class StagesParser:
    """A SPICE caption parser over stage dicts computed in advance.

    Args:
        stages: Stage dicts (each with its ``"caption"``), or a mapping caption -> stage dict.
        name: Fingerprint prefix recorded in signatures and cache keys; the fingerprint also
            carries a digest of the stages and :data:`RULES_VERSION`.

    Raises:
        ValueError: for a stage without a caption, two different stages for one caption, or
            (from :meth:`parse`) a caption with no stage.

    Example:
        >>> stage = {"caption": "a dog", "sentences": [{"tokens": [["a", "DT", "a"], ["dog", "NN", "dog"]],
        ...          "ccprocessed": [["det", 2, 1], ["root", 0, 2]]}]}
        >>> StagesParser([stage]).parse(["a dog"])
        [[['dog']]]
    """

    def __init__(
        self, stages: Iterable[Mapping[str, Any]] | Mapping[str, Mapping[str, Any]], name: str = "stages"
    ) -> None:
        by_caption: dict[str, Mapping[str, Any]] = {}
        items = stages.items() if isinstance(stages, Mapping) else ((None, s) for s in stages)
        for key, stage in items:
            caption = stage.get("caption", key) if isinstance(stage, Mapping) else None
            if key is not None and caption != key:
                raise ValueError(f"stage keyed {str(key)[:60]!r} is for caption {str(caption)[:60]!r}")
            if not isinstance(caption, str):
                raise ValueError("every stage needs its 'caption' string")
            if caption in by_caption and by_caption[caption] != stage:
                raise ValueError(f"two different stages for caption {caption[:60]!r}")
            by_caption[caption] = stage
        self.stages = by_caption
        digest = hashlib.sha256(
            json.dumps(sorted(by_caption.items()), ensure_ascii=False, sort_keys=True).encode("utf-8")
        ).hexdigest()[:16]
        self.fingerprint = f"{name}-{digest}+rules{RULES_VERSION}"

    def parse(self, texts: Sequence[str]) -> list[list[list[str]]]:
        """Raw tuples per caption."""
        out = []
        for i, text in enumerate(texts):
            stage = self.stages.get(text)
            if stage is None:
                raise ValueError(f"caption {i} ({text[:60]!r}) has no stage")
            out.append(tuples_from_stage(stage))
        return out
