"""A deterministic, seeded, domain-zoned layout in numpy (no scipy).

Each domain is laid out on its own (a Fruchterman–Reingold force layout over the edges inside
the domain), scaled to an area proportional to its node count, and the domain blocks are then
placed around the largest one, so every domain is a compact zone and the zones do not overlap.
Repulsion is exact up to ``EXACT_LIMIT`` nodes per domain and approximated on a grid above it
(far cells as point masses, exact inside a cell), which keeps 20k nodes to a few seconds.

The same graph and seed always give the same positions (node order is sorted, the random
generator is seeded, and there is no parallel reduction).
"""

from __future__ import annotations

import math
from collections.abc import Hashable

import networkx as nx
import numpy as np

from core.beliefs import DOMAINS

EXACT_LIMIT = 1200
SPACING = 46.0          # pixels per sqrt(node): the average gap between neighbours is ~80 px
ZONE_GAP = 160.0        # pixels between domain zones


def layout(graph: nx.Graph, *, seed: int = 7, iterations: int | None = None
           ) -> dict[Hashable, tuple[float, float]]:
    """Positions in vis-network pixels for every node: {node: (x, y)}."""
    nodes = sorted(graph.nodes, key=_sort_key)
    if not nodes:
        return {}
    by_domain: dict[str, list[Hashable]] = {}
    for node in nodes:
        by_domain.setdefault(graph.nodes[node].get("domain", "real"), []).append(node)
    order = sorted(by_domain, key=lambda d: (DOMAINS.index(d) if d in DOMAINS else 99, d))

    edges = _edge_weights(graph)
    blocks: list[tuple[str, list[Hashable], np.ndarray, float]] = []
    for i, domain in enumerate(order):
        members = by_domain[domain]
        index = {node: j for j, node in enumerate(members)}
        pairs = [(index[a], index[b], w) for (a, b), w in edges.items()
                 if a in index and b in index]
        rng = np.random.default_rng([seed, i])
        unit = _force_layout(len(members), pairs, rng, iterations)
        radius = SPACING * math.sqrt(len(members)) * 0.62 + 30.0
        blocks.append((domain, members, unit * radius, radius))

    # the largest zone in the middle, the others around it (right, below, left, above, …)
    centre = max(range(len(blocks)), key=lambda k: len(blocks[k][1]))
    out: dict[Hashable, tuple[float, float]] = {}
    big_r = blocks[centre][3]
    angles = [0.0, math.pi / 2, math.pi, 3 * math.pi / 2, math.pi / 4, 3 * math.pi / 4,
              5 * math.pi / 4, 7 * math.pi / 4]
    slot = 0
    for k, (_domain, members, pts, radius) in enumerate(blocks):
        if k == centre:
            offset = np.zeros(2)
        else:
            angle = angles[slot % len(angles)]
            distance = big_r + radius + ZONE_GAP
            offset = np.array([math.cos(angle) * distance, math.sin(angle) * distance])
            slot += 1
        for node, (x, y) in zip(members, pts + offset):
            out[node] = (round(float(x), 1), round(float(y), 1))
    return out


def _sort_key(node: Hashable) -> tuple[int, str, int]:
    text = str(node)
    prefix, _, rest = text.partition(":")
    return (0, prefix, int(rest)) if rest.isdigit() else (1, text, 0)


def _edge_weights(graph: nx.Graph) -> dict[tuple[Hashable, Hashable], float]:
    """Undirected, merged: the strongest edge between two nodes (0.2..1)."""
    out: dict[tuple[Hashable, Hashable], float] = {}
    for a, b, data in graph.edges(data=True):
        if a == b:
            continue
        pair = (a, b) if _sort_key(a) <= _sort_key(b) else (b, a)
        w = 0.2 + 0.8 * float(data.get("strength", 0.5))
        if w > out.get(pair, 0.0):
            out[pair] = w
    return out


