"""``pyciderevalcap.ciderD.ciderD``: CIDEr-D rewards with corpus or cached document frequencies."""

from __future__ import annotations

from capeval.compat.pyciderevalcap._scorer import _PyciderScorer
from capeval.metrics.cider import DocumentFrequencies

__all__ = ["CiderD"]


class CiderD(_PyciderScorer):
    """CIDEr-D as self-critical training code computes it.

    Captions are split on white space as given (no tokenizer: the training code passes its own
    tokens, often word indices joined by spaces).

    Args:
        n: Highest n-gram order (4).
        sigma: Width of the length penalty (6.0).
        df: ``"corpus"``: document frequencies of the references of each call, one document per
            entry of ``res`` (as the official ``compute_score``: several samples of an image count
            its references several times); or a name/path: ``data/<df>.p`` (a self-critical pickle, read with a
            restricted unpickler), a ``.p``/``.npz`` path, or a
            :class:`~capeval.metrics.cider.DocumentFrequencies`; the idf numerator is then
            ``log(ref_len)`` of that file.

    ``compute_score(gts, res)``: ``gts`` is ``{image_id: [reference strings]}`` and ``res`` a list
    of ``{"image_id": id, "caption": [one string]}``; returns ``(mean, numpy array)`` in ``res`` order.
    """

    _name = "CiderD"

    def __init__(self, n: int = 4, sigma: float = 6.0, df: str | DocumentFrequencies = "corpus") -> None:
        from capeval.metrics.cider import CIDErD

        self._n = n
        self._sigma = sigma
        self._df = df
        self._metric = CIDErD(n=n, sigma=sigma, df=self._frequencies(df, n), tokenizer="none")

    def method(self) -> str:
        """``"CIDEr-D"``."""
        return "CIDEr-D"
