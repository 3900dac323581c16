"""The work the vector index (core/scoring/index.py) does to stay current, not only its result:
a refresh must give a fresh load's rows, and it must get there cheaply — that is why it exists.
Here: an overwrite whose conversational source did not change, and a new event that only
extends its source's chain (or has none), link just the rows concerned instead of relinking
every row (a lexsort of every row, ~150 ms at 1M); the median's row sample is gathered once per
revision, not on every query; and a full load allocates its buffers once, not regrown (and
copied) mid-load. Each is checked alongside the rows a fresh load reads.

Real SQLite files, real vectors (the synthetic model of test_index_refresh_edges.py). Relinks
are counted by wrapping EventIndex.relink (the index keeps no counter of its own); vector reads
from the file by SQLite's own statement trace."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from core.memory import Memory
from core.scoring import index as index_module
from core.scoring.index import IndexCache, load_index
from core.store import records
from tests import bulk_events
from tests.test_index_in_place import live_rows
from tests.test_index_refresh_edges import MODEL, _add


@pytest.fixture
def relinks(monkeypatch) -> list[int]:
    """The row count of each index at each full relink, in order."""
    calls: list[int] = []
    original = index_module.EventIndex.relink
    monkeypatch.setattr(index_module.EventIndex, "relink",
                        lambda self: (calls.append(len(self)), original(self))[1])
    return calls


def _journal(memory: Memory, n: int, observed: str | None = None) -> int:
    """The observation of journal entry n, observed on day n at noon (or at `observed`)."""
    obs, _ = records.add_observation(
        memory.conn, actor="import", source_kind="journal", source_id=f"entry-{n}",
        content_text=f"Journal entry {n}.", captured_at=f"2026-10-{n:02d}T12:00:00Z",
        observed_at=observed or f"2026-10-{n:02d}T12:00:00Z")
    return obs


def _held(memory: Memory) -> tuple[IndexCache, index_module.EventIndex]:
    cache = IndexCache()
    return cache, cache.get(memory.conn, MODEL)


def _refreshed_without_a_relink(memory: Memory, cache: IndexCache, index,
                                relinks: list[int], what: str) -> None:
    """The cache refreshed its index in place (no second load), relinking no row, to a fresh
    load's rows (compared as text: an unreadable time's NaN gaps are equal there)."""
    before = len(relinks)
    assert cache.get(memory.conn, MODEL) is index
    assert (cache.full_loads, cache.refreshes) == (1, 1)
    assert len(relinks) == before, what
    assert repr(live_rows(index)) == repr(live_rows(load_index(memory.conn, MODEL)))


def test_belief_and_emotion_edits_relink_no_row(memory: Memory, relinks: list[int]) -> None:
    """Pinning an event and tagging another's emotions rewrite their rows but leave where
    they were said untouched (one event of a journal entry, one with no observation at all):
    the neighbours stand, so the refresh relinks nothing."""
    rng = np.random.default_rng(31)
    said = [_add(memory, f"entry {n}", rng, day=n, source_observation=_journal(memory, n))
            for n in (1, 2, 3)]
    loose = _add(memory, "a note from nowhere", rng, day=4)
    cache, index = _held(memory)
    memory.pin(said[1])
    memory.set_emotions(loose, {"joy": 0.5})
    _refreshed_without_a_relink(memory, cache, index, relinks,
                                "an overwrite that kept its source relinked every row")
    assert index.user_flag[index.position(said[1])]
    assert index.emotions[index.position(loose)].max() == 0.5


def test_an_event_whose_observation_time_is_unreadable_is_edited_without_a_relink(
        memory: Memory, relinks: list[int]) -> None:
    """An importer's observation time the index cannot read is held as NaN (no gap to its
    neighbours); NaN is not equal to itself, yet an edit of its event that leaves the
    observation alone is no change of source, and relinks nothing."""
    rng = np.random.default_rng(32)
    odd = _add(memory, "the trip", rng, day=1,
               source_observation=_journal(memory, 1, observed="last spring, I think"))
    _add(memory, "the day after", rng, day=2, source_observation=_journal(memory, 2))
    cache, index = _held(memory)
    assert np.isnan(index.obs_days[index.position(odd)])
    memory.pin(odd)
    _refreshed_without_a_relink(memory, cache, index, relinks,
                                "an unreadable time counted as a changed source")


def test_a_new_event_with_no_observation_is_appended_without_a_relink(
        memory: Memory, relinks: list[int]) -> None:
    """An event added with no observation (an import of bare events) has no neighbours:
    appending it links nothing, and the other rows' links stand."""
    rng = np.random.default_rng(33)
    for n in (1, 2):
        _add(memory, f"entry {n}", rng, day=n, source_observation=_journal(memory, n))
    cache, index = _held(memory)
    bare = _add(memory, "an event with no conversation", rng, day=3)
    _refreshed_without_a_relink(memory, cache, index, relinks,
                                "appending an event without a source relinked every row")
    assert index.prev_row[index.position(bare)] == -1
    assert index.next_row[index.position(bare)] == -1


