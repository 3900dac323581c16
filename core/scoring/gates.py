"""The v3 gates (ENGINE §3): each opens only on its own signal, otherwise its factor is 1."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from core.emotion.plutchik import EMOTIONS
from core.scoring.settings import ScorerSettings
from core.scoring.state import UserState

MOOD_HINTS: dict[str, str] = {
    "anger": "conflict navigation repair",
    "shame": "wound self-blame rejection origin",
    "fear": "threat anxiety uncertainty safety",
    "sadness": "loss grief depletion",
    "joy": "victory completion success",
    "trust": "safety bond closeness",
    "anticipation": "aliveness presence connection",
    "surprise": "unexpected new shift",
    "disgust": "rejection boundary violation",
    "guilt": "transgression repair agency",
}


def mood_hint(state: UserState, settings: ScorerSettings) -> tuple[str, str] | None:
    """(dominant emotion, hint words) when the mood's dominant emotion is strong enough."""
    mood = state.mood
    if not mood.any():
        return None
    index = int(np.argmax(mood))  # ties: the first in EMOTIONS order, so it is deterministic
    if mood[index] < settings.hint_gate:
        return None
    name = EMOTIONS[index]
    return name, MOOD_HINTS[name]


def emotion_gate_vector(state: UserState, query: str, settings: ScorerSettings
                        ) -> tuple[np.ndarray, str] | None:
    """The vector that opens the emotion gate (the mood, else the query's own emotion)."""
    mood = state.mood
    if mood.max(initial=0.0) >= settings.emotion_gate:
        return mood, "mood"
    from core.emotion import query_emotion  # the token-level lexicon, never substrings

    inferred = np.asarray(query_emotion(query), dtype=np.float64)
    if inferred.max(initial=0.0) >= settings.emotion_gate:
        return inferred, "query"
    return None


# -- body state -----------------------------------------------------------------------------

def body_state(state: UserState) -> str | None:
    stressed = (
        (state.stress_proxy is not None and state.stress_proxy >= 0.6)
        or (state.sleep_quality is not None and state.sleep_quality <= 0.4)
        or (state.hrv is not None and state.hrv < 55)
        or state.hr_trend in ("elevated_3d", "elevated_overnight")
        or state.hrv_trend == "declining_3d"
    )
    if stressed:
        return "stressed"
    restored = (state.stress_proxy is not None and state.stress_proxy <= 0.3
                and (state.sleep_quality is None or state.sleep_quality >= 0.7))
    return "restored" if restored else None


def _num(bio: dict[str, Any], name: str) -> float | None:
    value = bio.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def is_depletion(bio: dict[str, Any], label: str) -> bool:
    hrv, sleep, stress = _num(bio, "hrv"), _num(bio, "sleep_quality"), _num(bio, "stress_proxy")
    label = label.lower()
    return bool(
        (hrv is not None and hrv < 60) or (sleep is not None and sleep <= 0.4)
        or (stress is not None and stress >= 0.6)
        or bio.get("hrv_trend") == "declining_3d"
        or bio.get("hr_trend") in ("elevated_3d", "elevated_overnight")
        or "burden" in label or "wound" in label
    )


def is_restoration(bio: dict[str, Any], label: str) -> bool:
    hrv, sleep, stress = _num(bio, "hrv"), _num(bio, "sleep_quality"), _num(bio, "stress_proxy")
    label = label.lower()
    return bool(
        (hrv is not None and hrv >= 70)
        or (sleep is not None and sleep >= 0.7 and stress is not None and stress <= 0.3)
        or bio.get("workout") is True
        or any(word in label for word in ("ship", "milestone", "repair"))
    )


def state_fit(body: str, bio: dict[str, Any], label: str, names_linked_entity: bool,
              settings: ScorerSettings) -> float:
    if body == "stressed" and is_depletion(bio, label):
        return 1.0
    if body == "restored" and is_restoration(bio, label):
        return 1.0
    if names_linked_entity:
        return settings.state_fit_entity
    return 0.0


# -- dates ----------------------------------------------------------------------------------

# Longest phrases first, so "last week" is not read as "week"; whole words only.
_DATE_PHRASES: list[tuple[str, float]] = sorted([
    ("today", 0), ("yesterday", 1), ("this week", 3), ("recently", 3), ("last few days", 3),
    ("past few days", 3), ("last week", 10), ("this month", 15), ("last month", 40),
    ("сегодня", 0), ("вчера", 1), ("на этой неделе", 3), ("недавно", 3),
    ("последние несколько дней", 3), ("последние дни", 3), ("на прошлой неделе", 10),
    ("в этом месяце", 15), ("в прошлом месяце", 40),
], key=lambda item: -len(item[0]))
_DATE_PATTERN = re.compile(
    r"(?<!\w)(" + "|".join(re.escape(p) for p, _ in _DATE_PHRASES) + r")(?!\w)", re.IGNORECASE)
_DATE_DAYS = {p: d for p, d in _DATE_PHRASES}


def date_reference(query: str, state: UserState) -> float | None:
    if state.snapshot_days_ago is not None:
        return float(state.snapshot_days_ago)
    match = _DATE_PATTERN.search(query)
    if match is None:
        return None
    return float(_DATE_DAYS[match.group(1).lower()])


def date_proximity(days_ago: np.ndarray, reference: float) -> np.ndarray:
    gap = np.abs(days_ago - reference)
    return np.select([gap <= 1, gap <= 3, gap <= 7], [1.0, 0.7, 0.3], default=0.0)
