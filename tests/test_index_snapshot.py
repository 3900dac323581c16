"""The index snapshot (core/scoring/snapshot.py, migration 011): a cold start reads the index's
arrays from the memory file and the change log since, and answers exactly as a full load;
a snapshot that does not match is ignored; another process's writes after it are seen;
closing a memory writes it only when it is stale; every erasure and redaction drops it, so no
value of an erased event survives in any byte of the files; an encrypted memory keeps it
encrypted."""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.memory import Memory
from core.scoring import index as index_module
from core.scoring import snapshot
from core.scoring.index import IndexCache, load_index
from core.store.commands import transaction
from tests.safe_bytes import memory_bytes
from tests.test_index_in_place import answers, live_rows

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(params=["float32", "int8"])
def representation(request, monkeypatch) -> str:
    """float32: the matrix in memory and in the snapshot; int8: codes only (a large index)."""
    if request.param == "int8":
        monkeypatch.setattr(index_module, "QUANTISE_ROWS", 0)
        monkeypatch.setattr(index_module, "FLOAT_ROWS", 0)
    return request.param


@pytest.fixture
def path(tmp_path, demo_db) -> Path:
    out = tmp_path / "memory.db"
    shutil.copy(demo_db, out)
    return out


def saved(path: Path) -> dict:
    """Open, load the index, write its snapshot, close; the snapshot's head."""
    with Memory.open(path) as memory:
        answers(memory, [{"query": "my father"}])
        out = memory.save_index_snapshot()
        assert out is not None and out["rows"] > 0
        return snapshot.head(memory.conn, memory.embedding_model)


def full_rows(path: Path) -> dict:
    with Memory.open(path, read_only=True) as memory:
        return live_rows(load_index(memory.conn, memory.embedding_model))


def event_ids(memory: Memory) -> list[int]:
    return [r[0] for r in memory.conn.execute(
        "SELECT id FROM events WHERE absorbed_into IS NULL AND archived = 0 ORDER BY id")]


def test_cold_load_from_the_snapshot_equals_a_full_load(path, representation) -> None:
    """Writes after the snapshot — a pin, an emotion, a new event, an edit, an archived
    hypothesis, a chain link — come from the log; the rows and the answers are a full load's."""
    saved(path)
    with Memory.open(path) as memory:
        ids = event_ids(memory)
        memory.pin(ids[3])
        memory.set_emotions(ids[7], {"fear": 0.7})
        memory.remember("My brother called from the station; we finally talked.",
                        "2026-10-20T09:00:00Z")
        memory.edit_event_text(ids[11], title="A changed title")
        memory.link_events(ids[1], ids[2])
        hypothesis = memory.conn.execute("SELECT id FROM events WHERE belief_class ="
                                         " 'hypothesis' ORDER BY id LIMIT 1").fetchone()
        if hypothesis:
            memory.dismiss_question(hypothesis[0])
    with Memory.open(path) as memory:
        cold = answers(memory)
        cache = memory.scorer._indexes
        assert (cache.snapshot_loads, cache.full_loads) == (1, 0)
        index = cache.get(memory.conn, memory.embedding_model)
        assert (index.codes is not None) == (representation == "int8")
        rows = live_rows(index)
        with transaction(memory.conn):
            snapshot.drop(memory.conn)
    assert rows == full_rows(path)
    with Memory.open(path) as memory:          # no snapshot now: a full load
        assert answers(memory) == cold
        assert memory.scorer._indexes.full_loads == 1


def _copy_snapshot(source: Path, target: Path, with_token: bool) -> None:
    with Memory.open(source, read_only=True) as a:
        rows = a.conn.execute("SELECT model, part, seq, data FROM index_snapshot").fetchall()
        token = a.meta("index_snapshot_token")
    with Memory.open(target) as b, transaction(b.conn):
        b.conn.execute("DELETE FROM index_snapshot")
        b.conn.executemany("INSERT INTO index_snapshot VALUES (?, ?, ?, ?)",
                           [tuple(r) for r in rows])
        if with_token:
            b.set_meta("index_snapshot_token", token)


def _edit_head(memory: Memory, change) -> None:
    model = memory.embedding_model
    head = snapshot.head(memory.conn, model)
    change(head)
    memory.conn.execute("UPDATE index_snapshot SET data = ? WHERE model = ? AND part = 'head'",
                        (json.dumps(head).encode(), model))


