"""Table rendering: text alignment, CSV precision, LaTeX escaping."""

from __future__ import annotations

import pytest

from capeval.meta_eval.tables import Table


def test_formats() -> None:
    table = Table(["metric", "tau_c", "p"], [["bleu_4 & co", 0.123456789, 1e-30], ["cider-d", float("nan"), None]])
    text = table.render("text")
    assert text.splitlines()[2].startswith("bleu_4 & co")
    assert "0.1235" in text and "1.00e-30" in text and "nan" in text
    csv = table.render("csv").splitlines()
    assert csv[0] == "metric,tau_c,p" and csv[1] == "bleu_4 & co,0.123456789,1e-30" and csv[2] == "cider-d,nan,"
    latex = table.render("latex")
    assert latex.splitlines()[0] == r"\begin{tabular}{lrr}"
    assert r"bleu\_4 \& co & 0.1235" in latex
    with pytest.raises(ValueError, match="unknown table format"):
        table.render("html")
