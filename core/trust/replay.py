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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core import sealed
from core.errors import PulseError, ValidationError
from core.files import read_bytes
from core.store import db, journal
from core.store.changes import apply_changes
from core.store.locks import refuse_to_overwrite
from core.store.sqlite import sqlite3

FORMAT = "pulse-journal/1"
ROW_KEYS = ("seq", "ts", "actor", "op", "subject", "payload", "payload_sha256", "prev", "hash")


def iter_export(conn: sqlite3.Connection) -> Iterator[str]:
    """The export's lines. It leaves the owner's view: a redact or no_capture person's own
    entity row carries the role label (or "[not captured]") instead of their names, and any
    name left in a payload is relabelled; such rows are marked redacted, so the chain still
    verifies and a replay builds the memory as others may see it (docs/privacy.md)."""
    from core.privacy.outside import OutsideView

    view = OutsideView(conn)
    stored = journal.read_rows(conn)
    rows = [_outside_row(row, view) for row in stored] if view.hidden_names else stored
    head = rows[-1] if rows else None
    # the rows rewritten here: no journal row vouches for them, the header names them instead
    relabelled = [r["seq"] for r, s in zip(rows, stored) if r["payload"] != s["payload"]]
    yield journal.canonical_json({"format": FORMAT, "rows": len(rows),
                                  "head_seq": head["seq"] if head else 0,
                                  "head_hash": head["hash"] if head else None,
                                  "schema_version": db.schema_version(conn),
                                  "relabelled": relabelled})
    for row in rows:
        try:
            payload = json.loads(row["payload"])
        except ValueError:
            payload = row["payload"]  # verify reports it; export keeps what is there
        yield journal.canonical_json({**row, "payload": payload})


def _outside_row(row: dict[str, Any], view: Any) -> dict[str, Any]:
    try:
        payload = json.loads(row["payload"])
    except ValueError:
        return row
    if not isinstance(payload, dict):
        return row
    new = _relabel(payload, view)
    for change in new.get("changes", []) if isinstance(new.get("changes"), list) else []:
        if not isinstance(change, dict) or change.get("t") != "entities":
            continue
        source = change.get("pk") if change.get("a") == "update" else change.get("row")
        person = view.policies.person(source.get("id")) if isinstance(source, dict) else None
        if person is None or person not in view.hidden_names:
            continue
        for part in ("row", "set", "old"):
            values = change.get(part)
            if isinstance(values, dict):
                if "canonical_name" in values:
                    values["canonical_name"] = person.shown_name()
                if "aliases" in values:
                    values["aliases"] = "[]"
    if new == payload:
        return row
    new["redacted"] = True
    return {**row, "payload": journal.canonical_json(new)}


def _relabel(value: Any, view: Any) -> Any:
    if isinstance(value, str):
        return view.text(value)
    if isinstance(value, list):
        return [_relabel(v, view) for v in value]
    if isinstance(value, dict):
        if set(value) == {"$b64"}:
            return value
        return {k: _relabel(v, view) for k, v in value.items()}
    return value


def export_journal(memory: Any, out: str | Path) -> dict[str, Any]:
    """Write the journal as JSON Lines to `out` (atomically: a temp file then rename). The
    journal of an encrypted memory is sealed (core/sealed.py) with the memory's passphrase:
    no plaintext byte reaches the disk, not even in the temp file."""
    conn = memory if isinstance(memory, sqlite3.Connection) else memory.conn
    out = Path(out)
    refuse_to_overwrite(out)
    tmp = out.with_name(out.name + ".tmp")
    lines = list(iter_export(conn))
    text = "".join(line + "\n" for line in lines).encode("utf-8")
    secret = getattr(conn, "secret", None) if getattr(conn, "encrypted", False) else None
    if secret:
        text = sealed.seal(text, secret, FORMAT)
    try:
        with tmp.open("wb") as fh:
            fh.write(text)
        tmp.replace(out)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise PulseError(f"{out}: cannot write the journal ({exc.strerror})") from None
    return {"out": str(out), "rows": len(lines) - 1, "sealed": bool(secret)}


def is_sealed(path: str | Path) -> bool:
    """Whether an exported journal is sealed (needs the passphrase to read)."""
    return sealed.is_sealed(read_bytes(Path(path))[:64])


def read_export(path: str | Path, passphrase: Any = None) -> list[dict[str, Any]]:
    """Parse an exported journal into rows (payload re-serialised canonically); a sealed one
    is opened with `passphrase` (a string or a callable asked only then)."""
    return read_export_with_header(path, passphrase)[1]


