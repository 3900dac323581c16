"""pulse's lexical hits placed on the index: BM25 and its share of the best, by index row.

Kept as sorted arrays and looked up in numpy: a dict per hit, read back row by row for every
candidate, neighbour and chain link, was a third of the pulse scorer's time at 10,000 events
(bench/speed.py). The values are those of the dict it replaces (one float division each)."""

from __future__ import annotations

import numpy as np


class LexicalHits:
    """The hits whose events have a live row in the index (others cannot be placed on the
    dense scale); `best` is the first hit's score, whether or not its event has a row."""

    def __init__(self, rows: np.ndarray, bm25: np.ndarray, best: float) -> None:
        order = np.argsort(rows, kind="stable")
        self.rows = rows[order]
        self.bm25 = bm25[order]
        self.norm = self.bm25 / best if best > 0 else np.zeros(self.rows.shape[0])

    @classmethod
    def none(cls) -> LexicalHits:
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0), 0.0)

    @classmethod
    def placed(cls, hits: list[tuple[int, float]], ids: np.ndarray, live: np.ndarray
               ) -> LexicalHits:
        """hits: (event id, score) best first; ids: the index's ascending event ids."""
        if not hits or ids.size == 0:
            return cls(np.zeros(0, dtype=np.int64), np.zeros(0), hits[0][1] if hits else 0.0)
        event_ids = np.fromiter((h[0] for h in hits), dtype=np.int64, count=len(hits))
        scores = np.fromiter((h[1] for h in hits), dtype=np.float64, count=len(hits))
        pos = np.minimum(np.searchsorted(ids, event_ids), ids.size - 1)
        present = (ids[pos] == event_ids) & live[pos]
        return cls(pos[present], scores[present], hits[0][1])

    def _lookup(self, values: np.ndarray, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        if self.rows.size == 0 or rows.size == 0:
            return np.zeros(rows.shape[0])
        at = np.minimum(np.searchsorted(self.rows, rows), self.rows.size - 1)
        return np.where(self.rows[at] == rows, values[at], 0.0)

    def norm_of(self, rows: np.ndarray) -> np.ndarray:
        """bm25_norm of each row (0 for a row without a hit)."""
        return self._lookup(self.norm, rows)

    def bm25_of(self, rows: np.ndarray) -> np.ndarray:
        return self._lookup(self.bm25, rows)
