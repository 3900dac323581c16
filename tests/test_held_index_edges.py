"""The vector index a process holds between queries, at two edges the mutation check found
unguarded (docs/scoring.md, "Mutation check"): a new event placed in a spare row a compaction
left flagged dead, and a held index that `close` snapshots after an erasure it has not yet
applied. Real SQLite files, real vectors (the synthetic model of test_index_refresh_edges.py
and the real embedder)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from core.memory import Memory
from core.scoring import snapshot
from core.scoring.index import IndexCache, load_index
from core.store.commands import execute, transaction
from core.upkeep.proposals import archive_change
from tests.test_index_refresh_edges import MODEL, _add


def _archive(memory: Memory, event_id: int) -> None:
    with transaction(memory.conn):
        execute(memory.conn, actor="manual", op="event.archive", subject=f"event:{event_id}",
                changes=[archive_change(memory.conn, event_id)])


def test_a_restored_event_and_a_new_one_after_the_newest_left_are_both_live(
        memory: Memory) -> None:
    """The two newest events leave the index (archived), so its compaction leaves their old
    rows, flagged dead, past the live ones. An older event restored and a new one remembered
    before the next query are placed in one refresh: the old one shifts the rows up, the new
    one (above every id) lands in one of those spare rows, and must be live there."""
    rng = np.random.default_rng(21)
    ids = [_add(memory, f"moment {i}", rng) for i in range(5)]
    cache = IndexCache()
    index = cache.get(memory.conn, MODEL)
    for event_id in (ids[0], ids[3], ids[4]):
        _archive(memory, event_id)
    assert cache.get(memory.conn, MODEL) is index and index.ids.tolist() == ids[1:3]
    memory.restore(ids[0])
    new = _add(memory, "a moment after all of them", rng, day=2)
    assert cache.get(memory.conn, MODEL) is index and cache.full_loads == 1
    assert index.ids.tolist() == [*ids[:3], new]
    assert index.live.all() and index.position(new) == 3
    assert index.ids.tolist() == load_index(memory.conn, MODEL).ids.tolist()


def test_an_event_forgotten_before_close_is_not_written_back_by_the_snapshot(
        tmp_path: Path, monkeypatch) -> None:
    """`close` snapshots a large index it holds when the file's snapshot is missing; an
    erasure since the index was loaded dropped that snapshot but not the index in memory, so
    the index must be brought up to date first: no byte of the forgotten event's vector may
    reach the file. (SNAPSHOT_ROWS lowered so that a small memory counts as large.)"""
    monkeypatch.setattr(snapshot, "SNAPSHOT_ROWS", 1)
    path = tmp_path / "m.db"
    memory = Memory.open(path, create=True)
    for text in ("Walked to the harbour at dawn", "My sister called about the move",
                 "Failed the exam and told no one", "Tea with Anna on Sunday"):
        memory.remember(text, ts="2026-10-01T10:00:00Z")
    memory.retrieve("harbour", abstain=False)            # loads and holds the index
    secret = memory.conn.execute("SELECT id FROM events WHERE title LIKE '%exam%'"
                                 " OR description LIKE '%exam%'").fetchone()[0]
    vector = bytes(memory.conn.execute(
        "SELECT vector FROM event_embeddings WHERE event_id = ? AND model = ?",
        (secret, memory.embedding_model)).fetchone()[0])
    memory.forget([f"event:{secret}"])
    memory.close()
    reopened = Memory.open(path)
    try:
        assert reopened.conn.execute("SELECT COUNT(*) FROM index_snapshot").fetchone()[0] > 0
    finally:
        reopened.close()
    written = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert vector[:64] not in written
