"""Archival candidates: old, low-salience operational events. A proposal, never automatic.

A candidate is live, archivable (never an axiom or a pinned row), operational, not an anchor
(user_flag), without a confidence floor, in no chain and not a distilled pattern, at least
`archive_after_days` old, and its salience — the brief's: recency (operational decay) times
emotional weight — is below `archive_below`. Events once proposed are not proposed again.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from core.beliefs import DECAY_PER_DAY
from core.scoring.index import iso_to_epoch_days
from core.store.sqlite import sqlite3

WEIGHT_FLOOR = 0.05     # as the brief: an event without emotions still weighs a little


def salience(days_old: float, emotional_weight: float) -> float:
    return math.exp(-DECAY_PER_DAY["operational"] * days_old) * max(emotional_weight,
                                                                    WEIGHT_FLOOR)


def candidates(conn: sqlite3.Connection, now: datetime, *, after_days: float, below: float
               ) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT id, ts, emotional_weight FROM events e WHERE absorbed_into IS NULL"
        " AND archived = 0 AND archivable = 1 AND belief_class = 'operational'"
        " AND user_flag = 0 AND confidence_floor = 0 AND provenance <> 'memory_pattern'"
        " AND NOT EXISTS (SELECT 1 FROM event_chains c WHERE c.parent_id = e.id"
        " OR c.child_id = e.id)"
        " AND NOT EXISTS (SELECT 1 FROM upkeep_proposals p WHERE p.kind = 'archive'"
        " AND p.event_id = e.id) ORDER BY ts, id").fetchall()
    if not rows:
        return []
    now_days = now.timestamp() / 86400.0
    days = iso_to_epoch_days([r["ts"] for r in rows])
    out = []
    for row, day in zip(rows, days):
        age = now_days - float(day)
        if age < after_days:
            continue
        value = salience(age, float(row["emotional_weight"]))
        if value < below:
            out.append({"kind": "archive", "event_id": int(row["id"]), "keep_event": None,
                        "score": value,
                        "reason": f"{age:.0f} days old, salience {value:.3f} < {below:g}"})
    return out
