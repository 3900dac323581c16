"""How far a held vector index follows the change log (core/scoring/changelog.py,
core/scoring/index.py IndexCache) before it loads again, at the documented threshold.

Every changed event is re-read with its row; past max(1000, RELOAD_SHARE × rows) changed events
reading every row afresh is cheaper, so a query's `get` loads in full, and `cached` (what
`Memory.close` snapshots from) gives up and returns None rather than load. The floor of 1000
keeps a small index from reloading over an ordinary import batch; the share makes a large one
reload only for a change to a quarter of its rows. Tests sit at exactly the threshold and one
event past it. Also: `refreshes` counts each refresh once (the benches print it), an index
already current is not "refreshed", and an edit that keeps an event's words does not move the
index's text revision (the word counts keyed on it stay valid).

Real SQLite files; the changed events are one bulk edit (raw SQL, as another program would
write: the log's triggers record it like any write)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from core.memory import Memory
from core.scoring.changelog import changes_since, current_rev
from core.scoring.index import IndexCache
from tests import bulk_events
from tests.test_index_refresh_edges import MODEL, _add

SMALL = 1001          # a quarter of it is below the floor: the limit is 1000
LARGE = 4400          # a quarter of it is above the floor: the limit is 1100


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("built")
    out = {}
    for rows in (SMALL, LARGE):
        out[rows] = folder / f"{rows}.db"
        bulk_events.build(out[rows], rows)
    return out


@pytest.fixture
def open_memory(built: dict[int, Path], tmp_path: Path):
    opened: list[Memory] = []

    def open_copy(rows: int) -> Memory:
        path = tmp_path / f"{rows}.db"
        shutil.copy(built[rows], path)
        opened.append(Memory.open(path))
        return opened[-1]

    yield open_copy
    for memory in opened:
        memory.close()


def _pin_first(memory: Memory, events: int) -> None:
    """Flag the first `events` events: that many changed events in the log."""
    bulk_events.touch(memory, range(1, events + 1))


@pytest.mark.parametrize(("rows", "changed", "in_place"), [
    (SMALL, 1000, True), (SMALL, 1001, False), (LARGE, 1100, True), (LARGE, 1101, False)])
def test_a_query_follows_changes_in_place_up_to_the_threshold(
        open_memory, rows: int, changed: int, in_place: bool) -> None:
    """A held index re-reads up to max(1000, a quarter of its rows) changed events in place;
    one more and the next query loads every row again. Either way the rows are current."""
    memory = open_memory(rows)
    cache = IndexCache()
    index = cache.get(memory.conn, MODEL)
    _pin_first(memory, changed)
    again = cache.get(memory.conn, MODEL)
    assert (again is index) is in_place
    assert (cache.full_loads, cache.refreshes) == ((1, 1) if in_place else (2, 0))
    assert again.rev == current_rev(memory.conn)
    assert int(again.user_flag.sum()) == changed and len(again) == rows


@pytest.mark.parametrize(("rows", "changed", "in_place"), [
    (SMALL, 1000, True), (SMALL, 1001, False), (LARGE, 1100, True), (LARGE, 1101, False)])
def test_close_brings_its_held_index_current_up_to_the_same_threshold(
        open_memory, rows: int, changed: int, in_place: bool) -> None:
    """`cached` (the index `Memory.close` would snapshot) follows the same limit as a query:
    up to it the held index is refreshed in place and counted once; past it, None — never a
    full load at close."""
    memory = open_memory(rows)
    cache = IndexCache()
    index = cache.get(memory.conn, MODEL)
    _pin_first(memory, changed)
    got = cache.cached(memory.conn, MODEL)
    assert cache.full_loads == 1
    if in_place:
        assert got is index and got.rev == current_rev(memory.conn)
        assert cache.refreshes == 1 and int(got.user_flag.sum()) == changed
    else:
        assert got is None and cache.refreshes == 0


def test_cached_neither_loads_nor_counts_a_refresh_when_nothing_is_to_be_done(
        memory: Memory) -> None:
    """With no index held, `cached` has nothing to bring current: None (close then writes no
    snapshot). An index already at the memory's revision is handed back as it is, with no
    refresh counted."""
    rng = np.random.default_rng(41)
    _add(memory, "a moment", rng)
    cache = IndexCache()
    assert cache.cached(memory.conn, MODEL) is None
    assert cache.full_loads == 0
    index = cache.get(memory.conn, MODEL)
    assert cache.cached(memory.conn, MODEL) is index
    assert (cache.full_loads, cache.refreshes) == (1, 0)


def test_an_edit_that_keeps_the_words_leaves_the_text_revision(memory: Memory) -> None:
    """The index remembers the last revision at which an event's words changed (text_rev):
    the scorer's word counts are keyed on it. Pinning an event is logged as a row change,
    not a text change, so text_rev stays while rev moves; re-wording an event moves both."""
    rng = np.random.default_rng(42)
    first = _add(memory, "walked by the harbour", rng)
    _add(memory, "tea with Anna", rng)
    cache = IndexCache()
    index = cache.get(memory.conn, MODEL)
    words_at = index.text_rev
    before = current_rev(memory.conn)
    memory.pin(first)
    changes = changes_since(memory.conn, before)
    assert changes is not None and changes.rows == {first}
    assert changes.text is False and changes.text_rows == set()
    assert cache.get(memory.conn, MODEL) is index and cache.refreshes == 1
    assert index.rev == current_rev(memory.conn) != words_at
    assert index.text_rev == words_at
    before = current_rev(memory.conn)
    memory.conn.execute("UPDATE events SET title = 'swam by the harbour' WHERE id = ?",
                        (first,))
    changes = changes_since(memory.conn, before)
    assert changes is not None and changes.text is True and changes.text_rows == {first}
    assert cache.get(memory.conn, MODEL) is index and cache.refreshes == 2
    assert index.text_rev == index.rev == current_rev(memory.conn)
