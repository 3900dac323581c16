"""An id once given is never given again (migration 012): after the newest event is erased or
its creation undone, the next event gets a new id, so a reference someone still holds
("event:12" in a companion's context, an exported viewer, a note) names nothing rather than
another moment. A replay of the journal gives the same ids. Real SQLite files."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import PulseError
from core.memory import Memory
from core.store.changes import table_keys
from core.store.commands import next_ids

NOTES = ["Walked by the harbour in the rain this morning.",
         "Lunch with Mira at the old bakery, we laughed a lot.",
         "Finished the bookshelf for the spare room."]


def _remember_all(memory: Memory) -> list[int]:
    made: list[int] = []
    for day, note in enumerate(NOTES, start=1):
        made += memory.remember(note, f"2026-10-{day:02d}T10:00:00Z")["events"]
    return made


def test_the_newest_events_id_is_not_given_again_after_its_erasure(memory: Memory) -> None:
    made = _remember_all(memory)
    newest = max(made)
    memory.forget(f"event:{newest}")
    again = memory.remember("Adopted a grey kitten called Pepper.", "2026-10-09T10:00:00Z")
    assert again["events"] and min(again["events"]) > newest
    with pytest.raises(PulseError):
        memory.event(f"event:{newest}")          # the old reference names nothing now


def test_an_undone_creation_keeps_its_id_and_a_redo_brings_it_back(memory: Memory) -> None:
    _remember_all(memory)
    undone = memory.remember("A note I take back.", "2026-10-05T10:00:00Z")["events"]
    held = f"SELECT COUNT(*) FROM events WHERE id IN ({','.join('?' * len(undone))})"
    memory.undo()
    assert memory.conn.execute(held, undone).fetchone()[0] == 0
    memory.redo()                                 # the note returns under its own id
    assert memory.conn.execute(held, undone).fetchone()[0] == len(undone)
    memory.undo()
    later = memory.remember("Something else, said later.", "2026-10-06T10:00:00Z")["events"]
    assert min(later) > max(undone)


def test_every_allocated_table_starts_above_its_highest_deleted_id(memory: Memory) -> None:
    """The observations, entities and facts of an erased message are not reused either."""
    memory.remember("Mira moved to Lisbon with her sister Ana.", "2026-10-01T10:00:00Z")
    tables = ("observations", "entities", "events", "relations", "facts")
    before = dict(zip(tables, next_ids(memory.conn, *tables)))
    observation = memory.conn.execute("SELECT MAX(id) FROM observations").fetchone()[0]
    memory.forget(f"observation:{observation}")
    after = dict(zip(tables, next_ids(memory.conn, *tables)))
    assert after == before
    assert after["observations"] == observation + 1


def test_replay_gives_the_same_ids_and_digest(memory: Memory, tmp_path: Path) -> None:
    _remember_all(memory)
    memory.remember("A note I take back.", "2026-10-05T10:00:00Z")
    memory.undo()
    memory.remember("Something else, said later.", "2026-10-06T10:00:00Z")
    journal = tmp_path / "journal.jsonl"
    memory.export_journal(journal)
    Memory.replay(journal, tmp_path / "replayed.db")
    with Memory.open(tmp_path / "replayed.db") as copy:
        assert copy.digest() == memory.digest()
        ids = lambda m: [r[0] for r in m.conn.execute("SELECT id FROM events ORDER BY id")]  # noqa: E731
        assert ids(copy) == ids(memory)
        marks = "SELECT name, top FROM id_high_water ORDER BY name"
        assert copy.conn.execute(marks).fetchall() == memory.conn.execute(marks).fetchall()


def test_a_journal_change_cannot_write_the_marks(memory: Memory) -> None:
    with pytest.raises(ValueError, match="may not"):
        table_keys(memory.conn, "id_high_water")
