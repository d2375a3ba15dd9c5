"""CoreNLP's ``englishPCFG`` grammar as arrays: converted once from the user's copy, cached as ``.npz``.

:meth:`Grammar.from_ser_gz` reads the Java-serialized ``englishPCFG.ser.gz`` (a gzip of a
``LexicalizedParser`` object stream) with ``javaobj-py3``, pure Python, and keeps what the
parser needs: the state, tag and word indices, the binary rules in their stream order with
their float scores, the core unary rules in the order Java iterates them after loading, the
unary closure Java computes at load time (same floats, same order), the lexicon's counts
and the unknown-word model's counts. :meth:`Grammar.save` / :meth:`Grammar.load` keep them in
one ``.npz`` (no pickled objects), which loads in a fraction of a second.

The grammar is GPL data (Stanford CoreNLP's models): it is read from the user's copy and
never shipped; the cache is derived from it and stays on the user's machine.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import struct
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .javahash import JavaHashMap, hashset_copy

__all__ = ["FORMAT_VERSION", "OFFICIAL_SHA256", "Grammar", "GrammarError", "unary_closure"]

#: sha256 of ``edu/stanford/nlp/models/lexparser/englishPCFG.ser.gz`` in ``stanford-corenlp-3.6.0-models.jar``.
OFFICIAL_SHA256 = "ed674cce7311f76c018806e61cdb045e219258ee30014da4e3e686b9230ebea9"
#: Version of the ``.npz`` layout; files of another version are refused by :meth:`Grammar.load`.
FORMAT_VERSION = 1

_F32 = np.float32
_NEG_INF = np.float32(-np.inf)

#: The option values this implementation reproduces (CoreNLP's names); other grammars are refused.
_EXPECTED_OPTIONS: dict[str, object] = {
    "doPCFG": True,
    "doDep": False,
    "dcTags": False,
    "forceCNF": False,
    "nodePrune": False,
    "wordFunction": "edu.stanford.nlp.process.AmericanizeFunction",
    "lexicon": "edu.stanford.nlp.parser.lexparser.BaseLexicon",
    "unknownWordModel": "edu.stanford.nlp.parser.lexparser.EnglishUnknownWordModel",
    "unknownLevel": 2,
    "useSignatureForKnownSmoothing": False,
    "smartMutation": False,
    "tlpParams": "edu.stanford.nlp.parser.lexparser.EnglishTreebankParserParams",
}

_ARRAYS = (
    "state_text",
    "state_offsets",
    "word_text",
    "word_offsets",
    "tag_state",
    "binary_parent",
    "binary_left",
    "binary_right",
    "binary_score",
    "unary_parent",
    "unary_child",
    "unary_score",
    "closed_parent",
    "closed_child",
    "closed_score",
    "seen_word",
    "seen_tag",
    "seen_count",
    "word_count",
    "tag_count",
    "unseen_sig",
    "unseen_tag",
    "unseen_count",
    "sig_count",
    "unseen_tag_count",
    "scalars",
)
#: The float scalars kept in ``scalars``, in this order.
_SCALARS = (
    "total",
    "unseen_total",
    "smooth_known",
    "smooth_unknown",
    "smooth_in_unknowns_threshold",
    "open_class_threshold",
    "flexi_tag",
    "goal_state",
    "boundary_word",
    "boundary_tag",
    "unknown_word",
)


class GrammarError(ValueError):
    """The grammar file cannot be read, or is not a grammar this parser reproduces."""


def _f32(x: float) -> float:
    result: float = struct.unpack("<f", struct.pack("<f", x))[0]
    return result


def _pack_strings(strings: Sequence[str]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    text = "".join(strings)
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in strings], out=offsets[1:])
    return np.frombuffer(text.encode("utf-32-le"), dtype=np.uint8).copy(), offsets


def _unpack_strings(text: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64]) -> list[str]:
    joined = text.tobytes().decode("utf-32-le")
    bounds = offsets.tolist()
    return [joined[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def unary_hash_code(parent: int, child: int) -> int:
    """``UnaryRule.hashCode()``: ``(parent << 16) ^ child`` as a Java int."""
    return ((parent << 16) ^ child) & 0xFFFFFFFF


def unary_closure(
    num_states: int, core: Iterable[tuple[int, int, float]]
) -> tuple[list[tuple[int, int, float]], dict[int, list[tuple[int, float]]]]:
    """The closed unary rules as ``UnaryGrammar`` builds them, adding ``core`` rules in this order.

    Every state first gets a self rule of score 0; each core rule P -> C (score u) then relaxes,
    for every closed rule X -> P and every closed rule C -> Y known when the rule is added, the
    pair X -> Y with the float sum ``(x + y) + u`` (a better score replaces the old one in place);
    finally the self rules are dropped.

    Returns:
        The closed rules ``(parent, child, score)`` in creation order, and the core rules per
        parent ``{parent: [(child, score), ...]}`` in the order they were added.
    """
    by_parent: list[list[list[Any]]] = [[] for _ in range(num_states)]
    by_child: list[list[list[Any]]] = [[] for _ in range(num_states)]
    best: dict[tuple[int, int], list[Any]] = {}
    created: list[list[Any]] = []

    def relax(parent: int, child: int, score: float) -> None:
        rule = best.get((parent, child))
        if rule is None:
            rule = [parent, child, score]
            best[(parent, child)] = rule
            by_parent[parent].append(rule)
            by_child[child].append(rule)
            created.append(rule)
        elif rule[2] < score:
            rule[2] = score

    for s in range(num_states):
        relax(s, s, 0.0)
    core_by_parent: dict[int, list[tuple[int, float]]] = {}
    for parent, child, score in core:
        above = by_child[parent][:]  # the lists' sizes are fixed when each loop starts
        for up in above:
            below = by_parent[child][:]
            for down in below:
                relax(up[0], down[1], _f32(_f32(up[2] + down[2]) + score))
        core_by_parent.setdefault(parent, []).append((child, score))
    closed = [(p, c, s) for p, c, s in created if p != c]
    return closed, core_by_parent


class Grammar:
    """Everything the exhaustive PCFG parser needs, as numpy arrays.

    States, tags and words are identified by their position in CoreNLP's indices. Scores are
    float32 (Java ``float``); counts are float64 (Java ``double``).

    Attributes:
        sha256: sha256 (hex) of the ``.ser.gz`` bytes the grammar was converted from.
        binary_parent, binary_left, binary_right, binary_score: the binary rules in stream order.
        unary_parent, unary_child, unary_score: the core unary rules in Java's iteration order.
        closed_parent, closed_child, closed_score: the unary closure, in Java's creation order.
        tag_state: the state of each tag.
        seen_word, seen_tag, seen_count: the lexicon's (word, tag) counts.
        word_count, tag_count: the lexicon's per-word and per-tag totals.
        unseen_sig, unseen_tag, unseen_count, sig_count, unseen_tag_count: the unknown-word
            model's (signature, tag) counts and totals (signatures are word ids).
    """

    def __init__(self, arrays: Mapping[str, np.ndarray[Any, Any]], sha256: str) -> None:
        missing = [name for name in _ARRAYS if name not in arrays]
        if missing:
            raise GrammarError(f"grammar arrays missing: {', '.join(missing)}")
        self.sha256 = sha256
        #: The ``.npz`` the grammar was loaded from (None for a grammar converted in memory).
        self.source_path: Path | None = None
        self.state_text = arrays["state_text"]
        self.state_offsets = arrays["state_offsets"]
        self.word_text = arrays["word_text"]
        self.word_offsets = arrays["word_offsets"]
        self.tag_state: npt.NDArray[np.int32] = arrays["tag_state"]
        self.binary_parent: npt.NDArray[np.int32] = arrays["binary_parent"]
        self.binary_left: npt.NDArray[np.int32] = arrays["binary_left"]
        self.binary_right: npt.NDArray[np.int32] = arrays["binary_right"]
        self.binary_score: npt.NDArray[np.float32] = arrays["binary_score"]
        self.unary_parent: npt.NDArray[np.int32] = arrays["unary_parent"]
        self.unary_child: npt.NDArray[np.int32] = arrays["unary_child"]
        self.unary_score: npt.NDArray[np.float32] = arrays["unary_score"]
        self.closed_parent: npt.NDArray[np.int32] = arrays["closed_parent"]
        self.closed_child: npt.NDArray[np.int32] = arrays["closed_child"]
        self.closed_score: npt.NDArray[np.float32] = arrays["closed_score"]
        self.seen_word: npt.NDArray[np.int32] = arrays["seen_word"]
        self.seen_tag: npt.NDArray[np.int32] = arrays["seen_tag"]
        self.seen_count: npt.NDArray[np.float64] = arrays["seen_count"]
        self.word_count: npt.NDArray[np.float64] = arrays["word_count"]
        self.tag_count: npt.NDArray[np.float64] = arrays["tag_count"]
        self.unseen_sig: npt.NDArray[np.int32] = arrays["unseen_sig"]
        self.unseen_tag: npt.NDArray[np.int32] = arrays["unseen_tag"]
        self.unseen_count: npt.NDArray[np.float64] = arrays["unseen_count"]
        self.sig_count: npt.NDArray[np.float64] = arrays["sig_count"]
        self.unseen_tag_count: npt.NDArray[np.float64] = arrays["unseen_tag_count"]
        scalars = arrays["scalars"]
        if scalars.shape != (len(_SCALARS),):
            raise GrammarError(f"grammar scalars have shape {scalars.shape}, expected ({len(_SCALARS)},)")
        values = dict(zip(_SCALARS, scalars.tolist(), strict=True))
        #: Grand total of the lexicon's counts.
        self.total: float = values["total"]
        #: Grand total of the unknown-word model's counts.
        self.unseen_total: float = values["unseen_total"]
        #: ``smooth[1]``: weight of the unknown-word tag distribution for rare known words.
        self.smooth_known: float = values["smooth_known"]
        #: ``smooth[0]``: weight of the unknown-word tag distribution for unknown signatures.
        self.smooth_unknown: float = values["smooth_unknown"]
        #: Words seen more often than this take only their seen tags.
        self.smooth_in_unknowns_threshold: float = values["smooth_in_unknowns_threshold"]
        #: Tags with more unknown-word types than this are the open classes unknown words take.
        self.open_class_threshold: float = values["open_class_threshold"]
        #: Rare known words may take any tag (CoreNLP's ``flexiTag``).
        self.flexi_tag = bool(values["flexi_tag"])
        #: The goal state (``ROOT``).
        self.goal_state = int(values["goal_state"])
        #: The boundary word ``.$.`` and its tag ``.$$.``.
        self.boundary_word = int(values["boundary_word"])
        self.boundary_tag = int(values["boundary_tag"])
        #: The ``UNK`` word, which lists the open-class tags.
        self.unknown_word = int(values["unknown_word"])
        self._validate()

    def _validate(self) -> None:
        """Refuse arrays of the wrong type, shape or range (the compiled parser does not check indices)."""
        problems: list[str] = []

        def check(name: str, dtype: type, size: int | None = None, bound: int | None = None) -> None:
            array = getattr(self, name)
            if not isinstance(array, np.ndarray) or array.dtype != dtype or array.ndim != 1:
                problems.append(f"{name} is not a 1-D {np.dtype(dtype).name} array")
                return
            if size is not None and len(array) != size:
                problems.append(f"{name} has {len(array)} entries, expected {size}")
            if bound is not None and len(array) and (int(array.min()) < 0 or int(array.max()) >= bound):
                problems.append(f"{name} holds ids outside [0, {bound})")

        check("state_text", np.uint8)
        check("word_text", np.uint8)
        check("state_offsets", np.int64)
        check("word_offsets", np.int64)
        if problems:
            raise GrammarError("; ".join(problems))
        for name in ("state", "word"):
            offsets, text = getattr(self, f"{name}_offsets"), getattr(self, f"{name}_text")
            if len(offsets) < 2 or offsets[0] != 0 or np.any(np.diff(offsets) < 0) or 4 * offsets[-1] != len(text):
                problems.append(f"{name}_offsets do not index {name}_text")
        states, words, tags = len(self.state_offsets) - 1, len(self.word_offsets) - 1, len(self.tag_state)
        check("tag_state", np.int32, bound=states)
        rules = len(self.binary_parent)
        for name in ("binary_parent", "binary_left", "binary_right"):
            check(name, np.int32, rules, states)
        check("binary_score", np.float32, rules)
        for prefix in ("unary", "closed"):
            size = len(getattr(self, f"{prefix}_parent"))
            check(f"{prefix}_parent", np.int32, size, states)
            check(f"{prefix}_child", np.int32, size, states)
            check(f"{prefix}_score", np.float32, size)
        pairs = len(self.seen_word)
        check("seen_word", np.int32, pairs, words)
        check("seen_tag", np.int32, pairs, tags)
        check("seen_count", np.float64, pairs)
        check("word_count", np.float64, words)
        check("tag_count", np.float64, tags)
        pairs = len(self.unseen_sig)
        check("unseen_sig", np.int32, pairs, words)
        check("unseen_tag", np.int32, pairs, tags)
        check("unseen_count", np.float64, pairs)
        check("sig_count", np.float64, words)
        check("unseen_tag_count", np.float64, tags)
        if not problems:
            if len(self.seen_word) and np.any(np.diff(self.seen_word.astype(np.int64)) < 0):
                problems.append("seen_word is not sorted")
            for name in ("binary_score", "unary_score", "closed_score"):
                if np.isnan(getattr(self, name)).any() or np.isposinf(getattr(self, name)).any():
                    problems.append(f"{name} holds NaN or +inf")
            if not 0 <= self.goal_state < states or not 0 <= self.boundary_tag < tags:
                problems.append("the goal state or the boundary tag is out of range")
            if not 0 <= self.boundary_word < words or not 0 <= self.unknown_word < words:
                problems.append("the boundary word or UNK is out of range")
        if problems:
            raise GrammarError("; ".join(problems))

    # -- sizes and names -----------------------------------------------------------------------

    @property
    def num_states(self) -> int:
        """Number of states (12,977 in englishPCFG)."""
        return len(self.state_offsets) - 1

    @property
    def num_tags(self) -> int:
        """Number of tags (614)."""
        return len(self.tag_state)

    @property
    def num_words(self) -> int:
        """Number of entries in the word index (48,050, signatures included)."""
        return len(self.word_offsets) - 1

    @cached_property
    def states(self) -> list[str]:
        """State names by id."""
        return _unpack_strings(self.state_text, self.state_offsets)

    @cached_property
    def words(self) -> list[str]:
        """Word-index entries by id."""
        return _unpack_strings(self.word_text, self.word_offsets)

    @cached_property
    def word_ids(self) -> dict[str, int]:
        """Word-index entry -> id."""
        return {w: i for i, w in enumerate(self.words)}

    @cached_property
    def is_tag(self) -> npt.NDArray[np.bool_]:
        """Per state: whether it is a tag."""
        out = np.zeros(self.num_states, dtype=np.bool_)
        out[self.tag_state] = True
        return out

    # -- conversion ----------------------------------------------------------------------------

    @classmethod
    def from_ser_gz(cls, data: bytes) -> Grammar:
        """Convert CoreNLP's serialized ``englishPCFG.ser.gz`` (its bytes, gzipped) into arrays.

        Takes several seconds (``javaobj-py3`` reads the whole object stream); do it once and
        :meth:`save` the result.

        Raises:
            GrammarError: the bytes are not a serialized ``LexicalizedParser``, or its options
                are not those this parser reproduces.
            ImportError: ``javaobj-py3`` is not installed.
        """
        try:
            import javaobj.v1 as javaobj
        except ImportError as exc:  # pragma: no cover - javaobj-py3 is in the spice extra
            from capeval._install import needs_extra

            raise ImportError(needs_extra("Reading CoreNLP's grammar (javaobj-py3)", "spice")) from exc
        sha256 = hashlib.sha256(data).hexdigest()
        try:
            raw = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise GrammarError(f"not a gzip file (englishPCFG.ser.gz expected): {exc}") from None
        try:
            model = javaobj.loads(raw)  # type: ignore[no-untyped-call]
        except Exception as exc:  # noqa: BLE001 - javaobj raises assorted errors on foreign streams
            raise GrammarError(f"not a Java object stream: {exc}") from None
        return cls(_convert(model), sha256)

    # -- cache ---------------------------------------------------------------------------------

    def save(self, path: Path) -> None:
        """Write the arrays to one ``.npz`` at ``path`` (atomically: a temporary file, then a rename)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays = self.to_arrays()
        arrays["sha256"] = np.frombuffer(bytes.fromhex(self.sha256), dtype=np.uint8)
        arrays["format_version"] = np.array([FORMAT_VERSION], dtype=np.int64)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, allow_pickle=False, **arrays)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def to_arrays(self) -> dict[str, np.ndarray[Any, Any]]:
        """The arrays the grammar is made of (what :class:`Grammar` is constructed from)."""
        arrays: dict[str, np.ndarray[Any, Any]] = {name: getattr(self, name) for name in _ARRAYS if name != "scalars"}
        arrays["scalars"] = np.array([float(getattr(self, name)) for name in _SCALARS], dtype=np.float64)
        return arrays

    @classmethod
    def load(cls, path: Path) -> Grammar:
        """Read a grammar written by :meth:`save`.

        Raises:
            GrammarError: the file is not such a grammar, or of another format version.
        """
        try:
            with np.load(Path(path), allow_pickle=False) as npz:
                arrays = {name: npz[name] for name in npz.files}
        except (OSError, ValueError) as exc:
            raise GrammarError(f"{path}: not a converted grammar ({exc})") from None
        version = arrays.pop("format_version", None)
        if version is None or version.tolist() != [FORMAT_VERSION]:
            found = None if version is None else version.tolist()
            raise GrammarError(f"{path}: grammar cache format {found}, expected [{FORMAT_VERSION}]; convert again")
        sha = arrays.pop("sha256", None)
        if sha is None or sha.shape != (32,):
            raise GrammarError(f"{path}: grammar cache without the sha256 of its source")
        try:
            grammar = cls(arrays, sha.tobytes().hex())
        except GrammarError as exc:
            raise GrammarError(f"{path}: {exc}") from None
        grammar.source_path = Path(path).resolve()
        return grammar


