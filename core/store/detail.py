"""Read-only views of one item, as plain dicts (what `Memory.event_detail` and the MCP
`get_event` tool return)."""

from __future__ import annotations

import json
from typing import Any

from core.store.sqlite import sqlite3


def event_detail(conn: sqlite3.Connection, event_id: int) -> dict[str, Any]:
    """One event with its emotions, entities, chain links and sources (no vectors)."""
    event = dict(conn.execute("SELECT * FROM events WHERE id = ?", (event_id,)).fetchone())
    try:
        event["biometrics"] = json.loads(event["biometrics"] or "{}")
    except ValueError:
        pass
    emo = conn.execute("SELECT * FROM event_emotions WHERE event_id = ?", (event_id,)).fetchone()
    if emo is not None:
        emo = dict(emo)
        emo.pop("event_id")
    entities = [dict(r) for r in conn.execute(
        "SELECT e.id, e.key, e.canonical_name AS name, e.kind FROM event_entities l"
        " JOIN entities e ON e.id = l.entity_id WHERE l.event_id = ? ORDER BY e.id", (event_id,))]
    parents = [dict(r) for r in conn.execute(
        "SELECT parent_id AS id, kind, strength FROM event_chains WHERE child_id = ?"
        " ORDER BY parent_id", (event_id,))]
    children = [dict(r) for r in conn.execute(
        "SELECT child_id AS id, kind, strength FROM event_chains WHERE parent_id = ?"
        " ORDER BY child_id", (event_id,))]
    sources = [dict(r) for r in conn.execute(
        "SELECT DISTINCT o.id, o.source_kind, o.source_id, o.observed_at FROM observations o"
        " WHERE o.id IN (SELECT observation_id FROM evidence WHERE row_kind = 'event'"
        " AND row_id = ?) OR o.id = ? ORDER BY o.id", (event_id, event["source_observation"]))]
    return {"event": event, "emotions": emo, "entities": entities, "parents": parents,
            "children": children, "sources": sources}
