"""The in-memory vector index: one float32 matrix per embedding model plus the per-event columns
the scorer needs, loaded once and then kept current row by row.

Chosen over sqlite-vec by measurement (bench/vector_index.py): at 100,000 × 384 a brute-force
matrix product is several times faster than vec0's exact search, and it needs no SQLite
extension loading, which this platform's Python sqlite3 cannot do.

Updating in place: rows are kept in ascending event id. A write (here or in another process)
is seen through the change log (core/scoring/changelog.py): only the events it names are read
again. A changed event is overwritten in its row; a removed one (erased, absorbed, its vector
dropped) leaves; a new event with a larger id than any row is
appended into spare capacity; a returning old event (an undo) is shifted into its place.
Removed rows are compacted away at once (in place), so the rows are always those a fresh load
would read, in the same order: the results are bit for bit those of a fresh load (the property
test in tests/test_index_in_place.py). Only a log pruned past the index's revision, or more
changed events than a quarter of the rows, costs a full reload.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.beliefs import BELIEF_CLASSES, DOMAINS
from core.emotion.plutchik import EMOTIONS
from core.scoring.changelog import RELOAD_SHARE, Changes, changes_since, current_rev
from core.scoring.quantised import QuantisedRows, quantise

__all__ = ["CLASS_CODES", "DOMAIN_CODES", "EventIndex", "IndexCache", "current_rev",
           "iso_to_epoch_days", "load_index", "neighbours"]
from core.store.sqlite import sqlite3

CLASS_CODES = {name: i for i, name in enumerate(BELIEF_CLASSES)}
DOMAIN_CODES = {name: i for i, name in enumerate(DOMAINS)}


def iso_to_epoch_days(values: Sequence[str]) -> np.ndarray:
    """ISO-8601 UTC strings ('…Z') → days since 1970 as float64."""
    if not len(values):
        return np.zeros(0, dtype=np.float64)
    stamps = np.array([v[:-1] if v.endswith("Z") else v for v in values], dtype="datetime64[s]")
    return stamps.astype(np.int64).astype(np.float64) / 86400.0


def _lenient_epoch_days(values: Sequence[str]) -> np.ndarray:
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


# events drive the join (CROSS JOIN keeps them outer), so rows come in id order straight from
# the table: with the vectors outer, ORDER BY e.id sorted every row, blobs and all, in a temp
# B-tree (1.5 GB and most of the load time at 1M).
_EMOTION_COLS = ", ".join(f"COALESCE(m.{name}, 0)" for name in EMOTIONS)
_SELECT = (
    f"SELECT e.id, e.ts, e.belief_class, e.confidence_floor, e.user_flag, e.domain, v.dim,"
    f" v.vector, {_EMOTION_COLS}, o.id, o.source_kind, COALESCE(o.observed_at, e.ts)"
    f" FROM events e CROSS JOIN event_embeddings v ON v.event_id = e.id"
    f" LEFT JOIN event_emotions m ON m.event_id = e.id"
    f" LEFT JOIN observations o ON o.id = e.source_observation"
    f" WHERE v.model = ? AND e.absorbed_into IS NULL AND e.archived = 0")

# name → (dtype, shape of one row or None for the matrix, value of a fresh row)
_COLUMNS: dict[str, tuple[type, tuple[int, ...] | None, float]] = {
    "ids": (np.int64, (), 0),
    "matrix": (np.float32, None, 0),        # float32 vectors (no columns: not kept in memory)
    # a large index's int8 codes live in EventIndex.codes; per row its scale and the norms
    # that bound the first pass's error (core/scoring/quantised.py)
    "scale": (np.float64, (), 0),
    "vec_norm": (np.float64, (), 0),
    "err_norm": (np.float64, (), 0),
    "code_sum": (np.float64, (), 0),
    "ts_days": (np.float64, (), 0),
    "class_code": (np.int8, (), 0),         # into BELIEF_CLASSES
    "floor": (np.float64, (), 0),
    "user_flag": (bool, (), False),
    "domain_code": (np.int8, (), 0),        # into DOMAINS
    "emotions": (np.float64, (len(EMOTIONS),), 0),   # zeros when untagged (float64: exact factors)
    "live": (bool, (), True),               # False: the event left the index (a dead row)
    # the conversational source of each row (core.scoring.context): observation id (-1: none),
    # its source kind (a code into EventIndex.kind_codes) and its time
    "obs_id": (np.int64, (), -1),
    "obs_kind": (np.int32, (), 0),
    "obs_days": (np.float64, (), np.nan),
    # the row drawn from the observation just before / after its own in the same source
    # (-1: none), and the time gap
    "prev_row": (np.int64, (), -1),
    "next_row": (np.int64, (), -1),
    "prev_gap_days": (np.float64, (), np.inf),
    "next_gap_days": (np.float64, (), np.inf),
}
_READ_COLUMNS = ("ids", "matrix", "scale", "vec_norm", "err_norm", "code_sum",
                 "ts_days", "class_code", "floor", "user_flag", "domain_code",
                 "emotions", "obs_id", "obs_kind", "obs_days")
_COMPACT_CHUNK = 65_536
# Above QUANTISE_ROWS rows the first pass runs over int8 codes (exact re-score of the rows that
# matter, core/scoring/dense.py); below it the float32 product is exact and cheap. Up to
# FLOAT_ROWS rows the float32 vectors stay in memory for the re-score; above, the few rows a
# query needs are read from the memory file (1M × 384 float32 would be 1.5 GB).
QUANTISE_ROWS = 50_000
FLOAT_ROWS = 250_000


class EventIndex:
    """The index of one embedding model. Arrays are views of the first len(self) rows of larger
    buffers (spare capacity for new events). `live` is False only for a row being removed
    within refresh(); the scorer still masks by it, and position() does not find such rows."""

    ids: np.ndarray
    matrix: np.ndarray
    ts_days: np.ndarray
    class_code: np.ndarray
    floor: np.ndarray
    user_flag: np.ndarray
    domain_code: np.ndarray
    emotions: np.ndarray
    live: np.ndarray
    obs_id: np.ndarray
    obs_kind: np.ndarray
    obs_days: np.ndarray
    prev_row: np.ndarray
    next_row: np.ndarray
    prev_gap_days: np.ndarray
    next_gap_days: np.ndarray

    def __init__(self, model: str, dim: int, capacity: int = 0, rev: str = "0", *,
                 quantised: bool = False, keep_float: bool = True,
                 conn: sqlite3.Connection | None = None) -> None:
        self.model, self.dim = model, dim
        self.codes = QuantisedRows(dim, capacity) if quantised and dim else None
        self._float_width = dim if keep_float or self.codes is None else 0
        self._conn = conn         # reads the float32 vectors a query needs when not kept
        self.rev = rev            # the change-log revision the rows reflect
        self.text_rev = rev       # the last revision at which an event's words changed
        self.kind_codes: dict[str, int] = {}
        self._n = 0
        self._buf = {name: np.full(_shape(capacity, shape, self._float_width), fill,
                                   dtype=dtype)
                     for name, (dtype, shape, fill) in _COLUMNS.items()}
        self._views()

    def __len__(self) -> int:
        """Rows, dead ones included (the length of every array)."""
        return self._n

    @property
    def n_live(self) -> int:
        return int(np.count_nonzero(self.live))

    def _views(self) -> None:
        for name, buf in self._buf.items():
            setattr(self, name, buf[: self._n])

    def rows_of(self, event_ids: np.ndarray) -> np.ndarray:
        """Row positions of ids (which must be present)."""
        return np.searchsorted(self.ids, event_ids)

    def position(self, event_id: int) -> int | None:
        """The live row of an event, or None."""
        pos = self._slot(event_id)
        return pos if pos is not None and self.live[pos] else None

    def _slot(self, event_id: int) -> int | None:
        pos = int(np.searchsorted(self.ids, event_id))
        if pos < self._n and self.ids[pos] == event_id:
            return pos
        return None

    # -- filling ---------------------------------------------------------------------------

    def _reserve(self, rows: int) -> None:
        capacity = self._buf["ids"].shape[0]
        if self._n + rows <= capacity:
            return
        grown = max(self._n + rows, capacity + capacity // 4 + 256)
        for name, (dtype, shape, fill) in _COLUMNS.items():
            buf = np.full(_shape(grown, shape, self._float_width), fill, dtype=dtype)
            buf[: self._n] = self._buf[name][: self._n]
            self._buf[name] = buf
        if self.codes is not None:
            self.codes.reserve(grown)

    def _append(self, block: dict[str, np.ndarray]) -> None:
        m = block["ids"].shape[0]
        self._reserve(m)
        for name in _READ_COLUMNS:
            self._buf[name][self._n: self._n + m] = block[name]
        if self.codes is not None:
            self.codes.write_range(self._n, block["codes"])
        self._buf["live"][self._n: self._n + m] = True
        self._n += m
        self._views()

    def _read_block(self, rows: list[tuple]) -> dict[str, np.ndarray]:
        """Rows of _SELECT → one array per column, converted column-wise (no per-row numpy)."""
        cols = list(zip(*rows))
        if set(cols[6]) != {self.dim}:
            bad = next(r[0] for r in rows if r[6] != self.dim)
            raise ValueError(f"event {bad}: vectors of {self.model} have mixed dimensions")
        kinds = [self.kind_codes.setdefault(k or "", len(self.kind_codes)) for k in cols[19]]
        matrix = np.frombuffer(b"".join(cols[7]), dtype=np.float32).reshape(-1, self.dim)
        vectors: dict[str, np.ndarray] = {"matrix": matrix[:, : self._float_width]}
        zeros = np.zeros(matrix.shape[0], dtype=np.float64)
        if self.codes is not None:
            codes, scale, vec_norm, err_norm, code_sum = quantise(matrix)
            vectors |= {"codes": codes, "scale": scale, "vec_norm": vec_norm,
                        "err_norm": err_norm, "code_sum": code_sum}
        else:
            vectors |= {"scale": zeros, "vec_norm": zeros, "err_norm": zeros, "code_sum": zeros}
        return vectors | {
            "ids": np.array(cols[0], dtype=np.int64),
            "ts_days": iso_to_epoch_days(cols[1]),
            "class_code": np.array([CLASS_CODES[c] for c in cols[2]], dtype=np.int8),
            "floor": np.array(cols[3], dtype=np.float64),
            "user_flag": np.array(cols[4], dtype=bool),
            "domain_code": np.array([DOMAIN_CODES[d] for d in cols[5]], dtype=np.int8),
            "emotions": np.array(cols[8:18], dtype=np.float64).T,
            "obs_id": np.array([-1 if o is None else o for o in cols[18]], dtype=np.int64),
            "obs_kind": np.array(kinds, dtype=np.int32),
            "obs_days": _lenient_epoch_days(cols[20]),
        }

    # -- keeping current -------------------------------------------------------------------

    def refresh(self, conn: sqlite3.Connection, changes: Changes) -> bool:
        """Apply the changes read from the log: re-read the events they name. False when a
        full reload is needed instead (the index has no vectors yet, so no dimension)."""
        if not changes.rows:
            self.rev = changes.rev
            return True
        if self.dim == 0:
            return False     # no vectors yet: the first ones set the dimension
        wanted = sorted(changes.rows)
        fetched: list[tuple] = []
        for lo in range(0, len(wanted), 500):
            part = wanted[lo: lo + 500]
            fetched += conn.execute(f"{_SELECT} AND e.id IN ({','.join('?' * len(part))})",
                                    [self.model, *part]).fetchall()
        fetched.sort(key=lambda r: r[0])
        block = self._read_block(fetched) if fetched else None
        found = set() if block is None else set(block["ids"].tolist())
        relink = False
        for event_id in wanted:            # gone from the index: erased, absorbed, unembedded
            if event_id not in found:
                pos = self._slot(event_id)
                if pos is not None:
                    self.live[pos] = False
                    relink = True
        if relink:
            self._compact()
        if block is not None:
            slots = np.searchsorted(self.ids, block["ids"])
            present = self.ids[np.minimum(slots, self._n - 1)] == block["ids"] if self._n \
                else np.zeros(slots.shape[0], dtype=bool)
            if present.any():
                at = slots[present]
                source = (self.obs_id[at].copy(), self.obs_kind[at].copy(),
                          self.obs_days[at].copy())
                for name in _READ_COLUMNS:
                    self._buf[name][at] = block[name][present]
                if self.codes is not None:
                    self.codes.write(at, block["codes"][present])
                relink = relink or not (
                    np.array_equal(source[0], self.obs_id[at])
                    and np.array_equal(source[1], self.obs_kind[at])
                    and np.array_equal(source[2], self.obs_days[at], equal_nan=True))
            if not present.all():
                start = self._n
                appended = self._insert({name: rows[~present] for name, rows in block.items()})
                # new events said after everything of their source kind only extend its
                # chain (an import, `remember`): linked on their own, not by a lexsort of
                # every row (~150 ms at 1M); anything else relinks every row
                if relink or not appended or not self._link_appended(start):
                    relink = True
        if relink:
            self.relink()
        self.rev = changes.rev
        if changes.text:
            self.text_rev = changes.rev
        return True

    def _compact(self) -> None:
        """Drop dead rows in place, a chunk at a time (rows only move down, so no copy of the
        whole matrix is needed). Done at once, so the rows are always exactly the rows a fresh
        load would read, at the same positions: the matrix product then gives the same bits."""
        live = self.live.copy()
        out = 0
        for lo in range(0, self._n, _COMPACT_CHUNK):
            keep = np.flatnonzero(live[lo: lo + _COMPACT_CHUNK]) + lo
            for name in _COLUMNS:
                buf = self._buf[name]
                buf[out: out + keep.size] = buf[keep]
            if self.codes is not None:
                self.codes.write_range(out, self.codes.read(keep))
            out += keep.size
        self._n = out
        self._views()

    def _insert(self, block: dict[str, np.ndarray]) -> bool:
        """Place new rows (ids not in the index, ascending) at their sorted positions: appended
        when they follow every row (new events), else by shifting the rows after each one up
        in place, from the top down (an undo bringing an old event back)."""
        new_ids = block["ids"]
        if not self._n or int(new_ids[0]) > int(self.ids[-1]):
            self._append(block)
            return True
        k, n = new_ids.shape[0], self._n
        self._reserve(k)
        at = np.searchsorted(self.ids, new_ids)        # each new row goes before old row at[j]
        bounds = np.append(at, n)
        for j in range(k - 1, -1, -1):                 # segment [at[j], at[j+1]) moves up j+1
            lo, hi = int(bounds[j]), int(bounds[j + 1])
            for top in range(hi, lo, -_COMPACT_CHUNK):
                bottom = max(lo, top - _COMPACT_CHUNK)
                for name in _COLUMNS:
                    buf = self._buf[name]
                    buf[bottom + j + 1: top + j + 1] = buf[bottom:top].copy()
                if self.codes is not None:
                    self.codes.write_range(bottom + j + 1,
                                           self.codes.read(np.arange(bottom, top)))
            for name in _READ_COLUMNS:
                self._buf[name][lo + j] = block[name][j]
            if self.codes is not None:
                self.codes.write(np.array([lo + j]), block["codes"][j: j + 1])
            self._buf["live"][lo + j] = True
        self._n = n + k
        self._views()
        return False

    @property
    def keeps_float(self) -> bool:
        """Whether the float32 vectors are in memory (else read from the file when needed)."""
        return self._float_width == self.dim

    def sample_product(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """matrix[rows] @ query for a fixed row sample (the median's), the sample's vectors
        gathered once and kept until the rows change (a gather of 4,096 scattered rows cost
        more than the product)."""
        kept = getattr(self, "_sample", None)
        if kept is None or kept[0] != self.rev or not np.array_equal(kept[1], rows):
            kept = self._sample = (self.rev, rows.copy(), self.vectors(rows))
        return kept[2] @ query

    def vectors(self, rows: np.ndarray) -> np.ndarray:
        """The float32 vectors of rows (k × dim): kept in memory, or read from the memory."""
        rows = np.asarray(rows, dtype=np.int64)
        if self._float_width == self.dim:
            return self.matrix[rows]
        ids = self.ids[rows].tolist()
        found: dict[int, bytes] = {}
        for lo in range(0, len(ids), 500):
            part = ids[lo: lo + 500]
            found.update(self._conn.execute(
                f"SELECT event_id, vector FROM event_embeddings WHERE model = ? AND event_id IN"
                f" ({','.join('?' * len(part))})", [self.model, *part]).fetchall())
        return np.frombuffer(b"".join(found[i] for i in ids),
                             dtype=np.float32).reshape(-1, self.dim)

    def _link_appended(self, start: int) -> bool:
        """Link rows start.. (just appended; every row live) when, in each of their source
        kinds, they come after every older row in relink()'s order (source kind, observation,
        row): then only the old last row of that kind gains a next neighbour, and the result
        is relink()'s. False (nothing changed) when that does not hold."""
        self.prev_row[start:] = -1          # the buffers' spare rows may hold old values
        self.next_row[start:] = -1
        self.prev_gap_days[start:] = np.inf
        self.next_gap_days[start:] = np.inf
        new = np.arange(start, self._n)
        new = new[self.obs_id[new] >= 0]
        if new.size == 0:
            return True
        old_kind, old_obs = self.obs_kind[:start], self.obs_id[:start]
        tails = []
        for kind in np.unique(self.obs_kind[new]).tolist():
            mine = np.flatnonzero((old_kind == kind) & (old_obs >= 0))
            if mine.size == 0:
                continue
            last = int(old_obs[mine].max())
            if last > int(self.obs_id[new[self.obs_kind[new] == kind]].min()):
                return False
            tails.append(int(mine[old_obs[mine] == last][-1]))
        rows = np.concatenate([np.array(tails, dtype=np.int64), new])
        prev_row, next_row, prev_gap, next_gap = neighbours(
            self.obs_id[rows], self.obs_kind[rows], self.obs_days[rows])
        old = len(tails)
        self.next_row[rows[:old]] = np.where(next_row[:old] >= 0, rows[next_row[:old]], -1)
        self.next_gap_days[rows[:old]] = next_gap[:old]
        fresh = rows[old:]
        self.prev_row[fresh] = np.where(prev_row[old:] >= 0, rows[prev_row[old:]], -1)
        self.next_row[fresh] = np.where(next_row[old:] >= 0, rows[next_row[old:]], -1)
        self.prev_gap_days[fresh] = prev_gap[old:]
        self.next_gap_days[fresh] = next_gap[old:]
        return True

    def relink(self) -> None:
        """Recompute every live row's conversational neighbours."""
        rows = np.flatnonzero(self.live)
        prev_row, next_row, prev_gap, next_gap = neighbours(
            self.obs_id[rows], self.obs_kind[rows], self.obs_days[rows])
        self.prev_row[:] = -1
        self.next_row[:] = -1
        self.prev_gap_days[:] = np.inf
        self.next_gap_days[:] = np.inf
        self.prev_row[rows] = np.where(prev_row >= 0, rows[prev_row], -1)
        self.next_row[rows] = np.where(next_row >= 0, rows[next_row], -1)
        self.prev_gap_days[rows] = prev_gap
        self.next_gap_days[rows] = next_gap


