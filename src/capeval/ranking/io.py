"""Reading score matrices, ranked lists and gold mappings for ranking evaluation.

* Score matrix: ``.npy`` (2-D array), ``.csv`` (numbers; an optional first row of column
  labels and first column of row labels are detected), or ``.json`` (a list of rows, or
  ``{"scores": [[...]], "queries": [...], "pool": [...]}``).
* Ranked lists (``.json``): ``{"pool": [ids], "rankings": {query id: [pool ids, best first]}}``;
  items missing from a list are treated as ranked after every listed item (tied).
* Gold mapping (``.json``): a list with the query index of every pool item, or
  ``{"pool_to_query": [...]}``, or ``{pool id: query id}`` with labelled matrices.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from capeval.ranking.retrieval import FloatArray

__all__ = ["ScoreMatrix", "blocks", "read_gold", "read_ranked_lists", "read_score_matrix"]

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class ScoreMatrix:
    """A score matrix with optional row (query) and column (pool) labels."""

    scores: FloatArray
    queries: tuple[Hashable, ...] | None = None
    pool: tuple[Hashable, ...] | None = None


def _matrix(rows: Any, where: str) -> FloatArray:
    try:
        m = np.asarray(rows, dtype=np.float64)
    except (TypeError, ValueError):
        lengths = {len(r) for r in rows} if isinstance(rows, list) else set()
        detail = "rows of different lengths" if len(lengths) > 1 else "non-numeric values"
        raise ValueError(f"{where}: score matrix has {detail}") from None
    if m.ndim != 2 or 0 in m.shape:
        raise ValueError(f"{where}: expected a non-empty 2-D score matrix, got shape {m.shape}")
    bad = np.argwhere(np.isnan(m))
    if bad.size:
        raise ValueError(f"{where}: row {int(bad[0][0])}, column {int(bad[0][1])} is NaN")
    return m


def _read_json(path: PathLike, where: str) -> Any:
    """The JSON content of ``path``; ``where`` names the file in the error."""
    with open(path, encoding="utf-8") as handle:
        try:
            return json.load(handle)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: invalid JSON ({exc.msg})") from None


def read_score_matrix(path: PathLike) -> ScoreMatrix:
    """Read a score matrix from ``.npy``, ``.csv`` or ``.json``.

    Raises:
        ValueError: on an unknown extension or malformed content (naming the file and row).
    """
    suffix = Path(path).suffix.lower()
    where = os.fspath(path)
    if suffix == ".npy":
        try:
            return ScoreMatrix(_matrix(np.load(path, allow_pickle=False), where))
        except (OSError, ValueError) as exc:
            if "score matrix" in str(exc) or "NaN" in str(exc):
                raise
            raise ValueError(f"{where}: not a readable .npy array ({exc})") from None
    if suffix == ".csv":
        with open(path, encoding="utf-8", newline="") as handle:
            rows = [row for row in csv.reader(handle) if row]
        if not rows:
            raise ValueError(f"{where}: empty file")

        def numeric(cell: str) -> bool:
            try:
                float(cell)
            except ValueError:
                return False
            return True

        pool = None
        if not all(numeric(c) for c in rows[0][1:]):
            pool = tuple(
                rows[0][1:] if not numeric(rows[0][0]) and len(rows) > 1 and not numeric(rows[1][0]) else rows[0]
            )
            rows = rows[1:]
        queries = None
        if rows and not numeric(rows[0][0]):
            queries = tuple(r[0] for r in rows)
            rows = [r[1:] for r in rows]
        for i, r in enumerate(rows):
            for j, cell in enumerate(r):
                if not numeric(cell):
                    raise ValueError(f"{where}: data row {i + 1}, column {j + 1}: {cell!r} is not a number")
        return ScoreMatrix(_matrix([[float(c) for c in r] for r in rows], where), queries, pool)
    if suffix == ".json":
        data = _read_json(path, where)
        if isinstance(data, dict):
            if "scores" not in data:
                raise ValueError(f"{where}: expected a 'scores' field")
            m = _matrix(data["scores"], where)
            queries = tuple(data["queries"]) if "queries" in data else None
            pool = tuple(data["pool"]) if "pool" in data else None
            if queries is not None and len(queries) != m.shape[0]:
                raise ValueError(f"{where}: {len(queries)} query labels for {m.shape[0]} rows")
            if pool is not None and len(pool) != m.shape[1]:
                raise ValueError(f"{where}: {len(pool)} pool labels for {m.shape[1]} columns")
            return ScoreMatrix(m, queries, pool)
        return ScoreMatrix(_matrix(data, where))
    raise ValueError(f"{where}: unknown score-matrix format {suffix!r} (use .npy, .csv or .json)")


def read_ranked_lists(path: PathLike) -> ScoreMatrix:
    """Ranked lists as a score matrix (score = minus position; unlisted items get ``-inf``).

    Raises:
        ValueError: on a missing field, an unknown or repeated pool id (naming the query).
    """
    where = os.fspath(path)
    data = _read_json(path, where)
    if not isinstance(data, dict) or "pool" not in data or "rankings" not in data:
        raise ValueError(f"{where}: expected {{'pool': [...], 'rankings': {{query: [pool ids]}}}}")
    pool = [str(p) for p in data["pool"]]
    index = {p: i for i, p in enumerate(pool)}
    if len(index) != len(pool):
        raise ValueError(f"{where}: pool ids are not unique")
    rankings = data["rankings"]
    if not isinstance(rankings, Mapping) or not rankings:
        raise ValueError(f"{where}: 'rankings' must be a non-empty object")
    scores = np.full((len(rankings), len(pool)), -np.inf)
    for q, (query, ranked) in enumerate(rankings.items()):
        seen: set[str] = set()
        for position, item in enumerate(ranked):
            key = str(item)
            if key not in index:
                raise ValueError(f"{where}: query {query!r} ranks unknown pool id {item!r}")
            if key in seen:
                raise ValueError(f"{where}: query {query!r} ranks {item!r} twice")
            seen.add(key)
            scores[q, index[key]] = -float(position)
    return ScoreMatrix(scores, tuple(rankings), tuple(pool))


def read_gold(path: PathLike, matrix: ScoreMatrix | None = None) -> list[int]:
    """The query index of every pool item.

    Accepts a JSON list of indices, ``{"pool_to_query": [...]}``, or (with a labelled
    matrix) ``{pool id: query id}``.

    Raises:
        ValueError: on malformed content or ids missing from the matrix labels.
    """
    where = os.fspath(path)
    data = _read_json(path, where)
    if isinstance(data, dict) and "pool_to_query" in data:
        data = data["pool_to_query"]
    if isinstance(data, list):
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in data):
            raise ValueError(f"{where}: gold list must hold integer query indices")
        return list(data)
    if isinstance(data, dict):
        if matrix is None or matrix.pool is None or matrix.queries is None:
            raise ValueError(
                f"{where}: a {{pool id: query id}} mapping needs a score matrix with row and column labels"
            )
        query_index = {str(q): i for i, q in enumerate(matrix.queries)}
        out = []
        for item in matrix.pool:
            if str(item) not in data:
                raise ValueError(f"{where}: pool item {item!r} has no gold query")
            target = str(data[str(item)])
            if target not in query_index:
                raise ValueError(f"{where}: pool item {item!r} points to unknown query {target!r}")
            out.append(query_index[target])
        return out
    raise ValueError(f"{where}: expected a list of query indices or a mapping")


def blocks(n_pool: int, per_query: int) -> Sequence[int]:
    """Gold mapping for the common layout: pool item ``c`` belongs to query ``c // per_query``."""
    if per_query < 1 or n_pool % per_query:
        raise ValueError(f"{n_pool} pool items cannot be split into groups of {per_query}")
    return [c // per_query for c in range(n_pool)]
