"""Reading and validating caption files; no metric logic.

Accepted shapes (JSON, or JSON Lines with one object per line):

* candidates (results): the COCO results list ``[{"image_id": ..., "caption": ...}]``, a plain
  ``{id: caption}`` or ``{id: [caption]}`` mapping, or JSON Lines of ``{"image_id", "caption"}``;
* references: a COCO captions file (``{"images": [...], "annotations": [...]}``), a plain
  ``{id: [captions]}`` mapping, or JSON Lines of ``{"image_id", "caption"}`` (one line per
  reference) or ``{"image_id", "captions": [...]}``.

Every problem is reported as a :class:`CaptionFileError` naming the file, the image id or
position, and what is wrong. Nothing is dropped or realigned silently: each caption stays
attached to its image id from the moment it is read. (The official evaluation writes all
captions of a set into one text stream, one per line, so a caption containing ``\\r``,
``\\u2028``, ``\\u2029``, ``\\x0b`` or ``\\x0c`` shifts every later caption onto the wrong image;
capeval keeps such captions on their own image, see :mod:`capeval.tokenizers.ptb`.)

Image ids are matched between files by their JSON value, with integers and their decimal
strings treated as the same id (``391895`` and ``"391895"``), since plain JSON mappings can
only have string keys.
"""

from __future__ import annotations

import json
import logging
import math
import os
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CaptionFileError",
    "Corpus",
    "align",
    "json_safe",
    "load_corpus",
    "read_candidates",
    "read_references",
    "write_json",
]

log = logging.getLogger("capeval")

ImageId = Hashable
PathLike = str | os.PathLike[str]

#: Longest caption accepted, in characters; far beyond any real caption, it stops a
#: runaway file from being scored as one caption.
MAX_CAPTION_CHARS = 100_000


class CaptionFileError(ValueError):
    """A caption file is malformed; the message names the file, the item and the problem."""


@dataclass(frozen=True)
class Corpus:
    """Aligned candidates and references: item ``i`` is image ``ids[i]``.

    Attributes:
        ids: Image ids, in evaluation order.
        candidates: One candidate caption per item.
        references: The reference captions of each item (item-major).
    """

    ids: tuple[ImageId, ...]
    candidates: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]

    def __post_init__(self) -> None:
        if not len(self.ids) == len(self.candidates) == len(self.references):
            raise ValueError(
                f"corpus is misaligned: {len(self.ids)} ids, {len(self.candidates)} candidates, "
                f"{len(self.references)} reference lists"
            )

    def __len__(self) -> int:
        return len(self.ids)

    def subset(self, indices: Iterable[int]) -> Corpus:
        """The items at ``indices``, in that order."""
        idx = list(indices)
        return Corpus(
            tuple(self.ids[i] for i in idx),
            tuple(self.candidates[i] for i in idx),
            tuple(self.references[i] for i in idx),
        )


