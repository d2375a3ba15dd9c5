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

Input handling mirrors ``meteor.py``: ``|||`` is removed from the candidate, each pair of
spaces in the candidate becomes one (a single pass), a reference that contains ``|||`` splits
into several references, and fields are trimmed like Java ``String.trim()``. Line breaks
(``\\n``, ``\\r``), which break the official stdio protocol, are read as spaces here.
"""

from __future__ import annotations

import gc
import itertools
import logging
import os
import re
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

import numpy as np

from capeval.metrics.base import FloatArray, Metric
from capeval.metrics.meteor import _firstrun, _kernel
from capeval.metrics.meteor._batch import WordIndex, segment_tokens
from capeval.metrics.meteor._normalize import JAVA_TRIM_CHARS, java_trim
from capeval.metrics.meteor._resources import MeteorData, MeteorDataError, load_meteor_data, locate_pycocoevalcap
from capeval.metrics.meteor._words import WordFeatures, java_string_hash, word_features
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

_SEPARATOR = "|||"
#: Distinct segments normalized per batch (bounds the temporary token lists).
_CHUNK_SENTENCES = 16384
#: Smallest block of items handed to one aligner thread.
_MIN_ITEMS_PER_THREAD = 1000
#: Smallest of the blocks that end a run (see ``_blocks``).
_MIN_TAIL_ITEMS = 200
_LINE_BREAKS = re.compile("[\r\n]")


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


def _blocks(n: int, n_threads: int) -> list[tuple[int, int]]:
    """Item ranges for the aligner threads: about ``8 * n_threads`` equal blocks, then smaller
    ones at the end (each about a ``2 * n_threads``-th of what remains), so that the threads
    finish together instead of one aligning the last large block alone."""
    block = max(_MIN_ITEMS_PER_THREAD, -(-n // (8 * n_threads)))
    ranges = []
    lo = 0
    while lo < n:
        size = min(block, max(_MIN_TAIL_ITEMS, -(-(n - lo) // (2 * n_threads))))
        ranges.append((lo, min(n, lo + size)))
        lo += size
    return ranges


def _available_cpus() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)


class _WordTables:
    """Word ids and matcher features: the paraphrase vocabulary (precomputed) plus extra words.

    Ids ``1..V`` are paraphrase-vocabulary token ids, whose features come from the data
    cache; words outside it get ids ``V+1..`` and their features are computed here once.
    """

    def __init__(self, data: MeteorData) -> None:
        self.data = data
        #: Every known word -> id (the vocabulary, then extra words as they appear).
        self.index = WordIndex.of_lines(data.paraphrases.vocab_text)
        self.n_vocab = self.index.n_given
        self._extra_words: list[str] = []
        self._extra_parts: list[WordFeatures] = []
        self._extra_function: list[np.ndarray] = []
        self._arrays: tuple[np.ndarray, ...] | None = None

    def arrays(self) -> tuple[np.ndarray, ...]:
        """``(hash, stem, synonym signature, function flag, synonym offsets, synonym ids, paraphrase id)``."""
        known = self.n_vocab + len(self._extra_words)
        if self._arrays is not None and known == len(self.index):
            return self._arrays
        d = self.data
        new_words = self.index.words(known, len(self.index))
        if new_words:  # features of words first seen since the last call only
            self._extra_words.extend(new_words)
            self._extra_parts.append(
                # plain arrays (not memory-map objects) for the many small slices taken
                word_features(
                    new_words, d.synset_index, d.exceptions, np.asarray(d.synset_offsets), np.asarray(d.synset_ids)
                )
            )
            self._extra_function.append(np.array([w.lower() in d.function_words for w in new_words], dtype=np.bool_))
        parts = [d.vocab_features, *self._extra_parts]
        syn_offsets = [parts[0][3][:-1]]
        base = int(parts[0][3][-1])
        for part in parts[1:]:
            syn_offsets.append(part[3][:-1] + base)
            base += int(part[3][-1])
        syn_offsets.append(np.array([base], dtype=np.int64))
        n_extra = len(self._extra_words)
        self._arrays = (
            np.concatenate([p[0] for p in parts]),
            np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]),
            np.concatenate([d.vocab_function, *self._extra_function]),
            np.concatenate(syn_offsets),
            np.concatenate([p[4] for p in parts]),
            np.concatenate([np.arange(self.n_vocab, dtype=np.int64), np.zeros(n_extra, np.int64)]),
        )
        return self._arrays


class METEOR(Metric):
    """METEOR 1.5 (``-l en -norm``), exactly as the official COCO caption evaluation.

    Needs the METEOR data tables from an installed ``pycocoevalcap==1.2`` (read locally,
    converted once into a cache); numba, when installed, makes it fast.

    Args:
        tokenizer: Tokenizer applied by :meth:`score` (``"ptb"``, as the COCO evaluation).
        n_threads: Threads for the compiled aligner (default: available CPUs, at most 4).
            Results do not depend on it.

    Example:
        >>> metric = METEOR(tokenizer="none")
        >>> result = metric.score_tokenized(candidates=["a man rides a horse on the beach"],
        ...                                 references=[["a man riding a horse on a beach"]])
        >>> round(result.score, 4)
        0.825
    """

    name: ClassVar[str] = "meteor"
    outputs: tuple[str, ...] = ("meteor",)
    official_names: Mapping[str, str] = {"meteor": "METEOR"}

    def __init__(self, *, tokenizer: str | Tokenizer = "ptb", n_threads: int | None = None) -> None:
        super().__init__(tokenizer=tokenizer)
        if n_threads is not None and n_threads < 1:
            raise ValueError(f"n_threads must be >= 1, got {n_threads}")
        #: Threads for the compiled aligner (default: the CPUs this process may use, at most 4).
        self.n_threads = n_threads if n_threads is not None else min(4, _available_cpus())
        self._words: _WordTables | None = None
        if not _kernel.HAVE_NUMBA:
            logger.warning(
                "numba is not installed: METEOR aligns in plain Python (same results, roughly 50x slower); "
                "pip install numba"
            )

    @property
    def stat_names(self) -> tuple[str, ...]:
        """The 23 METEOR statistics (see the module docstring)."""
        return STAT_NAMES

    def signature_fields(self, prepared: Any) -> tuple[tuple[str, str], ...]:
        """METEOR version, language, normalization and modules."""
        return (("release", "1.5"), ("lang", "en"), ("norm", "yes"), ("mods", "ex_st_sy_pa"))

    def prefetch(self) -> None:
        """On a new installation, start converting the tables in the background (see ``_firstrun``)."""
        if self._words is None:
            _firstrun.start_first_use()

    def _tables(self) -> _WordTables:
        if self._words is None:
            _firstrun.prepare_first_use()  # a new install: convert the tables while the aligner compiles
            self._words = _WordTables(load_meteor_data())
        return self._words

    def item_stats(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        """Statistics of the best reference of each item, shape ``(n, 23)``."""
        # Millions of short-lived token strings and lists: pausing the cyclic garbage
        # collector avoids repeated full-heap scans (it creates no reference cycles).
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return self._item_stats(candidates, references)
        finally:
            if was_enabled:
                gc.enable()

    def _item_stats(self, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> FloatArray:
        stats = self._kernel_stats(candidates, references)
        failed = np.flatnonzero(np.isnan(stats[:, 0]))
        if failed.size:
            i = int(failed[0])
            raise ValueError(
                f"item {i}: candidate/reference pair too long or repetitive for METEOR's beam search "
                f"(more than {_kernel.MAX_CANDIDATES} candidate matches or {_kernel.MAX_SEARCH_WORK:.0e} "
                f"search steps; {failed.size} item(s) affected)"
            )
        return stats

    def _kernel_stats(self, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> FloatArray:
        n = len(candidates)
        if self.n_threads <= 1 or n < 2 * _MIN_ITEMS_PER_THREAD:
            return self._run_job(self._prepare_job(candidates, references))
        # Pipeline: the main thread normalizes and encodes the next block while the compiled
        # aligner (which releases the GIL) works on earlier blocks in the pool's threads.
        if self._words is None:
            locate_pycocoevalcap()  # a missing official package is reported before anything compiles
        with ThreadPoolExecutor(max_workers=self.n_threads) as pool:
            # the compiled code loads in a pool thread while the tables load and the first block
            # is prepared (the word index's first, which they wait for; then the aligner's)
            pool.submit(_firstrun.load_kernels)
            self._tables()
            futures = [
                pool.submit(self._run_job, self._prepare_job(candidates[lo:hi], references[lo:hi]))
                for lo, hi in _blocks(n, self.n_threads)
            ]
            parts = [f.result() for f in futures]
        return np.concatenate(parts)

    def _prepare_job(self, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> tuple[Any, ...]:
        """Encode a block of items as the aligner's integer arrays."""
        words = self._tables()
        n = len(candidates)
        ref_texts: Sequence[str] = list(itertools.chain.from_iterable(references))
        hyp_texts: Sequence[str] = candidates
        ref_counts = np.fromiter(map(len, references), dtype=np.int64, count=n)
        joined = "\n".join(candidates) + "\n" + "\n".join(ref_texts)
        clean: Any = None
        if "|" in joined or "\r" in joined or joined.count("\n") != n + len(ref_texts) - 1:
            # something for meteor.py or the jar to split: the segments item by item
            hyp_list: list[str] = []
            ref_list: list[str] = []
            for i, (cand, refs) in enumerate(zip(candidates, references, strict=False)):
                hyp, segs = meteor_segments(cand, refs)
                hyp_list.append(hyp)
                ref_list.extend(segs)
                ref_counts[i] = len(segs)
            hyp_texts, ref_texts = hyp_list, ref_list
        else:
            # Only the candidate's "  " -> " " and the trim remain, which change nothing but blanks:
            # they matter only to the segments that need normalizing.
            def clean(i: int, text: str) -> str:
                if i < n:
                    text = text.replace("  ", " ")
                return text.strip(JAVA_TRIM_CHARS)

        del joined
        texts = [*hyp_texts, *ref_texts]
        counts = []
        word_ids = []
        prefixes = words.data.prefixes
        for start in range(0, len(texts), _CHUNK_SENTENCES):
            shifted = None if clean is None else (lambda i, t, start=start: clean(start + i, t))
            c, w = segment_tokens(texts[start : start + _CHUNK_SENTENCES], prefixes, words.index, shifted)
            counts.append(c)
            word_ids.append(w)
        s_off = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(np.concatenate(counts) if counts else np.zeros(0, np.int64), out=s_off[1:])
        s_words = np.concatenate(word_ids) if word_ids else np.zeros(0, np.int64)
        ref_off = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(ref_counts, out=ref_off[1:])
        # a snapshot: later blocks only append words, so these arrays stay valid for this block
        w_hash, w_stem, w_sig, w_func, syn_off, syn_ids, w_para = words.arrays()
        table = words.data.paraphrases
        return (
            np.arange(n, dtype=np.int64),
            ref_off,
            np.arange(n, len(texts), dtype=np.int64),
            s_off,
            s_words,
            w_para,
            table.phrase_hi,
            table.phrase_lo,
            table.first_offsets,
            w_hash,
            w_stem,
            w_sig,
            w_func,
            syn_off,
            syn_ids,
            table.group_offsets,
            table.group_dst,
            table.group_dlen,
        )

    @staticmethod
    def _run_job(job: tuple[Any, ...]) -> FloatArray:
        return np.asarray(_kernel.meteor_item_stats(*job), dtype=np.float64)

    def compute(self, totals: FloatArray) -> dict[str, float]:
        """Corpus METEOR from summed statistics (METEOR's EVAL aggregate)."""
        row = np.ascontiguousarray(totals, dtype=np.float64).reshape(len(STAT_NAMES))
        return {"meteor": float(_kernel.segment_score(row))}

    def item_outputs(self, stats: FloatArray) -> dict[str, FloatArray]:
        """Per-item METEOR (the jar's EVAL per-segment scores)."""
        stats = np.ascontiguousarray(stats, dtype=np.float64).reshape(-1, len(STAT_NAMES))
        return {"meteor": _kernel.segment_scores(stats)}
