"""Journal export → replay (JOURNAL §1): same digest, zero network, no model, idempotent."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import PulseError
from core.memory import Memory
from core.trust.replay import export_journal, read_export, replay

CORPUS = {
    "format": "pulse-corpus/1",
    "entities": [{"key": "ann", "name": "Ann Quill", "kind": "person", "aliases": ["Annie"]},
                 {"key": "bob", "name": "Bob Reed", "kind": "person"}],
    "relations": [{"from": "ann", "to": "bob", "kind": "sibling", "strength": 0.7}],
    "events": [
        {"key": "e1", "title": "Moved to Lisbon", "description": "Ann moved for work.",
         "ts": "2025-03-01T10:00:00Z", "entities": ["ann"], "emotions": {"fear": 0.4}},
        {"key": "e2", "title": "Fight with Bob", "description": "They argued about money.",
         "ts": "2025-06-01T10:00:00Z", "entities": ["ann", "bob"], "parents": ["e1"]},
    ],
    "facts": [{"entity": "ann", "text": "Ann speaks Portuguese", "confidence": 0.9}],
}

CHAT = [
    {"id": "m1", "speaker": "Caroline", "text": "I finally adopted a dog named Biscuit, I'm so happy!",
     "ts": "2025-05-08T13:56:00Z", "conversation": "c1"},
    {"id": "m2", "speaker": "Caroline", "text": "My sister Dana was furious that I moved away.",
     "ts": "2025-05-09T09:00:00Z", "conversation": "c1"},
    {"id": "m3", "speaker": "Caroline", "text": "Work at the clinic has been exhausting lately.",
     "ts": "2025-05-10T20:00:00Z", "conversation": "c1"},
]


@pytest.fixture
def small(memory: Memory) -> Memory:
    memory.import_corpus(CORPUS)
    memory.set_belief("e1", belief_class="user_model")
    memory.pin("e2")
    from core.trust.corrections import correct

    correct(memory, withdrawn=["$49"], replacement=["$29"], note="price is $29")
    return memory


def _no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []

    def refuse(*args, **kwargs):
        calls.append(repr(args))
        raise AssertionError("network call during replay")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    from core.embedding import registry

    def no_model(name):
        calls.append(f"model {name}")
        raise AssertionError("model load during replay")

    monkeypatch.setattr(registry, "_load", no_model)
    monkeypatch.setattr(registry, "_cache", {})
    return calls


def _replayed_digest(tmp_path: Path, source: Memory, monkeypatch: pytest.MonkeyPatch) -> str:
    out = tmp_path / "journal.jsonl"
    export_journal(source, out)
    calls = _no_network(monkeypatch)
    target = tmp_path / "replayed.db"
    summary = replay(out, target)
    assert calls == []
    assert summary["applied"] == summary["rows"] > 0
    with Memory.open(target) as rebuilt:
        assert rebuilt.verify() == []
        return rebuilt.digest()


def test_replay_reproduces_digest_offline(small: Memory, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    assert _replayed_digest(tmp_path, small, monkeypatch) == small.digest()


def test_replay_of_demo_memory(demo_db: Path, tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as demo:
        assert _replayed_digest(tmp_path, demo, monkeypatch) == demo.digest()


def test_replay_of_transcript_imported_offline(memory: Memory, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    ingest = pytest.importorskip("core.ingest")
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT), encoding="utf-8")
    ingest.ingest_files(memory, [chat], fmt="chat", extractor="offline")
    assert memory.stats()["counts"]["observations"] >= 3
    assert _replayed_digest(tmp_path, memory, monkeypatch) == memory.digest()


def test_replay_twice_adds_nothing(small: Memory, tmp_path: Path) -> None:
    out = tmp_path / "j.jsonl"
    export_journal(small, out)
    target = tmp_path / "r.db"
    first = replay(out, target)
    with Memory.open(target) as m:
        digest, rows = m.digest(), m.stats()["counts"]
    second = replay(out, target)
    assert second["applied"] == 0 and second["already_present"] == first["rows"]
    with Memory.open(target) as m:
        assert m.digest() == digest and m.stats()["counts"] == rows
        assert m.verify() == []


def test_replay_brings_a_copy_up_to_date(small: Memory, tmp_path: Path) -> None:
    out = tmp_path / "j.jsonl"
    export_journal(small, out)
    target = tmp_path / "r.db"
    replay(out, target)
    small.set_belief("e1", domain="meta_authorial")
    export_journal(small, out)
    summary = replay(out, target)
    assert summary["applied"] == 1
    with Memory.open(target) as m:
        assert m.digest() == small.digest()


def test_replay_refuses_a_diverging_target(small: Memory, tmp_path: Path) -> None:
    out = tmp_path / "j.jsonl"
    export_journal(small, out)
    other = tmp_path / "other.db"
    with Memory.open(other, create=True) as m:
        m.import_corpus({"format": "pulse-corpus/1", "events": [
            {"key": "x", "title": "Something else", "ts": "2024-01-01"}]})
        before = m.digest()
    with pytest.raises(PulseError, match="diverges"):
        replay(out, other)
    with Memory.open(other) as m:
        assert m.digest() == before


def test_replay_refuses_a_tampered_journal(small: Memory, tmp_path: Path) -> None:
    out = tmp_path / "j.jsonl"
    export_journal(small, out)
    lines = out.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[3])
    row["payload"]["changes"][0]["row"]["canonical_name"] = "Mallory"
    lines[3] = json.dumps(row)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    target = tmp_path / "r.db"
    with pytest.raises(PulseError, match="does not verify"):
        replay(out, target)
    assert not target.exists() or Memory.open(target).stats()["counts"]["events"] == 0


@pytest.mark.parametrize("kept", [1, 3])
def test_replay_refuses_a_journal_cut_short(small: Memory, tmp_path: Path, kept: int) -> None:
    # a copy that stopped early replayed what it held, exit 0: a memory with rows missing
    out = tmp_path / "j.jsonl"
    export_journal(small, out)
    lines = out.read_text(encoding="utf-8").splitlines()
    out.write_text("\n".join(lines[:kept]) + "\n", encoding="utf-8")
    target = tmp_path / "r.db"
    with pytest.raises(PulseError, match="cut short"):
        replay(out, target)
    assert not target.exists()


def test_export_rows_are_verbatim(small: Memory, tmp_path: Path) -> None:
    out = tmp_path / "j.jsonl"
    export_journal(small, out)
    rows = read_export(out)
    stored = small.conn.execute("SELECT seq, hash, payload FROM journal ORDER BY seq").fetchall()
    assert [(r["seq"], r["hash"], r["payload"]) for r in rows] == [tuple(s) for s in stored]


def test_bad_journal_file_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"seq": 1}\nnot json\n', encoding="utf-8")
    with pytest.raises(PulseError, match="line 1"):
        replay(bad, tmp_path / "x.db")


def _pulse(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core.cli", *args], capture_output=True,
                          text=True, timeout=120)


def test_cli_export_replay_digest(small: Memory, tmp_path: Path) -> None:
    small.close()
    db, out, new = tmp_path / "memory.db", tmp_path / "j.jsonl", tmp_path / "new.db"
    assert _pulse("--db", str(db), "journal", "export", str(out)).returncode == 0
    result = _pulse("replay", str(out), "--db", str(new), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["applied"] > 0
    digests = [json.loads(_pulse("--db", str(p), "digest", "--json").stdout)["digest"]
               for p in (db, new)]
    assert digests[0] == digests[1]
    again = _pulse("replay", str(out), "--db", str(new), "--json")
    assert json.loads(again.stdout)["applied"] == 0
    missing = _pulse("replay", str(tmp_path / "nope.jsonl"), "--db", str(new))
    assert missing.returncode == 1 and len(missing.stderr.strip().splitlines()) == 1
