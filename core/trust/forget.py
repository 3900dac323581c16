"""Erasure (JOURNAL §1): `forget KIND:ID…` as ONE journaled, irreversible step.

What goes is planned in core/trust/erase_plan.py (an event, fact, relation, entity or
observation with everything derived from it; with `cascade`, everything about a person), minus
what the person unticked in the preview (`keep`). Rows that stay but pointed at an erased row
have the pointer cleared (events.source_observation, events.absorbed_into, …).

In the journal every change that touched an erased row is stripped from its payload, which
becomes {"redacted": true, "changes": [the rest], ...} — extra context that quotes erased text
(or, in a cascade, names the person) is dropped too. The row keeps its payload_sha256, so the
hash chain still verifies, and a replay of the export rebuilds exactly what is left. A
tombstone row ("forget", who, when, what kind, how many rows — no content) removes the rows
themselves. Then the full-text indexes are rebuilt, the WAL is checkpointed and the file
VACUUMed, so the erased text is no longer in the file's bytes nor in its -wal.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from core.errors import PulseError
from core.privacy.policy import name_pattern
from core.scoring import snapshot as index_snapshot
from core.store import journal
from core.store.changes import decode_value, table_keys
from core.store.commands import execute, transaction
from core.store.sqlite import sqlite3
from core.trust import recall_log
from core.trust.corrections import conn_of, writable
from core.trust.erase_plan import KINDS, Plan, kept_mentions, parse_ref, plan_erasure

__all__ = ["KINDS", "compact", "forget", "parse_ref", "plan_erasure", "preview"]

# Deletion order: children before parents, so foreign keys hold after every change.
DELETE_ORDER = ("event_embeddings", "event_emotions", "event_chains", "event_entities",
                "evidence", "facts", "relations", "events", "entities", "observations")


EXPLICIT_TABLES = set(DELETE_ORDER)


def _foreign(plan: Plan) -> tuple[list[str], list[dict[str, Any]]]:
    """Rows of other tables (later migrations) that point at erased rows: ON DELETE CASCADE
    (or no action) → erased with them; SET NULL → the pointer cleared, as an explicit change.
    Returns (tables with erased rows, deleted before the core tables; updates)."""
    from core.store.changes import is_internal

    conn = plan.conn
    erased = {"events": plan.ids["event"], "observations": plan.ids["observation"],
              "entities": plan.ids["entity"], "facts": plan.ids["fact"],
              "relations": plan.ids["relation"]}
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    updates: list[dict[str, Any]] = []
    for table in tables:
        if table in EXPLICIT_TABLES or is_internal(table):
            continue
        for fk in conn.execute(f"PRAGMA foreign_key_list({table})").fetchall():
            ids = erased.get(fk["table"])
            if not ids:
                continue
            marks = "(" + ",".join("?" * len(ids)) + ")"
            values = sorted(ids)
            where = f"{fk['from']} IN {marks}"
            if fk["on_delete"].upper() == "SET NULL":
                keys = table_keys(conn, table)
                cursor = conn.execute(f"SELECT * FROM {table} WHERE {where}", values)
                names = [d[0] for d in cursor.description]
                for row in cursor:
                    data = dict(zip(names, row))
                    pk = tuple(data[k] for k in keys)
                    updates.append({"t": table, "a": "update",
                                    "pk": dict(zip(keys, pk)), "set": {fk["from"]: None},
                                    "old": {fk["from"]: data[fk["from"]]}})
            else:
                plan.add_rows(table, where, values)
    # an update on a row that is itself erased is moot
    updates = [u for u in updates if not plan.has(u["t"], tuple(u["pk"].values()))]
    extra_tables = sorted(t for t, rows in plan.rows.items() if rows and t not in EXPLICIT_TABLES)
    return extra_tables, updates


def _scrub_bookkeeping(conn: sqlite3.Connection, plan: Plan, texts: list[str],
                       names: re.Pattern[str] | None) -> int:
    """Extraction jobs keep the model's output (bookkeeping, not journaled): blank what an
    erased observation produced or what quotes erased text (or names the erased person); the
    job row stays so the source is not extracted again."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'ingest_jobs'").fetchone():
        return 0
    columns = {r[1] for r in conn.execute("PRAGMA table_info(ingest_jobs)")}
    blank = {c: v for c, v in (("triage", None), ("extraction", None), ("rejected", "[]"),
                               ("last_error", "")) if c in columns}
    if not blank:
        return 0
    ids: set[int] = set()
    if plan.storylines and "source_id" in columns:   # a model's storyline summaries
        keys = sorted(plan.storylines)
        ids |= {r[0] for r in conn.execute(
            f"SELECT id FROM ingest_jobs WHERE source_kind = 'storyline' AND source_id IN"
            f" ({','.join('?' * len(keys))})", keys)}
    if plan.observations and "observation_id" in columns:
        values = sorted(plan.observations)
        ids |= {r[0] for r in conn.execute(
            f"SELECT id FROM ingest_jobs WHERE observation_id IN ({','.join('?' * len(values))})",
            values)}
    text_cols = [c for c in ("triage", "extraction", "rejected", "last_error") if c in columns]
    for text in texts:
        for variant in {text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]}:
            for col in text_cols:
                ids |= {r[0] for r in conn.execute(
                    f"SELECT id FROM ingest_jobs WHERE instr({col}, ?) > 0", (variant,))}
    if names is not None and text_cols:
        for row in conn.execute(f"SELECT id, {', '.join(text_cols)} FROM ingest_jobs"):
            if any(_names_in(value, names) for value in row[1:]):
                ids.add(int(row[0]))
    sets = ", ".join(f"{c} = ?" for c in blank)
    for job_id in ids:
        conn.execute(f"UPDATE ingest_jobs SET {sets} WHERE id = ?", [*blank.values(), job_id])
    return len(ids)


