"""`pulse rekey` on an encrypted memory that has a backup (any memory a migration ever
touched): it changed the memory's key, then stopped with "m.db.bak-3: cannot read the
encrypted file's header" (exit 1, no journal row) — it opened the backup and only then read its
header with a plain handle, which the lock registry refuses for a file this process holds. The
backup kept the old passphrase, and `pulse decrypt` afterwards died on it with
"unexpected error: DatabaseError: file is not a database". Real files, real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from core.memory import Memory
from core.store.sqlite import sqlite3

ROOT = Path(__file__).resolve().parent.parent
CORPUS = {"format": "pulse-corpus/1", "events": [
    {"key": "e1", "title": "Walk by the harbour", "ts": "2026-10-01T09:00:00Z"}]}


def cli(db: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    full.pop("PULSE_DB", None)
    return subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), "--json", *args],
                          capture_output=True, text=True, timeout=120, cwd=ROOT, env=full)


def test_rekey_changes_the_backups_key_too_and_decrypt_reads_them(tmp_path: Path) -> None:
    db, backup = tmp_path / "m.db", tmp_path / "m.db.bak-3"
    with Memory.open(db, create=True) as memory:
        memory.import_corpus(CORPUS)
        memory.conn.backup(sqlite3.connect(str(backup)))   # as a migration leaves one
    assert cli(db, "encrypt", env={"PULSE_PASSPHRASE": "one"}).returncode == 0
    out = cli(db, "rekey", env={"PULSE_PASSPHRASE": "one", "PULSE_NEW_PASSPHRASE": "two"})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["backups"] == [str(backup)]
    with Memory.open(backup, read_only=True, passphrase="two") as old:
        assert old.stats()["counts"]["events"] == 1
    out = cli(db, "decrypt", env={"PULSE_PASSPHRASE": "two"})
    assert out.returncode == 0, out.stderr
    assert backup.read_bytes().startswith(b"SQLite format 3\x00")
    with Memory.open(db) as memory:
        assert memory.verify() == []
        assert [r["op"] for r in memory.history(3)] == ["encryption"] * 3


def test_decrypt_leaves_a_backup_under_another_passphrase_and_says_so(tmp_path: Path) -> None:
    """What the rekey above left behind (or a backup keyed by hand): decrypt died with
    "unexpected error: DatabaseError: file is not a database" and decrypted nothing."""
    from core.store import cipher

    db, backup = tmp_path / "m.db", tmp_path / "m.db.bak-3"
    with Memory.open(db, create=True) as memory:
        memory.import_corpus(CORPUS)
        memory.conn.backup(sqlite3.connect(str(backup)))
    assert cli(db, "encrypt", env={"PULSE_PASSPHRASE": "one"}).returncode == 0
    salt = backup.read_bytes()[:16]
    other = sqlite3.connect(str(backup), isolation_level=None)
    other.execute(cipher.key_pragma(cipher.derive("one", salt)))
    other.execute(cipher.rekey_pragma(cipher.derive("elsewhere", salt)))
    other.close()
    before = backup.read_bytes()
    out = cli(db, "decrypt", env={"PULSE_PASSPHRASE": "one"})
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["backups"] == [] and summary["left_encrypted"] == [str(backup)]
    assert db.read_bytes().startswith(b"SQLite format 3\x00")
    assert backup.read_bytes() == before
