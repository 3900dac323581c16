"""What the state gate (ENGINE §3, gates.state_fit) reads of each event, kept in memory beside
the vector index instead of read per candidate (a SELECT of the candidates' biometrics and
sentiment labels, then json.loads for each, on every query that carried a body state).

Only events with something the gate can use are held (biometrics as a JSON object, or a
sentiment label naming a depletion or restoration word), as sorted ids with one column per
input: hrv, sleep_quality and stress_proxy as float64 (NaN when absent or not a number, so a
comparison with it is false exactly as the gate's `is not None and …` is), and booleans for
the trends, the workout flag and the label's words. The thresholds stay in the settings, so
the comparisons are made per query, vectorised, with the same float64 values the gate compares
(tests/test_scoring_state.py and the formula tests check the factor to 1e-12).

Kept current by the change log (core/scoring/changelog.py): a write re-reads only the events
it changed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from core.scoring.changelog import RELOAD_SHARE, changes_since, current_rev
from core.scoring.settings import ScorerSettings
from core.scoring.signature import reading
from core.store.sqlite import sqlite3

_NUMBERS = ("hrv", "sleep_quality", "stress_proxy")
_FLAGS = ("hrv_declining", "hr_elevated", "workout", "label_depletion", "label_restoration")
_SELECT = "SELECT id, biometrics, sentiment_label FROM events"
_CHUNK = 500


def _inputs(bio_text: str | None, label: str | None) -> tuple[float, ...] | None:
    """One event's gate inputs (numbers, then flags), or None when it has none."""
    try:
        bio = json.loads(bio_text or "{}")
    except ValueError:
        bio = {}
    if not isinstance(bio, dict):
        bio = {}
    label = (label or "").lower()
    flags = (bio.get("hrv_trend") == "declining_3d",
             bio.get("hr_trend") in ("elevated_3d", "elevated_overnight"),
             bio.get("workout") is True,
             "burden" in label or "wound" in label,
             any(word in label for word in ("ship", "milestone", "repair")))
    numbers = tuple(reading(bio, name) for name in _NUMBERS)
    if not any(flags) and all(np.isnan(numbers)):
        return None
    return numbers + flags


@dataclass
class _Table:
    ids: np.ndarray           # int64, ascending
    numbers: np.ndarray       # float64 (n, 3): hrv, sleep_quality, stress_proxy
    flags: np.ndarray         # bool (n, 5), as _FLAGS

    @classmethod
    def of(cls, rows: list[tuple[int, tuple[float, ...]]]) -> _Table:
        rows = sorted(rows)
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        values = np.array([r[1] for r in rows], dtype=np.float64).reshape(len(rows), 8)
        return cls(ids, values[:, :3].copy(), values[:, 3:].astype(bool))


class StateFlags:
    """The gate inputs of a memory's events (see the module's text)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.rev = current_rev(conn)
        found = []
        for event_id, bio_text, label in conn.execute(
                f"{_SELECT} WHERE (biometrics IS NOT NULL AND biometrics NOT IN ('', '{{}}',"
                f" 'null')) OR (sentiment_label IS NOT NULL AND sentiment_label <> '')"):
            inputs = _inputs(bio_text, label)
            if inputs is not None:
                found.append((int(event_id), inputs))
        self._table = _Table.of(found)

    def __len__(self) -> int:
        return int(self._table.ids.shape[0])

    def refresh(self, conn: sqlite3.Connection, changed: set[int], rev: str) -> None:
        """Re-read the events in `changed` (whatever the change: gone ones simply leave)."""
        if changed:
            ids = sorted(changed)
            found = []
            for lo in range(0, len(ids), _CHUNK):
                part = ids[lo: lo + _CHUNK]
                for event_id, bio_text, label in conn.execute(
                        f"{_SELECT} WHERE id IN ({','.join('?' * len(part))})", part):
                    inputs = _inputs(bio_text, label)
                    if inputs is not None:
                        found.append((int(event_id), inputs))
            table, fresh = self._table, _Table.of(found)
            keep = ~np.isin(table.ids, np.array(ids, dtype=np.int64))
            merged = np.concatenate([table.ids[keep], fresh.ids])
            order = np.argsort(merged, kind="stable")
            self._table = _Table(merged[order],
                                 np.concatenate([table.numbers[keep], fresh.numbers])[order],
                                 np.concatenate([table.flags[keep], fresh.flags])[order])
        self.rev = rev

    def fits(self, ids: np.ndarray, body: str, linked: np.ndarray,
             settings: ScorerSettings) -> np.ndarray:
        """gates.state_fit for each event id (`linked`: it names an entity of the state's
        recent life events), as float64."""
        s, table = settings, self._table
        n = ids.shape[0]
        numbers = np.full((n, 3), np.nan)
        flags = np.zeros((n, 5), dtype=bool)
        if table.ids.size and n:
            at = np.minimum(np.searchsorted(table.ids, ids), table.ids.size - 1)
            held = table.ids[at] == ids
            numbers[held] = table.numbers[at[held]]
            flags[held] = table.flags[at[held]]
        hrv, sleep, stress = numbers[:, 0], numbers[:, 1], numbers[:, 2]
        declining, elevated, workout, label_depletion, label_restoration = flags.T
        with np.errstate(invalid="ignore"):
            if body == "stressed":
                opens = ((hrv < s.depletion_hrv_below) | (sleep <= s.depletion_sleep_max)
                         | (stress >= s.depletion_stress_min) | declining | elevated
                         | label_depletion)
            elif body == "restored":
                opens = ((hrv >= s.restoration_hrv_min)
                         | ((sleep >= s.restoration_sleep_min)
                            & (stress <= s.restoration_stress_max))
                         | workout | label_restoration)
            else:
                opens = np.zeros(n, dtype=bool)
        return np.where(opens, 1.0, np.where(linked, s.state_fit_entity, 0.0))


class StateFlagsCache:
    """The memory's StateFlags, read when a query first carries a body state and then kept
    current by the change log (rebuilt when the log cannot say what changed)."""

    def __init__(self) -> None:
        self._flags: StateFlags | None = None

    def get(self, conn: sqlite3.Connection) -> StateFlags:
        flags = self._flags
        if flags is not None:
            rev = current_rev(conn)
            if flags.rev == rev:
                return flags
            changes = changes_since(conn, flags.rev,
                                    limit=max(1000, int(RELOAD_SHARE * max(len(flags), 1))))
            if changes is not None:
                flags.refresh(conn, changes.rows, changes.rev)
                return flags
        self._flags = None
        self._flags = StateFlags(conn)
        return self._flags