def _names_in(value: Any, names: re.Pattern[str]) -> bool:
    """Whether a value (or its JSON, escaped or not) names the person."""
    if value is None:
        return False
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if names.search(text):
        return True
    try:
        return bool(names.search(json.loads(f'"{text}"'))) if "\\u" in text else False
    except ValueError:
        return False


def _pointer_updates(plan: Plan) -> list[dict[str, Any]]:
    conn = plan.conn
    updates: list[dict[str, Any]] = []
    for column, erased in (("source_observation", plan.observations),
                           ("absorbed_into", plan.events)):
        if not erased:
            continue
        values = sorted(erased)
        for (event_id, old) in conn.execute(
                f"SELECT id, {column} FROM events WHERE {column} IN"
                f" ({','.join('?' * len(values))})", values):
            if event_id in plan.events:
                continue
            updates.append({"t": "events", "a": "update", "pk": {"id": event_id},
                            "set": {column: None}, "old": {column: old}})
    return updates


def _erased_texts(plan: Plan) -> list[str]:
    """Distinctive strings of the erased rows, to scrub from the journal's extra context."""
    texts: set[str] = set()
    fields = {"events": ("title", "description"), "observations": ("content_text",),
              "entities": ("canonical_name", "description"), "facts": ("text",),
              "relations": ("context",), "corrections": ("note",), "glossary": ("term",)}
    for table, names in fields.items():
        for row in plan.rows.get(table, {}).values():
            for name in names:
                value = row.get(name)
                if isinstance(value, str) and len(value.strip()) >= 6:
                    texts.add(value.strip())
    for row in plan.rows.get("entities", {}).values():
        try:
            aliases = json.loads(row.get("aliases") or "[]")
        except ValueError:
            aliases = []
        texts.update(a for a in aliases if isinstance(a, str) and len(a.strip()) >= 6)
    return sorted(texts)


def _touches(conn: sqlite3.Connection, plan: Plan, change: dict[str, Any]) -> bool:
    table = change.get("t")
    if table not in plan.rows:
        return False
    try:
        keys = table_keys(conn, table)
        source = change["pk"] if change.get("a") == "update" else change["row"]
        pk = tuple(decode_value(source[k]) for k in keys)
    except (KeyError, ValueError, TypeError):
        return False
    return plan.has(table, pk)


