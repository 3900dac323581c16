"""Memories of tens of thousands of events for tests at a design threshold (50,000 rows, a
quarter of 4,400): rows written straight into `events` and `event_embeddings` in one
transaction, as bench/common.py's synthetic memories are. This bypasses the journal (it is not
on the read path); the schema's triggers still run — FTS, the index change log — so the file is
what the scorer sees after a real import. The command layer would take minutes at these sizes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from core.memory import Memory
from core.store.commands import transaction

MODEL = "synthetic"
DIM = 4


def add(memory: Memory, first: int, n: int, *, seed: int = 0, biometrics: str = "{}") -> None:
    """Events first..first+n-1, each with a unit vector of MODEL, on different days."""
    rng = np.random.default_rng(seed + first)
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = range(first, first + n)
    with transaction(memory.conn):
        memory.conn.executemany(
            "INSERT INTO events (id, title, ts, biometrics) VALUES (?, ?, ?, ?)",
            [(i, f"event {i}", f"2026-09-{1 + i % 28:02d}T10:00:00Z", biometrics) for i in ids])
        memory.conn.executemany(
            "INSERT INTO event_embeddings (event_id, model, dim, vector, text_hash)"
            " VALUES (?, ?, ?, ?, '')",
            [(i, MODEL, DIM, vectors[k].tobytes()) for k, i in enumerate(ids)])


def build(path: Path, n: int, *, biometrics: str = "{}") -> Path:
    """A new memory at `path` of n events (ids 1..n) whose active model is MODEL."""
    with Memory.open(path, create=True) as memory:
        with transaction(memory.conn):
            memory.set_meta("embedding_model", MODEL)
        add(memory, 1, n, biometrics=biometrics)
    return path


def touch(memory: Memory, ids: range) -> None:
    """A 'row' change of each event in `ids` (its user flag set): the log names each once."""
    with transaction(memory.conn):
        memory.conn.executemany("UPDATE events SET user_flag = 1 WHERE id = ?",
                                [(i,) for i in ids])
