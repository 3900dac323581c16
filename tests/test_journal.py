"""The journal: every change writes one hash-chained row; verify finds every kind of tampering."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import InvariantError
from core.memory import Memory
from core.store import journal

TINY = {
    "format": "pulse-corpus/1",
    "entities": [{"key": "dana", "name": "Dana", "kind": "person"}],
    "events": [
        {"key": "e1", "title": "Coffee with Dana", "ts": "2026-10-01T10:00:00Z",
         "emotions": {"joy": 0.6}, "entities": ["dana"]},
        {"key": "e2", "title": "A long walk by the river", "ts": "2026-10-02T10:00:00Z",
         "emotions": {"trust": 0.4}},
        {"key": "e3", "title": "Argument about money", "ts": "2026-10-03T10:00:00Z",
         "emotions": {"anger": 0.7}, "parents": ["e1"]},
    ],
}


@pytest.fixture
def journaled(db_path: Path) -> Path:
    with Memory.open(db_path, create=True) as memory:
        memory.import_corpus(TINY)
        memory.set_belief("e2", confidence_floor=0.3)
        memory.pin("e3")
    return db_path


def pulse(db_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db_path), *args],
                          capture_output=True, text=True, timeout=60)


def test_every_change_is_journaled_in_a_chain(journaled: Path) -> None:
    with Memory.open(journaled) as memory:
        rows = journal.read_rows(memory.conn)
        assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
        assert rows[0]["prev"] is None
        for earlier, later in zip(rows, rows[1:]):
            assert later["prev"] == earlier["hash"]
        ops = [r["op"] for r in rows]
        assert ops[-2:] == ["event.set", "event.pin"]
        assert memory.verify() == []
    result = pulse(journaled, "verify")
    assert result.returncode == 0, result.stderr


def test_hash_covers_payload_digest_not_payload() -> None:
    payload = {"b": 1, "a": "é"}
    text = journal.canonical_json(payload)
    assert text == '{"a":"é","b":1}'
    body = {"seq": 1, "ts": "t", "actor": "manual", "op": "x", "subject": "s",
            "payload_sha256": journal.sha256_hex(text), "prev": None}
    assert journal.row_hash(1, "t", "manual", "x", "s", journal.sha256_hex(text), None) == \
        journal.sha256_hex(journal.canonical_json(body))


def _tamper(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


def _breaks(path: Path) -> list[journal.Break]:
    with Memory.open(path) as memory:
        return memory.verify()


def test_edited_payload_is_detected(journaled: Path) -> None:
    _tamper(journaled, "UPDATE journal SET payload = replace(payload, 'Coffee', 'Tea') WHERE seq = 3")
    breaks = _breaks(journaled)
    assert any(b.seq == 3 and "edited" in b.reason for b in breaks)
    result = pulse(journaled, "verify")
    assert result.returncode == 2
    assert "row 3" in result.stdout


def test_edited_metadata_is_detected(journaled: Path) -> None:
    _tamper(journaled, "UPDATE journal SET actor = 'manual' WHERE seq = 2")
    assert any(b.seq == 2 and "hash" in b.reason for b in _breaks(journaled))


def test_removed_row_is_detected(journaled: Path) -> None:
    _tamper(journaled, "DELETE FROM journal WHERE seq = 3")
    breaks = _breaks(journaled)
    assert any(b.seq == 4 and "removed" in b.reason for b in breaks)
    assert pulse(journaled, "verify").returncode == 2


def test_removed_last_row_is_detected(journaled: Path) -> None:
    _tamper(journaled, "DELETE FROM journal WHERE seq = (SELECT MAX(seq) FROM journal)")
    breaks = _breaks(journaled)
    assert any("removed at the end" in b.reason for b in breaks)


def test_reordered_rows_are_detected(journaled: Path) -> None:
    conn = sqlite3.connect(journaled)
    a = conn.execute("SELECT ts, actor, op, subject, payload, payload_sha256, prev, hash"
                     " FROM journal WHERE seq = 2").fetchone()
    b = conn.execute("SELECT ts, actor, op, subject, payload, payload_sha256, prev, hash"
                     " FROM journal WHERE seq = 3").fetchone()
    cols = "ts = ?, actor = ?, op = ?, subject = ?, payload = ?, payload_sha256 = ?, prev = ?, hash = ?"
    conn.execute(f"UPDATE journal SET {cols} WHERE seq = 2", b)
    conn.execute(f"UPDATE journal SET {cols} WHERE seq = 3", a)
    conn.commit()
    conn.close()
    breaks = _breaks(journaled)
    assert {b.seq for b in breaks} >= {2, 3}
    assert pulse(journaled, "verify").returncode == 2


def test_inserted_row_is_detected(journaled: Path) -> None:
    conn = sqlite3.connect(journaled)
    rows = conn.execute("SELECT seq FROM journal ORDER BY seq DESC").fetchall()
    # shift rows up to make room at seq 3, then insert a forged, self-consistent row there
    for (seq,) in rows:
        if seq >= 3:
            conn.execute("UPDATE journal SET seq = seq + 1 WHERE seq = ?", (seq,))
    prev = conn.execute("SELECT hash FROM journal WHERE seq = 2").fetchone()[0]
    payload = journal.canonical_json({"changes": []})
    sha = journal.sha256_hex(payload)
    digest = journal.row_hash(3, "2026-01-01T00:00:00Z", "manual", "forged", "", sha, prev)
    conn.execute("INSERT INTO journal VALUES (3, '2026-01-01T00:00:00Z', 'manual', 'forged', '',"
                 " ?, ?, ?, ?)", (payload, sha, prev, digest))
    conn.commit()
    conn.close()
    breaks = _breaks(journaled)
    assert any(b.seq == 4 for b in breaks)  # the genuine row after it no longer chains
    assert pulse(journaled, "verify").returncode == 2


def test_verify_json_output_names_rows(journaled: Path) -> None:
    _tamper(journaled, "UPDATE journal SET subject = 'event:99' WHERE seq = 5")
    result = pulse(journaled, "verify", "--json")
    assert result.returncode == 2
    data = json.loads(result.stdout)
    assert data["ok"] is False
    assert any(b["seq"] == 5 for b in data["breaks"])


def test_failed_change_writes_neither_row_nor_journal(journaled: Path) -> None:
    with Memory.open(journaled) as memory:
        head = journal.head(memory.conn)
        digest = memory.digest()
        with pytest.raises(InvariantError):
            memory.set_belief("e1", belief_class="axiom", confidence_floor=0.2, archivable=0)
        assert journal.head(memory.conn) == head
        assert memory.digest() == digest


def test_verify_counts_the_rows_there_are_not_the_head_seq(journaled: Path) -> None:
    """`rows` was the head's seq after row 2 was deleted, one more than the rows walked."""
    _tamper(journaled, "DELETE FROM journal WHERE seq = 2")
    conn = sqlite3.connect(journaled)
    there, head = conn.execute("SELECT COUNT(*), MAX(seq) FROM journal").fetchone()
    conn.close()
    result = pulse(journaled, "--json", "verify")
    assert result.returncode == 2
    assert json.loads(result.stdout)["rows"] == there == head - 1


def test_a_row_appended_behind_the_recorded_head_is_named_as_inserted(journaled: Path) -> None:
    """A whole valid row added at the end through SQLite was reported as "rows removed at the
    end", at the head's seq: it names the added row now."""
    conn = sqlite3.connect(journaled)
    seq, prev = conn.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
    payload = journal.canonical_json({"changes": []})
    digest = journal.sha256_hex(payload)
    ts = "2026-12-01T00:00:00.000000Z"
    conn.execute("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (seq + 1, ts, "manual", "event.set", "event:1", payload, digest, prev,
                  journal.row_hash(seq + 1, ts, "manual", "event.set", "event:1", digest, prev)))
    conn.commit()
    conn.close()
    [found] = _breaks(journaled)
    assert found.seq == seq + 1 and "added after" in found.reason
