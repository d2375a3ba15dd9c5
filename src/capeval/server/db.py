"""Database engines, sessions and migrations.

SQLite (the embedded default) gets ``journal_mode=WAL``, a busy timeout,
``synchronous=NORMAL`` and foreign keys on every connection. Write transactions that
read before they write (quota check then insert, job claim) use :meth:`Database.write`,
which on SQLite opens the transaction with ``BEGIN IMMEDIATE`` so concurrent writers
queue on the busy timeout instead of failing on a lock upgrade; on PostgreSQL the
callers take row locks (``SELECT ... FOR UPDATE``) instead.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect
from sqlalchemy.orm import Session, sessionmaker

__all__ = ["Database", "upgrade_schema"]

log = logging.getLogger("capeval")

#: SQLite busy timeout: how long a writer waits for the lock before "database is locked".
SQLITE_BUSY_TIMEOUT_MS = 30_000
#: Connection pool for PostgreSQL: enough for a burst of parallel uploads on a small host.
PG_POOL_SIZE = 10
PG_MAX_OVERFLOW = 20


def _sqlite_pragmas(dbapi_connection: Any, connection_record: Any) -> None:
    # Let SQLAlchemy, not the sqlite3 module, emit BEGIN (see the "begin" hook below).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_begin(conn: Any) -> None:
    mode = "IMMEDIATE" if conn.get_execution_options().get("capeval_write") else "DEFERRED"
    conn.exec_driver_sql(f"BEGIN {mode}")


class Database:
    """An engine plus read and write session factories.

    Args:
        url: SQLAlchemy database URL.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            path = url.split("///", 1)[-1]
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}
        else:
            kwargs.update(pool_size=PG_POOL_SIZE, max_overflow=PG_MAX_OVERFLOW, pool_pre_ping=True)
        self.engine: Engine = create_engine(url, **kwargs)
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
            event.listen(self.engine, "begin", _sqlite_begin)
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(self.engine.execution_options(capeval_write=True), expire_on_commit=False)

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for reads (and simple writes); committed on success, rolled back on error."""
        with self._read() as session, session.begin():
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A session whose transaction takes the write lock up front on SQLite (``BEGIN IMMEDIATE``)."""
        with self._write() as session, session.begin():
            yield session

    def dispose(self) -> None:
        """Close pooled connections."""
        self.engine.dispose()


def _alembic_config(db: Database) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(resources.files("capeval.server") / "migrations"))
    config.attributes["engine"] = db.engine
    return config


def upgrade_schema(db: Database) -> None:
    """Bring the schema to the newest migration (creates it on an empty database)."""
    from alembic import command

    command.upgrade(_alembic_config(db), "head")
    log.debug("schema at head; tables: %s", sorted(inspect(db.engine).get_table_names()))
