"""The index snapshot's size thresholds (core/scoring/snapshot.py, docs/architecture.md "The
index snapshot"), each tested at its value and one past it:

- closing a memory snapshots an index of 50,000 rows (SNAPSHOT_ROWS) and not one of 49,999:
  below it a full load costs under 1.5 s, above it the snapshot saves seconds at every start;
- a snapshot is rewritten at close once more than max(2,000, 2 % of the rows) events changed
  since it (REWRITE_MIN governs below 100,000 rows): each changed event is a row re-read at the
  next cold start, while a rewrite costs seconds at 1M rows;
- a cold start replays at most max(1,000, a quarter of the rows) changed events on top of the
  snapshot; past that, a full load is cheaper than re-reading row by row, and it loads in full.

The work is what is asserted (a snapshot written or not, a snapshot load or a full load), and
the rows always equal a full load's. Real memory files of synthetic events (tests/bulk_events.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.memory import Memory
from core.scoring import snapshot
from core.scoring.changelog import current_rev
from core.scoring.index import IndexCache, load_index
from tests import bulk_events
from tests.bulk_events import MODEL
from tests.test_index_in_place import live_rows


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """A memory of 49,999 events (one short of SNAPSHOT_ROWS), built once; copy it to write."""
    return bulk_events.build(tmp_path_factory.mktemp("bulk") / "base.db", 49_999)


@pytest.fixture
def path(base: Path, tmp_path: Path) -> Path:
    out = tmp_path / "memory.db"
    shutil.copy(base, out)            # closed: SQLite checkpointed and removed its -wal
    return out


def head_rev(path: Path) -> str | None:
    with Memory.open(path, read_only=True) as memory:
        found = snapshot.head(memory.conn, MODEL)
        return None if found is None else str(found["rev"])


def test_close_snapshots_an_index_of_50_000_rows_and_not_one_of_49_999(path: Path) -> None:
    with Memory.open(path) as memory:
        assert len(memory.scorer.index()) == 49_999
    assert head_rev(path) is None                  # a full load is cheap enough: not written
    with Memory.open(path) as memory:
        bulk_events.add(memory, 50_000, 1)
        assert len(memory.scorer.index()) == 50_000
        assert memory.scorer._indexes.full_loads == 1
        rev = current_rev(memory.conn)
    assert head_rev(path) == rev                   # written at close
    with Memory.open(path, read_only=True) as memory:
        cache = IndexCache()
        cold = cache.get(memory.conn, MODEL)
        assert (cache.snapshot_loads, cache.full_loads) == (1, 0)
        assert live_rows(cold) == live_rows(load_index(memory.conn, MODEL))


def test_close_rewrites_the_snapshot_once_more_than_2_000_events_changed(path: Path) -> None:
    """50,000 rows: 2 % is 1,000, so the 2,000 floor decides. 2,000 changed events leave the
    snapshot as it is; the 2,001st makes the next close rewrite it."""
    with Memory.open(path) as memory:
        bulk_events.add(memory, 50_000, 1)
        assert memory.save_index_snapshot()["rows"] == 50_000
    first = head_rev(path)
    assert first is not None
    with Memory.open(path) as memory:
        bulk_events.touch(memory, range(1, 2_001))
        assert len(memory.scorer.index()) == 50_000
        assert memory.scorer._indexes.snapshot_loads == 1
    assert head_rev(path) == first                 # 2,000 behind: not stale yet
    with Memory.open(path) as memory:
        bulk_events.touch(memory, range(2_001, 2_002))
        assert len(memory.scorer.index()) == 50_000
        assert memory.scorer._indexes.snapshot_loads == 1
        rev = current_rev(memory.conn)
    assert head_rev(path) == rev                   # 2,001 behind: rewritten at close
    with Memory.open(path, read_only=True) as memory:
        cache = IndexCache()
        cold = cache.get(memory.conn, MODEL)
        assert (cache.snapshot_loads, cache.full_loads) == (1, 0)
        assert live_rows(cold) == live_rows(load_index(memory.conn, MODEL))


# (rows, changed events replayed at most): max(1,000, rows // 4)
REPLAY = [(1_200, 1_000), (4_400, 1_100)]


@pytest.mark.parametrize(("rows", "limit"), REPLAY)
def test_a_cold_start_replays_up_to_its_limit_of_changed_events(tmp_path: Path, rows: int,
                                                                  limit: int) -> None:
    """`limit` events changed since the snapshot: it loads from the snapshot and replays them;
    one more: it loads in full. Either way the rows are a full load's."""
    path = bulk_events.build(tmp_path / "memory.db", rows)
    with Memory.open(path) as memory:
        conn = memory.conn
        assert memory.save_index_snapshot()["rows"] == rows
        bulk_events.touch(memory, range(1, limit + 1))
        cache = IndexCache()
        index = cache.get(conn, MODEL)
        assert (cache.snapshot_loads, cache.full_loads) == (1, 0)
        assert live_rows(index) == live_rows(load_index(conn, MODEL))
        assert int(index.user_flag.sum()) == limit
        bulk_events.touch(memory, range(limit + 1, limit + 2))
        cache = IndexCache()
        index = cache.get(conn, MODEL)
        assert (cache.snapshot_loads, cache.full_loads) == (0, 1)
        assert live_rows(index) == live_rows(load_index(conn, MODEL))
        assert int(index.user_flag.sum()) == limit + 1
