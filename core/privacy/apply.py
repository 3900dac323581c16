"""Setting a person's policy, and applying a tightening backwards (docs/privacy.md §Policies).

- A loosening, a boundary switched on or off, or a new label with nothing stored yet: one
  journaled update of the entity row (op "policy"), undoable like any edit.
- no_capture: everything about them is erased through `forget` (the cascade: events linked to
  them or naming them, observations quoting them or spoken by them, facts, relations,
  corrections, the recall log), in the same journal row as the policy; their entity row stays
  (names only, description blanked) so the importer recognises them later.
- redact / summary_only: the stored text is rewritten (events, facts, observations, relations,
  other entities' descriptions, a chat's speakers, merge reasons, storylines; vectors of changed
  events re-embedded), as one journaled change set with the policy (op "policy.apply"). The
  journal's earlier payloads get the same rewrite (marked redacted: the hash chain still
  verifies), the recall log (questions, states, the titles a recall returned) and the LLM
  bookkeeping too; then the file is compacted so the old text is in no byte of it or its WAL.

An applied tightening is a barrier for undo, like an erasure.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.privacy.policy import (
    POLICIES,
    Person,
    check_label,
    check_policy,
    name_pattern,
    names_of,
    policy_of,
    resolve_entity,
    rewrite_for,
)
from core.scoring import snapshot as index_snapshot
from core.store import journal, records
from core.store.changes import row_dict
from core.store.commands import execute, transaction
from core.store.sqlite import sqlite3
from core.trust.corrections import writable

# (table, primary key column, text columns) rewritten by redact / summary_only
TEXT_COLUMNS = (("events", "id", ("title", "description")), ("facts", "id", ("text",)),
                ("observations", "id", ("content_text", "actors")),
                ("relations", "id", ("context",)), ("entities", "id", ("description",)),
                ("corrections", "id", ("note",)), ("pool_segments", "event_id", ("speaker",)),
                ("merge_proposals", "id", ("reason",)), ("storylines", "key", ("title", "summary")))


def set_policy(memory: Any, ref: str | int, policy: str | None = None, *,
               label: str | None = None, do_not_probe: bool | None = None,
               actor: str = "manual") -> dict[str, Any]:
    conn = writable(memory)
    entity_id = resolve_entity(conn, ref)
    before = policy_of(conn, entity_id)
    new_policy = check_policy(policy) if policy is not None else before["policy"]
    new_label = before["role_label"]
    if label is not None:
        new_label = check_label(label)
    if new_policy == "redact" and not new_label:
        new_label = check_label(None)
    new_probe = before["do_not_probe"] if do_not_probe is None else bool(do_not_probe)
    wanted = {"policy": new_policy, "role_label": new_label, "do_not_probe": int(new_probe)}
    current = {"policy": before["policy"], "role_label": before["role_label"],
               "do_not_probe": int(before["do_not_probe"])}
    changed = {k: v for k, v in wanted.items() if v != current[k]}
    # a change that rewrites nothing still answers every documented key (docs/cli.md)
    out = {"entity": entity_id, "name": before["name"], "before": _public(before),
           "applied_backwards": False, "redacted_journal_rows": [], "other_copies": []}
    if not changed:
        return {**out, "after": _public(before), "changed": False, "journal_seq": None}
    update = {"t": "entities", "a": "update", "pk": {"id": entity_id}, "set": changed,
              "old": {k: current[k] for k in changed}}
    backwards = new_policy in ("no_capture", "summary_only", "redact") and (
        new_policy != before["policy"] or "role_label" in changed)
    info = {"policy": {"entity": entity_id, **wanted}}
    if not backwards:
        seq = execute(conn, actor=actor, op="policy", subject=f"entity:{entity_id}",
                      changes=[update], extra=info)
        result: dict[str, Any] = {}
    elif new_policy == "no_capture":
        result = _no_capture(memory, entity_id, update, info, actor)
        seq = result["journal_seq"]
    else:
        person = _person(conn, entity_id, new_policy, new_label, before["role_label"])
        result = _rewrite(memory, person, update, info, actor)
        seq = result["journal_seq"]
    after = policy_of(conn, entity_id)
    return {**out, "after": _public(after), "changed": True, "journal_seq": seq,
            "applied_backwards": backwards, **{k: v for k, v in result.items()
                                                if k != "journal_seq"}}


def _public(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in ("policy", "role_label", "do_not_probe", "skipped_segments")}


def _person(conn: sqlite3.Connection, entity_id: int, policy: str, label: str,
            old_label: str) -> Person:
    row = conn.execute("SELECT key, canonical_name, aliases FROM entities WHERE id = ?",
                       (entity_id,)).fetchone()
    names = names_of(row[1], row[2])
    matched = names + ([old_label] if old_label and old_label != label else [])
    return Person(entity_id, row[0], row[1], names, policy, label, False, name_pattern(matched))


def _no_capture(memory: Any, entity_id: int, update: dict[str, Any], info: dict[str, Any],
                actor: str) -> dict[str, Any]:
    from core.trust.forget import forget

    conn = memory.conn
    description = conn.execute("SELECT description FROM entities WHERE id = ?",
                               (entity_id,)).fetchone()[0]
    if description:
        update["set"]["description"] = ""
        update["old"]["description"] = description
    out = forget(memory, [f"entity:{entity_id}"], cascade=True, actor=actor, spare_roots=True,
                 also=[update], op="policy.apply", extra=info)
    return {"journal_seq": out["journal_seq"], "erased": out["items"],
            "redacted_journal_rows": out["redacted_journal_rows"],
            "other_copies": out["other_copies"]}


def _rewrite(memory: Any, person: Person, update: dict[str, Any], info: dict[str, Any],
             actor: str) -> dict[str, Any]:
    from core.trust import forget as erasure

    conn = memory.conn
    rewrite = rewrite_for(person)
    conn.execute("PRAGMA secure_delete=ON")
    with transaction(conn):
        changes, touched_events = _text_changes(conn, person, rewrite)
        changes += _embedding_changes(memory, touched_events, rewrite)
        changes.append(update)
        seq = execute(conn, actor=actor, op="policy.apply", subject=f"entity:{person.id}",
                      changes=changes, extra=info)
        rows = rewrite_journal(conn, person, rewrite)
        if rows:    # a later row vouches for the rewritten payloads (core/store/journal.py)
            journal.append(conn, actor, "policy.redactions", f"entity:{person.id}",
                           {"changes": [], journal.VOUCHES: journal.vouch(conn, rows)})
        _rewrite_bookkeeping(conn, person, rewrite)
        conn.execute("INSERT INTO events_fts(events_fts) VALUES('rebuild')")
        conn.execute("INSERT INTO facts_fts(facts_fts) VALUES('rebuild')")
        index_snapshot.drop(conn)       # it holds the codes of the vectors just replaced
    erasure.compact(conn)
    path = getattr(memory, "path", None)
    copies = sorted(str(p) for p in Path(path).parent.glob(f"{Path(path).name}.bak-*")) \
        if path else []
    return {"journal_seq": seq, "rewritten": {"rows": len(changes) - 1,
                                              "events": len(touched_events)},
            "redacted_journal_rows": rows, "other_copies": copies}


def _text_changes(conn: sqlite3.Connection, person: Person, rewrite: Callable[[str], str]
                  ) -> tuple[list[dict[str, Any]], list[int]]:
    changes: list[dict[str, Any]] = []
    events: list[int] = []
    for table, key, columns in TEXT_COLUMNS:
        for row in conn.execute(f"SELECT {key}, {', '.join(columns)} FROM {table}").fetchall():
            if table == "entities" and int(row[0]) == person.id:
                continue          # the owner's own view of them keeps its words
            new = {c: rewrite(row[c]) for c in columns if isinstance(row[c], str)}
            if table == "observations" and "actors" in new:
                new["actors"] = _rewrite_json(row["actors"], rewrite)
            diff = {c: v for c, v in new.items() if v != row[c]}
            if diff:
                changes.append({"t": table, "a": "update", "pk": {key: row[0]}, "set": diff,
                                "old": {c: row[c] for c in diff}})
                if table == "events":
                    events.append(int(row[0]))
    return changes, events


def _rewrite_json(text: str, rewrite: Callable[[str], str]) -> str:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return rewrite(text)
    return json.dumps(_walk(value, rewrite), ensure_ascii=False)


def _embedding_changes(memory: Any, event_ids: list[int], rewrite: Callable[[str], str]
                       ) -> list[dict[str, Any]]:
    """New vectors (active model) for the rewritten events: none is left computed from the
    old text."""
    from core.store.changes import encode_row

    if not event_ids:
        return []
    conn = memory.conn
    marks = ",".join("?" * len(event_ids))
    rows = conn.execute(f"SELECT id, title, description FROM events WHERE id IN ({marks})"
                        " ORDER BY id", event_ids).fetchall()
    texts = [(rewrite(r[1]), rewrite(r[2])) for r in rows]
    vectors = memory.embed_texts([records.embedding_text(t, d) for t, d in texts])
    changes: list[dict[str, Any]] = []
    for row, (title, description), vector in zip(rows, texts, vectors):
        old = row_dict(conn, "event_embeddings", {"event_id": int(row[0]),
                                                  "model": vector.model})
        if old is not None:
            changes.append({"t": "event_embeddings", "a": "delete", "row": old})
        changes.append({"t": "event_embeddings", "a": "insert", "row": encode_row(
            vector.row(int(row[0]), records.text_hash(title, description)))})
    return changes


def _walk(value: Any, rewrite: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return rewrite(value)
    if isinstance(value, list):
        return [_walk(v, rewrite) for v in value]
    if isinstance(value, dict):
        if set(value) == {"$b64"}:
            return value          # a vector or other blob: no text in it
        return {k: _walk(v, rewrite) for k, v in value.items()}
    return value


def rewrite_journal(conn: sqlite3.Connection, person: Person,
                    rewrite: Callable[[str], str]) -> list[int]:
    """Apply `rewrite` to every string of every payload, except the person's own entity row
    (the owner's view keeps their name); rows that change are marked redacted."""
    done: list[int] = []
    for seq, text in conn.execute("SELECT seq, payload FROM journal ORDER BY seq").fetchall():
        try:
            payload = json.loads(text)
        except ValueError:
            continue
        if not isinstance(payload, dict):
            continue
        new: dict[str, Any] = {}
        for key, value in payload.items():
            if key == "changes" and isinstance(value, list):
                new[key] = [c if _own_row(c, person.id) else _walk(c, rewrite) for c in value]
            else:
                new[key] = _walk(value, rewrite)
        if new != payload:
            new["redacted"] = True
            conn.execute("UPDATE journal SET payload = ? WHERE seq = ?",
                         (journal.canonical_json(new), seq))
            done.append(int(seq))
    return done


def _own_row(change: Any, entity_id: int) -> bool:
    if not isinstance(change, dict) or change.get("t") != "entities":
        return False
    source = change.get("pk") if change.get("a") == "update" else change.get("row")
    return isinstance(source, dict) and source.get("id") == entity_id


def _rewrite_bookkeeping(conn: sqlite3.Connection, person: Person,
                         rewrite: Callable[[str], str]) -> None:
    """The recall log's questions and the LLM's kept outputs (not journaled bookkeeping)."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "recall_log" in tables:
        # the question, the state and the kept response (its effective query, the titles)
        for log_id, query, state, response in conn.execute(
                "SELECT id, query, state, response FROM recall_log").fetchall():
            new = (rewrite(query or ""), _rewrite_json(state, rewrite) if state else state,
                   _rewrite_json(response, rewrite) if response else response)
            if new != (query, state, response):
                conn.execute("UPDATE recall_log SET query = ?, state = ?, response = ?"
                             " WHERE id = ?", (*new, log_id))
    if "ingest_jobs" in tables and person.pattern is not None:
        columns = {r[1] for r in conn.execute("PRAGMA table_info(ingest_jobs)")}
        for column in ("triage", "extraction", "rejected", "last_error"):
            if column not in columns:
                continue
            for job_id, value in conn.execute(f"SELECT id, {column} FROM ingest_jobs"
                                              f" WHERE {column} IS NOT NULL").fetchall():
                new = _rewrite_json(value, rewrite) if value.startswith(("{", "[")) \
                    else rewrite(value)
                if new != value:
                    conn.execute(f"UPDATE ingest_jobs SET {column} = ? WHERE id = ?",
                                 (new, job_id))


__all__ = ["POLICIES", "rewrite_journal", "set_policy"]
