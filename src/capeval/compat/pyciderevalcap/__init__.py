"""Drop-in replacement for the ``pyciderevalcap`` scorers of self-critical (SCST) training code.

``from capeval.compat.pyciderevalcap.ciderD.ciderD import CiderD`` replaces
``from pyciderevalcap.ciderD.ciderD import CiderD``; ``CiderD(df="coco-train-idxs")`` reads
``data/coco-train-idxs.p`` with a restricted unpickler (see :mod:`capeval.compat.dfpickle`) or a
converted ``.npz``, and ``compute_score(gts, res)`` returns the same ``(mean, per-item array)``.
"""

from __future__ import annotations
