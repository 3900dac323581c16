"""Journal export and replay (JOURNAL §1).

Export: JSON Lines — a header line {"format": "pulse-journal/1", ...} then one journal row per
line, verbatim (seq, ts, actor, op, subject, payload as an object, payload_sha256, prev, hash).

Replay copies every row verbatim (same seq, ts, actor, op, subject, payload, hash), so the
rebuilt journal has the identical hash chain and verifies, and applies each row's `changes` in
order — the same code path as the original write, with no model and no network. Rows already in
the target (same seq and hash) are skipped, so replaying twice adds nothing; a target whose
journal diverges from the file is refused untouched. A redacted payload (erasure) carries only
the changes that did not touch erased rows; the tombstone row removes what remains.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.errors import PulseError, ValidationError
from core.files import read_text
from core.store import db, journal
from core.store.changes import apply_changes
from core.store.locks import refuse_if_held

FORMAT = "pulse-journal/1"
ROW_KEYS = ("seq", "ts", "actor", "op", "subject", "payload", "payload_sha256", "prev", "hash")


def iter_export(conn: sqlite3.Connection) -> Iterator[str]:
    rows = journal.read_rows(conn)
    head = rows[-1] if rows else None
    yield journal.canonical_json({"format": FORMAT, "rows": len(rows),
                                  "head_seq": head["seq"] if head else 0,
                                  "head_hash": head["hash"] if head else None,
                                  "schema_version": db.schema_version(conn)})
    for row in rows:
        try:
            payload = json.loads(row["payload"])
        except ValueError:
            payload = row["payload"]  # verify reports it; export keeps what is there
        yield journal.canonical_json({**row, "payload": payload})


def export_journal(memory: Any, out: str | Path) -> dict[str, Any]:
    """Write the journal as JSON Lines to `out` (atomically: a temp file then rename)."""
    conn = memory if isinstance(memory, sqlite3.Connection) else memory.conn
    out = Path(out)
    refuse_if_held(out, "overwritten")
    tmp = out.with_name(out.name + ".tmp")
    count = 0
    try:
        with tmp.open("w", encoding="utf-8", newline="\n") as fh:
            for i, line in enumerate(iter_export(conn)):
                fh.write(line + "\n")
                count = i
        tmp.replace(out)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise PulseError(f"{out}: cannot write the journal ({exc.strerror})") from None
    return {"out": str(out), "rows": count}


def read_export(path: str | Path) -> list[dict[str, Any]]:
    """Parse an exported journal into rows (payload re-serialised canonically)."""
    path = Path(path)
    text = read_text(path)
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise ValidationError(f"{path}: line {number} is not valid JSON ({exc})") from None
        if not isinstance(item, dict):
            raise ValidationError(f"{path}: line {number} is not a JSON object")
        if "format" in item and "seq" not in item:
            if item["format"] != FORMAT:
                raise ValidationError(f"{path}: format {item['format']!r} is not {FORMAT!r}")
            continue
        missing = [k for k in ROW_KEYS if k not in item]
        if missing:
            raise ValidationError(f"{path}: line {number} lacks {missing[0]!r}")
        payload = item["payload"]
        if not isinstance(payload, dict):
            raise ValidationError(f"{path}: line {number}: payload must be an object")
        if not isinstance(item["seq"], int) or isinstance(item["seq"], bool):
            raise ValidationError(f"{path}: line {number}: seq must be a whole number")
        for key in ("ts", "actor", "op", "subject", "payload_sha256", "hash"):
            if not isinstance(item[key], str):
                raise ValidationError(f"{path}: line {number}: {key} must be a string")
        try:
            payload_text = journal.canonical_json(payload)
        except ValueError as exc:
            raise ValidationError(f"{path}: line {number}: payload ({exc})") from None
        rows.append({**{k: item[k] for k in ROW_KEYS}, "payload": payload_text})
    return rows


def _changes_of(row: dict[str, Any]) -> list[dict[str, Any]]:
    payload = json.loads(row["payload"])
    changes = payload.get("changes", [])
    if not isinstance(changes, list):
        raise ValidationError(f"journal row {row['seq']}: changes must be a list")
    return changes


def replay(journal_path: str | Path, target: str | Path) -> dict[str, Any]:
    """Rebuild (or bring up to date) the memory at `target` from an exported journal.

    Zero network calls, no model: payloads carry every vector and number. The whole replay is
    one transaction: it lands whole or not at all."""
    rows = read_export(journal_path)
    breaks = journal.verify_rows(rows)
    if breaks:
        raise PulseError(f"{journal_path}: the journal does not verify ({breaks[0]}); "
                         "refusing to replay it")
    conn = db.connect(target, create=True)
    try:
        return _replay_rows(conn, rows, str(target))
    finally:
        conn.close()


def _replay_rows(conn: sqlite3.Connection, rows: list[dict[str, Any]], label: str
                 ) -> dict[str, Any]:
    existing = {r["seq"]: r["hash"] for r in conn.execute("SELECT seq, hash FROM journal")}
    local_breaks = journal.verify(conn) if existing else []
    if local_breaks:
        raise PulseError(f"{label}: its own journal does not verify ({local_breaks[0]})")
    head_seq = max(existing, default=0)
    for row in rows:
        if row["seq"] > head_seq:
            break
        if existing.get(row["seq"]) != row["hash"]:
            raise PulseError(f"{label}: its journal diverges from the file at row {row['seq']}; "
                             "replay into a new database instead")
    if not existing:
        # a fresh file: nothing but the schema may be there, or the copy would not be faithful
        for table in ("events", "entities", "observations", "corrections"):
            if conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone():
                raise PulseError(f"{label}: holds memory but no journal; replay into a new "
                                 "database")
    todo = [r for r in rows if r["seq"] > head_seq]
    applied = skipped_redacted = 0
    # Erasure may leave rows of a redacted history that reference rows the journal no longer
    # creates; foreign keys are checked once at the end instead of change by change.
    conn.execute("PRAGMA foreign_keys=OFF")
    try:
        db.begin_immediate(conn)
        try:
            for row in todo:
                changes = _changes_of(row)
                if json.loads(row["payload"]).get("redacted") is True:
                    skipped_redacted += 1
                try:
                    apply_changes(conn, changes)
                except (sqlite3.Error, ValueError, KeyError, TypeError) as exc:
                    raise PulseError(f"journal row {row['seq']} ({row['op']}): cannot apply its "
                                     f"changes ({exc})") from None
                conn.execute(
                    "INSERT INTO journal (seq, ts, actor, op, subject, payload, payload_sha256,"
                    " prev, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [row[k] for k in ROW_KEYS])
                applied += 1
            if todo:
                last = todo[-1]
                conn.execute("INSERT OR REPLACE INTO pulse_meta (key, value) VALUES "
                             "('journal_head', ?)", (f"{last['seq']}:{last['hash']}",))
                model = _active_model(conn, rows)
                if model:
                    conn.execute("INSERT OR REPLACE INTO pulse_meta (key, value) VALUES "
                                 "('embedding_model', ?)", (model,))
            bad = conn.execute("PRAGMA foreign_key_check").fetchall()
            if bad:
                raise PulseError(f"replay left a dangling reference in {bad[0][0]} "
                                 f"(row {bad[0][1]}); nothing was written")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    finally:
        conn.execute("PRAGMA foreign_keys=ON")
    return {"db": label, "rows": len(rows), "applied": applied,
            "already_present": len(rows) - applied, "redacted_rows": skipped_redacted,
            "head": journal.head(conn)[0]}


def _active_model(conn: sqlite3.Connection, rows: list[dict[str, Any]]) -> str | None:
    """The embedding model of the most recent vector written, which the original had active."""
    for row in reversed(rows):
        try:
            changes = _changes_of(row)
        except (ValueError, ValidationError):
            continue
        for change in reversed(changes):
            if change.get("t") == "event_embeddings" and change.get("a") == "insert":
                return change["row"].get("model")
    return None
