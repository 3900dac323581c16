"""Storyline summaries: written when first needed, kept in the `storylines` table, rewritten
when a member changes.

A stored summary carries the hash of what it was written from (members, dates, texts); a read
that finds it missing or stale writes the offline summary in one change set (op
`storyline.refresh`, actor `system`). That row only refreshes derived text, so a plain `undo`
passes over it (core/trust/undo.py DERIVED_OPS) and undoes the person's last action instead.
An abstractive summary from a model (core/storylines/llm.py) is a change set of its own
(op `storyline.summarise`), undoable like any action. A read-only memory gets the same
summaries, computed and not stored.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from core.scoring.index import EventIndex
from core.store.changes import row_dict
from core.store.commands import execute, transaction
from core.store.sqlite import sqlite3
from core.storylines.graph import (
    Storyline,
    StorylineGraph,
    member_rows,
    members_hash,
    names_of,
)
from core.storylines.summarise import DEFAULT_WEIGHTS, Member, Summary, Weights, summarise

REFRESH_OP = "storyline.refresh"
EXTRACTIVE = "extractive"


def members_of(conn: sqlite3.Connection, graph: StorylineGraph, index: EventIndex,
               line: Storyline, rows: dict[int, sqlite3.Row] | None = None) -> list[Member]:
    """The summariser's view of a storyline's members, each with its cosine to the centroid."""
    ids = list(line.members)
    rows = rows if rows is not None else member_rows(conn, ids)
    people, names = names_of(conn, ids)
    centroid = graph.centroids.get(line.key)
    vectors = _vectors(conn, index.model, ids) if centroid is not None else {}
    out = []
    for event_id in ids:
        row = rows.get(event_id)
        if row is None:
            continue
        vec = vectors.get(event_id)
        out.append(Member(id=event_id, ts=row["ts"], title=row["title"],
                          description=row["description"] or "", people=people.get(event_id, []),
                          names=names.get(event_id, []),
                          centrality=float(vec @ centroid) if vec is not None else None))
    return out


def _vectors(conn: sqlite3.Connection, model: str, ids: list[int]) -> dict[int, Any]:
    import numpy as np

    out = {}
    for start in range(0, len(ids), 900):
        part = ids[start:start + 900]
        for event_id, blob in conn.execute(
                f"SELECT event_id, vector FROM event_embeddings WHERE model = ? AND event_id IN"
                f" ({','.join('?' * len(part))})", [model, *part]):
            out[int(event_id)] = np.frombuffer(blob, dtype=np.float32)
    return out


def offline_summary(conn: sqlite3.Connection, graph: StorylineGraph, index: EventIndex,
                    line: Storyline, *, weights: Weights = DEFAULT_WEIGHTS,
                    rows: dict[int, sqlite3.Row] | None = None) -> Summary:
    return summarise(members_of(conn, graph, index, line, rows), weights=weights)


def _span(line: Storyline, rows: dict[int, sqlite3.Row]) -> dict[str, str | None]:
    dates = [rows[i]["ts"] for i in (*line.members, line.anchor) if i in rows]
    return {"from": min(dates) if dates else None, "to": max(dates) if dates else None}


def _entry(line: Storyline, stored: dict[str, Any], rows: dict[int, sqlite3.Row]
           ) -> dict[str, Any]:
    return {"key": line.key, "kind": line.kind, "title": stored["title"],
            "summary": stored["summary"], "method": stored["method"],
            "span": _span(line, rows), "members": list(line.members), "size": len(line.members),
            "anchor": line.anchor}


def _stored(conn: sqlite3.Connection, keys: list[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for start in range(0, len(keys), 900):
        part = keys[start:start + 900]
        out.update({r["key"]: dict(r) for r in conn.execute(
            f"SELECT * FROM storylines WHERE key IN ({','.join('?' * len(part))})", part)})
    return out


def _row(line: Storyline, digest: str, summary: Summary) -> dict[str, Any]:
    return {"key": line.key, "kind": line.kind, "members": json.dumps(list(line.members)),
            "members_hash": digest, "title": summary.title or "(untitled)",
            "summary": summary.text, "method": EXTRACTIVE}


def upsert_change(conn: sqlite3.Connection, row: dict[str, Any]) -> dict[str, Any]:
    """Insert the storyline row, or update it in place (old values kept for undo)."""
    old = row_dict(conn, "storylines", {"key": row["key"]})
    if old is None:
        return {"t": "storylines", "a": "insert", "row": row}
    new = {k: v for k, v in row.items() if k != "key" and old.get(k) != v}
    return {"t": "storylines", "a": "update", "pk": {"key": row["key"]}, "set": new,
            "old": {k: old[k] for k in new}}


def summaries(memory: Any, graph: StorylineGraph, index: EventIndex,
              keys: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
    """The storylines `keys` (default: all) with their title and summary, written now where
    missing or stale (unless the memory is read-only)."""
    conn = memory.conn
    lines = [graph.storylines[k] for k in (keys if keys is not None else graph.storylines)
             if k in graph.storylines]
    if not lines:
        return {}
    rows = member_rows(conn, sorted({i for line in lines for i in (*line.members, line.anchor)}))
    stored = _stored(conn, [line.key for line in lines])
    out: dict[str, dict[str, Any]] = {}
    fresh: dict[str, dict[str, Any]] = {}
    for line in lines:
        digest = members_hash(line, rows)
        current = stored.get(line.key)
        if current is None or current["members_hash"] != digest:
            current = _row(line, digest, offline_summary(conn, graph, index, line, rows=rows))
            fresh[line.key] = current
        out[line.key] = _entry(line, current, rows)
    if fresh and not memory.read_only:
        _write(conn, graph, fresh)
    return out


def _write(conn: sqlite3.Connection, graph: StorylineGraph,
           fresh: dict[str, dict[str, Any]]) -> int | None:
    """One derived change set: the new rows (unless another process wrote the same meanwhile)
    and the removal of rows whose storyline no longer exists."""
    with transaction(conn):
        stored = _stored(conn, list(fresh))
        changes = [upsert_change(conn, row) for key, row in fresh.items()
                   if stored.get(key, {}).get("members_hash") != row["members_hash"]]
        gone = [r for r in conn.execute("SELECT key FROM storylines")
                if r[0] not in graph.storylines]
        for (key,) in gone:
            changes.append({"t": "storylines", "a": "delete",
                            "row": row_dict(conn, "storylines", {"key": key})})
        if not changes:
            return None
        return execute(conn, actor="system", op=REFRESH_OP, subject="storylines",
                       changes=changes, extra={"storylines": len(changes)})


def stale_keys(memory: Any, graph: StorylineGraph) -> list[str]:
    """Storylines whose stored summary is missing or was written from other members."""
    conn = memory.conn
    lines = list(graph.storylines.values())
    rows = member_rows(conn, sorted({i for line in lines for i in (*line.members, line.anchor)}))
    stored = {r[0]: r[1] for r in conn.execute("SELECT key, members_hash FROM storylines")}
    return [line.key for line in lines if stored.get(line.key) != members_hash(line, rows)]
