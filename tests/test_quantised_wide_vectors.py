"""The first pass's integer products are exact at a remote embedder's width, on one thread.

core/scoring/quantised.py's bound rests on c·k being an exact integer. At 1,536 dimensions
(OpenAI's text-embedding-3-small, which a memory may use) a row of large codes against a large
query sums to ~2.5·10⁷, past float32's 2²⁴: a product taken in float32 would round it, so the
first pass must stay in integers however wide the vectors are."""

from __future__ import annotations

import numpy as np

from core.scoring import quantised
from core.scoring.quantised import BLOCK, QuantisedRows, approximate, quantise

DIM = 1536


def _exact(queries_u8: np.ndarray, codes: np.ndarray) -> np.ndarray:
    return queries_u8.astype(np.int64) @ codes.astype(np.int64).T


def test_products_of_wide_rows_are_exact_integers_past_float32s_range() -> None:
    rng = np.random.default_rng(1536)
    codes = rng.integers(100, 128, size=(40, DIM)).astype(np.int8)
    codes[1::2] *= -1          # some rows large and negative too
    rows = QuantisedRows(DIM, capacity=codes.shape[0])
    rows.write_range(0, codes)
    query = rng.integers(120, 128, size=(1, DIM)).astype(np.uint8)
    exact = _exact(query, codes)
    assert np.abs(exact).max() > 2 ** 24          # float32 could not hold every sum
    got = rows.products(query, codes.shape[0])
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, exact)


def test_wide_rows_over_two_blocks_keep_exact_products_and_a_sound_bound() -> None:
    # rows on both sides of a block edge; vectors as a remote embedder returns them
    rng = np.random.default_rng(7)
    n = BLOCK + 9
    vectors = rng.normal(size=(n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    codes, scale, vec_norm, err_norm, code_sum = quantise(vectors)
    rows = QuantisedRows(DIM, capacity=n)
    rows.write_range(0, codes)
    query = vectors[BLOCK + 3] + 0.1 * rng.normal(size=DIM).astype(np.float32)
    query /= np.linalg.norm(query)
    approx, bound = approximate(rows, scale, vec_norm, err_norm, code_sum, query)
    truth = vectors.astype(np.float64) @ query.astype(np.float64)
    assert np.all(np.abs(approx - truth) <= bound)
    # the integer part is exact for every row, the last block's included
    probe = np.full((1, DIM), 127, dtype=np.uint8)
    np.testing.assert_array_equal(rows.products(probe, n)[0, BLOCK - 2: BLOCK + 2],
                                  _exact(probe, codes[BLOCK - 2: BLOCK + 2])[0])


def test_the_first_pass_runs_on_the_calling_thread(monkeypatch) -> None:
    """The int8 product is one short call per query row on one core (MLAS's fast path); the
    scorer splits large float32 products across cores itself, and a query from the app's
    worker must not wake a second thread pool on a two-core machine."""
    monkeypatch.setattr(quantised, "_SESSIONS", {})      # a session made now, as in a new process
    options = quantised._session(DIM).get_session_options()
    assert options.intra_op_num_threads == 1
    assert options.inter_op_num_threads == 1
