"""The vector index kept current in place (core/scoring/index.py, EventIndex.refresh) at the
edges of a refresh: more changed events than one SQL batch reads, an index every row of which
has left before new events arrive, and appended turns whose observations came in the other
order. Each time the index refreshed in place must hold exactly the rows, columns and
conversational neighbours of a fresh load. Real SQLite files, real vectors (a small synthetic
model, fixed seeds)."""

from __future__ import annotations

import numpy as np

from core.memory import Memory
from core.scoring.index import IndexCache, load_index
from core.store import records
from tests.test_index_in_place import live_rows

MODEL = "synthetic"


def _vector(rng: np.random.Generator) -> records.Vector:
    vec = rng.standard_normal(16).astype(np.float32)
    return records.Vector(MODEL, vec / np.linalg.norm(vec))


def _add(memory: Memory, title: str, rng: np.random.Generator, day: int = 1, **fields) -> int:
    return records.add_event(memory.conn, actor="import", fields={
        "title": title, "ts": f"2026-10-{day:02d}T10:00:00Z", **fields}, vectors=[_vector(rng)])


def _same_as_a_fresh_load(memory: Memory, index) -> None:
    fresh = load_index(memory.conn, MODEL)
    assert index.ids.tolist() == fresh.ids.tolist()
    assert live_rows(index) == live_rows(fresh)


def test_more_new_events_than_one_read_batch_are_all_read_once(memory: Memory) -> None:
    """An import of 505 events between two queries: refresh reads the changed events 500 ids
    per SQL statement; every one of them is appended, none twice, in id order."""
    rng = np.random.default_rng(11)
    for i in range(3):
        _add(memory, f"before {i}", rng)
    cache = IndexCache()
    index = cache.get(memory.conn, MODEL)
    new = [_add(memory, f"imported {i}", rng, day=2) for i in range(505)]
    assert cache.get(memory.conn, MODEL) is index
    assert (cache.full_loads, cache.refreshes) == (1, 1)          # in place, one refresh
    assert index.ids.tolist()[3:] == new and len(index) == 508
    _same_as_a_fresh_load(memory, index)


def test_an_index_every_row_of_which_left_takes_new_events_in_place(memory: Memory) -> None:
    """Every indexed event is erased (the index keeps its dimension, with no rows); the next
    event remembered is read in place as the index's only row."""
    rng = np.random.default_rng(12)
    gone = [_add(memory, f"soon forgotten {i}", rng) for i in range(2)]
    cache = IndexCache()
    index = cache.get(memory.conn, MODEL)
    memory.forget([f"event:{e}" for e in gone])
    assert cache.get(memory.conn, MODEL) is index and len(index) == 0
    kept = _add(memory, "a new beginning", rng, day=3)
    assert cache.get(memory.conn, MODEL) is index
    assert cache.full_loads == 1
    assert index.ids.tolist() == [kept] and index.live.all()
    _same_as_a_fresh_load(memory, index)


def test_appended_turns_whose_observations_came_in_the_other_order(memory: Memory) -> None:
    """Two events of a source kind the index has not seen yet are written in the opposite
    order of their observations (the later message's event first, as a pooled turn can be):
    the earlier observation's event links forward to the later one, as a fresh load links
    them, though it is the later row."""
    rng = np.random.default_rng(13)
    _add(memory, "a note without a conversation", rng)
    cache = IndexCache()
    index = cache.get(memory.conn, MODEL)
    earlier, _ = records.add_observation(
        memory.conn, actor="import", source_kind="journal", source_id="entry-1",
        content_text="Walked by the harbour.", captured_at="2026-10-02T09:00:00Z",
        observed_at="2026-10-02T09:00:00Z")
    later, _ = records.add_observation(
        memory.conn, actor="import", source_kind="journal", source_id="entry-2",
        content_text="Called my brother after.", captured_at="2026-10-02T21:00:00Z",
        observed_at="2026-10-02T21:00:00Z")
    first = _add(memory, "called my brother", rng, day=2, source_observation=later)
    second = _add(memory, "walked by the harbour", rng, day=2, source_observation=earlier)
    assert cache.get(memory.conn, MODEL) is index and cache.full_loads == 1
    rows = live_rows(index)
    # (…, obs id, prev event, prev gap, next event, next gap, …)
    assert rows[second][8:12] == (None, np.inf, first, 0.5)
    assert rows[first][8:12] == (second, 0.5, None, np.inf)
    _same_as_a_fresh_load(memory, index)
