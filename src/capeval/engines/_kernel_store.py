"""A store of compiled kernels kept between wheel builds, keyed by what the machine code depends on.

``pip install '.[extra]'`` builds a new wheel from the source tree for every extra a user adds,
and each build compiled every numba kernel again (30-70 s of CPU). The wheel build
(``python -m capeval.engines.precompile --store DIR``) now copies numba's cache files of each
module from this store into the fresh copy of the package before compiling, and puts back what it
finds after: numba loads every kernel whose cache is still valid and compiles only the others.

What a module's cached machine code depends on makes up its key, so a stale copy is never used:

* the environment (:func:`environment_key`): Python version and ABI, the numba, llvmlite and
  NumPy versions, numba's optimisation settings, and the CPU numba compiles for (its target
  triple, CPU name and features);
* the module (:func:`module_keys`): the content of its source file and of every module of the
  package it imports, directly or through others (a helper compiled into a kernel, or a constant
  it reads, lives in another module; numba's own cache checks the defining file only).

numba checks its cache files again when it loads them (source content, Python and numba
versions, CPU name and features), so a store entry is only ever a shortcut. Nothing here names a
module: any module with ``cache=True`` kernels is stored, whichever ones the precompilation
calls.
"""

from __future__ import annotations

import ast
import hashlib
import os
import platform
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = ["environment_key", "module_keys", "restore", "save"]

#: Key directories kept per module (older ones are removed when a new one is saved).
KEEP_PER_MODULE = 3
_SUFFIXES = (".nbi", ".nbc")


def environment_key() -> str:
    """Hex digest of what numba's machine code depends on besides the source (needs numba)."""
    from importlib.metadata import version

    import numba
    import numpy
    from numba.core import config
    from numba.core.registry import cpu_target

    magic = cpu_target.target_context.codegen().magic_tuple()
    parts = [
        sys.implementation.name,
        platform.python_version(),
        getattr(sys, "abiflags", ""),
        platform.machine(),
        numba.__version__,
        version("llvmlite"),
        numpy.__version__,
        f"opt={getattr(config, 'OPT', '')}",
        f"boundscheck={getattr(config, 'BOUNDSCHECK', '')}",
        repr(magic),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


def _modules(package_dir: Path, package: str) -> dict[str, Path]:
    """Dotted name -> source file of every module under ``package_dir``."""
    out: dict[str, Path] = {}
    for path in sorted(package_dir.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = [package, *path.relative_to(package_dir).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _statements(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every statement of ``nodes``, nested ones (functions, classes, ``if``/``try`` blocks) included."""
    for node in nodes:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _statements(inner)


def _imports(name: str, path: Path, known: Iterable[str]) -> set[str]:
    """Modules of the package that ``path`` (module ``name``) imports, anywhere in its body."""
    known = set(known)
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError):
        return found
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            # "from pkg import submodule" needs the submodule; "from module import name", the module
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in known else module for a in node.names]
        else:
            continue
        # "import capeval.a.b" needs capeval.a.b (it runs the parents' __init__, which define no kernel)
        found.update(target for target in targets if target in known)
    return found


def module_keys(
    package_dir: str | os.PathLike[str], package: str = "capeval", only: Iterable[str] | None = None
) -> dict[str, str]:
    """Key of every module of the package (or of those in ``only``): a digest of its source and of
    every package module it imports, transitively (see the module docstring)."""
    modules = _modules(Path(package_dir), package)
    digest: dict[str, str] = {}
    direct: dict[str, set[str]] = {}
    keys: dict[str, str] = {}
    for name in modules if only is None else [m for m in only if m in modules]:
        closure = {name}
        todo = [name]
        while todo:
            current = todo.pop()
            if current not in direct:
                direct[current] = _imports(current, modules[current], modules)
                digest[current] = hashlib.sha256(modules[current].read_bytes()).hexdigest()
            for dep in direct[current]:
                if dep not in closure:
                    closure.add(dep)
                    todo.append(dep)
        text = "\n".join(f"{dep} {digest[dep]}" for dep in sorted(closure))
        keys[name] = hashlib.sha256(text.encode()).hexdigest()[:24]
    return keys


def _cache_files(source: Path) -> list[Path]:
    """numba's cache files of the kernels defined in ``source`` (``__pycache__/<stem>.<name>-<line>...``)."""
    cache = source.parent / "__pycache__"
    if not cache.is_dir():
        return []
    prefix = source.stem + "."
    return sorted(p for p in cache.iterdir() if p.name.startswith(prefix) and p.suffix in _SUFFIXES)


def _entry(store: Path, environment: str, name: str, key: str) -> Path:
    return store / environment / name / key


def restore(package_dir: str | os.PathLike[str], store: str | os.PathLike[str], environment: str) -> list[str]:
    """Copy the stored cache files of every module whose key matches into the package's
    ``__pycache__`` directories; returns the modules restored."""
    package_dir, store = Path(package_dir), Path(store)
    modules = _modules(package_dir, package_dir.name)
    stored = store / environment
    names = [p.name for p in stored.iterdir() if p.is_dir()] if stored.is_dir() else []
    restored = []
    for name, key in module_keys(package_dir, package_dir.name, names).items():
        entry = _entry(store, environment, name, key)
        files = [p for p in entry.iterdir() if p.suffix in _SUFFIXES] if entry.is_dir() else []
        if not files:
            continue
        cache = modules[name].parent / "__pycache__"
        cache.mkdir(exist_ok=True)
        for path in files:
            shutil.copyfile(path, cache / path.name)
        os.utime(entry)  # recently used: kept by the pruning
        restored.append(name)
    return restored


def save(package_dir: str | os.PathLike[str], store: str | os.PathLike[str], environment: str) -> list[str]:
    """Put the cache files of every module that has some into the store under its key (replacing
    an entry of the same key; at most :data:`KEEP_PER_MODULE` keys per module); returns the
    modules saved."""
    package_dir, store = Path(package_dir), Path(store)
    modules = _modules(package_dir, package_dir.name)
    cached = {name: files for name, path in modules.items() if (files := _cache_files(path))}
    saved = []
    for name, key in module_keys(package_dir, package_dir.name, cached).items():
        files = cached[name]
        entry = _entry(store, environment, name, key)
        entry.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=entry.parent))
        for path in files:
            shutil.copyfile(path, staging / path.name)
        old = entry.with_name(f".{key}-old-{os.getpid()}")
        if entry.exists():
            entry.rename(old)
        try:
            staging.rename(entry)
        except OSError:  # another build saved the same key meanwhile: theirs is as good
            shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
        saved.append(name)
        _prune(entry.parent)
    return saved


def _prune(module_dir: Path) -> None:
    entries = sorted(
        (p for p in module_dir.iterdir() if p.is_dir() and not p.name.startswith(".")),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )
    for stale in entries[KEEP_PER_MODULE:]:
        shutil.rmtree(stale, ignore_errors=True)