def _class_name(obj: Any) -> str | None:
    cls = obj.get_class() if hasattr(obj, "get_class") else None
    return None if cls is None else str(cls.name)


def _check_options(model: Any) -> None:
    op, lex = model.op, model.lex
    uw = lex.uwModel
    found: dict[str, object] = {
        "doPCFG": bool(op.doPCFG),
        "doDep": bool(op.doDep),
        "dcTags": bool(op.dcTags),
        "forceCNF": bool(op.forceCNF),
        "nodePrune": bool(op.nodePrune),
        "wordFunction": _class_name(op.wordFunction),
        "lexicon": _class_name(lex),
        "unknownWordModel": _class_name(uw),
        "unknownLevel": int(uw.unknownLevel),
        "useSignatureForKnownSmoothing": bool(lex.useSignatureForKnownSmoothing),
        "smartMutation": bool(lex.smartMutation),
        "tlpParams": _class_name(op.tlpParams),
    }
    wrong = [f"{k}={found[k]!r} (expected {v!r})" for k, v in _EXPECTED_OPTIONS.items() if found[k] != v]
    if wrong:
        raise GrammarError("this is not a grammar the parser reproduces: " + ", ".join(wrong))


def _counter(
    counter: Any, n_words: int, n_tags: int
) -> tuple[float, npt.NDArray[np.float64], npt.NDArray[np.float64], tuple[npt.NDArray[Any], ...]]:
    """A ``ClassicCounter`` over ``IntTaggedWord`` keys (-1 = any) as arrays.

    Returns:
        The grand total (key (-1, -1)), the per-word totals (w, -1), the per-tag totals (-1, t),
        and the (word, tag) pairs sorted (word ids, tag ids, counts).
    """
    total = 0.0
    per_word = np.zeros(n_words, dtype=np.float64)
    per_tag = np.zeros(n_tags, dtype=np.float64)
    pairs: list[tuple[int, int, float]] = []
    for key, value in counter.map.items():
        w, t, c = int(key.word), int(key.tag), float(value.d)
        if w < 0 and t < 0:
            total = c
        elif t < 0:
            per_word[w] = c
        elif w < 0:
            per_tag[t] = c
        else:
            pairs.append((w, t, c))
    pairs.sort()
    columns = (
        np.array([p[0] for p in pairs], dtype=np.int32),
        np.array([p[1] for p in pairs], dtype=np.int32),
        np.array([p[2] for p in pairs], dtype=np.float64),
    )
    return total, per_word, per_tag, columns


