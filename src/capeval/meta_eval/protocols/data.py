"""Readers for the meta-evaluation files exactly as their authors distribute them.

Each function takes the directory holding the files under their distributed names and
returns the items of one published protocol. A missing file raises ``FileNotFoundError``
naming the file and where it comes from; a malformed file raises ``ValueError`` naming the
file and the line, record or variable.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from capeval.meta_eval import datasets as loaders
from capeval.meta_eval.correlation import FloatArray
from capeval.meta_eval.datasets import HumanJudgments, VotedPairs
from capeval.meta_eval.pairwise import PASCAL50S_CATEGORIES

__all__ = [
    "FILE_SOURCES",
    "FoilPairs",
    "draw_references",
    "Pascal50S",
    "flickr8k_cf",
    "flickr8k_cf_files",
    "flickr8k_expert",
    "flickr8k_expert_files",
    "load_clipscore_json",
    "load_composite_protocol",
    "load_foil",
    "load_pascal50s_distributed",
    "load_pascal50s_votes",
    "require",
]

PathLike = str | os.PathLike[str]

#: Where each distributed file comes from (shown when it is missing).
FILE_SOURCES = {
    "ExpertAnnotations.txt": "Flickr8K (Hodosh et al. 2013), Flickr8k_text.zip",
    "CrowdFlowerAnnotations.txt": "Flickr8K (Hodosh et al. 2013), Flickr8k_text.zip",
    "Flickr8k.token.txt": "Flickr8K (Hodosh et al. 2013), Flickr8k_text.zip",
    "pair_pascal.mat": "PASCAL-50S, the CIDEr authors' release (github.com/vrama91/cider-matlab, data/)",
    "pascal50S.mat": "PASCAL-50S, the CIDEr authors' release (github.com/vrama91/cider-matlab, data/)",
    "8k_correctness.csv": "COMPOSITE (Aditya et al. 2015), the dataset's release",
    "30k_correctness.csv": "COMPOSITE (Aditya et al. 2015), the dataset's release",
    "coco_correctness.csv": "COMPOSITE (Aditya et al. 2015), the dataset's release",
    "results_20130124.token": "Flickr30K captions (Young et al. 2014)",
    "captions_val2014.json": "MS COCO 2014 captions (cocodataset.org, annotations_trainval2014.zip)",
    "mscoco_THumB-1.0.jsonl": "THumB 1.0 (Kasai et al. 2022), github.com/jungokasai/THumB, mscoco/",
    "mscoco_references.json": "THumB 1.0 (Kasai et al. 2022), github.com/jungokasai/THumB, mscoco/",
    "foilv1.0_test_2017.json": "FOIL-COCO (Shekhar et al. 2017), the FOIL release",
}


def require(data_dir: PathLike, name: str) -> Path:
    """``data_dir / name``, or ``FileNotFoundError`` naming the file and its source."""
    path = Path(data_dir) / name
    if not path.is_file():
        source = FILE_SOURCES.get(name, "")
        raise FileNotFoundError(f"{path}: missing file {name}" + (f" (from {source})" if source else ""))
    return path


def _caption_id(item_id: Hashable) -> str:
    return str(item_id).split("/", 1)[1]


def _image_of(caption_id: str) -> str:
    return caption_id.split("#", 1)[0]


def flickr8k_expert(data_dir: PathLike) -> HumanJudgments:
    """Flickr8K-Expert in the protocol of the CLIPScore and PAC-S tables, from ``data_dir``.

    ``ExpertAnnotations.txt`` with ``Flickr8k.token.txt``; see :func:`flickr8k_expert_files`.
    """
    return flickr8k_expert_files(require(data_dir, "ExpertAnnotations.txt"), require(data_dir, "Flickr8k.token.txt"))


def flickr8k_expert_files(annotations: PathLike, tokens: PathLike) -> HumanJudgments:
    """Flickr8K-Expert in the protocol of the CLIPScore and PAC-S tables.

    An item whose candidate text is one of the judged image's own captions is dropped (158 of
    5,822 on the full set), so that every remaining item has the image's 5 captions as
    references (5,664 items, 16,992 ratings). Captions are compared as text, as the published
    preprocessing does.
    """
    judgments = loaders.load_flickr8k(annotations, tokens, kind="expert", exclude_candidate=False)
    keep = [
        i
        for i, (cand, refs) in enumerate(zip(judgments.candidates, judgments.references, strict=True))
        if cand not in refs
    ]
    if not keep:
        raise ValueError(f"{annotations}: no candidate from another image")
    return dataclasses.replace(judgments.select(keep), name="flickr8k-expert")


def flickr8k_cf(data_dir: PathLike) -> HumanJudgments:
    """Flickr8K-CF in the protocol of the CLIPScore and PAC-S tables, from ``data_dir``.

    ``CrowdFlowerAnnotations.txt`` with ``Flickr8k.token.txt``; see :func:`flickr8k_cf_files`.
    """
    return flickr8k_cf_files(require(data_dir, "CrowdFlowerAnnotations.txt"), require(data_dir, "Flickr8k.token.txt"))


def flickr8k_cf_files(annotations: PathLike, tokens_path: PathLike) -> HumanJudgments:
    """Flickr8K-CF in the protocol of the CLIPScore and PAC-S tables.

    Every judgment is an item (rating = fraction of "yes"). The references of every item of
    an image are that image's captions minus every caption judged for the image anywhere in
    the file: going through the judgments in file order, one caption with the judged text is
    removed each time (text comparison, as the published preprocessing does).
    """
    judgments = loaders.load_flickr8k(annotations, tokens_path, kind="crowdflower", exclude_candidate=False)
    remaining: dict[Hashable, list[str]] = {}
    for image, cand, refs in zip(judgments.image_ids, judgments.candidates, judgments.references, strict=True):
        pool = remaining.setdefault(image, list(refs))
        if cand in pool:
            pool.remove(cand)
    for image, pool in remaining.items():
        if not pool:
            raise ValueError(f"{tokens_path}: every caption of image {image!r} is judged; no reference is left")
    references = tuple(tuple(remaining[image]) for image in judgments.image_ids)
    return dataclasses.replace(judgments, name="flickr8k-cf", references=references)


@dataclass(frozen=True)
class Pascal50S(VotedPairs):
    """PASCAL-50S pairs with their human votes and the image's reference pool.

    Attributes:
        image_ids: Image of each pair.
        candidates_a: First caption (``sent1``).
        candidates_b: Second caption (``sent2``).
        categories: ``HC``, ``HI``, ``HM`` or ``MM``.
        votes_a: Votes for A (``+1`` entries of ``result``).
        votes_b: Votes for B (``-1`` entries).
        pools: Per pair, the image's sentences other than the two candidates (48 on the release).
        vote_source: Where the votes come from.
    """

    image_ids: tuple[str, ...]
    candidates_a: tuple[str, ...]
    candidates_b: tuple[str, ...]
    categories: tuple[str, ...]
    votes_a: FloatArray
    votes_b: FloatArray
    pools: tuple[tuple[str, ...], ...]
    vote_source: str

    def draw(self, n: int, rng: np.random.Generator) -> tuple[tuple[str, ...], ...]:
        """``n`` references per pair drawn without replacement from its pool (see :func:`draw_references`)."""
        return draw_references(self.pools, n, rng)


def draw_references(pools: Sequence[Sequence[str]], n: int, rng: np.random.Generator) -> tuple[tuple[str, ...], ...]:
    """``n`` references per item drawn at random without replacement, kept in pool order.

    An item whose pool has at most ``n`` references (or ``n`` = 0) keeps them all. Draws
    follow the items in order from one generator, so a seed fixes every item's draw.

    Example:
        >>> draw_references([("a", "b", "c"), ("d",)], 2, np.random.default_rng(0))
        (('b', 'c'), ('d',))
    """
    out = []
    for pool in pools:
        if n <= 0 or n >= len(pool):
            out.append(tuple(pool))
        else:
            pick = np.sort(rng.choice(len(pool), size=n, replace=False))
            out.append(tuple(pool[i] for i in pick))
    return tuple(out)


def _votes(entry: Any, where: str) -> tuple[int, int]:
    values = entry
    while isinstance(values, (np.void, np.ndarray)) and (
        isinstance(values, np.void) or values.dtype == object or values.dtype.names
    ):
        if isinstance(values, np.void) or values.dtype.names:
            values = values.reshape(-1)[0] if isinstance(values, np.ndarray) else values[0]
        elif values.size == 1:
            values = values.reshape(-1)[0]
        else:
            break
    try:
        votes = np.asarray(values, dtype=np.int64).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: votes are not numbers") from None
    if votes.size == 0 or not np.isin(votes, (1, -1)).all():
        raise ValueError(f"{where}: votes must be +1 (first caption) or -1 (second caption)")
    return int(np.sum(votes == 1)), int(np.sum(votes == -1))


def load_pascal50s_distributed(data_dir: PathLike) -> Pascal50S:
    """PASCAL-50S from ``data_dir`` (``pair_pascal.mat``, ``pascal50S.mat``); see :func:`load_pascal50s_votes`."""
    return load_pascal50s_votes(require(data_dir, "pair_pascal.mat"), require(data_dir, "pascal50S.mat"))


def load_pascal50s_votes(pairs_path: PathLike, refs_path: PathLike) -> Pascal50S:
    """``pair_pascal.mat`` (pairs, categories, ``result`` votes) and ``pascal50S.mat`` (50 sentences per image).

    The votes are the ~11 human judgments per pair that ``pair_pascal.mat`` holds in ``result``.
    A pair's reference pool is its image's sentences without the pair's two captions.

    Raises:
        FileNotFoundError: a missing file. ValueError: a missing variable, a malformed entry,
        an unknown category, or a pair whose image has no sentences (each naming the file).
    """
    mat = loaders._loadmat(pairs_path, ["new_input", "category", "result"])
    entries = np.asarray(mat["new_input"]).reshape(-1)
    codes = np.asarray(mat["category"]).reshape(-1)
    results = np.asarray(mat["result"]).reshape(-1)
    if not entries.size == codes.size == results.size:
        raise ValueError(
            f"{pairs_path}: {entries.size} pairs, {codes.size} categories and {results.size} vote lists differ"
        )
    refs_mat = loaders._loadmat(refs_path, ["refs"])
    sentences: dict[str, tuple[str, ...]] = {}
    for k, record in enumerate(np.asarray(refs_mat["refs"]).reshape(-1)):
        try:
            image = str(loaders._mat_scalar(record["image"])).strip()
            sents = tuple(str(loaders._mat_scalar(s)).strip() for s in np.asarray(record["sent"]).reshape(-1))
        except (ValueError, KeyError, IndexError) as exc:
            raise ValueError(f"{refs_path}: refs entry {k} is malformed ({exc})") from None
        sentences[image] = tuple(s for s in sents if s)
    images, cand_a, cand_b, cats, votes_a, votes_b, pools = [], [], [], [], [], [], []
    for i, entry in enumerate(entries):
        fields = loaders._mat_record(entry)
        if len(fields) != 3:
            raise ValueError(f"{pairs_path}: pair {i} has {len(fields)} fields, expected image, sent1, sent2")
        image, a, b = (str(f).strip() for f in fields)
        code = int(loaders._mat_scalar(codes[i]))
        if code not in PASCAL50S_CATEGORIES:
            raise ValueError(f"{pairs_path}: pair {i} has unknown category {code}")
        if image not in sentences:
            raise ValueError(f"{refs_path}: no sentences for image {image!r} (pair {i} of {pairs_path})")
        va, vb = _votes(results[i], f"{pairs_path}: result of pair {i}")
        images.append(image)
        cand_a.append(a)
        cand_b.append(b)
        cats.append(PASCAL50S_CATEGORIES[code])
        votes_a.append(va)
        votes_b.append(vb)
        pools.append(tuple(s for s in sentences[image] if s not in (a, b)))
    return Pascal50S(
        tuple(images),
        tuple(cand_a),
        tuple(cand_b),
        tuple(cats),
        np.asarray(votes_a, float),
        np.asarray(votes_b, float),
        tuple(pools),
        "majority of the human votes in pair_pascal.mat 'result' (about 11 per pair)",
    )


#: COMPOSITE files and the captions file each one's references come from.
COMPOSITE_FILES = {
    "8k_correctness.csv": "Flickr8k.token.txt",
    "30k_correctness.csv": "results_20130124.token",
    "coco_correctness.csv": "captions_val2014.json",
}


def _token_references(path: Path) -> dict[str, list[str]]:
    """``image stem -> captions`` from a Flickr ``<image>#<n>\\t<caption>`` file."""
    out: dict[str, list[str]] = {}
    for key, caption in loaders.load_flickr8k_tokens(path).items():
        out.setdefault(Path(_image_of(key)).stem, []).append(caption)
    return out