def _force_layout(n: int, pairs: list[tuple[int, int, float]], rng: np.random.Generator,
                  iterations: int | None) -> np.ndarray:
    """Fruchterman–Reingold in the unit disc; returns n×2 in roughly [-1, 1]²."""
    if n == 1:
        return np.zeros((1, 2))
    # start on a sunflower spiral (even spread), shuffled by the seeded generator
    golden = math.pi * (3 - math.sqrt(5))
    r = np.sqrt((np.arange(n) + 0.5) / n)
    theta = np.arange(n) * golden
    pos = np.column_stack([r * np.cos(theta), r * np.sin(theta)])[rng.permutation(n)]
    if not pairs:
        return pos
    src = np.fromiter((p[0] for p in pairs), dtype=np.int64, count=len(pairs))
    dst = np.fromiter((p[1] for p in pairs), dtype=np.int64, count=len(pairs))
    weight = np.fromiter((p[2] for p in pairs), dtype=np.float64, count=len(pairs))

    area = 4.0                                  # the box [-1, 1]²
    k = math.sqrt(area / n)                     # ideal edge length
    if iterations is None:
        iterations = 120 if n <= 300 else 80 if n <= EXACT_LIMIT else 45
    temperature = 0.12
    cooling = temperature / (iterations + 1)
    gravity = 3.0                               # keeps loose components near the zone
    for _ in range(iterations):
        disp = _repulsion(pos, k) if n <= EXACT_LIMIT else _grid_repulsion(pos, k)
        delta = pos[src] - pos[dst]
        dist = np.sqrt((delta ** 2).sum(axis=1)) + 1e-9
        pull = (delta * (dist * weight / k)[:, None])
        np.add.at(disp, src, -pull)
        np.add.at(disp, dst, pull)
        disp -= pos * gravity
        length = np.sqrt((disp ** 2).sum(axis=1)) + 1e-12
        pos += disp * (np.minimum(length, temperature) / length)[:, None]
        temperature -= cooling
    pos -= pos.mean(axis=0)
    extent = np.sqrt((pos ** 2).sum(axis=1))
    scale = np.quantile(extent, 0.98) if n > 20 else extent.max()
    return pos / max(scale, 1e-9)


def _repulsion(pos: np.ndarray, k: float) -> np.ndarray:
    delta = pos[:, None, :] - pos[None, :, :]
    d2 = (delta ** 2).sum(axis=2)
    np.fill_diagonal(d2, np.inf)
    d2 = np.maximum(d2, 1e-6)
    return (delta * (k * k / d2)[:, :, None]).sum(axis=1)


def _grid_repulsion(pos: np.ndarray, k: float, cells: int = 20) -> np.ndarray:
    """Far field from cell centroids (point masses), near field exact within each cell."""
    n = len(pos)
    low = pos.min(axis=0)
    span = np.maximum(pos.max(axis=0) - low, 1e-9)
    cx = np.minimum((((pos[:, 0] - low[0]) / span[0]) * cells).astype(np.int64), cells - 1)
    cy = np.minimum((((pos[:, 1] - low[1]) / span[1]) * cells).astype(np.int64), cells - 1)
    cell = cx * cells + cy
    count = np.bincount(cell, minlength=cells * cells).astype(np.float64)
    sx = np.bincount(cell, weights=pos[:, 0], minlength=cells * cells)
    sy = np.bincount(cell, weights=pos[:, 1], minlength=cells * cells)
    used = np.nonzero(count)[0]
    centroid = np.column_stack([sx[used], sy[used]]) / count[used][:, None]
    mass = count[used]
    slot = np.full(cells * cells, -1, dtype=np.int64)
    slot[used] = np.arange(len(used))

    disp = np.empty_like(pos)
    for start in range(0, n, 4096):                  # bounded memory: 4096 × cells²
        chunk = pos[start:start + 4096]
        delta = chunk[:, None, :] - centroid[None, :, :]
        d2 = np.maximum((delta ** 2).sum(axis=2), 1e-6)
        force = k * k * mass[None, :] / d2
        own = slot[cell[start:start + 4096]]
        force[np.arange(len(chunk)), own] = 0.0      # own cell: exact below
        disp[start:start + 4096] = (delta * force[:, :, None]).sum(axis=1)

    order = np.argsort(cell, kind="stable")
    bounds = np.searchsorted(cell[order], used)
    ends = np.append(bounds[1:], n)
    for a, b in zip(bounds, ends):
        if b - a > 1:
            members = order[a:b]
            disp[members] += _repulsion(pos[members], k)
    return disp
