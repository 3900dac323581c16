"""The int8 first pass and its settling (core/scoring/quantised.py, core/scoring/dense.py,
scorer._settle), where bench/mutate.py found wrong code passing (docs/scoring.md, "Mutation
check"):

- the quantiser: each coordinate comes back within half a step, a zero row without any NaN on
  the way, rows of no dimension, whole blocks and exactly full ones;
- the bound: |approximate − exact| ≤ bound on every row, for rows and queries built to meet it
  (a zero row, one-hot rows, a row with one huge coordinate, rows along what the query's
  quantisation leaves, a row whose own rounding lies along the query; a one-hot, a peaked, a
  long and a short query);
- settling is SOUND — the top N and the median of the settled values are those of a float32
  brute force, ties included, for several N, domain filters and samples even and odd — and
  EFFICIENT: `DenseScores.exact_rows` is exactly the rows that can matter where the intervals
  are apart, and stays under a stated count on a seeded e5-like index.

Deterministic: seeded vectors, no timing."""

from __future__ import annotations

import shutil
import sqlite3
import warnings

import numpy as np
import pytest

from core.memory import Memory
from core.scoring import index as index_module
from core.scoring.dense import DenseScores
from core.scoring.index import EventIndex, load_index
from core.scoring.quantised import BLOCK, QuantisedRows, approximate, quantise, quantise_query
from core.scoring.scorer import _median, _sample_positions, _settle, _top_rows
from core.scoring.settings import DEFAULT_SETTINGS
from core.store import records
from tests.test_index_edges import block
from tests.test_index_in_place import live_rows

DIM = 384


def unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)


def coded_along(direction: np.ndarray) -> np.ndarray:
    """A unit row the int8 codes hold exactly (no rounding of its own), pointing along
    `direction` as closely as 127 levels allow."""
    codes = np.rint(127.0 * direction / np.abs(direction).max())
    return unit(codes)


def residuals(query: np.ndarray) -> list[np.ndarray]:
    """What one and two query parts leave of the query (its f in quantised.py)."""
    q = np.asarray(query, dtype=np.float64)
    return [q - sum(t * (k.astype(np.float64) - 64) for k, t in quantise_query(q, parts)[0])
            for parts in (1, 2)]


def queries(rng: np.random.Generator) -> dict[str, np.ndarray]:
    e5_like = rng.standard_normal(DIM)
    e5_like[3] *= 8.0                     # an outlier dimension, as real embeddings have
    peaked = 0.02 * rng.standard_normal(DIM)
    peaked[7] = 1.0                       # one coordinate carries nearly all of it
    one_hot = np.zeros(DIM)
    one_hot[11] = 1.0                     # the first part holds it exactly: nothing is left
    out = {"e5-like": unit(e5_like), "peaked": unit(peaked), "one-hot": unit(one_hot),
           "zero": np.zeros(DIM, dtype=np.float32)}
    # powers of two scale every step exactly: a query's length is not assumed to be 1
    out["long"] = (64.0 * out["e5-like"]).astype(np.float32)
    out["short"] = (out["peaked"] / 64.0).astype(np.float32)
    return out