def _coco_references(path: Path) -> dict[str, list[str]]:
    return {f"COCO_val2014_{int(k):012d}": v for k, v in loaders.load_coco_captions(path).items()}


def load_composite_protocol(data_dir: PathLike) -> HumanJudgments:
    """COMPOSITE correctness ratings of every ``*_correctness.csv`` present, with their references.

    References: Flickr8K captions for ``8k``, Flickr30K for ``30k`` and COCO val2014 for ``coco``.

    Raises:
        FileNotFoundError: when no correctness file is present, or one's captions file is missing.
    """
    present = [name for name in COMPOSITE_FILES if (Path(data_dir) / name).is_file()]
    if not present:
        raise FileNotFoundError(
            f"{data_dir}: no COMPOSITE file ({', '.join(COMPOSITE_FILES)}; from {FILE_SOURCES['8k_correctness.csv']})"
        )
    parts = []
    for name in present:
        captions = require(data_dir, COMPOSITE_FILES[name])
        refs = _coco_references(captions) if captions.suffix == ".json" else _token_references(captions)
        parts.append(loaders.load_composite(Path(data_dir) / name, refs))
    merged = parts[0]
    for part in parts[1:]:
        merged = HumanJudgments(
            "composite",
            merged.ids + part.ids,
            merged.image_ids + part.image_ids,
            merged.candidates + part.candidates,
            merged.references + part.references,
            np.vstack([merged.ratings, part.ratings]),
        )
    return dataclasses.replace(merged, name="composite")


