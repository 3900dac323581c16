"""Chain mode (ENGINE §3, changed in docs/scoring.md): a causal story in order instead of
scattered moments, and the causes of an event ("what led to this?").

The story is anchored at the best-ranked event that has chain links. Its ancestors (causes) come
with it even when the query did not rank them ("via chain"), then the ranked events that follow
from it; the story is ordered roots first. Links are walked only through events the request
allows (its domains), so a chain never carries an event across a domain filter.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from core.scoring.changelog import changes_since, current_rev
from core.store.sqlite import sqlite3


@dataclass
class Link:
    kind: str
    strength: float


@dataclass
class ChainGraph:
    rev: str
    parents: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    children: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    links: dict[tuple[int, int], Link] = field(default_factory=dict)   # (parent, child)

    def ancestor_depth(self, event_id: int) -> int:
        """Length of the longest parent path above an event (roots are 0)."""
        return _depth(self, event_id)

    def linked(self, event_id: int) -> bool:
        return bool(self.parents.get(event_id) or self.children.get(event_id))


def _depth(graph: ChainGraph, event_id: int, _seen: frozenset[int] = frozenset()) -> int:
    best = 0
    for parent in graph.parents.get(event_id, ()):
        if parent in _seen:  # cycles are refused on insert; this only guards a damaged file
            continue
        best = max(best, 1 + _depth(graph, parent, _seen | {event_id}))
    return best


def direct_links(graph: ChainGraph, event_ids: Sequence[int], rows: Sequence[int],
                 position: Callable[[int], int | None], allowed: Sequence[bool]
                 ) -> dict[int, list[int]]:
    """Row → the allowed index rows of its event's direct chain parents and children (pulse's
    chain context); rows without such links are left out."""
    if not graph.links:
        return {}
    out: dict[int, list[int]] = {}
    for row, event_id in zip(rows, event_ids):
        near = []
        for other in graph.parents.get(event_id, set()) | graph.children.get(event_id, set()):
            pos = position(other)
            if pos is not None and allowed[pos]:
                near.append(pos)
        if near:
            out[row] = sorted(near)
    return out


class ChainCache:
    """Links are loaded once, and again only when a chain link changed (the change log)."""

    def __init__(self) -> None:
        self._graph: ChainGraph | None = None

    def get(self, conn: sqlite3.Connection) -> ChainGraph:
        rev = current_rev(conn)
        if self._graph is not None:
            if self._graph.rev == rev:
                return self._graph
            changes = changes_since(conn, self._graph.rev)
            if changes is not None and not changes.chains:
                self._graph.rev = changes.rev
                return self._graph
            rev = changes.rev if changes is not None else rev
        graph = ChainGraph(rev=rev)
        for parent, child, kind, strength in conn.execute(
                "SELECT parent_id, child_id, kind, strength FROM event_chains"):
            graph.parents[child].add(parent)
            graph.children[parent].add(child)
            graph.links[(parent, child)] = Link(kind, float(strength))
        self._graph = graph
        return graph


def _walk(step: dict[int, set[int]], start: int, depth: float, allowed: Callable[[int], bool]
          ) -> dict[int, int]:
    """Hops from start along `step` (parents or children), up to depth, through allowed events
    only; start itself is not included."""
    hops = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if hops[node] == depth:
            continue
        for nxt in sorted(step.get(node, ())):
            if nxt not in hops and allowed(nxt):
                hops[nxt] = hops[node] + 1
                queue.append(nxt)
    del hops[start]
    return hops


def ancestors(graph: ChainGraph, event_id: int, depth: float,
              allowed: Callable[[int], bool] = lambda _: True) -> dict[int, int]:
    """The causes of an event: ancestor id → hops (nearest path)."""
    return _walk(graph.parents, event_id, depth, allowed)


def descendants(graph: ChainGraph, event_id: int, depth: float,
                allowed: Callable[[int], bool] = lambda _: True) -> dict[int, int]:
    return _walk(graph.children, event_id, depth, allowed)


def roots_first(graph: ChainGraph, ids: Sequence[int], ts_of: Callable[[int], float | str]
                ) -> list[int]:
    """Roots first: by ancestor depth, then time, then id (an ancestor always precedes its
    descendants, since its depth is strictly smaller)."""
    return sorted(ids, key=lambda i: (graph.ancestor_depth(i), ts_of(i), i))


@dataclass
class Story:
    ordered: list[int]
    anchor: int | None
    via_chain: dict[int, int]   # events brought by the chain and not by the ranking → hops


def chain_story(graph: ChainGraph, ranked: Sequence[int], seeds: int, top_k: int, depth: int,
                anchor_top: int, ts_of: Callable[[int], float],
                allowed: Callable[[int], bool]) -> Story:
    """The ranked events (best first) reordered as a story.

    anchor: the best of the first `anchor_top` ranked events that has a chain link to an
    allowed event. The story: the anchor, its causes up to `depth` hops (ranked or not), and the
    ranked events among the first `seeds` that follow from it; roots first. When that is more
    than top_k, the anchor stays, then the nearest causes, then the followers by rank. The rest
    of the list is the other ranked events by rank, never after one of their own descendants.
    """
    seed_list = list(ranked[:seeds])
    anchor = next((i for i in seed_list[:anchor_top]
                   if any(allowed(n) for n in graph.parents.get(i, set()) | graph.children.get(i, set()))),
                  None)
    if anchor is None:
        return Story(_topological(graph, list(ranked[:top_k])), None, {})
    causes = ancestors(graph, anchor, depth, allowed)
    after = descendants(graph, anchor, depth, allowed)
    followers = [i for i in seed_list if i in after]
    by_nearness = sorted(causes, key=lambda i: (causes[i], -ts_of(i), i))
    # dict.fromkeys: on a damaged (cyclic) file an event can be both cause and follower
    members = list(dict.fromkeys([anchor] + by_nearness + followers))[:top_k]
    story = roots_first(graph, members, ts_of)
    chosen = set(story)
    rest = [i for i in ranked if i not in chosen][: top_k - len(story)]
    seed_set = set(seed_list)
    via = {i: causes[i] for i in story if i in causes and i not in seed_set}
    return Story(_topological(graph, story + rest), anchor, via)


_ANY_DEPTH = math.inf          # every cause, however far (a walk never revisits an event)


def _topological(graph: ChainGraph, ids: list[int]) -> list[int]:
    """Keep the order, except that an event's causes among the listed events come before it:
    each event in turn is preceded by its listed causes not yet placed, the earliest listed
    first, each of them preceded by its own the same way (stable, deterministic).

    On a damaged (cyclic) file two events can be each other's ancestors; neither is then the
    other's cause here, so a cycle keeps its listed order and everything else still comes
    after its causes. One walk of ancestors per listed event."""
    position = {event_id: i for i, event_id in enumerate(ids)}
    above = {e: {a for a in ancestors(graph, e, _ANY_DEPTH) if a in position} for e in position}
    causes = {e: sorted((a for a in above[e] if e not in above[a]), key=position.__getitem__)
              for e in position}
    out: list[int] = []
    placed: set[int] = set()
    for event_id in ids:
        pending = [event_id]          # a stack, not recursion: a chain can be long
        while pending:
            e = pending[-1]
            waiting = next((a for a in causes[e] if a not in placed), None)
            if waiting is not None:
                pending.append(waiting)
                continue
            pending.pop()
            if e not in placed:
                placed.add(e)
                out.append(e)
    return out
