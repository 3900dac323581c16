"""The in-memory vector index: one float32 matrix per embedding model plus the per-event columns
the scorer needs, loaded in one pass and reused until the memory changes.

Chosen over sqlite-vec by measurement (bench/vector_index.py): at 100,000 × 384 a brute-force
matrix product is several times faster than vec0's exact search, and it needs no SQLite
extension loading, which this platform's Python sqlite3 cannot do.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.beliefs import BELIEF_CLASSES, DOMAINS
from core.emotion.plutchik import EMOTIONS
from core.store.sqlite import sqlite3

CLASS_CODES = {name: i for i, name in enumerate(BELIEF_CLASSES)}
DOMAIN_CODES = {name: i for i, name in enumerate(DOMAINS)}


def iso_to_epoch_days(values: list[str]) -> np.ndarray:
    """ISO-8601 UTC strings ('…Z') → days since 1970 as float64."""
    if not values:
        return np.zeros(0, dtype=np.float64)
    stamps = np.array([v[:-1] if v.endswith("Z") else v for v in values], dtype="datetime64[s]")
    return stamps.astype(np.int64).astype(np.float64) / 86400.0


def _lenient_epoch_days(values: list[str]) -> np.ndarray:
    """Like iso_to_epoch_days, but a time it cannot read (an importer's odd format) is NaN."""
    try:
        return iso_to_epoch_days(values)
    except ValueError:
        return np.array([_one_day(v) for v in values], dtype=np.float64)


def _one_day(value: str) -> float:
    try:
        return float(iso_to_epoch_days([value])[0])
    except ValueError:
        return float("nan")


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
    # the conversational neighbours of each row (core.scoring.context): the row drawn from the
    # observation just before / after its own in the same source (-1: none), and the time gap
    prev_row: np.ndarray     # int64
    next_row: np.ndarray     # int64
    prev_gap_days: np.ndarray  # float64 (inf without a neighbour)
    next_gap_days: np.ndarray  # float64

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


_LOAD_BLOCK = 50_000


def load_index(conn: sqlite3.Connection, model: str) -> EventIndex:
    """Read every vector of `model` into preallocated arrays, a block of rows at a time, so the
    peak is one matrix and not a list of rows plus a joined copy (1M × 384 is 1.5 GB)."""
    rev = current_rev(conn)
    where = " WHERE v.model = ? AND e.absorbed_into IS NULL AND e.archived = 0"
    join = " FROM event_embeddings v JOIN events e ON e.id = v.event_id"
    n, dim = conn.execute(f"SELECT COUNT(*), MAX(v.dim){join}{where}", (model,)).fetchone()
    n, dim = int(n), int(dim or 0)
    ids = np.empty(n, dtype=np.int64)
    matrix = np.empty((n, dim), dtype=np.float32)
    ts_text: list[str] = []
    class_code = np.empty(n, dtype=np.int8)
    floor = np.empty(n, dtype=np.float64)
    user_flag = np.empty(n, dtype=bool)
    domain_code = np.empty(n, dtype=np.int8)
    emotions = np.zeros((n, len(EMOTIONS)), dtype=np.float64)
    emotion_cols = ", ".join(f"COALESCE(m.{name}, 0)" for name in EMOTIONS)
    obs_id = np.full(n, -1, dtype=np.int64)
    obs_kind: list[str] = []
    obs_time: list[str] = []
    cursor = conn.execute(
        f"SELECT e.id, e.ts, e.belief_class, e.confidence_floor, e.user_flag, e.domain, v.dim,"
        f" v.vector, {emotion_cols}, o.id, o.source_kind, COALESCE(o.observed_at, e.ts)"
        f"{join} LEFT JOIN event_emotions m ON m.event_id = e.id"
        f" LEFT JOIN observations o ON o.id = e.source_observation"
        f"{where} ORDER BY e.id", (model,))
    i = 0
    while True:
        block = cursor.fetchmany(_LOAD_BLOCK)
        if not block:
            break
        if i + len(block) > n:  # rows were added since the count: the next query reloads
            block = block[: n - i]
        for row in block:
            if row[6] != dim:
                raise ValueError(f"event {row[0]}: vectors of {model} have mixed dimensions")
            ids[i] = row[0]
            matrix[i] = np.frombuffer(row[7], dtype=np.float32)
            ts_text.append(row[1])
            class_code[i] = CLASS_CODES[row[2]]
            floor[i] = row[3]
            user_flag[i] = bool(row[4])
            domain_code[i] = DOMAIN_CODES[row[5]]
            emotions[i] = row[8:18]
            if row[18] is not None:
                obs_id[i] = row[18]
            obs_kind.append(row[19] or "")
            obs_time.append(row[20])
            i += 1
        if i >= n:
            break
    prev_row, next_row, prev_gap, next_gap = neighbours(obs_id[:i], obs_kind,
                                                        _lenient_epoch_days(obs_time))
    return EventIndex(
        model=model, rev=rev, ids=ids[:i], matrix=matrix[:i], ts_days=iso_to_epoch_days(ts_text),
        class_code=class_code[:i], floor=floor[:i], user_flag=user_flag[:i],
        domain_code=domain_code[:i], emotions=emotions[:i], prev_row=prev_row,
        next_row=next_row, prev_gap_days=prev_gap, next_gap_days=next_gap,
    )


def neighbours(obs_id: np.ndarray, kind: list[str], obs_days: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each row's conversational neighbours: rows ordered by (source kind, observation id) —
    the order things were said in — link to the next row of the same source kind, with the
    time between them. Rows of one observation (several events from one message) are
    neighbours at gap 0; rows without an observation have none."""
    n = obs_id.shape[0]
    prev_row = np.full(n, -1, dtype=np.int64)
    next_row = np.full(n, -1, dtype=np.int64)
    prev_gap = np.full(n, np.inf)
    next_gap = np.full(n, np.inf)
    if n < 2:
        return prev_row, next_row, prev_gap, next_gap
    kinds = {k: c for c, k in enumerate(sorted(set(kind)))}
    kind_code = np.array([kinds[k] for k in kind], dtype=np.int64)
    order = np.lexsort((np.arange(n), obs_id, kind_code))
    a, b = order[:-1], order[1:]
    linked = (kind_code[a] == kind_code[b]) & (obs_id[a] >= 0) & (obs_id[b] >= 0)
    a, b = a[linked], b[linked]
    gap = np.abs(obs_days[b] - obs_days[a])
    next_row[a], prev_row[b] = b, a
    next_gap[a], prev_gap[b] = gap, gap
    return prev_row, next_row, prev_gap, next_gap


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