def _mentions(value: Any, texts: list[str], names: re.Pattern[str] | None) -> bool:
    blob = json.dumps(value, ensure_ascii=False)
    raw = json.dumps(value, ensure_ascii=True)
    if names is not None and (names.search(blob) or names.search(raw)):
        return True
    return any(t in blob or json.dumps(t)[1:-1] in blob or json.dumps(t)[1:-1] in raw
               for t in texts)


def _redact_journal(conn: sqlite3.Connection, plan: Plan, texts: list[str],
                    names: re.Pattern[str] | None) -> list[int]:
    """Strip every change that touched an erased row (and extra context naming erased text)."""
    redacted: list[int] = []
    for seq, payload_text in conn.execute("SELECT seq, payload FROM journal ORDER BY seq").fetchall():
        try:
            payload = json.loads(payload_text)
        except ValueError:
            continue
        if not isinstance(payload, dict):
            continue
        changes = payload.get("changes") if isinstance(payload.get("changes"), list) else []
        kept = [c for c in changes if not (isinstance(c, dict) and _touches(conn, plan, c))]
        extras = {k: v for k, v in payload.items()
                  if k not in ("changes", "redacted", "redacted_changes", journal.VOUCHES)}
        stripped = len(changes) - len(kept)
        if stripped == 0 and not (extras and _mentions(extras, texts, names)):
            continue
        new = {"redacted": True, "changes": kept,
               "redacted_changes": int(payload.get("redacted_changes", 0) or 0) + stripped}
        if journal.VOUCHES in payload:      # seqs and digests, no content: other rows rely on it
            new[journal.VOUCHES] = payload[journal.VOUCHES]
        conn.execute("UPDATE journal SET payload = ? WHERE seq = ?",
                     (journal.canonical_json(new), seq))
        redacted.append(int(seq))
    return redacted


def _refs(refs: str | Sequence[str]) -> list[str]:
    items = [refs] if isinstance(refs, str) else list(refs)
    if not items:
        raise PulseError("forget: nothing to erase (give KIND:ID)")
    return items


def preview(memory: Any, refs: str | Sequence[str], *, cascade: bool = False,
            keep: Iterable[str] = ()) -> dict[str, Any]:
    """What `forget` would erase, without writing anything. `recall_records`: how many records
    of the recall log would lose an event or have a question that names the person blanked."""
    conn = conn_of(memory)
    plan = plan_erasure(conn, _refs(refs), cascade=cascade, keep=keep)
    _foreign(plan)
    return {"refs": [f"{k}:{i}" for k, i in plan.roots], "cascade": cascade,
            "items": plan.items(), "counts": plan.counts(), "rows": plan.table_counts(),
            "names": list(plan.names), "kept_mentions": kept_mentions(plan),
            "recall_records": _recall_records(conn, plan)}


def _recall_records(conn: sqlite3.Connection, plan: Plan) -> int:
    if not recall_log.exists(conn):
        return 0
    hit: set[int] = set()
    if plan.events:
        values = sorted(plan.events)
        hit |= {int(r[0]) for r in conn.execute(
            "SELECT DISTINCT log_id FROM recall_log_events WHERE event_id IN"
            f" ({','.join('?' * len(values))})", values)}
    names = name_pattern(plan.names)
    if names is not None:
        hit |= {int(r[0]) for r in conn.execute("SELECT id, query, state FROM recall_log")
                if names.search(f"{r[1]}\n{r[2] or ''}")}
    return len(hit)


