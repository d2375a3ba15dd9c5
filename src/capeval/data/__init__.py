"""Data shipped with capeval (COCO demo subset, metric resources)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["data_path", "demo_paths"]


def data_path(*parts: str) -> Path:
    """Path of a file shipped in ``capeval/data``."""
    return Path(str(resources.files("capeval.data").joinpath(*parts)))


def demo_paths() -> tuple[Path, Path]:
    """``(results, references)`` of the built-in COCO demo (1,000 val2014 images)."""
    base = ("coco_demo",)
    return (
        data_path(*base, "captions_val2014_fakecap_results.json"),
        data_path(*base, "captions_val2014_demo_subset.json"),
    )
