"""Undo and redo over the journal (JOURNAL §1: "undo appends the inverse change; the history is
never rewritten").

- An undoable row has a non-empty `changes` list, is not redacted, and is not an erasure
  (`forget`) — an erasure is final and is also a barrier: undo never reaches past it.
- `undo(memory)` inverts the most recent original action that is still in effect: it appends a
  row (op "undo", payload {"changes": inverse, "undoes": seq}).
- `redo(memory)` undoes the most recent undo that is still in effect, provided no new action
  came after it (op "redo", payload {"changes": inverse of the undo, "undoes": undo seq}).
- `undo(memory, seq=N)` inverts one given row (an undo row → a redo).
- Rows of DERIVED_OPS (derived text refreshed on a read) are skipped by plain undo and redo.
Before each inverse change is applied, the current rows are checked against what the inverse
expects; if a later row changed them, nothing is written and the error names the row.
"""

from __future__ import annotations

import json
from typing import Any

from core.errors import PulseError
from core.store.changes import apply_change, decode_value, invert, row_dict, table_keys
from core.store.commands import execute, transaction
from core.store.sqlite import sqlite3
from core.trust.corrections import conn_of, writable

BARRIER_OPS = ("forget", "policy.apply")   # erasures, and a policy applied backwards
UNDO_OPS = ("undo", "redo")
# Rows that only refresh derived text (a storyline summary written when first read): a plain
# undo or redo passes over them rather than undoing a read; `undo(seq=N)` still reaches them.
DERIVED_OPS = ("storyline.refresh",)


