"""numba, when installed: the one switch and the helpers the compiled metric kernels share.

Kernels are written on integer arrays so that they compile with ``@njit(cache=True)``; the
compiled code is cached next to the module (or in numba's user cache directory), so only the
first use on a machine pays the compilation. Helpers called only from other kernels use
:func:`helper` instead: their callers' cached code contains them. Without numba the metrics use their vectorized
paths (same values), or run the kernel as plain Python where no such path exists.

numba's cache is keyed on the file that defines a kernel only: after changing a helper here,
touch the kernel modules that use it (``_bleu_kernel``, ``_cider_kernel``, ``ngrams``) so their
cached code is rebuilt. Installed releases are unaffected (every file is new).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["HAVE_NUMBA", "MAX_WORDS", "WORD_BITS", "find_gram", "hash_slot", "helper", "inline", "jit", "pack_gram"]

try:  # numba is a dependency, but every metric also works without it.
    from numba import njit as _njit

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - exercised only without numba
    HAVE_NUMBA = False

_LoadingCache: Any = None
if HAVE_NUMBA:
    try:
        from numba.core.caching import FunctionCache as _FunctionCache
        from numba.core.runtime import rtsys as _rtsys
    except ImportError:  # pragma: no cover - a numba without these: its own cache is used as it is
        pass
    else:
        if all(hasattr(_FunctionCache, a) for a in ("_load_overload", "_guard_against_spurious_io_errors")):

            class _LoadingCache(_FunctionCache):  # type: ignore[no-redef]
                """numba's cache of a kernel, loading it without first preparing to compile.

                numba's own ``load_overload`` first makes its compiler's registries complete
                (importing all of its typing and lowering modules: about 0.3 s of every process's
                start) although loading machine code needs only the runtime. Here only the runtime
                is initialized; when a kernel must be compiled after all, numba's compiler
                prepares itself as usual.
                """

                def load_overload(self, sig: Any, target_context: Any) -> Any:
                    _rtsys.initialize(target_context)
                    with self._guard_against_spurious_io_errors():
                        return self._load_overload(sig, target_context)  # type: ignore[no-untyped-call]


def _cached(dispatcher: Any) -> Any:
    """``dispatcher`` (compiled with ``cache=True``) loading its cache with :class:`_LoadingCache`."""
    if _LoadingCache is not None and isinstance(getattr(dispatcher, "_cache", None), _FunctionCache):
        dispatcher._cache = _LoadingCache(dispatcher.py_func)
    return dispatcher


#: Bits per word in a packed n-gram key: four words fill one 64-bit key.
WORD_BITS = 16
#: Distinct words that fit in a packed n-gram key.
MAX_WORDS = 1 << WORD_BITS
#: Odd 64-bit multiplier for multiplicative hashing (2**64 / golden ratio).
_HASH_MULT = 0x9E3779B97F4A7C15


def jit(func: Any) -> Any:
    """Compile ``func`` with numba (cached, releasing the GIL), or return it unchanged."""
    if HAVE_NUMBA:
        return _cached(_njit(cache=True, nogil=True)(func))
    return func  # pragma: no cover - exercised only without numba


def helper(func: Any) -> Any:
    """Like :func:`jit`, for kernels called only from other compiled kernels.

    Not cached on their own: the cached machine code of every caller already contains them, and
    caching each one separately would make numba emit (and write) its machine code once more on the
    first run.
    """
    if HAVE_NUMBA:
        return _njit(nogil=True)(func)
    return func  # pragma: no cover - exercised only without numba


def inline(func: Any) -> Any:
    """Like :func:`jit`, for small helpers of hot loops: numba inlines them into their callers."""
    if HAVE_NUMBA:
        return _cached(_njit(cache=True, nogil=True, inline="always")(func))
    return func  # pragma: no cover - exercised only without numba


@inline
def hash_slot(key: np.uint64, mask: np.uint64) -> np.int64:  # pragma: no cover - compiled
    """Home slot of ``key`` in an open-addressing table of ``mask + 1`` (a power of two) slots."""
    # The high half of the product is the best mixed.
    return np.int64(((key * np.uint64(_HASH_MULT)) >> np.uint64(32)) & mask)


@inline
def pack_gram(words: Any, start: int, k: int) -> np.uint64:  # pragma: no cover - compiled
    """The n-gram ``words[start:start+k]`` as one key (``WORD_BITS`` per word)."""
    key = np.uint64(0)
    for j in range(k):
        key = (key << np.uint64(WORD_BITS)) | np.uint64(words[start + j])
    return key


@inline
def find_gram(key: np.uint64, k: int, slot_gram: Any, gram_key: Any, gram_order: Any) -> int:  # pragma: no cover
    """Slot of the order-``k`` n-gram ``key`` in a table of interned n-grams, or of the empty
    slot where it belongs.

    ``slot_gram`` is an open-addressing table (a power of two long, -1 for empty) of ids into
    ``gram_key`` / ``gram_order``.
    """
    mask = slot_gram.shape[0] - 1
    slot = hash_slot(key ^ np.uint64(k), np.uint64(mask))
    while slot_gram[slot] >= 0:
        gram = slot_gram[slot]
        if gram_key[gram] == key and gram_order[gram] == k:
            return slot
        slot = (slot + 1) & mask
    return slot
