"""Erasure (JOURNAL §1): `forget event:ID | entity:ID | observation:ID`.

What goes:
- event: the event and everything derived from it (vector, emotions, chain links, entity links,
  evidence, full-text index), and the observations that supported nothing else;
- entity: the entity (name, aliases, description), its relations, facts (and their evidence),
  its links to events, and the observations that supported nothing else;
- observation: its text and evidence, and the events and facts it alone supports (with all
  their derived rows).
Rows that stay but pointed at an erased row have the pointer cleared (events.source_observation,
events.absorbed_into).

In the journal every change that touched an erased row is stripped from its payload, which
becomes {"redacted": true, "changes": [the rest], ...} — extra context is dropped too. The row
keeps its payload_sha256, so the hash chain still verifies, and a replay of the export rebuilds
exactly what is left. A tombstone row ("forget", who, when, what kind, how many rows — no
content) removes the rows themselves. Then the full-text indexes are rebuilt, the WAL is
checkpointed and the file VACUUMed, so the erased text is no longer in the file's bytes.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import defaultdict
from typing import Any

from core.errors import PulseError
from core.store import journal
from core.store.changes import decode_value, table_keys
from core.store.commands import execute, transaction
from core.trust import recall_log
from core.trust.corrections import writable

KINDS = ("event", "entity", "observation")
# Deletion order: children before parents, so foreign keys hold after every change.
DELETE_ORDER = ("event_embeddings", "event_emotions", "event_chains", "event_entities",
                "evidence", "facts", "relations", "events", "entities", "observations")


def parse_ref(ref: str) -> tuple[str, str]:
    kind, sep, ident = str(ref).strip().partition(":")
    if not sep or kind not in KINDS or not ident.strip():
        raise PulseError(f"forget {ref!r}: give KIND:ID with KIND one of {', '.join(KINDS)} "
                         "(e.g. event:17, event:e001, entity:3, observation:12)")
    return kind, ident.strip()


def _resolve(conn: sqlite3.Connection, kind: str, ident: str) -> int:
    table = {"event": "events", "entity": "entities", "observation": "observations"}[kind]
    row = None
    if ident.isdigit():
        row = conn.execute(f"SELECT id FROM {table} WHERE id = ?", (int(ident),)).fetchone()
    if row is None and kind in ("event", "entity"):
        row = conn.execute(f"SELECT id FROM {table} WHERE key = ?", (ident,)).fetchone()
    if row is None:
        raise PulseError(f"forget {kind}:{ident}: no such {kind}")
    return int(row[0])


class _Plan:
    """The rows to erase, by table (pk tuples), and the pointer updates on rows that stay."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.rows: dict[str, dict[tuple, dict[str, Any]]] = defaultdict(dict)
        self.events: set[int] = set()
        self.entities: set[int] = set()
        self.facts: set[int] = set()
        self.observations: set[int] = set()

    def add_rows(self, table: str, where: str, params: list[Any]) -> None:
        keys = table_keys(self.conn, table)
        cursor = self.conn.execute(f"SELECT * FROM {table} WHERE {where}", params)
        names = [d[0] for d in cursor.description]
        for row in cursor:
            data = dict(zip(names, row))
            self.rows[table][tuple(data[k] for k in keys)] = data

    def has(self, table: str, pk: tuple) -> bool:
        return pk in self.rows.get(table, {})


def _in(ids: set[int]) -> tuple[str, list[int]]:
    values = sorted(ids)
    return "(" + ",".join("?" * len(values)) + ")", values


def _expand_events(plan: _Plan, ids: set[int]) -> None:
    new = ids - plan.events
    if not new:
        return
    plan.events |= new
    marks, values = _in(new)
    plan.add_rows("events", f"id IN {marks}", values)
    for table, col in (("event_embeddings", "event_id"), ("event_emotions", "event_id"),
                       ("event_entities", "event_id")):
        plan.add_rows(table, f"{col} IN {marks}", values)
    plan.add_rows("event_chains", f"parent_id IN {marks} OR child_id IN {marks}", values + values)
    plan.add_rows("evidence", f"row_kind = 'event' AND row_id IN {marks}", values)


def _expand_facts(plan: _Plan, ids: set[int]) -> None:
    new = ids - plan.facts
    if not new:
        return
    plan.facts |= new
    marks, values = _in(new)
    plan.add_rows("facts", f"id IN {marks}", values)
    plan.add_rows("evidence", f"row_kind = 'fact' AND row_id IN {marks}", values)


