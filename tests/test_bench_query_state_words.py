"""bench/query_state_words.py (round 6 of the state channel) spells a query's state out in
plain words: the strongest feelings first, the body only at its far ends, and a query without
a state left exactly as it was."""

from __future__ import annotations

import sys
from pathlib import Path

from core.emotion.plutchik import EMOTIONS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import query_state_words as probe  # noqa: E402


def test_every_plutchik_emotion_has_words() -> None:
    assert set(probe.MOOD_WORDS) == set(EMOTIONS)


def test_feelings_come_strongest_first_and_weak_ones_are_left_out() -> None:
    query = {"query": "I miss her so much",
             "state": {"mood_vector": {"guilt": 0.5, "sadness": 0.9, "joy": 0.2}}}
    assert probe.spelled_out(query, with_body=False, cut=0.4) == \
        "I miss her so much (feeling sad, grieving, guilty)"
    assert probe.spelled_out(query, with_body=False, cut=0.6) == \
        "I miss her so much (feeling sad, grieving)"


def test_the_body_speaks_only_at_its_far_ends() -> None:
    depleted = {"stress_proxy": 0.85, "sleep_quality": 0.25}
    restored = {"stress_proxy": 0.2, "sleep_quality": 0.85}
    middling = {"stress_proxy": 0.5, "sleep_quality": 0.5, "hrv": 60}
    assert probe.body_words(depleted) == ["stressed", "sleepless, exhausted"]
    assert probe.body_words(restored) == ["relaxed", "well rested"]
    assert probe.body_words(middling) == []
    # an unrecorded signal says nothing (not "0 stress, 0 sleep")
    assert probe.body_words({}) == []
    query = {"query": "a really good ride today", "state": {"mood_vector": {}, **restored}}
    assert probe.spelled_out(query, with_body=True, cut=0.4) == \
        "a really good ride today (feeling relaxed, well rested)"


def test_a_query_with_nothing_to_say_is_unchanged() -> None:
    assert probe.spelled_out({"query": "the lake"}, with_body=True, cut=0.4) == "the lake"
    weak = {"query": "fine", "state": {"mood_vector": {"joy": 0.1}, "stress_proxy": 0.5}}
    assert probe.spelled_out(weak, with_body=True, cut=0.4) == "fine"
