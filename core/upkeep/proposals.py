"""Upkeep proposals: event merges, archival, dismissal of expired hypotheses. Each is made by
`pulse upkeep` (one journaled change set), and accepted or rejected by a person (one journaled
change set each, undoable). Nothing here acts on its own.

Accepting
- an event merge keeps the earlier event and moves the later one's evidence, emotions (their
  maximum), chain links and people onto it, then absorbs the later one (absorbed_into: still
  traceable; undo restores everything);
- an archival or a dismissal archives the event (archived = 1: no longer ranked, briefed or
  drawn; the store refuses it for a row that is not archivable).
A proposal whose events changed since (absorbed, archived, pinned, erased) is marked obsolete
instead of acting on a stale view.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from core.emotion.plutchik import EMOTIONS
from core.errors import PulseError
from core.scoring.scorer import format_iso
from core.store.changes import row_dict
from core.store.commands import execute, next_id, transaction
from core.store.sqlite import sqlite3

KINDS = ("event_merge", "archive", "dismiss")


def list_proposals(conn: sqlite3.Connection, *, status: str | None = "pending",
                   kind: str | None = None) -> list[dict[str, Any]]:
    sql = ("SELECT p.*, e.title AS event_title, e.ts AS event_ts, e.key AS event_key,"
           " k.title AS keep_title, k.ts AS keep_ts, k.key AS keep_key FROM upkeep_proposals p"
           " JOIN events e ON e.id = p.event_id LEFT JOIN events k ON k.id = p.keep_event")
    where, args = [], []
    if status:
        where.append("p.status = ?")
        args.append(status)
    if kind:
        where.append("p.kind = ?")
        args.append(kind)
    if where:
        sql += " WHERE " + " AND ".join(where)
    return [dict(r) for r in conn.execute(sql + " ORDER BY p.id", args)]


def insert_changes(conn: sqlite3.Connection, items: list[dict[str, Any]], proposed_at: str
                   ) -> list[dict[str, Any]]:
    """Insert rows for new proposals ({"kind", "event_id", "keep_event", "score", "reason"})."""
    first = next_id(conn, "upkeep_proposals")
    return [{"t": "upkeep_proposals", "a": "insert", "row": {
        "id": first + n, "kind": item["kind"], "event_id": item["event_id"],
        "keep_event": item.get("keep_event"), "score": round(float(item.get("score", 0)), 6),
        "reason": item.get("reason", ""), "status": "pending", "proposed_at": proposed_at,
        "decided_at": None}} for n, item in enumerate(items)]


def status_change(row: sqlite3.Row | dict[str, Any], status: str, decided_at: str | None
                  ) -> dict[str, Any]:
    return {"t": "upkeep_proposals", "a": "update", "pk": {"id": row["id"]},
            "set": {"status": status, "decided_at": decided_at},
            "old": {"status": row["status"], "decided_at": row["decided_at"]}}


def stale_reason(conn: sqlite3.Connection, prop: sqlite3.Row) -> str | None:
    """Why a pending proposal can no longer be acted on, or None."""
    for column in ("event_id", "keep_event"):
        if prop[column] is None:
            continue
        ev = conn.execute("SELECT absorbed_into, archived, archivable, belief_class FROM events"
                          " WHERE id = ?", (prop[column],)).fetchone()
        if ev is None:
            return f"event {prop[column]} no longer exists"
        if ev["absorbed_into"] is not None:
            return f"event {prop[column]} was merged into event {ev['absorbed_into']}"
        if ev["archived"]:
            return f"event {prop[column]} is archived"
        if column == "event_id" or prop["kind"] == "event_merge":
            if not ev["archivable"] or ev["belief_class"] == "axiom":
                return f"event {prop[column]} is pinned (archivable 0)"
    if prop["kind"] == "dismiss":
        cls = conn.execute("SELECT belief_class FROM events WHERE id = ?",
                           (prop["event_id"],)).fetchone()[0]
        if cls != "hypothesis":
            return f"event {prop['event_id']} is no longer a hypothesis ({cls})"
    return None


def obsolete_changes(conn: sqlite3.Connection, decided_at: str) -> list[dict[str, Any]]:
    """Pending proposals that went stale, marked obsolete."""
    return [status_change(p, "obsolete", decided_at) for p in conn.execute(
        "SELECT * FROM upkeep_proposals WHERE status = 'pending' ORDER BY id").fetchall()
        if stale_reason(conn, p) is not None]


def others_pending(conn: sqlite3.Connection, event_ids: set[int], except_id: int,
                   decided_at: str) -> list[dict[str, Any]]:
    """Other pending proposals about these events: obsolete once one of them is decided."""
    marks = ",".join("?" * len(event_ids))
    return [status_change(p, "obsolete", decided_at) for p in conn.execute(
        f"SELECT * FROM upkeep_proposals WHERE status = 'pending' AND id <> ? AND"
        f" (event_id IN ({marks}) OR keep_event IN ({marks}))",
        [except_id, *sorted(event_ids), *sorted(event_ids)]).fetchall()]


def archive_change(conn: sqlite3.Connection, event_id: int) -> dict[str, Any]:
    row = conn.execute("SELECT archived, archivable, belief_class FROM events WHERE id = ?",
                       (event_id,)).fetchone()
    if row is None:
        raise PulseError(f"no event {event_id}")
    if not row["archivable"] or row["belief_class"] == "axiom":
        raise PulseError(f"event {event_id} is pinned (archivable 0): it is never archived")
    return {"t": "events", "a": "update", "pk": {"id": event_id}, "set": {"archived": 1},
            "old": {"archived": row["archived"]}}


def restore(memory: Any, event_id: int, *, actor: str = "manual") -> dict[str, Any]:
    """Unarchive an event (an archival or a dismissal taken back later, when plain undo can no
    longer reach it)."""
    conn = memory.conn
    with transaction(conn):
        row = conn.execute("SELECT archived FROM events WHERE id = ?", (event_id,)).fetchone()
        if row is None:
            raise PulseError(f"no event {event_id}")
        if not row["archived"]:
            raise PulseError(f"event {event_id} is not archived")
        seq = execute(conn, actor=actor, op="event.restore", subject=f"event:{event_id}",
                      changes=[{"t": "events", "a": "update", "pk": {"id": event_id},
                                "set": {"archived": 0}, "old": {"archived": 1}}])
    return {"event": event_id, "archived": False, "seq": seq}


def resolve(memory: Any, proposal_id: int, accept: bool, *, now: datetime,
            actor: str = "manual") -> dict[str, Any]:
    """Accept or reject one pending proposal (one journaled change set). A proposal that went
    stale is marked obsolete (committed) and the acceptance refused."""
    conn = memory.conn
    decided = format_iso(now)
    with transaction(conn):
        prop = conn.execute("SELECT * FROM upkeep_proposals WHERE id = ?",
                            (proposal_id,)).fetchone()
        if prop is None:
            raise PulseError(f"no upkeep proposal {proposal_id}")
        if prop["status"] != "pending":
            raise PulseError(f"upkeep proposal {proposal_id} is already {prop['status']}")
        subject = f"event:{prop['keep_event'] or prop['event_id']}"
        stale = stale_reason(conn, prop) if accept else None
        if stale is not None:
            execute(conn, actor=actor, op="upkeep.obsolete", subject=subject,
                    changes=[status_change(prop, "obsolete", decided)],
                    extra={"proposal": proposal_id, "why": stale})
        elif not accept:
            seq = execute(conn, actor=actor, op="upkeep.reject", subject=subject,
                          changes=[status_change(prop, "rejected", decided)],
                          extra={"proposal": proposal_id, "kind": prop["kind"]})
        else:
            events = {int(prop["event_id"])} | (
                {int(prop["keep_event"])} if prop["keep_event"] is not None else set())
            changes = [status_change(prop, "accepted", decided)]
            changes += others_pending(conn, events, proposal_id, decided)
            if prop["kind"] == "event_merge":
                changes += merge_changes(conn, int(prop["keep_event"]), int(prop["event_id"]))
                op = "event.merge"
            else:
                changes.append(archive_change(conn, int(prop["event_id"])))
                op = "event.archive" if prop["kind"] == "archive" else "question.dismiss"
            seq = execute(conn, actor=actor, op=op, subject=subject, changes=changes,
                          extra={"proposal": proposal_id, "kind": prop["kind"]})
    if stale is not None:   # raised after the commit, so the obsolete mark stays
        raise PulseError(f"upkeep proposal {proposal_id} is out of date ({stale}); it was "
                         "marked obsolete")
    return {"proposal": proposal_id, "kind": prop["kind"],
            "status": "accepted" if accept else "rejected", "seq": seq,
            "event": int(prop["event_id"]), "kept": prop["keep_event"]}


# -- merging two events ---------------------------------------------------------------------

def merge_changes(conn: sqlite3.Connection, keep: int, gone: int) -> list[dict[str, Any]]:
    """Everything that moves when `gone` is absorbed into `keep` (see the module doc)."""
    changes: list[dict[str, Any]] = []
    changes += _move_evidence(conn, keep, gone)
    changes += _merge_emotions(conn, keep, gone)
    changes += _move_links(conn, keep, gone)
    for (entity_id, role) in conn.execute(
            "SELECT entity_id, role FROM event_entities WHERE event_id = ? AND entity_id NOT IN"
            " (SELECT entity_id FROM event_entities WHERE event_id = ?) ORDER BY entity_id",
            (gone, keep)).fetchall():
        changes.append({"t": "event_entities", "a": "insert",
                        "row": {"event_id": keep, "entity_id": entity_id, "role": role}})
    kept = conn.execute("SELECT emotional_weight, intensity FROM events WHERE id = ?",
                        (keep,)).fetchone()
    other = conn.execute("SELECT emotional_weight, intensity FROM events WHERE id = ?",
                         (gone,)).fetchone()
    update = {k: other[k] for k in ("emotional_weight", "intensity") if other[k] > kept[k]}
    if update:
        changes.append({"t": "events", "a": "update", "pk": {"id": keep}, "set": update,
                        "old": {k: kept[k] for k in update}})
    changes.append({"t": "events", "a": "update", "pk": {"id": gone},
                    "set": {"absorbed_into": keep}, "old": {"absorbed_into": None}})
    changes += _salience(conn, changes, keep, gone)
    return changes


def _move_evidence(conn: sqlite3.Connection, keep: int, gone: int) -> list[dict[str, Any]]:
    changes = []
    have = {int(r[0]) for r in conn.execute(
        "SELECT observation_id FROM evidence WHERE row_kind = 'event' AND row_id = ?", (keep,))}
    for row in conn.execute("SELECT * FROM evidence WHERE row_kind = 'event' AND row_id = ?"
                            " ORDER BY observation_id", (gone,)).fetchall():
        changes.append({"t": "evidence", "a": "delete", "row": dict(row)})
        if int(row["observation_id"]) not in have:
            changes.append({"t": "evidence", "a": "insert", "row": {
                "observation_id": row["observation_id"], "row_kind": "event", "row_id": keep}})
    return changes


def _merge_emotions(conn: sqlite3.Connection, keep: int, gone: int) -> list[dict[str, Any]]:
    other = row_dict(conn, "event_emotions", {"event_id": gone})
    if other is None:
        return []
    mine = row_dict(conn, "event_emotions", {"event_id": keep})
    if mine is None:
        return [{"t": "event_emotions", "a": "insert", "row": {**other, "event_id": keep}}]
    new = {e: other[e] for e in EMOTIONS if other[e] > mine[e]}
    if not new:
        return []
    return [{"t": "event_emotions", "a": "update", "pk": {"event_id": keep}, "set": new,
             "old": {e: mine[e] for e in new}}]


def _move_links(conn: sqlite3.Connection, keep: int, gone: int) -> list[dict[str, Any]]:
    """Repoint gone's chain links to keep; a link that would join keep to itself, repeat one
    keep has (the stronger strength stays) or close a cycle is dropped."""
    edges = defaultdict(set)
    for parent, child in conn.execute("SELECT parent_id, child_id FROM event_chains"):
        if gone not in (parent, child):
            edges[int(parent)].add(int(child))
    changes = []
    links = conn.execute("SELECT * FROM event_chains WHERE parent_id = ? OR child_id = ?"
                         " ORDER BY parent_id, child_id", (gone, gone)).fetchall()
    for link in links:
        changes.append({"t": "event_chains", "a": "delete", "row": dict(link)})
    for link in links:
        parent = keep if link["parent_id"] == gone else int(link["parent_id"])
        child = keep if link["child_id"] == gone else int(link["child_id"])
        if parent == child:
            continue
        twin = row_dict(conn, "event_chains", {"parent_id": parent, "child_id": child})
        if twin is not None:
            if link["strength"] > twin["strength"]:
                changes.append({"t": "event_chains", "a": "update",
                                "pk": {"parent_id": parent, "child_id": child},
                                "set": {"strength": link["strength"]},
                                "old": {"strength": twin["strength"]}})
            continue
        if child in edges[parent] or _reaches(edges, child, parent):
            continue
        edges[parent].add(child)
        changes.append({"t": "event_chains", "a": "insert", "row": {
            "parent_id": parent, "child_id": child, "kind": link["kind"],
            "strength": link["strength"]}})
    return changes


def _reaches(edges: dict[int, set[int]], start: int, goal: int) -> bool:
    seen, stack = {start}, [start]
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        for nxt in edges.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def _salience(conn: sqlite3.Connection, changes: list[dict[str, Any]], keep: int, gone: int
              ) -> list[dict[str, Any]]:
    """Entity salience follows the ranked events that mention it (the import's formula): worked
    out on the merged state inside a savepoint, then rolled back and carried in the change set."""
    from core.ingest.pipeline import ranked_weight, salience_of
    from core.store.changes import apply_changes

    entities = sorted({int(r[0]) for r in conn.execute(
        "SELECT entity_id FROM event_entities WHERE event_id IN (?, ?)", (keep, gone))})
    if not entities:
        return []
    old = {int(r[0]): r[1] for r in conn.execute(
        f"SELECT id, salience FROM entities WHERE id IN ({','.join('?' * len(entities))})",
        entities)}
    conn.execute("SAVEPOINT pulse_merge_salience")
    try:
        apply_changes(conn, changes)
        new = {e: salience_of(ranked_weight(conn, [e])) for e in entities}
    finally:
        conn.execute("ROLLBACK TO pulse_merge_salience")
        conn.execute("RELEASE pulse_merge_salience")
    return [{"t": "entities", "a": "update", "pk": {"id": e}, "set": {"salience": new[e]},
             "old": {"salience": old[e]}} for e in entities if e in old and new[e] != old[e]]
