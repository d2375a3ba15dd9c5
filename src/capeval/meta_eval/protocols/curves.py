"""Reference-count curves: agreement with humans as a function of the number of references.

The SPICE paper's Figure 4 and the CIDEr paper's consensus argument plot PASCAL-50S pairwise
accuracy against the number of references (1 .. 48); the same question on Flickr8K asks how
the correlation moves with 1 .. 5 references. For each count, ``draws`` independent random
draws of references are scored (seeds ``seed``, ``seed + 1`` ...), and the curve keeps the
mean, standard deviation, minimum and maximum over draws.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from capeval.meta_eval.correlation import correlate
from capeval.meta_eval.protocols import CATEGORIES, Scorer, data, pascal50s_accuracies
from capeval.meta_eval.tables import Table

__all__ = ["CurvePoint", "ReferenceCurve", "curve_table", "plot_curve", "reference_curve"]

#: Protocols with a reference-count curve, and the statistic plotted.
CURVE_PROTOCOLS = {
    "pascal50s-spice": "accuracy (%)",
    "pascal50s-clipscore": "accuracy (%)",
    "flickr8k-expert": "Kendall tau-c x 100",
    "flickr8k-cf": "Kendall tau-b x 100",
}


@dataclass(frozen=True)
class CurvePoint:
    """Agreement of one metric at one reference count, over draws.

    Attributes:
        metric: Metric output.
        statistic: PASCAL-50S category, ``mean``, or the correlation coefficient.
        n_references: References per item.
        values: One value per draw.
    """

    metric: str
    statistic: str
    n_references: int
    values: tuple[float, ...]

    @property
    def mean(self) -> float:
        return float(np.mean(self.values))

    @property
    def std(self) -> float:
        if len(self.values) < 2 or min(self.values) == max(self.values):
            return 0.0
        return float(np.std(self.values, ddof=1))


@dataclass
class ReferenceCurve:
    """Points of a reference-count curve and how they were drawn."""

    protocol: str
    ylabel: str
    points: list[CurvePoint] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_dicts(self) -> list[dict[str, object]]:
        """JSON-ready points."""
        return [
            {
                "metric": p.metric,
                "statistic": p.statistic,
                "n_references": p.n_references,
                "mean": p.mean,
                "std": p.std,
                "min": min(p.values),
                "max": max(p.values),
                "draws": list(p.values),
            }
            for p in self.points
        ]


def reference_curve(
    protocol: str,
    data_dir: str | os.PathLike[str],
    scorer: Scorer,
    counts: Sequence[int],
    *,
    draws: int = 5,
    seed: int = 0,
) -> ReferenceCurve:
    """Agreement per metric as a function of the number of references.

    Args:
        protocol: One of :data:`CURVE_PROTOCOLS`; its items, labels and tie rule are used.
        data_dir: Directory with the protocol's distributed files.
        scorer: The metrics.
        counts: Reference counts (capped per item at the size of its reference pool).
        draws: Random draws per count.
        seed: Seed of the first draw; draw ``d`` of every count uses ``seed + d``.

    Raises:
        ValueError: an unknown protocol, a count below 1, or fewer than one draw.
    """
    if protocol not in CURVE_PROTOCOLS:
        raise ValueError(f"no reference-count curve for {protocol!r}; choose from {', '.join(CURVE_PROTOCOLS)}")
    if not counts or min(counts) < 1:
        raise ValueError(f"reference counts must be at least 1, got {list(counts)}")
    if draws < 1:
        raise ValueError("draws must be at least 1")
    curve = ReferenceCurve(protocol, CURVE_PROTOCOLS[protocol])
    values: dict[tuple[str, str, int], list[float]] = {}
    if protocol.startswith("pascal50s"):
        pairs = data.load_pascal50s_distributed(Path(data_dir))
        ties = "right" if protocol == "pascal50s-spice" else "half"
        largest = max(len(p) for p in pairs.pools)
        for n in counts:
            for d in range(draws):
                refs = pairs.draw(n, np.random.default_rng(seed + d))
                for metric, by in pascal50s_accuracies(pairs, refs, scorer, metric_ties=ties).items():
                    for stat in (*CATEGORIES, "mean"):
                        values.setdefault((metric, stat, n), []).append(by[stat])
        curve.notes.append(
            f"{len(pairs):,} pairs; references drawn from the image's sentences (pool of up to {largest}); "
            f"human label: {pairs.vote_source}; metric ties: {ties}"
        )
    else:
        judgments = data.flickr8k_expert(data_dir) if protocol == "flickr8k-expert" else data.flickr8k_cf(data_dir)
        method, stat = ("kendall-c", "tau-c") if protocol == "flickr8k-expert" else ("kendall-b", "tau-b")
        pools = judgments.references
        for n in counts:
            for d in range(draws):
                refs = data.draw_references(pools, n, np.random.default_rng(seed + d))
                for metric, scores in scorer.items(judgments.candidates, refs).items():
                    r = correlate(scores, judgments.ratings, method=method)
                    values.setdefault((metric, stat, n), []).append(100.0 * r.coefficient)
        curve.notes.append(f"{len(judgments):,} items; references drawn from the protocol's references")
    curve.points = [CurvePoint(m, s, n, tuple(v)) for (m, s, n), v in values.items()]
    curve.notes.append(f"{draws} draws per count, seeds {seed}..{seed + draws - 1}")
    return curve


def curve_table(curve: ReferenceCurve, *, digits: int = 2) -> Table:
    """One row per metric, statistic and count: mean, std, min and max over draws."""
    table = Table(["metric", "statistic", "refs", "mean", "std", "min", "max"], digits=digits)
    table.caption = f"{curve.ylabel} vs number of references [protocol: {curve.protocol}]"
    for p in curve.points:
        table.rows.append([p.metric, p.statistic, p.n_references, p.mean, p.std, min(p.values), max(p.values)])
    return table


def plot_curve(curve: ReferenceCurve, path: str | os.PathLike[str]) -> str:
    """One panel per statistic (PASCAL-50S: HC, HI, HM, MM, mean), one line per metric, +-1 std band."""
    from capeval.meta_eval.plots import DPI, _check_path, _pyplot

    out = _check_path(path)
    plt = _pyplot()
    from matplotlib import ticker

    stats = list(dict.fromkeys(p.statistic for p in curve.points))
    fig, axes = plt.subplots(1, len(stats), figsize=(3.2 * len(stats), 3.2), squeeze=False)
    for ax, stat in zip(axes[0], stats, strict=True):
        for metric in dict.fromkeys(p.metric for p in curve.points):
            pts = sorted(
                (p for p in curve.points if p.metric == metric and p.statistic == stat), key=lambda p: p.n_references
            )
            x = np.array([p.n_references for p in pts])
            y = np.array([p.mean for p in pts])
            s = np.array([p.std for p in pts])
            ax.plot(x, y, marker="o", markersize=3, label=metric)
            ax.fill_between(x, y - s, y + s, alpha=0.2)
        ax.set_title(stat)
        ax.set_xlabel("references")
        ax.set_xscale("log")
        ticks = sorted({p.n_references for p in curve.points})
        ax.set_xticks(ticks)
        ax.xaxis.set_major_formatter(ticker.ScalarFormatter())
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel(curve.ylabel)
    axes[0][-1].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(out, dpi=DPI)
    plt.close(fig)
    return out
