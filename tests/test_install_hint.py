"""``capeval._install``: the install command named in messages fits how capeval was installed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from capeval import _install
from capeval._install import _requirement, install_command, needs_extra

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(_install.__file__).resolve().parent


@pytest.mark.parametrize(
    ("origin", "expected"),
    [
        (None, ("capeval[spice]", False)),
        ({"url": "file:///home/me/capeval", "dir_info": {}}, ("/home/me/capeval[spice]", False)),
        ({"url": "file:///home/me/capeval", "dir_info": {"editable": True}}, ("/home/me/capeval[spice]", True)),
        ({"url": "file:///home/me/my%20code", "dir_info": {}}, ("/home/me/my code[spice]", False)),
        (
            {"url": "https://example.org/x/capeval.git", "vcs_info": {"vcs": "git", "commit_id": "abc123"}},
            ("capeval[spice] @ git+https://example.org/x/capeval.git@abc123", False),
        ),
        (
            {
                "url": "https://example.org/x/tools.git",
                "subdirectory": "capeval",
                "vcs_info": {"vcs": "git", "commit_id": "abc123", "requested_revision": "main"},
            },
            ("capeval[spice] @ git+https://example.org/x/tools.git@abc123#subdirectory=capeval", False),
        ),
        (
            {"url": "file:///tmp/capeval-0.2.0-py3-none-any.whl", "archive_info": {}},
            ("capeval[spice] @ file:///tmp/capeval-0.2.0-py3-none-any.whl", False),
        ),
        ({"url": "https://example.org/capeval.tar.gz", "dir_info": {}}, None),
    ],
)
def test_requirement_for_each_recorded_origin(origin: dict[str, Any] | None, expected: Any) -> None:
    assert _requirement(origin, "spice") == expected


def test_the_working_directory_is_written_as_dot(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    assert _requirement({"url": tmp_path.as_uri(), "dir_info": {}}, "stats") == (".[stats]", False)


class _Dist:
    def __init__(self, origin: dict[str, Any] | None, location: Path | None) -> None:
        self.origin = origin
        self.location = location
        self.files = ["capeval/__init__.py"] if location else []

    def read_text(self, name: str) -> str | None:
        return json.dumps(self.origin) if name == "direct_url.json" and self.origin is not None else None

    def locate_file(self, name: str) -> Path:
        assert self.location is not None
        return self.location / name


def _with(monkeypatch: pytest.MonkeyPatch, dist: _Dist | None) -> str:
    from importlib import metadata

    def distribution(name: str) -> _Dist:
        if dist is None:
            raise metadata.PackageNotFoundError(name)
        return dist

    monkeypatch.setattr(metadata, "distribution", distribution)
    _install._origin.cache_clear()
    try:
        return install_command("server,postgres")
    finally:
        _install._origin.cache_clear()


def test_install_command_follows_the_imported_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    # Installed (not editable) from an index or from a directory: the distribution holds this package.
    assert _with(monkeypatch, _Dist(None, PACKAGE.parent)) == "pip install 'capeval[server,postgres]'"
    source = {"url": "file:///opt/src/capeval", "dir_info": {}}
    assert _with(monkeypatch, _Dist(source, PACKAGE.parent)) == "pip install '/opt/src/capeval[server,postgres]'"
    tree = _install._source_tree()
    if tree is None:
        pytest.skip("capeval is not imported from a source tree here")
    # Editable from this tree; an installation of another copy, shadowed by this tree; nothing installed.
    editable = {"url": tree.as_uri(), "dir_info": {"editable": True}}
    assert _with(monkeypatch, _Dist(editable, None)) == f"pip install -e '{tree}[server,postgres]'"
    other = {"url": "file:///elsewhere/capeval", "dir_info": {"editable": True}}
    assert _with(monkeypatch, _Dist(other, None)) == f"pip install '{tree}[server,postgres]'"
    assert _with(monkeypatch, None) == f"pip install '{tree}[server,postgres]'"
    monkeypatch.chdir(tree)
    assert _with(monkeypatch, None) == "pip install '.[server,postgres]'"


def test_message_wording() -> None:
    assert re.fullmatch(r"WMD needs the learned extra: pip install .+\[learned\]'", needs_extra("WMD", "learned"))
    assert needs_extra("x", "server,postgres").startswith("x needs the server,postgres extras: ")


def test_no_message_or_doc_names_the_index_form() -> None:
    """``pip install 'capeval[...]'`` finds nothing where capeval is not on the index: messages use
    :func:`install_command`; docs use the source-tree forms."""
    offenders = []
    files = [*(ROOT / "src" / "capeval").rglob("*.py"), ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    for path in files:
        if path.name == "_install.py" or path.relative_to(ROOT).parts[:3] == ("src", "capeval", "server"):
            continue
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"pip install (-e )?['\"]?capeval\[[^\]]*\]($|['\"`\s](?!@))", line):
                offenders.append(f"{path.relative_to(ROOT)}:{lineno}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