def _rows(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    out = []
    for seq, op, subject, payload_text in conn.execute(
            "SELECT seq, op, subject, payload FROM journal ORDER BY seq"):
        try:
            payload = json.loads(payload_text)
        except ValueError:
            payload = {}
        if not isinstance(payload, dict):
            payload = {}
        out.append({"seq": int(seq), "op": op, "subject": subject, "payload": payload})
    return out


def _undone(rows: list[dict[str, Any]]) -> set[int]:
    """Seqs whose effect is currently reversed (by a live undo/redo row after them)."""
    undone: set[int] = set()
    for row in reversed(rows):
        target = row["payload"].get("undoes")
        if row["seq"] not in undone and isinstance(target, int) and row["op"] in UNDO_OPS:
            undone.add(target)
    return undone


def _undoable(row: dict[str, Any]) -> bool:
    payload = row["payload"]
    changes = payload.get("changes")
    return (row["op"] not in BARRIER_OPS and payload.get("redacted") is not True
            and isinstance(changes, list) and bool(changes))


def history(memory: Any, limit: int = 50, *, subject: str | None = None
            ) -> list[dict[str, Any]]:
    """The newest journal rows with their undo state (for the app's history view); `subject`
    keeps only one item's rows."""
    rows = _rows(conn_of(memory))
    undone = _undone(rows)
    if subject is not None:
        rows = [r for r in rows if r["subject"] == subject]
    out = []
    for row in reversed(rows[-limit:] if limit else rows):
        out.append({"seq": row["seq"], "op": row["op"], "subject": row["subject"],
                    "undoable": _undoable(row), "undone": row["seq"] in undone,
                    "undoes": row["payload"].get("undoes")})
    return out


def next_undo(memory: Any) -> int | None:
    """The seq `undo()` would invert, or None."""
    rows = _rows(conn_of(memory))
    undone = _undone(rows)
    for row in reversed(rows):
        if row["op"] in BARRIER_OPS:
            return None
        if row["op"] == "undo" or row["seq"] in undone or not _undoable(row) \
                or row["op"] in DERIVED_OPS:
            continue
        if row["op"] == "redo":
            # undoing a redo: undo the original action again
            original = _original(rows, row)
            if original is not None and original["seq"] not in undone:
                return original["seq"]
            continue
        return row["seq"]
    return None


def next_redo(memory: Any) -> int | None:
    """The seq of the undo row `redo()` would reverse, or None."""
    rows = _rows(conn_of(memory))
    undone = _undone(rows)
    for row in reversed(rows):
        if row["op"] in BARRIER_OPS:
            return None
        if row["op"] == "undo" and row["seq"] not in undone and _undoable(row):
            return row["seq"]
        if row["op"] in ("redo", "undo", *DERIVED_OPS):
            continue
        if _undoable(row):
            return None  # a new action after the undos clears the redo stack
    return None


def _original(rows: list[dict[str, Any]], row: dict[str, Any]) -> dict[str, Any] | None:
    by_seq = {r["seq"]: r for r in rows}
    seen = set()
    while row is not None and row["op"] in UNDO_OPS and row["seq"] not in seen:
        seen.add(row["seq"])
        row = by_seq.get(row["payload"].get("undoes"))
    return row


def undo(memory: Any, seq: int | None = None, *, actor: str = "manual") -> dict[str, Any]:
    """Invert the most recent action still in effect (or row `seq`). Returns {"seq": new row,
    "undoes": target seq, "op": "undo"|"redo", "target_op": ...}."""
    conn = writable(memory)
    with transaction(conn):
        target = next_undo(conn) if seq is None else seq
        if target is None:
            raise PulseError(_why_nothing(conn))
        return _invert_row(conn, target, actor)


def _why_nothing(conn: Any) -> str:
    """"nothing to undo", and when an erasure stops the walk, that it does: a user who just
    forgot something, or made edits after it, would otherwise read "nothing" as an empty
    history."""
    barrier = conn.execute(
        f"SELECT seq, op FROM journal WHERE op IN ({','.join('?' * len(BARRIER_OPS))})"
        " ORDER BY seq DESC LIMIT 1", BARRIER_OPS).fetchone()
    if barrier is None:
        return "nothing to undo"
    what = "an erasure" if barrier[1] == "forget" else "a policy applied to stored text"
    return (f"nothing to undo since journal row {barrier[0]}: {what} cannot be undone, and "
            "what came before it stays as it is")


def redo(memory: Any, *, actor: str = "manual") -> dict[str, Any]:
    """Reverse the most recent undo (when no new action came after it)."""
    conn = writable(memory)
    with transaction(conn):
        target = next_redo(conn)
        if target is None:
            raise PulseError("nothing to redo")
        return _invert_row(conn, target, actor)


def _invert_row(conn: sqlite3.Connection, seq: int, actor: str) -> dict[str, Any]:
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise PulseError(f"journal row {seq!r} is not a whole number")
    rows = _rows(conn)
    by_seq = {r["seq"]: r for r in rows}
    row = by_seq.get(seq)
    if row is None:
        raise PulseError(f"no journal row {seq}")
    if not _undoable(row):
        why = ("an erasure is final" if row["op"] in BARRIER_OPS else
               "its payload was redacted by an erasure" if row["payload"].get("redacted") else
               "it changed nothing")
        raise PulseError(f"journal row {seq} ({row['op']}) cannot be undone: {why}")
    if seq in _undone(rows):
        raise PulseError(f"journal row {seq} ({row['op']}) is already undone")
    barrier = max((r["seq"] for r in rows if r["op"] in BARRIER_OPS), default=0)
    if seq < barrier:
        raise PulseError(f"journal row {seq} is older than the erasure at row {barrier}; "
                         "undo cannot reach past an erasure")
    inverse = invert(row["payload"]["changes"])
    # dry run, change by change, against the rows as they are now; then the real write
    conn.execute("SAVEPOINT pulse_undo_check")
    try:
        for change in inverse:
            _check(conn, change, seq)
            apply_change(conn, change)
    finally:
        conn.execute("ROLLBACK TO pulse_undo_check")
        conn.execute("RELEASE pulse_undo_check")
    op = "redo" if row["op"] == "undo" else "undo"
    new_seq = execute(conn, actor=actor, op=op, subject=row["subject"], changes=inverse,
                      extra={"undoes": seq})
    return {"seq": new_seq, "undoes": seq, "op": op, "target_op": row["op"],
            "subject": row["subject"]}


def _same(a: Any, b: Any) -> bool:
    a, b = decode_value(a), decode_value(b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return float(a) == float(b)
    return a == b


def _check(conn: sqlite3.Connection, change: dict[str, Any], seq: int) -> None:
    """Refuse an inverse change that no longer fits the current rows."""
    table, action = change["t"], change["a"]
    keys = table_keys(conn, table)
    source = change["pk"] if action == "update" else change["row"]
    pk = {k: decode_value(source[k]) for k in keys}
    current = row_dict(conn, table, pk)
    label = f"{table} {', '.join(f'{k}={v}' for k, v in pk.items())}"
    stale = f"cannot undo journal row {seq}: {label} was changed by a later row; undo that first"
    if action == "insert":
        if current is not None:
            raise PulseError(stale)
    elif action == "delete":
        if current is None or any(not _same(current.get(k), v) for k, v in change["row"].items()):
            raise PulseError(stale)
        _check_unreferenced(conn, table, current, seq, label)
    else:
        if current is None or any(not _same(current.get(k), v) for k, v in change["old"].items()):
            raise PulseError(stale)


def _check_unreferenced(conn: sqlite3.Connection, table: str, row: dict[str, Any], seq: int,
                        label: str) -> None:
    """A delete must not cascade into rows that a later action added."""
    if table == "corrections":
        _check_not_superseded(conn, row, seq)
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for other in tables:
        for fk in conn.execute(f"PRAGMA foreign_key_list({other})").fetchall():
            if fk["table"] != table:
                continue
            value = row.get(fk["to"] or "id")
            if value is None:
                continue
            hit = conn.execute(f"SELECT 1 FROM {other} WHERE {fk['from']} = ? LIMIT 1",
                               (decode_value(value),)).fetchone()
            if hit:
                raise PulseError(f"cannot undo journal row {seq}: {label} is still referenced "
                                 f"from {other} (added later); undo that first")


def _check_not_superseded(conn: sqlite3.Connection, row: dict[str, Any], seq: int) -> None:
    """A correction another one supersedes (by the journal row that recorded it) is referred
    to as surely as by a foreign key: undone first, the later one would supersede nothing."""
    recorded = decode_value(row.get("journal_seq"))
    if recorded is None:
        return
    for other_seq, text in conn.execute(
            "SELECT journal_seq, supersedes FROM corrections WHERE id != ?",
            (decode_value(row["id"]),)):
        try:
            superseded = json.loads(text or "[]")
        except ValueError:
            continue
        if isinstance(superseded, list) and recorded in superseded:
            raise PulseError(f"cannot undo journal row {seq}: the correction it recorded is "
                             f"superseded by the one journal row {other_seq} recorded (added "
                             "later); undo that first")
