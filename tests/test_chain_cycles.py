"""A memory file whose chain links form a cycle (core/scoring/chain.py). Pulse refuses a link
that would close one (`records.would_close_cycle`), so only a file changed by hand or by
another program has it; reading such a file must still answer: chain mode returns every event
once, the cycle's members first in one order whatever the list's length, a cause → effect
pair listed after them cause first, the same list for the same query (in this process and in
a fresh one), and "what led to this?" lists each other member once."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from core.memory import Memory
from core.store import records
from tests.test_scoring_formula import NOW, QUERY
from tests.test_scoring_state import _event, _far_vector

OFF = {"chain_context_weight": 0.0}     # the ranking by cosine alone: A, E, D, then the rest


@pytest.fixture
def damaged(memory: Memory) -> dict[str, int]:
    """A → B → C → A written with SQL past the cycle check; D → E an ordinary link."""
    q = np.asarray(memory.embedder().embed_query(QUERY), dtype=np.float64)
    q /= np.linalg.norm(q)

    def near(cosine: float, seed: int) -> np.ndarray:
        v = cosine * q + np.sqrt(1 - cosine ** 2) * _far_vector(memory, seed)
        return v / np.linalg.norm(v)

    ids = {"A": _event(memory, "event a", near(0.95, 1)),
           "B": _event(memory, "event b", _far_vector(memory, 2)),
           "C": _event(memory, "event c", _far_vector(memory, 3)),
           "E": _event(memory, "event e", near(0.9, 4)),
           "D": _event(memory, "event d", near(0.85, 5))}
    for i in range(6):
        _event(memory, f"other {i}", near(0.5, 10 + i))
    for parent, child in (("A", "B"), ("B", "C"), ("D", "E")):
        records.link_events(memory.conn, actor="import", parent_id=ids[parent],
                            child_id=ids[child])
    assert records.would_close_cycle(memory.conn, ids["C"], ids["A"])    # Pulse would refuse
    memory.conn.execute("INSERT INTO event_chains (parent_id, child_id, kind, strength)"
                        " VALUES (?, ?, 'causal', 0.5)", (ids["C"], ids["A"]))
    return ids


def _chain(memory: Memory, top_k: int) -> dict:
    return memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=top_k, chain=True,
                           abstain=False, settings=OFF)


@pytest.mark.parametrize("top_k", [5, 6, 7, 8])
def test_chain_mode_shows_every_event_once_and_the_whole_cycle(memory: Memory, damaged,
                                                               top_k: int) -> None:
    out = _chain(memory, top_k)
    got = [r["id"] for r in out["results"]]
    assert len(got) == top_k and not [i for i, n in Counter(got).items() if n > 1]
    cycle = {damaged["A"], damaged["B"], damaged["C"]}
    assert set(got[:3]) == cycle                       # the anchor's story comes first
    # the cycle in one order at every length (it once depended on the round the loop stopped)
    assert got[:3] == [r["id"] for r in _chain(memory, 5)["results"]][:3]
    assert got.index(damaged["D"]) < got.index(damaged["E"])        # the cause first
    # the same answer again, and from a fresh process's caches
    assert [r["id"] for r in _chain(memory, top_k)["results"]] == got
    other = Memory.open(memory.path)
    try:
        assert [r["id"] for r in _chain(other, top_k)["results"]] == got
    finally:
        other.close()


def test_what_led_to_a_member_lists_each_other_member_once(memory: Memory, damaged) -> None:
    causes = memory.why(damaged["A"], depth=10)["causes"]
    assert sorted(c["id"] for c in causes) == sorted([damaged["B"], damaged["C"]])
    assert {c["id"]: c["hops"] for c in causes} == {damaged["C"]: 1, damaged["B"]: 2}
