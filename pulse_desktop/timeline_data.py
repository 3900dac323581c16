"""The timeline's data: one Dot per event (time, lane, dominant emotion, marks) read through
the open Memory, and the time conversions the canvas uses."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import datetime, timezone

from core.emotion.plutchik import EMOTIONS

DAY = 86400.0


@dataclass
class Dot:
    id: int
    t: float
    ts: str
    title: str
    key: str
    belief_class: str
    domain: str
    user_flag: bool
    pinned: bool
    emotion: str | None
    emotion_value: float
    weight: float
    jitter: float        # −1..1, stable per event: spreads dots vertically inside a lane


def parse_ts(text: str) -> float:
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.timestamp()


def iso(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


EVENTS_SQL = (
    "SELECT e.id, e.key, e.title, e.ts, e.belief_class, e.domain, e.user_flag, e.archivable,"
    " e.emotional_weight, " + ", ".join(f"m.{name}" for name in EMOTIONS)
    + " FROM events e LEFT JOIN event_emotions m ON m.event_id = e.id"
    " WHERE e.absorbed_into IS NULL AND e.archived = 0 ORDER BY e.ts, e.id")


def load_dots(conn) -> list[Dot]:
    return dots_from(conn.execute(EVENTS_SQL))


def read_dots(memory, cancel, send=None) -> list[Dot] | None:
    """load_dots in chunks, paced (run on the reader thread for a large memory,
    pulse_desktop/view_reads.py; send(rows) after each chunk counts the progress); None when
    cancelled."""
    from pulse_desktop.view_reads import chunks, paced

    dots: list[Dot] = []
    for rows in chunks(memory.conn.execute(EVENTS_SQL), cancel):
        dots += dots_from(paced(rows))
        if send is not None:
            send(rows)
    return None if cancel.is_set() else dots


def dots_from(rows) -> list[Dot]:
    dots = []
    for r in rows:
        try:
            t = parse_ts(r["ts"])
        except ValueError:
            continue
        values = [(name, r[name] or 0.0) for name in EMOTIONS]
        name, value = max(values, key=lambda x: x[1])
        jitter = (zlib.crc32(str(r["id"]).encode()) % 2001) / 1000.0 - 1.0
        dots.append(Dot(id=int(r["id"]), t=t, ts=r["ts"], title=r["title"], key=r["key"] or "",
                        belief_class=r["belief_class"], domain=r["domain"],
                        user_flag=bool(r["user_flag"]), pinned=not r["archivable"],
                        emotion=name if value >= 0.05 else None, emotion_value=float(value),
                        weight=float(r["emotional_weight"] or 0.0), jitter=jitter))
    return dots
