"""Array aliases shared by the whole package (one definition each)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["FloatArray", "IntArray"]

#: A float64 NumPy array (statistics matrices, per-item scores).
FloatArray = npt.NDArray[np.float64]
#: An int64 NumPy array (word ids, counts, offsets).
IntArray = npt.NDArray[np.int64]