def _shorten_a_chunk(memory: Memory) -> None:
    """A chunk 8 bytes short whose checksum was updated to match: the size check catches it."""
    memory.conn.execute("UPDATE index_snapshot SET data = substr(data, 1, length(data) - 8)"
                        " WHERE part LIKE '%:ts_days' AND seq = 0")
    data = memory.conn.execute("SELECT data FROM index_snapshot WHERE part LIKE '%:ts_days'"
                               " AND seq = 0").fetchone()[0]
    import zlib

    _edit_head(memory, lambda h: h["crc"]["ts_days"].__setitem__(0, zlib.crc32(data)))


MISMATCHES = {
    "corrupt chunk": lambda m: m.conn.execute(
        "UPDATE index_snapshot SET data = randomblob(length(data))"
        " WHERE part LIKE '%:emotions'"),
    "short chunk": _shorten_a_chunk,
    "missing chunk": lambda m: m.conn.execute(
        "DELETE FROM index_snapshot WHERE part LIKE '%:floor'"),
    "other layout": lambda m: _edit_head(m, lambda h: h["layout"].pop("floor")),
    "other format": lambda m: _edit_head(m, lambda h: h.__setitem__("format", 99)),
    "pruned log": lambda m: m.conn.execute(
        "UPDATE pulse_meta SET value = (SELECT seq FROM sqlite_sequence WHERE name ="
        " 'index_changes') WHERE key = 'index_log_floor'"),
    "dimension": lambda m: m.conn.execute(
        "UPDATE event_embeddings SET dim = 128, vector = substr(vector, 1, 512)"),
}


@pytest.mark.parametrize("what", sorted(MISMATCHES))
def test_a_snapshot_that_does_not_match_is_ignored(path, representation, what,
                                                    monkeypatch) -> None:
    """Ignored, a full load instead; then the next close writes a good one."""
    saved(path)
    with Memory.open(path) as memory:
        memory.pin(event_ids(memory)[2])           # something for the log to carry
        with transaction(memory.conn):
            MISMATCHES[what](memory)
    with Memory.open(path, read_only=True) as memory:
        cache = IndexCache()
        index = cache.get(memory.conn, memory.embedding_model)
        assert (cache.snapshot_loads, cache.full_loads) == (0, 1)
        assert live_rows(index) == live_rows(load_index(memory.conn, memory.embedding_model))
        if what == "dimension":
            assert index.dim == 128
    monkeypatch.setattr(snapshot, "SNAPSHOT_ROWS", 1)
    with Memory.open(path) as memory:       # the snapshot did not serve it: close rewrites it
        memory.scorer.index()
        assert memory.scorer._indexes.full_loads == 1
    with Memory.open(path, read_only=True) as memory:
        cache = IndexCache()
        index = cache.get(memory.conn, memory.embedding_model)
        assert (cache.snapshot_loads, cache.full_loads) == (1, 0)
        assert live_rows(index) == live_rows(load_index(memory.conn, memory.embedding_model))


def test_a_snapshot_from_another_file_is_ignored(tmp_path, path, representation) -> None:
    """Snapshot rows copied into another memory (its token is not that file's) and a snapshot
    ahead of the memory's revision (an older copy of the file) are not used."""
    older = tmp_path / "older.db"
    shutil.copy(path, older)
    saved(path)
    with Memory.open(path) as memory:
        memory.pin(event_ids(memory)[4])
    saved(path)                                   # its revision is past the older copy's
    other = tmp_path / "other.db"
    shutil.copy(older, other)
    _copy_snapshot(path, other, with_token=False)
    _copy_snapshot(path, older, with_token=True)
    for target in (other, older):
        with Memory.open(target, read_only=True) as memory:
            assert snapshot.head(memory.conn, memory.embedding_model) is not None \
                or target == other
            cache = IndexCache()
            index = cache.get(memory.conn, memory.embedding_model)
            assert (cache.snapshot_loads, cache.full_loads) == (0, 1)
            assert live_rows(index) == live_rows(load_index(memory.conn,
                                                            memory.embedding_model))


def test_another_model_does_not_use_the_snapshot(path) -> None:
    """The snapshot is of one model: the index of another model (the memory switched models)
    loads in full."""
    saved(path)
    with Memory.open(path) as memory, transaction(memory.conn):
        memory.conn.execute("INSERT INTO event_embeddings (event_id, model, dim, vector, text_hash)"
                            " SELECT event_id, 'other-model', dim, vector, text_hash"
                            " FROM event_embeddings")
    with Memory.open(path, read_only=True) as memory:
        cache = IndexCache()
        index = cache.get(memory.conn, "other-model")
        assert (cache.snapshot_loads, cache.full_loads) == (0, 1)
        assert live_rows(index) == live_rows(load_index(memory.conn, "other-model"))
        assert cache.get(memory.conn, memory.embedding_model) is not index
        assert cache.snapshot_loads == 1


