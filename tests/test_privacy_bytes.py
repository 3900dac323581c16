"""The bytes check of issue 13 §1: after an import, edits, a migration backup and exports of an
encrypted memory — done by real `pulse` processes, with the memory still held open by another
process so its -wal and -shm are on disk — a known phrase of the imported text is in no byte of
any file Pulse wrote: the data folder, /tmp and the export folder. The same run on a plain
memory finds the phrase (the search can fail)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOLD = r"""
import os, sys
from core.memory import Memory
m = Memory.open(sys.argv[1], passphrase=os.environ.get("PULSE_PASSPHRASE"))
m.set_belief("k3", confidence_floor=0.4)      # a write, so the WAL holds the latest pages
print("ready", flush=True)
sys.stdin.read()
m.close()
"""


def _env(passphrase: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PULSE_PASSPHRASE", "PULSE_VIEWER_PASSPHRASE", "PULSE_DB")}
    env["PYTHONPATH"] = str(ROOT)
    if passphrase:
        env["PULSE_PASSPHRASE"] = passphrase
        env["PULSE_VIEWER_PASSPHRASE"] = "viewer " + passphrase
    return env


def _pulse(db: Path, env: dict[str, str], *args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), *args],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=300,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 0, (args, out.stderr)
    return out.stdout


def _downgrade(db: Path, passphrase: str | None) -> None:
    """The memory as before migration 007, so the next open migrates it and backs it up."""
    from core.store.sqlite import sqlite3

    conn = sqlite3.connect(str(db), isolation_level=None)
    try:
        if passphrase:
            conn.execute(f"PRAGMA key = '{passphrase}'")
        for column in ("policy", "role_label", "skipped_segments"):
            conn.execute(f"ALTER TABLE entities DROP COLUMN {column}")
        conn.execute("DELETE FROM schema_version WHERE version = 7")
    finally:
        conn.close()


def _files_written(folders: list[Path], since: float) -> list[Path]:
    found = []
    for folder in folders:
        for dirpath, _dirnames, filenames in os.walk(folder, onerror=lambda e: None):
            for name in filenames:
                path = Path(dirpath) / name
                try:
                    st = path.lstat()
                except OSError:
                    continue
                if path.is_symlink() or not path.is_file() or st.st_size > 512 * 1024 * 1024:
                    continue
                if st.st_mtime >= since or st.st_ctime >= since or folder != Path("/tmp"):
                    found.append(path)
    return found


def _holding(path: Path, phrase: bytes) -> bool:
    try:
        with path.open("rb") as fh:
            return phrase in fh.read()
    except OSError:
        return False


def _run(tmp_path: Path, passphrase: str | None) -> dict:
    phrase = f"quokka{uuid.uuid4().hex[:12]} lighthouse"
    data, exports = tmp_path / "data", tmp_path / "exports"
    data.mkdir()
    exports.mkdir()
    db = data / "m.db"
    env = _env(passphrase)
    started = time.time() - 1
    chat = tmp_path / "chat.json"   # the input file is the person's own: not searched
    chat.write_text(json.dumps([
        {"id": "m1", "speaker": "Nadia", "ts": "2026-03-01T10:00:00Z",
         "text": f"I told Dana about the {phrase} and my hands shook all evening."},
        {"id": "m2", "speaker": "Nadia", "ts": "2026-03-02T10:00:00Z",
         "text": f"Still thinking about the {phrase}. It scares me."}]), encoding="utf-8")
    _pulse(db, env, "init", *(["--encrypt"] if passphrase else []))
    _pulse(db, env, "import", str(chat))
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps({"format": "pulse-corpus/1", "events": [
        {"key": f"k{i}", "title": f"A day at the {phrase}" if i == 1 else f"Ordinary day {i}",
         "description": f"Notes {i}.", "ts": f"2026-0{i}-10T09:00:00Z"} for i in (1, 2, 3)]}),
        encoding="utf-8")
    _pulse(db, env, "import", str(corpus))
    _downgrade(db, passphrase)                     # the next command migrates: a backup
    _pulse(db, env, "set", "k2", "--floor", "0.3")  # an edit (and the migration + backup)
    _pulse(db, env, "pin", "k1")
    _pulse(db, env, "correct", "--withdrawn", "$49", "--replacement", "$29", "--note", "price")
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(db)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        assert holder.stdout.readline().strip() == "ready"
        _pulse(db, env, "retrieve", "lighthouse", "--log")
        _pulse(db, env, "brief", "--budget", "3000")
        _pulse(db, env, "journal", "export", str(exports / "journal.jsonl"))
        _pulse(db, env, "export-html", "--out", str(exports / "viewer.html"),
               *(["--lock"] if passphrase else []))
        side = {p.name: p.exists() for p in (Path(f"{db}-wal"), Path(f"{db}-shm"))}
        backups = sorted(p.name for p in data.glob("m.db.bak-*"))
        inputs = {chat, corpus}           # the person's own files, written by this test
        files = [p for p in _files_written([data, exports, Path("/tmp")], started)
                 if p not in inputs]
        hits = sorted(str(p) for p in files if _holding(p, phrase.encode("utf-8")))
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    return {"side": side, "backups": backups, "hits": hits, "searched": len(files),
            "db": db, "exports": sorted(p.name for p in exports.iterdir())}


@pytest.mark.slow
def test_no_file_pulse_wrote_holds_the_phrase_of_an_encrypted_memory(tmp_path: Path) -> None:
    out = _run(tmp_path, "a long enough passphrase")
    assert out["side"] == {"m.db-wal": True, "m.db-shm": True}, out
    assert len(out["backups"]) == 1, out                       # the migration's backup
    assert out["exports"] == ["journal.jsonl", "viewer.html"]
    assert out["searched"] >= 6
    assert out["hits"] == [], f"the phrase is readable in {out['hits']}"


@pytest.mark.slow
def test_the_same_run_on_a_plain_memory_finds_the_phrase(tmp_path: Path) -> None:
    out = _run(tmp_path, None)
    db = out["db"]
    assert str(db) in out["hits"] or f"{db}-wal" in out["hits"], out["hits"]
    assert any(h.endswith(".bak-4") or ".bak-" in h for h in out["hits"]), out["hits"]
    assert any(h.endswith("journal.jsonl") for h in out["hits"]), out["hits"]