def read_export_with_header(path: str | Path, passphrase: Any = None
                            ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    path = Path(path)
    raw = read_bytes(path)
    if sealed.is_sealed(raw[:64]):
        secret = passphrase() if callable(passphrase) else passphrase
        if not secret:
            raise PulseError(f"{path}: the journal is sealed; give its passphrase "
                             "(PULSE_PASSPHRASE, or type it when asked)")
        raw = sealed.unseal(raw, secret, FORMAT, str(path))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValidationError(f"{path}: not UTF-8 text") from None
    rows: list[dict[str, Any]] = []
    header: dict[str, Any] = {}
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
            header = item
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
    _check_complete(rows, header, path)
    return header, rows


def _check_complete(rows: list[dict[str, Any]], header: dict[str, Any], path: Path) -> None:
    """The header says how many rows the export wrote and which came last: a file that ends
    before them (a copy that stopped early) would replay into a memory with rows missing."""
    if "head_seq" not in header:
        return
    last = rows[-1] if rows else {"seq": 0, "hash": None}
    if (len(rows), last["seq"], last["hash"]) != (header.get("rows"), header["head_seq"],
                                                  header.get("head_hash")):
        raise ValidationError(f"{path}: it holds {len(rows)} rows, up to row {last['seq']}, "
                              f"but its header says {header.get('rows')} up to row "
                              f"{header['head_seq']}: the file was cut short or altered; "
                              "refusing to replay it")


def _changes_of(row: dict[str, Any]) -> list[dict[str, Any]]:
    payload = json.loads(row["payload"])
    changes = payload.get("changes", [])
    if not isinstance(changes, list):
        raise ValidationError(f"journal row {row['seq']}: changes must be a list")
    return changes


def replay(journal_path: str | Path, target: str | Path, passphrase: Any = None
           ) -> dict[str, Any]:
    """Rebuild (or bring up to date) the memory at `target` from an exported journal.

    Zero network calls, no model: payloads carry every vector and number. The whole replay is
    one transaction: it lands whole or not at all. A sealed journal (from an encrypted memory)
    needs `passphrase`, and a new target is then encrypted with it too."""
    was_sealed = is_sealed(journal_path)
    secret: dict[str, str] = {}

    def ask() -> str:
        if "value" not in secret:
            secret["value"] = passphrase() if callable(passphrase) else passphrase
        return secret["value"]

    header, rows = read_export_with_header(journal_path, ask)
    # an export by an earlier Pulse has no "relabelled": its redactions are not vouched for
    relabelled = header.get("relabelled")
    breaks = journal.verify_rows(
        rows, legacy_redactions=not isinstance(relabelled, list),
        relabelled=frozenset(s for s in relabelled or [] if isinstance(s, int)))
    if breaks:
        raise PulseError(f"{journal_path}: the journal does not verify ({breaks[0]}); "
                         "refusing to replay it")
    conn = db.connect(target, create=True, passphrase=ask if was_sealed else passphrase,
                      encrypt=was_sealed)
    try:
        return _replay_rows(conn, rows, str(target))
    finally:
        conn.close()


def _replay_rows(conn: sqlite3.Connection, rows: list[dict[str, Any]], label: str
                 ) -> dict[str, Any]:
    # Erasure may leave rows of a redacted history that reference rows the journal no longer
    # creates; foreign keys are checked once at the end instead of change by change.
    conn.execute("PRAGMA foreign_keys=OFF")
    try:
        # what the target holds is read under the write lock: another replay (or any writer)
        # that committed while this one waited is seen, not written over
        db.begin_immediate(conn)
        try:
            out = _apply_rows(conn, rows, label)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    finally:
        conn.execute("PRAGMA foreign_keys=ON")
    return {**out, "head": journal.head(conn)[0]}


def _apply_rows(conn: sqlite3.Connection, rows: list[dict[str, Any]], label: str
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
        # rewrites no row vouches for (relabelled by the export, or erased by an
        # earlier Pulse) are vouched for here, as they arrived; appending does it
        legacy = journal.unvouched_redactions(journal.rewrite_candidates(conn))
        if legacy:
            journal.append(conn, "system", "replay.vouch", "journal",
                           {"changes": [], journal.VOUCHES: legacy})
        else:
            journal.mark_vouching_started(conn)
        model = _active_model(conn, rows)
        if model:
            conn.execute("INSERT OR REPLACE INTO pulse_meta (key, value) VALUES "
                         "('embedding_model', ?)", (model,))
    bad = conn.execute("PRAGMA foreign_key_check").fetchall()
    if bad:
        raise PulseError(f"replay left a dangling reference in {bad[0][0]} "
                         f"(row {bad[0][1]}); nothing was written")
    return {"db": label, "rows": len(rows), "applied": applied,
            "already_present": len(rows) - applied, "redacted_rows": skipped_redacted}


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
