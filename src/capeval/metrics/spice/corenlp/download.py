"""Read one member of a zip archive on an HTTP server, with byte ranges: only that member's bytes.

The SPICE grammar is a 1.9 MB member of a 378 MB jar on Maven Central. :func:`fetch_zip_member`
reads the archive's end records from its tail, finds the member in the central directory, reads
its local header and compressed bytes, and inflates them: four small requests and the 1.9 MB,
with a progress bar. A server that ignores ``Range`` (status 200 instead of 206) gets the whole
archive streamed to a temporary file instead, after a message naming its URL and size.

Only the standard library is used (``urllib``); every failure is a :class:`DownloadError` with the
URL and what went wrong.
"""

from __future__ import annotations

import http.client
import logging
import os
import struct
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

__all__ = ["DownloadError", "fetch_zip_member"]

log = logging.getLogger("capeval")

#: Seconds to wait for the server (connection and each read).
TIMEOUT = 60.0
#: The end-of-central-directory record is 22 bytes and may be followed by a comment of up to 65,535.
_EOCD_SEARCH = 22 + 65_535
_EOCD = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_EOCD = b"PK\x06\x06"
_CENTRAL = b"PK\x01\x02"
_LOCAL = b"PK\x03\x04"
_CHUNK = 1 << 16


class DownloadError(RuntimeError):
    """The member could not be read from the server (network, server or archive problem)."""


@dataclass(frozen=True)
class _Entry:
    method: int
    crc: int
    compressed: int
    size: int
    offset: int


class _RangeIgnored(Exception):
    """The server answered a range request with the whole file (status 200)."""

    def __init__(self, response: Any) -> None:
        super().__init__("range ignored")
        self.response = response


def _progress_bar(total: int, description: str, progress: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=description, disable=not progress)


