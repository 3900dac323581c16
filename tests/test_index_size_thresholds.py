"""How a large index is held follows docs/architecture.md's size rules, at their exact edges:
up to 50,000 rows the float32 matrix alone; above, int8 codes for the first pass with the
float32 vectors still in memory; above 250,000 rows the codes alone (the few rows a query
re-scores are read from the file). A fresh load decides by the rows the file holds.

Synthetic memories (tests/bulk_events.py: the schema's triggers run, the journal is bypassed),
then one event more through the command layer."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from core.memory import Memory
from core.scoring.index import load_index
from core.store import records
from tests import bulk_events


def _one_more(memory: Memory) -> np.ndarray:
    vector = np.full(bulk_events.DIM, 0.5, dtype=np.float32)
    records.add_event(memory.conn, actor="import",
                      fields={"title": "one more", "ts": "2026-10-01T10:00:00Z"},
                      vectors=[records.Vector(bulk_events.MODEL, vector)])
    return vector


def test_above_50000_rows_the_first_pass_runs_on_int8_codes(tmp_path: Path) -> None:
    with Memory.open(bulk_events.build(tmp_path / "m.db", 50_000)) as memory:
        at_edge = load_index(memory.conn, bulk_events.MODEL)
        assert len(at_edge) == 50_000
        assert at_edge.codes is None and at_edge.keeps_float
        _one_more(memory)
        past = load_index(memory.conn, bulk_events.MODEL)
        assert len(past) == 50_001
        assert past.codes is not None and past.keeps_float


def test_above_250000_rows_the_float32_vectors_stay_in_the_file(tmp_path: Path) -> None:
    with Memory.open(bulk_events.build(tmp_path / "m.db", 250_000)) as memory:
        at_edge = load_index(memory.conn, bulk_events.MODEL)
        assert at_edge.codes is not None and at_edge.keeps_float
        vector = _one_more(memory)
        past = load_index(memory.conn, bulk_events.MODEL)
        assert len(past) == 250_001
        assert past.codes is not None and not past.keeps_float
        # what is not kept is still read exactly where a query needs it
        assert np.array_equal(past.vectors(np.array([250_000])), vector[None, :])
