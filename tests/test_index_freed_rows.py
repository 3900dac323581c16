"""Rows freed by an erasure at the end of the vector index (core/scoring/index.py) and taken by
the next new events. Compaction leaves the erased rows' old values in the buffers' spare rows,
the erased flag among them; a new event appended there must be a live row, found by a query,
exactly as a fresh load holds it. Real SQLite files, real vectors (the memory's own embedding
model for the query, a small synthetic model for the rows)."""

from __future__ import annotations

import numpy as np

from core.memory import Memory
from core.scoring.index import IndexCache, load_index
from core.store import records
from tests.conftest import NOW
from tests.test_index_in_place import live_rows

MODEL = "synthetic"
NOTES = ["Walked by the harbour in the rain this morning.",
         "Lunch with Mira at the old bakery, we laughed a lot.",
         "The dentist appointment went fine after all.",
         "Spent the evening reading about volcanoes.",
         "Finished the bookshelf for the spare room."]


def _add(memory: Memory, title: str, rng: np.random.Generator) -> int:
    vec = rng.standard_normal(16).astype(np.float32)
    return records.add_event(memory.conn, actor="import", fields={
        "title": title, "ts": "2026-10-01T10:00:00Z"},
        vectors=[records.Vector(MODEL, vec / np.linalg.norm(vec))])


def test_an_event_added_after_the_newest_was_erased_is_a_live_row(memory: Memory) -> None:
    """The newest event is erased (its row, the last, leaves), then one event is added: it
    takes the freed last row in place, live, and position() finds it — the rows of a fresh
    load."""
    rng = np.random.default_rng(21)
    kept = [_add(memory, f"kept {i}", rng) for i in range(3)]
    newest = _add(memory, "soon forgotten", rng)
    cache = IndexCache()
    index = cache.get(memory.conn, MODEL)
    memory.forget(f"event:{newest}")
    assert cache.get(memory.conn, MODEL) is index and index.ids.tolist() == kept
    added = _add(memory, "added after the erasure", rng)
    assert cache.get(memory.conn, MODEL) is index and cache.full_loads == 1   # in place
    assert index.ids.tolist() == [*kept, added]
    assert index.live.all() and index.n_live == 4
    assert index.position(added) == 3
    fresh = load_index(memory.conn, MODEL)
    assert live_rows(index) == live_rows(fresh)


def test_a_note_remembered_after_the_newest_was_forgotten_is_found(memory: Memory) -> None:
    """A user forgets their newest note and checks it is gone, then tells the memory something
    new in the same session: a query about the new note finds it first (the scorer kept its
    index and read each change row by row; the new event takes the erased one's row, under a new id)."""
    for day, note in enumerate(NOTES, start=1):
        memory.remember(note, f"2026-10-{day:02d}T10:00:00Z")
    shelf = memory.retrieve("building a bookshelf", now=NOW)["results"]
    newest = memory.conn.execute("SELECT MAX(id) FROM events").fetchone()[0]
    assert shelf[0]["id"] == newest
    memory.forget(f"event:{newest}")
    assert newest not in [r["id"] for r in memory.retrieve("building a bookshelf",
                                                           now=NOW)["results"]]
    made = memory.remember("Adopted a grey kitten called Pepper from the shelter.",
                           "2026-10-09T10:00:00Z")["events"]
    got = memory.retrieve("the kitten I adopted", now=NOW)
    assert got["results"] and got["results"][0]["id"] in made
    assert memory.scorer._indexes.full_loads == 1                     # refreshed in place
