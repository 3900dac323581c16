"""The index snapshot (migration 011): the vector index's arrays kept inside the memory file, so
a cold start reads a few large blobs instead of every row through Python (1M events: ~26 s of
SQLite stepping, row tuples and quantising for a full load).

A snapshot is the index of one model as of a change-log revision: every column of
core/scoring/index.py's EventIndex (ids, days, classes, floors, emotions, neighbours, …), the
float32 matrix where the index keeps one, and the int8 codes, each cut in chunks of at most
CHUNK_BYTES, with a head (JSON) giving the revision, shapes and a CRC-32 of every chunk. A cold
load reads the chunks straight into the index's preallocated buffers (one chunk in flight, so
the peak stays the index's own size) and then applies the change log since that revision —
the same row-by-row refresh a running process does, which is proven equal to a fresh load.

A snapshot is ignored (and a full load happens) when it does not match: another format or
column layout, another dimension, a revision this file's log cannot continue from (pruned,
ahead of the memory, or a head whose token is not this file's), a short or corrupt chunk, or a
size at which a fresh load would hold the vectors differently.

It lives in the memory file, written through SQLite like everything else, so an encrypted memory
keeps it encrypted and no other file is ever opened. It holds no text, but it holds values of
every event (codes, times, emotions), so every erasure and redaction drops it (drop(), called by
core/trust/forget.py and core/privacy/apply.py inside their transaction, before the VACUUM).

When it is written (Memory.save_index_snapshot): when a memory is closed with a large index in
memory (≥ SNAPSHOT_ROWS rows) and the snapshot is missing, unusable, or more than
max(REWRITE_MIN, REWRITE_SHARE × rows) events changed since it; never in the middle of a query.
"""

from __future__ import annotations

import json
import secrets
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from core.errors import PulseError
from core.scoring import index as index_module
from core.scoring.changelog import RELOAD_SHARE, changes_since, current_rev
from core.scoring.index import EventIndex
from core.scoring.quantised import BLOCK
from core.store.commands import transaction
from core.store.sqlite import sqlite3

FORMAT = 1
CHUNK_BYTES = 16 << 20
# Indexes of at least this many rows are snapshotted (below it a full load takes < 1.5 s).
SNAPSHOT_ROWS = 50_000
# A snapshot is rewritten once more than this many events changed since it: each one is a row
# re-read at the next cold load (~0.15-0.2 ms), the rewrite costs seconds at 1M.
REWRITE_MIN = 2_000
REWRITE_SHARE = 0.02
_TOKEN_KEY = "index_snapshot_token"
_EPOCH_KEY = "index_snapshot_epoch"     # bumped by every drop() (erasure, redaction)


def layout(index: EventIndex) -> dict[str, list[Any]]:
    """What the arrays look like: {column: [dtype, row shape]}; a snapshot of another layout
    (a column added or changed since) is not used."""
    out: dict[str, list[Any]] = {}
    for name, buf in index._buf.items():
        out[name] = [buf.dtype.str, list(buf.shape[1:])]
    if index.codes is not None:
        out["codes"] = ["|i1", [index.dim, BLOCK]]
    return out


