"""The in-memory vector index: one float32 matrix per embedding model plus the per-event columns
the scorer needs, loaded in one pass and reused until the memory changes.

Chosen over sqlite-vec by measurement (bench/vector_index.py): at 100,000 × 384 a brute-force
matrix product is several times faster than vec0's exact search, and it needs no SQLite
extension loading, which this platform's Python sqlite3 cannot do.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np

from core.beliefs import BELIEF_CLASSES, DOMAINS
from core.emotion.plutchik import EMOTIONS

CLASS_CODES = {name: i for i, name in enumerate(BELIEF_CLASSES)}
DOMAIN_CODES = {name: i for i, name in enumerate(DOMAINS)}


def iso_to_epoch_days(values: list[str]) -> np.ndarray:
    """ISO-8601 UTC strings ('…Z') → days since 1970 as float64."""
    if not values:
        return np.zeros(0, dtype=np.float64)
    stamps = np.array([v[:-1] if v.endswith("Z") else v for v in values], dtype="datetime64[s]")
    return stamps.astype(np.int64).astype(np.float64) / 86400.0


@dataclass
class EventIndex:
    model: str
    rev: str
    ids: np.ndarray          # int64, ascending
    matrix: np.ndarray       # float32 (n, dim), rows L2-normalised
    ts_days: np.ndarray      # float64
    class_code: np.ndarray   # int8 into BELIEF_CLASSES
    floor: np.ndarray        # float64
    user_flag: np.ndarray    # bool
    domain_code: np.ndarray  # int8 into DOMAINS
    emotions: np.ndarray     # float64 (n, 10); zeros when untagged

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    def rows_of(self, event_ids: np.ndarray) -> np.ndarray:
        """Row positions of ids (which must be present)."""
        return np.searchsorted(self.ids, event_ids)

    def position(self, event_id: int) -> int | None:
        pos = int(np.searchsorted(self.ids, event_id))
        if pos < len(self) and self.ids[pos] == event_id:
            return pos
        return None


def current_rev(conn: sqlite3.Connection) -> str:
    row = conn.execute("SELECT value FROM pulse_meta WHERE key = 'index_rev'").fetchone()
    return row[0] if row else "0"


def load_index(conn: sqlite3.Connection, model: str) -> EventIndex:
    rev = current_rev(conn)
    emotion_cols = ", ".join(f"COALESCE(m.{name}, 0)" for name in EMOTIONS)
    rows = conn.execute(
        f"SELECT e.id, e.ts, e.belief_class, e.confidence_floor, e.user_flag, e.domain, v.dim,"
        f" v.vector, {emotion_cols}"
        " FROM event_embeddings v JOIN events e ON e.id = v.event_id"
        " LEFT JOIN event_emotions m ON m.event_id = e.id"
        " WHERE v.model = ? AND e.absorbed_into IS NULL ORDER BY e.id", (model,)).fetchall()
    n = len(rows)
    dim = int(rows[0][6]) if rows else 0
    matrix = (np.frombuffer(b"".join(r[7] for r in rows), dtype=np.float32).reshape(n, dim)
              if n else np.zeros((0, 0), dtype=np.float32))
    return EventIndex(
        model=model,
        rev=rev,
        ids=np.fromiter((r[0] for r in rows), dtype=np.int64, count=n),
        matrix=matrix,
        ts_days=iso_to_epoch_days([r[1] for r in rows]),
        class_code=np.fromiter((CLASS_CODES[r[2]] for r in rows), dtype=np.int8, count=n),
        floor=np.fromiter((r[3] for r in rows), dtype=np.float64, count=n),
        user_flag=np.fromiter((bool(r[4]) for r in rows), dtype=bool, count=n),
        domain_code=np.fromiter((DOMAIN_CODES[r[5]] for r in rows), dtype=np.int8, count=n),
        emotions=(np.array([r[8:18] for r in rows], dtype=np.float64) if n
                  else np.zeros((0, len(EMOTIONS)))),
    )


class IndexCache:
    """Keeps the index of each model until `index_rev` in the database moves (a write here or
    in another process)."""

    def __init__(self) -> None:
        self._by_model: dict[str, EventIndex] = {}

    def get(self, conn: sqlite3.Connection, model: str) -> EventIndex:
        cached = self._by_model.get(model)
        if cached is not None and cached.rev == current_rev(conn):
            return cached
        index = load_index(conn, model)
        self._by_model[model] = index
        return index

    def clear(self) -> None:
        self._by_model.clear()
