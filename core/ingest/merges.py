"""Entity salience and merge proposals (INGEST §2.3): an entity's salience follows the intensity
of the ranked events that mention it; two names of one person wait as a proposal until a person
approves (one journaled merge) or rejects it."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from core.errors import PulseError
from core.ingest.store_view import norm_name
from core.store.changes import row_dict
from core.store.commands import execute, transaction
from core.store.sqlite import sqlite3

SALIENCE_SCALE = 2.0         # salience = 1 - exp(-Σ intensity / this): 3 vivid mentions ≈ 0.65


def salience_of(weight: float) -> float:
    """An entity's salience from the summed intensity of the ranked events that mention it."""
    return round(1.0 - math.exp(-weight / SALIENCE_SCALE), 4)


def ranked_weight(conn: sqlite3.Connection, entity_ids: Sequence[int]) -> float:
    """Σ intensity of the distinct ranked (not absorbed) events that mention any of these."""
    marks = ", ".join("?" * len(entity_ids))
    return float(conn.execute(
        "SELECT COALESCE(SUM(intensity), 0) FROM events WHERE absorbed_into IS NULL AND id IN"
        f" (SELECT event_id FROM event_entities WHERE entity_id IN ({marks}))",
        list(entity_ids)).fetchone()[0])


# -- merge proposals -----------------------------------------------------------------------------

def list_merge_proposals(memory: Any, status: str | None = "pending") -> list[dict[str, Any]]:
    sql = ("SELECT p.*, a.canonical_name AS keep_name, a.kind AS keep_kind,"
           " b.canonical_name AS merge_name, b.kind AS merge_kind FROM merge_proposals p"
           " LEFT JOIN entities a ON a.id = p.keep_entity"
           " LEFT JOIN entities b ON b.id = p.merge_entity")
    args: tuple[Any, ...] = ()
    if status:
        sql += " WHERE p.status = ?"
        args = (status,)
    return [dict(r) for r in memory.conn.execute(sql + " ORDER BY p.id", args)]


_FICTION_KINDS = {"fictional_character", "fictionalized_self", "narrative_device"}


def resolve_merge_proposal(memory: Any, proposal_id: int, approve: bool, *,
                           actor: str = "manual") -> dict[str, Any]:
    """Approve (merge: relations, event links, facts and evidence move to the kept entity, the
    aliases join, the merged entity is removed) or reject. One journaled step."""
    memory._writable()
    conn = memory.conn
    with transaction(conn):
        prop = conn.execute("SELECT * FROM merge_proposals WHERE id = ?", (proposal_id,)).fetchone()
        if prop is None:
            raise PulseError(f"no merge proposal {proposal_id}")
        if prop["status"] != "pending":
            raise PulseError(f"merge proposal {proposal_id} is already {prop['status']}")
        keep_id, gone_id = int(prop["keep_entity"]), int(prop["merge_entity"])
        keep = conn.execute("SELECT * FROM entities WHERE id = ?", (keep_id,)).fetchone()
        gone = conn.execute("SELECT * FROM entities WHERE id = ?", (gone_id,)).fetchone()
        status = "approved" if approve else "rejected"
        changes: list[dict[str, Any]] = [{"t": "merge_proposals", "a": "update",
                                          "pk": {"id": proposal_id}, "set": {"status": status},
                                          "old": {"status": "pending"}}]
        if approve:
            if keep is None or gone is None:
                raise PulseError(f"merge proposal {proposal_id}: an entity no longer exists")
            fiction = {keep["kind"] in _FICTION_KINDS, gone["kind"] in _FICTION_KINDS}
            if len(fiction) == 2:
                raise PulseError(f"merge proposal {proposal_id}: a fictional character is never"
                                 f" merged into a real person")
            if keep["kind"] != gone["kind"]:
                raise PulseError(f"merge proposal {proposal_id}: kinds differ "
                                 f"({keep['kind']} / {gone['kind']})")
            changes += _merge_changes(conn, keep, gone)
            salience = salience_of(ranked_weight(conn, [keep_id, gone_id]))
            if salience != keep["salience"]:
                changes.append({"t": "entities", "a": "update", "pk": {"id": keep_id},
                                "set": {"salience": salience},
                                "old": {"salience": keep["salience"]}})
            for other in conn.execute(
                    "SELECT id FROM merge_proposals WHERE status = 'pending' AND id <> ? AND"
                    " (keep_entity = ? OR merge_entity = ?)", (proposal_id, gone_id, gone_id)):
                changes.append({"t": "merge_proposals", "a": "update", "pk": {"id": other[0]},
                                "set": {"status": "obsolete"}, "old": {"status": "pending"}})
        seq = execute(conn, actor=actor, op="entity.merge" if approve else "entity.merge_reject",
                      subject=f"entity:{keep_id}",
                      changes=changes, extra={"proposal": proposal_id, "merged": gone_id})
    return {"proposal": proposal_id, "status": status, "kept": keep_id,
            "merged": gone_id if approve else None, "seq": seq}