def _steps(index: EventIndex) -> dict[str, int]:
    """Rows per chunk of every part stored: each column with bytes per row, and the codes (one
    block of BLOCK rows per chunk)."""
    out = {}
    for name, buf in index._buf.items():
        row_bytes = buf.itemsize * int(np.prod(buf.shape[1:], dtype=np.int64))
        if row_bytes:                      # the matrix of an index keeping no float32 has none
            out[name] = max(1, CHUNK_BYTES // row_bytes)
    if index.codes is not None:
        out["codes"] = BLOCK
    return out


def _chunks(index: EventIndex) -> Iterator[tuple[str, int, memoryview]]:
    """(part, seq, bytes) of every array, rows 0..n-1 only: rows past n are spare capacity,
    where a removed row's old values may linger."""
    n = len(index)
    for name, step in _steps(index).items():
        for seq, lo in enumerate(range(0, n, step)):
            if name == "codes":
                part = index.codes.blocks[seq][:, : min(BLOCK, n - lo)]
            else:
                part = index._buf[name][lo: min(n, lo + step)]
            yield name, seq, memoryview(np.ascontiguousarray(part)).cast("B")


def fresh_like(index: EventIndex) -> bool:
    """Whether the index holds its vectors as a fresh load of as many rows would (int8 codes
    above QUANTISE_ROWS, float32 kept up to FLOAT_ROWS): an index that grew or shrank across
    a threshold while running is not snapshotted, nor is a snapshot used that would be."""
    n = len(index)
    quantised = n > index_module.QUANTISE_ROWS
    keep_float = n <= index_module.FLOAT_ROWS or not quantised
    return (index.codes is not None) == quantised and \
        (index._float_width == index.dim) == keep_float


def write(conn: sqlite3.Connection, current: Callable[[], EventIndex | None]
          ) -> dict[str, Any] | None:
    """Replace the snapshot with the index `current()` returns (called inside a write
    transaction, so it is brought to the memory's revision with no write in between):
    {"model", "rows", "rev", "bytes"}, or None when nothing was written — no index, one that
    does not hold its vectors as a fresh load would (fresh_like), or an erasure in between.

    The old snapshot's head goes first (from then on a cold start loads in full until the new
    head is in), then its chunks, one per transaction, so the new chunks reuse their pages and
    the file grows by one snapshot, not two. Each new chunk is its own short write transaction
    under a new generation, so other processes' writes go on between them; the head naming the
    generation is written last, with any other rows deleted, so a reader never sees a mix. An
    erasure bumps the epoch (drop()): a chunk is written only while the epoch is the one read
    with the index, so no value the erasure removed is written after it (the chunks written
    before it were deleted by its drop() and VACUUM)."""
    with transaction(conn):
        index = current()
        if index is None or not len(index) or not fresh_like(index):
            return None
        epoch = _epoch(conn)
        conn.execute("DELETE FROM index_snapshot WHERE part = 'head'")
    for (rowid,) in conn.execute("SELECT rowid FROM index_snapshot").fetchall():
        with transaction(conn):       # the old chunks first, so the new ones reuse their pages
            conn.execute("DELETE FROM index_snapshot WHERE rowid = ?", (rowid,))
    generation = secrets.token_hex(8)
    crcs: dict[str, list[int]] = {}
    size = 0
    done = False
    try:
        for part, seq, data in _chunks(index):
            with transaction(conn):
                if _epoch(conn) != epoch:
                    return None
                conn.execute("INSERT INTO index_snapshot (model, part, seq, data)"
                             " VALUES (?, ?, ?, ?)", (index.model, f"{generation}:{part}", seq,
                                                      data))
            crcs.setdefault(part, []).append(zlib.crc32(data))
            size += data.nbytes
        token = secrets.token_hex(16)
        head = {"format": FORMAT, "model": index.model, "dim": index.dim, "rows": len(index),
                "rev": index.rev, "token": token, "generation": generation,
                "quantised": index.codes is not None, "float_width": index._float_width,
                "layout": layout(index), "kind_codes": index.kind_codes, "crc": crcs}
        with transaction(conn):
            lo, hi = f"{generation}:", f"{generation};"
            mine = conn.execute("SELECT COUNT(*) FROM index_snapshot WHERE model = ? AND"
                                " part >= ? AND part < ?", (index.model, lo, hi)).fetchone()[0]
            if _epoch(conn) != epoch or mine != sum(len(c) for c in crcs.values()):
                return None           # erased in between, or another writer's flip took ours
            conn.execute("DELETE FROM index_snapshot WHERE NOT (model = ? AND part >= ?"
                         " AND part < ?)", (index.model, lo, hi))
            conn.execute("INSERT INTO index_snapshot (model, part, seq, data)"
                         " VALUES (?, 'head', 0, ?)",
                         (index.model, json.dumps(head, sort_keys=True).encode()))
            conn.execute("INSERT OR REPLACE INTO pulse_meta (key, value) VALUES (?, ?)",
                         (_TOKEN_KEY, token))
            done = True
    finally:
        if not done:
            _forget_generation(conn, index.model, generation)
    return {"model": index.model, "rows": len(index), "rev": index.rev, "bytes": size}


def _forget_generation(conn: sqlite3.Connection, model: str, generation: str) -> None:
    """Remove the chunks of an unfinished write (best effort: the next write or drop() removes
    whatever is left, and no head ever names them)."""
    try:
        with transaction(conn):
            conn.execute("DELETE FROM index_snapshot WHERE model = ? AND part >= ? AND part < ?",
                         (model, f"{generation}:", f"{generation};"))
    except (sqlite3.Error, PulseError):
        pass


def _epoch(conn: sqlite3.Connection) -> str:
    row = conn.execute("SELECT value FROM pulse_meta WHERE key = ?", (_EPOCH_KEY,)).fetchone()
    return "0" if row is None else str(row[0])


def drop(conn: sqlite3.Connection) -> int:
    """Remove every snapshot, and every chunk of one being written (erasure, redaction; inside
    the caller's transaction): returns how many chunks went. Bumps the epoch, so a write that
    read its index before this stops. The caller's connection has secure_delete on and
    compacts the file afterwards."""
    if not _has_table(conn):
        return 0
    gone = conn.execute("DELETE FROM index_snapshot").rowcount
    conn.execute("DELETE FROM pulse_meta WHERE key = ?", (_TOKEN_KEY,))
    conn.execute("INSERT OR REPLACE INTO pulse_meta (key, value) VALUES (?, ?)",
                 (_EPOCH_KEY, str(int(_epoch(conn)) + 1)))
    return max(gone, 0)


def head(conn: sqlite3.Connection, model: str) -> dict[str, Any] | None:
    """The snapshot's head if it belongs to this file (its token), else None."""
    if not _has_table(conn):
        return None
    row = conn.execute("SELECT data FROM index_snapshot WHERE model = ? AND part = 'head'"
                       " AND seq = 0", (model,)).fetchone()
    token = conn.execute("SELECT value FROM pulse_meta WHERE key = ?", (_TOKEN_KEY,)).fetchone()
    if row is None or token is None:
        return None
    try:
        out = json.loads(bytes(row[0]))
    except (ValueError, TypeError):
        return None
    if not isinstance(out, dict) or out.get("format") != FORMAT or out.get("token") != token[0] \
            or out.get("model") != model:
        return None
    return out


def changed_since(conn: sqlite3.Connection, rev: str) -> int | None:
    """How many events' rows changed after `rev` (None: the log cannot tell any more)."""
    floor = conn.execute("SELECT value FROM pulse_meta WHERE key = 'index_log_floor'").fetchone()
    if floor is None or int(rev) < int(floor[0]) or int(rev) > int(current_rev(conn)):
        return None
    return int(conn.execute("SELECT COUNT(DISTINCT event_id) FROM index_changes"
                            " WHERE seq > ? AND kind != 'chain'", (int(rev),)).fetchone()[0])


def is_stale(conn: sqlite3.Connection, model: str, rows: int) -> bool:
    """Whether an index of `rows` rows should be snapshotted now."""
    if rows < SNAPSHOT_ROWS or not _has_table(conn):
        return False
    found = head(conn, model)
    if found is None:
        return True
    changed = changed_since(conn, str(found["rev"]))
    return changed is None or changed > max(REWRITE_MIN, REWRITE_SHARE * rows)


def load(conn: sqlite3.Connection, model: str) -> EventIndex | None:
    """The index of `model` from its snapshot plus the change log since, or None when there is
    no usable snapshot (the caller then loads in full)."""
    found = head(conn, model)
    if found is None:
        return None
    try:
        return _load(conn, model, found)
    except (ValueError, KeyError, TypeError, IndexError):
        return None          # a chunk of the wrong size, a head that lies: load in full


def _load(conn: sqlite3.Connection, model: str, found: dict[str, Any]) -> EventIndex | None:
    rows, dim, rev = int(found["rows"]), int(found["dim"]), str(found["rev"])
    now = conn.execute("SELECT dim FROM event_embeddings WHERE model = ? LIMIT 1",
                       (model,)).fetchone()
    if now is None or int(now[0]) != dim or rows <= 0:
        return None
    if int(rev) > int(current_rev(conn)):
        return None                       # a revision this memory never reached
    changes = changes_since(conn, rev, limit=max(1000, int(RELOAD_SHARE * rows)))
    if changes is None:
        return None
    index = EventIndex(model, dim, capacity=rows + rows // 64 + 256, rev=rev,
                       quantised=bool(found["quantised"]),
                       keep_float=int(found["float_width"]) == dim, conn=conn)
    if layout(index) != found["layout"] or index._float_width != int(found["float_width"]):
        return None
    expected = {name: -(-rows // step) for name, step in _steps(index).items()}
    if {part: len(crcs) for part, crcs in found["crc"].items()} != expected:
        return None
    seen = {part: 0 for part in expected}
    generation = str(found["generation"])
    for named, seq, data in conn.execute(
            "SELECT part, seq, data FROM index_snapshot WHERE model = ? AND part >= ?"
            " AND part < ? ORDER BY part, seq", (model, f"{generation}:", f"{generation};")):
        part = named[len(generation) + 1:]
        if part not in expected or seq != seen[part] or seq >= expected[part] \
                or zlib.crc32(data) != found["crc"][part][seq]:
            return None
        _place(index, part, seq, data, rows)
        seen[part] += 1
    if seen != expected:
        return None
    index._n = rows
    index._views()
    index.kind_codes = {str(k): int(v) for k, v in found["kind_codes"].items()}
    index.text_rev = rev
    if not index.refresh(conn, changes):
        return None
    if not fresh_like(index):
        return None
    index.text_rev = index.rev
    return index


def _place(index: EventIndex, part: str, seq: int, data: bytes, rows: int) -> None:
    """Copy one chunk into the index's buffers (ValueError when its size is wrong)."""
    if part == "codes":
        lo = seq * BLOCK
        width = min(BLOCK, rows - lo)
        if width <= 0 or len(data) != index.dim * width:
            raise ValueError("codes chunk of the wrong size")
        index.codes.blocks[seq][:, :width] = np.frombuffer(data, np.int8).reshape(index.dim,
                                                                                  width)
        return
    buf = index._buf[part]
    step = _steps(index)[part]
    lo = seq * step
    hi = min(rows, lo + step)
    if hi <= lo or len(data) != (hi - lo) * buf.itemsize * int(np.prod(buf.shape[1:])):
        raise ValueError(f"{part} chunk of the wrong size")
    buf[lo:hi] = np.frombuffer(data, buf.dtype).reshape(hi - lo, *buf.shape[1:])


def _has_table(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table'"
                        " AND name = 'index_snapshot'").fetchone() is not None
