"""On-disk cache of parsed captions (raw SPICE tuples), safe under concurrent use.

One SQLite file; each row maps ``sha256(parser fingerprint, caption)`` to the JSON of the
caption's raw tuples plus a checksum of key and payload. SQLite serialises writers (WAL
journal, busy timeout), so several processes may share the file. A row whose checksum or
JSON does not verify is treated as missing, recomputed, and overwritten; a file that is not
a readable SQLite database is moved aside and replaced.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from capeval._cache import cache_root

__all__ = ["TupleCache", "default_cache_path"]

logger = logging.getLogger("capeval")

#: Seconds a writer waits for another process's lock before giving up on caching that batch.
_BUSY_TIMEOUT_S = 30.0
#: Attempts (and base pause in seconds) when opening a cache file that other processes are
#: setting up at the same moment.
_SETUP_ATTEMPTS = 20
_SETUP_RETRY_S = 0.05
#: Keys per ``SELECT ... IN (...)`` query (below SQLite's default variable limit).
_QUERY_CHUNK = 500

Tuples = list[list[str]]


def default_cache_path() -> Path:
    """``$CAPEVAL_CACHE_DIR/spice.sqlite``, else ``$XDG_CACHE_HOME/capeval/`` or ``~/.cache/capeval/``."""
    return cache_root() / "spice.sqlite"


def _checksum(key: str, payload: str) -> str:
    return hashlib.sha256((key + "\0" + payload).encode("utf-8")).hexdigest()[:32]


def _valid(value: object) -> bool:
    return isinstance(value, list) and all(
        isinstance(t, list) and 1 <= len(t) <= 3 and all(isinstance(x, str) for x in t) for t in value
    )


class _Held:
    """An open connection and the process that opened it."""

    __slots__ = ("conn", "pid")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.pid = os.getpid()


#: Every connection of every cache, by a serial number, until its cache is collected or closed; it
#: also keeps the ones a forked child inherited. A child must never close an inherited connection:
#: closing a file drops every POSIX lock the process holds on it, its own connection's included, and
#: SQLite then fails with "disk I/O error". (A connection is in a reference cycle of its own, so without
#: this the garbage collector could close an inherited one in a child at any moment.)
_OPEN: dict[int, _Held] = {}
_SERIAL = itertools.count()
_OPEN_LOCK = threading.Lock()


def _release(serial: int) -> None:
    """Close connection ``serial`` if this process opened it (an inherited one stays open, unused)."""
    with _OPEN_LOCK:
        held = _OPEN.get(serial)
        if held is None or held.pid != os.getpid():
            return
        del _OPEN[serial]
    held.conn.close()


class TupleCache:
    """Parsed-caption cache keyed by caption text and parser fingerprint.

    Args:
        path: SQLite file (created with its directory).
        fingerprint: Parser identity (model, versions); part of every key.

    Example:
        >>> import tempfile, pathlib
        >>> cache = TupleCache(pathlib.Path(tempfile.mkdtemp()) / "c.sqlite", "p1")
        >>> cache.put({"a dog": [["dog"]]})
        >>> cache.get(["a dog", "a cat"])
        {'a dog': [['dog']]}
    """

    def __init__(self, path: str | os.PathLike[str], fingerprint: str) -> None:
        self.path = Path(path)
        self.fingerprint = fingerprint
        self._local = threading.local()

    def _key(self, text: str) -> str:
        return hashlib.sha256((self.fingerprint + "\0" + text).encode("utf-8", "surrogatepass")).hexdigest()

    def _connect(self) -> sqlite3.Connection:
        serial: int | None = getattr(self._local, "serial", None)
        held = _OPEN.get(serial) if serial is not None else None
        if held is not None and held.pid == os.getpid():
            return held.conn
        # A connection inherited through fork must not be used by the child: open a new one.
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = self._open()
        except sqlite3.DatabaseError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise
            aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
            logger.warning("SPICE cache %s is not a valid database (%s); moved to %s", self.path, exc, aside)
            os.replace(self.path, aside)
            conn = self._open()
        serial = next(_SERIAL)
        with _OPEN_LOCK:
            _OPEN[serial] = _Held(conn)
        self._local.serial = serial
        weakref.finalize(self, _release, serial)
        return conn

    def _open(self) -> sqlite3.Connection:
        """A connection with WAL on and the table created; retries while another process sets up."""
        for attempt in range(_SETUP_ATTEMPTS):
            # Closed by whichever thread collects the cache (each thread still uses only its own).
            conn = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("CREATE TABLE IF NOT EXISTS parses (key TEXT PRIMARY KEY, payload TEXT, checksum TEXT)")
                return conn
            except sqlite3.DatabaseError as exc:
                conn.close()
                # Switching a new file to WAL does not wait for other processes doing the same.
                busy = "locked" in str(exc) or "busy" in str(exc)
                if not busy or attempt + 1 == _SETUP_ATTEMPTS:
                    raise
                time.sleep(_SETUP_RETRY_S * (attempt + 1))
        raise sqlite3.OperationalError("unreachable")  # pragma: no cover

    def get(self, texts: Iterable[str]) -> dict[str, Tuples]:
        """Cached tuples for those ``texts`` that have a valid entry."""
        keyed = {self._key(t): t for t in texts}
        found: dict[str, Tuples] = {}
        try:
            conn = self._connect()
            keys = list(keyed)
            for start in range(0, len(keys), _QUERY_CHUNK):
                chunk = keys[start : start + _QUERY_CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(f"SELECT key, payload, checksum FROM parses WHERE key IN ({marks})", chunk)
                for key, payload, checksum in rows:
                    if not isinstance(payload, str) or checksum != _checksum(key, payload):
                        logger.warning("SPICE cache entry %s failed its checksum; recomputing", key[:12])
                        continue
                    try:
                        value = json.loads(payload)
                    except ValueError:
                        logger.warning("SPICE cache entry %s is not valid JSON; recomputing", key[:12])
                        continue
                    if _valid(value):
                        found[keyed[key]] = value
        except sqlite3.Error as exc:
            logger.warning("SPICE cache %s unreadable (%s); parsing without it", self.path, exc)
        return found

    def put(self, entries: Mapping[str, Sequence[Sequence[str]]]) -> None:
        """Store parsed tuples (one transaction); failures only log a warning."""
        if not entries:
            return
        rows = []
        for text, tuples in entries.items():
            key = self._key(text)
            payload = json.dumps([list(t) for t in tuples], ensure_ascii=False, separators=(",", ":"))
            rows.append((key, payload, _checksum(key, payload)))
        try:
            conn = self._connect()
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany("INSERT OR REPLACE INTO parses (key, payload, checksum) VALUES (?, ?, ?)", rows)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            logger.warning("SPICE cache %s not updated (%s)", self.path, exc)

    def close(self) -> None:
        """Close this thread's connection."""
        serial: int | None = getattr(self._local, "serial", None)
        if serial is not None:
            _release(serial)
        self._local.serial = None