def adversarial_rows(rng: np.random.Generator, query: np.ndarray) -> np.ndarray:
    rows = [unit(rng.standard_normal((40, DIM)) + 0.3)]      # ordinary rows, a shared mean
    zero = np.zeros((1, DIM))
    one_hot = np.zeros((4, DIM))
    one_hot[0, 0], one_hot[1, 0], one_hot[2, 11], one_hot[3, 7] = 1.0, -1.0, 1.0, -1.0
    huge = 1e-3 * rng.standard_normal((2, DIM))
    huge[0, 5], huge[1, 7] = 1.0, -1.0          # the other coordinates all code to 0
    rows += [zero, one_hot, unit(huge)]
    for f in residuals(query):                  # the rest the query's parts leave, both signs
        if np.abs(f).max() > 0:
            rows += [coded_along(f)[None], coded_along(-f)[None]]
    # a row whose own rounding lies along the query: codes c (the peak 127 at coordinate 0,
    # the rest within ±126), then v = s·c + η·q' with every |η·q'_i| under half a step and
    # q' the query but at coordinate 0: the codes stay c, the error e is η·q'
    codes = rng.integers(-126, 127, DIM).astype(np.float64)
    codes[0] = 127
    q = np.asarray(query, dtype=np.float64)
    step = 1.0 / 127
    if np.abs(q).max() > 0:
        rows.append(coded_along(q)[None])
        along = q.copy()
        along[0] = 0.0
        rows.append(unit(step * codes + 0.45 * step * along / np.abs(q).max())[None])
    return np.concatenate(rows).astype(np.float32)


def quantised_index(matrix: np.ndarray, *, keep_float: bool,
                    conn: sqlite3.Connection | None = None) -> EventIndex:
    n, dim = matrix.shape
    rows = block(range(1, n + 1), dim=dim, seed=5)
    rows |= dict(zip(("codes", "scale", "vec_norm", "err_norm", "code_sum"), quantise(matrix)))
    rows["matrix"] = matrix if keep_float else matrix[:, :0]
    index = EventIndex("m", dim, capacity=n, quantised=True, keep_float=keep_float, conn=conn)
    index._append(rows)
    return index


# -- the quantiser -------------------------------------------------------------------------------

def test_codes_give_back_each_coordinate_within_half_a_step() -> None:
    rng = np.random.default_rng(1)
    rows = adversarial_rows(rng, queries(rng)["e5-like"])
    rows = np.concatenate([rows, 1e-30 * rows[:3]])         # tiny, but normal floats
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # a zero row divides nothing by zero
        codes, scale, vec_norm, err_norm, code_sum = quantise(rows)
    back = codes.astype(np.float64) * scale[:, None]
    assert (np.abs(rows - back) <= 0.5 * scale[:, None] * (1 + 1e-6)).all()
    assert np.abs(codes.astype(int)).max() == 127
    peaks = np.abs(rows).max(axis=1) > 0
    assert (np.abs(codes[peaks].astype(int)).max(axis=1) == 127).all()   # the peak is ±127
    zero = ~peaks
    assert zero.sum() == 1 and not codes[zero].any() and not back[zero].any()
    usual = slice(None, -3)         # (the tiny rows' float32 norms underflow to 0)
    assert vec_norm[usual] == pytest.approx(np.linalg.norm(back[usual], axis=1), rel=1e-6)
    assert err_norm[usual] == pytest.approx(np.linalg.norm(rows[usual] - back[usual], axis=1),
                                            rel=1e-4, abs=1e-7)
    assert np.array_equal(code_sum, codes.sum(axis=1))


def test_rows_of_no_dimension_quantise_to_empty_codes() -> None:
    codes, scale, vec_norm, err_norm, code_sum = quantise(np.zeros((3, 0), dtype=np.float32))
    assert codes.shape == (3, 0)
    assert scale.shape == vec_norm.shape == err_norm.shape == code_sum.shape == (3,)
    assert not vec_norm.any() and not err_norm.any() and not code_sum.any()


def test_codes_take_whole_blocks_and_no_spare_one() -> None:
    """A block is dim × 16,384 bytes: rows that fill k blocks get k, not k + 1."""
    rows = QuantisedRows(8, BLOCK)
    assert rows.capacity == BLOCK and len(rows.blocks) == 1
    rows.reserve(BLOCK)
    assert len(rows.blocks) == 1
    rows.reserve(BLOCK + 1)
    assert rows.capacity == 2 * BLOCK
    rows.reserve(2 * BLOCK)
    assert len(rows.blocks) == 2
    assert QuantisedRows(8, 0).capacity == 0


