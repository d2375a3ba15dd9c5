"""Regularized kernel canonical correlation analysis (Hardoon, Szedmak and Shawe-Taylor 2004).

KCCA finds weights ``alpha``, ``beta`` over the training pairs maximizing

    alpha' Kx Ky beta / sqrt((alpha' (Kx^2 + kappa Kx) alpha) (beta' (Ky^2 + kappa Ky) beta))

for centred training kernels ``Kx`` (images) and ``Ky`` (text). With ``Kx = U diag(l) U'`` and
``Ky = V diag(m) V'``, and ``a = U' alpha`` scaled by ``(l^2 + kappa l)^(1/2)``, the problem is
the singular value decomposition of

    C(kappa) = diag(sqrt(l / (l + kappa))) U' V diag(sqrt(m / (m + kappa)))

whose singular values are the regularized canonical correlations. So each kernel is decomposed
**once** (:class:`KernelEigen`) and every setting of the grid (kappa, number of dimensions, a
text-kernel diagonal shift, which only moves eigenvalues) costs one SVD of a ``rank x rank``
matrix, instead of a new ``n x n`` generalized eigenproblem.

Large kernels are decomposed as Hardoon et al. do, through a low-rank factor ``K ~ G G'`` from a
pivoted incomplete Cholesky decomposition (equivalently, their partial Gram-Schmidt
orthogonalization): it needs only the kernel's diagonal and the columns of the chosen pivots
(:meth:`KernelEigen.from_columns`), and a new item only its kernel values against the pivots.
:meth:`KernelEigen.from_kernel` decomposes a full kernel matrix exactly instead.

A new item's projection is its *eigen-coordinates* (the centred kernel row times ``U``) times
``diag((l^2 + kappa l)^(-1/2)) P[:, :d]``; images and captions are compared by the cosine of
their projections.
"""

from __future__ import annotations

from collections.abc import Callable
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
    """The leading eigenpairs of a centred training kernel, and how to place new items among them.

    Attributes:
        values: ``(r,)`` eigenvalues of the centred training kernel, decreasing, positive.
        vectors: ``(n, r)`` orthonormal eigenvectors over the training items.
        columns: The training items a new item's kernel row must cover, in order (all of them,
            or the pivots of an incomplete Cholesky factor).
        basis: ``(len(columns), r)`` or, for a factor, ``(p, r)``: maps a prepared row to
            eigen-coordinates.
        centre: Column means (exact) or factor-row means (factor) used to centre new rows.
        total: Overall mean of the training kernel (exact; 0 for a factor).
        pivot_block: The ``(p, p)`` lower-triangular pivot rows of the factor (empty when exact).
    """

    values: F64
    vectors: F64
    columns: npt.NDArray[np.int64]
    basis: F64
    centre: F64
    total: float
    pivot_block: F64

    @property
    def is_factor(self) -> bool:
        """Whether this comes from an incomplete Cholesky factor (rows against the pivots)."""
        return bool(self.pivot_block.size)

    def coordinates(self, rows: Any) -> F64:
        """Eigen-coordinates ``(m, r)`` of new items from their uncentred kernel rows against :attr:`columns`.

        Raises:
            ValueError: when the rows do not have one value per column.
        """
        from scipy.linalg import solve_triangular

        k = np.asarray(rows, dtype=np.float64)
        if k.ndim != 2 or k.shape[1] != self.columns.size:
            raise ValueError(f"kernel rows must be (m, {self.columns.size}), got {k.shape}")
        if self.is_factor:
            g = solve_triangular(self.pivot_block, k.T, lower=True).T
            out: F64 = (g - self.centre[None, :]) @ self.basis
            return out
        centred = k - k.mean(axis=1, keepdims=True) - self.centre[None, :] + self.total
        result: F64 = centred @ self.basis
        return result

    def save(self, path: str | Any) -> None:
        """Write to an ``.npz`` file (read back with :meth:`load`)."""
        np.savez(
            path,
            values=self.values,
            vectors=self.vectors,
            columns=self.columns,
            basis=self.basis,
            centre=self.centre,
            total=np.float64(self.total),
            pivot_block=self.pivot_block,
        )

    @classmethod
    def load(cls, path: str | Any) -> KernelEigen:
        """Read what :meth:`save` wrote."""
        with np.load(path) as z:
            return cls(
                z["values"], z["vectors"], z["columns"], z["basis"], z["centre"], float(z["total"]), z["pivot_block"]
            )

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
        """Centre a full ``kernel`` (n x n, uncentred) and keep its ``rank`` largest positive eigenpairs.

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
        centred, (col, total) = center_kernel(k)
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
        vectors = np.ascontiguousarray(vectors[:, keep])
        return cls(values[keep], vectors, np.arange(n), vectors, col, total, np.zeros((0, 0)))

    @classmethod
    def from_columns(cls, diagonal: Any, column: Callable[[int], Any], rank: int, *, tol: float = 1e-6) -> KernelEigen:
        """Decompose a kernel known through its diagonal and a column oracle (pivoted incomplete Cholesky).

        Greedy pivoting: each step takes the item whose residual diagonal is largest, asks
        ``column(i)`` for its kernel column ``K[:, i]`` and extends ``G`` so that ``G G'``
        matches the kernel on every chosen column. It stops after ``rank`` pivots, or when the
        largest residual falls below ``tol`` times the largest diagonal value. The factor rows
        are then centred and decomposed by a thin SVD, ``G_c = U S V'``: the centred kernel's
        eigenvalues are ``S^2`` and its eigenvectors ``U``.

        Args:
            diagonal: ``(n,)`` kernel values ``K[i, i]``.
            column: ``i -> (n,)`` kernel column of training item ``i``.
            rank: Largest number of pivots.
            tol: Relative residual at which to stop.

        Raises:
            ValueError: on a non-positive diagonal maximum or a column of the wrong length.
        """
        d = np.asarray(diagonal, dtype=np.float64).copy()
        n = d.size
        scale = float(d.max()) if n else 0.0
        if not scale > 0:
            raise ValueError("the kernel diagonal has no positive value")
        r = max(1, min(rank, n))
        g = np.zeros((n, r))
        pivots: list[int] = []
        residual = d.copy()
        for j in range(r):
            i = int(np.argmax(residual))
            if residual[i] <= tol * scale:
                break
            col = np.asarray(column(i), dtype=np.float64)
            if col.shape != (n,):
                raise ValueError(f"kernel column {i} has shape {col.shape}, expected ({n},)")
            new = (col - g[:, :j] @ g[i, :j]) / np.sqrt(residual[i])
            g[:, j] = new
            residual = np.maximum(residual - new * new, 0.0)
            residual[i] = 0.0
            pivots.append(i)
        p = len(pivots)
        g = g[:, :p]
        mean = g.mean(axis=0)
        u, s, vt = np.linalg.svd(g - mean[None, :], full_matrices=False)
        keep = s > np.sqrt(tol) * max(float(s[0]), 1e-300)
        u, s, vt = u[:, keep], s[keep], vt[keep]
        return cls(
            s * s,
            np.ascontiguousarray(u),
            np.asarray(pivots, dtype=np.int64),
            vt.T * s[None, :],
            mean,
            0.0,
            np.ascontiguousarray(g[pivots]),
        )


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
        image: The image kernel's decomposition.
        text: The text kernel's decomposition.
        image_weights: ``(r_image, d)``: image eigen-coordinates times this give projections.
        text_weights: ``(r_text, d)``: the same for texts.
        kappa: The regularization.
    """

    correlations: F64
    image: KernelEigen
    text: KernelEigen
    image_weights: F64
    text_weights: F64
    kappa: float

    def project_images(self, kernel_rows: Any, dims: int | None = None) -> F64:
        """Projections of new images from their uncentred kernel rows against ``image.columns``."""
        out: F64 = self.image.coordinates(kernel_rows) @ self.image_weights[:, :dims]
        return out

    def project_texts(self, kernel_rows: Any, dims: int | None = None) -> F64:
        """Projections of new texts from their uncentred kernel rows against ``text.columns``."""
        out: F64 = self.text.coordinates(kernel_rows) @ self.text_weights[:, :dims]
        return out

    def truncate(self, dims: int) -> KCCA:
        """The same model keeping its first ``dims`` canonical directions (what ``fit_kcca(dims=...)`` gives)."""
        d = max(1, min(dims, self.correlations.size))
        return KCCA(
            self.correlations[:d],
            self.image,
            self.text,
            self.image_weights[:, :d],
            self.text_weights[:, :d],
            self.kappa,
        )


