"""The englishPCFG grammar for tests, from the CoreNLP 3.6.0 models the machine has.

The grammar is GPL data and never part of the repository. It is read from:

1. ``CAPEVAL_SPICE_GRAMMAR``: a ``stanford-corenlp-3.6.0-models.jar`` or an ``englishPCFG.ser.gz``;
2. else the official pipeline's models jar under the oracle directory
   (``$CAPEVAL_ORACLE_DIR/spice-full/lib/``, by default ``/tmp/capeval-oracle``), if installed;

and the tests that need it are skipped otherwise. The conversion (several seconds) happens once:
its ``.npz`` is kept in pytest's cache directory, keyed by the source's sha256.

Tests of ``SPICE()`` with its default (exact) parser call :func:`default_grammar`, which makes the
same copy the one the library finds (``CAPEVAL_SPICE_GRAMMAR``) or skips: the library would
otherwise try to download the grammar.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

import pytest

from capeval.metrics.spice.corenlp.grammar import Grammar
from capeval.metrics.spice.corenlp.parser import PCFGParser

__all__ = [
    "ENV_VAR",
    "default_grammar",
    "grammar_bytes",
    "grammar_cache_dir",
    "load_test_grammar",
    "pcfg_grammar",
    "pcfg_parser",
]

#: Environment variable naming the models jar or the ``englishPCFG.ser.gz`` to test with.
ENV_VAR = "CAPEVAL_SPICE_GRAMMAR"
#: Where the grammar sits inside CoreNLP's models jar.
MEMBER = "edu/stanford/nlp/models/lexparser/englishPCFG.ser.gz"


def _default_jar() -> Path:
    oracle = Path(os.environ.get("CAPEVAL_ORACLE_DIR", "/tmp/capeval-oracle"))
    return oracle / "spice-full" / "lib" / "stanford-corenlp-3.6.0-models.jar"


def _test_copy(path: Path | None = None, *, needed_by: str = "") -> Path:
    """``path``, else ``CAPEVAL_SPICE_GRAMMAR``, else the oracle's models jar; a skip naming
    :data:`ENV_VAR` when that file does not exist."""
    source = os.environ.get(ENV_VAR)
    if path is None:
        path = Path(source) if source else _default_jar()
    if not path.is_file():
        where = f"{ENV_VAR}={source} does not exist" if source else f"{ENV_VAR} is not set and {path} is absent"
        pytest.skip(
            f"{needed_by}CoreNLP 3.6.0's englishPCFG grammar is needed ({where}); set {ENV_VAR} to "
            "stanford-corenlp-3.6.0-models.jar or englishPCFG.ser.gz"
        )
    return path


def default_grammar() -> Path:
    """The copy of the grammar SPICE's default parser reads in tests, or a skip naming :data:`ENV_VAR`.

    Without ``CAPEVAL_SPICE_GRAMMAR``, the oracle's models jar is used when installed, and the
    variable is set to it for the rest of the process (it names the official file, so no test
    that relies on the library's own search is misled; those set or remove it themselves).
    """
    path = _test_copy(needed_by="SPICE's default (exact) parser: ")
    os.environ[ENV_VAR] = str(path)
    return path


def grammar_bytes(path: Path | None = None) -> bytes:
    """The ``englishPCFG.ser.gz`` bytes in ``path`` (by default the test grammar), or a skip naming :data:`ENV_VAR`."""
    path = _test_copy(path)
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as jar:
            try:
                return jar.read(MEMBER)
            except KeyError:
                pytest.fail(f"{path} has no {MEMBER}")
    return path.read_bytes()


def load_test_grammar(cache_dir: Path, source: Path | None = None) -> Grammar:
    """The converted grammar (of ``source``, by default the test grammar), from ``cache_dir`` if converted before."""
    data = grammar_bytes(source)
    digest = hashlib.sha256(data).hexdigest()
    cached = cache_dir / f"englishPCFG-{digest[:16]}.npz"
    if cached.is_file():
        grammar = Grammar.load(cached)
        if grammar.sha256 == digest:
            return grammar
    grammar = Grammar.from_ser_gz(data)
    grammar.save(cached)
    return Grammar.load(cached)


def grammar_cache_dir(config: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where converted grammars are kept: pytest's cache directory (a temporary one without it)."""
    cache = getattr(config, "cache", None)  # absent under -p no:cacheprovider
    return Path(cache.mkdir("capeval-spice-grammar") if cache is not None else tmp_path_factory.mktemp("grammar"))


@pytest.fixture(scope="session")
def pcfg_grammar(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Grammar:
    """The englishPCFG grammar (converted once, cached across runs in pytest's cache directory)."""
    return load_test_grammar(grammar_cache_dir(pytestconfig, tmp_path_factory))


@pytest.fixture(scope="session")
def pcfg_parser(pcfg_grammar: Grammar) -> PCFGParser:
    """A parser on the test grammar (its sentence cache off, so that every call parses)."""
    return PCFGParser(pcfg_grammar, cache_size=0)