def test_products_of_rows_that_fill_their_blocks_exactly() -> None:
    rng = np.random.default_rng(12)
    dim, n = 16, 2 * BLOCK
    codes = rng.integers(-127, 128, size=(n, dim), dtype=np.int8)
    rows = QuantisedRows(dim, n)
    rows.write_range(0, codes)
    assert len(rows.blocks) == 2
    ks = rng.integers(1, 128, size=(2, dim), dtype=np.uint8)
    for used in (BLOCK - 1, BLOCK, n - 1, n):
        assert np.array_equal(rows.products(ks, used),
                              ks.astype(np.int64) @ codes[:used].T.astype(np.int64)), used


# -- the bound -----------------------------------------------------------------------------------

@pytest.mark.parametrize("keep_float", [True, False])
@pytest.mark.parametrize("query_name", ["e5-like", "peaked", "one-hot", "zero", "long", "short"])
def test_the_bound_holds_on_every_row(query_name: str, keep_float: bool) -> None:
    """Every row's interval [a − δ, a + δ] holds its exact cosine, the rows made to meet the
    bound included: with the float32 vectors in memory (one query part) and read from the
    file (two parts)."""
    rng = np.random.default_rng(7)
    query = queries(rng)[query_name]
    matrix = adversarial_rows(rng, query)
    index = quantised_index(matrix, keep_float=keep_float)
    dense = DenseScores(index, query, None)
    exact = matrix.astype(np.float64) @ query.astype(np.float64)
    assert np.isfinite(dense._bound).all()
    assert (np.abs(dense.values - exact) <= dense._bound).all()
    # and no wider than Cauchy–Schwarz on the rows' own rounding (at most half a step per
    # coordinate) and on what the query's parts leave, plus a 2·10⁻⁴ relative slack
    q = float(np.linalg.norm(query))
    left = float(np.linalg.norm(residuals(query)[0 if keep_float else 1]))
    norms = np.linalg.norm(matrix.astype(np.float64), axis=1)
    rounding = np.sqrt(DIM) / 254 * np.abs(matrix).max(axis=1)
    assert (dense._bound <= (norms * left + rounding * q) * (1 + 1e-3) + 2e-4 * norms * q
            + 1e-6).all()


def test_the_first_pass_runs_one_query_part_in_memory_and_two_from_the_file() -> None:
    """With the float32 vectors in memory a re-scored row is a cheap gather: one query part
    (half the int8 products, about twice the bound); read from the file, two parts."""
    rng = np.random.default_rng(8)
    query = queries(rng)["e5-like"]
    matrix = adversarial_rows(rng, query)
    for keep_float, parts in ((True, 1), (False, 2)):
        index = quantised_index(matrix, keep_float=keep_float)
        dense = DenseScores(index, query, None)
        want = approximate(index.codes, index.scale, index.vec_norm, index.err_norm,
                           index.code_sum, query, n_parts=parts)
        assert np.array_equal(dense.values, want[0]) and np.array_equal(dense._bound, want[1])


# -- settling: sound, and exactly the rows that can matter --------------------------------------

SPACED = np.round(np.arange(-0.9, 0.9001, 0.06), 3)        # 31 cosines, apart by 0.06
TIE = 0.3                                                  # two rows share this one


@pytest.fixture(scope="module")
def spaced(tmp_path_factory) -> dict:
    """A memory whose rows have cosines SPACED with one query (and one tie), in shuffled id
    order; every third row is fiction. Its file-backed reads are real SQLite reads."""
    rng = np.random.default_rng(21)
    query = unit(rng.standard_normal(DIM))
    cosines = np.concatenate([SPACED, [TIE]])
    order = rng.permutation(cosines.size)
    path = tmp_path_factory.mktemp("spaced") / "memory.db"
    tie_row = None
    with Memory.open(path, create=True) as memory:
        for i, k in enumerate(order):
            c = cosines[k]
            if c == TIE and tie_row is not None:
                vec = tie_row                     # the same vector: an exact tie
            else:
                u = rng.standard_normal(DIM)
                u -= (u @ query) * query
                vec = (c * query + np.sqrt(1 - c * c) * u / np.linalg.norm(u)).astype(np.float32)
                tie_row = vec if c == TIE else tie_row
            records.add_event(memory.conn, actor="import", fields={
                "title": f"row {i}", "ts": "2026-10-01T10:00:00Z",
                "domain": "fiction_content" if i % 3 == 0 else "real"},
                vectors=[records.Vector("synthetic", vec)])
    return {"path": path, "query": query}


