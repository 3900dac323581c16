"""The index snapshot (core/scoring/snapshot.py) at its boundaries: an index cut in chunks of
a few rows reads back as a full load for every row count around a chunk's size (one row, a
chunk exactly full, one row past it; a chunk smaller than one row), each chunk holding at most
CHUNK_BYTES (or one row) and the reported size being the bytes stored; an index exactly at the
int8 or the float32 threshold is snapshotted and read back, one that grew past a threshold
while running is not (a fresh load would hold it differently); a large index (more rows than
its spare capacity rule's 64 × 256) reads back; and when another process writes its snapshot
while ours is being written, its snapshot stays whole and ours leaves no chunk behind.

Small memories of a 20-dimension model (a vector row of 80 bytes, as wide as the emotions' row)
built through the command layer, real SQLite files; the last test uses the demo memory and a
real second process."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.memory import Memory
from core.scoring import index as index_module
from core.scoring import quantised, snapshot
from core.scoring.changelog import current_rev
from core.scoring.index import EventIndex, IndexCache, load_index
from core.store import records
from tests.test_index_edges import block
from tests.test_index_in_place import live_rows

ROOT = Path(__file__).resolve().parents[1]
MODEL = "synthetic"
DIM = 20
ROW = DIM * 4                    # bytes of one float32 vector row (and of one emotions row)


def _events(memory: Memory, n: int, seed: int = 0) -> list[int]:
    """n events with vectors of MODEL, on different days; every third one with emotions,
    every fourth pinned."""
    rng = np.random.default_rng(seed)
    ids = []
    for i in range(n):
        vec = rng.standard_normal(DIM).astype(np.float32)
        ids.append(records.add_event(
            memory.conn, actor="import",
            fields={"title": f"day {seed}.{i}", "ts": f"2026-09-{1 + i % 28:02d}T10:00:00Z"},
            vectors=[records.Vector(MODEL, vec / np.linalg.norm(vec))]))
        if i % 3 == 0:
            memory.set_emotions(ids[-1], {"joy": round(float(rng.random()), 4), "fear": 0.25})
        if i % 4 == 1:
            memory.pin(ids[-1])
    return ids


def index_in_memory(memory: Memory, n: int, dim: int, seed: int) -> EventIndex:
    """An index of n rows built in memory; the file holds one event of the model, for its
    dimension (snapshot.write reads the model's dimension from the file)."""
    records.add_event(memory.conn, actor="import",
                      fields={"title": "one", "ts": "2026-09-01T10:00:00Z"},
                      vectors=[records.Vector(MODEL, np.full(dim, 0.5, dtype=np.float32))])
    index = EventIndex(MODEL, dim, capacity=n, rev=current_rev(memory.conn))
    index._append(block(range(1, n + 1), dim=dim, seed=seed))
    return index


def _stored(conn) -> dict[str, list[int]]:
    """Bytes of each stored chunk by part (the head left out), in seq order."""
    out: dict[str, list[int]] = {}
    for part, size in conn.execute("SELECT part, length(data) FROM index_snapshot"
                                   " WHERE part != 'head' ORDER BY part, seq"):
        out.setdefault(part.split(":", 1)[1], []).append(size)
    return out


def _int8(monkeypatch, block_rows: int) -> None:
    """Codes only (no float32 matrix), in blocks of `block_rows` rows."""
    monkeypatch.setattr(index_module, "QUANTISE_ROWS", 0)
    monkeypatch.setattr(index_module, "FLOAT_ROWS", 0)
    monkeypatch.setattr(quantised, "BLOCK", block_rows)
    monkeypatch.setattr(snapshot, "BLOCK", block_rows)


CHUNKS = ([(4 * ROW, n) for n in (1, 3, 4, 5, 8, 9)]     # chunks of 4 rows of the widest parts
          + [(ROW - 1, 5), (1, 3)])                     # a chunk smaller than one row


@pytest.mark.parametrize("representation", ["float32", "int8"])
@pytest.mark.parametrize(("chunk_bytes", "n"), CHUNKS)
def test_a_snapshot_in_chunks_reads_back_as_a_full_load(memory: Memory, monkeypatch,
                                                        representation, chunk_bytes, n) -> None:
    monkeypatch.setattr(snapshot, "CHUNK_BYTES", chunk_bytes)
    if representation == "int8":
        _int8(monkeypatch, 4)
    _events(memory, n)
    full = load_index(memory.conn, MODEL)
    assert len(full) == n and (full.codes is None) == (representation == "float32")
    out = snapshot.write(memory.conn, lambda: full)
    stored = _stored(memory.conn)
    assert out == {"model": MODEL, "rows": n, "rev": current_rev(memory.conn),
                   "bytes": sum(sum(sizes) for sizes in stored.values())}
    for part, sizes in stored.items():
        row = DIM if part == "codes" else getattr(full, part).nbytes // n
        assert sum(sizes) == n * row and all(size % row == 0 for size in sizes), part
        assert max(sizes) <= max(chunk_bytes, row if part != "codes" else 4 * DIM), part
    assert max(len(sizes) for sizes in stored.values()) == (
        n if chunk_bytes < ROW else -(-n // 4))           # the widest parts: every chunk used
    cache = IndexCache()
    cold = cache.get(memory.conn, MODEL)
    assert (cache.snapshot_loads, cache.full_loads) == (1, 0)
    assert len(cold) == n and live_rows(cold) == live_rows(full)


@pytest.mark.parametrize("at", ["int8", "float32"])
def test_an_index_exactly_at_a_threshold_is_snapshotted(memory: Memory, monkeypatch,
                                                        at: str) -> None:
    """n rows with QUANTISE_ROWS = n: a fresh load keeps float32 only; with QUANTISE_ROWS = 0
    and FLOAT_ROWS = n: int8 codes and the float32 vectors. Either is written and read."""
    n = 6
    monkeypatch.setattr(index_module, "QUANTISE_ROWS", n if at == "int8" else 0)
    monkeypatch.setattr(index_module, "FLOAT_ROWS", n)
    _events(memory, n)
    full = load_index(memory.conn, MODEL)
    assert (full.codes is None) == (at == "int8") and full.matrix.shape == (n, DIM)
    assert snapshot.write(memory.conn, lambda: full) is not None
    cache = IndexCache()
    cold = cache.get(memory.conn, MODEL)
    assert (cache.snapshot_loads, cache.full_loads) == (1, 0)
    assert live_rows(cold) == live_rows(full) and cold.matrix.shape == (n, DIM)


@pytest.mark.parametrize("past", ["int8", "float32"])
def test_an_index_that_grew_past_a_threshold_is_not_snapshotted(memory: Memory, monkeypatch,
                                                                past: str) -> None:
    """Loaded at n rows, one event added in place: past QUANTISE_ROWS it still has no codes,
    past FLOAT_ROWS it still keeps its float32 vectors. Neither is written (a fresh load of
    n + 1 rows would hold its vectors otherwise); the next cold start loads in full."""
    n = 6
    if past == "int8":
        monkeypatch.setattr(index_module, "QUANTISE_ROWS", n)
    else:
        monkeypatch.setattr(index_module, "QUANTISE_ROWS", 0)
        monkeypatch.setattr(index_module, "FLOAT_ROWS", n)
    _events(memory, n)
    cache = IndexCache()
    running = cache.get(memory.conn, MODEL)
    _events(memory, 1, seed=1)
    assert cache.get(memory.conn, MODEL) is running and len(running) == n + 1
    assert (running.codes is None) == (past == "int8") and running.matrix.shape[1] == DIM
    assert snapshot.write(memory.conn, lambda: running) is None
    assert snapshot.head(memory.conn, MODEL) is None
    assert memory.conn.execute("SELECT COUNT(*) FROM index_snapshot").fetchone()[0] == 0
    cold_cache = IndexCache()
    cold = cold_cache.get(memory.conn, MODEL)
    assert (cold_cache.snapshot_loads, cold_cache.full_loads) == (0, 1)
    assert cold.codes is not None and cold.matrix.shape[1] == (DIM if past == "int8" else 0)


def test_a_large_snapshot_reads_back(memory: Memory) -> None:
    """16,500 rows — past 16,448 = 64 × 257, from where the spare capacity's rows // 64 term
    outgrows its 256 rows (real snapshots start at SNAPSHOT_ROWS = 50,000): the snapshot holds
    the index it was given, row for row. (An index built in memory: the file holds one event
    of the model, for its dimension.)"""
    n, dim = 16_500, 4
    index = index_in_memory(memory, n, dim, seed=7)
    assert snapshot.write(memory.conn, lambda: index)["rows"] == n
    cold = snapshot.load(memory.conn, MODEL)
    assert cold is not None and len(cold) == n
    for name in ("ids", "matrix", "ts_days", "floor", "user_flag", "emotions", "obs_id",
                 "obs_days", "live", "prev_row", "next_row"):
        assert np.array_equal(getattr(cold, name), getattr(index, name), equal_nan=True), name


SAVE = """
import sys
from core.memory import Memory
with Memory.open(sys.argv[1]) as memory:
    print(memory.save_index_snapshot()["rows"])
"""


def test_a_snapshot_written_meanwhile_by_another_process_wins(tmp_path, demo_db,
                                                             monkeypatch) -> None:
    """Ours is written a chunk per transaction; after its first chunks another process writes
    a whole snapshot (its flip deletes every chunk not its own). Ours then gives up: theirs is
    the one in the file, whole, with no chunk of ours beside it, and a cold start reads it."""
    path = tmp_path / "memory.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as memory:
        model = memory.embedding_model
        chunks, theirs = snapshot._chunks, []

        def another_writer_midway(index):
            for item in chunks(index):
                if item[0] == "scale" and not theirs:      # ids and matrix are in by now
                    proc = subprocess.run([sys.executable, "-c", SAVE, str(path)], cwd=ROOT,
                                          capture_output=True, text=True, timeout=300)
                    assert proc.returncode == 0, proc.stderr
                    theirs.append(int(proc.stdout))
                yield item

        monkeypatch.setattr(snapshot, "_chunks", another_writer_midway)
        assert memory.save_index_snapshot() is None
        rows = len(memory.scorer.index())
        assert theirs == [rows]
        head = snapshot.head(memory.conn, model)
        assert head is not None and head["rows"] == rows
        parts = memory.conn.execute("SELECT part FROM index_snapshot").fetchall()
        assert sorted(p[0] for p in parts if p[0] != "head") == sorted(
            f"{head['generation']}:{part}" for part, crcs in head["crc"].items() for _ in crcs)
        assert len(parts) == sum(len(c) for c in head["crc"].values()) + 1
    with Memory.open(path, read_only=True) as memory:
        cache = IndexCache()
        cold = cache.get(memory.conn, model)
        assert (cache.snapshot_loads, cache.full_loads) == (1, 0)
        assert live_rows(cold) == live_rows(load_index(memory.conn, model))