def forget(memory: Any, refs: str | Sequence[str], *, cascade: bool = False,
           keep: Iterable[str] = (), actor: str = "manual", vacuum: bool = True,
           spare_roots: bool = False, also: Sequence[dict[str, Any]] = (),
           op: str = "forget", extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Erase items everywhere (see the module doc). Returns a summary: {"forgot": "event:17"
    (or a list), "rows": {table: n}, "items": {kind: n}, "redacted_journal_rows": [...],
    "journal_seq": tombstone seq, "vacuumed": bool, "wal_truncated": bool, "other_copies": [...]}.

    A no_capture policy erases through here too (core/privacy/apply.py): `spare_roots` keeps
    the root entity rows themselves (their names, so the importer knows them again), `also`
    adds changes to the same journal row (the policy itself), under `op` with `extra`."""
    conn = writable(memory)
    refs = _refs(refs)
    keep = list(keep)
    conn.execute("PRAGMA secure_delete=ON")
    with transaction(conn):
        plan = plan_erasure(conn, refs, cascade=cascade, keep=keep)
        if spare_roots:
            _spare_roots(plan)
        extra_tables, foreign_updates = _foreign(plan)
        texts = _erased_texts(plan)
        names = name_pattern(plan.names)
        changes = _pointer_updates(plan) + foreign_updates
        for table in [*extra_tables, *DELETE_ORDER]:
            keys = table_keys(conn, table)
            for pk in sorted(plan.rows.get(table, {}), key=repr):
                changes.append({"t": table, "a": "delete", "row": dict(zip(keys, pk))})
        counts = plan.table_counts()
        redacted = _redact_journal(conn, plan, texts, names)
        scrubbed = _scrub_bookkeeping(conn, plan, texts, names)
        recalls = recall_log.erase(conn, plan.events, texts, names)
        roots = [f"{k}:{i}" for k, i in plan.roots]
        kind, row_id = plan.roots[0]
        info = {"kind": kind, "id": row_id, "rows": counts, "items": plan.counts(),
                "redacted_rows": redacted}
        if len(roots) > 1:
            info["refs"] = roots
        if cascade:
            info.update(cascade=True, kept=sum(len(v) for v in plan.keep.values()))
        changes.extend(also)
        seq = execute(conn, actor=actor, op=op, subject=roots[0], changes=changes,
                      extra={"forget": info, **(extra or {}),
                             journal.VOUCHES: journal.vouch(conn, redacted)})
        conn.execute("INSERT INTO events_fts(events_fts) VALUES('rebuild')")
        conn.execute("INSERT INTO facts_fts(facts_fts) VALUES('rebuild')")
        index_snapshot.drop(conn)       # it holds the erased events' codes, times, emotions
    truncated = compact(conn) if vacuum else False
    path = getattr(memory, "path", None)
    copies = sorted(str(p) for p in Path(path).parent.glob(f"{Path(path).name}.bak-*")) \
        if path else []
    return {"forgot": roots[0] if len(roots) == 1 else roots, "cascade": cascade,
            "rows": counts, "items": plan.counts(), "redacted_journal_rows": redacted,
            "journal_seq": seq, "scrubbed_jobs": scrubbed, "recall_records_changed": recalls,
            "vacuumed": bool(vacuum),
            "wal_truncated": bool(truncated), "other_copies": copies}


def _spare_roots(plan: Plan) -> None:
    """Keep the root entities' own rows (not their links, facts, relations or evidence)."""
    for kind, item in plan.roots:
        if kind != "entity":
            continue
        plan.ids["entity"].discard(item)
        for pk in [pk for pk in plan.rows.get("entities", {}) if pk[0] == item]:
            del plan.rows["entities"][pk]


def compact(conn: sqlite3.Connection, attempts: int = 20) -> bool:
    """Fold the WAL in, rewrite the file without free pages, and empty the WAL again. Returns
    whether the WAL could be truncated to nothing (another reader may hold it a moment: retried
    for about a second)."""
    try:
        conn.execute("INSERT INTO events_fts(events_fts) VALUES('optimize')")
        conn.execute("INSERT INTO facts_fts(facts_fts) VALUES('optimize')")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("VACUUM")
    except sqlite3.OperationalError as exc:
        raise PulseError(f"the erasure is recorded, but the file could not be compacted ({exc}); "
                         "close other programs using the memory, then VACUUM it") from None
    for _ in range(attempts):
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if not busy:
            return True
        time.sleep(0.05)
    return False