def _spaced_index(spaced: dict, representation: str, monkeypatch) -> tuple[EventIndex, Memory]:
    monkeypatch.setattr(index_module, "QUANTISE_ROWS", 0)
    monkeypatch.setattr(index_module, "FLOAT_ROWS", 0 if representation == "int8" else 10**9)
    memory = Memory.open(spaced["path"])
    index = load_index(memory.conn, "synthetic")
    assert index.codes is not None and index.keeps_float == (representation != "int8")
    return index, memory


def _expected_exact(exact: np.ndarray, rows: np.ndarray, ids: np.ndarray, n: int,
                    settings, in_memory: bool) -> set[int]:
    """The rows that can matter when no two intervals overlap: the n best (every row when
    there are no more), and the median's — its whole sample when the vectors are in memory,
    else the one or two rows at its middle ranks."""
    best = _top_rows(exact, rows, ids, n)
    top = set(rows[exact[rows] >= exact[best].min()].tolist())     # a tie at the cut: both
    sample = rows
    if rows.size > settings.median_exact_limit:
        sample = rows[_sample_positions(rows.size, settings.median_sample)]
    if in_memory:
        return top | set(sample.tolist())
    ranked = sample[np.argsort(exact[sample], kind="stable")]
    half = sample.size // 2
    middle = exact[ranked[[half] if sample.size % 2 else [half - 1, half]]]
    return top | set(sample[np.isin(exact[sample], middle)].tolist())


@pytest.mark.parametrize("representation", ["int8", "int8+float32"])
def test_settling_is_sound_and_re_scores_only_the_rows_that_can_matter(spaced, representation,
                                                                       monkeypatch) -> None:
    """Where no two intervals overlap (the cosines are 0.06 apart, the bounds under half of
    that), the rows made exact are exactly the n best and the median's, whatever N, domain
    filter or sample: a wider bound or a wrong rank shows as a row more, a narrower one as a
    wrong top or median."""
    index, memory = _spaced_index(spaced, representation, monkeypatch)
    query = spaced["query"]
    with memory:
        exact = index.matrix @ query if index.keeps_float else index.vectors(
            np.arange(len(index))) @ query
        fiction = index.domain_code == index_module.DOMAIN_CODES["fiction_content"]
        filters = {"all": np.arange(len(index)), "fiction": np.flatnonzero(fiction),
                   "real": np.flatnonzero(~fiction)}
        assert [rows.size % 2 for rows in filters.values()] == [0, 1, 1]
        checked = 0
        for top_k in (1, 4):
            for limit, sample in ((1000, 1), (10, 7), (10, 8)):
                settings = DEFAULT_SETTINGS.with_overrides({
                    "candidates_min": 3, "candidates_per_k": 2,
                    "median_exact_limit": limit, "median_sample": sample})
                n = max(3, 2 * top_k)
                for name, rows in filters.items():
                    dense = DenseScores(index, query, None)
                    order = np.argsort(exact)
                    gaps = np.diff(exact[order]) - dense._bound[order][1:] - dense._bound[order][:-1]
                    assert (gaps[np.diff(exact[order]) > 0] > 0).all()   # apart, but the tie
                    _settle(dense, rows, top_k, settings)
                    assert dense.top_pool[0] == n
                    want = _top_rows(exact, rows, index.ids, n)
                    got = _top_rows(dense.values, dense.top_pool[1], index.ids, n)
                    assert np.array_equal(got, want), (top_k, limit, sample, name)
                    assert np.abs(dense.values[want] - exact[want]).max() <= 1e-6
                    assert _median(dense.values[rows], settings) == pytest.approx(
                        _median(exact[rows], settings), abs=1e-6)
                    expected = _expected_exact(exact, rows, index.ids, n, settings,
                                               index.keeps_float)
                    assert dense.exact_rows == len(expected), (top_k, limit, sample, name)
                    # the scorer then reads these rows: settled once, never re-scored
                    dense.exact(np.array(sorted(expected), dtype=np.int64))
                    assert dense.exact_rows == len(expected)
                    checked += 1
        assert checked == 18


