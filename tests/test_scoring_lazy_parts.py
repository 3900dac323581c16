"""Parts of the scorer built only when asked for and then kept (core/scoring): a ranking's
breakdown (breakdown.py: a scored event is in it before its entry is built, and an entry once
built is kept) and the entity names a state's recent life events are matched with
(scorer.py `_entity_patterns`: compiled once and reused while nothing is written — compiling
them on every query that carried life events cost more than searching — and compiled again
after any write, so a new entity or alias is found by the next query)."""

from __future__ import annotations

import numpy as np
import pytest

from core.memory import Memory
from core.scoring.breakdown import Breakdown
from core.scoring.state import parse_state
from core.store import records


def test_a_breakdown_holds_every_scored_event_before_and_after_it_is_read() -> None:
    ids = np.array([7, 3, 9], dtype=np.int64)
    terms = Breakdown(ids, np.array([0.5, 0.25, 0.125]),
                      {"relevance": np.array([1.0, 0.5, 0.25]), "alpha": 0.3})
    assert [i in terms for i in (7, 3, 9, 4)] == [True, True, True, False]   # none read yet
    assert len(terms) == 3 and list(terms) == [7, 3, 9]
    entry = terms[3]
    assert entry == {"score": 0.25, "terms": {"relevance": 0.5, "alpha": 0.3}}
    entry["terms"]["via_chain"] = True               # a caller's mark is kept
    assert terms[3]["terms"]["via_chain"] is True and 3 in terms and 9 in terms
    with pytest.raises(KeyError):
        terms[4]
    terms[4] = {"score": 0.1, "terms": {}}          # an event scored afterwards joins
    assert 4 in terms and len(terms) == 4 and list(terms) == [7, 3, 9, 4]
    with pytest.raises(TypeError):
        del terms[7]


def test_entity_names_are_compiled_once_until_the_memory_changes(memory: Memory) -> None:
    mama = records.add_entity(memory.conn, actor="import", name="Mama", kind="person",
                              aliases=["Mom"])
    scorer = memory.scorer
    events = parse_state({"recent_life_events_7d": ["Mom called twice", "argument with Dana"]})
    first = scorer._entity_patterns()
    assert [entity for entity, _ in first] == [mama]
    assert scorer._recent_entities(events) == {mama}
    assert scorer._entity_patterns() is first      # nothing written: the same compiled list
    dana = records.add_entity(memory.conn, actor="import", name="Dana", kind="person")
    again = scorer._entity_patterns()
    assert again is not first and [entity for entity, _ in again] == [mama, dana]
    assert scorer._recent_entities(events) == {mama, dana}
    assert scorer._entity_patterns() is again
