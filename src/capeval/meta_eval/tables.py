"""Rendering result tables as aligned text, CSV or LaTeX (booktabs).

Used by the ``rank``, ``compare``, ``correlate`` and ``human-agreement`` subcommands so
that every table can be pasted into a terminal, a spreadsheet or a paper.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["FORMATS", "Table"]

#: Output formats of :meth:`Table.render`.
FORMATS = ("text", "csv", "latex")

Cell = str | float | int | None

_LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}"}


@dataclass
class Table:
    """A header and rows of cells; floats are formatted with ``digits`` decimals in text and LaTeX.

    Example:
        >>> print(Table(["metric", "tau"], [["bleu-4", 0.3456]], digits=3).render("text"))
        metric    tau
        ------  -----
        bleu-4  0.346
    """

    header: Sequence[str]
    rows: list[Sequence[Cell]] = field(default_factory=list)
    digits: int = 4
    caption: str = ""

    def _text(self, cell: Cell) -> str:
        if cell is None:
            return "-"
        if isinstance(cell, float):
            if math.isnan(cell):
                return "nan"
            if cell != 0 and abs(cell) < 10 ** (-self.digits):
                return f"{cell:.{max(self.digits - 2, 1)}e}"
            return f"{cell:.{self.digits}f}"
        return str(cell)

    def render(self, fmt: str = "text") -> str:
        """The table as ``"text"``, ``"csv"`` (full precision) or ``"latex"``.

        Raises:
            ValueError: for an unknown format.
        """
        if fmt == "csv":
            buffer = io.StringIO()
            writer = csv.writer(buffer, lineterminator="\n")
            writer.writerow(self.header)
            for row in self.rows:
                writer.writerow(["" if c is None else repr(c) if isinstance(c, float) else c for c in row])
            return buffer.getvalue().rstrip("\n")
        cells = [[self._text(c) for c in row] for row in self.rows]
        if fmt == "latex":

            def esc(text: str) -> str:
                return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)

            align = "l" + "r" * (len(self.header) - 1)
            lines = [r"\begin{tabular}{" + align + "}", r"\toprule"]
            lines.append(" & ".join(esc(h) for h in self.header) + r" \\")
            lines.append(r"\midrule")
            lines += [" & ".join(esc(c) for c in row) + r" \\" for row in cells]
            lines += [r"\bottomrule", r"\end{tabular}"]
            if self.caption:
                lines.insert(0, f"% {self.caption}")
            return "\n".join(lines)
        if fmt != "text":
            raise ValueError(f"unknown table format {fmt!r}; choose from {', '.join(FORMATS)}")
        widths = [
            max(len(str(h)), *(len(r[i]) for r in cells)) if cells else len(str(h)) for i, h in enumerate(self.header)
        ]

        # Text columns (no numeric cell) are left-aligned, numeric ones right-aligned.
        left = [all(not isinstance(row[i], (int, float)) for row in self.rows) for i in range(len(self.header))]

        def line(values: Sequence[str]) -> str:
            parts = [
                f"{v:<{w}}" if left[i] else f"{v:>{w}}" for i, (v, w) in enumerate(zip(values, widths, strict=True))
            ]
            return "  ".join(parts).rstrip()

        out = [line([str(h) for h in self.header]), "  ".join("-" * w for w in widths)]
        out += [line(r) for r in cells]
        if self.caption:
            out.insert(0, self.caption)
        return "\n".join(out)