@pytest.mark.parametrize("subset", [False, True])
def test_ties_at_the_cut_stay_in_the_pool_when_settled_again(spaced, subset, monkeypatch) -> None:
    """Two rows with the same vector, the N-th and (N+1)-th best, already exact (an explained
    event, an earlier settle): their intervals are one point, the cut itself. Both stay in the
    pool, and the tie goes to the smaller id as a brute force gives it."""
    index, memory = _spaced_index(spaced, "int8", monkeypatch)
    query = spaced["query"]
    with memory:
        exact = index.vectors(np.arange(len(index))) @ query
        rows = np.arange(len(index))
        if subset:
            rows = rows[exact > -0.5]               # a filter: rows is not every row
        tied = np.flatnonzero(np.isclose(exact, TIE, rtol=0, atol=1e-4))
        assert tied.size == 2 and exact[tied[0]] == exact[tied[1]]
        n = int((exact[rows] > TIE + 1e-3).sum()) + 1
        dense = DenseScores(index, query, None)
        dense.exact(tied)
        dense.settle_top(rows, n)
        pool = dense.top_pool[1]
        assert set(tied.tolist()) <= set(pool.tolist())
        want = _top_rows(exact, rows, index.ids, n)
        assert np.array_equal(_top_rows(dense.values, pool, index.ids, n), want)
        assert want[-1] == tied[np.argmin(index.ids[tied])]
        assert dense.exact_rows == n + 1         # the n − 1 above the tie, and the tie's two


def test_exact_re_scores_each_row_once(spaced, monkeypatch) -> None:
    """Rows asked again, unordered or twice in one call are re-scored once each: the count of
    exact rows is the work done."""
    index, memory = _spaced_index(spaced, "int8", monkeypatch)
    query = spaced["query"]
    with memory:
        want = index.vectors(np.arange(len(index))) @ query
        dense = DenseScores(index, query, None)
        for rows, count in (([5, 3, 5, 3], 2), ([10, 12, 12], 4), ([20, 20], 5), ([30], 6),
                            ([30], 6), ([3, 30, 5], 6), ([], 6), ([25, 23, 24], 9)):
            got = dense.exact(np.array(rows, dtype=np.int64))
            assert got.shape == (len(rows),)
            assert np.abs(got - want[rows]).max(initial=0) <= 1e-6
            assert dense.exact_rows == count, rows


def test_settling_nothing_or_an_exact_index_does_nothing(spaced, monkeypatch) -> None:
    """No allowed row (a domain filter nobody is in) settles nothing on a large index; a small
    index's float32 cosines are exact already, so settling them is a no-op."""
    index, memory = _spaced_index(spaced, "int8", monkeypatch)
    with memory:
        dense = DenseScores(index, spaced["query"], None)
        before = dense.values.copy()
        _settle(dense, np.zeros(0, dtype=np.int64), 5, DEFAULT_SETTINGS)
        assert dense.exact_rows == 0 and np.array_equal(dense.values, before)
    monkeypatch.setattr(index_module, "QUANTISE_ROWS", 10**9)
    with Memory.open(spaced["path"]) as memory:
        small = load_index(memory.conn, "synthetic")
        assert small.codes is None
        dense = DenseScores(small, spaced["query"],
                            lambda matrix, q: (matrix @ q).astype(np.float64))
        assert not dense.approximate
        rows = np.arange(len(small))
        dense.settle_top(rows, 3)
        dense.settle_order(rows, [20])
        assert dense.top_pool is None and dense.exact_rows == 0
        assert np.array_equal(dense.exact(rows[::-1]), (small.matrix @ spaced["query"])[::-1])


