"""The index code of core/scoring at its edges, where bench/mutate.py found wrong code passing:
an index growing past its spare rows, a memory whose first vectors arrive after the index was
read, vectors of mixed dimensions, the word cache of the BM25 postings when it is full, and the
int8 index when the median comes from a sample."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from core.emotion.plutchik import EMOTIONS
from core.memory import Memory
from core.scoring import index as index_module
from core.scoring.dense import DenseScores
from core.scoring.index import EventIndex, load_index
from core.scoring.lexical import bm25_search
from core.scoring.postings import Postings
from core.scoring.quantised import quantise
from core.scoring.scorer import _median, _settle
from core.scoring.settings import DEFAULT_SETTINGS
from core.store import records
from tests.conftest import NOW
from tests.test_index_in_place import QUERIES, apply, live_rows


def block(ids: range, dim: int = 4, seed: int = 0) -> dict[str, np.ndarray]:
    """Rows as EventIndex._read_block returns them (int8 codes included)."""
    k = len(ids)
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((k, dim)).astype(np.float32)
    codes, scale, vec_norm, err_norm, code_sum = quantise(matrix)
    return {"ids": np.array(ids, dtype=np.int64), "matrix": matrix, "codes": codes,
            "scale": scale, "vec_norm": vec_norm, "err_norm": err_norm, "code_sum": code_sum,
            "ts_days": np.arange(k, dtype=np.float64) + seed, "class_code": np.zeros(k, np.int8),
            "floor": np.full(k, 0.1), "user_flag": np.arange(k) % 2 == 0,
            "domain_code": np.zeros(k, np.int8),
            "emotions": rng.random((k, len(EMOTIONS))),
            "obs_id": np.arange(k, dtype=np.int64) + 1000 * seed,
            "obs_kind": np.zeros(k, np.int32), "obs_days": np.arange(k, dtype=np.float64)}


@pytest.mark.parametrize("quantised", [False, True])
def test_an_index_grows_by_a_quarter_and_256_rows_keeping_every_row(quantised: bool) -> None:
    index = EventIndex("m", 4, capacity=0, quantised=quantised)
    parts = [block(range(1, 4), seed=1), block(range(4, 257), seed=2),
             block(range(257, 557), seed=3), block(range(557, 1557), seed=4)]
    capacities = []
    for part in parts:
        index._append(part)
        capacities.append(index._buf["ids"].shape[0])
    # max(rows needed, capacity + capacity // 4 + 256): 256; exactly full, no growth; then
    # 256 + 64 + 256; then the need
    assert capacities == [256, 256, 576, 1556]
    assert len(index) == 1556 and index.ids.tolist() == list(range(1, 1557))
    for name in ("matrix", "ts_days", "floor", "user_flag", "emotions", "obs_id"):
        assert np.array_equal(getattr(index, name), np.concatenate([p[name] for p in parts]))
    assert index.live.all()
    if quantised:
        assert index.codes.capacity >= 1556
        assert np.array_equal(index.codes.read(np.arange(1556)),
                              np.concatenate([p["codes"] for p in parts]))
    else:
        assert index.codes is None


def test_the_first_vectors_of_an_empty_memory_are_read(memory: Memory) -> None:
    """An index read before any event had a vector has no dimension: the first vectors make it
    load afresh (it cannot be refreshed row by row)."""
    cache = memory.scorer._indexes
    empty = cache.get(memory.conn, memory.embedding_model)
    assert (empty.dim, len(empty)) == (0, 0)
    event = memory.remember("A first walk by the sea with my brother.", "2026-10-01T10:00:00Z")
    index = cache.get(memory.conn, memory.embedding_model)
    assert index.ids.tolist() == event["events"] and len(event["events"]) >= 1
    assert index.dim > 0 and cache.full_loads == 2


def test_vectors_of_mixed_dimensions_name_the_odd_event(memory: Memory) -> None:
    ids = []
    for i, dim in enumerate((384, 384, 8, 384)):
        vec = np.ones(dim, dtype=np.float32) / np.sqrt(dim)
        ids.append(records.add_event(memory.conn, actor="import",
                                     fields={"title": f"event {i}",
                                             "ts": f"2026-10-0{i + 1}T10:00:00Z"},
                                     vectors=[records.Vector(memory.embedding_model, vec)]))
    with pytest.raises(ValueError, match=rf"^event {ids[2]}: vectors of .+ mixed dimensions"):
        load_index(memory.conn, memory.embedding_model)


def test_the_word_cache_drops_the_least_recent_word_first(tmp_path, demo_db) -> None:
    path = tmp_path / "m.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as memory:
        postings = Postings(memory.conn)
        words = ("father", "work", "sister")
        terms = [postings._tokenizer.word(w)[0] for w in words]
        for w in (words[0], words[1], words[0]):      # "father" is used again: the most recent
            postings.search(memory.conn, w, 10)
        sizes = {t: postings._terms[t][0].shape[0] for t in terms[:2]}
        assert list(postings._terms) == [terms[1], terms[0]]
        assert postings._entries == sum(sizes.values())
        third = postings._postings(memory.conn, terms[2])[0].shape[0]
        postings._terms.pop(terms[2])
        postings._entries -= third
        postings.CACHE_ENTRIES = sizes[terms[0]] + third    # room for two of the three
        got = postings.search(memory.conn, words[2], 10)
        assert list(postings._terms) == [terms[0], terms[2]]     # "work" left
        assert postings._entries == sizes[terms[0]] + third
        assert got == bm25_search(memory.conn, words[2], 10)
        assert postings.search(memory.conn, words[1], 10) == bm25_search(memory.conn, words[1],
                                                                         10)
        # a word whose postings alone exceed the room is still kept (the last one never leaves)
        fourth = postings._tokenizer.word("hospital")[0]
        alone = Postings(memory.conn)._postings(memory.conn, fourth)[0].shape[0]
        postings.CACHE_ENTRIES = alone - 1
        postings._postings(memory.conn, fourth)
        assert list(postings._terms) == [fourth]
        assert postings._entries == alone


def test_int8_index_with_a_sampled_median_ranks_as_float32(tmp_path, demo_db,
                                                           monkeypatch) -> None:
    """Above median_exact_limit the median comes from a seeded sample: the int8 index must
    make exact the rows of that same sample, or its median (and every score) drifts."""
    path = tmp_path / "memory.db"
    shutil.copy(demo_db, path)
    settings = {"median_exact_limit": 60, "median_sample": 41}

    def ranked(memory: Memory) -> list[list[tuple[int, float]]]:
        return [[(r["id"], r["score"]) for r in memory.retrieve(
                    q["query"], now=NOW, settings=settings,
                    **{k: v for k, v in q.items() if k != "query"})["results"]]
                for q in QUERIES]

    with Memory.open(path) as memory:
        want = ranked(memory)
    monkeypatch.setattr(index_module, "QUANTISE_ROWS", 0)
    with Memory.open(path) as memory:
        got = ranked(memory)
        assert memory.scorer.index().codes is not None
    for w, g in zip(want, got):
        assert [i for i, _ in g] == [i for i, _ in w]
        assert np.allclose([s for _, s in g], [s for _, s in w], rtol=0, atol=1e-6)


def test_settling_makes_exact_the_top_and_the_median_of_the_same_sample() -> None:
    """_settle must make exact every row that could be among the candidates, and the rows around
    the median of the very sample _median takes (seeded by the pool's size): then the top and
    the median of the int8 first pass are the exact ones, though few rows were re-scored."""
    rng = np.random.default_rng(11)
    n, dim = 20000, 384   # random vectors crowd near 0: the one-part pass's bound needs many rows
    rows = block(range(1, n + 1), dim=dim, seed=5)
    rows["matrix"] = rows["matrix"] / np.linalg.norm(rows["matrix"], axis=1, keepdims=True)
    rows |= dict(zip(("codes", "scale", "vec_norm", "err_norm", "code_sum"),
                     quantise(rows["matrix"])))
    index = EventIndex("m", dim, capacity=n, quantised=True)
    index._append(rows)
    every = np.arange(n)
    # an even sample's median is the mean of two ranks; at exactly the limit, no sample
    for sample, limit in ((101, 500), (100, 500), (100, n)):
        settings = DEFAULT_SETTINGS.with_overrides({"median_exact_limit": limit,
                                                    "median_sample": sample})
        query = rng.standard_normal(dim).astype(np.float32)
        query = 0.5 * query / np.linalg.norm(query) + 0.5 * rows["matrix"][rng.integers(n)]
        query /= np.linalg.norm(query)
        exact = rows["matrix"] @ query
        dense = DenseScores(index, query, None)
        assert dense.approximate
        assert np.abs(dense.values - exact).max() > 1e-4      # the first pass is approximate
        _settle(dense, every, 1, settings)
        assert 0 < dense.exact_rows < n                        # not every row re-scored
        top = np.argsort(-exact, kind="stable")[:settings.candidates_min]
        assert set(np.argsort(-dense.values, kind="stable")[:top.size]) == set(top)
        assert np.abs(dense.values[top] - exact[top]).max() <= 1e-7
        assert _median(dense.values, settings) == pytest.approx(_median(exact, settings),
                                                                abs=1e-7)


BATCHES = [
    [("pin", 5, 0), ("emotion", 6, 1), ("belief", 7, 2), ("domain", 8, 1)],   # rows overwritten
    [("edit", 3, 0), ("edit", 10, 1)],         # re-worded: new rows appended, old ones leave
    [("undo", 0, 0), ("undo", 0, 0)],          # two old rows return inside the index at once
    [("remember", 0, 1), ("forget", 9, 0), ("forget", 2, 0)],
    [("belief", 4, 0), ("dismiss", 4, 0)],     # a dismissed hypothesis is archived: it leaves
    [("restore", 0, 0), ("link", 1, 2)],       # and comes back
    [("unlink", 0, 0)],
]


@pytest.mark.parametrize("representation", ["float32", "int8"])
def test_each_kind_of_write_keeps_the_rows_of_a_fresh_load(tmp_path, demo_db, representation,
                                                             monkeypatch) -> None:
    """The property test's cases, one batch of writes at a time, compared row by row with a
    fresh load (fast: no queries), with compaction and shifting in chunks of 7 rows; int8 as a
    large index keeps it (codes, float32 vectors read from the file)."""
    monkeypatch.setattr(index_module, "_COMPACT_CHUNK", 7)
    if representation == "int8":
        monkeypatch.setattr(index_module, "QUANTISE_ROWS", 0)
        monkeypatch.setattr(index_module, "FLOAT_ROWS", 0)
    path = tmp_path / "memory.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as memory:
        cache = memory.scorer._indexes
        first = cache.get(memory.conn, memory.embedding_model)
        for batch in BATCHES:
            for op, a, b in batch:
                apply(memory, op, a, b)
            index = cache.get(memory.conn, memory.embedding_model)
            assert index is first and len(index) == index.n_live
            assert live_rows(index) == live_rows(load_index(memory.conn, memory.embedding_model))
            if representation == "int8":
                assert index.codes is not None and index._float_width == 0
                rows = np.arange(len(index))
                fresh = load_index(memory.conn, memory.embedding_model)
                assert np.array_equal(index.vectors(rows), fresh.vectors(rows))
        assert (cache.full_loads, cache.refreshes) == (1, len(BATCHES))


def test_a_query_of_function_words_covers_nothing(memory: Memory) -> None:
    from core.scoring.lexical import term_coverage

    assert term_coverage(memory.conn, "what did the", 10) == (0.0, 0, 0)


def test_a_word_in_most_events_scores_as_fts5_floors_it(memory: Memory) -> None:
    """BM25's idf is negative for a word in more than half the rows; FTS5 floors it at 1e-6,
    and so must the postings, or their scores and order differ from bm25()'s."""
    texts = ["the sea at dawn", "the sea and my brother", "a storm over the sea",
             "my brother called", "sea sea sea"]
    for i, text in enumerate(texts):
        records.add_event(memory.conn, actor="import",
                          fields={"title": text, "ts": f"2026-10-0{i + 1}T10:00:00Z"})
    postings = Postings(memory.conn)
    for query in ("sea", "sea brother", "storm sea"):
        got = postings.search(memory.conn, query, 10)
        assert got == bm25_search(memory.conn, query, 10)
        assert got and got[0][1] > 0


def test_bm25_search_honours_a_limit_of_one_and_of_nothing(memory: Memory) -> None:
    for i, text in enumerate(["the sea at dawn", "a storm over the sea", "my brother called"]):
        records.add_event(memory.conn, actor="import",
                          fields={"title": text, "ts": f"2026-10-0{i + 1}T10:00:00Z"})
    both = bm25_search(memory.conn, "sea", 5)
    assert len(both) == 2 and bm25_search(memory.conn, "sea", 1) == both[:1]
    assert bm25_search(memory.conn, "sea", 0) == []
    assert bm25_search(memory.conn, "?! …", 5) == []


def test_a_single_row_is_settled_too() -> None:
    """A pool of one row (a domain filter can leave one) still gets its exact cosine."""
    rows = block(range(1, 41), dim=64, seed=7)
    index = EventIndex("m", 64, capacity=40, quantised=True)
    index._append(rows)
    query = rows["matrix"][3] / np.linalg.norm(rows["matrix"][3])
    exact = rows["matrix"] @ query
    dense = DenseScores(index, query, None)
    dense.settle_top(np.array([3]), 50)
    dense.settle_order(np.array([9]), [0])
    assert dense.exact_rows == 2
    assert dense.values[[3, 9]] == pytest.approx(exact[[3, 9]], abs=1e-6)
    assert abs(dense.values[5] - exact[5]) > 1e-6          # the others were left approximate


def test_a_large_index_reads_more_than_500_vectors_from_the_file(memory: Memory,
                                                                  monkeypatch) -> None:
    """Without float32 vectors in memory the re-score reads them from the file, 500 ids per
    query: every one of 1,201 rows comes back, in order."""
    rng = np.random.default_rng(4)
    want = rng.standard_normal((1201, 16)).astype(np.float32)
    for i, vec in enumerate(want):
        records.add_event(memory.conn, actor="import",
                          fields={"title": f"event {i}", "ts": "2026-10-01T10:00:00Z"},
                          vectors=[records.Vector("synthetic", vec)])
    monkeypatch.setattr(index_module, "QUANTISE_ROWS", 0)
    monkeypatch.setattr(index_module, "FLOAT_ROWS", 0)
    index = load_index(memory.conn, "synthetic")
    assert index.matrix.shape == (1201, 0)
    rows = np.arange(1201)[::-1]
    assert np.array_equal(index.vectors(rows), want[rows])
