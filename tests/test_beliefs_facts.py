"""Editing a fact's belief fields in the engine: journaled as "fact.set", the invariants of
core.beliefs refuse what is not allowed (and nothing is written), and core.trust.undo inverts
it like any other row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import InvariantError, PulseError
from core.memory import Memory
from core.store import records
from core.trust import undo as trust_undo

CORPUS = {
    "format": "pulse-corpus/1",
    "entities": [{"key": "ana", "name": "Ana Petrova", "kind": "person"}],
    "relations": [],
    "events": [],
    "facts": [{"entity": "ana", "text": "Ana takes her coffee black"},
              {"entity": "ana", "text": "Ana is afraid of deep water"}],
}


@pytest.fixture
def memory(tmp_path: Path):
    with Memory.open(tmp_path / "m.db", create=True) as mem:
        mem.import_corpus(CORPUS)
        yield mem


def fact_id(mem: Memory, text: str = "Ana takes her coffee black") -> int:
    return int(mem.conn.execute("SELECT id FROM facts WHERE text = ?", (text,)).fetchone()[0])


def fact(mem: Memory, fid: int) -> dict:
    return dict(mem.conn.execute("SELECT * FROM facts WHERE id = ?", (fid,)).fetchone())


def head(mem: Memory) -> int:
    return mem.stats()["journal_head"]


def last_row(mem: Memory) -> dict:
    seq, op, subject, actor, payload = mem.conn.execute(
        "SELECT seq, op, subject, actor, payload FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
    return {"seq": seq, "op": op, "subject": subject, "actor": actor,
            "payload": json.loads(payload)}


def test_set_fact_belief_is_journaled(memory):
    fid = fact_id(memory)
    assert fact(memory, fid)["confidence_floor"] == 0.0
    seq = memory.set_fact_belief(fid, confidence_floor=0.6, domain="fiction_meta")
    assert isinstance(seq, int) and seq == head(memory)
    row = fact(memory, fid)
    assert row["confidence_floor"] == pytest.approx(0.6) and row["domain"] == "fiction_meta"
    last = last_row(memory)
    assert (last["op"], last["subject"], last["actor"]) == ("fact.set", f"fact:{fid}", "manual")
    (change,) = last["payload"]["changes"]
    assert change["t"] == "facts" and change["a"] == "update" and change["pk"] == {"id": fid}
    assert change["set"] == {"confidence_floor": 0.6, "domain": "fiction_meta"}
    assert change["old"] == {"confidence_floor": 0.0, "domain": "real"}
    assert memory.verify() == []


def test_nothing_changed_returns_none(memory):
    fid = fact_id(memory)
    seq = head(memory)
    assert memory.set_fact_belief(fid, belief_class="operational") is None
    assert memory.set_fact_belief(fid) is None
    assert head(memory) == seq


def test_records_function_and_actor(memory):
    fid = fact_id(memory)
    seq = records.set_fact_belief(memory.conn, fid, actor="therapist", belief_class="self_model")
    assert seq == head(memory)
    assert last_row(memory)["actor"] == "therapist"
    assert fact(memory, fid)["belief_class"] == "self_model"


@pytest.mark.parametrize("fields, words", [
    ({"belief_class": "axiom", "archivable": 0, "confidence_floor": 0.2}, ("axiom", "0.5")),
    ({"belief_class": "axiom", "archivable": 1, "confidence_floor": 0.9}, ("axiom", "archivable")),
    ({"belief_class": "axiom"}, ("axiom",)),
    ({"confidence_floor": 1.5}, ("confidence_floor",)),
    ({"domain": "dreams"}, ("domain",)),
    ({"belief_class": "gospel"}, ("class",)),
    ({"provenance": "rumour"}, ("provenance",)),
])
def test_invariants_refused_and_nothing_written(memory, fields, words):
    fid = fact_id(memory)
    before, seq = fact(memory, fid), head(memory)
    with pytest.raises(InvariantError) as err:
        memory.set_fact_belief(fid, **fields)
    assert f"fact {fid}" in str(err.value)
    for word in words:
        assert word in str(err.value)
    assert head(memory) == seq
    assert fact(memory, fid) == before


def test_an_existing_axiom_cannot_be_weakened(memory):
    fid = fact_id(memory)
    memory.set_fact_belief(fid, belief_class="axiom", archivable=0, confidence_floor=0.8)
    seq = head(memory)
    with pytest.raises(InvariantError, match="0.5"):
        memory.set_fact_belief(fid, confidence_floor=0.2)
    with pytest.raises(InvariantError, match="archivable"):
        memory.set_fact_belief(fid, archivable=1)
    assert head(memory) == seq
    assert fact(memory, fid)["confidence_floor"] == pytest.approx(0.8)


def test_unknown_fields_and_missing_fact(memory):
    fid = fact_id(memory)
    with pytest.raises(PulseError, match="user_flag"):
        memory.set_fact_belief(fid, user_flag=1)          # facts have no anchor
    with pytest.raises(PulseError, match="text"):
        memory.set_fact_belief(fid, text="rewritten")
    with pytest.raises(PulseError, match="no fact"):
        memory.set_fact_belief(999_999, confidence_floor=0.3)


def test_read_only_memory_refuses(memory, tmp_path):
    fid = fact_id(memory)
    path = memory.path
    with Memory.open(path, read_only=True) as ro:
        with pytest.raises(PulseError, match="read-only"):
            ro.set_fact_belief(fid, confidence_floor=0.3)


def test_undo_and_redo_a_fact_set_row(memory):
    fid = fact_id(memory)
    seq = memory.set_fact_belief(fid, belief_class="axiom", archivable=0, confidence_floor=0.7)
    assert trust_undo.next_undo(memory) == seq
    result = trust_undo.undo(memory)
    assert result["undoes"] == seq and result["target_op"] == "fact.set"
    row = fact(memory, fid)
    assert (row["belief_class"], row["archivable"], row["confidence_floor"]) == \
        ("operational", 1, 0.0)
    trust_undo.redo(memory)
    row = fact(memory, fid)
    assert (row["belief_class"], row["archivable"], row["confidence_floor"]) == ("axiom", 0, 0.7)
    assert memory.verify() == []
