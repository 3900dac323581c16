"""A content digest over every memory table (JOURNAL §1): what the memory says — rows, fields,
vectors, links — and not wall-clock bookkeeping, so a replay or a re-run import matches."""

from __future__ import annotations

import hashlib
import sqlite3

from core.store.changes import TABLE_KEYS, encode_value
from core.store.journal import canonical_json

# Columns that record when something was written, not what the memory says.
WALL_CLOCK_COLUMNS: dict[str, set[str]] = {
    "observations": {"captured_at"},
    "corrections": {"created_at", "journal_seq"},
}


def exclude_columns(table: str, columns: set[str]) -> None:
    """Later migrations name their own bookkeeping columns here."""
    WALL_CLOCK_COLUMNS.setdefault(table, set()).update(columns)


def digest(conn: sqlite3.Connection) -> str:
    h = hashlib.sha256()
    for table in sorted(TABLE_KEYS):
        skip = WALL_CLOCK_COLUMNS.get(table, set())
        cursor = conn.execute(f"SELECT * FROM {table} ORDER BY {', '.join(TABLE_KEYS[table])}")
        names = [d[0] for d in cursor.description]
        h.update(f"\x00table:{table}\x00".encode())
        for row in cursor:
            record = {n: encode_value(v) for n, v in zip(names, row) if n not in skip}
            h.update(canonical_json(record).encode("utf-8"))
            h.update(b"\n")
    return h.hexdigest()
