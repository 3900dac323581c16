"""pulse's lexical hits placed on the index rows (core/scoring/lexical_hits.py): the values
the scorer reads for each row are those of the hit's event, a share of the first hit's score,
and 0 for a row without a hit or a hit without a live row."""

from __future__ import annotations

import numpy as np

from core.scoring.lexical_hits import LexicalHits


def test_hits_are_placed_by_event_id_and_read_by_row() -> None:
    ids = np.array([3, 5, 8, 13, 21, 34], dtype=np.int64)
    live = np.array([True, True, True, False, True, True])
    # best first; 99 has no row (no vector of this model) and 13's row is being removed
    hits = [(99, 8.0), (21, 6.0), (13, 5.0), (3, 2.0), (34, 1.0)]
    placed = LexicalHits.placed(hits, ids, live)
    assert placed.rows.tolist() == [0, 4, 5]
    rows = np.array([5, 4, 3, 0, 1, 2])
    assert placed.bm25_of(rows).tolist() == [1.0, 6.0, 0.0, 2.0, 0.0, 0.0]
    # the share of the first hit's score, even though that event has no row here
    assert placed.norm_of(rows).tolist() == [1.0 / 8.0, 6.0 / 8.0, 0.0, 2.0 / 8.0, 0.0, 0.0]
    assert placed.norm_of(np.zeros(0, dtype=np.int64)).shape == (0,)


def test_no_hits_and_no_rows() -> None:
    ids = np.array([1, 2], dtype=np.int64)
    live = np.ones(2, dtype=bool)
    for hits in ([], [(7, 3.0)]):
        placed = LexicalHits.placed(hits, ids, live)
        assert placed.rows.size == 0
        assert placed.norm_of(np.array([0, 1])).tolist() == [0.0, 0.0]
    empty = LexicalHits.placed([(1, 2.0)], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool))
    assert empty.bm25_of(np.array([0])).tolist() == [0.0]
    assert LexicalHits.none().norm_of(np.array([3])).tolist() == [0.0]


def test_a_best_score_of_zero_gives_zero_shares() -> None:
    placed = LexicalHits.placed([(2, 0.0), (1, 0.0)], np.array([1, 2]), np.ones(2, dtype=bool))
    assert placed.bm25_of(np.array([0, 1])).tolist() == [0.0, 0.0]
    assert placed.norm_of(np.array([0, 1])).tolist() == [0.0, 0.0]