def _shape(rows: int, shape: tuple[int, ...] | None, dim: int) -> tuple[int, ...]:
    return (rows, dim) if shape is None else (rows, *shape)


_LOAD_BLOCK = 16_384


def load_index(conn: sqlite3.Connection, model: str) -> EventIndex:
    """Read every vector of `model` into preallocated arrays, a block of rows at a time, so the
    peak is the index and not a list of rows plus a joined copy (1M × 384 float32 would be
    1.5 GB; int8 codes are 384 MB)."""
    rev = current_rev(conn)
    where = " WHERE v.model = ? AND e.absorbed_into IS NULL AND e.archived = 0"
    join = " FROM event_embeddings v JOIN events e ON e.id = v.event_id"
    n, dim = conn.execute(f"SELECT COUNT(*), MAX(v.dim){join}{where}", (model,)).fetchone()
    n, dim = int(n), int(dim or 0)
    index = EventIndex(model, dim, capacity=n + n // 64 + 256, rev=rev,
                       quantised=n > QUANTISE_ROWS, keep_float=n <= FLOAT_ROWS, conn=conn)
    cursor = conn.execute(f"{_SELECT} ORDER BY e.id", (model,))
    while True:
        block = cursor.fetchmany(_LOAD_BLOCK)
        if not block:
            break
        index._append(index._read_block(block))
    index.relink()
    return index


