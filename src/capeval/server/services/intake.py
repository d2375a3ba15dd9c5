"""Upload intake: unpack and validate a results file before anything is stored.

An upload is a COCO results json (``[{"image_id": int, "caption": str}, ...]``) or a zip
holding exactly one such json. Every check raises a :mod:`~capeval.server.domain.errors`
error with a message that names the offending member, item index or image id; nothing here
touches the database, so a rejected upload never counts against a quota.

Zip checks: member count, member names (no absolute paths, drive letters, backslashes or
``..``), no symlinks, no encrypted members, no nested archives, and an expansion limit
counted while inflating (declared sizes are not trusted).
"""

from __future__ import annotations

import io
import re
import stat
import zipfile
from collections.abc import Callable, Collection
from dataclasses import dataclass

from capeval.server.domain.errors import InvalidInput, TooLarge, UnprocessableResults, UnsupportedType
from capeval.server.services.safejson import JsonLimits, loads_limited

__all__ = ["ParsedUpload", "parse_upload", "validate_results"]

#: Content types accepted for a raw json body or the json part of a form.
JSON_TYPES = frozenset({"application/json", "text/json", "text/plain"})
#: Content types accepted for a zip.
ZIP_TYPES = frozenset({"application/zip", "application/x-zip-compressed", "application/x-zip"})
#: Content types for which the file name / magic bytes decide (browsers send these for unknown files).
NEUTRAL_TYPES = frozenset({"", "application/octet-stream"})
#: Magic numbers of archive formats refused inside a zip (zip, gzip, bzip2, xz, 7z, rar, zstd).
ARCHIVE_MAGIC = (b"PK\x03\x04", b"\x1f\x8b", b"BZh", b"\xfd7zXZ", b"7z\xbc\xaf", b"Rar!", b"\x28\xb5\x2f\xfd")
ARCHIVE_SUFFIXES = (".zip", ".gz", ".tgz", ".tar", ".bz2", ".xz", ".7z", ".rar", ".zst")
#: Characters refused in a caption: C0 controls other than tab and newline, DEL, C1 controls,
#: the Unicode line/paragraph separators and lone surrogates (not encodable as UTF-8).
_FORBIDDEN_IN_CAPTION = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
#: Inflate in chunks of this many bytes so the expansion limit is enforced as data arrives.
INFLATE_CHUNK = 64 * 1024


@dataclass(frozen=True)
class ParsedUpload:
    """The json document found in an upload and where it came from."""

    document: object
    member: str


def _base_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def _check_member_name(name: str) -> None:
    if not name:
        raise InvalidInput("zip_bad_name", "zip member with an empty name")
    if "\x00" in name or "\\" in name:
        raise InvalidInput("zip_bad_name", f"zip member {name!r}: backslashes and NUL are not allowed in names")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise InvalidInput("zip_absolute_path", f"zip member {name!r}: absolute paths are not allowed")
    if ".." in name.split("/"):
        raise InvalidInput("zip_path_traversal", f"zip member {name!r}: '..' path components are not allowed")


def _unzip(data: bytes, *, max_members: int, max_unzipped: int) -> tuple[bytes, str]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, EOFError, ValueError, NotImplementedError) as exc:
        raise InvalidInput("zip_corrupt", f"not a readable zip file: {exc}") from None
    if len(infos) > max_members:
        raise InvalidInput("zip_too_many_members", f"zip has {len(infos)} members; at most {max_members} allowed")
    json_members = []
    for info in infos:
        _check_member_name(info.filename)
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise InvalidInput("zip_symlink", f"zip member {info.filename!r} is a symbolic link")
        if info.flag_bits & 0x1:
            raise InvalidInput("zip_encrypted", f"zip member {info.filename!r} is encrypted")
        if info.is_dir():
            continue
        if info.filename.lower().endswith(ARCHIVE_SUFFIXES):
            raise InvalidInput("zip_nested_archive", f"zip member {info.filename!r} is an archive; nesting is refused")
        if info.filename.lower().endswith(".json"):
            json_members.append(info)
    if len(json_members) != 1:
        found = ", ".join(repr(i.filename) for i in json_members) or "none"
        raise InvalidInput("zip_json_count", f"zip must hold exactly one .json results file; found {found}")
    info = json_members[0]
    out = bytearray()
    try:
        with archive.open(info) as member:
            while chunk := member.read(INFLATE_CHUNK):
                out += chunk
                if len(out) > max_unzipped:
                    raise TooLarge(
                        "zip_expansion_limit",
                        f"zip member {info.filename!r} expands beyond the {max_unzipped}-byte limit",
                    )
    except TooLarge:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError) as exc:
        raise InvalidInput("zip_corrupt", f"zip member {info.filename!r} cannot be inflated: {exc}") from None
    if bytes(out[:8]).startswith(ARCHIVE_MAGIC):
        raise InvalidInput("zip_nested_archive", f"zip member {info.filename!r} is itself an archive")
    return bytes(out), info.filename


#: Results files are a list of flat objects: anything nested deeper is not a results file.
RESULTS_JSON_LIMITS = JsonLimits(max_depth=8, max_int_digits=20, max_string_chars=1_000_000)


def _decode_json(data: bytes, where: str) -> object:
    if not data.strip():
        raise InvalidInput("empty_file", f"{where} is empty")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return loads_limited(data, where, RESULTS_JSON_LIMITS)