def _id_key(value: Any) -> str:
    """Canonical matching key of an image id (ints and their decimal strings coincide)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError(type(value).__name__)
    return str(value)


def _load(path: PathLike) -> tuple[Any, bool]:
    """Parse JSON or JSON Lines; return ``(data, is_jsonl)``. Raises CaptionFileError."""
    name = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise CaptionFileError(f"{name}: cannot read file ({exc.strerror or exc})") from None
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CaptionFileError(
            f"{name}: not valid UTF-8 at byte {exc.start} ({raw[exc.start : exc.start + 1]!r}); save the file as UTF-8"
        ) from None
    if not text.strip():
        raise CaptionFileError(f"{name}: file is empty")
    jsonl = name.endswith((".jsonl", ".ndjson"))
    if not jsonl:
        try:
            return json.loads(text), False
        except json.JSONDecodeError as exc:
            # A file of several JSON objects, one per line, is JSON Lines whatever its name.
            first_line = text.lstrip().split("\n", 1)[0]
            try:
                json.loads(first_line)
                looks_jsonl = "\n" in text.strip() and first_line.strip().startswith("{")
            except json.JSONDecodeError:
                looks_jsonl = False
            if not looks_jsonl:
                raise CaptionFileError(
                    f"{name}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
                ) from None
    rows = []
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            rows.append((lineno, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise CaptionFileError(f"{name}: invalid JSON on line {lineno}, column {exc.colno}: {exc.msg}") from None
    return rows, True


def _check_caption(name: str, where: str, caption: Any, role: str, *, allow_empty: bool = False) -> str:
    if not isinstance(caption, str):
        raise CaptionFileError(f"{name}: {where}: {role} must be a string, got {type(caption).__name__}")
    if not allow_empty and not caption.strip():
        raise CaptionFileError(f"{name}: {where}: {role} is empty")
    if len(caption) > MAX_CAPTION_CHARS:
        raise CaptionFileError(
            f"{name}: {where}: {role} is {len(caption):,} characters long (limit {MAX_CAPTION_CHARS:,})"
        )
    return caption


def _check_id(name: str, where: str, value: Any) -> str:
    try:
        return _id_key(value)
    except TypeError:
        raise CaptionFileError(
            f"{name}: {where}: image id must be an integer or a string, got {type(value).__name__} {value!r}"
        ) from None


def _parse_id(key: str) -> ImageId:
    """Mapping keys are strings in JSON; present decimal ones as ints (COCO ids are ints)."""
    if key.isdigit() and (key == "0" or not key.startswith("0")):
        return int(key)
    return key


def read_candidates(path: PathLike) -> dict[ImageId, str]:
    """Read candidate captions: exactly one per image id.

    Raises:
        CaptionFileError: on unreadable, non-UTF-8 or invalid JSON, a wrong shape, a
            missing/invalid image id, a non-string or over-long caption, or two
            captions for one image id.
    """
    name = os.fspath(path)
    data, jsonl = _load(path)
    out: dict[ImageId, str] = {}
    seen: dict[str, str] = {}

    def add(where: str, image_id: Any, caption: Any) -> None:
        key = _check_id(name, where, image_id)
        # Empty candidates are scored (as the official code scores them); the scorer warns about them.
        caption = _check_caption(name, f"{where} (image id {image_id!r})", caption, "caption", allow_empty=True)
        if key in seen:
            raise CaptionFileError(
                f"{name}: {where}: duplicate result for image id {image_id!r} (first given at {seen[key]}); "
                "give exactly one caption per image"
            )
        seen[key] = where
        out[image_id if not isinstance(image_id, str) else _parse_id(image_id)] = caption

    if jsonl:
        for lineno, row in data:
            where = f"line {lineno}"
            if not isinstance(row, dict) or "caption" not in row or "image_id" not in row:
                raise CaptionFileError(f'{name}: {where}: expected an object with "image_id" and "caption"')
            add(where, row["image_id"], row["caption"])
    elif isinstance(data, list):
        for index, row in enumerate(data):
            where = f"entry {index}"
            if not isinstance(row, dict):
                raise CaptionFileError(
                    f'{name}: {where}: expected an object {{"image_id": ..., "caption": ...}}, got {type(row).__name__}'
                )
            missing = [k for k in ("image_id", "caption") if k not in row]
            if missing:
                raise CaptionFileError(f"{name}: {where}: missing {' and '.join(repr(k) for k in missing)}")
            add(where, row["image_id"], row["caption"])
    elif isinstance(data, dict):
        if "annotations" in data:
            raise CaptionFileError(
                f"{name}: this is a COCO annotations (references) file; candidates must be a results list "
                '[{"image_id": ..., "caption": ...}]'
            )
        for key, value in data.items():
            where = f"key {key!r}"
            if isinstance(value, list):
                if len(value) != 1:
                    raise CaptionFileError(f"{name}: {where}: expected exactly one candidate caption, got {len(value)}")
                value = value[0]
            add(where, key, value)
    else:
        raise CaptionFileError(
            f"{name}: expected a COCO results list or an {{id: caption}} object, got {type(data).__name__}"
        )
    if not out:
        raise CaptionFileError(f"{name}: no captions found")
    return out


def read_references(path: PathLike) -> dict[ImageId, list[str]]:
    """Read reference captions: one or more per image id, in file order.

    For COCO annotation files the images appear in the order of the ``images`` list (the
    order the official evaluation uses), each with its annotations in file order.

    Raises:
        CaptionFileError: as :func:`read_candidates`, plus annotations for unknown images.
    """
    name = os.fspath(path)
    data, jsonl = _load(path)
    out: dict[ImageId, list[str]] = {}
    keys: dict[str, ImageId] = {}

    def slot(where: str, image_id: Any) -> list[str]:
        key = _check_id(name, where, image_id)
        if key not in keys:
            parsed = image_id if not isinstance(image_id, str) else _parse_id(image_id)
            keys[key] = parsed
            out[parsed] = []
        return out[keys[key]]

    if jsonl:
        for lineno, row in data:
            where = f"line {lineno}"
            if not isinstance(row, dict) or "image_id" not in row:
                raise CaptionFileError(f'{name}: {where}: expected an object with "image_id" and "caption(s)"')
            if "captions" in row:
                caps = row["captions"]
                if not isinstance(caps, list):
                    raise CaptionFileError(f'{name}: {where}: "captions" must be a list of strings')
            elif "caption" in row:
                caps = [row["caption"]]
            else:
                raise CaptionFileError(f'{name}: {where}: missing "caption" or "captions"')
            target = slot(where, row["image_id"])
            for j, cap in enumerate(caps):
                target.append(_check_caption(name, f"{where} (image id {row['image_id']!r})", cap, f"reference {j}"))
    elif isinstance(data, dict) and "annotations" in data:
        images, annotations = data.get("images"), data["annotations"]
        if not isinstance(annotations, list):
            raise CaptionFileError(f'{name}: "annotations" must be a list')
        if images is not None:
            if not isinstance(images, list):
                raise CaptionFileError(f'{name}: "images" must be a list')
            for index, image in enumerate(images):
                if not isinstance(image, dict) or "id" not in image:
                    raise CaptionFileError(f'{name}: images[{index}]: expected an object with an "id"')
                slot(f"images[{index}]", image["id"])
        known = set(keys)
        for index, ann in enumerate(annotations):
            where = f"annotations[{index}]"
            if not isinstance(ann, dict):
                raise CaptionFileError(f"{name}: {where}: expected an object, got {type(ann).__name__}")
            missing = [k for k in ("image_id", "caption") if k not in ann]
            if missing:
                raise CaptionFileError(f"{name}: {where}: missing {' and '.join(repr(k) for k in missing)}")
            key = _check_id(name, where, ann["image_id"])
            if images is not None and key not in known:
                raise CaptionFileError(f'{name}: {where}: image id {ann["image_id"]!r} is not in "images"')
            slot(where, ann["image_id"]).append(
                _check_caption(name, f"{where} (image id {ann['image_id']!r})", ann["caption"], "caption")
            )
        for image_id in [i for i, caps in out.items() if not caps]:
            del out[image_id]  # images without captions cannot be references; reported if scored
    elif isinstance(data, dict):
        for key, value in data.items():
            where = f"key {key!r}"
            caps = [value] if isinstance(value, str) else value
            if not isinstance(caps, list):
                raise CaptionFileError(
                    f"{name}: {where}: expected a list of reference captions, got {type(value).__name__}"
                )
            target = slot(where, key)
            for j, cap in enumerate(caps):
                target.append(_check_caption(name, where, cap, f"reference {j}"))
    else:
        raise CaptionFileError(
            f"{name}: expected a COCO captions file or an {{id: [captions]}} object, got {type(data).__name__}"
        )
    empty = [i for i, caps in out.items() if not caps]
    if empty:
        raise CaptionFileError(f"{name}: image id {empty[0]!r} has no reference captions")
    if not out:
        raise CaptionFileError(f"{name}: no reference captions found")
    return out


def align(
    candidates: Mapping[ImageId, str],
    references: Mapping[ImageId, Sequence[str]],
    *,
    require_all: bool = False,
    candidates_name: str = "candidates",
    references_name: str = "references",
) -> Corpus:
    """Pair each candidate with its references.

    The items are the images that have a candidate, ordered as in ``references`` (so a COCO
    annotation file fixes the order the official evaluation uses).

    Args:
        candidates: Image id -> candidate caption.
        references: Image id -> reference captions.
        require_all: Also fail when some reference images have no candidate.

    Raises:
        CaptionFileError: when a candidate's image has no references (or, with
            ``require_all``, a reference image has no candidate).
    """
    cand_keys = {_id_key(k): k for k in candidates}
    ref_keys = {_id_key(k): k for k in references}
    missing = [cand_keys[k] for k in cand_keys if k not in ref_keys]
    if missing:
        shown = ", ".join(repr(m) for m in missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise CaptionFileError(
            f"{candidates_name}: {len(missing)} image id(s) have no references in {references_name}: {shown}"
        )
    unscored = [ref_keys[k] for k in ref_keys if k not in cand_keys]
    if unscored:
        shown = ", ".join(repr(m) for m in unscored[:5]) + (" ..." if len(unscored) > 5 else "")
        if require_all:
            raise CaptionFileError(
                f"{candidates_name}: no candidate for {len(unscored)} image id(s) of {references_name}: {shown}"
            )
        log.info("%d reference image(s) have no candidate and are not scored (e.g. %s)", len(unscored), shown)
    ids, cands, refs = [], [], []
    for key, ref_id in ref_keys.items():
        if key in cand_keys:
            cand_id = cand_keys[key]
            ids.append(cand_id)
            cands.append(candidates[cand_id])
            refs.append(tuple(references[ref_id]))
    return Corpus(tuple(ids), tuple(cands), tuple(refs))


def load_corpus(results_path: PathLike, references_path: PathLike, *, require_all: bool = False) -> Corpus:
    """Read a candidates file and a references file and align them (see :func:`align`)."""
    return align(
        read_candidates(results_path),
        read_references(references_path),
        require_all=require_all,
        candidates_name=os.fspath(results_path),
        references_name=os.fspath(references_path),
    )


def json_safe(data: Any) -> Any:
    """Replace NaN and infinities (undefined scores) by ``None``, so the output is valid JSON."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, Mapping):
        return {k: json_safe(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [json_safe(v) for v in data]
    return data


def write_json(path: PathLike, data: Any) -> None:
    """Write JSON atomically (temporary file + rename), UTF-8, exact float repr; NaN becomes null."""
    target = os.fspath(path)
    tmp = f"{target}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(json_safe(data), fh, ensure_ascii=False, indent=1, allow_nan=False)
        fh.write("\n")
    os.replace(tmp, target)
