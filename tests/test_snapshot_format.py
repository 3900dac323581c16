"""What the index snapshot stores (core/scoring/snapshot.py, docs/architecture.md "The index
snapshot"), and a damaged one refused:

- each write stores its chunks under a new 64-bit random generation (16 hex digits) and names
  the file with a new 128-bit random token (32 hex digits): a snapshot copied from another
  file, or the chunks of another writer, never match by chance;
- the head is canonical JSON (sorted keys), so two writes of the same index differ only in
  their generation and token: the bytes depend on the index, not on how a dict was built;
- drop() (every erasure and redaction) says how many rows it removed, head included, and
  bumps the erasure epoch by one: after n erasures it reads n;
- a head that does not describe the file's vectors — another dimension, or no rows (Pulse
  writes neither; a hand-made or damaged file) — is refused: the index loads in full and
  holds every event.

Real memory files of synthetic events (tests/bulk_events.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core.memory import Memory
from core.scoring import snapshot
from core.scoring.changelog import current_rev
from core.scoring.index import EventIndex, IndexCache, load_index
from core.store import records
from core.store.commands import transaction
from tests import bulk_events
from tests.bulk_events import MODEL
from tests.test_index_edges import block
from tests.test_index_in_place import live_rows

ROWS = 40


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return bulk_events.build(tmp_path / "memory.db", ROWS)


def _head_bytes(memory: Memory) -> bytes:
    return bytes(memory.conn.execute("SELECT data FROM index_snapshot WHERE model = ? AND"
                                     " part = 'head'", (MODEL,)).fetchone()[0])


def test_each_write_names_a_new_64_bit_generation_and_128_bit_token(path: Path) -> None:
    with Memory.open(path) as memory:
        seen = []
        for _ in range(2):
            assert memory.save_index_snapshot()["rows"] == ROWS
            found = snapshot.head(memory.conn, MODEL)
            generation, token = found["generation"], found["token"]
            assert re.fullmatch(r"[0-9a-f]{16}", generation), generation
            assert re.fullmatch(r"[0-9a-f]{32}", token), token
            assert memory.meta("index_snapshot_token") == token
            parts = {p for (p,) in memory.conn.execute("SELECT part FROM index_snapshot")}
            assert parts == {"head"} | {f"{generation}:{part}" for part in found["crc"]}
            seen.append((generation, token))
        assert seen[0][0] != seen[1][0] and seen[0][1] != seen[1][1]


def test_the_head_is_canonical_json_and_two_writes_differ_only_in_their_names(
        path: Path) -> None:
    with Memory.open(path) as memory:
        heads = []
        for _ in range(2):
            memory.save_index_snapshot()
            data = _head_bytes(memory)
            assert data == json.dumps(json.loads(data), sort_keys=True).encode()
            found = json.loads(data)
            heads.append(data.replace(found["generation"].encode(), b"G")
                         .replace(found["token"].encode(), b"T"))
        assert heads[0] == heads[1]


def test_drop_says_how_many_rows_it_removed(path: Path) -> None:
    with Memory.open(path) as memory:
        memory.save_index_snapshot()
        found = snapshot.head(memory.conn, MODEL)
        stored = memory.conn.execute("SELECT COUNT(*) FROM index_snapshot").fetchone()[0]
        assert stored == 1 + sum(len(crcs) for crcs in found["crc"].values())
        with transaction(memory.conn):
            assert snapshot.drop(memory.conn) == stored
        with transaction(memory.conn):
            assert snapshot.drop(memory.conn) == 0          # nothing left to drop
        assert memory.conn.execute("SELECT COUNT(*) FROM index_snapshot").fetchone()[0] == 0
        assert snapshot.head(memory.conn, MODEL) is None


def test_every_erasure_bumps_the_snapshot_epoch_by_one(memory: Memory) -> None:
    """The epoch a snapshot write checks before each chunk (an erasure in between stops it):
    absent until the first erasure, then the number of erasures (docs/architecture.md)."""
    ids = [records.add_event(memory.conn, actor="import",
                             fields={"title": f"day {i}", "ts": f"2026-09-0{i + 1}T10:00:00Z"})
           for i in range(3)]
    assert memory.meta("index_snapshot_epoch") is None
    for erased, event_id in enumerate(ids, start=1):
        memory.forget(f"event:{event_id}")
        assert memory.meta("index_snapshot_epoch") == str(erased)


def test_a_snapshot_of_another_dimension_is_refused(path: Path) -> None:
    """The file's vectors have 4 dimensions; a snapshot of an 8-dimension index at the file's
    revision (nothing for the log to replay) is not used: a full load of 4 dimensions."""
    with Memory.open(path) as memory:
        conn = memory.conn
        wide = EventIndex(MODEL, 8, capacity=ROWS, rev=current_rev(conn))
        wide._append(block(range(1, ROWS + 1), dim=8, seed=3))
        assert snapshot.write(conn, lambda: wide)["rows"] == ROWS
        assert snapshot.head(conn, MODEL)["dim"] == 8
        cache = IndexCache()
        index = cache.get(conn, MODEL)
        assert (cache.snapshot_loads, cache.full_loads) == (0, 1)
        assert index.dim == bulk_events.DIM and len(index) == ROWS
        assert live_rows(index) == live_rows(load_index(conn, MODEL))


def test_a_head_of_no_rows_is_refused(path: Path) -> None:
    """A head edited to 0 rows and no chunks, still naming this file and its revision: the
    index is loaded in full, with every event."""
    with Memory.open(path) as memory:
        conn = memory.conn
        memory.save_index_snapshot()
        with transaction(conn):
            found = snapshot.head(conn, MODEL)
            found["rows"] = 0
            found["crc"] = {part: [] for part in found["crc"]}
            conn.execute("DELETE FROM index_snapshot WHERE part != 'head'")
            conn.execute("UPDATE index_snapshot SET data = ? WHERE part = 'head'",
                         (json.dumps(found, sort_keys=True).encode(),))
        assert snapshot.head(conn, MODEL)["rows"] == 0     # its token is still this file's
        cache = IndexCache()
        index = cache.get(conn, MODEL)
        assert (cache.snapshot_loads, cache.full_loads) == (0, 1)
        assert len(index) == ROWS
        assert live_rows(index) == live_rows(load_index(conn, MODEL))
