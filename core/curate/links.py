"""Links a person draws or fixes: cause→effect chain links between events, and relations
between entities.

Invariants (said to the user before they hit them): a chain link joins two different events
and never closes a cycle; its strength is in 0..1; one link per ordered pair of events. A
relation joins two different entities, its strength is in 0..1, and there is one relation of a
kind per ordered pair.
"""

from __future__ import annotations

from typing import Any

from core import beliefs
from core.errors import InvariantError, PulseError, ValidationError
from core.store import records
from core.store.changes import row_dict
from core.store.commands import execute, next_id, transaction
from core.store.sqlite import sqlite3

MAX_RELATION_KIND = 80
MAX_CONTEXT = 2000


def _strength(value: Any, what: str = "strength") -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 0.0 <= float(value) <= 1.0:
        raise ValidationError(f"the {what} must be a number in 0..1, got {value!r}")
    return round(float(value), 4)


def _chain_kind(kind: Any) -> str:
    if kind not in beliefs.CHAIN_KINDS:
        raise ValidationError(f"unknown link kind {kind!r} (one of {', '.join(beliefs.CHAIN_KINDS)})")
    return str(kind)


def link_events(memory: Any, parent_id: int, child_id: int, *, kind: str = "causal",
                strength: float = 0.5, actor: str = "manual") -> int:
    """parent → child (cause → effect). Refuses a self-link, a cycle and a duplicate."""
    return records.link_events(memory.conn, actor=actor, parent_id=parent_id, child_id=child_id,
                               kind=_chain_kind(kind), strength=_strength(strength))


def _link(conn: sqlite3.Connection, parent_id: int, child_id: int) -> dict[str, Any]:
    link = row_dict(conn, "event_chains", {"parent_id": parent_id, "child_id": child_id})
    if link is None:
        raise PulseError(f"there is no chain link {parent_id} → {child_id}")
    return link


def unlink_events(memory: Any, parent_id: int, child_id: int, *, actor: str = "manual") -> int:
    conn: sqlite3.Connection = memory.conn
    with transaction(conn):
        link = _link(conn, parent_id, child_id)
        return execute(conn, actor=actor, op="chain.remove", subject=f"event:{child_id}",
                       changes=[{"t": "event_chains", "a": "delete", "row": link}])


def set_link(memory: Any, parent_id: int, child_id: int, *, strength: float | None = None,
             kind: str | None = None, actor: str = "manual") -> int | None:
    """Re-weight (and/or re-kind) a chain link; None when nothing changed."""
    conn: sqlite3.Connection = memory.conn
    with transaction(conn):
        link = _link(conn, parent_id, child_id)
        new: dict[str, Any] = {}
        if strength is not None and _strength(strength) != link["strength"]:
            new["strength"] = _strength(strength)
        if kind is not None and _chain_kind(kind) != link["kind"]:
            new["kind"] = kind
        if not new:
            return None
        return execute(conn, actor=actor, op="chain.set", subject=f"event:{child_id}",
                       changes=[{"t": "event_chains", "a": "update",
                                 "pk": {"parent_id": parent_id, "child_id": child_id},
                                 "set": new, "old": {k: link[k] for k in new}}])


def _relation_kind(kind: Any) -> str:
    if not isinstance(kind, str) or not " ".join(kind.split()):
        raise ValidationError("a relation needs a kind (e.g. sister of, works with)")
    text = " ".join(kind.split()).replace(" ", "_").lower()
    if len(text) > MAX_RELATION_KIND:
        raise ValidationError(f"the relation kind is longer than {MAX_RELATION_KIND} characters")
    return text


def _no_twin(conn: sqlite3.Connection, a: int, b: int, kind: str, rel_id: int | None) -> None:
    if a == b:
        raise InvariantError("a relation joins two different entities")
    twin = conn.execute("SELECT id FROM relations WHERE from_entity = ? AND to_entity = ? AND"
                        " kind = ? AND id IS NOT ?", (a, b, kind, rel_id)).fetchone()
    if twin is not None:
        raise InvariantError(f"relation {twin[0]} already says that ({kind.replace('_', ' ')});"
                             " edit that one")


def add_relation(memory: Any, from_id: int, to_id: int, kind: str, *, strength: float = 0.5,
                 context: str = "", actor: str = "manual") -> dict[str, int]:
    """A relation a person states. Returns {"relation": its id, "seq": the journal row}."""
    conn: sqlite3.Connection = memory.conn
    kind = _relation_kind(kind)
    with transaction(conn):
        for entity in (from_id, to_id):
            if conn.execute("SELECT 1 FROM entities WHERE id = ?", (entity,)).fetchone() is None:
                raise PulseError(f"no entity {entity}")
        _no_twin(conn, from_id, to_id, kind, None)
        rel_id = next_id(conn, "relations")
        row = {"id": rel_id, "from_entity": from_id, "to_entity": to_id, "kind": kind,
               "context": str(context).strip()[:MAX_CONTEXT], "strength": _strength(strength),
               "first_seen": None, "last_seen": None}
        seq = execute(conn, actor=actor, op="relation.add", subject=f"entity:{from_id}",
                      changes=[{"t": "relations", "a": "insert", "row": row}])
    return {"relation": rel_id, "seq": seq}


def edit_relation(memory: Any, relation_id: int, *, kind: str | None = None,
                  strength: float | None = None, context: str | None = None,
                  reverse: bool = False, actor: str = "manual") -> int | None:
    """Change a relation's kind, strength or context, or turn it around (`reverse`)."""
    conn: sqlite3.Connection = memory.conn
    with transaction(conn):
        rel = row_dict(conn, "relations", {"id": relation_id})
        if rel is None:
            raise PulseError(f"no relation {relation_id}")
        wanted = {"kind": rel["kind"] if kind is None else _relation_kind(kind),
                  "strength": rel["strength"] if strength is None else _strength(strength),
                  "context": rel["context"] if context is None
                  else str(context).strip()[:MAX_CONTEXT],
                  "from_entity": rel["to_entity"] if reverse else rel["from_entity"],
                  "to_entity": rel["from_entity"] if reverse else rel["to_entity"]}
        new = {k: v for k, v in wanted.items() if v != rel[k]}
        if not new:
            return None
        _no_twin(conn, wanted["from_entity"], wanted["to_entity"], wanted["kind"], relation_id)
        return execute(conn, actor=actor, op="relation.edit",
                       subject=f"entity:{rel['from_entity']}",
                       changes=[{"t": "relations", "a": "update", "pk": {"id": relation_id},
                                 "set": new, "old": {k: rel[k] for k in new}}])
