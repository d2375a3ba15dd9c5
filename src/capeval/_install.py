"""The ``pip install`` command that adds an optional extra to *this* installation of capeval.

``pip install 'capeval[spice]'`` asks the package index for capeval; it only works where capeval
came from an index. Installed from a source tree, a clone's remote or an archive, the command
must name that source. pip records it in the distribution's ``direct_url.json`` (PEP 610), which
:func:`install_command` reads:

* from an index (no ``direct_url.json``): ``pip install 'capeval[spice]'``;
* from a local directory: ``pip install '/path/to/capeval[spice]'`` (``-e`` kept for an editable
  install; ``'.[spice]'`` when that directory is the working directory);
* from version control: ``pip install 'capeval[spice] @ git+https://...@<commit>'``;
* from an archive or wheel file/URL: ``pip install 'capeval[spice] @ <url>'``.

A capeval imported from a source tree without being installed (``PYTHONPATH=src``) gets the
directory form for that tree. Every message that names an extra uses this command.
"""

from __future__ import annotations

import json
import shlex
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

__all__ = ["install_command", "needs_extra"]

_PACKAGE = Path(__file__).resolve().parent


def _file_path(url: str) -> Path | None:
    parsed = urlparse(url)
    if parsed.scheme != "file":
        return None
    return Path(url2pathname(unquote(parsed.path)))


def _source_tree() -> Path | None:
    """The source tree this package is imported from (``<root>/src/capeval``), if it is one."""
    root = _PACKAGE.parent.parent
    pyproject = root / "pyproject.toml"
    if _PACKAGE.parent.name == "src" and pyproject.is_file():
        try:
            if 'name = "capeval"' in pyproject.read_text(encoding="utf-8"):
                return root
        except OSError:
            return None
    return None


def _requirement(origin: dict[str, object] | None, extras: str) -> tuple[str, bool] | None:
    """``(requirement, editable)`` for the recorded origin (None: not a source pip can refetch)."""
    if origin is None:
        return f"capeval[{extras}]", False
    url = str(origin.get("url", ""))
    subdirectory = origin.get("subdirectory")
    fragment = f"#subdirectory={subdirectory}" if subdirectory else ""
    dir_info = origin.get("dir_info")
    if isinstance(dir_info, dict):
        path = _file_path(url)
        if path is None:
            return None
        if subdirectory:
            path = path / str(subdirectory)
        here = Path.cwd().resolve() if path.is_absolute() else None
        shown = "." if here is not None and path.resolve() == here else str(path)
        return f"{shown}[{extras}]", bool(dir_info.get("editable"))
    vcs_info = origin.get("vcs_info")
    if isinstance(vcs_info, dict):
        revision = vcs_info.get("commit_id") or vcs_info.get("requested_revision")
        at = f"@{revision}" if revision else ""
        return f"capeval[{extras}] @ {vcs_info.get('vcs', 'git')}+{url}{at}{fragment}", False
    if "archive_info" in origin and url:
        return f"capeval[{extras}] @ {url}{fragment}", False
    return None


@cache
def _origin() -> tuple[str, dict[str, object] | None] | None:
    """How the imported package was installed: ``("dist", direct_url or None)``, ``("tree", None)``
    for an uninstalled source tree, or None when neither can be told."""
    from importlib import metadata

    try:
        dist = metadata.distribution("capeval")
    except metadata.PackageNotFoundError:
        dist = None
    if dist is not None:
        try:
            origin = json.loads(dist.read_text("direct_url.json") or "null")
        except (OSError, ValueError):
            origin = None
        if not isinstance(origin, dict):
            origin = None
        # Is this distribution the package imported? (A source tree on PYTHONPATH can shadow it.)
        installed = [f for f in dist.files or () if str(f).replace("\\", "/") == "capeval/__init__.py"]
        if installed and Path(str(dist.locate_file(installed[0]))).resolve().parent == _PACKAGE:
            return "dist", origin
        if origin is not None and isinstance(origin.get("dir_info"), dict) and origin["dir_info"].get("editable"):
            root = _file_path(str(origin.get("url", "")))
            if root is not None and _PACKAGE.is_relative_to(root.resolve()):
                return "dist", origin
    if _source_tree() is not None:
        return "tree", None
    return None


def install_command(extras: str) -> str:
    """The shell command that installs the optional dependencies ``extras`` (``"spice"``,
    ``"server,postgres"``) for this installation of capeval (see the module docstring).

    Example:
        >>> install_command("spice").startswith("pip install ")
        True
        >>> "[spice]" in install_command("spice")
        True
    """
    kind = _origin()
    requirement: tuple[str, bool] | None = None
    if kind is not None and kind[0] == "dist":
        requirement = _requirement(kind[1], extras)
    if requirement is None:
        tree = _source_tree()
        if tree is not None:
            here = tree.resolve() == Path.cwd().resolve()
            requirement = (f"{'.' if here else tree}[{extras}]", False)
        else:
            requirement = (f"capeval[{extras}]", False)
    text, editable = requirement
    return "pip install " + ("-e " if editable else "") + shlex.quote(text)


def needs_extra(what: str, extras: str) -> str:
    """``"<what> needs the <extras> extra: <command>"``, the wording of every such message.

    Example:
        >>> needs_extra("SPICE", "spice").startswith("SPICE needs the spice extra: pip install ")
        True
    """
    kind = "extras" if "," in extras else "extra"
    return f"{what} needs the {extras} {kind}: {install_command(extras)}"
