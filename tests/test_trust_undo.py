"""Undo and redo (JOURNAL §1): inverse changes appended, history never rewritten."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import PulseError
from core.memory import Memory
from core.trust import undo as U
from core.trust.corrections import correct, list_corrections
from core.trust.forget import forget

CORPUS = {
    "format": "pulse-corpus/1",
    "entities": [{"key": "ann", "name": "Ann", "kind": "person"}],
    "events": [{"key": "e1", "title": "First job", "ts": "2024-01-01", "entities": ["ann"]},
               {"key": "e2", "title": "Second job", "ts": "2024-06-01"}],
}


@pytest.fixture
def mem(memory: Memory) -> Memory:
    memory.import_corpus(CORPUS)
    return memory


def cls(memory: Memory, key: str = "e1") -> str:
    return memory.event(key)["belief_class"]


def test_undo_redo_stack(mem: Memory) -> None:
    digest0 = mem.digest()
    mem.set_belief("e1", belief_class="user_model")
    digest1 = mem.digest()
    mem.set_belief("e1", belief_class="hypothesis")
    rows_before = mem.conn.execute("SELECT seq, hash FROM journal").fetchall()

    u1 = U.undo(mem)
    assert u1["op"] == "undo" and cls(mem) == "user_model"
    u2 = U.undo(mem)
    assert u2["undoes"] < u1["undoes"] and cls(mem) == "operational"
    # history is never rewritten: the old rows are still there, unchanged
    after = mem.conn.execute("SELECT seq, hash FROM journal").fetchall()
    assert [tuple(r) for r in after[:len(rows_before)]] == [tuple(r) for r in rows_before]
    assert mem.verify() == []

    r1 = U.redo(mem)
    assert r1["op"] == "redo" and r1["undoes"] == u2["seq"] and cls(mem) == "user_model"
    assert mem.digest() == digest1
    r2 = U.redo(mem)
    assert r2["undoes"] == u1["seq"] and cls(mem) == "hypothesis"
    with pytest.raises(PulseError, match="nothing to redo"):
        U.redo(mem)
    # undo after a redo undoes the same action again
    U.undo(mem)
    assert cls(mem) == "user_model"
    U.undo(mem)
    assert cls(mem) == "operational"
    assert mem.verify() == []
    # a new action clears the redo stack
    mem.set_belief("e2", belief_class="user_model")
    assert U.next_redo(mem) is None
    U.undo(mem)
    assert cls(mem, "e2") == "operational"
    assert digest0 != digest1


def test_undo_of_an_import_row_and_of_a_correction(mem: Memory) -> None:
    c = correct(mem, withdrawn=["$49"], replacement=["$29"], note="n")
    assert list_corrections(mem)
    out = U.undo(mem)
    assert out["undoes"] == c["journal_seq"] and list_corrections(mem) == []
    # the last import row is the second event; undoing it removes it with its vector etc.
    out = U.undo(mem)
    assert out["target_op"] == "event.add"
    count = mem.conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    assert count == 1
    assert mem.conn.execute("SELECT COUNT(*) FROM event_embeddings").fetchone()[0] == 1
    U.redo(mem)
    assert mem.conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 2


def test_undo_refuses_a_stale_row(mem: Memory) -> None:
    first = mem.set_belief("e1", belief_class="user_model")
    mem.set_belief("e1", belief_class="hypothesis")
    digest = mem.digest()
    head = mem.stats()["journal_head"]
    with pytest.raises(PulseError, match="changed by a later row"):
        U.undo(mem, seq=first)
    assert mem.digest() == digest and mem.stats()["journal_head"] == head


def test_undo_refuses_when_referenced_later(mem: Memory) -> None:
    # the entity's insert cannot be undone while an event still links to it
    entity_row = mem.conn.execute("SELECT seq FROM journal WHERE op = 'entity.add'").fetchone()[0]
    with pytest.raises(PulseError, match="referenced|changed"):
        U.undo(mem, seq=entity_row)


def test_forget_is_final_and_a_barrier(mem: Memory) -> None:
    mem.set_belief("e2", belief_class="user_model")
    out = forget(mem, "event:e1")
    with pytest.raises(PulseError, match="cannot be undone"):
        U.undo(mem, seq=out["journal_seq"])
    # the plain undo says why there is nothing (the edit before the erasure stays)
    with pytest.raises(PulseError, match=rf"nothing to undo since journal row "
                                         rf"{out['journal_seq']}: an erasure cannot be undone"):
        U.undo(mem)
    assert U.next_undo(mem) is None
    mem.set_belief("e2", belief_class="hypothesis")
    U.undo(mem)                                     # an edit after the erasure still undoes
    with pytest.raises(PulseError, match="since journal row"):
        U.undo(mem)


def test_bad_seq_and_nothing_to_undo(memory: Memory) -> None:
    with pytest.raises(PulseError, match="nothing to undo"):
        U.undo(memory)
    with pytest.raises(PulseError, match="no journal row"):
        U.undo(memory, seq=999)


def test_history_marks_undone_rows(mem: Memory) -> None:
    seq = mem.set_belief("e1", belief_class="user_model")
    U.undo(mem)
    rows = {r["seq"]: r for r in U.history(mem)}
    assert rows[seq]["undone"] and rows[seq]["undoable"]


def test_cli_undo(mem: Memory, db_path: Path) -> None:
    mem.set_belief("e1", belief_class="user_model")
    mem.close()
    run = lambda *a: subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db_path), *a],  # noqa: E731
                                    capture_output=True, text=True, timeout=120)
    result = run("undo")
    assert result.returncode == 0, result.stderr
    assert "undo of row" in result.stdout
    result = run("redo", "--json")
    assert result.returncode == 0, result.stderr
    result = run("undo", "--seq", "9999")
    assert result.returncode == 1 and "no journal row 9999" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
