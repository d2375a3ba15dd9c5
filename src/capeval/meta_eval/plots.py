"""Figures for meta-evaluation, written to PNG/SVG files with matplotlib's Agg backend.

matplotlib is imported lazily (it is in the ``stats`` extra) and never opens a window.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["plot_cumulative", "plot_pk_model", "plot_scatter"]

#: Figure resolution for PNG output.
DPI = 150
_FORMATS = (".png", ".svg", ".pdf")


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - matplotlib is in the "stats" extra
        from capeval._install import needs_extra

        raise ImportError(needs_extra("drawing plots (matplotlib)", "stats")) from exc
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _check_path(path: str | os.PathLike[str]) -> str:
    text = os.fspath(path)
    if not text.lower().endswith(_FORMATS):
        raise ValueError(f"{text}: plot files must end in {', '.join(_FORMATS)}")
    return text


def _save(plt: Any, fig: Any, out: str) -> str:
    """Lay out ``fig``, write it to ``out`` and release it."""
    fig.tight_layout()
    fig.savefig(out, dpi=DPI)
    plt.close(fig)
    return out


def plot_scatter(
    panels: Mapping[str, tuple[Any, Any]],
    path: str | os.PathLike[str],
    *,
    xlabel: str = "metric score",
    ylabel: str = "human score",
    labels: Mapping[str, Sequence[str]] | None = None,
    titles: Mapping[str, str] | None = None,
) -> str:
    """One scatter panel per metric (metric score vs human score), saved to ``path``.

    Args:
        panels: ``metric name -> (metric scores, human scores)``.
        path: Output file (.png, .svg or .pdf).
        xlabel: Label of the x axis (suffixed with the metric name).
        ylabel: Label of the y axis.
        labels: Optional point labels per panel (e.g. system names at system level).
        titles: Optional panel titles (e.g. the correlation coefficient).

    Returns:
        The path written.
    """
    out = _check_path(path)
    if not panels:
        raise ValueError("nothing to plot")
    plt = _pyplot()
    n = len(panels)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.6 * rows), squeeze=False)
    for ax, (name, (x, y)) in zip(axes.ravel(), panels.items(), strict=False):
        xs, ys = np.asarray(x, float), np.asarray(y, float)
        many = xs.size > 50
        ax.scatter(xs, ys, s=6 if many else 30, alpha=0.35 if many else 0.9)
        if labels and name in labels:
            for xi, yi, text in zip(xs, ys, labels[name], strict=True):
                ax.annotate(text, (xi, yi), fontsize=7, xytext=(3, 3), textcoords="offset points")
        ax.set_xlabel(f"{name} ({xlabel})" if xlabel else name)
        ax.set_ylabel(ylabel)
        ax.set_title((titles or {}).get(name, name), fontsize=9)
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    return _save(plt, fig, out)


def plot_cumulative(
    distributions: Mapping[Hashable, Mapping[float, float]], path: str | os.PathLike[str], *, xlabel: str = "score"
) -> str:
    """Cumulative distributions (fraction of items with score >= x) per system, saved to ``path``."""
    out = _check_path(path)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for name, dist in distributions.items():
        levels = sorted(dist)
        ax.step(levels, [100 * dist[v] for v in levels], where="post", marker="o", label=str(name))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("% of items with score >= x")
    ax.legend(fontsize=8)
    return _save(plt, fig, out)


def plot_pk_model(precision: Sequence[float], recall: Sequence[float], k: int, path: str | os.PathLike[str]) -> str:
    """Per-word human (recall, precision) points over the p/k model curve, saved to ``path``."""
    from capeval.meta_eval.words import pk_model_curve

    out = _check_path(path)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(4.5, 4))
    grid = np.linspace(0, 1, 101)
    ax.plot(grid, pk_model_curve(grid, k), label=f"p/k model, k={k}")
    ax.scatter(recall, precision, s=8, alpha=0.5, label="words")
    ax.set_xlabel("human recall")
    ax.set_ylabel("human precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    return _save(plt, fig, out)
