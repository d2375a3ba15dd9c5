"""Loaders for human-judgment datasets of image captioning.

Every loader returns plain values (:class:`HumanJudgments` for graded judgments of single
captions, :class:`PairwiseJudgments` for preference pairs) and raises ``ValueError`` naming
the file and line (or record) of malformed input.

Formats:

* Flickr8K-Expert / Flickr8K-CF (Hodosh et al. 2013): ``ExpertAnnotations.txt`` (image,
  caption id ``<image>#<0-4>``, three expert scores 1-4) or ``CrowdFlowerAnnotations.txt``
  (image, caption id, fraction of "yes", number of yes, number of no), with
  ``Flickr8k.token.txt`` (``<caption id>\\t<caption>``). The references of an item are the
  captions of the judged image, without the candidate itself when it is one of them.
* The Flickr8K-Expert table with the official SPICE outputs (``flickr8k_expert_dev.tsv``:
  candidate, ``expert1..3``, references joined by `` ||| ``, ``spice_f`` ...).
* THumB 1.0 (Kasai et al. 2022): ``mscoco_THumB-1.0.jsonl`` (``SYS``, ``seg_id``, ``hyp``,
  ``P``, ``R``, ``Fl``, ``Inc``, ``Con``, ``human_score``) with the references file (one JSON
  object per line: ``seg_id``, ``refs``).
* PASCAL-50S (Vedantam et al. 2015): ``pair_pascal.mat`` (``new_input``: image, caption A,
  caption B; ``category`` 1-4 = HC/HI/HM/MM) and ``consensus_pascal.mat`` (``triplets``: 48 per
  pair, each a reference, caption A, caption B and the winner, 1 for A and -1 for B).
* COMPOSITE (Aditya et al. 2015): ``8k_correctness.csv``/``30k_correctness.csv``/
  ``coco_correctness.csv`` (``;``-separated, a header line, the image URL in column 27, then the
  candidate captions and then their 1-5 ratings), with references supplied by the caller.
* COCO captions (``captions_val2014.json``) as ``image id -> captions`` for human agreement.
"""

from __future__ import annotations

import csv
import logging
import math
import os
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np

from capeval.io import read_jsonl, read_references
from capeval.meta_eval.correlation import FloatArray
from capeval.meta_eval.pairwise import PASCAL50S_CATEGORIES

__all__ = [
    "HumanJudgments",
    "PairwiseJudgments",
    "VotedPairs",
    "load_coco_captions",
    "load_composite",
    "load_flickr8k",
    "load_flickr8k_expert_tsv",
    "load_flickr8k_tokens",
    "load_pascal50s",
    "load_thumb",
    "read_jsonl",
]

log = logging.getLogger("capeval")

PathLike = str | os.PathLike[str]

#: Separator of the references column in the Flickr8K-Expert table with SPICE outputs.
REFERENCE_SEPARATOR = " ||| "
#: Expert scores range from 1 to 4 (Hodosh et al. 2013, ExpertAnnotations readme).
EXPERT_SCALE = (1.0, 4.0)
#: Triplets per PASCAL-50S pair in consensus_pascal.mat (48 human votes per pair).
PASCAL50S_VOTES_PER_PAIR = 48
#: COMPOSITE: column of the image URL, and candidate captions per row for each source dataset.
COMPOSITE_URL_COLUMN = 27
COMPOSITE_CAPTIONS = {"8k": 3, "30k": 4, "coco": 4}