def _expand_entities(plan: _Plan, ids: set[int]) -> None:
    new = ids - plan.entities
    if not new:
        return
    plan.entities |= new
    marks, values = _in(new)
    conn = plan.conn
    plan.add_rows("entities", f"id IN {marks}", values)
    rel_ids = {r[0] for r in conn.execute(
        f"SELECT id FROM relations WHERE from_entity IN {marks} OR to_entity IN {marks}",
        values + values)}
    plan.add_rows("relations", f"from_entity IN {marks} OR to_entity IN {marks}", values + values)
    plan.add_rows("event_entities", f"entity_id IN {marks}", values)
    plan.add_rows("evidence", f"row_kind = 'entity' AND row_id IN {marks}", values)
    if rel_ids:
        rmarks, rvalues = _in(rel_ids)
        plan.add_rows("evidence", f"row_kind = 'relation' AND row_id IN {rmarks}", rvalues)
    _expand_facts(plan, {r[0] for r in conn.execute(
        f"SELECT id FROM facts WHERE entity_id IN {marks}", values)})


def _expand_observations(plan: _Plan, ids: set[int]) -> None:
    new = ids - plan.observations
    if not new:
        return
    plan.observations |= new
    marks, values = _in(new)
    conn = plan.conn
    plan.add_rows("observations", f"id IN {marks}", values)
    plan.add_rows("evidence", f"observation_id IN {marks}", values)
    # events and facts that only these observations support go with them
    events = {r[0] for r in conn.execute(
        f"SELECT id FROM events WHERE source_observation IN {marks}", values)}
    events |= {r[0] for r in conn.execute(
        f"SELECT row_id FROM evidence WHERE row_kind = 'event' AND observation_id IN {marks}",
        values)}
    facts = {r[0] for r in conn.execute(
        f"SELECT row_id FROM evidence WHERE row_kind = 'fact' AND observation_id IN {marks}",
        values)}
    _expand_events(plan, {e for e in events if not _other_support(plan, "event", e)})
    _expand_facts(plan, {f for f in facts if not _other_support(plan, "fact", f)})


def _other_support(plan: _Plan, kind: str, row_id: int) -> bool:
    """Whether an observation that is not being erased supports this row."""
    others = {r[0] for r in plan.conn.execute(
        "SELECT observation_id FROM evidence WHERE row_kind = ? AND row_id = ?", (kind, row_id))}
    return bool(others - plan.observations)


def _orphaned_observations(plan: _Plan) -> set[int]:
    """Observations whose every supported row (and every event sourced from it) is erased."""
    conn = plan.conn
    candidates: set[int] = set()
    for table in ("evidence",):
        for row in plan.rows.get(table, {}).values():
            candidates.add(int(row["observation_id"]))
    for row in plan.rows.get("events", {}).values():
        if row["source_observation"] is not None:
            candidates.add(int(row["source_observation"]))
    out = set()
    for obs in candidates - plan.observations:
        support = conn.execute("SELECT observation_id, row_kind, row_id FROM evidence WHERE "
                               "observation_id = ?", (obs,)).fetchall()
        if any(not plan.has("evidence", tuple(r)) for r in support):
            continue
        sourced = {r[0] for r in conn.execute("SELECT id FROM events WHERE source_observation = ?",
                                              (obs,))}
        if sourced - plan.events:
            continue
        out.add(obs)
    return out


def plan_erasure(conn: sqlite3.Connection, kind: str, row_id: int) -> _Plan:
    plan = _Plan(conn)
    if kind == "event":
        _expand_events(plan, {row_id})
    elif kind == "entity":
        _expand_entities(plan, {row_id})
    else:
        _expand_observations(plan, {row_id})
    while True:
        orphans = _orphaned_observations(plan)
        if not orphans:
            break
        _expand_observations(plan, orphans)
    return plan


EXPLICIT_TABLES = set(DELETE_ORDER)
ROOTS = {"events": "events", "observations": "observations", "entities": "entities"}


