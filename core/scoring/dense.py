"""The query's cosine with every index row, exact wherever the ranking can tell.

A small index multiplies its float32 matrix (every value exact). A large one (int8 codes,
core/scoring/quantised.py) first gets an approximate cosine a and a bound δ per row, so the
true cosine lies in [a − δ, a + δ]; the exact float32 cosine is then computed only for:

- the candidates: of the rows whose upper end reaches the N-th largest lower end, the N
  reaching highest are made exact, then every one whose upper end reaches the smallest of
  those N values — no other row can be among the N best, so the top N (and the maximum) are
  those of the exact cosines;
- the median: the rows of its sample whose interval overlaps [k-th lower end, k-th upper end]
  — every other row is certainly below or above the k-th value, so the order statistic of the
  patched values equals the exact one;
- any row the scorer later reads (lexical candidates, neighbours, an explained event).

So the values the scorer uses are the exact ones; the rest stay approximate and never decide.
"""

from __future__ import annotations

import numpy as np

from core.scoring.index import EventIndex
from core.scoring.quantised import approximate

_KEPT_SAMPLE = 8_192     # largest median sample whose vectors the index keeps together


class DenseScores:
    def __init__(self, index: EventIndex, query: np.ndarray, exact_product) -> None:
        self.index = index
        self.exact_rows = 0
        self.top_pool: tuple[int, np.ndarray] | None = None   # (n, rows holding the n best)
        if index.codes is None:
            self.values = exact_product(index.matrix, query)
            self._known = None
            return
        self._query = np.asarray(query, dtype=np.float32)
        # with the float32 vectors in memory a re-scored row is a cheap gather: one query part
        # (half the first pass, about twice the rows re-scored); read from the file, two
        self._in_memory = index.keeps_float
        self.values, self._bound = approximate(index.codes, index.scale, index.vec_norm,
                                               index.err_norm, index.code_sum, self._query,
                                               n_parts=1 if self._in_memory else 2)
        self._known = np.zeros(self.values.shape[0], dtype=bool)

    @property
    def approximate(self) -> bool:
        return self._known is not None

    def exact(self, rows: np.ndarray) -> np.ndarray:
        """Exact cosines of rows (computed once, then kept in `values`)."""
        rows = np.asarray(rows, dtype=np.int64)
        if self._known is not None and rows.size:
            todo = rows[~self._known[rows]]
            if todo.size > 1 and not (todo[1:] > todo[:-1]).all():
                todo = np.unique(todo)         # callers mostly pass ascending, distinct rows
            if todo.size:
                self.values[todo] = self.index.vectors(todo) @ self._query
                self._known[todo] = True
                self._bound[todo] = 0.0
                self.exact_rows += int(todo.size)
        return self.values[rows]

    def settle_top(self, rows: np.ndarray, n: int) -> None:
        """Make exact every row of `rows` that could be among the n largest."""
        if self._known is None or rows.size == 0:
            return
        every = rows.size == self.values.size      # rows are ascending and distinct
        values = self.values if every else self.values[rows]
        bound = self._bound if every else self._bound[rows]
        if rows.size > n:
            low = values - bound
            cut = np.partition(low, rows.size - n)[rows.size - n]
            high = np.add(values, bound, out=low)
            pool = np.flatnonzero(high >= cut)
            if pool.size > n:
                # the n of them reaching highest, made exact, are n rows at or above the
                # smallest of their values: every row whose upper end is below it is out.
                # Where the intervals are apart these are the n best and nothing more; where
                # they crowd, the pool shrinks from "reaches the n-th lower end" (~2 bounds
                # below the n-th value) to "reaches the n-th value found" (~1 bound)
                first = pool[np.argpartition(high[pool], pool.size - n)[pool.size - n:]]
                found = self.exact(first if every else rows[first]).min()
                pool = pool[high[pool] >= found]
            rows = pool if every else rows[pool]
        self.exact(rows)
        # every other row's value (exact or not) is below the pool's n-th value, and at least
        # n rows are at or above it: the n best of `rows` are the n best of all, ties included
        self.top_pool = (n, rows)

    def settle_order(self, rows: np.ndarray, ranks: list[int]) -> None:
        """Make exact every row of `rows` that could hold one of the order statistics `ranks`
        (0-based, ascending)."""
        if self._known is None or rows.size == 0:
            return
        if self._in_memory and rows.size <= _KEPT_SAMPLE:
            # the sample's vectors are kept together by the index: one product, no bound (a
            # domain filter's exact median over tens of thousands of rows takes the band)
            todo = ~self._known[rows]
            if todo.any():
                product = self.index.sample_product(rows, self._query)
                fresh = rows[todo]
                self.values[fresh] = product[todo]
                self._known[fresh] = True
                self._bound[fresh] = 0.0
                self.exact_rows += int(fresh.size)
            return
        low = self.values[rows] - self._bound[rows]
        high = self.values[rows] + self._bound[rows]
        lo = float(np.partition(low, min(ranks))[min(ranks)])
        hi = float(np.partition(high, max(ranks))[max(ranks)])
        self.exact(rows[(high >= lo) & (low <= hi)])
