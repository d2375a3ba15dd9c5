"""METEOR 1.5 synonym tables (WordNet 3.0) as SPICE uses them.

SPICE decides whether two concepts are similar by looking words up in METEOR 1.5's
``english.synsets`` (word -> WordNet 3.0 synset offsets of all its senses, every part of
speech in one integer space) and ``english.exceptions`` (base form -> irregular forms).
A word's synsets are its own entry united with the entry of its stem, where the stem
comes from the irregular-form table or, failing that, from twenty suffix rules tried in
a fixed order (the first result that is a word of the table wins).

The tables ship once in the package under ``capeval/data/meteor/`` (with the WordNet
licence); this module only reads them. ``CAPEVAL_METEOR_DATA`` may point to another
directory holding ``english.synsets.gz`` and ``english.exceptions.gz``.
"""

from __future__ import annotations

import gzip
import os
import threading
from functools import lru_cache
from importlib import resources
from pathlib import Path

__all__ = ["SYNONYM_DATA_ENV", "SynonymTable", "load_synonyms", "synonym_data_dir"]

#: Environment variable naming a directory with the two gzipped METEOR tables.
SYNONYM_DATA_ENV = "CAPEVAL_METEOR_DATA"

#: File names of METEOR 1.5's synonym data (``synonym/`` inside ``meteor-1.5.jar``).
_SYNSETS_FILE = "english.synsets.gz"
_EXCEPTIONS_FILE = "english.exceptions.gz"

#: METEOR 1.5 ``SynonymDictionary.morph`` suffix rules, in the order they are tried:
#: noun rules, verb rules, adjective rules (suffix, replacement).
MORPH_RULES: tuple[tuple[str, str], ...] = (
    ("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
    ("ies", "y"),
    ("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""),
    ("er", ""), ("est", ""), ("er", "e"), ("est", "e"),
)  # fmt: skip

#: ``morph`` leaves words of at most this many characters unchanged (METEOR 1.5).
_MORPH_MIN_LENGTH = 2


def synonym_data_dir() -> Path:
    """Directory holding the METEOR synonym tables.

    Raises:
        FileNotFoundError: when neither the package data nor ``$CAPEVAL_METEOR_DATA`` has them.
    """
    candidates: list[Path] = []
    env = os.environ.get(SYNONYM_DATA_ENV)
    if env:
        candidates.append(Path(env))
    candidates.append(Path(str(resources.files("capeval") / "data" / "meteor")))
    for directory in candidates:
        if (directory / _SYNSETS_FILE).is_file() and (directory / _EXCEPTIONS_FILE).is_file():
            return directory
    raise FileNotFoundError(
        f"METEOR synonym tables ({_SYNSETS_FILE}, {_EXCEPTIONS_FILE}) not found in "
        f"{', '.join(str(c) for c in candidates)}; reinstall capeval or set {SYNONYM_DATA_ENV}"
    )


class SynonymTable:
    """Word -> synset lookups with METEOR 1.5's stemming.

    Args:
        synsets: word -> space-separated synset offsets (parsed lazily).
        exceptions: irregular form -> its base forms, in file order.

    Example:
        >>> table = SynonymTable({"dog": "1 2", "man": "3"}, {"men": ("man",)})
        >>> sorted(table.concept_synsets("dogs")), sorted(table.concept_synsets("men"))
        ([1, 2], [3])
    """

    def __init__(self, synsets: dict[str, str], exceptions: dict[str, tuple[str, ...]]) -> None:
        self._raw = synsets
        self._exceptions = exceptions
        self._lock = threading.Lock()
        self._parsed: dict[str, frozenset[int]] = {}

    def synsets(self, word: str) -> frozenset[int]:
        """The synsets listed for ``word`` itself (empty when absent)."""
        found = self._parsed.get(word)
        if found is None:
            raw = self._raw.get(word)
            found = frozenset(int(x) for x in raw.split()) if raw else frozenset()
            with self._lock:
                self._parsed[word] = found
        return found

    def morph(self, word: str) -> str:
        """METEOR's suffix stemmer: the first rule whose result is a table word, else ``""``."""
        if word.endswith("ss") or len(word) <= _MORPH_MIN_LENGTH:
            return word
        for suffix, replacement in MORPH_RULES:
            if word.endswith(suffix):
                stem = word[: len(word) - len(suffix)] + replacement
                if stem in self._raw:
                    return stem
        return ""

    def stem_synsets(self, word: str) -> frozenset[int]:
        """Synsets of the word's base forms (irregular table) or of its ``morph`` stem."""
        bases = self._exceptions.get(word)
        if bases is not None:
            out: set[int] = set()
            for base in bases:
                out |= self.synsets(base)
            return frozenset(out)
        return self.synsets(self.morph(word))

    @lru_cache(maxsize=65536)  # noqa: B019 - the table lives as long as the process
    def concept_synsets(self, text: str) -> frozenset[int]:
        """Synsets of a SPICE concept string: trimmed, lower-cased, spaces joined by ``_``."""
        key = text.strip().lower().replace(" ", "_")
        return self.synsets(key) | self.stem_synsets(key)


def _read_pairs(path: Path, encoding: str) -> list[tuple[str, str]]:
    with gzip.open(path, "rt", encoding=encoding) as handle:
        lines = handle.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) % 2:
        raise ValueError(f"{path}: odd number of lines ({len(lines)}); the file is truncated or corrupt")
    return [(lines[i].strip(), lines[i + 1]) for i in range(0, len(lines), 2)]


@lru_cache(maxsize=4)
def load_synonyms(directory: str | None = None) -> SynonymTable:
    """Load (once per process) the METEOR tables from ``directory`` or the default location.

    Raises:
        FileNotFoundError: when the tables are missing.
        ValueError: when a file is malformed.
    """
    base = Path(directory) if directory is not None else synonym_data_dir()
    # The synsets file is read as Latin-1 and the exceptions as UTF-8, like METEOR; both are ASCII.
    synsets = dict(_read_pairs(base / _SYNSETS_FILE, "latin-1"))
    exceptions: dict[str, list[str]] = {}
    for base_form, forms in _read_pairs(base / _EXCEPTIONS_FILE, "utf-8"):
        for form in forms.split():
            exceptions.setdefault(form, []).append(base_form)
    return SynonymTable(synsets, {k: tuple(v) for k, v in exceptions.items()})