WRITER = """
import sys
from core.memory import Memory
with Memory.open(sys.argv[1]) as memory:
    memory.pin(int(sys.argv[2]))
    memory.set_emotions(int(sys.argv[3]), {"anger": 0.8})
    memory.remember("The harbour at dawn, and the ferry I almost missed. " + sys.argv[4],
                    "2026-10-22T07:00:00Z")
    memory.set_belief(int(sys.argv[2]) + 1, domain="fiction_content")
print("done")
"""


def _write_elsewhere(path: Path, memory: Memory, turn: int) -> None:
    ids = event_ids(memory)
    proc = subprocess.run([sys.executable, "-c", WRITER, str(path), str(ids[5 + turn]),
                           str(ids[9 + turn]), ["Cold wind.", "Then rain."][turn]],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_another_process_write_after_the_snapshot_is_seen(path, representation) -> None:
    """A second process writes after the snapshot: a cold start here reads the snapshot and
    those rows from the log; and while this process holds an index read from the snapshot,
    another write is read row by row. Both answer like a full load."""
    saved(path)
    with Memory.open(path) as memory:
        _write_elsewhere(path, memory, 0)
        first = answers(memory)
        cache = memory.scorer._indexes
        assert (cache.snapshot_loads, cache.full_loads) == (1, 0)
        _write_elsewhere(path, memory, 1)
        second = answers(memory)
        assert cache.refreshes >= 1 and (cache.snapshot_loads, cache.full_loads) == (1, 0)
        assert second != first
        rows = live_rows(cache.get(memory.conn, memory.embedding_model))
        with transaction(memory.conn):
            snapshot.drop(memory.conn)
    assert rows == full_rows(path)
    with Memory.open(path) as memory:
        assert answers(memory) == second
        assert memory.scorer._indexes.full_loads == 1


def test_close_writes_the_snapshot_only_when_it_is_stale(path, monkeypatch) -> None:
    """A small index is never snapshotted on close; a large one is when there is none, then
    not again until more than REWRITE_MIN events changed; a read-only memory never writes."""
    def head_rev() -> str | None:
        with Memory.open(path, read_only=True) as memory:
            found = snapshot.head(memory.conn, memory.embedding_model)
            return None if found is None else found["rev"]

    with Memory.open(path) as memory:
        answers(memory, [{"query": "work"}])
    assert head_rev() is None                      # below SNAPSHOT_ROWS
    monkeypatch.setattr(snapshot, "SNAPSHOT_ROWS", 1)
    monkeypatch.setattr(snapshot, "REWRITE_MIN", 2)
    monkeypatch.setattr(snapshot, "REWRITE_SHARE", 0.0)
    with Memory.open(path, read_only=True) as memory:
        answers(memory, [{"query": "work"}])
    assert head_rev() is None
    with Memory.open(path) as memory:
        memory.pin(event_ids(memory)[0])            # no index in memory: nothing to save
    assert head_rev() is None
    with Memory.open(path) as memory:
        answers(memory, [{"query": "work"}])
    first = head_rev()
    assert first is not None
    with Memory.open(path) as memory:
        ids = event_ids(memory)
        answers(memory, [{"query": "work"}])
        memory.pin(ids[1])
        memory.pin(ids[2])                          # two events changed: not yet stale
    assert head_rev() == first
    with Memory.open(path) as memory:
        answers(memory, [{"query": "work"}])
        assert memory.scorer._indexes.snapshot_loads == 1
        memory.pin(ids[3])                          # the third
    later = head_rev()
    assert later is not None and int(later) > int(first)


def _le_float(value: float) -> bytes:
    return struct.pack("<d", value)


def _strided(codes: np.ndarray, stride: int) -> bytes:
    """A regex for a row's codes as stored in a block of `stride` columns (kept transposed, a
    row is a column): any 6 consecutive codes at that stride. Windows, because a blob is cut
    into 4 KB pages (a page's next-page pointer breaks a longer run)."""
    gap = b"[\\x00-\\xff]{%d}" % (stride - 1)
    windows = [gap.join(re.escape(bytes([int(c) & 0xFF])) for c in codes[lo: lo + 6])
               for lo in range(0, codes.shape[0] - 6, 6)]
    return b"|".join(b"(?:%s)" % w for w in windows)


def _pieces(data: bytes) -> bytes:
    """A regex for any 16-byte window of `data` (every 64 bytes; see _strided)."""
    return b"|".join(re.escape(data[lo: lo + 16]) for lo in range(0, len(data) - 16, 64))


def _found(data: bytes, needles: dict[str, bytes]) -> list[str]:
    return [name for name, pattern in needles.items() if re.search(pattern, data)]


ODD = 0.9137   # an emotion value no other event has (values are kept to 4 decimals)


def test_erasure_drops_the_snapshot_from_every_byte(path, representation, monkeypatch) -> None:
    """An erased event's vector, int8 codes and emotion are in the snapshot before; after the
    erasure none of them is in the file or its -wal (memory open, and after it closes and
    writes a new snapshot without the event)."""
    monkeypatch.setattr(snapshot, "SNAPSHOT_ROWS", 1)
    with Memory.open(path) as memory:
        victim = event_ids(memory)[6]
        memory.set_emotions(victim, {"shame": ODD})
        answers(memory)
        memory.save_index_snapshot()
        index = memory.scorer._indexes.get(memory.conn, memory.embedding_model)
        n, pos = len(index), index.position(victim)
        vector = memory.conn.execute("SELECT vector FROM event_embeddings WHERE event_id = ?",
                                     (victim,)).fetchone()[0]
        needles = {"emotion": re.escape(_le_float(ODD))}
        if index.codes is not None:
            codes = index.codes.read(np.array([pos]))[0]
            needles |= {f"codes/{s}": _strided(codes, s) for s in (n, n - 1)}
        else:
            needles["vector"] = _pieces(bytes(vector))
        before = _found(memory_bytes(path), needles)
        assert "emotion" in before and (f"codes/{n}" in before or "vector" in before)
        out = memory.forget(f"event:{victim}")
        assert out["vacuumed"] and out["wal_truncated"]
        assert snapshot.head(memory.conn, memory.embedding_model) is None
        assert _found(memory_bytes(path), needles) == []
        answers(memory)                           # the index in memory no longer has it
    with Memory.open(path, read_only=True) as memory:   # close wrote a new snapshot
        found = snapshot.head(memory.conn, memory.embedding_model)
        assert found is not None and found["rows"] == n - 1
    assert _found(memory_bytes(path), needles) == []
    with Memory.open(path) as memory:
        cold = memory.scorer._indexes
        answers(memory)
        assert cold.snapshot_loads == 1
        assert memory.scorer.index().position(victim) is None


ERASE = """
import sys
from core.memory import Memory
with Memory.open(sys.argv[1]) as memory:
    out = memory.forget(f"event:{sys.argv[2]}")
print(out["vacuumed"])
"""


def test_an_erasure_while_the_snapshot_is_written_wins(path, monkeypatch) -> None:
    """The snapshot is written a chunk per transaction. Another process erases an event after
    the first chunks (its vector among them) are in: the write stops, no head names them, and
    neither the vector nor the emotion of the erased event is in any byte of the files."""
    with Memory.open(path) as memory:
        victim = event_ids(memory)[6]
        memory.set_emotions(victim, {"shame": ODD})
        answers(memory)
        index = memory.scorer.index()
        vector = bytes(index.matrix[index.position(victim)].tobytes())
        needles = {"vector": _pieces(vector), "emotion": re.escape(_le_float(ODD))}
        chunks, written = snapshot._chunks, []

        def erase_midway(index):
            for item in chunks(index):
                if item[0] == "scale":            # ids and matrix are in the file by now
                    written.extend(memory.conn.execute(
                        "SELECT part FROM index_snapshot").fetchall())
                    proc = subprocess.run([sys.executable, "-c", ERASE, str(path), str(victim)],
                                          cwd=ROOT, capture_output=True, text=True, timeout=300)
                    assert proc.returncode == 0, proc.stderr
                yield item

        monkeypatch.setattr(snapshot, "_chunks", erase_midway)
        assert memory.save_index_snapshot() is None
        assert any(str(p[0]).endswith(":matrix") for p in written)
        assert snapshot.head(memory.conn, memory.embedding_model) is None
        assert memory.conn.execute("SELECT COUNT(*) FROM index_snapshot").fetchone()[0] == 0
        assert _found(memory_bytes(path), needles) == []
        monkeypatch.setattr(snapshot, "_chunks", chunks)
        assert memory.save_index_snapshot() is not None      # from the index without it
        assert memory.scorer.index().position(victim) is None
    assert _found(memory_bytes(path), needles) == []


def test_a_redaction_drops_the_snapshot(path, monkeypatch) -> None:
    """A redact policy rewrites the events naming a person and replaces their vectors: the
    snapshot, which holds the old vectors, goes in the same step, and no piece of an old vector
    is left in the file or its -wal."""
    monkeypatch.setattr(snapshot, "SNAPSHOT_ROWS", 1)
    with Memory.open(path) as memory:
        person, event = memory.conn.execute(
            "SELECT n.id, e.id FROM entities n JOIN events e ON instr(e.title || ' ' ||"
            " e.description, n.canonical_name) > 0 WHERE n.kind = 'person'"
            " ORDER BY length(n.canonical_name) DESC, e.id LIMIT 1").fetchone()
        old = memory.conn.execute("SELECT vector FROM event_embeddings WHERE event_id = ?",
                                  (event,)).fetchone()[0]
        answers(memory)
        memory.save_index_snapshot()
        assert snapshot.head(memory.conn, memory.embedding_model) is not None
        needle = {"old vector": _pieces(bytes(old))}
        assert _found(memory_bytes(path), needle) == ["old vector"]
        memory.set_policy(person, "redact", label="[a friend]")
        assert memory.conn.execute("SELECT vector FROM event_embeddings WHERE event_id = ?",
                                   (event,)).fetchone()[0] != old
        assert snapshot.head(memory.conn, memory.embedding_model) is None
        assert memory.conn.execute("SELECT COUNT(*) FROM index_snapshot").fetchone()[0] == 0
        assert _found(memory_bytes(path), needle) == []
        answers(memory)
    with Memory.open(path, read_only=True) as memory:      # the close wrote a new one
        assert snapshot.head(memory.conn, memory.embedding_model) is not None
    assert _found(memory_bytes(path), needle) == []


def test_an_encrypted_memory_keeps_its_snapshot_encrypted(tmp_path, path, monkeypatch) -> None:
    """The snapshot is inside the file, so SQLCipher encrypts it: the odd emotion's bytes are in
    a plain memory's snapshot and in no byte of the encrypted one, which still loads from it."""
    monkeypatch.setattr(snapshot, "SNAPSHOT_ROWS", 1)
    with Memory.open(path) as memory:
        victim = event_ids(memory)[6]
        memory.set_emotions(victim, {"shame": ODD})
    secret = tmp_path / "secret.db"
    shutil.copy(path, secret)
    Memory.encrypt_file(secret, "correct horse battery")
    needle = {"emotion": re.escape(_le_float(ODD))}
    for target, passphrase in ((path, None), (secret, "correct horse battery")):
        with Memory.open(target, passphrase=passphrase) as memory:
            answers(memory, [{"query": "work"}])
        assert _found(memory_bytes(target), needle) == ([] if passphrase else ["emotion"])
        with Memory.open(target, passphrase=passphrase) as memory:
            answers(memory, [{"query": "work"}])
            assert memory.scorer._indexes.snapshot_loads == 1


@pytest.mark.parametrize("last_block_rows", [1, 5])
def test_a_snapshot_of_several_int8_blocks_is_read_block_by_block(path, monkeypatch,
                                                                   last_block_rows) -> None:
    """Blocks of a few rows (the shipped ones hold 16,384), the last one partly used — one row,
    or a few: every codes chunk passes its size check, so the cold start is the snapshot's,
    and it answers as a full load does."""
    from core.scoring import quantised

    monkeypatch.setattr(index_module, "QUANTISE_ROWS", 0)
    monkeypatch.setattr(index_module, "FLOAT_ROWS", 0)
    with Memory.open(path, read_only=True) as memory:
        rows = len(load_index(memory.conn, memory.embedding_model))
    block = next(b for b in range(16, rows) if rows % b == last_block_rows)
    monkeypatch.setattr(quantised, "BLOCK", block)
    monkeypatch.setattr(snapshot, "BLOCK", block)
    saved(path)
    with Memory.open(path) as memory:
        cold = answers(memory)
        cache = memory.scorer._indexes
        assert (cache.snapshot_loads, cache.full_loads) == (1, 0)
        index = cache.get(memory.conn, memory.embedding_model)
        assert len(index.codes.blocks) > rows // block >= 1     # capacity may hold spare ones
        with transaction(memory.conn):
            snapshot.drop(memory.conn)
    with Memory.open(path) as memory:          # no snapshot now: a full load
        assert answers(memory) == cold
        assert memory.scorer._indexes.full_loads == 1