# -- an e5-like index: sound, and under a stated count of re-scored rows ------------------------

@pytest.fixture(scope="module")
def e5_like(demo_db) -> dict:
    """20,000 rows mixed from the demo memory's real e5 vectors (three each, plus a little
    noise): cosines crowd between 0.74 and 0.97 as a real memory's do. Their float32 vectors
    are also kept in a real SQLite file, for the index that reads them from there."""
    with sqlite3.connect(demo_db) as conn:
        demo = np.array([np.frombuffer(v, np.float32) for (v,) in conn.execute(
            "SELECT vector FROM event_embeddings ORDER BY event_id")])
    rng = np.random.default_rng(3)
    n = 20_000
    weights = rng.dirichlet(np.full(3, 0.5), size=n)
    mixed = np.einsum("nk,nkd->nd", weights, demo[rng.integers(0, demo.shape[0], (n, 3))])
    matrix = unit(mixed + rng.normal(0, 0.01, (n, demo.shape[1])))
    query = unit(0.6 * demo[5] + 0.4 * demo[77])
    return {"matrix": matrix, "query": query}


# the rows re-scored for N = 50 and a median sample of 1,001 of 20,000 (measured 1,112 and 415;
# 1,213 and 432 when the top pool was every row reaching the N-th lower end; every row
# re-scored would be 20,000, a twice wider bound about twice as many)
CEILING = {True: 1_160, False: 425}


@pytest.mark.parametrize("keep_float", [True, False])
def test_an_e5_like_index_settles_few_rows_whatever_the_query_length(e5_like, keep_float,
                                                                     tmp_path) -> None:
    matrix, query = e5_like["matrix"], e5_like["query"]
    conn = None
    if not keep_float:
        conn = sqlite3.connect(tmp_path / "vectors.db")
        conn.execute("CREATE TABLE event_embeddings (event_id INTEGER PRIMARY KEY, model TEXT,"
                     " vector BLOB)")
        conn.executemany("INSERT INTO event_embeddings VALUES (?, 'm', ?)",
                         [(i + 1, row.tobytes()) for i, row in enumerate(matrix)])
    index = quantised_index(matrix, keep_float=keep_float, conn=conn)
    settings = DEFAULT_SETTINGS.with_overrides({"median_exact_limit": 5_000,
                                                "median_sample": 1_001})
    rows = np.arange(matrix.shape[0])
    exact = matrix @ query
    counts = []
    for scale in (1.0, 1 / 64, 64.0):           # powers of two: every step scales exactly
        q = (query * scale).astype(np.float32)
        dense = DenseScores(index, q, None)
        assert (np.abs(dense.values - matrix.astype(np.float64) @ q.astype(np.float64))
                <= dense._bound).all()
        _settle(dense, rows, 5, settings)
        want = _top_rows(exact, rows, index.ids, 50)
        assert np.array_equal(_top_rows(dense.values, dense.top_pool[1], index.ids, 50), want)
        assert np.abs(dense.values[want] / scale - exact[want]).max() <= 1e-6
        assert _median(dense.values, settings) / scale == pytest.approx(
            _median(exact, settings), abs=1e-6)
        counts.append(dense.exact_rows)
    assert counts[0] <= CEILING[keep_float]
    # the query's length changes no interval but by the 1e-7 floor: the same rows, about
    assert counts[1] <= counts[0] + 10 and counts[2] <= counts[0]
    if conn is not None:
        conn.close()