def neighbours(obs_id: np.ndarray, kind: np.ndarray, obs_days: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each row's conversational neighbours: rows ordered by (source kind, observation id) —
    the order things were said in — link to the next row of the same source kind, with the
    time between them. Rows of one observation (several events from one message) are
    neighbours at gap 0; rows without an observation have none. `kind` holds integer codes."""
    n = obs_id.shape[0]
    prev_row = np.full(n, -1, dtype=np.int64)
    next_row = np.full(n, -1, dtype=np.int64)
    prev_gap = np.full(n, np.inf)
    next_gap = np.full(n, np.inf)
    if n < 2:
        return prev_row, next_row, prev_gap, next_gap
    order = np.lexsort((np.arange(n), obs_id, kind))
    a, b = order[:-1], order[1:]
    linked = (kind[a] == kind[b]) & (obs_id[a] >= 0) & (obs_id[b] >= 0)
    a, b = a[linked], b[linked]
    gap = np.abs(obs_days[b] - obs_days[a])
    next_row[a], prev_row[b] = b, a
    next_gap[a], prev_gap[b] = gap, gap
    return prev_row, next_row, prev_gap, next_gap


class IndexCache:
    """Keeps the index of each model current: when the memory's revision moves (a write here or
    in another process) the changed rows are read again, not the whole index. A cold start
    reads the snapshot kept in the memory file, if there is a usable one, and the log since
    (core/scoring/snapshot.py); else it loads every row."""

    def __init__(self) -> None:
        self._by_model: dict[str, EventIndex] = {}
        self.full_loads = 0      # how the index was kept current (bench/index_update.py)
        self.snapshot_loads = 0
        self.refreshes = 0
        self.loaded_in_full: set[str] = set()    # models the file's snapshot could not serve
        self.snapshots = True    # False: a cold start always loads in full (benches compare)

    def get(self, conn: sqlite3.Connection, model: str) -> EventIndex:
        cached = self._by_model.get(model)
        if cached is not None:
            if cached.rev == current_rev(conn):
                return cached
            changes = changes_since(conn, cached.rev,
                                    limit=max(1000, int(RELOAD_SHARE * len(cached))))
            try:
                if changes is not None and cached.refresh(conn, changes):
                    self.refreshes += 1
                    return cached
            except BaseException:
                self._by_model.pop(model, None)
                raise
            del self._by_model[model], cached     # free the old matrix before reading anew
        from core.scoring import snapshot

        index = snapshot.load(conn, model) if self.snapshots else None
        if index is not None:
            self.snapshot_loads += 1
        else:
            index = load_index(conn, model)
            self.full_loads += 1
            self.loaded_in_full.add(model)
        self._by_model[model] = index
        return index

    def held(self, model: str) -> EventIndex | None:
        """The index of `model` this cache holds, as it is (possibly behind the memory)."""
        return self._by_model.get(model)

    def cached(self, conn: sqlite3.Connection, model: str) -> EventIndex | None:
        """The index of `model` brought to the memory's revision row by row, if this cache
        holds one and the log can tell what changed; None rather than a full load."""
        index = self._by_model.get(model)
        if index is None or index.rev == current_rev(conn):
            return index
        changes = changes_since(conn, index.rev, limit=max(1000, int(RELOAD_SHARE * len(index))))
        if changes is None:
            return None
        try:
            if index.refresh(conn, changes):
                self.refreshes += 1
                return index
        except BaseException:
            self._by_model.pop(model, None)
            raise
        return None

    def clear(self) -> None:
        self._by_model.clear()
