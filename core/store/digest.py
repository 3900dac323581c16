"""A content digest over every memory table (JOURNAL §1): what the memory says — rows, fields,
vectors, links — and not wall-clock bookkeeping, so a replay or a re-run import matches."""

from __future__ import annotations

import hashlib

from core.store.changes import encode_value, is_internal, table_keys
from core.store.journal import canonical_json
from core.store.sqlite import sqlite3

# Columns that record when something was written, not what the memory says.
WALL_CLOCK_COLUMNS: dict[str, set[str]] = {
    "observations": {"captured_at"},
    "corrections": {"created_at", "journal_seq"},
    "ingest_jobs": {"created_at", "updated_at"}, "llm_usage": {"ts", "day"},
}
# Tables that hold process bookkeeping (job states, usage metrics, the recall log of who read
# what), not memory.
NON_MEMORY_TABLES: set[str] = {"ingest_jobs", "llm_usage", "recall_log", "recall_log_events"}
# Derived text a read may (re)write: a storyline's summary is written when the storyline is
# first shown after a change (core/storylines/store.py). Journaled like any change, but what
# the memory says is in its members, so reading a storyline never moves the digest and an undo
# still restores it.
DERIVED_TABLES: set[str] = {"storylines"}


def memory_tables(conn: sqlite3.Connection) -> list[str]:
    names = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    return [n for n in names if not is_internal(n) and n not in NON_MEMORY_TABLES
            and n not in DERIVED_TABLES]


def digest(conn: sqlite3.Connection) -> str:
    h = hashlib.sha256()
    for table in memory_tables(conn):
        skip = WALL_CLOCK_COLUMNS.get(table, set())
        cursor = conn.execute(f"SELECT * FROM {table} ORDER BY {', '.join(table_keys(conn, table))}")
        names = [d[0] for d in cursor.description]
        h.update(f"\x00table:{table}\x00".encode())
        for row in cursor:
            record = {n: encode_value(v) for n, v in zip(names, row) if n not in skip}
            h.update(canonical_json(record).encode("utf-8"))
            h.update(b"\n")
    return h.hexdigest()
