"""A UserState is a value, as the Request that carries it is (tests/test_scoring_edges.py):
parse_state checks each field once, and a front may keep the state it parsed and send it with
many queries, so no field of it can be reassigned afterwards — not to a value parse_state
would refuse, not to another valid one; a changed state is a new one, parsed again."""

from __future__ import annotations

import dataclasses

import pytest

from core.memory import Memory
from core.scoring.state import parse_state


def test_a_parsed_state_keeps_the_values_that_were_checked() -> None:
    state = Memory.parse_state({"sleep_quality": 0.3, "stress_proxy": 0.7, "hr_trend": "normal",
                                "recent_life_events_7d": ["moved house"]})
    for name, value in (("sleep_quality", 7.0), ("stress_proxy", 0.2), ("hr_trend", "sideways"),
                        ("recent_life_events_7d", ())):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(state, name, value)
    assert state.to_dict() == {"sleep_quality": 0.3, "stress_proxy": 0.7, "hr_trend": "normal",
                               "recent_life_events_7d": ["moved house"]}
    request = Memory.request("a long walk", state=state)
    assert request.state is state
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.state.sleep_quality = 0.9   # type: ignore[misc]
    assert parse_state(state.to_dict()) == state
