"""Formatting of evaluation results for the terminal, JSON and CSV (shared by subcommands)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from capeval._version import __version__
from capeval.engines.local import Evaluation
from capeval.io import json_safe

__all__ = ["format_csv", "format_json", "format_table", "json_payload"]


def json_payload(evaluation: Evaluation) -> dict[str, Any]:
    """Official names at the top level (drop-in for scripts reading ``COCOEvalCap.eval``), capeval's below."""
    payload: dict[str, Any] = dict(evaluation.official_scores())
    payload["capeval"] = {
        "version": __version__,
        "n_items": len(evaluation.ids),
        "scores": evaluation.scores(),
        "official_names": evaluation.official_names(),
        "signatures": evaluation.signatures(),
        "timings_s": {k: round(v, 4) for k, v in evaluation.timings.items()},
    }
    return payload


def format_json(evaluation: Evaluation) -> str:
    """JSON text of :func:`json_payload`."""
    return json.dumps(json_safe(json_payload(evaluation)), indent=2, ensure_ascii=False, allow_nan=False)


def format_table(evaluation: Evaluation, *, digits: int = 4) -> str:
    """A plain table like the official evaluation's printout, then the signatures."""
    names = evaluation.official_names()
    rows = [(name, names.get(name, "-"), f"{score:.{digits}f}") for name, score in evaluation.scores().items()]
    head = ("metric", "official", "score")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(3)]
    lines = [f"{head[0]:<{widths[0]}}  {head[1]:<{widths[1]}}  {head[2]:>{widths[2]}}"]
    lines.append("-" * (sum(widths) + 4))
    lines += [f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c:>{widths[2]}}" for a, b, c in rows]
    lines.append("")
    lines.append(f"{len(evaluation.ids):,} items. Signatures (paste these next to the scores you report):")
    lines += [f"  {sig}" for sig in evaluation.signatures().values()]
    return "\n".join(lines)


def format_csv(evaluation: Evaluation) -> str:
    """CSV rows ``metric,official,score,signature``."""
    names = evaluation.official_names()
    signatures = evaluation.signatures()
    owner = {output: key for key, result in evaluation.results.items() for output in result.scores}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["metric", "official", "score", "signature"])
    for name, score in evaluation.scores().items():
        writer.writerow([name, names.get(name, ""), repr(score), signatures[owner[name]]])
    return buffer.getvalue()
