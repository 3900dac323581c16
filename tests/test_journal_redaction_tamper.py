"""A payload may differ from its payload_sha256 only where an erasure (or a policy) rewrote it,
and a later journal row says so with the rewritten payload's digest. Before this, any payload
edited through SQLite and given `"redacted": true` verified, and replayed the forged content."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from core.memory import Memory
from core.store import journal

CORPUS = {
    "format": "pulse-corpus/1",
    "entities": [{"key": "dana", "name": "Dana", "kind": "person"}],
    "events": [
        {"key": "e1", "title": "Coffee with Dana", "description": "Dana said the impostor "
         "voice is loud today.", "ts": "2026-10-01T10:00:00Z", "emotions": {"joy": 0.6},
         "entities": ["dana"]},
        {"key": "e2", "title": "Walk by the Zanzibar station", "ts": "2026-10-02T10:00:00Z",
         "emotions": {"trust": 0.4}, "entities": ["dana"]},
    ],
}


def pulse(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), *args],
                          capture_output=True, text=True, timeout=120)


def _sql(path: Path, statement: str, *params: object) -> None:
    conn = sqlite3.connect(path)
    conn.execute(statement, params)
    conn.commit()
    conn.close()


def _payload(path: Path, seq: int) -> dict:
    conn = sqlite3.connect(path)
    text = conn.execute("SELECT payload FROM journal WHERE seq = ?", (seq,)).fetchone()[0]
    conn.close()
    return json.loads(text)


def _set_payload(path: Path, seq: int, payload: dict) -> None:
    _sql(path, "UPDATE journal SET payload = ? WHERE seq = ?", journal.canonical_json(payload), seq)


@pytest.fixture
def memory_file(db_path: Path) -> Path:
    with Memory.open(db_path, create=True) as memory:
        memory.import_corpus(CORPUS)
    return db_path


def _seq_of(path: Path, op: str) -> int:
    conn = sqlite3.connect(path)
    seq = conn.execute("SELECT MIN(seq) FROM journal WHERE op = ? ", (op,)).fetchone()[0]
    conn.close()
    return int(seq)


def test_a_payload_edited_and_marked_redacted_is_reported(memory_file: Path) -> None:
    seq = _seq_of(memory_file, "event.add")
    forged = _payload(memory_file, seq)
    text = json.dumps(forged).replace("impostor voice", "kind voice")
    _set_payload(memory_file, seq, {**json.loads(text), "redacted": True})
    result = pulse(memory_file, "verify")
    assert result.returncode == 2, result.stdout
    assert f"row {seq}" in result.stdout and "redact" in result.stdout


def test_after_a_forget_the_journal_verifies_and_replays(memory_file: Path, tmp_path: Path
                                                         ) -> None:
    assert pulse(memory_file, "forget", "event:e2").returncode == 0
    assert pulse(memory_file, "verify").returncode == 0
    out, copy = tmp_path / "j.jsonl", tmp_path / "copy.db"
    assert pulse(memory_file, "journal", "export", str(out)).returncode == 0
    assert pulse(copy, "replay", str(out), "--db", str(copy)).returncode == 0
    result = pulse(copy, "verify")
    assert result.returncode == 0, result.stdout
    assert pulse(copy, "digest").stdout == pulse(memory_file, "digest").stdout


def test_an_edit_of_a_row_an_erasure_redacted_is_reported(memory_file: Path) -> None:
    assert pulse(memory_file, "forget", "event:e2").returncode == 0
    conn = sqlite3.connect(memory_file)
    seq = conn.execute("SELECT seq FROM journal WHERE payload LIKE '%\"redacted\":true%'"
                       " ORDER BY seq LIMIT 1").fetchone()[0]
    conn.close()
    forged = {**_payload(memory_file, seq), "changes": [
        {"t": "events", "a": "update", "pk": {"id": 1}, "set": {"title": "Forged"},
         "old": {"title": "Coffee with Dana"}}]}
    _set_payload(memory_file, seq, forged)
    result = pulse(memory_file, "verify")
    assert result.returncode == 2, result.stdout
    assert f"row {seq}" in result.stdout


def test_a_tampered_export_is_not_replayed(memory_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "j.jsonl"
    assert pulse(memory_file, "journal", "export", str(out)).returncode == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[1])
    row["payload"] = {**json.loads(json.dumps(row["payload"]).replace("impostor", "kind")),
                      "redacted": True}
    lines[1] = journal.canonical_json(row)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = pulse(tmp_path / "copy.db", "replay", str(out), "--db", str(tmp_path / "copy.db"))
    assert result.returncode == 1
    assert "does not verify" in result.stderr


def test_a_memory_redacted_before_the_digests_were_recorded_still_verifies(
        memory_file: Path) -> None:
    """A memory erased by an earlier Pulse has redacted rows that no later row vouches for:
    they verify as they did, and the next change vouches for them, so an edit after that shows."""
    _sql(memory_file, "DELETE FROM pulse_meta WHERE key = 'journal_redactions_vouched'")
    seq = _seq_of(memory_file, "event.add")
    old_style = {"redacted": True, "changes": [], "redacted_changes": 3}
    _set_payload(memory_file, seq, old_style)
    assert pulse(memory_file, "verify").returncode == 0
    assert pulse(memory_file, "set", "e1", "--floor", "0.2").returncode == 0
    assert pulse(memory_file, "verify").returncode == 0
    _set_payload(memory_file, seq, {**old_style, "redacted_changes": 2})
    assert pulse(memory_file, "verify").returncode == 2


def test_a_policy_that_rewrites_the_journal_verifies(memory_file: Path) -> None:
    result = pulse(memory_file, "policy", "dana", "--set", "redact", "--label", "[friend]")
    assert result.returncode == 0, result.stderr
    result = pulse(memory_file, "verify")
    assert result.returncode == 0, result.stdout


def test_vouches_survive_when_the_row_holding_them_is_redacted(memory_file: Path) -> None:
    """The row that vouches for older rewrites may itself be redacted later (here: the first
    change after an older Pulse's erasure carries the vouches, and is then erased with its
    event); its vouches hold no content and must stay, or the journal stops verifying."""
    _sql(memory_file, "DELETE FROM pulse_meta WHERE key = 'journal_redactions_vouched'")
    seq = _seq_of(memory_file, "observation.add")
    _set_payload(memory_file, seq, {"redacted": True, "changes": [], "redacted_changes": 1})
    assert pulse(memory_file, "set", "e2", "--floor", "0.2").returncode == 0
    conn = sqlite3.connect(memory_file)
    carrier = conn.execute("SELECT MAX(seq) FROM journal").fetchone()[0]
    conn.close()
    assert journal.VOUCHES in _payload(memory_file, carrier)
    assert pulse(memory_file, "forget", "event:e2").returncode == 0
    assert _payload(memory_file, carrier)["redacted"] is True
    result = pulse(memory_file, "verify")
    assert result.returncode == 0, result.stdout