def _foreign(plan: _Plan) -> tuple[list[str], list[dict[str, Any]]]:
    """Rows of other tables (later migrations) that point at erased rows: ON DELETE CASCADE
    (or no action) → erased with them; SET NULL → the pointer cleared, as an explicit change.
    Merge proposals naming an erased entity go too. Returns (tables with erased rows, updates)."""
    conn = plan.conn
    erased = {"events": plan.events, "observations": plan.observations,
              "entities": plan.entities}
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    extra_tables: list[str] = []
    updates: list[dict[str, Any]] = []
    from core.store.changes import is_internal

    for table in tables:
        if table in EXPLICIT_TABLES or is_internal(table):
            continue
        for fk in conn.execute(f"PRAGMA foreign_key_list({table})").fetchall():
            ids = erased.get(fk["table"])
            if not ids:
                continue
            marks, values = _in(ids)
            where = f"{fk['from']} IN {marks}"
            if fk["on_delete"].upper() == "SET NULL":
                keys = table_keys(conn, table)
                cursor = conn.execute(f"SELECT * FROM {table} WHERE {where}", values)
                names = [d[0] for d in cursor.description]
                for row in cursor:
                    data = dict(zip(names, row))
                    pk = tuple(data[k] for k in keys)
                    if plan.has(table, pk):
                        continue
                    updates.append({"t": table, "a": "update",
                                    "pk": dict(zip(keys, pk)), "set": {fk["from"]: None},
                                    "old": {fk["from"]: data[fk["from"]]}})
            else:
                plan.add_rows(table, where, values)
                if table not in extra_tables:
                    extra_tables.append(table)
    if plan.entities and "merge_proposals" in tables:
        marks, values = _in(plan.entities)
        plan.add_rows("merge_proposals", f"keep_entity IN {marks} OR merge_entity IN {marks}",
                      values + values)
        if plan.rows.get("merge_proposals") and "merge_proposals" not in extra_tables:
            extra_tables.append("merge_proposals")
    # an update on a row that is itself erased is moot
    updates = [u for u in updates if not plan.has(u["t"], tuple(u["pk"].values()))]
    return extra_tables, updates


def _scrub_bookkeeping(conn: sqlite3.Connection, plan: _Plan, texts: list[str]) -> int:
    """Extraction jobs keep the model's output (bookkeeping, not journaled): blank what an
    erased observation produced or what names erased text; the job row stays so the source is
    not extracted again."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'ingest_jobs'").fetchone():
        return 0
    columns = {r[1] for r in conn.execute("PRAGMA table_info(ingest_jobs)")}
    blank = {c: v for c, v in (("triage", None), ("extraction", None), ("rejected", "[]"),
                               ("last_error", "")) if c in columns}
    if not blank:
        return 0
    ids: set[int] = set()
    if plan.observations and "observation_id" in columns:
        marks, values = _in(plan.observations)
        ids |= {r[0] for r in conn.execute(
            f"SELECT id FROM ingest_jobs WHERE observation_id IN {marks}", values)}
    text_cols = [c for c in ("triage", "extraction", "rejected", "last_error") if c in columns]
    for text in texts:
        for variant in {text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]}:
            for col in text_cols:
                ids |= {r[0] for r in conn.execute(
                    f"SELECT id FROM ingest_jobs WHERE instr({col}, ?) > 0", (variant,))}
    sets = ", ".join(f"{c} = ?" for c in blank)
    for job_id in ids:
        conn.execute(f"UPDATE ingest_jobs SET {sets} WHERE id = ?", [*blank.values(), job_id])
    return len(ids)


def _pointer_updates(plan: _Plan) -> list[dict[str, Any]]:
    conn = plan.conn
    updates: list[dict[str, Any]] = []
    for column, erased in (("source_observation", plan.observations),
                           ("absorbed_into", plan.events)):
        if not erased:
            continue
        marks, values = _in(erased)
        for (event_id, old) in conn.execute(
                f"SELECT id, {column} FROM events WHERE {column} IN {marks}", values):
            if event_id in plan.events:
                continue
            updates.append({"t": "events", "a": "update", "pk": {"id": event_id},
                            "set": {column: None}, "old": {column: old}})
    return updates


def _erased_texts(plan: _Plan) -> list[str]:
    """Distinctive strings of the erased rows, to scrub from the journal's extra context."""
    texts: set[str] = set()
    fields = {"events": ("title", "description"), "observations": ("content_text",),
              "entities": ("canonical_name", "description"), "facts": ("text",),
              "relations": ("context",)}
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


def _touches(conn: sqlite3.Connection, plan: _Plan, change: dict[str, Any]) -> bool:
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


