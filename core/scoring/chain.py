"""Chain mode (ENGINE §3): surface a causal story in order instead of scattered moments."""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field

from core.scoring.index import current_rev
from core.store.sqlite import sqlite3


@dataclass
class ChainGraph:
    rev: str
    parents: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    neighbours: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))

    def ancestor_depth(self, event_id: int) -> int:
        """Length of the longest parent path above an event (roots are 0)."""
        return _depth(self, event_id)


def _depth(graph: ChainGraph, event_id: int, _seen: frozenset[int] = frozenset()) -> int:
    best = 0
    for parent in graph.parents.get(event_id, ()):
        if parent in _seen:  # cycles are refused on insert; this only guards a damaged file
            continue
        best = max(best, 1 + _depth(graph, parent, _seen | {event_id}))
    return best


class ChainCache:
    """Links are loaded once per memory revision, not per query."""

    def __init__(self) -> None:
        self._graph: ChainGraph | None = None

    def get(self, conn: sqlite3.Connection) -> ChainGraph:
        rev = current_rev(conn)
        if self._graph is not None and self._graph.rev == rev:
            return self._graph
        graph = ChainGraph(rev=rev)
        for parent, child in conn.execute("SELECT parent_id, child_id FROM event_chains"):
            graph.parents[child].add(parent)
            graph.neighbours[parent].add(child)
            graph.neighbours[child].add(parent)
        self._graph = graph
        return graph


def _reach(graph: ChainGraph, start: int, depth: int) -> dict[int, int]:
    """Undirected BFS distances from start, up to `depth` hops."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if dist[node] == depth:
            continue
        for nxt in sorted(graph.neighbours.get(node, ())):
            if nxt not in dist:
                dist[nxt] = dist[node] + 1
                queue.append(nxt)
    return dist


def chain_order(graph: ChainGraph, seeds: list[int], ts_of: dict[int, str], depth: int,
                top_k: int) -> list[int]:
    """Reorder ranked seeds: the chain of the best-connected seed first, roots first, then the
    rest by score (the order of `seeds`)."""
    if not seeds:
        return []
    seed_set = set(seeds)
    reach_counts = []
    for rank, seed in enumerate(seeds):
        reached = _reach(graph, seed, depth)
        reach_counts.append((len(seed_set & reached.keys()) - 1, -rank, seed, reached))
    count, _, _, reached = max(reach_counts)
    if count <= 0:
        return seeds[:top_k]
    in_chain = [s for s in seeds if s in reached]
    in_chain.sort(key=lambda s: (graph.ancestor_depth(s), ts_of[s], s))
    rest = [s for s in seeds if s not in reached]
    return (in_chain + rest)[:top_k]