def _convert(model: Any) -> dict[str, np.ndarray[Any, Any]]:
    if _class_name(model) != "edu.stanford.nlp.parser.lexparser.LexicalizedParser":
        raise GrammarError(f"expected a LexicalizedParser, found {_class_name(model)}")
    _check_options(model)
    states = [str(s) for s in model.stateIndex.objects]
    words = [str(w) for w in model.wordIndex.objects]
    tags = [str(t) for t in model.tagIndex.objects]
    state_id = {s: i for i, s in enumerate(states)}
    word_id = {w: i for i, w in enumerate(words)}
    missing = [t for t in tags if t not in state_id]
    if missing:
        raise GrammarError(f"tags that are not states: {missing[:5]}")
    for name, index in (("state", states), ("word", words)):
        if len(set(index)) != len(index):
            raise GrammarError(f"the {name} index has duplicates")
    out: dict[str, np.ndarray[Any, Any]] = {}
    out["state_text"], out["state_offsets"] = _pack_strings(states)
    out["word_text"], out["word_offsets"] = _pack_strings(words)
    out["tag_state"] = np.array([state_id[t] for t in tags], dtype=np.int32)

    rules = model.bg.allRules
    out["binary_parent"] = np.array([r.parent for r in rules], dtype=np.int32)
    out["binary_left"] = np.array([r.leftChild for r in rules], dtype=np.int32)
    out["binary_right"] = np.array([r.rightChild for r in rules], dtype=np.int32)
    out["binary_score"] = np.array([r.score for r in rules], dtype=np.float32)

    # UnaryGrammar.readObject: the deserialized HashMap (stream order) is copied into a HashSet,
    # whose iteration order is the order the rules are added (and closed) in.
    stream = list(model.ug.coreRules.keys())
    keyed = {(int(u.parent), int(u.child)): _f32(float(u.score)) for u in stream}
    if len(keyed) != len(stream):
        raise GrammarError("duplicate unary rules")
    codes = {key: unary_hash_code(*key) for key in keyed}
    deserialized = JavaHashMap.deserialized(list(keyed), [codes[k] for k in keyed])
    order = list(hashset_copy(deserialized, codes))
    out["unary_parent"] = np.array([p for p, _ in order], dtype=np.int32)
    out["unary_child"] = np.array([c for _, c in order], dtype=np.int32)
    out["unary_score"] = np.array([keyed[k] for k in order], dtype=np.float32)
    closed, _ = unary_closure(len(states), ((p, c, keyed[(p, c)]) for p, c in order))
    out["closed_parent"] = np.array([p for p, _, _ in closed], dtype=np.int32)
    out["closed_child"] = np.array([c for _, c, _ in closed], dtype=np.int32)
    out["closed_score"] = np.array([s for _, _, s in closed], dtype=np.float32)

    lex = model.lex
    n_words, n_tags = len(words), len(tags)
    total, out["word_count"], out["tag_count"], seen = _counter(lex.seenCounter, n_words, n_tags)
    out["seen_word"], out["seen_tag"], out["seen_count"] = seen
    unseen_total, out["sig_count"], out["unseen_tag_count"], unseen = _counter(
        lex.uwModel.unSeenCounter, n_words, n_tags
    )
    out["unseen_sig"], out["unseen_tag"], out["unseen_count"] = unseen

    smooth = [float(x) for x in lex.smooth]
    goal = state_id.get("ROOT")
    boundary_word = word_id.get(".$.")
    boundary_tag = tags.index(".$$.") if ".$$." in tags else None
    unknown_word = word_id.get("UNK")
    if goal is None or boundary_word is None or boundary_tag is None or unknown_word is None:
        raise GrammarError("the grammar lacks ROOT, the boundary word .$. / tag .$$., or UNK")
    scalars = {
        "total": total,
        "unseen_total": unseen_total,
        "smooth_known": smooth[1],
        "smooth_unknown": smooth[0],
        "smooth_in_unknowns_threshold": float(lex.smoothInUnknownsThreshold),
        "open_class_threshold": float(lex.trainOptions.openClassTypesThreshold),
        "flexi_tag": float(bool(lex.flexiTag)),
        "goal_state": float(goal),
        "boundary_word": float(boundary_word),
        "boundary_tag": float(boundary_tag),
        "unknown_word": float(unknown_word),
    }
    out["scalars"] = np.array([scalars[name] for name in _SCALARS], dtype=np.float64)
    return out
