"""The int8 first pass of a large index (core/scoring/quantised.py, core/scoring/dense.py):
the integer products are exact (no int16 saturation), the error bound holds for every row,
and a scorer over int8 codes with the exact re-score ranks exactly as the float32 matrix."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from core.memory import Memory
from core.scoring import index as index_module
from core.scoring.quantised import QuantisedRows, approximate, quantise, quantise_query
from tests.conftest import NOW
from tests.test_index_in_place import QUERIES


def unit_rows(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    m = rng.standard_normal((n, dim)).astype(np.float32)
    m[:, 3] *= 8.0            # an outlier dimension, as real embeddings have
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_products_are_exact_and_the_bound_holds() -> None:
    rng = np.random.default_rng(5)
    n, dim = 20_000, 384          # more than one block
    m = unit_rows(rng, n, dim)
    codes, scale, vec_norm, err_norm, code_sum = quantise(m)
    rows = QuantisedRows(dim, n)
    rows.write_range(0, codes)
    assert np.array_equal(rows.read(np.arange(n)), codes)
    for i in range(6):
        q = m[i] + 0.5 * rng.standard_normal(dim).astype(np.float32)
        q /= np.linalg.norm(q)
        ks = np.stack([k for k, _ in quantise_query(q)[0]])
        assert np.array_equal(rows.products(ks, n), ks.astype(np.int64) @ codes.T.astype(np.int64))
        approx, bound = approximate(rows, scale, vec_norm, err_norm, code_sum, q)
        exact = m.astype(np.float64) @ q.astype(np.float64)
        assert (np.abs(approx - exact) <= bound).all()
        assert bound.max() < 0.05          # tight enough to leave most rows out
        # one query part (the float32 vectors in memory): half the products, a wider bound
        approx1, bound1 = approximate(rows, scale, vec_norm, err_norm, code_sum, q, n_parts=1)
        assert (np.abs(approx1 - exact) <= bound1).all()
        assert bound.max() < bound1.max() < 0.1


def test_products_of_a_partly_used_last_block() -> None:
    """The last block's unused columns are left out (a copy of the used ones is multiplied):
    the products of the first n rows are exact for every n, wherever the block ends."""
    rng = np.random.default_rng(9)
    dim, n = 384, 40_000                    # three blocks, the last one a quarter used
    codes = rng.integers(-127, 128, size=(n, dim), dtype=np.int8)
    rows = QuantisedRows(dim, n)
    rows.write_range(0, codes)
    ks = rng.integers(1, 128, size=(2, dim), dtype=np.uint8)
    for used in (1, 2_000, 16_384, 16_385, 16_384 + 8_191, 16_384 + 8_192, 32_768 + 1, n):
        assert np.array_equal(rows.products(ks, used),
                              ks.astype(np.int64) @ codes[:used].T.astype(np.int64)), used


def test_rows_move_between_blocks() -> None:
    rng = np.random.default_rng(2)
    dim, n = 8, 40_000
    codes = rng.integers(-127, 128, size=(n, dim), dtype=np.int8)
    rows = QuantisedRows(dim, n)
    rows.write_range(0, codes)
    pick = rng.choice(n, size=500, replace=False)
    rows.write(pick, codes[pick][::-1])
    assert np.array_equal(rows.read(pick), codes[pick][::-1])
    rows.write_range(16_000, codes[:1_000])   # straddles the first block boundary
    assert np.array_equal(rows.read(np.arange(16_000, 17_000)), codes[:1_000])


@pytest.mark.parametrize("keep_float", [True, False])
def test_int8_scorer_ranks_as_float32(tmp_path, demo_db, monkeypatch, keep_float) -> None:
    path = tmp_path / "memory.db"
    shutil.copy(demo_db, path)
    queries = QUERIES + [{"query": q, "scorer": s} for q in ("sleep", "my mother", "work stress")
                         for s in ("pulse", "dense", "v2", "cosine")]

    def ranked(memory: Memory) -> list[list[tuple[int, float]]]:
        out = []
        for q in queries:
            got = memory.retrieve(q["query"], now=NOW,
                                  **{k: v for k, v in q.items() if k != "query"})
            out.append([(r["id"], r["score"]) for r in got["results"]])
        return out

    with Memory.open(path) as memory:
        want = ranked(memory)
        assert memory.scorer.index().codes is None
    monkeypatch.setattr(index_module, "QUANTISE_ROWS", 0)
    monkeypatch.setattr(index_module, "FLOAT_ROWS", 10**9 if keep_float else 0)
    with Memory.open(path) as memory:
        got = ranked(memory)
        assert memory.scorer.index().codes is not None
    for w, g in zip(want, got):
        assert [i for i, _ in g] == [i for i, _ in w]
        assert np.allclose([s for _, s in g], [s for _, s in w], rtol=0, atol=1e-5)