@dataclass(frozen=True)
class FoilPairs:
    """FOIL-COCO pairs: an original COCO caption and its one-word-changed ("foil") version.

    Attributes:
        image_ids: COCO image of each pair.
        originals: The original caption.
        foils: The foil caption.
        pools: COCO references of the image without the original caption, in file order.
    """

    image_ids: tuple[int, ...]
    originals: tuple[str, ...]
    foils: tuple[str, ...]
    pools: tuple[tuple[str, ...], ...]

    def __len__(self) -> int:
        return len(self.image_ids)


def _norm(caption: str) -> str:
    return " ".join(caption.lower().replace(".", " ").split())


def load_foil(data_dir: PathLike, *, foil_file: str = "foilv1.0_test_2017.json") -> FoilPairs:
    """FOIL-COCO test pairs with COCO references.

    ``foilv1.0_test_2017.json`` is COCO-style: ``annotations`` with ``id``, ``image_id``,
    ``caption`` and ``foil`` (true for the changed caption). Annotations sharing an ``id``
    form a pair (one original, one or more foils: one pair per foil). References come from
    ``captions_val2014.json``: the image's captions except the original.

    Raises:
        FileNotFoundError: a missing file. ValueError: a malformed annotation (naming its
        index), an id without an original, or an image without references.
    """
    path = require(data_dir, foil_file)
    coco = loaders.load_coco_captions(require(data_dir, "captions_val2014.json"))
    from capeval.io import decode_json

    # The JSON decoding every caption file goes through (byte-order mark, UTF-8 and size limits);
    # the FOIL annotations themselves are checked below.
    data = decode_json(Path(path).read_bytes(), name=str(path))
    annotations = data.get("annotations") if isinstance(data, dict) else None
    if not isinstance(annotations, list):
        raise ValueError(f"{path}: expected a FOIL-COCO file with an 'annotations' list")
    groups: dict[Any, dict[str, Any]] = {}
    for k, ann in enumerate(annotations):
        if (
            not isinstance(ann, dict)
            or not isinstance(ann.get("caption"), str)
            or not isinstance(ann.get("foil"), bool)
            or "id" not in ann
            or "image_id" not in ann
        ):
            raise ValueError(f"{path}: annotation {k} needs 'id', 'image_id', a string 'caption' and a boolean 'foil'")
        if not ann["caption"].strip():
            raise ValueError(f"{path}: annotation {k} has an empty caption")
        group = groups.setdefault(ann["id"], {"image": ann["image_id"], "original": None, "foils": []})
        if group["image"] != ann["image_id"]:
            raise ValueError(f"{path}: annotation {k} (id {ann['id']}) is on another image than its pair")
        if ann["foil"]:
            group["foils"].append(ann["caption"].strip())
        elif group["original"] is None:
            group["original"] = ann["caption"].strip()
        else:
            raise ValueError(f"{path}: annotation {k}: id {ann['id']} has two original captions")
    images, originals, foils, pools = [], [], [], []
    for key, group in groups.items():
        if not group["foils"]:
            continue
        if group["original"] is None:
            raise ValueError(f"{path}: id {key} has foil captions but no original")
        image = group["image"]
        if image not in coco:
            raise ValueError(f"{path}: image {image} of id {key} has no captions in captions_val2014.json")
        original = group["original"]
        pool = tuple(c.strip() for c in coco[image] if _norm(c) != _norm(original))
        if not pool:
            raise ValueError(f"captions_val2014.json: image {image} has no caption besides the original")
        for foil in group["foils"]:
            images.append(image)
            originals.append(original)
            foils.append(foil)
            pools.append(pool)
    if not images:
        raise ValueError(f"{path}: no foil pairs")
    return FoilPairs(tuple(images), tuple(originals), tuple(foils), tuple(pools))


