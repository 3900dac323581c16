"""The one command layer: every mutation of memory is a change set applied together with its
journal row, in one transaction. The CLI, the app, the MCP server and replay all come here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from core.store import journal
from core.store.changes import apply_changes
from core.store.db import begin_immediate
from core.store.sqlite import sqlite3


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE … COMMIT, or ROLLBACK on any error. Nested use joins the outer one."""
    if conn.in_transaction:
        yield conn
        return
    begin_immediate(conn)
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def execute(conn: sqlite3.Connection, *, actor: str, op: str, subject: str,
            changes: list[dict[str, Any]], extra: dict[str, Any] | None = None,
            ts: str | None = None) -> int:
    """Apply `changes` and journal them (with `extra` context) atomically. Returns the seq."""
    payload: dict[str, Any] = {"changes": changes}
    if extra:
        payload.update(extra)
    with transaction(conn):
        apply_changes(conn, changes)
        return journal.append(conn, actor, op, subject, payload, ts=ts)


def _next_id_sql(table: str) -> str:
    # above the highest id the table holds and the highest it ever deleted (migration 012):
    # an id once given is never given again
    return (f"(SELECT max(COALESCE((SELECT MAX(id) FROM {table}), 0),"
            f" COALESCE((SELECT top FROM id_high_water WHERE name = '{table}'), 0)) + 1)")


def next_id(conn: sqlite3.Connection, table: str) -> int:
    """Ids are allocated explicitly and recorded in the payload, so a replay gives the same ids;
    an id is never reused, even after its row was erased or its creation undone."""
    return int(conn.execute(f"SELECT {_next_id_sql(table)}").fetchone()[0])


def next_ids(conn: sqlite3.Connection, *tables: str) -> tuple[int, ...]:
    """next_id of several tables in one statement (the import asks for seven per message)."""
    parts = ", ".join(_next_id_sql(t) for t in tables)
    return tuple(int(v) for v in conn.execute(f"SELECT {parts}").fetchone())
