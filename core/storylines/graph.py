"""Which storylines the memory holds, who is in each, and their centroids.

A storyline is a connected chain (two or more live events joined by event_chains links, in
either direction) or a distilled pattern (a live `memory_pattern` event and the events absorbed
into it). An event belongs to at most one: its chain, else its pattern. Live means not absorbed
and not archived.

The graph and every storyline's centroid (the normalised mean of its live members' vectors,
for a pattern its own vector, which is its members' centroid) are computed together, eagerly,
whenever the memory changes (`index_rev`, like the vector index); the summaries are written
lazily (core/storylines/store.py).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from core.scoring.index import EventIndex, current_rev
from core.store.sqlite import sqlite3


def live(alias: str = "") -> str:
    """SQL: the event is neither absorbed nor archived."""
    prefix = f"{alias}." if alias else ""
    return f"{prefix}absorbed_into IS NULL AND {prefix}archived = 0"


@dataclass(frozen=True)
class Storyline:
    key: str                     # "chain:ID" (smallest member id) | "pattern:ID"
    kind: str                    # chain | pattern
    anchor: int                  # chain: smallest member id; pattern: the pattern event
    members: tuple[int, ...]     # story order: by time, then id (a pattern's absorbed events)


@dataclass
class StorylineGraph:
    rev: str
    model: str
    storylines: dict[str, Storyline] = field(default_factory=dict)
    of_event: dict[int, str] = field(default_factory=dict)       # live event → its storyline
    centroids: dict[str, np.ndarray] = field(default_factory=dict)

    def of(self, event_id: int) -> Storyline | None:
        key = self.of_event.get(event_id)
        return self.storylines.get(key) if key else None


def _components(edges: list[tuple[int, int]]) -> list[list[int]]:
    neighbours: dict[int, set[int]] = defaultdict(set)
    for a, b in edges:
        neighbours[a].add(b)
        neighbours[b].add(a)
    seen: set[int] = set()
    out = []
    for start in sorted(neighbours):
        if start in seen:
            continue
        seen.add(start)
        stack, comp = [start], []
        while stack:
            node = stack.pop()
            comp.append(node)
            for nxt in neighbours[node]:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        out.append(sorted(comp))
    return out


def build(conn: sqlite3.Connection, index: EventIndex) -> StorylineGraph:
    """Every storyline of the memory and its centroid in `index`'s model."""
    graph = StorylineGraph(rev=current_rev(conn), model=index.model)
    edges = [(int(a), int(b)) for a, b in conn.execute(
        f"SELECT c.parent_id, c.child_id FROM event_chains c"
        f" JOIN events p ON p.id = c.parent_id AND {live('p')}"
        f" JOIN events k ON k.id = c.child_id AND {live('k')}")]
    ts_of = {}
    components = _components(edges)
    wanted = sorted({e for comp in components for e in comp})
    for start in range(0, len(wanted), 900):
        part = wanted[start:start + 900]
        ts_of.update({int(i): t for i, t in conn.execute(
            f"SELECT id, ts FROM events WHERE id IN ({','.join('?' * len(part))})", part)})
    for comp in components:
        members = tuple(sorted(comp, key=lambda e: (ts_of[e], e)))
        line = Storyline(f"chain:{comp[0]}", "chain", comp[0], members)
        graph.storylines[line.key] = line
        for event_id in comp:
            graph.of_event[event_id] = line.key
    absorbed: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for member, pattern, ts in conn.execute(
            f"SELECT m.id, m.absorbed_into, m.ts FROM events m JOIN events p"
            f" ON p.id = m.absorbed_into WHERE p.provenance = 'memory_pattern'"
            f" AND {live('p')} ORDER BY m.ts, m.id"):
        absorbed[int(pattern)].append((ts, int(member)))
    for pattern in sorted(absorbed):
        line = Storyline(f"pattern:{pattern}", "pattern", pattern,
                         tuple(m for _, m in absorbed[pattern]))
        graph.storylines[line.key] = line
        graph.of_event.setdefault(pattern, line.key)
    _centroids(graph, index)
    return graph


def _centroids(graph: StorylineGraph, index: EventIndex) -> None:
    if len(index) == 0:
        return
    for key, line in graph.storylines.items():
        ids = [line.anchor] if line.kind == "pattern" else list(line.members)
        rows = [p for p in (index.position(i) for i in ids) if p is not None]
        if not rows:
            continue
        mean = index.matrix[rows].astype(np.float64).mean(axis=0)
        norm = float(np.linalg.norm(mean))
        if norm > 0:
            graph.centroids[key] = (mean / norm).astype(np.float32)


class GraphCache:
    """One graph per memory revision and model (rebuilt when `index_rev` moves)."""

    def __init__(self) -> None:
        self._graph: StorylineGraph | None = None

    def get(self, conn: sqlite3.Connection, index: EventIndex) -> StorylineGraph:
        graph = self._graph
        if graph is not None and graph.rev == current_rev(conn) and graph.rev == index.rev \
                and graph.model == index.model:
            return graph
        self._graph = build(conn, index)
        return self._graph


# -- what a summary is computed from ---------------------------------------------------------

def member_rows(conn: sqlite3.Connection, ids: list[int]) -> dict[int, sqlite3.Row]:
    rows: dict[int, sqlite3.Row] = {}
    for start in range(0, len(ids), 900):
        part = ids[start:start + 900]
        rows.update({int(r["id"]): r for r in conn.execute(
            f"SELECT id, key, title, description, ts, belief_class, domain FROM events"
            f" WHERE id IN ({','.join('?' * len(part))})", part)})
    return rows


def members_hash(line: Storyline, rows: dict[int, sqlite3.Row]) -> str:
    """What a summary depends on: the members, their dates and texts (a change to any of them
    makes the stored summary stale)."""
    body = [line.kind, line.anchor] + [[i, rows[i]["ts"], rows[i]["title"], rows[i]["description"]]
                                       for i in line.members if i in rows]
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def names_of(conn: sqlite3.Connection, ids: list[int]
             ) -> tuple[dict[int, list[str]], dict[int, list[str]]]:
    """For each event: (the names and aliases of the people it links to, not the memory's own
    person; the names and aliases of every entity it links to)."""
    people: dict[int, list[str]] = defaultdict(list)
    names: dict[int, list[str]] = defaultdict(list)
    for start in range(0, len(ids), 900):
        part = ids[start:start + 900]
        for event_id, name, aliases, kind, is_self in conn.execute(
                f"SELECT x.event_id, e.canonical_name, e.aliases, e.kind, e.is_self"
                f" FROM event_entities x JOIN entities e ON e.id = x.entity_id"
                f" WHERE x.event_id IN ({','.join('?' * len(part))})", part):
            try:
                all_names = [name, *(a for a in json.loads(aliases or "[]") if isinstance(a, str))]
            except ValueError:
                all_names = [name]
            names[int(event_id)].extend(all_names)
            if kind == "person" and not is_self:
                people[int(event_id)].extend(all_names)
    return people, names
