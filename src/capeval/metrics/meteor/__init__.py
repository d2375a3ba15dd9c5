"""METEOR 1.5 as the COCO caption evaluation runs it, in Python (no Java).

Matches ``pycocoevalcap==1.2``'s ``Meteor`` (``java -jar meteor-1.5.jar - - -stdio -l en
-norm``) bit for bit: per-image scores equal the jar's EVAL per-segment lines and the
corpus score equals its EVAL aggregate. Reference: Denkowski & Lavie, "Meteor Universal:
Language Specific Translation Evaluation for Any Target Language", WMT 2014; code
cmu-mtlab/meteor at the 1.5 release.

Per item, METEOR normalizes the (PTB-tokenized) candidate and each reference with its own
``-norm`` normalizer, aligns the candidate with each reference (exact, Snowball stem,
WordNet synonym and paraphrase matches, beam search of width 40), scores each alignment
and keeps the statistics of the best-scoring reference (earliest on ties). The corpus
score is computed from the summed statistics, not averaged.

Statistics row (``stat_names``): the 23 numbers of the jar's SCORE reply, except that the
``chunks`` column is 0 for a perfect segment (every word matched in one chunk), exactly as
METEOR's own aggregation leaves those chunks out; the per-item score is unchanged by this.

Input handling mirrors ``meteor.py``: ``|||`` is removed from the candidate, the first
double space of the candidate becomes one space, a reference that contains ``|||`` splits
into several references, and fields are trimmed like Java ``String.trim()``. Line breaks
(``\\n``, ``\\r``), which break the official stdio protocol, are read as spaces here.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from snowballstemmer.english_stemmer import EnglishStemmer

from capeval.metrics.base import FloatArray, Metric
from capeval.metrics.meteor import _kernel
from capeval.metrics.meteor._normalize import java_trim, normalize_tokens
from capeval.metrics.meteor._resources import MeteorData, MeteorDataError, load_meteor_data
from capeval.tokenizers.base import Tokenizer

__all__ = ["METEOR", "MeteorDataError", "java_string_hash", "meteor_segments"]

logger = logging.getLogger("capeval")

#: Column labels: METEOR 1.5 ``MeteorStats.toString()`` order (chunks zeroed for perfect segments).
STAT_NAMES: tuple[str, ...] = (
    "test_len", "ref_len", "test_func", "ref_func",
    "exact_test_content", "exact_ref_content", "exact_test_func", "exact_ref_func",
    "stem_test_content", "stem_ref_content", "stem_test_func", "stem_ref_func",
    "synonym_test_content", "synonym_ref_content", "synonym_test_func", "synonym_ref_func",
    "para_test_content", "para_ref_content", "para_test_func", "para_ref_func",
    "chunks", "test_word_matches", "ref_word_matches",
)  # fmt: skip

#: WordNet morphy detachment rules used by METEOR's SynonymDictionary (suffix, replacement).
_MORPH_RULES: tuple[tuple[str, str], ...] = (
    ("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
    ("ies", "y"), ("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"),
    ("ing", ""), ("er", ""), ("est", ""), ("er", "e"), ("est", "e"),
)  # fmt: skip
_SEPARATOR = "|||"
_LINE_BREAKS = re.compile("[\r\n]")


def java_string_hash(text: str) -> int:
    """Java ``String.hashCode()`` (signed 32-bit, over UTF-16 code units)."""
    h = 0
    if text.isascii():
        for ch in text:
            h = (31 * h + ord(ch)) & 0xFFFFFFFF
    else:
        data = text.encode("utf-16-le")
        for k in range(0, len(data), 2):
            h = (31 * h + (data[k] | (data[k + 1] << 8))) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def meteor_segments(candidate: str, references: Sequence[str]) -> tuple[str, list[str]]:
    """The hypothesis and reference strings the jar scores for one ``meteor.py`` SCORE line.

    Args:
        candidate: Tokenized candidate caption.
        references: Tokenized reference captions.

    Returns:
        ``(hypothesis, references)`` after the ``meteor.py`` clean-up and the jar's
        ``|||`` split and ``trim()``.
    """
    hyp = _LINE_BREAKS.sub(" ", candidate).replace(_SEPARATOR, "").replace("  ", " ")
    refs = [_LINE_BREAKS.sub(" ", r) for r in references]
    line = "SCORE " + _SEPARATOR + " " + (" " + _SEPARATOR + " ").join(refs) + " " + _SEPARATOR + " " + hyp
    parts = line.split(_SEPARATOR)
    while parts and parts[-1] == "":  # Java String.split drops trailing empty strings
        parts.pop()
    return java_trim(parts[-1]), [java_trim(p) for p in parts[1:-1]]


class _WordTables:
    """Per-word matcher data (hash, stem hash, function flag, synsets, paraphrase id), cached."""

    def __init__(self, data: MeteorData) -> None:
        self.data = data
        self.ids: dict[str, int] = {}
        self.hash: list[int] = []
        self.stem: list[int] = []
        self.func: list[bool] = []
        self.para: list[int] = []
        self.syn: list[np.ndarray] = []
        self._stemmer = EnglishStemmer()

    def _synsets(self, word: str) -> np.ndarray:
        d = self.data
        index = d.synset_index
        keys: list[int] = []
        if word in index:
            keys.append(index[word])
        if word in d.exceptions:
            keys.extend(index[b] for b in d.exceptions[word] if b in index)
        else:
            base = self._morph(word)
            if base in index:
                keys.append(index[base])
        if not keys:
            return np.zeros(0, dtype=np.int32)
        parts = [d.synset_ids[d.synset_offsets[k] : d.synset_offsets[k + 1]] for k in keys]
        return np.unique(np.concatenate(parts)).astype(np.int32)

    def _morph(self, word: str) -> str:
        if word.endswith("ss") or len(word) <= 2:
            return word
        index = self.data.synset_index
        for suffix, ending in _MORPH_RULES:
            if word.endswith(suffix):
                candidate = word[: len(word) - len(suffix)] + ending
                if candidate in index:
                    return candidate
        return ""

    def word_id(self, word: str) -> int:
        wid = self.ids.get(word)
        if wid is None:
            wid = len(self.hash)
            self.ids[word] = wid
            self.hash.append(java_string_hash(word))
            self.stem.append(java_string_hash(self._stemmer.stemWord(word)))
            self.func.append(word.lower() in self.data.function_words)
            self.para.append(self.data.paraphrases.vocab.get(word, 0))
            self.syn.append(self._synsets(word))
        return wid

    def arrays(self) -> tuple[np.ndarray, ...]:
        offsets = np.zeros(len(self.syn) + 1, dtype=np.int64)
        np.cumsum([s.size for s in self.syn], out=offsets[1:])
        flat = np.concatenate(self.syn) if self.syn else np.zeros(0, dtype=np.int32)
        return (
            np.asarray(self.hash, dtype=np.int64),
            np.asarray(self.stem, dtype=np.int64),
            np.asarray(self.func, dtype=np.bool_),
            offsets,
            flat.astype(np.int32),
            np.asarray(self.para, dtype=np.int64),
        )


class METEOR(Metric):
    """METEOR 1.5 (``-l en -norm``), exactly as the official COCO caption evaluation.

    Needs the METEOR data tables from an installed ``pycocoevalcap==1.2`` (read locally,
    converted once into a cache); numba, when installed, makes it fast.

    Args:
        tokenizer: Tokenizer applied by :meth:`score` (``"ptb"``, as the COCO evaluation).

    Example:
        >>> metric = METEOR(tokenizer="none")  # doctest: +SKIP
        >>> metric.score_tokenized(candidates=["a man rides a horse on the beach"],
        ...                        references=[["a man riding a horse on a beach"]]).score  # doctest: +SKIP
        0.825
    """

    name: ClassVar[str] = "meteor"
    outputs: ClassVar[tuple[str, ...]] = ("meteor",)
    official_names: ClassVar[dict[str, str]] = {"meteor": "METEOR"}

    def __init__(self, *, tokenizer: str | Tokenizer = "ptb") -> None:
        super().__init__(tokenizer=tokenizer)
        self._words: _WordTables | None = None
        self._tokens: dict[str, list[str]] = {}

    @property
    def stat_names(self) -> tuple[str, ...]:
        """The 23 METEOR statistics (see the module docstring)."""
        return STAT_NAMES

    def signature_fields(self, prepared: Any) -> tuple[tuple[str, str], ...]:
        """METEOR version, language, normalization and modules."""
        return (("v", "1.5"), ("lang", "en"), ("norm", "yes"), ("mods", "ex_st_sy_pa"))

    def _tables(self) -> _WordTables:
        if self._words is None:
            self._words = _WordTables(load_meteor_data())
        return self._words

    def _sentence(self, text: str, prefixes: dict[str, bool]) -> list[str]:
        tokens = self._tokens.get(text)
        if tokens is None:
            tokens = normalize_tokens(text, prefixes)
            if len(self._tokens) < 1_000_000:
                self._tokens[text] = tokens
        return tokens

    def item_stats(
        self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any
    ) -> FloatArray:
        """Statistics of the best reference of each item, shape ``(n, 23)``."""
        words = self._tables()
        prefixes = words.data.prefixes
        sent_index: dict[str, int] = {}
        sent_words: list[int] = []
        sent_off: list[int] = [0]

        def sentence_id(text: str) -> int:
            sid = sent_index.get(text)
            if sid is None:
                sid = len(sent_off) - 1
                sent_index[text] = sid
                sent_words.extend(words.word_id(w) for w in self._sentence(text, prefixes))
                sent_off.append(len(sent_words))
            return sid

        item_hyp = np.empty(len(candidates), dtype=np.int64)
        ref_off = [0]
        ref_sent: list[int] = []
        for i, (cand, refs) in enumerate(zip(candidates, references)):
            hyp, ref_texts = meteor_segments(cand, refs)
            item_hyp[i] = sentence_id(hyp)
            ref_sent.extend(sentence_id(r) for r in ref_texts)
            ref_off.append(len(ref_sent))
        w_hash, w_stem, w_func, syn_off, syn_ids, w_para = words.arrays()
        table = words.data.paraphrases
        s_off = np.asarray(sent_off, dtype=np.int64)
        s_words = np.asarray(sent_words, dtype=np.int64)
        ngrams = _kernel.phrase_ngrams(s_off, s_words, w_para, table.phrase_hi, table.phrase_lo)
        return _kernel.meteor_item_stats(
            item_hyp,
            np.asarray(ref_off, dtype=np.int64),
            np.asarray(ref_sent, dtype=np.int64),
            s_off,
            s_words,
            ngrams,
            w_hash,
            w_stem,
            w_func,
            syn_off,
            syn_ids,
            table.phrase_len,
            table.group_offsets,
            table.group_dst,
        )

    def compute(self, totals: FloatArray) -> dict[str, float]:
        """Corpus METEOR from summed statistics (METEOR's EVAL aggregate)."""
        row = np.ascontiguousarray(totals, dtype=np.float64).reshape(len(STAT_NAMES))
        return {"meteor": float(_kernel.segment_score(row))}

    def item_outputs(self, stats: FloatArray) -> dict[str, FloatArray]:
        """Per-item METEOR (the jar's EVAL per-segment scores)."""
        stats = np.ascontiguousarray(stats, dtype=np.float64).reshape(-1, len(STAT_NAMES))
        return {"meteor": np.array([_kernel.segment_score(row) for row in stats], dtype=np.float64)}
