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
    if not settings.mood_hint or not mood.any():
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

def body_state(state: UserState, settings: ScorerSettings) -> str | None:
    s = settings
    stressed = (
        (state.stress_proxy is not None and state.stress_proxy >= s.stressed_stress_min)
        or (state.sleep_quality is not None and state.sleep_quality <= s.stressed_sleep_max)
        or (state.hrv is not None and state.hrv < s.stressed_hrv_below)
        or state.hr_trend in ("elevated_3d", "elevated_overnight")
        or state.hrv_trend == "declining_3d"
    )
    if stressed:
        return "stressed"
    restored = (state.stress_proxy is not None and state.stress_proxy <= s.restored_stress_max
                and (state.sleep_quality is None or state.sleep_quality >= s.restored_sleep_min))
    return "restored" if restored else None


def _num(bio: dict[str, Any], name: str) -> float | None:
    value = bio.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:      # an integer too large for a float (hand-written JSON): unusable
        return None


def is_depletion(bio: dict[str, Any], label: str, settings: ScorerSettings) -> bool:
    s = settings
    hrv, sleep, stress = _num(bio, "hrv"), _num(bio, "sleep_quality"), _num(bio, "stress_proxy")
    label = label.lower()
    return bool(
        (hrv is not None and hrv < s.depletion_hrv_below)
        or (sleep is not None and sleep <= s.depletion_sleep_max)
        or (stress is not None and stress >= s.depletion_stress_min)
        or bio.get("hrv_trend") == "declining_3d"
        or bio.get("hr_trend") in ("elevated_3d", "elevated_overnight")
        or "burden" in label or "wound" in label
    )


def is_restoration(bio: dict[str, Any], label: str, settings: ScorerSettings) -> bool:
    s = settings
    hrv, sleep, stress = _num(bio, "hrv"), _num(bio, "sleep_quality"), _num(bio, "stress_proxy")
    label = label.lower()
    return bool(
        (hrv is not None and hrv >= s.restoration_hrv_min)
        or (sleep is not None and sleep >= s.restoration_sleep_min and stress is not None
            and stress <= s.restoration_stress_max)
        or bio.get("workout") is True
        or any(word in label for word in ("ship", "milestone", "repair"))
    )


def state_fit(body: str, bio: dict[str, Any], label: str, names_linked_entity: bool,
              settings: ScorerSettings) -> float:
    if body == "stressed" and is_depletion(bio, label, settings):
        return 1.0
    if body == "restored" and is_restoration(bio, label, settings):
        return 1.0
    if names_linked_entity:
        return settings.state_fit_entity
    return 0.0


# -- dates ----------------------------------------------------------------------------------

def _date_pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    # longest phrases first, so "last week" is not read as "week"; whole words only
    ordered = sorted(phrases, key=lambda p: (-len(p), p))
    return re.compile(r"(?<!\w)(" + "|".join(re.escape(p) for p in ordered) + r")(?!\w)",
                      re.IGNORECASE)


_PATTERNS: dict[tuple[str, ...], re.Pattern[str]] = {}


def date_reference(query: str, state: UserState, settings: ScorerSettings) -> float | None:
    if state.snapshot_days_ago is not None:
        return float(state.snapshot_days_ago)
    phrases = tuple(sorted(settings.date_phrase_days))
    pattern = _PATTERNS.get(phrases)
    if pattern is None:
        pattern = _PATTERNS[phrases] = _date_pattern(phrases)
    match = pattern.search(query)
    if match is None:
        return None
    return float(settings.date_phrase_days[match.group(1).lower()])


def date_proximity(days_ago: np.ndarray, reference: float, settings: ScorerSettings
                   ) -> np.ndarray:
    gap = np.abs(days_ago - reference)
    s = settings
    return np.select([gap <= s.date_gap_exact, gap <= s.date_gap_near, gap <= s.date_gap_far],
                     [1.0, s.date_weight_near, s.date_weight_far], default=0.0)