@dataclass(frozen=True)
class HumanJudgments:
    """Graded human judgments of candidate captions.

    Attributes:
        name: Dataset name.
        ids: One id per item (caption id, or ``system/segment``).
        image_ids: Image judged in each item.
        candidates: Candidate caption of each item.
        references: Reference captions of each item.
        ratings: ``(n_items, n_raters)`` human scores; NaN marks a missing rating.
        systems: System of each item when the dataset has systems (THumB), else ``None``.
        columns: Other numeric columns of the file (e.g. the official ``spice_f``).
    """

    name: str
    ids: tuple[Hashable, ...]
    image_ids: tuple[Hashable, ...]
    candidates: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    ratings: FloatArray
    systems: tuple[str, ...] | None = None
    columns: Mapping[str, FloatArray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ids)

    def mean_ratings(self) -> FloatArray:
        """Mean human score per item."""
        return np.nanmean(self.ratings, axis=1)

    def head(self, n: int) -> HumanJudgments:
        """The first ``n`` items (for quick runs and fixtures)."""
        return HumanJudgments(
            self.name,
            self.ids[:n],
            self.image_ids[:n],
            self.candidates[:n],
            self.references[:n],
            self.ratings[:n],
            None if self.systems is None else self.systems[:n],
            {k: v[:n] for k, v in self.columns.items()},
        )

    def select(self, indices: Sequence[int]) -> HumanJudgments:
        """The items at ``indices``, in that order (e.g. all items but those of some systems)."""
        keep = list(indices)
        return HumanJudgments(
            self.name,
            tuple(self.ids[i] for i in keep),
            tuple(self.image_ids[i] for i in keep),
            tuple(self.candidates[i] for i in keep),
            tuple(self.references[i] for i in keep),
            self.ratings[keep],
            None if self.systems is None else tuple(self.systems[i] for i in keep),
            {k: v[keep] for k, v in self.columns.items()},
        )


class VotedPairs:
    """Length and vote difference of pairs of candidates judged by human votes (a dataclass base)."""

    image_ids: tuple[Hashable, ...]
    votes_a: FloatArray
    votes_b: FloatArray

    def __len__(self) -> int:
        return len(self.image_ids)

    @property
    def preference(self) -> FloatArray:
        """``votes_a - votes_b``: positive when humans preferred A."""
        return self.votes_a - self.votes_b


@dataclass(frozen=True)
class PairwiseJudgments(VotedPairs):
    """Human preferences between two candidate captions of the same image.

    Attributes:
        image_ids: Image of each pair.
        candidates_a: First caption of each pair.
        candidates_b: Second caption.
        references: Reference captions of each pair.
        categories: Category of each pair (PASCAL-50S: HC, HI, HM, MM).
        votes_a: Human votes for A.
        votes_b: Human votes for B.
    """

    image_ids: tuple[Hashable, ...]
    candidates_a: tuple[str, ...]
    candidates_b: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    categories: tuple[str, ...]
    votes_a: FloatArray
    votes_b: FloatArray


def _judgments(
    name: str,
    ids: Sequence[Hashable],
    images: Sequence[Hashable],
    candidates: Sequence[str],
    references: Sequence[tuple[str, ...]],
    ratings: Sequence[Sequence[float]],
    *,
    systems: Sequence[str] | None = None,
    columns: Mapping[str, Sequence[float]] | None = None,
) -> HumanJudgments:
    """A :class:`HumanJudgments` from the per-item lists a loader collected."""
    return HumanJudgments(
        name,
        tuple(ids),
        tuple(images),
        tuple(candidates),
        tuple(references),
        np.asarray(ratings, float),
        None if systems is None else tuple(systems),
        {c: np.asarray(v) for c, v in (columns or {}).items()},
    )


def _read_lines(path: PathLike) -> list[str]:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().splitlines()
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc})") from None