def test_a_second_event_of_the_last_message_is_appended_without_a_relink(
        memory: Memory, relinks: list[int]) -> None:
    """One message can make several events, written one after another (a query may come in
    between): the next event of the last message of its kind only extends that kind's chain,
    at gap 0 from its sibling — linked on its own, no relink of every row."""
    rng = np.random.default_rng(34)
    _add(memory, "entry 1", rng, day=1, source_observation=_journal(memory, 1))
    last = _journal(memory, 2)
    first = _add(memory, "entry 2, first thing said", rng, day=2, source_observation=last)
    cache, index = _held(memory)
    second = _add(memory, "entry 2, second thing said", rng, day=2, source_observation=last)
    _refreshed_without_a_relink(memory, cache, index, relinks,
                                "a sibling of the last message relinked every row")
    rows = live_rows(index)
    # (…, obs id, prev event, prev gap, next event, next gap, …)
    assert rows[first][10:12] == (second, 0.0) and rows[second][8:10] == (first, 0.0)


def test_the_median_sample_is_read_once_per_revision(memory: Memory, monkeypatch) -> None:
    """An index too large to keep its float32 vectors reads the ones a query needs from the
    file. The median's row sample is the same for every query until the rows change, so its
    vectors are read once and kept: a second query with the same sample reads nothing, and
    gets the same product; another sample, or a new revision, is read afresh."""
    monkeypatch.setattr(index_module, "QUANTISE_ROWS", 0)
    monkeypatch.setattr(index_module, "FLOAT_ROWS", 0)
    rng = np.random.default_rng(35)
    ids = [_add(memory, f"moment {i}", rng, day=1 + i) for i in range(6)]
    cache, index = _held(memory)
    assert not index.keeps_float
    reads: list[str] = []
    memory.conn.set_trace_callback(
        lambda sql: reads.append(sql) if "FROM event_embeddings WHERE model" in sql else None)
    sample, other = np.array([0, 2, 5]), np.array([1, 3])
    query = rng.standard_normal(16).astype(np.float32)
    try:
        first = index.sample_product(sample, query)
        assert len(reads) == 1
        again = index.sample_product(sample, query)
        assert len(reads) == 1, "the kept sample was read from the file again"
        assert again.tobytes() == first.tobytes()
        index.sample_product(other, query)
        assert len(reads) == 2
        memory.pin(ids[0])
        assert cache.get(memory.conn, MODEL) is index
        index.sample_product(other, query)
        assert len(reads) == 3                      # the rows may have moved: read again
    finally:
        memory.conn.set_trace_callback(None)
    vectors = index.vectors(sample)
    assert first.tobytes() == (vectors @ query).tobytes()


# A full load preallocates its rows plus a margin (n // 64 + 256) for new events. Past 64 × 256
# rows the margin is more than the fixed 256, so this is the smallest load where getting the
# margin's sign wrong leaves the buffers short of the rows.
LARGE = 64 * 257


@pytest.fixture(scope="module")
def large_memory(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("large") / "large.db"
    bulk_events.build(path, LARGE)
    return path


def test_a_full_load_allocates_its_buffers_once(large_memory: Path, tmp_path: Path) -> None:
    """A full load counts the rows first and preallocates them plus a small margin for new
    events, so the buffers are written once (1M × 384 float32 is 1.5 GB: regrowing mid-load
    would copy them and hold two at the peak). So its spare rows are a few percent of the
    rows (the margin's exact size is a tuning choice, not pinned here), never the quarter more
    a regrowth adds; the rows are every event, in id order."""
    path = tmp_path / "memory.db"
    shutil.copy(large_memory, path)
    with Memory.open(path) as memory:
        index = load_index(memory.conn, MODEL)
    capacity = index._buf["ids"].shape[0]
    assert len(index) == LARGE and index.ids.tolist() == list(range(1, LARGE + 1))
    assert 256 <= capacity - LARGE <= LARGE // 20
    assert all(buf.shape[0] == capacity for buf in index._buf.values())