def parse_upload(
    data: bytes,
    *,
    content_type: str,
    filename: str,
    max_members: int,
    max_unzipped: int,
) -> ParsedUpload:
    """Unpack (if zipped) and parse an uploaded results file.

    Args:
        data: The uploaded bytes (already bounded by the request size limit).
        content_type: The declared content type of the body or form part.
        filename: The client's file name ('' for a raw body).
        max_members: Zip member limit.
        max_unzipped: Limit on inflated bytes.

    Raises:
        UnsupportedType: for an unsupported content type.
        TooLarge: for a zip expanding past the limit.
        InvalidInput: for anything unreadable.
    """
    ctype = _base_type(content_type)
    is_zip_magic = data.startswith(b"PK\x03\x04") or data.startswith(b"PK\x05\x06")
    lower = filename.lower()
    if ctype in ZIP_TYPES or (ctype in NEUTRAL_TYPES and (lower.endswith(".zip") or is_zip_magic)):
        if not is_zip_magic:
            raise InvalidInput("zip_corrupt", f"{filename or 'body'}: declared a zip but is not a zip file")
        inner, member = _unzip(data, max_members=max_members, max_unzipped=max_unzipped)
        return ParsedUpload(_decode_json(inner, f"zip member {member!r}"), member)
    if ctype in JSON_TYPES or (ctype in NEUTRAL_TYPES and (lower.endswith(".json") or not lower)):
        if is_zip_magic:
            raise UnsupportedType("wrong_content_type", f"{filename or 'body'} is a zip but was sent as {ctype}")
        return ParsedUpload(_decode_json(data, filename or "body"), filename)
    raise UnsupportedType(
        "wrong_content_type",
        f"unsupported content type {ctype or '(none)'!r} for {filename or 'body'}: "
        "send application/json or application/zip (.json or .zip file)",
    )


def _check_item(
    index: int, item: object, max_caption_chars: int, fail: Callable[[str, str], UnprocessableResults]
) -> tuple[int, str]:
    """The ``(image_id, caption)`` of one results item, or the first problem with it."""
    if not isinstance(item, dict):
        raise fail("item_not_object", f"item {index} must be an object, got {type(item).__name__}")
    if "image_id" not in item:
        raise fail("missing_image_id", f"item {index} has no 'image_id'")
    if "caption" not in item:
        raise fail("missing_caption", f"item {index} has no 'caption'")
    image_id = item["image_id"]
    caption = item["caption"]
    if isinstance(image_id, bool) or not isinstance(image_id, int):
        raise fail("bad_image_id_type", f"item {index}: image_id must be an integer, got {type(image_id).__name__}")
    if not isinstance(caption, str):
        raise fail(
            "bad_caption_type",
            f"item {index} (image_id {image_id}): caption must be a string, got {type(caption).__name__}",
        )
    if not caption.strip():
        raise fail("empty_caption", f"item {index} (image_id {image_id}): caption is empty")
    if len(caption) > max_caption_chars:
        raise fail(
            "caption_too_long",
            f"item {index} (image_id {image_id}): caption has {len(caption)} characters; "
            f"at most {max_caption_chars} allowed",
        )
    bad = _FORBIDDEN_IN_CAPTION.search(caption)
    if bad is not None:
        raise fail(
            "bad_caption",
            f"item {index} (image_id {image_id}): caption contains the control character "
            f"U+{ord(bad.group()):04X} at position {bad.start()}; captions are one line of text",
        )
    return image_id, caption


def validate_results(
    document: object,
    expected_ids: Collection[int],
    *,
    max_caption_chars: int,
    where: str = "results",
) -> dict[int, str]:
    """Check a COCO results document against the images of a phase.

    Every expected image must appear exactly once, no other image may appear, ``image_id``
    must be an integer and ``caption`` a non-empty string of at most ``max_caption_chars``.

    Returns:
        ``{image_id: caption}``.

    Raises:
        UnprocessableResults: naming the first offending item (and counts of missing images).
    """

    def fail(code: str, message: str) -> UnprocessableResults:
        return UnprocessableResults(code, f"{where}: {message}")

    if isinstance(document, dict) and "annotations" in document:
        document = document["annotations"]
    if not isinstance(document, list):
        raise fail(
            "not_a_list", f"expected a JSON list of {{image_id, caption}} objects, got {type(document).__name__}"
        )
    if not document:
        raise fail("no_items", "the list is empty")
    expected = set(expected_ids)
    seen: dict[int, int] = {}
    captions: dict[int, str] = {}
    for index, item in enumerate(document):
        image_id, caption = _check_item(index, item, max_caption_chars, fail)
        if image_id not in expected:
            raise fail("unknown_image_id", f"item {index}: image_id {image_id} is not an image of this phase")
        if image_id in seen:
            raise fail(
                "duplicate_image_id", f"item {index}: image_id {image_id} already given by item {seen[image_id]}"
            )
        seen[image_id] = index
        captions[image_id] = caption
    missing = expected - seen.keys()
    if missing:
        sample = ", ".join(str(i) for i in sorted(missing)[:5])
        raise fail(
            "missing_images", f"{len(missing)} of {len(expected)} images have no caption (e.g. image_id {sample})"
        )
    return captions
