"""SPICE's caption parser on the exact Stanford CoreNLP 3.6.0 pipeline.

:class:`CoreNLPParser` takes any *stages provider*, an object with

* ``annotate_many(texts: Sequence[str]) -> list[dict]``: one stage dict per text (the layout of
  :mod:`capeval.metrics.spice.stages`: tokens with the parser's tags and Morpha's lemmas,
  the Penn tree, basic and CCprocessed UD v1 dependencies), and
* ``fingerprint`` (a string, or a method returning one): what identifies its output, e.g. the
  sha256 of the grammar it parses with,

and turns the stages into SPICE's raw tuples with :func:`~capeval.metrics.spice.stages.tuples_from_stage`
(graph enhancements and rules exactly as the jar applies them). Without a provider it uses
:class:`capeval.metrics.spice.corenlp.pipeline.CoreNLPPipeline`, imported on first use.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from capeval.metrics.spice.stages import RULES_VERSION, tuples_from_stage

__all__ = ["CORENLP_VERSION", "DEFAULT_PIPELINE", "CoreNLPParser", "StagesProvider"]

#: The CoreNLP release whose pipeline official SPICE 1.0 runs.
CORENLP_VERSION = "3.6.0"
#: ``module:Class`` of the default stages provider.
DEFAULT_PIPELINE = "capeval.metrics.spice.corenlp.pipeline:CoreNLPPipeline"
#: Texts per ``annotate_many`` call (bounds memory; results do not depend on it).
_BATCH = 2048


@runtime_checkable
class StagesProvider(Protocol):
    """What :class:`CoreNLPParser` needs from a pipeline."""

    def annotate_many(self, texts: Sequence[str]) -> list[dict[str, Any]]:
        """One stage dict per text, in order."""
        ...


def _load_default(**options: Any) -> StagesProvider:
    module_name, _, class_name = DEFAULT_PIPELINE.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ImportError(
            f"SPICE's exact parser needs {DEFAULT_PIPELINE} ({exc}); pass parser='spacy' for the spaCy approximation"
        ) from exc
    pipeline: StagesProvider = getattr(module, class_name)(**options)
    return pipeline


def _fingerprint_of(pipeline: Any) -> str:
    value = getattr(pipeline, "fingerprint", None)
    if callable(value):
        value = value()
    if not isinstance(value, str) or not value:
        raise TypeError(f"{type(pipeline).__name__}.fingerprint must be a non-empty string")
    return value


class CoreNLPParser:
    """Captions -> SPICE raw tuples through the official pipeline's stages.

    Args:
        pipeline: A stages provider (see the module docstring); ``None`` for the default
            :class:`~capeval.metrics.spice.corenlp.pipeline.CoreNLPPipeline`, built on first
            use (and again in each process this parser is unpickled in; the grammar is
            loaded once per process).
        grammar: For the default pipeline: an explicit copy of the grammar (see
            :func:`capeval.metrics.spice.corenlp.sources.load_grammar`); default
            ``$CAPEVAL_SPICE_GRAMMAR``, else the usual sources.
        download: For the default pipeline: allow the grammar's one-time download.

    Raises:
        TypeError: when ``pipeline`` has no ``annotate_many``, or ``grammar`` is given with it.
        ImportError: (on first use) when the default pipeline is not available.
        capeval.metrics.spice.corenlp.sources.GrammarNotFound: (on first use) when no copy of
            the grammar is found; the message says how to provide one.

    Example:
        >>> class Fake:
        ...     fingerprint = "fake"
        ...     def annotate_many(self, texts):
        ...         return [{"caption": t, "sentences": [{"tokens": [[t, "NN", t]], "ccprocessed": [["root", 0, 1]]}]}
        ...                 for t in texts]
        >>> parser = CoreNLPParser(Fake())
        >>> parser.parse(["dog"]), parser.fingerprint
        ([[['dog']]], 'corenlp-3.6.0+fake+rules1')
    """

    def __init__(
        self,
        pipeline: StagesProvider | None = None,
        *,
        grammar: str | os.PathLike[str] | None = None,
        download: bool = True,
    ) -> None:
        if pipeline is not None and not callable(getattr(pipeline, "annotate_many", None)):
            raise TypeError(f"pipeline must have annotate_many(texts), got {type(pipeline).__name__}")
        if pipeline is not None and grammar is not None:
            raise TypeError("grammar is an option of the default pipeline; give it to your pipeline instead")
        self._given = pipeline is not None
        self._pipeline = pipeline
        self._grammar = None if grammar is None else os.fspath(grammar)
        self._download = download
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        # The default pipeline is rebuilt where the parser is unpickled; a given one travels.
        return {
            "pipeline": self._pipeline if self._given else None,
            "grammar": self._grammar,
            "download": self._download,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(  # type: ignore[misc]
            state["pipeline"], grammar=state.get("grammar"), download=state.get("download", True)
        )

    @property
    def pipeline(self) -> StagesProvider:
        """The stages provider (the default one is built here on first use)."""
        if self._pipeline is None:
            with self._lock:
                if self._pipeline is None:
                    self._pipeline = _load_default(grammar=self._grammar, download=self._download)
        return self._pipeline

    @property
    def fingerprint(self) -> str:
        """``corenlp-3.6.0+<pipeline fingerprint>+rules<N>``: parser identity for caches and signatures."""
        return f"corenlp-{CORENLP_VERSION}+{_fingerprint_of(self.pipeline)}+rules{RULES_VERSION}"

    def stages(self, texts: Sequence[str]) -> list[dict[str, Any]]:
        """The pipeline's stage dicts, checked to be one per text and for that text."""
        out: list[dict[str, Any]] = []
        for start in range(0, len(texts), _BATCH):
            batch = list(texts[start : start + _BATCH])
            stages = self.pipeline.annotate_many(batch)
            if len(stages) != len(batch):
                raise ValueError(f"the pipeline returned {len(stages)} stage dicts for {len(batch)} captions")
            for k, (text, stage) in enumerate(zip(batch, stages, strict=True)):
                if not isinstance(stage, dict) or stage.get("caption", text) != text:
                    raise ValueError(f"stage {start + k} is not the stage dict of caption {text[:60]!r}")
            out.extend(stages)
        return out

    def parse(self, texts: Sequence[str]) -> list[list[list[str]]]:
        """Raw SPICE tuples per caption (sentences concatenated)."""
        return [tuples_from_stage(stage) for stage in self.stages(texts)]
