"""UserState (ENGINE §4): the person's mood and body right now, parsed strictly from JSON."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.emotion.plutchik import EMOTIONS, to_vector
from core.errors import ValidationError, shown

HR_TRENDS = ("elevated_3d", "elevated_overnight", "normal", "lowered")
HRV_TRENDS = ("declining_3d", "stable", "rising")


@dataclass(frozen=True)
class UserState:
    mood_vector: dict[str, float] = field(default_factory=dict)
    sleep_quality: float | None = None
    sleep_hours: float | None = None
    hrv: float | None = None
    hr_trend: str | None = None
    hrv_trend: str | None = None
    stress_proxy: float | None = None
    recent_life_events_7d: tuple[str, ...] = ()
    snapshot_days_ago: float | None = None

    @property
    def mood(self) -> np.ndarray:
        return to_vector(self.mood_vector)

    def is_empty(self) -> bool:
        return self == UserState()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.mood_vector:
            out["mood_vector"] = dict(self.mood_vector)
        for name in ("sleep_quality", "sleep_hours", "hrv", "hr_trend", "hrv_trend",
                     "stress_proxy", "snapshot_days_ago"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if self.recent_life_events_7d:
            out["recent_life_events_7d"] = list(self.recent_life_events_7d)
        return out


def _number(data: dict[str, Any], name: str, low: float, high: float | None) -> float | None:
    if name not in data or data[name] is None:
        return None
    value = data[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):     # JSON's NaN and 1e400 pass the range check
        raise ValidationError(f"state: {name} must be a number, got {shown(value)}")
    if value < low or (high is not None and value > high):
        bound = f"{low:g}..{high:g}" if high is not None else f"≥ {low:g}"
        raise ValidationError(f"state: {name} must be {bound}, got {shown(value)}")
    return float(value)


def _choice(data: dict[str, Any], name: str, options: tuple[str, ...]) -> str | None:
    if name not in data or data[name] is None:
        return None
    value = data[name]
    if value not in options:
        raise ValidationError(f"state: {name} must be one of {', '.join(options)}, got {shown(value)}")
    return value


def parse_state(data: Any) -> UserState:
    """A UserState from decoded JSON; ValidationError naming the field for anything malformed."""
    if data is None:
        return UserState()
    if not isinstance(data, dict):
        raise ValidationError("state: must be a JSON object")
    known = {"mood_vector", "sleep_quality", "sleep_hours", "hrv", "hr_trend", "hrv_trend",
             "stress_proxy", "recent_life_events_7d", "snapshot_days_ago"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValidationError(f"state: unknown key {shown(unknown[0])} (known: {', '.join(sorted(known))})")
    mood_raw = data.get("mood_vector") or {}
    if not isinstance(mood_raw, dict):
        raise ValidationError("state: mood_vector must be an object {emotion: 0..1}")
    mood: dict[str, float] = {}
    for name, value in mood_raw.items():
        if name not in EMOTIONS:
            raise ValidationError(f"state: mood_vector has unknown emotion {shown(name)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise ValidationError(f"state: mood_vector.{name} must be a number in 0..1")
        mood[name] = float(value)
    events = data.get("recent_life_events_7d") or []
    if not isinstance(events, list) or not all(isinstance(e, str) for e in events):
        raise ValidationError("state: recent_life_events_7d must be a list of strings")
    return UserState(
        mood_vector=mood,
        sleep_quality=_number(data, "sleep_quality", 0, 1),
        sleep_hours=_number(data, "sleep_hours", 0, 24),
        hrv=_number(data, "hrv", 0, None),
        hr_trend=_choice(data, "hr_trend", HR_TRENDS),
        hrv_trend=_choice(data, "hrv_trend", HRV_TRENDS),
        stress_proxy=_number(data, "stress_proxy", 0, 1),
        recent_life_events_7d=tuple(events),
        snapshot_days_ago=_number(data, "snapshot_days_ago", 0, None),
    )


def parse_state_text(text: str, source: str = "state") -> UserState:
    try:
        data = json.loads(text) if text.strip() else None
    except ValueError as exc:
        raise ValidationError(f"{source}: not valid JSON ({exc})") from None
    return parse_state(data)
