"""Drop-in replacement for ``pycocoevalcap`` 1.2: same modules, classes and results, no Java.

Change ``from pycocoevalcap.eval import COCOEvalCap`` to
``from capeval.compat.pycocoevalcap.eval import COCOEvalCap`` (and likewise for
``tokenizer.ptbtokenizer``, ``bleu.bleu``, ``meteor.meteor``, ``rouge.rouge``, ``cider.cider``,
``spice.spice``); nothing else changes. The one documented difference: a caption containing a line
break other than ``\\n`` (``\\r``, ``\\u2028``, ...) is tokenized as one caption, where the official
tokenizer shifts every later caption onto the wrong image (see ``docs/compat.md``).
"""

from __future__ import annotations
