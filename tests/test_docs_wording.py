"""The documentation speaks to the user about the user's machine: no sentence about the machine the
docs were written on ("on this machine", "cannot run here")."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PHRASES = re.compile(r"\bthis machine\b|\bcannot run here\b|\bcan't run here\b", re.IGNORECASE)


def test_no_doc_speaks_of_the_authors_machine() -> None:
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if PHRASES.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
