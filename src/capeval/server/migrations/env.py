"""Alembic environment: runs migrations on the engine handed over by ``capeval.server.db``."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from capeval.server.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    """Run migrations with a live connection (the only mode the server uses)."""
    engine = config.attributes.get("engine")
    if engine is None:
        url = config.get_main_option("sqlalchemy.url")
        if not url:
            raise RuntimeError("set sqlalchemy.url or pass an engine in config.attributes['engine']")
        engine = create_engine(url)
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


run_migrations_online()
