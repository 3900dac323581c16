"""The state channel (pulse): how closely an event's stored body and feeling match the person's
state now. A query such as "today was a good day" means little in words; what it means is the
body it comes from (rested, calm, high HRV) and the mood (joy). The events that were lived in
the same body and feeling are its answer, whatever their words.

    body_similarity = clip(1 − mean |query feature − event feature| / body_tolerance, 0, 1)
                      over the features both carry (at least body_min_features of them)
    mood_similarity = max(0, cos10(mood, event emotions))   (1 when the state has no mood)
    state_relevance = body_similarity × mood_similarity

Features, each on 0..1: stress_proxy, sleep_quality, HRV rescaled between body_hrv_low and
body_hrv_high, and the two trends (1 when elevated / declining, 0 otherwise). A trend or value
the event did not record is unknown, not 0. An event without biometrics borrows the body of
the nearest day that has them (within body_borrow_days; its similarity × body_borrow_weight):
biometrics describe days, not sentences. Events with neither score 0.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.scoring.index import iso_to_epoch_days
from core.scoring.settings import ScorerSettings
from core.scoring.state import UserState
from core.store.sqlite import sqlite3

FEATURES = ("stress_proxy", "sleep_quality", "hrv", "hr_elevated", "hrv_declining")


def reading(data: dict[str, Any], name: str) -> float:
    """A biometric reading as a float; NaN when absent, not a number, or too large for one."""
    value = data.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return np.nan
    try:
        return float(value)
    except OverflowError:      # an integer too large for a float: not recorded, in effect
        return np.nan


def features(data: dict[str, Any], settings: ScorerSettings) -> np.ndarray:
    """The body features of a biometrics dict or a state (NaN: not recorded)."""
    out = np.full(len(FEATURES), np.nan)
    out[0] = reading(data, "stress_proxy")
    out[1] = reading(data, "sleep_quality")
    hrv = reading(data, "hrv")
    span = settings.body_hrv_high - settings.body_hrv_low
    if not np.isnan(hrv) and span > 0:
        out[2] = min(1.0, max(0.0, (hrv - settings.body_hrv_low) / span))
    hr_trend, hrv_trend = data.get("hr_trend"), data.get("hrv_trend")
    if isinstance(hr_trend, str):
        out[3] = 1.0 if hr_trend.startswith("elevated") else 0.0
    if isinstance(hrv_trend, str):
        out[4] = 1.0 if hrv_trend == "declining_3d" else 0.0
    return out


def state_features(state: UserState, settings: ScorerSettings) -> np.ndarray | None:
    """The state's body features, or None when it carries too few to compare."""
    found = features(state.to_dict(), settings)
    return found if np.count_nonzero(~np.isnan(found)) >= settings.body_min_features else None


@dataclass
class BodyTable:
    """The events with a body (their own biometrics, or those borrowed from a nearby day), as
    index-independent arrays."""
    rev: str
    ids: np.ndarray          # int64 event ids
    features: np.ndarray     # float64 (n, len(FEATURES)), NaN where not recorded
    weight: np.ndarray       # float64: 1 for an event's own biometrics, body_borrow_weight
    #                          for a body borrowed from the nearest day that has one


def _own_bodies(conn: sqlite3.Connection, settings: ScorerSettings
                ) -> tuple[list[int], list[float], list[np.ndarray], list[tuple[int, float]]]:
    """(ids, days, features) of the events with biometrics, and (id, day) of those without."""
    rows = conn.execute("SELECT id, ts, biometrics FROM events ORDER BY id").fetchall()
    days = _days([r[1] for r in rows])
    ids, when, found, bare = [], [], [], []
    for (event_id, _ts, text), day in zip(rows, days.tolist()):
        data = None
        if text not in (None, "", "{}", "null"):
            try:
                data = json.loads(text)
            except ValueError:
                data = None
        if isinstance(data, dict):
            ids.append(int(event_id))
            when.append(day)
            found.append(features(data, settings))
        else:
            bare.append((int(event_id), day))
    return ids, when, found, bare