def _demo_copy(tmp_path, demo_db):
    """A writable copy of the demo memory."""
    path = tmp_path / "memory.db"
    shutil.copy(demo_db, path)
    return path


# -- the index: rows appended or returning in place, as a fresh load has them -------------------

def test_rows_without_an_observation_appended_in_place_have_no_neighbours(tmp_path, demo_db
                                                                          ) -> None:
    """Events imported without a conversation (no observation) are appended with no
    neighbours, beside a remembered one that has them: every column is a fresh load's."""
    path = _demo_copy(tmp_path, demo_db)
    rng = np.random.default_rng(4)
    with Memory.open(path) as memory:
        cache = memory.scorer._indexes
        index = cache.get(memory.conn, memory.embedding_model)
        for i in range(2):
            records.add_event(memory.conn, actor="import", fields={
                "title": f"imported {i}", "ts": "2026-10-02T10:00:00Z"},
                vectors=[records.Vector(memory.embedding_model, unit(rng.standard_normal(
                    index.dim)))])
        assert cache.get(memory.conn, memory.embedding_model) is index
        memory.remember("Walked to the harbour with my sister.", "2026-10-03T10:00:00Z")
        for i in range(2):
            records.add_event(memory.conn, actor="import", fields={
                "title": f"imported later {i}", "ts": "2026-10-04T10:00:00Z"},
                vectors=[records.Vector(memory.embedding_model, unit(rng.standard_normal(
                    index.dim)))])
        assert cache.get(memory.conn, memory.embedding_model) is index
        fresh = load_index(memory.conn, memory.embedding_model)
        assert (index.obs_id[-2:] == -1).all() and (index.obs_id[-3] >= 1)
        for name in ("ids", "obs_id", "prev_row", "next_row", "prev_gap_days",
                     "next_gap_days"):
            assert np.array_equal(getattr(index, name), getattr(fresh, name)), name
        assert live_rows(index) == live_rows(fresh)


def test_an_event_returning_between_the_last_two_rows_takes_its_place(tmp_path, demo_db
                                                                      ) -> None:
    """The second newest event leaves (a dismissed question is archived) and comes back: it is
    shifted in before the newest row, not appended after it."""
    path = _demo_copy(tmp_path, demo_db)
    with Memory.open(path) as memory:
        cache = memory.scorer._indexes
        index = cache.get(memory.conn, memory.embedding_model)
        second = int(index.ids[-2])
        memory.set_belief(second, belief_class="hypothesis")
        memory.dismiss_question(second)
        assert cache.get(memory.conn, memory.embedding_model) is index
        assert second not in index.ids.tolist()
        memory.restore(second)
        assert cache.get(memory.conn, memory.embedding_model) is index
        assert int(index.ids[-2]) == second and (np.diff(index.ids) > 0).all()
        assert live_rows(index) == live_rows(load_index(memory.conn, memory.embedding_model))


def test_the_kept_median_sample_follows_the_rows_a_write_moved(tmp_path, demo_db) -> None:
    """The median sample's vectors are kept between queries (index.sample_product); after a
    write, the same row positions may hold other events (an edit supersedes its event and
    appends the new version), so the kept vectors must be gathered again."""
    path = _demo_copy(tmp_path, demo_db)
    rng = np.random.default_rng(6)
    with Memory.open(path) as memory:
        cache = memory.scorer._indexes
        index = cache.get(memory.conn, memory.embedding_model)
        rows = np.arange(len(index.ids) - 1)
        query = unit(rng.standard_normal(index.dim))
        before = index.sample_product(rows, query)
        assert np.allclose(index.sample_product(rows, query), before)   # kept: the same
        memory.edit_event_text(int(index.ids[len(index.ids) // 2]), title="A new title")
        assert cache.get(memory.conn, memory.embedding_model) is index   # updated in place
        after = index.sample_product(rows, query)
        assert np.allclose(after, index.vectors(rows) @ query, atol=1e-6)
        assert not np.allclose(after, before)
