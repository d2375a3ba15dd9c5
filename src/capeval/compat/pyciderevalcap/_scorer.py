"""The shared body of the ``pyciderevalcap`` ``CiderD`` and ``Cider`` classes."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from capeval.compat._checks import CompatInputError, warn_empty_candidates
from capeval.metrics.base import FloatArray
from capeval.metrics.cider import DocumentFrequencies


class _PyciderScorer:
    """Score ``res = [{"image_id", "caption": [str]}]`` against ``gts = {image_id: [str]}``."""

    _name: str
    _metric: Any

    def _frequencies(self, df: str | DocumentFrequencies, n: int) -> DocumentFrequencies | None:
        if isinstance(df, DocumentFrequencies):
            return df
        if df == "corpus":
            return None
        from capeval.compat.dfpickle import read_df

        return read_df(df, n=n)

    def compute_score(
        self, gts: Mapping[Hashable, Sequence[str]], res: Sequence[Mapping[str, Any]]
    ) -> tuple[np.float64, FloatArray]:
        """Mean and per-entry scores of ``res`` (in ``res`` order)."""
        if not isinstance(gts, Mapping):
            raise CompatInputError(
                f"{self._name}: gts must be a dict {{image_id: [captions]}}, got {type(gts).__name__}"
            )
        if isinstance(res, (str, Mapping)) or not isinstance(res, Sequence):
            raise CompatInputError(
                f"{self._name}: res must be a list of {{'image_id': ..., 'caption': [str]}}, got {type(res).__name__}"
            )
        candidates: list[str] = []
        references: list[Sequence[str]] = []
        ids: list[Hashable] = []
        for i, entry in enumerate(res):
            try:
                image_id, hypo = entry["image_id"], entry["caption"]
            except (TypeError, KeyError, IndexError):
                raise CompatInputError(
                    f"{self._name}: res[{i}] must be a dict with 'image_id' and 'caption', got {entry!r:.80}"
                ) from None
            if type(hypo) is not list or len(hypo) != 1 or not isinstance(hypo[0], str):
                raise CompatInputError(
                    f"{self._name}: res[{i}] (image {image_id!r}): 'caption' must be a list holding one string, "
                    f"got {hypo!r:.80}"
                )
            try:
                refs = gts[image_id]
            except (KeyError, TypeError):
                raise CompatInputError(f"{self._name}: res[{i}]: image {image_id!r} is not in gts") from None
            if type(refs) is not list or len(refs) == 0 or not all(isinstance(r, str) for r in refs):
                raise CompatInputError(f"{self._name}: gts[{image_id!r}] must be a non-empty list of caption strings")
            candidates.append(hypo[0])
            references.append(refs)
            ids.append(image_id)
        warn_empty_candidates(ids, candidates, self._name)
        scores = self._score(candidates, references)
        return np.float64(np.mean(scores)), np.array(scores)

    def _score(self, candidates: list[str], references: list[Sequence[str]]) -> FloatArray:
        # Entries that share an image share one reference set: score them as several candidates of one item.
        index: dict[int, int] = {}
        item_of: list[int] = []
        items: list[Sequence[str]] = []
        for refs in references:
            key = id(refs)
            if key not in index:
                index[key] = len(items)
                items.append(refs)
            item_of.append(index[key])
        df: DocumentFrequencies | None = None
        if self._metric.df is None and 1 < len(items) < len(references):
            # The official scorer appends each entry's reference list on its own and counts document
            # frequencies over those lists, ``log(len(res))`` being the idf numerator: a list shared
            # by several entries (several samples of one image) counts once per entry. (With one
            # list in all, every idf is 0 either way: the metric warns that every score is 0.)
            df = DocumentFrequencies.from_references(references, name="refs", n=self._metric.n)
        return self._metric.score_batch(candidates, item_of, items, df=df, tokenized=True)