def _number(text: str, where: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: {what} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{where}: {what} {text!r} is not finite")
    return value


def load_flickr8k_tokens(path: PathLike) -> dict[str, str]:
    """``Flickr8k.token.txt`` as ``caption id -> caption`` (caption ids ``<image>#<n>``).

    Raises:
        ValueError: on a line without a tab or a duplicated caption id.
    """
    out: dict[str, str] = {}
    for number, line in enumerate(_read_lines(path), 1):
        if not line.strip():
            continue
        if "\t" not in line:
            raise ValueError(f"{path}:{number}: expected '<caption id>\\t<caption>'")
        key, caption = line.split("\t", 1)
        key = key.strip()
        if "#" not in key:
            raise ValueError(f"{path}:{number}: caption id {key!r} is not of the form <image>#<n>")
        if key in out:
            raise ValueError(f"{path}:{number}: duplicate caption id {key!r}")
        out[key] = caption.strip()
    if not out:
        raise ValueError(f"{path}: no captions")
    return out


def _image_of(caption_id: str) -> str:
    return caption_id.split("#", 1)[0]


def load_flickr8k(
    annotations: PathLike,
    tokens: PathLike,
    *,
    kind: str = "expert",
    exclude_candidate: bool = True,
) -> HumanJudgments:
    """Flickr8K-Expert or Flickr8K-CF judgments with their candidates and references.

    Args:
        annotations: ``ExpertAnnotations.txt`` or ``CrowdFlowerAnnotations.txt``.
        tokens: ``Flickr8k.token.txt``.
        kind: ``"expert"`` (three 1-4 scores per item) or ``"crowdflower"`` (rating = fraction
            of "yes"; columns ``yes`` and ``no`` hold the counts).
        exclude_candidate: Drop the candidate from its own references when it is a caption of
            the judged image (the protocol of the SPICE paper).

    Returns:
        :class:`HumanJudgments`; ``ids`` are ``"<image>/<caption id>"``.

    Raises:
        ValueError: on malformed lines, scores outside the scale, or unknown images/captions.
    """
    if kind not in ("expert", "crowdflower"):
        raise ValueError(f"kind must be 'expert' or 'crowdflower', got {kind!r}")
    captions = load_flickr8k_tokens(tokens)
    by_image: dict[str, list[tuple[str, str]]] = {}
    for key, text in captions.items():
        by_image.setdefault(_image_of(key), []).append((key, text))
    ids, images, cands, refs, ratings = [], [], [], [], []
    extra: dict[str, list[float]] = {"yes": [], "no": []}
    for number, line in enumerate(_read_lines(annotations), 1):
        if not line.strip():
            continue
        where = f"{annotations}:{number}"
        parts = line.split("\t")
        expected = 5
        if len(parts) != expected:
            raise ValueError(f"{where}: expected {expected} tab-separated fields, got {len(parts)}")
        image, caption_id = parts[0].strip(), parts[1].strip()
        if caption_id not in captions:
            raise ValueError(f"{where}: caption id {caption_id!r} is not in {tokens}")
        if image not in by_image:
            raise ValueError(f"{where}: image {image!r} has no captions in {tokens}")
        if kind == "expert":
            scores = [_number(p, where, "expert score") for p in parts[2:5]]
            for s in scores:
                if not EXPERT_SCALE[0] <= s <= EXPERT_SCALE[1]:
                    raise ValueError(f"{where}: expert score {s} outside {EXPERT_SCALE[0]:g}-{EXPERT_SCALE[1]:g}")
            ratings.append(scores)
        else:
            fraction = _number(parts[2], where, "fraction of yes")
            if not 0.0 <= fraction <= 1.0:
                raise ValueError(f"{where}: fraction of yes {fraction} outside 0-1")
            ratings.append([fraction])
            extra["yes"].append(_number(parts[3], where, "yes count"))
            extra["no"].append(_number(parts[4], where, "no count"))
        own = [text for key, text in by_image[image] if not (exclude_candidate and key == caption_id)]
        ids.append(f"{image}/{caption_id}")
        images.append(image)
        cands.append(captions[caption_id])
        refs.append(tuple(own))
    if not ids:
        raise ValueError(f"{annotations}: no judgments")
    columns = {k: v for k, v in extra.items() if v}
    return _judgments(f"flickr8k-{kind}", ids, images, cands, refs, ratings, columns=columns)


def load_flickr8k_expert_tsv(path: PathLike) -> HumanJudgments:
    """The Flickr8K-Expert table with official SPICE outputs (tab-separated, with a header).

    Required columns: ``image_id``, ``caption_id``, ``candidate``, ``expert1``..``expert3``,
    ``references`` (joined by `` ||| ``). Every other column must be numeric and is kept in
    ``columns`` (``spice_f``, ``spice_pr``, ``spice_re``, ``tp``, ``fp``, ``fn``). Fields are
    CSV-quoted where they hold a ``"`` (``"says "" Jesus "" ..."``), as the table is written: they
    are read without the quoting.

    Raises:
        ValueError: naming the line of a malformed row or a missing column.
    """
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", strict=True)
        try:
            return _flickr8k_expert_rows(path, reader)
        except csv.Error as exc:
            raise ValueError(f"{path}:{reader.line_num}: malformed CSV quoting ({exc})") from None


def _flickr8k_expert_rows(path: PathLike, reader: csv.DictReader[str]) -> HumanJudgments:
    """The rows of :func:`load_flickr8k_expert_tsv`, checked."""
    header = reader.fieldnames or []
    required = ["image_id", "caption_id", "candidate", "expert1", "expert2", "expert3", "references"]
    missing = [c for c in required if c not in header]
    if missing:
        raise ValueError(f"{path}: missing column(s) {', '.join(missing)}")
    extra_names = [c for c in header if c not in required]
    ids, images, cands, refs, ratings = [], [], [], [], []
    extra: dict[str, list[float]] = {c: [] for c in extra_names}
    for row in reader:
        where = f"{path}:{reader.line_num}"
        if None in row or any(v is None for v in row.values()):
            raise ValueError(f"{where}: expected {len(header)} tab-separated fields")
        scores = [_number(row[f"expert{i}"], where, f"expert{i}") for i in (1, 2, 3)]
        for s in scores:
            if not EXPERT_SCALE[0] <= s <= EXPERT_SCALE[1]:
                raise ValueError(f"{where}: expert score {s} outside 1-4")
        references = tuple(r.strip() for r in row["references"].split(REFERENCE_SEPARATOR.strip()))
        if not all(references):
            raise ValueError(f"{where}: empty reference caption")
        ids.append(f"{row['image_id']}/{row['caption_id']}")
        images.append(row["image_id"])
        cands.append(row["candidate"])
        refs.append(references)
        ratings.append(scores)
        for c in extra_names:
            extra[c].append(_number(row[c], where, c))
    if not ids:
        raise ValueError(f"{path}: no rows")
    return _judgments("flickr8k-expert", ids, images, cands, refs, ratings, columns=extra)


#: THumB score fields kept as columns (human_score is the rating).
THUMB_COLUMNS = ("P", "R", "Fl", "Inc", "Con")


def load_thumb(judgments: PathLike, references: PathLike) -> HumanJudgments:
    """THumB 1.0 judgments (jsonl) with their references (one JSON object per line).

    Returns:
        :class:`HumanJudgments` with ``systems`` (``SYS``), ratings = ``human_score`` and columns
        P, R, Fl, Inc, Con; ``ids`` are ``"<SYS>/<seg_id>"``.

    Raises:
        ValueError: on missing fields, non-numeric scores, or a segment without references.
    """
    refs_by_seg: dict[str, tuple[str, ...]] = {}
    for number, record in read_jsonl(references):
        where = f"{references}:{number}"
        if "seg_id" not in record or "refs" not in record:
            raise ValueError(f"{where}: expected fields 'seg_id' and 'refs'")
        refs = record["refs"]
        if not isinstance(refs, list) or not refs or not all(isinstance(r, str) and r.strip() for r in refs):
            raise ValueError(f"{where}: 'refs' must be a non-empty list of captions")
        refs_by_seg[str(record["seg_id"])] = tuple(refs)
    ids, images, cands, refs_out, ratings, systems = [], [], [], [], [], []
    extra: dict[str, list[float]] = {c: [] for c in THUMB_COLUMNS}
    for number, record in read_jsonl(judgments):
        where = f"{judgments}:{number}"
        for key in ("SYS", "seg_id", "hyp", "human_score", *THUMB_COLUMNS):
            if key not in record:
                raise ValueError(f"{where}: missing field {key!r}")
        seg = str(record["seg_id"])
        if seg not in refs_by_seg:
            raise ValueError(f"{where}: segment {seg!r} has no references in {references}")
        if not isinstance(record["hyp"], str):
            raise ValueError(f"{where}: 'hyp' must be a string")
        ids.append(f"{record['SYS']}/{seg}")
        images.append(record.get("image", seg))
        cands.append(record["hyp"])
        refs_out.append(refs_by_seg[seg])
        systems.append(str(record["SYS"]))
        ratings.append([_number(str(record["human_score"]), where, "human_score")])
        for c in THUMB_COLUMNS:
            extra[c].append(_number(str(record[c]), where, c))
    if not ids:
        raise ValueError(f"{judgments}: no judgments")
    return _judgments("thumb", ids, images, cands, refs_out, ratings, systems=systems, columns=extra)


def _mat_scalar(value: Any) -> Any:
    """Unwrap MATLAB cell/struct nesting down to a Python string or number."""
    while isinstance(value, np.ndarray):
        if value.dtype.kind in ("U", "S") and value.size <= 1:
            return str(value.item()) if value.size else ""
        if value.size != 1:
            raise ValueError(f"expected a single value, got an array of shape {value.shape}")
        value = value.reshape(-1)[0]
    if isinstance(value, np.void):
        raise ValueError("expected a single value, got a struct")
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, np.generic):
        return value.item()
    return value