def fit_kcca(
    image: KernelEigen,
    text: KernelEigen,
    *,
    kappa: float,
    dims: int | None = None,
    text_shift: float = 0.0,
    cross: F64 | None = None,
) -> KCCA:
    """Regularized KCCA from two training kernels' decompositions.

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
    s, p, q = _leading_singular(c, dims)
    wx = p / np.sqrt(lx * lx + kappa * lx)[:, None]
    wy = q / np.sqrt(ly * ly + kappa * ly)[:, None]
    return KCCA(s, image, text, wx, wy, float(kappa))


def _leading_singular(c: F64, dims: int | None) -> tuple[F64, F64, F64]:
    """The ``dims`` largest singular values of ``c`` with their left and right vectors.

    Through the eigendecomposition of the smaller Gram matrix (``c'c`` or ``cc'``), several
    times faster than a thin SVD for the tall matrices of an exact image kernel (6,000 x 1,000);
    ``c``'s entries are canonical correlations (at most 1), so squaring them loses nothing of
    the leading directions. Directions with a zero singular value are dropped.
    """
    from scipy.linalg import eigh

    tall = c.shape[0] >= c.shape[1]
    gram = c.T @ c if tall else c @ c.T
    n = gram.shape[0]
    d = n if dims is None else max(1, min(dims, n))
    values, vectors = eigh(gram, subset_by_index=[n - d, n - 1])
    values, vectors = values[::-1], vectors[:, ::-1]
    keep = values > 1e-12 * max(float(values[0]), 1e-300)
    s = np.sqrt(values[keep])
    small = vectors[:, keep]
    other = (c @ small if tall else c.T @ small) / s[None, :]
    return (s, other, small) if tall else (s, small, other)


def cosine_scores(images: Any, texts: Any) -> F64:
    """``(n_images, n_texts)`` cosine similarities of projections (0 for a zero vector)."""
    a = np.asarray(images, dtype=np.float64)
    b = np.asarray(texts, dtype=np.float64)
    na = np.linalg.norm(a, axis=1, keepdims=True)
    nb = np.linalg.norm(b, axis=1, keepdims=True)
    out: F64 = (a / np.where(na > 0, na, 1.0)) @ (b / np.where(nb > 0, nb, 1.0)).T
    return out
