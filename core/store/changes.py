"""Row-level change sets: what every journal payload carries, so a change can be replayed and
inverted without knowing which command made it.

A change is a dict:
  {"t": table, "a": "insert", "row": {...}}
  {"t": table, "a": "delete", "row": {...}}            (the whole row, so undo can restore it)
  {"t": table, "a": "update", "pk": {...}, "set": {...}, "old": {...}}
BLOB values travel as {"$b64": "..."} so payloads stay canonical JSON.
"""

from __future__ import annotations

import base64
from typing import Any

from core.store.sqlite import sqlite3

# Tables a change may never touch: the journal itself, bookkeeping (the recall log: who read
# what; the index change log and snapshot; the ids once given), and FTS internals (kept in
# sync by triggers). Any other table of the schema is fair game, so later migrations need no
# registration; a crafted journal still cannot write outside the memory's own tables.
_FORBIDDEN_PREFIXES = ("sqlite_", "journal", "pulse_meta", "schema_version", "recall_log",
                       "index_changes", "index_snapshot", "id_high_water")
_keys_cache: dict[str, tuple[str, ...]] = {}


def is_internal(table: str) -> bool:
    return table.startswith(_FORBIDDEN_PREFIXES) or "_fts" in table


def table_keys(conn: sqlite3.Connection, table: str) -> tuple[str, ...]:
    """Primary-key columns of a memory table (ValueError for unknown or internal tables)."""
    cached = _keys_cache.get(table)
    if cached is not None:
        return cached
    if is_internal(table) or not table.replace("_", "").isalnum():
        raise ValueError(f"change touches a table it may not: {table!r}")
    info = conn.execute(f"PRAGMA table_info({table})").fetchall()
    if not info:
        raise ValueError(f"change touches unknown table {table!r}")
    keys = tuple(row[1] for row in sorted(info, key=lambda r: r[5]) if row[5] > 0)
    _keys_cache[table] = keys or ("rowid",)
    return _keys_cache[table]


def encode_value(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"$b64": base64.b64encode(bytes(value)).decode("ascii")}
    return value


def decode_value(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"$b64"}:
        return base64.b64decode(value["$b64"])
    return value


def encode_row(row: dict[str, Any]) -> dict[str, Any]:
    return {k: encode_value(v) for k, v in row.items()}


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


# Column names already seen in a table. Only known names are cached: a name not in the set is
# looked up again (a migration may have added it since), so the cache never refuses a real
# column; a cached name is a real identifier, safe to put in SQL (a memory that lacks it makes
# SQLite refuse the statement). PRAGMA table_info on every change was 5-6 s of CPU in an import
# of all of LoCoMo (50,000 changes; SQLCipher makes each PRAGMA costly).
_columns_seen: dict[str, frozenset[str]] = {}


def _checked(conn: sqlite3.Connection, table: str, names: list[str]) -> None:
    table_keys(conn, table)
    seen = _columns_seen.get(table)
    if seen is not None and seen.issuperset(names):
        return
    columns = _columns(conn, table)
    _columns_seen[table] = frozenset(columns)
    unknown = set(names) - columns
    if unknown:
        raise ValueError(f"change names unknown columns of {table}: {sorted(unknown)}")


def apply_change(conn: sqlite3.Connection, change: dict[str, Any]) -> None:
    table, action = change["t"], change["a"]
    if action == "insert":
        row = change["row"]
        names = list(row)
        _checked(conn, table, names)
        conn.execute(
            f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
            [decode_value(row[n]) for n in names],
        )
    elif action == "delete":
        keys = table_keys(conn, table)
        row = change["row"]
        gone = conn.execute(
            f"DELETE FROM {table} WHERE " + " AND ".join(f"{k} = ?" for k in keys),
            [decode_value(row[k]) for k in keys],
        ).rowcount
        if not gone and keys == ("id",):
            _mark_id_taken(conn, table, decode_value(row["id"]))
    elif action == "update":
        pk, new = change["pk"], change["set"]
        _checked(conn, table, list(new) + list(pk))
        conn.execute(
            f"UPDATE {table} SET " + ", ".join(f"{n} = ?" for n in new)
            + " WHERE " + " AND ".join(f"{k} = ?" for k in pk),
            [decode_value(new[n]) for n in new] + [decode_value(pk[k]) for k in pk],
        )
    else:
        raise ValueError(f"unknown change action {action!r}")


def _mark_id_taken(conn: sqlite3.Connection, table: str, row_id: Any) -> None:
    """A delete that finds no row: a replay of an erasure, whose rows' creation the journal no
    longer holds. The id was given all the same; mark it as the delete trigger would have
    (migration 012), so the replay never gives it again either."""
    if not isinstance(row_id, int) or not conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?",
            (f"{table}_id_high_water",)).fetchone():
        return
    conn.execute("INSERT INTO id_high_water (name, top) VALUES (?, ?) ON CONFLICT (name)"
                 " DO UPDATE SET top = max(top, excluded.top)", (table, row_id))


def apply_changes(conn: sqlite3.Connection, changes: list[dict[str, Any]]) -> None:
    for change in changes:
        apply_change(conn, change)


def invert(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The change set that undoes `changes` (applied in reverse order)."""
    inverse = []
    for change in reversed(changes):
        action = change["a"]
        if action == "insert":
            inverse.append({"t": change["t"], "a": "delete", "row": change["row"]})
        elif action == "delete":
            inverse.append({"t": change["t"], "a": "insert", "row": change["row"]})
        else:
            inverse.append({"t": change["t"], "a": "update", "pk": change["pk"],
                            "set": change["old"], "old": change["set"]})
    return inverse


def row_dict(conn: sqlite3.Connection, table: str, where: dict[str, Any]) -> dict[str, Any] | None:
    """The current row as an encoded dict (for `old` values and delete payloads)."""
    cursor = conn.execute(
        f"SELECT * FROM {table} WHERE " + " AND ".join(f"{k} = ?" for k in where),
        list(where.values()),
    )
    row = cursor.fetchone()
    if row is None:
        return None
    names = [d[0] for d in cursor.description]
    return encode_row(dict(zip(names, tuple(row))))