def _mat_record(entry: Any) -> list[Any]:
    """Fields of one struct/cell entry of a loaded .mat array, unwrapped."""
    while isinstance(entry, np.ndarray) and entry.dtype != object and entry.dtype.names is None and entry.size == 1:
        entry = entry.reshape(-1)[0]
    if isinstance(entry, np.ndarray) and entry.dtype == object:
        return [_mat_scalar(x) for x in entry.reshape(-1)]
    if isinstance(entry, np.ndarray) and entry.dtype.names is not None:
        entry = entry.reshape(-1)[0]
    return [_mat_scalar(x) for x in entry]


def _loadmat(path: PathLike, keys: Sequence[str]) -> dict[str, Any]:
    try:
        from scipy.io import loadmat
    except ImportError as exc:  # pragma: no cover - scipy is in the "stats" extra
        from capeval._install import needs_extra

        raise ImportError(needs_extra("reading PASCAL-50S .mat files (scipy)", "stats")) from exc
    try:
        data = loadmat(os.fspath(path))
    except Exception as exc:  # noqa: BLE001 - scipy raises several types for a corrupt file
        raise ValueError(f"{path}: not a readable MATLAB .mat file ({exc})") from None
    missing = [k for k in keys if k not in data]
    if missing:
        raise ValueError(f"{path}: missing variable(s) {', '.join(missing)}")
    return data