def _refuse_lifting_protection(keep: sqlite3.Row, gone: sqlite3.Row) -> None:
    """The merged entity's events and facts move to the kept one and take its policy: a
    boundary or a policy only `gone` has would be lifted without a word."""
    lifted = None
    if gone["do_not_probe"] and not keep["do_not_probe"]:
        lifted = "a do_not_probe boundary"
    elif gone["policy"] != "full" and gone["policy"] != keep["policy"]:
        lifted = f"under the policy {gone['policy']}"
    if lifted:
        raise PulseError(f"{gone['canonical_name']} is {lifted} and {keep['canonical_name']} is "
                         "not: merging would lift it from what moves; give "
                         f"{keep['canonical_name']} the same first (`pulse policy`), or keep "
                         f"{gone['canonical_name']}")


def _merge_changes(conn: sqlite3.Connection, keep: sqlite3.Row, gone: sqlite3.Row
                   ) -> list[dict[str, Any]]:
    keep_id, gone_id = int(keep["id"]), int(gone["id"])
    _refuse_lifting_protection(keep, gone)
    changes: list[dict[str, Any]] = []
    # relations: repoint; a duplicate of an existing relation is folded into it
    for rel in conn.execute("SELECT * FROM relations WHERE from_entity = ? OR to_entity = ?"
                            " ORDER BY id", (gone_id, gone_id)).fetchall():
        a = keep_id if rel["from_entity"] == gone_id else rel["from_entity"]
        b = keep_id if rel["to_entity"] == gone_id else rel["to_entity"]
        twin = conn.execute("SELECT * FROM relations WHERE from_entity = ? AND to_entity = ?"
                            " AND kind = ? AND id <> ?", (a, b, rel["kind"], rel["id"])).fetchone()
        if a == b or twin is not None:
            if twin is not None:
                strength = max(twin["strength"], rel["strength"])
                if strength != twin["strength"]:
                    changes.append({"t": "relations", "a": "update", "pk": {"id": twin["id"]},
                                    "set": {"strength": strength},
                                    "old": {"strength": twin["strength"]}})
            for ev in conn.execute("SELECT * FROM evidence WHERE row_kind = 'relation' AND"
                                   " row_id = ?", (rel["id"],)).fetchall():
                changes.append({"t": "evidence", "a": "delete", "row": dict(ev)})
            changes.append({"t": "relations", "a": "delete",
                            "row": row_dict(conn, "relations", {"id": rel["id"]})})
        else:
            changes.append({"t": "relations", "a": "update", "pk": {"id": rel["id"]},
                            "set": {"from_entity": a, "to_entity": b},
                            "old": {"from_entity": rel["from_entity"], "to_entity": rel["to_entity"]}})
    # event links
    for link in conn.execute("SELECT * FROM event_entities WHERE entity_id = ?", (gone_id,)).fetchall():
        changes.append({"t": "event_entities", "a": "delete",
                        "row": row_dict(conn, "event_entities",
                                        {"event_id": link["event_id"], "entity_id": gone_id})})
        if conn.execute("SELECT 1 FROM event_entities WHERE event_id = ? AND entity_id = ?",
                        (link["event_id"], keep_id)).fetchone() is None:
            changes.append({"t": "event_entities", "a": "insert", "row": {
                "event_id": link["event_id"], "entity_id": keep_id, "role": link["role"]}})
    # facts
    for fact in conn.execute("SELECT * FROM facts WHERE entity_id = ?", (gone_id,)).fetchall():
        twin = conn.execute("SELECT id FROM facts WHERE entity_id = ? AND text = ?",
                            (keep_id, fact["text"])).fetchone()
        if twin is not None:
            for ev in conn.execute("SELECT * FROM evidence WHERE row_kind = 'fact' AND row_id = ?",
                                   (fact["id"],)).fetchall():
                changes.append({"t": "evidence", "a": "delete", "row": dict(ev)})
            changes.append({"t": "facts", "a": "delete",
                            "row": row_dict(conn, "facts", {"id": fact["id"]})})
        else:
            changes.append({"t": "facts", "a": "update", "pk": {"id": fact["id"]},
                            "set": {"entity_id": keep_id}, "old": {"entity_id": gone_id}})
    # entity evidence moves too
    for ev in conn.execute("SELECT * FROM evidence WHERE row_kind = 'entity' AND row_id = ?",
                           (gone_id,)).fetchall():
        changes.append({"t": "evidence", "a": "delete", "row": dict(ev)})
        if conn.execute("SELECT 1 FROM evidence WHERE observation_id = ? AND row_kind = 'entity'"
                        " AND row_id = ?", (ev["observation_id"], keep_id)).fetchone() is None:
            changes.append({"t": "evidence", "a": "insert", "row": {
                "observation_id": ev["observation_id"], "row_kind": "entity", "row_id": keep_id}})
    aliases = json.loads(keep["aliases"] or "[]")
    known = {norm_name(keep["canonical_name"]), *map(norm_name, aliases)}
    for name in [gone["canonical_name"], *json.loads(gone["aliases"] or "[]")]:
        if norm_name(name) not in known:
            aliases.append(name)
            known.add(norm_name(name))
    update = {"aliases": json.dumps(aliases, ensure_ascii=False)}
    old = {"aliases": keep["aliases"]}
    for col, pick in (("first_seen", min), ("last_seen", max)):
        values = [v for v in (keep[col], gone[col]) if v]
        if values and pick(values) != keep[col]:
            update[col], old[col] = pick(values), keep[col]
    changes.append({"t": "entities", "a": "update", "pk": {"id": keep_id}, "set": update,
                    "old": old})
    changes.append({"t": "entities", "a": "delete", "row": row_dict(conn, "entities",
                                                                    {"id": gone_id})})
    return changes
