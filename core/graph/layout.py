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

EXACT_LIMIT = 400
PARTNERS = 10
SPACING = 58.0          # pixels per sqrt(node): the average gap between neighbours is ~80 px
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
        iterations = 120 if n <= EXACT_LIMIT else 60 if n <= 1000 else 35
    temperature = 0.12
    cooling = temperature / (iterations + 1)
    gravity = 3.0                               # keeps loose components near the zone
    for _ in range(iterations):
        disp = _repulsion(pos, k) if n <= EXACT_LIMIT else _grid_repulsion(pos, k, rng)
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
    x, y = pos[:, 0], pos[:, 1]
    dx = x[:, None] - x[None, :]
    dy = y[:, None] - y[None, :]
    d2 = dx * dx + dy * dy
    np.fill_diagonal(d2, np.inf)
    inv = (k * k) / np.maximum(d2, 1e-6)
    return np.column_stack([(dx * inv).sum(axis=1), (dy * inv).sum(axis=1)])


def _grid_repulsion(pos: np.ndarray, k: float, rng: np.random.Generator) -> np.ndarray:
    """Far field from grid-cell centroids (point masses); near field inside a node's own cell
    from PARTNERS sampled cell-mates, scaled up to the cell's size. O(n · cells)."""
    n = len(pos)
    cells = int(min(24, max(4, math.sqrt(n / 20))))
    low = pos.min(axis=0)
    span = np.maximum(pos.max(axis=0) - low, 1e-9)
    cx = np.minimum(((pos[:, 0] - low[0]) / span[0] * cells).astype(np.int64), cells - 1)
    cy = np.minimum(((pos[:, 1] - low[1]) / span[1] * cells).astype(np.int64), cells - 1)
    cell = cx * cells + cy
    count = np.bincount(cell, minlength=cells * cells).astype(np.float64)
    sx = np.bincount(cell, weights=pos[:, 0], minlength=cells * cells)
    sy = np.bincount(cell, weights=pos[:, 1], minlength=cells * cells)
    used = np.nonzero(count)[0]
    mass = count[used]
    gx, gy = sx[used] / mass, sy[used] / mass
    mass32 = mass.astype(np.float32)
    slot = np.full(cells * cells, -1, dtype=np.int64)
    slot[used] = np.arange(len(used))
    own = slot[cell]

    disp = np.empty_like(pos)
    step = max(1, 2_000_000 // max(len(used), 1))      # bounded memory per chunk
    for a in range(0, n, step):
        b = min(n, a + step)
        dx = (pos[a:b, 0:1] - gx[None, :]).astype(np.float32)
        dy = (pos[a:b, 1:2] - gy[None, :]).astype(np.float32)
        force = np.float32(k * k) * mass32[None, :] / np.maximum(dx * dx + dy * dy, 1e-6)
        force[np.arange(b - a), own[a:b]] = 0.0        # own cell: sampled below
        disp[a:b, 0] = (dx * force).sum(axis=1)
        disp[a:b, 1] = (dy * force).sum(axis=1)

    # near field: each node against PARTNERS cell-mates (a rotating sample), exact pairs
    order = np.argsort(cell, kind="stable")
    sorted_cell = cell[order]
    first = np.searchsorted(sorted_cell, sorted_cell, side="left")
    size = count[sorted_cell].astype(np.int64)
    rank = np.arange(n) - first
    partners = min(PARTNERS, int(size.max()) - 1)
    if partners > 0:
        offset = int(rng.integers(0, 1 << 30))
        fx = np.zeros(n)
        fy = np.zeros(n)
        for s in range(1, partners + 1):
            hop = 1 + (offset + s * 7919) % np.maximum(size - 1, 1)
            other = order[first + (rank + hop) % size]
            me = order
            dx = pos[me, 0] - pos[other, 0]
            dy = pos[me, 1] - pos[other, 1]
            w = (k * k) / np.maximum(dx * dx + dy * dy, 1e-6)
            valid = size > 1
            fx[me] += np.where(valid, dx * w, 0.0)
            fy[me] += np.where(valid, dy * w, 0.0)
        scale = np.maximum(size - 1, 0) / partners
        disp[order, 0] += fx[order] * np.minimum(scale, size - 1)
        disp[order, 1] += fy[order] * np.minimum(scale, size - 1)
    return disp
