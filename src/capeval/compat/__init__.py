"""Drop-in replacements for the evaluation code that training and evaluation scripts import.

* :mod:`capeval.compat.pycocoevalcap` mirrors ``pycocoevalcap`` 1.2 (``COCOEvalCap``, ``PTBTokenizer``,
  ``Bleu``, ``Meteor``, ``Rouge``, ``Cider``, ``Spice``): same modules, classes, arguments, return types
  and printed progress, computed by capeval's metrics (no Java, no subprocesses, no temporary files).
* :mod:`capeval.compat.pyciderevalcap` mirrors the ``pyciderevalcap`` scorers of self-critical
  training code (``CiderD(df="coco-train-idxs")``), with document-frequency pickles read by a
  restricted unpickler (:mod:`capeval.compat.dfpickle`).

Switching is a change of import lines only; see ``docs/compat.md``.
"""

from __future__ import annotations

from capeval.compat._checks import CompatInputError

__all__ = ["CompatInputError"]