def _mentions(value: Any, texts: list[str]) -> bool:
    if not texts:
        return False
    blob = json.dumps(value, ensure_ascii=False)
    raw = json.dumps(value, ensure_ascii=True)
    return any(t in blob or json.dumps(t)[1:-1] in blob or json.dumps(t)[1:-1] in raw
               for t in texts)


def _redact_journal(conn: sqlite3.Connection, plan: _Plan, texts: list[str]) -> list[int]:
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
                  if k not in ("changes", "redacted", "redacted_changes")}
        stripped = len(changes) - len(kept)
        if stripped == 0 and not _mentions(extras, texts):
            continue
        if stripped == 0 and payload.get("redacted") is True and not extras:
            continue
        new = {"redacted": True, "changes": kept,
               "redacted_changes": int(payload.get("redacted_changes", 0) or 0) + stripped}
        conn.execute("UPDATE journal SET payload = ? WHERE seq = ?",
                     (journal.canonical_json(new), seq))
        redacted.append(int(seq))
    return redacted


def forget(memory: Any, ref: str, *, actor: str = "manual", vacuum: bool = True
           ) -> dict[str, Any]:
    """Erase an event, entity or observation everywhere (see the module doc). Returns a
    summary: {"forgot": "event:17", "rows": {table: n}, "redacted_journal_rows": [...],
    "journal_seq": tombstone seq, "vacuumed": bool}."""
    conn = writable(memory)
    kind, ident = parse_ref(ref)
    conn.execute("PRAGMA secure_delete=ON")
    with transaction(conn):
        row_id = _resolve(conn, kind, ident)
        plan = plan_erasure(conn, kind, row_id)
        extra_tables, foreign_updates = _foreign(plan)
        texts = _erased_texts(plan)
        changes = _pointer_updates(plan) + foreign_updates
        for table in [*extra_tables, *DELETE_ORDER]:
            keys = table_keys(conn, table)
            for pk in sorted(plan.rows.get(table, {}), key=repr):
                changes.append({"t": table, "a": "delete", "row": dict(zip(keys, pk))})
        counts = {t: len(rows) for t, rows in plan.rows.items() if rows}
        redacted = _redact_journal(conn, plan, texts)
        scrubbed = _scrub_bookkeeping(conn, plan, texts)
        recalls = recall_log.erase(conn, plan.events, texts)
        seq = execute(conn, actor=actor, op="forget", subject=f"{kind}:{row_id}",
                      changes=changes,
                      extra={"forget": {"kind": kind, "id": row_id, "rows": counts,
                                        "redacted_rows": redacted}})
        conn.execute("INSERT INTO events_fts(events_fts) VALUES('rebuild')")
        conn.execute("INSERT INTO facts_fts(facts_fts) VALUES('rebuild')")
    vacuumed = compact(conn) if vacuum else False
    return {"forgot": f"{kind}:{row_id}", "rows": counts, "redacted_journal_rows": redacted,
            "journal_seq": seq, "scrubbed_jobs": scrubbed, "recall_records_changed": recalls,
            "vacuumed": vacuumed}


def compact(conn: sqlite3.Connection) -> bool:
    """Fold the WAL in, rewrite the file without free pages, and empty the WAL again.

    Everything goes through SQLite (no plain file handle: other processes — the app, `pulse
    mcp` — may hold the memory open). A reader of another process can hold the checkpoint back
    for a moment; it is retried, and only a WAL that stays unemptied is reported."""
    try:
        conn.execute("INSERT INTO events_fts(events_fts) VALUES('optimize')")
        conn.execute("INSERT INTO facts_fts(facts_fts) VALUES('optimize')")
        _checkpoint_truncate(conn)
        conn.execute("VACUUM")
        emptied = _checkpoint_truncate(conn)
    except sqlite3.OperationalError as exc:
        raise PulseError(f"the erasure is recorded, but the file could not be compacted ({exc}); "
                         "close other programs using the memory, then VACUUM it") from None
    if not emptied:
        raise PulseError("the erasure is recorded, but another program kept reading the memory, "
                         "so its write-ahead log still holds old pages; close the other programs "
                         "using it, then VACUUM it")
    return True


def _checkpoint_truncate(conn: sqlite3.Connection, attempts: int = 6) -> bool:
    """PRAGMA wal_checkpoint(TRUNCATE) until it completes (busy == 0), or False."""
    for attempt in range(attempts):
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if not busy:
            return True
        time.sleep(0.1 * (attempt + 1))
    return False