def load_pascal50s(pairs: PathLike, consensus: PathLike, *, n_references: int | None = None) -> PairwiseJudgments:
    """PASCAL-50S pairs, categories, human votes and references from the CIDEr release.

    Args:
        pairs: ``pair_pascal.mat`` (``new_input``, ``category``).
        consensus: ``consensus_pascal.mat`` (``triplets``: 48 per pair, in pair order).
        n_references: Keep the first ``n`` references of each pair (default: all 48 triplet
            references; papers use 5 or 48).

    Returns:
        :class:`PairwiseJudgments` (votes counted from the triplets).

    Raises:
        ValueError: on missing variables, a triplet count that is not 48 per pair, a triplet
            whose captions do not match its pair, or an unknown category.
    """
    mat = _loadmat(pairs, ["new_input", "category"])
    entries = np.asarray(mat["new_input"]).reshape(-1)
    categories = np.asarray(mat["category"]).reshape(-1)
    if entries.size != categories.size:
        raise ValueError(f"{pairs}: {entries.size} pairs but {categories.size} categories")
    triplets = np.asarray(_loadmat(consensus, ["triplets"])["triplets"]).reshape(-1)
    per_pair = PASCAL50S_VOTES_PER_PAIR
    if triplets.size != entries.size * per_pair:
        raise ValueError(
            f"{consensus}: {triplets.size} triplets for {entries.size} pairs; expected {per_pair} per pair"
        )
    images, cand_a, cand_b, refs, cats, votes_a, votes_b = [], [], [], [], [], [], []
    for i, entry in enumerate(entries):
        fields = _mat_record(entry)
        if len(fields) != 3:
            raise ValueError(f"{pairs}: pair {i} has {len(fields)} fields, expected image, caption A, caption B")
        image, a, b = (str(f).strip() for f in fields)
        code = int(_mat_scalar(categories[i]))
        if code not in PASCAL50S_CATEGORIES:
            raise ValueError(f"{pairs}: pair {i} has unknown category {code}")
        va = vb = 0
        pair_refs = []
        for j in range(i * per_pair, (i + 1) * per_pair):
            t = _mat_record(triplets[j])
            if len(t) != 4:
                raise ValueError(f"{consensus}: triplet {j} has {len(t)} fields, expected 4")
            ref, ta, tb, winner = str(t[0]).strip(), str(t[1]).strip(), str(t[2]).strip(), int(t[3])
            if {ta, tb} != {a, b}:
                raise ValueError(f"{consensus}: triplet {j} does not compare the captions of pair {i}")
            if winner not in (1, -1):
                raise ValueError(f"{consensus}: triplet {j} has winner {winner}, expected 1 or -1")
            chosen = ta if winner == 1 else tb
            if chosen == a:
                va += 1
            else:
                vb += 1
            pair_refs.append(ref)
        images.append(image)
        cand_a.append(a)
        cand_b.append(b)
        refs.append(tuple(pair_refs[:n_references] if n_references else pair_refs))
        cats.append(PASCAL50S_CATEGORIES[code])
        votes_a.append(va)
        votes_b.append(vb)
    return PairwiseJudgments(
        tuple(images),
        tuple(cand_a),
        tuple(cand_b),
        tuple(refs),
        tuple(cats),
        np.asarray(votes_a, float),
        np.asarray(votes_b, float),
    )


