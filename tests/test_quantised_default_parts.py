"""approximate() (core/scoring/quantised.py) called as a plain caller would, with its default
number of query parts: every row's interval still holds its exact cosine, on the rows built
to break it (tests/test_settle_exact.py: rows coded along what the query's parts leave, one-hot
and peaked rows, a row whose own rounding lies along the query) for every query shape there."""

from __future__ import annotations

import numpy as np
import pytest

from core.scoring.quantised import QuantisedRows, approximate, quantise
from tests.test_settle_exact import adversarial_rows, queries


@pytest.mark.parametrize("shape", ["e5-like", "peaked", "one-hot", "zero", "long", "short"])
def test_the_default_call_bounds_every_row(shape: str) -> None:
    rng = np.random.default_rng(4)
    query = queries(rng)[shape]
    matrix = adversarial_rows(rng, query)
    codes, scale, vec_norm, err_norm, code_sum = quantise(matrix)
    rows = QuantisedRows(matrix.shape[1], matrix.shape[0])
    rows.write_range(0, codes)
    approx, bound = approximate(rows, scale, vec_norm, err_norm, code_sum, query)
    exact = matrix.astype(np.float64) @ query.astype(np.float64)
    assert (np.abs(approx - exact) <= bound).all()


@pytest.mark.parametrize("n_parts", [1, 2, 3])
def test_every_number_of_query_parts_bounds_every_row(n_parts: int) -> None:
    """Each part of the query that the bound counts as taken off must be in the
    approximation too (a third part once was computed and left out, its share uncounted)."""
    rng = np.random.default_rng(9)
    query = queries(rng)["e5-like"]
    matrix = adversarial_rows(rng, query)
    codes, scale, vec_norm, err_norm, code_sum = quantise(matrix)
    rows = QuantisedRows(matrix.shape[1], matrix.shape[0])
    rows.write_range(0, codes)
    approx, bound = approximate(rows, scale, vec_norm, err_norm, code_sum, query,
                                n_parts=n_parts)
    exact = matrix.astype(np.float64) @ query.astype(np.float64)
    assert (np.abs(approx - exact) <= bound).all()
