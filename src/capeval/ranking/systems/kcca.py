"""Regularized kernel canonical correlation analysis (Hardoon, Szedmak and Shawe-Taylor 2004).

KCCA finds weights ``alpha``, ``beta`` over the training pairs maximizing

    alpha' Kx Ky beta / sqrt((alpha' (Kx^2 + kappa Kx) alpha) (beta' (Ky^2 + kappa Ky) beta))

for centred training kernels ``Kx`` (images) and ``Ky`` (text). With ``Kx = U diag(l) U'`` and
``Ky = V diag(m) V'``, and ``a = U' alpha`` scaled by ``(l^2 + kappa l)^(1/2)``, the problem is
the singular value decomposition of

    C(kappa) = diag(sqrt(l / (l + kappa))) U' V diag(sqrt(m / (m + kappa)))

whose singular values are the regularized canonical correlations. So each kernel's
eigendecomposition is computed **once** (:class:`KernelEigen`) and every setting of the grid
(kappa, number of dimensions, a text-kernel diagonal shift, which only moves eigenvalues) costs
one SVD of a ``rank x rank`` matrix, instead of a new ``n x n`` generalized eigenproblem.
Eigencomponents beyond ``rank`` (those with the smallest eigenvalues, which the regularizer
shrinks most, and any negative ones of an indefinite kernel) are dropped.

A new item with (uncentred) kernel row ``k`` against the training items is projected as
``centre(k) U diag((l^2 + kappa l)^(-1/2)) P[:, :d]``; images and captions are compared by the
cosine of their projections.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["KCCA", "KernelEigen", "center_kernel", "cosine_scores", "fit_kcca"]

F64 = npt.NDArray[np.float64]


def center_kernel(
    train: Any, test: Any | None = None, *, stats: tuple[F64, float] | None = None
) -> tuple[F64, tuple[F64, float]]:
    """Centre a kernel in the training feature space.

    Args:
        train: ``(n, n)`` training kernel (used for its column means unless ``stats``).
        test: Optional ``(m, n)`` rows of new items against the training items; when given,
            these are centred and returned instead of the training kernel.
        stats: ``(column means, overall mean)`` of the training kernel, if already known.

    Returns:
        ``(centred matrix, (column means, overall mean))``.
    """
    if stats is None:
        k = np.asarray(train, dtype=np.float64)
        stats = (k.mean(axis=0), float(k.mean()))
    col, total = stats
    m = np.asarray(train if test is None else test, dtype=np.float64)
    out = m - m.mean(axis=1, keepdims=True) - col[None, :] + total
    if test is not None:
        return out, stats
    return (out + out.T) / 2.0, stats  # exact symmetry for eigh


@dataclass(frozen=True)
class KernelEigen:
    """The leading eigenpairs of a centred training kernel, and its centring statistics.

    Attributes:
        values: ``(r,)`` eigenvalues, decreasing, all positive.
        vectors: ``(n, r)`` orthonormal eigenvectors.
        stats: Column means and overall mean of the *uncentred* training kernel.
    """

    values: F64
    vectors: F64
    stats: tuple[F64, float]

    @classmethod
    def from_kernel(
        cls,
        kernel: Any,
        rank: int | None = None,
        *,
        method: str = "auto",
        power_iterations: int = 4,
        seed: int = 0,
        tol: float = 1e-9,
    ) -> KernelEigen:
        """Centre ``kernel`` (n x n, uncentred) and keep its ``rank`` largest positive eigenpairs.

        Args:
            kernel: The uncentred training kernel.
            rank: Eigenpairs to keep (default: all).
            method: ``exact`` (LAPACK), ``randomized`` (subspace iteration, Halko et al. 2011:
                ``rank + 10%`` random directions, ``power_iterations`` passes, seeded) or
                ``auto`` (randomized when ``rank`` is below half of ``n`` and ``n > 2000``).
            power_iterations: Passes of the randomized method.
            seed: Seed of the randomized method.
            tol: Eigenvalues below ``tol`` times the largest are dropped.

        Raises:
            ValueError: when the kernel is not square or has no positive eigenvalue.
        """
        from scipy.linalg import eigh

        k = np.asarray(kernel, dtype=np.float64)
        if k.ndim != 2 or k.shape[0] != k.shape[1]:
            raise ValueError(f"a training kernel must be square, got shape {k.shape}")
        if method not in ("auto", "exact", "randomized"):
            raise ValueError(f"method must be auto, exact or randomized, got {method!r}")
        centred, stats = center_kernel(k)
        n = k.shape[0]
        r = n if rank is None else max(1, min(rank, n))
        if method == "randomized" or (method == "auto" and 2 * r < n and n > 2000):
            values, vectors = _randomized_eigh(centred, r, power_iterations, seed)
        elif r < n:
            values, vectors = eigh(centred, subset_by_index=[n - r, n - 1], driver="evr")
        else:
            values, vectors = eigh(centred, driver="evd")
        order = np.argsort(-values)
        values, vectors = values[order], vectors[:, order]
        keep = values > tol * max(float(values[0]), 1e-300)
        if not keep.any():
            raise ValueError("the centred kernel has no positive eigenvalue")
        return cls(values[keep], np.ascontiguousarray(vectors[:, keep]), stats)


def _randomized_eigh(a: F64, rank: int, iterations: int, seed: int) -> tuple[F64, F64]:
    """Leading eigenpairs of a symmetric matrix by randomized subspace iteration (Halko et al. 2011)."""
    from scipy.linalg import eigh, qr

    n = a.shape[0]
    width = min(n, rank + max(10, rank // 10))
    q, _ = qr(a @ np.random.default_rng(seed).standard_normal((n, width)), mode="economic")
    for _ in range(iterations):
        q, _ = qr(a @ q, mode="economic")
    values, small = eigh(q.T @ a @ q)
    top = np.argsort(-values)[:rank]
    return values[top], q @ small[:, top]


@dataclass(frozen=True)
class KCCA:
    """A trained KCCA: projections of new images and texts into the shared space.

    Attributes:
        correlations: ``(d,)`` regularized canonical correlations, decreasing.
        image_weights: ``(n, d)``: centred image kernel rows times this give image projections.
        text_weights: ``(n, d)``: the same for texts.
        image_stats: Centring statistics of the training image kernel.
        text_stats: Centring statistics of the training text kernel.
        kappa: The regularization.
    """

    correlations: F64
    image_weights: F64
    text_weights: F64
    image_stats: tuple[F64, float]
    text_stats: tuple[F64, float]
    kappa: float

    def project_images(self, kernel_rows: Any, dims: int | None = None) -> F64:
        """Projections of new images from their ``(m, n)`` uncentred kernel rows against training."""
        rows, _ = center_kernel(None, kernel_rows, stats=self.image_stats)
        return rows @ self.image_weights[:, :dims]

    def project_texts(self, kernel_rows: Any, dims: int | None = None) -> F64:
        """Projections of new texts from their ``(m, n)`` uncentred kernel rows against training."""
        rows, _ = center_kernel(None, kernel_rows, stats=self.text_stats)
        return rows @ self.text_weights[:, :dims]


def fit_kcca(
    image: KernelEigen,
    text: KernelEigen,
    *,
    kappa: float,
    dims: int | None = None,
    text_shift: float = 0.0,
    cross: F64 | None = None,
) -> KCCA:
    """Regularized KCCA from two training kernels' eigendecompositions.

    Args:
        image: :class:`KernelEigen` of the training image kernel.
        text: :class:`KernelEigen` of the training text kernel (same training pairs).
        kappa: Regularization (> 0), on the kernels' eigenvalue scale.
        dims: Number of canonical directions kept (default: all).
        text_shift: Added to the text kernel's diagonal before training (a shift of its
            eigenvalues; Hodosh et al.'s "diagonal factor").
        cross: ``image.vectors.T @ text.vectors``, when already computed (it does not depend
            on the other settings, so a grid computes it once).

    Raises:
        ValueError: on a non-positive kappa or kernels of different sizes.
    """
    if kappa <= 0:
        raise ValueError(f"kappa must be positive, got {kappa}")
    if image.vectors.shape[0] != text.vectors.shape[0]:
        raise ValueError(f"image and text kernels have {image.vectors.shape[0]} and {text.vectors.shape[0]} items")
    lx = image.values
    ly = text.values + text_shift
    dx = np.sqrt(lx / (lx + kappa))
    dy = np.sqrt(ly / (ly + kappa))
    uv = image.vectors.T @ text.vectors if cross is None else cross
    c = (dx[:, None] * uv) * dy[None, :]
    p, s, qt = np.linalg.svd(c, full_matrices=False)
    d = s.size if dims is None else max(1, min(dims, s.size))
    wx = image.vectors @ (p[:, :d] / np.sqrt(lx * lx + kappa * lx)[:, None])
    wy = text.vectors @ (qt[:d].T / np.sqrt(ly * ly + kappa * ly)[:, None])
    return KCCA(s[:d], wx, wy, image.stats, text.stats, float(kappa))


def cosine_scores(images: Any, texts: Any) -> F64:
    """``(n_images, n_texts)`` cosine similarities of projections (0 for a zero vector)."""
    a = np.asarray(images, dtype=np.float64)
    b = np.asarray(texts, dtype=np.float64)
    na = np.linalg.norm(a, axis=1, keepdims=True)
    nb = np.linalg.norm(b, axis=1, keepdims=True)
    out: F64 = (a / np.where(na > 0, na, 1.0)) @ (b / np.where(nb > 0, nb, 1.0)).T
    return out
