"""Erasure (JOURNAL §1): the text is gone from every table, the journal payloads and the file's
bytes (.db, -wal, -shm); the chain still verifies; a replay of the export matches."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import PulseError
from core.memory import Memory
from core.trust.forget import forget
from core.trust.replay import export_journal, replay
from tests.safe_bytes import memory_bytes

SECRET = "Zanzibarquokka"
SECRET_DESC = "the quokkaflute recital nobody may know about"
ENTITY_NAME = "Ottoline Vexhammer"

CORPUS = {
    "format": "pulse-corpus/1",
    "entities": [{"key": "ann", "name": "Ann", "kind": "person"},
                 {"key": "ott", "name": ENTITY_NAME, "kind": "person",
                  "aliases": ["Vexhammer the Elder"]}],
    "relations": [{"from": "ann", "to": "ott", "kind": "friend"}],
    "events": [
        {"key": "e1", "title": "Moved house", "description": "Boxes everywhere.",
         "ts": "2025-01-01", "entities": ["ann"]},
        {"key": "e2", "title": f"{SECRET} evening", "description": SECRET_DESC,
         "ts": "2025-02-01", "entities": ["ann"], "parents": ["e1"],
         "emotions": {"shame": 0.9}},
        {"key": "e3", "title": "Aftermath", "description": "Ann slept badly.",
         "ts": "2025-02-02", "parents": ["e2"]},
        {"key": "e4", "title": "Coffee with a friend", "description": "Long talk.",
         "ts": "2025-03-01", "entities": ["ott"]},
    ],
    "facts": [{"entity": "ott", "text": "Ottoline keeps bees on the roof", "confidence": 0.8}],
}


@pytest.fixture
def mem(memory: Memory) -> Memory:
    memory.import_corpus(CORPUS)
    memory.set_belief("e2", belief_class="user_model")
    return memory


def file_bytes(path: Path) -> bytes:
    return memory_bytes(path)   # read in a child process: the test holds the memory open


def traces(memory: Memory, needle: str) -> list[str]:
    """Every table (FTS internals included) and journal payload that still holds `needle`."""
    conn = memory.conn
    found = []
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    for table in tables:
        for row in conn.execute(f"SELECT * FROM {table}"):
            for value in tuple(row):
                if isinstance(value, str) and needle.lower() in value.lower():
                    found.append(table)
                elif isinstance(value, bytes) and needle.lower().encode() in value.lower():
                    found.append(table)
    return sorted(set(found))


@pytest.mark.parametrize("ref", ["event:e2", "observation:OBS"])
def test_forget_event_leaves_no_trace(mem: Memory, db_path: Path, tmp_path: Path, ref: str) -> None:
    assert SECRET.encode() in file_bytes(db_path)
    if ref == "observation:OBS":
        obs = mem.event("e2")["source_observation"]
        ref = f"observation:{obs}"
    out = forget(mem, ref)
    assert out["vacuumed"]
    # bytes on disk, with the connection still open (WAL and SHM present) and after closing
    for needle in (SECRET, "quokkaflute", SECRET.lower()):
        assert needle.encode() not in file_bytes(db_path)
        assert traces(mem, needle) == []
    assert mem.verify() == []
    assert mem.conn.execute("SELECT COUNT(*) FROM events WHERE key = 'e2'").fetchone()[0] == 0
    # what stays, stays: e1, e3 (its link to e2 is gone), Ann
    keys = {r[0] for r in mem.conn.execute("SELECT key FROM events")}
    assert keys == {"e1", "e3", "e4"}
    assert mem.conn.execute("SELECT COUNT(*) FROM event_chains").fetchone()[0] == 0
    # FTS no longer finds it, and still finds the rest
    assert mem.conn.execute("SELECT COUNT(*) FROM events_fts WHERE events_fts MATCH ?",
                            (SECRET,)).fetchone()[0] == 0
    assert mem.conn.execute("SELECT COUNT(*) FROM events_fts WHERE events_fts MATCH 'boxes'"
                            ).fetchone()[0] == 1
    # the tombstone says what kind, not what
    tomb = mem.conn.execute("SELECT op, subject, payload FROM journal ORDER BY seq DESC LIMIT 1"
                            ).fetchone()
    assert tomb["op"] == "forget" and SECRET not in tomb["payload"]
    digest = mem.digest()
    mem.close()
    assert SECRET.encode() not in file_bytes(db_path)
    # the export carries no trace either, and its replay rebuilds the same memory
    with Memory.open(db_path) as again:
        export = tmp_path / "j.jsonl"
        export_journal(again, export)
    assert SECRET not in export.read_text(encoding="utf-8")
    replay(export, tmp_path / "replayed.db")
    with Memory.open(tmp_path / "replayed.db") as rebuilt:
        assert rebuilt.digest() == digest
        assert rebuilt.verify() == []


def test_forget_entity(mem: Memory, db_path: Path, tmp_path: Path) -> None:
    out = forget(mem, "entity:ott")
    assert out["rows"]["entities"] == 1 and out["rows"]["facts"] == 1
    for needle in (ENTITY_NAME, "Vexhammer", "keeps bees"):
        assert needle.encode() not in file_bytes(db_path)
        assert traces(mem, needle) == []
    # the event that mentioned the entity stays, without the link
    assert mem.event("e4")["title"] == "Coffee with a friend"
    assert mem.conn.execute("SELECT COUNT(*) FROM relations").fetchone()[0] == 0
    assert mem.verify() == []
    export = tmp_path / "j.jsonl"
    export_journal(mem, export)
    replay(export, tmp_path / "r.db")
    with Memory.open(tmp_path / "r.db") as rebuilt:
        assert rebuilt.digest() == mem.digest()


def test_forget_in_the_demo_memory(demo_db: Path, tmp_path: Path) -> None:
    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as demo:
        event = demo.conn.execute(
            "SELECT id, description FROM events WHERE length(description) > 60 ORDER BY id"
            " LIMIT 1").fetchone()
        phrase = event["description"][:40]
        assert phrase.encode() in file_bytes(path)
        forget(demo, f"event:{event['id']}")
        assert phrase.encode() not in file_bytes(path)
        assert demo.verify() == []


def test_bad_refs(mem: Memory) -> None:
    for ref in ("e2", "event:", "thing:1", "event:nope", "entity:999"):
        with pytest.raises(PulseError):
            forget(mem, ref)
    assert mem.verify() == []


def test_cli_forget(mem: Memory, db_path: Path) -> None:
    mem.close()
    result = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db_path), "forget",
                             "event:e2", "--json"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["forgot"].startswith("event:") and out["rows"]["events"] == 1
    assert SECRET.encode() not in file_bytes(db_path)
    bad = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db_path), "forget",
                          "event:e2"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and "no such event" in bad.stderr


def test_forget_a_chat_event_takes_its_words_when_the_message_named_someone(
        memory: Memory, db_path: Path, tmp_path: Path) -> None:
    """A message naming a person is also the evidence of that person's entity (and of the
    relations the extractor drew): that must not keep the erased event's words in the file."""
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([
        {"id": "c1", "speaker": "Nadia", "ts": "2026-10-20T09:00:00Z",
         "text": "I never told anyone that Quillborvek hurt me at the Zarnowiec lake house."},
        {"id": "c2", "speaker": "Nadia", "ts": "2026-10-21T09:00:00Z",
         "text": "Dana took me for a long walk and I laughed."}]), encoding="utf-8")
    memory.import_files([chat])
    event = memory.conn.execute("SELECT id, source_observation FROM events"
                                " WHERE description LIKE '%Zarnowiec%'").fetchone()
    assert memory.conn.execute("SELECT COUNT(*) FROM evidence WHERE observation_id = ?"
                               " AND row_kind = 'entity'", (event[1],)).fetchone()[0] > 0
    forget(memory, f"event:{event[0]}")
    for needle in ("Zarnowiec lake house", "never told anyone"):
        assert needle.encode() not in file_bytes(db_path)
        assert traces(memory, needle) == []
    # the people it named stay (forget entity:… --cascade is how they go), and so does Dana's walk
    names = {r[0] for r in memory.conn.execute("SELECT canonical_name FROM entities")}
    assert "Quillborvek" in names
    assert memory.conn.execute("SELECT COUNT(*) FROM observations WHERE content_text LIKE"
                               " '%Dana took me%'").fetchone()[0] == 1
    assert memory.verify() == []
    export = tmp_path / "j.jsonl"
    export_journal(memory, export)
    assert "Zarnowiec lake" not in export.read_text(encoding="utf-8")
    replay(export, tmp_path / "r.db")
    with Memory.open(tmp_path / "r.db") as rebuilt:
        assert rebuilt.digest() == memory.digest()
