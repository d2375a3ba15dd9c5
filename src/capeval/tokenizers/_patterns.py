"""The PTB lexer's regular expressions, compiled once per Python build and kept on disk.

Compiling the lexer's patterns costs about 0.15 s in every process, nearly all of it in Python's
``re`` building bitmaps for the large Unicode letter classes, one character at a time. What that
compilation produces (CPython's pattern code, a list of integers per pattern) depends only on the
pattern and the Python build, so it is kept in the user cache directory and handed straight to
``_sre.compile`` by later processes, which is what ``re.compile`` itself ends with.

The file is keyed by the Python version, the regular expression engine's ``MAGIC`` and the
patterns themselves; a missing, unreadable or foreign file, or a Python without these internals,
falls back to ``re.compile`` (the patterns are the same either way, only slower to build).
"""

from __future__ import annotations

import array
import contextlib
import hashlib
import importlib
import logging
import marshal
import os
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from capeval._cache import cache_root

__all__ = ["PatternSet"]

log = logging.getLogger("capeval")

#: Bumped when the file's layout changes.
_FORMAT = 1


def _internals() -> tuple[Any, Any, Any] | None:
    """``(_sre, compiler, parser)`` of this Python, or None."""
    try:
        sre = importlib.import_module("_sre")
        try:  # Python >= 3.11
            compiler, parser = importlib.import_module("re._compiler"), importlib.import_module("re._parser")
        except ImportError:  # pragma: no cover - Python 3.10
            compiler, parser = importlib.import_module("sre_compile"), importlib.import_module("sre_parse")
    except ImportError:  # pragma: no cover - not CPython
        return None
    if not callable(getattr(sre, "compile", None)) or not callable(getattr(compiler, "_code", None)):
        return None  # pragma: no cover - another implementation of re
    return sre, compiler, parser


def _code_type(sre: Any) -> str:
    """The ``array`` type code whose items are as wide as the engine's code words."""
    return next(t for t in "HIL" if array.array(t).itemsize == sre.CODESIZE)


def _pattern_code(sre: Any, compiler: Any, parser: Any, source: str) -> tuple[Any, ...]:
    """What ``re.compile(source)`` hands to ``_sre.compile`` after the pattern itself, the code
    packed as bytes (marshal stores them at once; some opcodes are int subclasses, which it does
    not store at all)."""
    parsed = parser.parse(source, 0)
    code = array.array(_code_type(sre), [int(op) for op in compiler._code(parsed, 0)]).tobytes()
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (int(parsed.state.flags), code, parsed.state.groups - 1, groupindex, tuple(indexgroup))


class PatternSet:
    """Compiled patterns for a fixed set of sources, from the cache file when it holds them, with
    what ``first_chars`` computes from each source (kept in the same file).

    The first process without a usable file compiles every source once (with the ``re``
    compiler's own steps) and writes the file; it is replaced atomically, so processes racing
    to write it leave one complete copy.
    """

    def __init__(self, sources: Sequence[str], first_chars: Callable[[str], Any]) -> None:
        self.sources = tuple(dict.fromkeys(sources))
        self._first_chars = first_chars
        self._codes: dict[str, tuple[Any, ...]] | None = None
        self._firsts: dict[str, Any] | None = None
        self._internals = _internals()

    def first_chars(self, source: str) -> Any:
        """``first_chars(source)`` (the characters a match can start with), kept with the code."""
        if self._firsts is None:
            self._load()
        assert self._firsts is not None
        if source not in self._firsts:
            self._firsts[source] = self._first_chars(source)
        return self._firsts[source]

    def key(self) -> str:
        """The cache file's name: it changes with the Python build and with any pattern."""
        magic = getattr(self._internals[0], "MAGIC", "") if self._internals else ""
        digest = hashlib.sha256()
        for part in (str(_FORMAT), sys.version, str(magic), str(sys.maxunicode)):
            digest.update(part.encode() + b"\0")
        for source in self.sources:
            digest.update(source.encode("utf-8", "surrogatepass") + b"\0")
        return f"ptb-patterns-{digest.hexdigest()[:20]}.marshal"

    def compile(self, source: str) -> re.Pattern[str]:
        """``re.compile(source)``, from the kept code when there is one."""
        if self._codes is None:
            self._load()
        assert self._codes is not None
        entry = self._codes.get(source)
        if self._internals is None:
            return re.compile(source)
        if entry is not None:
            sre = self._internals[0]
            flags, code, groups, groupindex, indexgroup = entry
            with contextlib.suppress(Exception):
                words = array.array(_code_type(sre), code).tolist()
                pattern: re.Pattern[str] = sre.compile(source, flags, words, groups, groupindex, indexgroup)
                return pattern
        return re.compile(source)

    def _load(self) -> None:
        """Read the kept file, or build it: sets ``_codes`` and ``_firsts``."""
        path = cache_root() / self.key()
        try:
            with open(path, "rb") as fh:
                kept = marshal.load(fh)
            codes, firsts = kept["codes"], kept["firsts"]
            if all(isinstance(codes.get(s), tuple) and s in firsts for s in self.sources):
                self._codes, self._firsts = codes, firsts
                return
        except (OSError, EOFError, ValueError, TypeError, KeyError):
            pass
        self._build(path)

    def _build(self, path: Path) -> None:
        """Compile every source once and keep the result (only in memory if that fails)."""
        self._firsts = {source: self._first_chars(source) for source in self.sources}
        self._codes = {}
        if self._internals is None:  # pragma: no cover - not CPython
            return
        sre, compiler, parser = self._internals
        try:
            self._codes = {source: _pattern_code(sre, compiler, parser, source) for source in self.sources}
        except (AttributeError, TypeError, ValueError, re.error) as exc:  # pragma: no cover - other internals
            log.debug("PTB patterns not kept: %s", exc)
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".ptb-patterns-")
            try:
                with os.fdopen(fd, "wb") as fh:
                    marshal.dump({"codes": self._codes, "firsts": self._firsts}, fh)
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except (OSError, ValueError) as exc:  # e.g. a read-only home: compile in every process, as before
            log.debug("PTB patterns not kept in %s: %s", path, exc)