def _days(stamps: list[str]) -> np.ndarray:
    """Epoch days of ISO times; NaN for one that cannot be read (it borrows nothing)."""
    try:
        return iso_to_epoch_days(stamps)
    except ValueError:
        out = []
        for stamp in stamps:
            try:
                out.append(float(iso_to_epoch_days([stamp])[0]))
            except (ValueError, TypeError, AttributeError):
                out.append(np.nan)
        return np.array(out, dtype=np.float64)


def borrowed_bodies(days: np.ndarray, bare_days: np.ndarray, settings: ScorerSettings
                    ) -> np.ndarray:
    """For each event without biometrics (its day in bare_days), the row of days (the events
    with biometrics) nearest in time within body_borrow_days, or -1. Biometrics are a body over
    days (sleep, a 3-day HRV trend), so the moment written beside them was lived in it. Ties go
    to the earlier row."""
    out = np.full(bare_days.shape[0], -1, dtype=np.int64)
    if days.size == 0 or bare_days.size == 0 or settings.body_borrow_days <= 0:
        return out
    order = np.argsort(days, kind="stable")
    sorted_days = days[order]
    right = np.clip(np.searchsorted(sorted_days, bare_days), 0, sorted_days.size - 1)
    left = np.clip(right - 1, 0, sorted_days.size - 1)
    gap_left = np.abs(bare_days - sorted_days[left])
    gap_right = np.abs(sorted_days[right] - bare_days)
    pick = np.where(gap_left <= gap_right, left, right)
    gap = np.minimum(gap_left, gap_right)
    return np.where(gap <= settings.body_borrow_days, order[pick], -1)


class BodyCache:
    """Keeps the events' body features until the memory changes (its index revision)."""

    def __init__(self) -> None:
        self._table: BodyTable | None = None
        self._settings_key: tuple[float, ...] | None = None

    def get(self, conn: sqlite3.Connection, rev: str, settings: ScorerSettings) -> BodyTable:
        key = (settings.body_hrv_low, settings.body_hrv_high, settings.body_borrow_days,
               settings.body_borrow_weight)
        if self._table is not None and self._table.rev == rev and self._settings_key == key:
            return self._table
        ids, when, rows, bare = _own_bodies(conn, settings)
        matrix = np.array(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))
        weight = np.ones(len(ids))
        if bare:
            lender = borrowed_bodies(np.array(when), np.array([d for _, d in bare]), settings)
            took = lender >= 0
            ids = ids + [bare[i][0] for i in np.flatnonzero(took)]
            matrix = np.vstack([matrix, matrix[lender[took]]])
            weight = np.concatenate([weight, np.full(int(took.sum()), settings.body_borrow_weight)])
        order = np.argsort(np.array(ids, dtype=np.int64), kind="stable")
        self._table = BodyTable(rev, np.array(ids, dtype=np.int64)[order], matrix[order],
                                weight[order])
        self._settings_key = key
        return self._table


def body_similarity(query: np.ndarray, table: np.ndarray, settings: ScorerSettings
                    ) -> np.ndarray:
    """1 − mean absolute difference / tolerance over the shared features, clipped to 0..1;
    0 for rows sharing fewer than body_min_features features with the query."""
    if table.shape[0] == 0:
        return np.zeros(0)
    diff = np.abs(table - query)                 # NaN where either side is unknown
    shared = ~np.isnan(diff)
    count = shared.sum(axis=1)
    total = np.where(shared, diff, 0.0).sum(axis=1)
    mean = np.divide(total, count, out=np.ones(count.shape), where=count > 0)
    sims = np.clip(1.0 - mean / settings.body_tolerance, 0.0, 1.0)
    return np.where(count >= settings.body_min_features, sims, 0.0)


def mood_similarity(mood: np.ndarray, emotions: np.ndarray) -> np.ndarray:
    """max(0, cos10(mood, e)) per row; 1 everywhere when there is no mood; 0 for untagged rows."""
    if not mood.any():
        return np.ones(emotions.shape[0])
    norms = np.linalg.norm(emotions, axis=1) * np.linalg.norm(mood)
    dots = emotions @ mood
    return np.maximum(np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0), 0.0)
