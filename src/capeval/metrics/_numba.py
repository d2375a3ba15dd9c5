"""numba, when installed: the one switch and the helpers the compiled metric kernels share.

Kernels are written on integer arrays so that they compile with ``@njit(cache=True)``; the
compiled code is cached next to the module (or in numba's user cache directory), so only the
first use on a machine pays the compilation. Without numba the metrics use their vectorized
paths (same values), or run the kernel as plain Python where no such path exists.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["HAVE_NUMBA", "MAX_WORDS", "WORD_BITS", "hash_slot", "jit"]

try:  # numba is a dependency, but every metric also works without it.
    from numba import njit as _njit

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - exercised only without numba
    HAVE_NUMBA = False

#: Bits per word in a packed n-gram key: four words fill one 64-bit key.
WORD_BITS = 16
#: Distinct words that fit in a packed n-gram key.
MAX_WORDS = 1 << WORD_BITS
#: Odd 64-bit multiplier for multiplicative hashing (2**64 / golden ratio).
_HASH_MULT = 0x9E3779B97F4A7C15


def jit(func: Any) -> Any:
    """Compile ``func`` with numba (cached, releasing the GIL), or return it unchanged."""
    if HAVE_NUMBA:
        return _njit(cache=True, nogil=True)(func)
    return func  # pragma: no cover - exercised only without numba


@jit
def hash_slot(key: np.uint64, mask: np.uint64) -> np.int64:  # pragma: no cover - compiled
    """Home slot of ``key`` in an open-addressing table of ``mask + 1`` (a power of two) slots."""
    # The high half of the product is the best mixed.
    return np.int64(((key * np.uint64(_HASH_MULT)) >> np.uint64(32)) & mask)