def thumb_files(data_dir: PathLike) -> tuple[Path, Path]:
    """The THumB judgments and references files."""
    return require(data_dir, "mscoco_THumB-1.0.jsonl"), require(data_dir, "mscoco_references.json")


def load_clipscore_json(path: PathLike) -> HumanJudgments:
    """A judgments file in the JSON layout of the CLIPScore evaluation code (``flickr8k.json``, ...).

    The file is an object ``key -> {"image_path", "ground_truth": [references],
    "human_judgement": [{"caption", "rating"}, ...]}``. Every rating is one row, as in that
    code; ratings of the same caption of the same entry are grouped into one item (its ratings
    padded with NaN), so each caption is scored once. Whitespace in captions is collapsed, as
    the CLIPScore code does; NaN ratings are skipped.

    Raises:
        ValueError: naming the entry of a malformed record, for text that is not UTF-8 or JSON.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: invalid JSON ({exc.msg} at line {exc.lineno})") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc})") from None
    if not isinstance(data, dict) or not data:
        raise ValueError(f"{path}: expected a non-empty JSON object of entries")
    groups: dict[tuple[str, str], list[float]] = {}
    meta: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}
    for key, entry in data.items():
        where = f"{path}: entry {key!r}"
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: expected an object")
        refs = entry.get("ground_truth")
        judgements = entry.get("human_judgement")
        if not isinstance(refs, list) or not refs or not all(isinstance(r, str) and r.strip() for r in refs):
            raise ValueError(f"{where}: 'ground_truth' must be a non-empty list of captions")
        if not isinstance(judgements, list):
            raise ValueError(f"{where}: 'human_judgement' must be a list")
        references = tuple(" ".join(r.split()) for r in refs)
        for k, judgement in enumerate(judgements):
            if not isinstance(judgement, dict) or not isinstance(judgement.get("caption"), str):
                raise ValueError(f"{where}: human_judgement {k} needs a string 'caption' and a 'rating'")
            rating = judgement.get("rating")
            if isinstance(rating, bool) or not isinstance(rating, (int, float)):
                raise ValueError(f"{where}: human_judgement {k} has a rating that is not a number ({rating!r})")
            caption = " ".join(judgement["caption"].split())
            if not caption:
                raise ValueError(f"{where}: human_judgement {k} has an empty caption")
            if np.isnan(rating):
                continue
            groups.setdefault((str(key), caption), []).append(float(rating))
            meta[(str(key), caption)] = (str(entry.get("image_path", key)), references)
    if not groups:
        raise ValueError(f"{path}: no ratings")
    width = max(len(v) for v in groups.values())
    ratings = np.full((len(groups), width), np.nan)
    for i, values in enumerate(groups.values()):
        ratings[i, : len(values)] = values
    keys = list(groups)
    return HumanJudgments(
        Path(path).stem,
        tuple(f"{k}/{n}" for n, (k, _) in enumerate(keys)),
        tuple(meta[k][0] for k in keys),
        tuple(c for _, c in keys),
        tuple(meta[k][1] for k in keys),
        ratings,
    )
