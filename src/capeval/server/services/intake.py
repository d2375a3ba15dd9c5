"""Upload intake: unpack and validate a results file before anything is stored.

An upload is a COCO results json (``[{"image_id": int, "caption": str}, ...]``) or a zip
holding exactly one such json. The file is read by :func:`capeval.io.parse_candidates`, the
one reader of caption files, with the server's stricter settings (:data:`RESULTS_JSON_LIMITS`,
integer image ids, no empty captions); captions are one line of visible text by the rule of every
typed string (:mod:`capeval.server.domain.text`);
this module adds only the zip handling, the split membership check and the mapping of
:class:`~capeval.io.CaptionFileError` codes to HTTP (undecodable input 400, wrong content 422).
Every error names the offending member, item or image id; nothing here touches the database,
so a rejected upload never counts against a quota.

Zip checks: member count, member names (no absolute paths, drive letters, backslashes or
``..``), no symlinks, no encrypted members, no nested archives, and an expansion limit
counted while inflating (declared sizes are not trusted).
"""

from __future__ import annotations

import io
import stat
import zipfile
from collections.abc import Collection
from dataclasses import dataclass

from capeval.io import DECODE_ERRORS, CaptionFileError, JsonLimits, parse_candidates
from capeval.server.domain.errors import InvalidInput, TooLarge, UnprocessableResults, UnsupportedType
from capeval.server.domain.text import bad_character, character_problem

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
#: Inflate in chunks of this many bytes so the expansion limit is enforced as data arrives.
INFLATE_CHUNK = 64 * 1024


@dataclass(frozen=True)
class ParsedUpload:
    """The results document found in an upload (its bytes, unzipped) and what to call it."""

    document: bytes
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
#: Library codes the server reports under its own (older) names.
_SERVER_CODES = {"bad_shape": "not_a_list", "bad_image_id": "bad_image_id_type"}


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
        return ParsedUpload(inner, f"zip member {member!r}")
    if ctype in JSON_TYPES or (ctype in NEUTRAL_TYPES and (lower.endswith(".json") or not lower)):
        if is_zip_magic:
            raise UnsupportedType("wrong_content_type", f"{filename or 'body'} is a zip but was sent as {ctype}")
        return ParsedUpload(data, filename)
    raise UnsupportedType(
        "wrong_content_type",
        f"unsupported content type {ctype or '(none)'!r} for {filename or 'body'}: "
        "send application/json or application/zip (.json or .zip file)",
    )


def _check_lines(captions: dict[int, str], where: str) -> None:
    """Every caption is one line of visible text (:mod:`capeval.server.domain.text`)."""
    if bad_character(" ".join(captions.values())) is None:  # the common case, one search
        return
    for index, (image_id, caption) in enumerate(captions.items()):
        problem = character_problem(caption)
        if problem:
            raise UnprocessableResults(
                "bad_caption",
                f"{where}: entry {index} (image id {image_id}): caption {problem}; captions are one line of text "
                "(no line breaks, tabs, control or formatting characters)",
            )


def validate_results(
    document: bytes,
    expected_ids: Collection[int],
    *,
    max_caption_chars: int,
    where: str = "results",
) -> dict[int, str]:
    """Read a results document and check it against the images of a phase.

    The document is read by :func:`capeval.io.parse_candidates` (``image_id`` an integer,
    ``caption`` a non-empty one-line string of at most ``max_caption_chars``, each image once),
    then every expected image must appear and no other image may.

    Returns:
        ``{image_id: caption}``.

    Raises:
        InvalidInput: input that cannot be decoded within :data:`RESULTS_JSON_LIMITS`.
        UnprocessableResults: naming the first offending item (and counts of missing images).
    """
    try:
        # The reader refuses most control characters; what it lets through (line breaks, tabs,
        # formatting characters) is refused below by the rule of every typed string, in the same words.
        parsed = parse_candidates(
            document,
            name=where,
            max_caption_chars=max_caption_chars,
            limits=RESULTS_JSON_LIMITS,
            allow_empty=False,
            allow_control_chars=False,
            integer_ids=True,
        )
    except CaptionFileError as exc:
        code = _SERVER_CODES.get(exc.code, exc.code)
        if exc.code in DECODE_ERRORS:
            raise InvalidInput(code, str(exc)) from None
        raise UnprocessableResults(code, str(exc)) from None
    captions: dict[int, str] = {}
    for image_id, caption in parsed.items():
        assert isinstance(image_id, int)  # integer_ids=True
        captions[image_id] = caption
    _check_lines(captions, where)
    expected = set(expected_ids)
    unknown = [image_id for image_id in captions if image_id not in expected]
    if unknown:
        raise UnprocessableResults("unknown_image_id", f"{where}: image_id {unknown[0]} is not an image of this phase")
    missing = expected - captions.keys()
    if missing:
        sample = ", ".join(str(i) for i in sorted(missing)[:5])
        raise UnprocessableResults(
            "missing_images",
            f"{where}: {len(missing)} of {len(expected)} images have no caption (e.g. image_id {sample})",
        )
    return captions
