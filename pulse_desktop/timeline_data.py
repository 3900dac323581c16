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
    return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


EVENTS_SQL = (
    "SELECT e.id, e.key, e.title, e.ts, e.belief_class, e.domain, e.user_flag, e.archivable,"
    " e.emotional_weight, " + ", ".join(f"m.{name}" for name in EMOTIONS)
    + " FROM events e LEFT JOIN event_emotions m ON m.event_id = e.id"
    " WHERE e.absorbed_into IS NULL AND e.archived = 0 ORDER BY e.ts, e.id")


def dots_of(conn, ids: list[int]) -> list[Dot]:
    """The dots of these events only (an edit's rows; archived and absorbed ones have none)."""
    out: list[Dot] = []
    for lo in range(0, len(ids), 500):
        chunk = ids[lo:lo + 500]
        sql = EVENTS_SQL.replace(" ORDER BY", f" AND e.id IN ({','.join('?' * len(chunk))})"
                                 " ORDER BY")
        out += dots_from(conn.execute(sql, chunk))
    return out


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
    """One Dot per row of EVENTS_SQL (by position: 100k rows are read this way when the
    timeline first shows a large memory, on the reader thread)."""
    dots = []
    append, crc32, names = dots.append, zlib.crc32, EMOTIONS
    first = 9                           # the emotions' columns follow emotional_weight
    last = first + len(EMOTIONS)
    for r in rows:
        try:
            t = parse_ts(r[3])
        except ValueError:
            continue
        values = [v or 0.0 for v in tuple(r)[first:last]]
        value = max(values)
        event_id = int(r[0])
        append(Dot(event_id, t, r[3], r[2], r[1] or "", r[4], r[5], bool(r[6]), not r[7],
                   names[values.index(value)] if value >= 0.05 else None, float(value),
                   float(r[8] or 0.0), (crc32(str(event_id).encode()) % 2001) / 1000.0 - 1.0))
    return dots
