"""Edges of the state gate's inputs and of the change log: the depletion thresholds met exactly
(sleep at its maximum and stress at its minimum open the gate, as gates.state_fit does; hrv at
its bound does not), the gate inputs of an event re-read after a write to it alone (the
lowest, here the only, changed id), how many changed events `changes_since` tells row by row
before it gives up, and a body state's sleep quality past 1 refused. Real SQLite, events
written through the command layer."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import ValidationError
from core.memory import Memory
from core.scoring import gates
from core.scoring.changelog import changes_since, current_rev
from core.scoring.settings import DEFAULT_SETTINGS
from core.scoring.state import parse_state
from core.scoring.state_flags import StateFlags, StateFlagsCache
from core.store import records
from tests.test_scoring_formula import NOW, iso

S = DEFAULT_SETTINGS


def _days(memory: Memory, bodies: list[dict]) -> np.ndarray:
    return np.array([records.add_event(memory.conn, actor="import", fields={
        "title": f"day {i}", "ts": iso(NOW), "biometrics": bio})
        for i, bio in enumerate(bodies)], dtype=np.int64)


def test_the_stressed_gate_opens_exactly_at_the_depletion_thresholds(memory: Memory) -> None:
    assert (S.depletion_hrv_below, S.depletion_sleep_max, S.depletion_stress_min) == \
        (60.0, 0.4, 0.6)
    cases = [({"sleep_quality": 0.4}, 1.0), ({"sleep_quality": 0.41}, 0.0),
             ({"stress_proxy": 0.6}, 1.0), ({"stress_proxy": 0.59}, 0.0),
             ({"hrv": 60}, 0.0), ({"hrv": 59.9}, 1.0)]
    ids = _days(memory, [bio for bio, _ in cases])
    got = StateFlags(memory.conn).fits(ids, "stressed", np.zeros(len(ids), dtype=bool), S)
    assert got.tolist() == [fit for _, fit in cases]
    assert got.tolist() == [gates.state_fit("stressed", bio, "", False, S) for bio, _ in cases]


@pytest.mark.parametrize("also_new", [False, True])
def test_a_write_to_one_event_keeps_its_gate_inputs(memory: Memory, also_new: bool) -> None:
    """The cache re-reads every event the log names, the lowest id among them included: a pin
    of the one stressed day (with or without a new day added after it) leaves its gate open."""
    stressed, calm = _days(memory, [{"stress_proxy": 0.9}, {"stress_proxy": 0.1}])
    cache = StateFlagsCache()
    kept = cache.get(memory.conn)
    memory.pin(int(stressed))
    ids = [int(stressed), int(calm)]
    if also_new:
        ids += _days(memory, [{"sleep_quality": 0.2}]).tolist()
    assert cache.get(memory.conn) is kept and kept.rev == current_rev(memory.conn)
    query = np.array(ids, dtype=np.int64)
    none = np.zeros(len(ids), dtype=bool)
    got = kept.fits(query, "stressed", none, S)
    assert got.tolist() == [1.0, 0.0] + [1.0] * also_new
    assert got.tolist() == StateFlags(memory.conn).fits(query, "stressed", none, S).tolist()


def test_changes_since_tells_up_to_its_limit_of_changed_events(memory: Memory) -> None:
    """None only when MORE than `limit` distinct events changed: exactly `limit` are told."""
    first, second, third = _days(memory, [{}, {}, {}]).tolist()
    rev = current_rev(memory.conn)
    memory.pin(first)
    memory.pin(second)
    memory.pin(first)                      # the same event again: still two events
    told = changes_since(memory.conn, rev, limit=2)
    assert told is not None and told.rows == {first, second}
    assert told.rev == current_rev(memory.conn)
    assert changes_since(memory.conn, rev, limit=1) is None
    memory.pin(third)
    assert changes_since(memory.conn, rev, limit=2) is None
    assert changes_since(memory.conn, rev, limit=3).rows == {first, second, third}


def test_a_sleep_quality_past_one_is_refused() -> None:
    assert parse_state({"sleep_quality": 1}).sleep_quality == 1.0
    for bad in (1.5, 2):
        with pytest.raises(ValidationError, match=r"sleep_quality must be 0\.\.1, got"):
            parse_state({"sleep_quality": bad})
