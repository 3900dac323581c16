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
the event did not record is unknown, not 0. Events without biometrics score 0.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.scoring.changelog import RELOAD_SHARE, changes_since, current_rev
from core.scoring.settings import ScorerSettings
from core.scoring.state import UserState
from core.store.sqlite import sqlite3

FEATURES = ("stress_proxy", "sleep_quality", "hrv", "hr_elevated", "hrv_declining")


def _value(data: dict[str, Any], name: str) -> float:
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
    out[0] = _value(data, "stress_proxy")
    out[1] = _value(data, "sleep_quality")
    hrv = _value(data, "hrv")
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
    """The events with biometrics, as index-independent arrays."""
    rev: str
    ids: np.ndarray          # int64 event ids
    features: np.ndarray     # float64 (n, len(FEATURES)), NaN where not recorded


class BodyCache:
    """Keeps the events' body features: read once, then, when the memory's revision moves, only
    the events the change log names are read again (all of them when it cannot say, or when
    the settings that scale the features change)."""

    def __init__(self) -> None:
        self._table: BodyTable | None = None
        self._settings_key: tuple[float, float] | None = None
        self._seen = "0"            # the change-log position the table reflects

    def get(self, conn: sqlite3.Connection, rev: str, settings: ScorerSettings) -> BodyTable:
        key = (settings.body_hrv_low, settings.body_hrv_high)
        table = self._table
        if table is not None and self._settings_key == key:
            if table.rev == rev:
                return table
            changes = changes_since(conn, self._seen,
                                    limit=max(1000, int(RELOAD_SHARE * max(table.ids.size, 1))))
            if changes is not None:
                self._table = _updated(conn, table, sorted(changes.rows), rev, settings)
                self._seen = changes.rev
                return self._table
        self._seen = current_rev(conn)   # read first: a write after it is read again later
        ids, rows = _read_features(conn, settings, "")
        self._table = BodyTable(rev, ids, rows)
        self._settings_key = key
        return self._table


_WITH_BODY = ("biometrics IS NOT NULL AND biometrics NOT IN ('', '{}', 'null')")


def _read_features(conn: sqlite3.Connection, settings: ScorerSettings, where: str,
                   params: Sequence[int] = ()) -> tuple[np.ndarray, np.ndarray]:
    ids, rows = [], []
    for event_id, text in conn.execute(
            f"SELECT id, biometrics FROM events WHERE {_WITH_BODY}{where} ORDER BY id", params):
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if isinstance(data, dict):
            ids.append(int(event_id))
            rows.append(features(data, settings))
    matrix = np.array(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))
    return np.array(ids, dtype=np.int64), matrix


def _updated(conn: sqlite3.Connection, table: BodyTable, changed: list[int], rev: str,
             settings: ScorerSettings) -> BodyTable:
    """The table with the changed events read again (gone ones leave), rows by id."""
    if not changed:
        return BodyTable(rev, table.ids, table.features)
    ids, rows = [np.zeros(0, dtype=np.int64)], [np.zeros((0, len(FEATURES)))]
    for lo in range(0, len(changed), 500):
        part = changed[lo: lo + 500]
        found = _read_features(conn, settings, f" AND id IN ({','.join('?' * len(part))})",
                               part)
        ids.append(found[0])
        rows.append(found[1])
    keep = ~np.isin(table.ids, np.array(changed, dtype=np.int64))
    merged = np.concatenate([table.ids[keep], *ids])
    order = np.argsort(merged, kind="stable")
    return BodyTable(rev, merged[order],
                     np.concatenate([table.features[keep], *rows])[order])


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
