"""A replay ends with the same id marks (migration 012) as the memory it copies. After an
erasure it did not: the erased rows' creation is stripped from the journal, so the replay never
made them, the tombstone's deletes found nothing, no trigger fired, and the replayed memory gave
the erased newest event's id to the next event (a held "event:N" named another moment there)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path


def pulse(db: Path, *args: str) -> dict:
    result = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), "--json", *args],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout) if result.stdout.strip() else {}


def _marks(db: Path) -> list[tuple[str, int]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT name, top FROM id_high_water ORDER BY name").fetchall()
    finally:
        conn.close()


def test_a_replay_after_an_erasure_keeps_the_erased_ids_taken(tmp_path: Path) -> None:
    original, copy = tmp_path / "m.db", tmp_path / "copy.db"
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([
        {"id": "m1", "speaker": "Nadia", "text": "Walked Biscuit by the harbour this morning.",
         "ts": "2026-10-01T09:00:00Z", "conversation": "c1"},
        {"id": "m2", "speaker": "Nadia", "text": "Lunch at the Zanzibar station with Mira.",
         "ts": "2026-10-02T12:00:00Z", "conversation": "c1"}]), encoding="utf-8")
    pulse(original, "import", str(chat), "--me", "Nadia")
    conn = sqlite3.connect(original)
    newest = conn.execute("SELECT MAX(id) FROM events").fetchone()[0]
    conn.close()
    pulse(original, "forget", f"event:{newest}")
    out = tmp_path / "j.jsonl"
    pulse(original, "journal", "export", str(out))
    pulse(copy, "replay", str(out), "--db", str(copy))
    assert _marks(copy) == _marks(original)
    more = tmp_path / "more.json"
    more.write_text(json.dumps([{"id": "m3", "speaker": "Nadia", "text": "Finished the "
                                 "bookshelf for the spare room.", "ts": "2026-10-03T18:00:00Z",
                                 "conversation": "c2"}]), encoding="utf-8")
    for db in (original, copy):
        pulse(db, "import", str(more), "--me", "Nadia")
        conn = sqlite3.connect(db)
        assert conn.execute("SELECT MIN(id) FROM events WHERE title LIKE '%bookshelf%'"
                            ).fetchone()[0] > newest
        conn.close()
