"""A corpus import (what builds the demo memory) can be cancelled, as import_files can: with
`cancel` set it stops at the next look (every CANCEL_STEP texts embedded, and between the
events written), writes nothing — its one transaction is rolled back — and says
"cancelled": True. Run again, it imports everything. Embedding in steps gives the very same
vectors as one call."""

from __future__ import annotations

import threading
from pathlib import Path

from core.ingest.corpus import CANCEL_STEP
from core.memory import Memory, demo_corpus_path

TABLES = ("entities", "relations", "events", "facts", "observations", "event_embeddings",
          "journal")


def counts(memory: Memory) -> dict[str, int]:
    return {t: memory.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}


def test_cancelled_before_it_starts_nothing_is_written(memory):
    before = counts(memory)
    stop = threading.Event()
    stop.set()
    out = memory.import_corpus(demo_corpus_path(), cancel=stop)
    assert out["cancelled"] is True
    assert (out["events"], out["entities"], out["facts"]) == (0, 0, 0)
    assert counts(memory) == before


def test_cancelled_while_embedding_it_stops_at_the_next_step(memory):
    before = counts(memory)
    stop = threading.Event()
    steps: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        steps.append((done, total))
        stop.set()                 # Cancel pressed once the first step is shown

    out = memory.import_corpus(demo_corpus_path(), progress=progress, cancel=stop)
    assert out["cancelled"] is True
    assert steps == [(CANCEL_STEP, 197)]     # the step under way ended it: no more after
    assert counts(memory) == before
    # and again, to the end: nothing half-done was left in the way
    steps.clear()
    done = memory.import_corpus(demo_corpus_path(), progress=lambda d, t: steps.append((d, t)),
                                cancel=threading.Event())
    assert "cancelled" not in done and done["events"] == 197
    assert steps[0] == (CANCEL_STEP, 197) and steps[-1] == (197, 197)


class CancelWhileWriting:
    """Set (as a person would press Cancel) once 50 events are written in the transaction."""

    def __init__(self, memory: Memory) -> None:
        self.memory, self.looks = memory, 0

    def is_set(self) -> bool:
        if self.memory.conn.in_transaction:
            self.looks += 1
        return self.looks > 50


def test_cancelled_while_writing_the_transaction_is_rolled_back(memory):
    before = counts(memory)
    stop = CancelWhileWriting(memory)
    out = memory.import_corpus(demo_corpus_path(), cancel=stop)
    assert out["cancelled"] is True and stop.looks == 51
    assert counts(memory) == before
    assert not memory.conn.in_transaction


def vectors(path: Path) -> list[tuple[str, bytes]]:
    with Memory.open(path, read_only=True) as m:
        return m.conn.execute("SELECT e.key, v.vector FROM event_embeddings v JOIN events e"
                              " ON e.id = v.event_id ORDER BY e.key").fetchall()


def test_embedding_in_steps_gives_the_same_vectors(tmp_path):
    whole, stepped = tmp_path / "whole.db", tmp_path / "stepped.db"
    with Memory.open(whole, create=True) as m:
        m.import_corpus(demo_corpus_path())
    with Memory.open(stepped, create=True) as m:
        m.import_corpus(demo_corpus_path(), cancel=threading.Event())
    assert vectors(whole) == vectors(stepped) and len(vectors(whole)) == 197


def test_a_corpus_file_in_import_files_is_cancelled_whole(memory):
    """`pulse ingest` / the Ingest tab with a corpus file among the files: Cancel stops it too
    (before, the corpus was imported to its end whatever the cancel said)."""
    before = counts(memory)
    stop = threading.Event()
    stop.set()
    out = memory.import_files([demo_corpus_path()], cancel=stop)
    assert out["cancelled"] is True and out["files"][0]["cancelled"] is True
    assert counts(memory) == before
