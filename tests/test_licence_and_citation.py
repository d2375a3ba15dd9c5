"""The licence the README names is in the repository (and so in the wheel and sdist, see
``pyproject.toml`` and ``.ci/run``), and the citation file says how to cite capeval."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_bsd_3_clause_licence_is_shipped() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("BSD 3-Clause License\n") and "Neither the name of the copyright holder" in text
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8").split("\n[project]\n", 1)[1].split("\n[", 1)[0]
    assert 'license = "BSD-3-Clause"\nlicense-files = ["LICENSE"]\n' in project
    assert "capeval is BSD-3-Clause" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_citation_file_and_readme_section() -> None:
    import yaml  # pre-commit (dev extra) installs PyYAML

    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["cff-version"] == "1.2.0" and citation["type"] == "software"
    assert citation["license"] == "BSD-3-Clause" and citation["title"].startswith("capeval")
    titles = {ref["title"] for ref in citation["references"]}
    assert "CIDEr: Consensus-based Image Description Evaluation" in titles
    assert "SPICE: Semantic Propositional Image Caption Evaluation" in titles
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Citing\n", 1)[1].split("\n## ", 1)[0]
    assert "CITATION.cff" in section
    for ref in citation["references"]:  # the README names every paper the citation file lists
        assert ref["title"] in section, ref["title"]