def _open(url: str, byte_range: tuple[int, int] | int | None) -> Any:
    """The server's response; ``byte_range`` is ``(first, last)`` inclusive or ``-n`` (the last n bytes)."""
    request = urllib.request.Request(url, headers={"User-Agent": "capeval", "Accept-Encoding": "identity"})
    if isinstance(byte_range, tuple):
        request.add_header("Range", f"bytes={byte_range[0]}-{byte_range[1]}")
    elif isinstance(byte_range, int):
        request.add_header("Range", f"bytes={byte_range}")
    try:
        return urllib.request.urlopen(request, timeout=TIMEOUT)
    except urllib.error.HTTPError as exc:
        raise DownloadError(f"{url}: the server answered {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        raise DownloadError(f"{url}: cannot connect ({reason})") from None


def _read_exactly(response: Any, n: int, url: str, on_chunk: Callable[[int], object] | None = None) -> bytes:
    parts = []
    got = 0
    try:
        while got < n:
            chunk = response.read(min(_CHUNK, n - got))
            if not chunk:
                break
            parts.append(chunk)
            got += len(chunk)
            if on_chunk is not None:
                on_chunk(len(chunk))
    except (OSError, ValueError, http.client.HTTPException) as exc:  # reset, timeout, IncompleteRead
        raise DownloadError(f"{url}: the download broke off after {got:,} of {n:,} bytes ({exc})") from None
    if got < n:
        raise DownloadError(f"{url}: the download was cut short ({got:,} of {n:,} bytes)")
    return b"".join(parts)


def _total_size(response: Any, url: str) -> int:
    content_range = response.headers.get("Content-Range", "")
    try:
        return int(content_range.rsplit("/", 1)[1])
    except (IndexError, ValueError):
        raise DownloadError(f"{url}: the server sent no usable Content-Range ({content_range!r})") from None


def _get_range(url: str, first: int, last: int, on_chunk: Callable[[int], object] | None = None) -> bytes:
    """Bytes ``first..last`` (inclusive) of the file at ``url``."""
    with _open(url, (first, last)) as response:
        if response.status != 206:
            raise DownloadError(f"{url}: the server stopped serving byte ranges (status {response.status})")
        return _read_exactly(response, last - first + 1, url, on_chunk)


def _get_tail(url: str) -> tuple[bytes, int]:
    """The last bytes of the file (enough for its end records) and the file's size."""
    response = _open(url, -_EOCD_SEARCH)
    if response.status == 200:
        raise _RangeIgnored(response)
    with response:
        if response.status != 206:
            raise DownloadError(f"{url}: unexpected status {response.status} for a range request")
        total = _total_size(response, url)
        tail = _read_exactly(response, min(_EOCD_SEARCH, total), url)
    return tail, total


def _central_directory_location(url: str, tail: bytes, total: int) -> tuple[int, int]:
    """``(offset, size)`` of the central directory, from the end records (zip64 when needed)."""
    at = tail.rfind(_EOCD)
    if at < 0 or len(tail) - at < 22:
        raise DownloadError(f"{url}: not a zip archive (no end-of-central-directory record)")
    _sig, _disk, _cd_disk, _n_disk, _n, cd_size, cd_offset, _comment = struct.unpack("<4s4H2LH", tail[at : at + 22])
    if cd_size != 0xFFFFFFFF and cd_offset != 0xFFFFFFFF:
        return cd_offset, cd_size
    locator_at = at - 20
    if locator_at < 0 or tail[locator_at : locator_at + 4] != _ZIP64_LOCATOR:
        raise DownloadError(f"{url}: a zip64 archive without its zip64 locator")
    _sig, _disk, record_offset, _disks = struct.unpack("<4sLQL", tail[locator_at : locator_at + 20])
    tail_start = total - len(tail)
    if record_offset >= tail_start:
        record = tail[record_offset - tail_start : record_offset - tail_start + 56]
    else:
        record = _get_range(url, record_offset, record_offset + 55)
    if len(record) < 56 or record[:4] != _ZIP64_EOCD:
        raise DownloadError(f"{url}: damaged zip64 end-of-central-directory record")
    cd_size, cd_offset = struct.unpack("<QQ", record[40:56])
    return cd_offset, cd_size


def _find_entry(url: str, directory: bytes, member: str) -> _Entry:
    """The member's entry in the central directory."""
    pos = 0
    wanted = member.encode("utf-8")
    while pos + 46 <= len(directory) and directory[pos : pos + 4] == _CENTRAL:
        fields = struct.unpack("<4s6H3L5H2L", directory[pos : pos + 46])
        method, crc, compressed, size = fields[4], fields[7], fields[8], fields[9]
        name_len, extra_len, comment_len, offset = fields[10], fields[11], fields[12], fields[16]
        name = directory[pos + 46 : pos + 46 + name_len]
        if name == wanted:
            extra = directory[pos + 46 + name_len : pos + 46 + name_len + extra_len]
            size, compressed, offset = _zip64_values(extra, size, compressed, offset)
            return _Entry(method, crc, compressed, size, offset)
        pos += 46 + name_len + extra_len + comment_len
    raise DownloadError(f"{url}: the archive has no member {member}")


def _zip64_values(extra: bytes, size: int, compressed: int, offset: int) -> tuple[int, int, int]:
    """Sizes and offset, with the 64-bit values of the zip64 extra field where the 32-bit ones are full."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, length = struct.unpack("<2H", extra[pos : pos + 4])
        if tag == 1:
            values = iter(struct.unpack(f"<{length // 8}Q", extra[pos + 4 : pos + 4 + length - length % 8]))
            if size == 0xFFFFFFFF:
                size = next(values)
            if compressed == 0xFFFFFFFF:
                compressed = next(values)
            if offset == 0xFFFFFFFF:
                offset = next(values)
            break
        pos += 4 + length
    return size, compressed, offset


def _inflate(url: str, entry: _Entry, compressed: bytes) -> bytes:
    if entry.method == zipfile.ZIP_STORED:
        data = compressed
    elif entry.method == zipfile.ZIP_DEFLATED:
        try:
            inflater = zlib.decompressobj(-15)
            data = inflater.decompress(compressed) + inflater.flush()
        except zlib.error as exc:
            raise DownloadError(f"{url}: the member's compressed bytes are damaged ({exc})") from None
    else:
        raise DownloadError(f"{url}: the member uses compression method {entry.method}, not stored or deflated")
    if len(data) != entry.size or zlib.crc32(data) != entry.crc:
        raise DownloadError(f"{url}: the member's bytes are damaged (size or CRC-32 does not match the archive)")
    return data


def _whole_archive(response: Any, url: str, member: str, progress: bool) -> bytes:
    """The member, from the whole archive streamed to a temporary file (a server without ranges)."""
    length = response.headers.get("Content-Length")
    size = f"{int(length) / 1e6:,.0f} MB" if length and length.isdigit() else "size unknown"
    log.warning(
        "capeval: %s does not serve byte ranges; downloading the whole archive (%s) once to read %s from it",
        url,
        size,
        member,
    )
    with tempfile.TemporaryFile() as tmp:
        expected = int(length) if length and length.isdigit() else None
        with response, _progress_bar(expected or 0, "archive", progress) as bar:
            got = _copy(response, tmp, url, bar.update)
        if expected is not None and got != expected:
            raise DownloadError(f"{url}: the download was cut short ({got:,} of {expected:,} bytes)")
        tmp.seek(0)
        try:
            with zipfile.ZipFile(tmp) as archive:
                return archive.read(member)
        except KeyError:
            raise DownloadError(f"{url}: the archive has no member {member}") from None
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            raise DownloadError(f"{url}: the downloaded archive is damaged ({exc})") from None


def _copy(response: Any, out: IO[bytes], url: str, on_chunk: Callable[[int], object]) -> int:
    got = 0
    try:
        while chunk := response.read(1 << 20):
            out.write(chunk)
            got += len(chunk)
            on_chunk(len(chunk))
    except (OSError, ValueError, http.client.HTTPException) as exc:
        raise DownloadError(f"{url}: the download broke off after {got:,} bytes ({exc})") from None
    return got


def fetch_zip_member(url: str, member: str, *, progress: bool | None = None) -> bytes:
    """The uncompressed bytes of ``member`` of the zip archive at ``url``.

    Args:
        url: an ``http(s)`` URL of a zip archive (a jar).
        member: the member's path inside the archive.
        progress: show a progress bar on stderr (default: when stderr is a terminal).

    Returns:
        The member's bytes, checked against the archive's size and CRC-32.

    Raises:
        DownloadError: the server is unreachable or answers with an error, the download breaks off,
            the archive or the member is damaged or missing.
    """
    if progress is None:
        progress = sys.stderr.isatty()
    try:
        tail, total = _get_tail(url)
    except _RangeIgnored as ignored:
        return _whole_archive(ignored.response, url, member, progress)
    cd_offset, cd_size = _central_directory_location(url, tail, total)
    if cd_offset + cd_size > total:
        raise DownloadError(f"{url}: not a zip archive (its central directory lies outside the file)")
    tail_start = total - len(tail)
    if cd_offset >= tail_start:
        directory = tail[cd_offset - tail_start : cd_offset - tail_start + cd_size]
    else:
        directory = _get_range(url, cd_offset, cd_offset + cd_size - 1)
    entry = _find_entry(url, directory, member)
    header = _get_range(url, entry.offset, entry.offset + 29)
    if header[:4] != _LOCAL:
        raise DownloadError(f"{url}: damaged archive (no local header for {member})")
    name_len, extra_len = struct.unpack("<2H", header[26:30])
    start = entry.offset + 30 + name_len + extra_len
    if entry.compressed == 0:
        compressed = b""
    else:
        log.info("capeval: reading %s (%s bytes) from %s", member, f"{entry.compressed:,}", url)
        with _progress_bar(entry.compressed, os.path.basename(member), progress) as bar:
            compressed = _get_range(url, start, start + entry.compressed - 1, bar.update)
    return _inflate(url, entry, compressed)