def _composite_image_id(url: str) -> str:
    """Image id from a COMPOSITE image URL: the file name without directory and extension."""
    name = url.rstrip("/").rsplit("/", 1)[-1]
    return re.sub(r"\.(jpg|jpeg|png)$", "", name, flags=re.IGNORECASE)


def load_composite(
    path: PathLike,
    references: Mapping[str, Sequence[str]],
    *,
    n_captions: int | None = None,
    url_column: int = COMPOSITE_URL_COLUMN,
    delimiter: str = ";",
) -> HumanJudgments:
    """A COMPOSITE ``*_correctness.csv`` (or thoroughness) file.

    Args:
        path: The CSV file (header line first).
        references: ``image id -> reference captions``; image ids are URL file names without
            extension (``"COCO_val2014_000000000042"``, ``"1000092795"``).
        n_captions: Candidates per row; default from the file name (8k: 3, 30k and coco: 4).
        url_column: Column of the image URL.
        delimiter: Field separator.

    Returns:
        :class:`HumanJudgments` (one item per candidate caption; ``ids`` ``"<image>/<n>"``).

    Raises:
        ValueError: on a non-numeric rating or an image without references. Rows without an
            image URL (the summary lines at the end of the released files) are skipped with a
            warning.
    """
    if n_captions is None:
        stem = Path(path).name.split("_")[0].lower()
        if stem not in COMPOSITE_CAPTIONS:
            raise ValueError(f"{path}: cannot infer captions per row from the file name; pass n_captions")
        n_captions = COMPOSITE_CAPTIONS[stem]
    ids, images, cands, refs, ratings = [], [], [], [], []
    skipped = 0
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter=delimiter))
    if len(rows) < 2:
        raise ValueError(f"{path}: no data rows")
    need = url_column + 1 + 2 * n_captions
    for number, row in enumerate(rows[1:], 2):
        where = f"{path}:{number}"
        if len(row) < need or not row[url_column].strip():
            skipped += 1
            continue
        image = _composite_image_id(row[url_column].strip())
        if image not in references:
            raise ValueError(f"{where}: image {image!r} has no references")
        for i in range(n_captions):
            caption = row[url_column + 1 + i].strip()
            rating = _number(row[url_column + 1 + n_captions + i], where, f"rating {i + 1}")
            ids.append(f"{image}/{i}")
            images.append(image)
            cands.append(caption)
            refs.append(tuple(references[image]))
            ratings.append([rating])
    if skipped:
        log.warning("%s: skipped %d row(s) without an image URL or with too few fields", path, skipped)
    if not ids:
        raise ValueError(f"{path}: no judgments")
    return _judgments(f"composite-{Path(path).stem}", ids, images, cands, refs, ratings)


def load_coco_captions(path: PathLike) -> dict[int, list[str]]:
    """``image id -> captions`` from a COCO captions file, images in ``images`` order, captions in file order.

    The file is read by :func:`capeval.io.read_references` (the rules of every caption file).

    Raises:
        ValueError: (:class:`capeval.io.CaptionFileError`) naming the file and the annotation.
    """
    captions = read_references(path)
    if not all(isinstance(image_id, int) for image_id in captions):
        raise ValueError(f"{path}: expected integer COCO image ids")
    return cast(dict[int, list[str]], captions)
