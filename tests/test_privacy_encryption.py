"""Encryption at rest (issue 13 §1): encrypted memories through Memory and the CLI, the
passphrase's sources, wrong or missing passphrases and damaged files in one line with the file
untouched, encrypt / decrypt / rekey (backups too), sealed journal exports, encrypted
pre-migration backups. Real SQLCipher files, real processes for the CLI and `pulse mcp`."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import PulseError
from core.memory import Memory

ROOT = Path(__file__).resolve().parent.parent
CORPUS = {"format": "pulse-corpus/1", "events": [
    {"key": "e1", "title": "Walk by the harbour wall", "description": "Gulls and cold wind.",
     "ts": "2026-01-05T09:00:00Z"},
    {"key": "e2", "title": "Letter from the landlord", "description": "The rent goes up.",
     "ts": "2026-02-05T09:00:00Z"}]}


def cli(db: Path, *args: str, env: dict | None = None, stdin=subprocess.DEVNULL
        ) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items()
            if k not in ("PULSE_PASSPHRASE", "PULSE_NEW_PASSPHRASE", "PULSE_DB")}
    base["PYTHONPATH"] = str(ROOT)
    # start_new_session: no controlling terminal, as under a service manager or CI
    return subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), *args],
                          capture_output=True, text=True, env={**base, **(env or {})},
                          cwd=ROOT, timeout=300, stdin=stdin, start_new_session=True)


def digest_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def encrypted(tmp_path: Path) -> Path:
    db = tmp_path / "e.db"
    with Memory.open(db, create=True, encrypt=True, passphrase="first secret") as memory:
        memory.import_corpus(CORPUS)
        assert memory.encrypted
    return db


def test_an_encrypted_memory_is_ciphertext_and_works(encrypted: Path) -> None:
    raw = encrypted.read_bytes()
    assert not raw.startswith(b"SQLite format 3") and b"harbour" not in raw
    assert Memory.is_encrypted(encrypted)
    with Memory.open(encrypted, passphrase="first secret") as memory:
        out = memory.retrieve("harbour wall", now="2026-03-01T00:00:00Z", top_k=1)
        assert out["results"][0]["key"] == "e1"
        assert memory.verify() == []


@pytest.mark.parametrize("given", [None, "wrong secret"])
def test_missing_or_wrong_passphrase_is_one_line_and_touches_nothing(encrypted: Path,
                                                                      given) -> None:
    before = digest_of(encrypted)
    with pytest.raises(PulseError) as err:
        Memory.open(encrypted, passphrase=given)
    assert "\n" not in str(err.value)
    assert ("wrong passphrase" if given else "is encrypted") in str(err.value)
    assert digest_of(encrypted) == before
    assert not Path(f"{encrypted}-wal").exists() and not Path(f"{encrypted}-shm").exists()


def test_cli_reads_the_environment_else_refuses_without_a_terminal(encrypted: Path) -> None:
    ok = cli(encrypted, "--json", "stats", env={"PULSE_PASSPHRASE": "first secret"})
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["counts"]["events"] == 2
    before = digest_of(encrypted)
    none = cli(encrypted, "stats")
    assert none.returncode == 1
    assert none.stderr.strip().splitlines() == [
        f"pulse: {encrypted}: a passphrase is needed (it is encrypted, or not a Pulse memory); "
        "set PULSE_PASSPHRASE or run from a terminal"]
    wrong = cli(encrypted, "retrieve", "harbour", env={"PULSE_PASSPHRASE": "nope"})
    assert wrong.returncode == 1 and len(wrong.stderr.strip().splitlines()) == 1
    assert "wrong passphrase" in wrong.stderr
    assert digest_of(encrypted) == before


def test_pulse_mcp_without_a_passphrase_exits_1_with_one_line(encrypted: Path) -> None:
    out = cli(encrypted, "mcp")
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "a passphrase is needed" in lines[0], out.stderr


def test_a_damaged_encrypted_file_is_one_line(tmp_path: Path, encrypted: Path) -> None:
    broken = tmp_path / "broken.db"
    data = bytearray(encrypted.read_bytes())
    data[5000:5400] = bytes(400)                      # inside page 2
    broken.write_bytes(bytes(data))
    before = digest_of(broken)
    out = cli(broken, "verify", env={"PULSE_PASSPHRASE": "first secret"})
    assert out.returncode == 1 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert digest_of(broken) == before
    first = tmp_path / "first.db"
    data = bytearray(encrypted.read_bytes())
    data[100:200] = bytes(100)                        # page 1: indistinguishable from a bad key
    first.write_bytes(bytes(data))
    out = cli(first, "stats", env={"PULSE_PASSPHRASE": "first secret"})
    assert out.returncode == 1 and "wrong passphrase, or the encrypted file is damaged" \
        in out.stderr


def test_init_encrypt_then_encrypt_decrypt_rekey(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    made = cli(db, "--json", "init", "--encrypt", env={"PULSE_PASSPHRASE": "one"})
    assert made.returncode == 0 and json.loads(made.stdout)["encrypted"] is True, made.stderr
    plain = tmp_path / "p.db"
    with Memory.open(plain, create=True) as memory:
        memory.import_corpus(CORPUS)
        digest = memory.digest()
    out = cli(plain, "--json", "encrypt", env={"PULSE_PASSPHRASE": "two"})
    assert out.returncode == 0, out.stderr
    assert b"harbour" not in plain.read_bytes()
    again = cli(plain, "encrypt", env={"PULSE_PASSPHRASE": "two"})
    assert again.returncode == 1 and "already encrypted" in again.stderr
    rekey = cli(plain, "rekey", env={"PULSE_PASSPHRASE": "two", "PULSE_NEW_PASSPHRASE": "three"})
    assert rekey.returncode == 0, rekey.stderr
    assert cli(plain, "stats", env={"PULSE_PASSPHRASE": "two"}).returncode == 1
    with Memory.open(plain, passphrase="three") as memory:
        assert memory.digest() == digest and memory.verify() == []
        ops = [r["op"] for r in memory.history(5)]
        assert ops[:2] == ["encryption", "encryption"]
    back = cli(plain, "decrypt", env={"PULSE_PASSPHRASE": "three"})
    assert back.returncode == 0, back.stderr
    assert plain.read_bytes().startswith(b"SQLite format 3\x00")
    with Memory.open(plain) as memory:
        assert memory.digest() == digest and memory.verify() == []


def test_encrypt_refuses_while_another_program_holds_the_memory(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory.open(db, create=True) as memory:
        memory.import_corpus(CORPUS)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from core.memory import Memory; "
         "m = Memory.open(sys.argv[1]); m.stats(); print('ready', flush=True); sys.stdin.read()",
         str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout.readline().strip() == "ready"
        out = cli(db, "encrypt", env={"PULSE_PASSPHRASE": "x"})
        assert out.returncode == 1 and "another program has the memory open" in out.stderr
        assert db.read_bytes().startswith(b"SQLite format 3\x00")
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    with Memory.open(db) as memory:
        assert memory.verify() == []


def test_encrypting_converts_the_backups_and_migration_backups_stay_encrypted(
        tmp_path: Path) -> None:
    from core.store.sqlite import sqlite3

    db = tmp_path / "m.db"
    with Memory.open(db, create=True) as memory:
        memory.import_corpus(CORPUS)
    plain_backup = tmp_path / "m.db.bak-3"
    with Memory.open(db) as memory:          # a plain backup, as an older migration left it
        memory.conn.backup(sqlite3.connect(str(plain_backup)))
    assert plain_backup.read_bytes().startswith(b"SQLite format 3")
    out = cli(db, "--json", "encrypt", env={"PULSE_PASSPHRASE": "k"})
    assert json.loads(out.stdout)["backups"] == [str(plain_backup)]
    assert not plain_backup.read_bytes().startswith(b"SQLite format 3")
    assert b"harbour" not in plain_backup.read_bytes()
    # a migration of the encrypted memory backs it up encrypted, with the same passphrase
    _downgrade(db, "k")
    with Memory.open(db, passphrase="k") as memory:
        from core.store import db as store_db

        assert 7 in store_db.applied_versions(memory.conn)     # 007 applied again
    made = [p for p in tmp_path.glob("m.db.bak-*") if p != plain_backup]
    assert len(made) == 1, made            # named after the schema it had (m.db.bak-N)
    backup = made[0]
    assert b"harbour" not in backup.read_bytes()
    with Memory.open(backup, read_only=True, passphrase="k") as old:
        assert old.stats()["counts"]["events"] == 2


def _downgrade(db: Path, passphrase: str) -> None:
    """Make an encrypted memory look as it was before migration 007 (its columns removed)."""
    from core.store.sqlite import sqlite3

    conn = sqlite3.connect(str(db), isolation_level=None)
    try:
        conn.execute(f"PRAGMA key = '{passphrase}'")
        for column in ("policy", "role_label", "skipped_segments"):
            conn.execute(f"ALTER TABLE entities DROP COLUMN {column}")
        conn.execute("DELETE FROM schema_version WHERE version = 7")
    finally:
        conn.close()


def test_the_journal_of_an_encrypted_memory_is_sealed_and_replays(tmp_path: Path,
                                                                   encrypted: Path) -> None:
    out = tmp_path / "journal.jsonl"
    with Memory.open(encrypted, passphrase="first secret") as memory:
        summary = memory.export_journal(out)
        digest = memory.digest()
    assert summary["sealed"] is True
    raw = out.read_bytes()
    assert raw.startswith(b'{"format": "pulse-sealed/1"') and b"harbour" not in raw
    assert not list(tmp_path.glob("journal.jsonl.tmp"))
    bad = cli(tmp_path / "r.db", "replay", str(out), env={"PULSE_PASSPHRASE": "no"})
    assert bad.returncode == 1 and "wrong passphrase" in bad.stderr
    assert not (tmp_path / "r.db").exists()
    good = cli(tmp_path / "r.db", "replay", str(out), env={"PULSE_PASSPHRASE": "first secret"})
    assert good.returncode == 0, good.stderr
    assert Memory.is_encrypted(tmp_path / "r.db")
    with Memory.open(tmp_path / "r.db", passphrase="first secret") as copy:
        assert copy.digest() == digest
    damaged = bytearray(raw)
    damaged[-5] ^= 0xFF
    (tmp_path / "d.jsonl").write_bytes(bytes(damaged))
    bad = cli(tmp_path / "r2.db", "replay", str(tmp_path / "d.jsonl"),
              env={"PULSE_PASSPHRASE": "first secret"})
    assert bad.returncode == 1 and "damaged" in bad.stderr


def test_workers_of_a_process_reopen_without_asking(encrypted: Path) -> None:
    with Memory.open(encrypted, passphrase="first secret") as held:
        with Memory.open(encrypted, read_only=True) as worker:   # the app's worker pattern
            assert worker.stats()["counts"]["events"] == 2
        assert held.verify() == []


def _journal_of(pages: bytes, page_size: int) -> bytes:
    """A rollback journal holding `pages` as SQLite's pager writes one (pager.c: header of
    one sector, then page number, page, checksum per page)."""
    import struct

    sector, nonce = 512, 0x5EED
    count = len(pages) // page_size
    header = (bytes.fromhex("d9d505f920a163d7")
              + struct.pack(">IIIII", count, nonce, count, sector, page_size))
    out = [header.ljust(sector, b"\0")]
    for number in range(count):
        page = pages[number * page_size:(number + 1) * page_size]
        checksum = nonce + sum(page[i] for i in range(page_size - 200, 0, -200))
        out.append(struct.pack(">I", number + 1) + page + struct.pack(">I", checksum & 0xFFFFFFFF))
    return b"".join(out)


def test_a_rekey_killed_before_its_journal_was_deleted_opens_with_the_old_passphrase(
        encrypted: Path, tmp_path: Path) -> None:
    """SIGKILL in `pulse rekey` after it wrote pages under the new key but before its rollback
    journal was deleted leaves a hot -journal beside a file whose first page no key reads.
    SQLite's recovery (any read-write open) rolls it back to the old file; a read-only or
    immutable check ignores it, and the memory read as 'wrong passphrase' with either
    passphrase. The state is built as the pager leaves it: the rekeyed pages in the file, the
    old ones in the journal."""
    from core.store import cipher
    from core.store.sqlite import sqlite3

    def keyed(path: Path, passphrase: str):
        conn = sqlite3.connect(str(path), isolation_level=None)
        conn.execute(cipher.key_pragma(cipher.derive(passphrase, path.read_bytes()[:16])))
        return conn

    conn = keyed(encrypted, "first secret")
    conn.execute("PRAGMA journal_mode=DELETE")       # as rekey runs (it leaves WAL first)
    conn.close()
    old_pages = encrypted.read_bytes()
    rekeyed = tmp_path / "rekeyed.db"
    rekeyed.write_bytes(old_pages)
    conn = keyed(rekeyed, "first secret")
    conn.execute(cipher.rekey_pragma(cipher.derive("second secret", old_pages[:16])))
    conn.close()
    encrypted.write_bytes(rekeyed.read_bytes())
    Path(f"{encrypted}-journal").write_bytes(_journal_of(old_pages, 4096))

    opened = cli(encrypted, "--json", "stats", env={"PULSE_PASSPHRASE": "first secret"})
    assert opened.returncode == 0, opened.stderr
    assert json.loads(opened.stdout)["counts"]["events"] == 2
    assert not Path(f"{encrypted}-journal").exists()
    assert cli(encrypted, "verify", env={"PULSE_PASSPHRASE": "first secret"}).returncode == 0
    # the new passphrase was never committed: it stays wrong, in one line
    wrong = cli(encrypted, "stats", env={"PULSE_PASSPHRASE": "second secret"})
    assert wrong.returncode == 1 and "wrong passphrase" in wrong.stderr


def test_a_killed_decrypt_leaves_no_plain_copy_behind(encrypted: Path, tmp_path: Path) -> None:
    """`pulse decrypt` writes the plain copy beside the memory and renames it over it; killed
    before the rename, the memory stays encrypted and the hidden plain copy (and its journal)
    stayed too, for good. The next open of the memory removes such leftovers."""
    plain = tmp_path / "plain.db"
    with Memory.open(plain, create=True) as memory:
        memory.import_corpus(CORPUS)
    leftovers = [tmp_path / ".e.db.decrypting", tmp_path / ".e.db.decrypting-journal",
                 tmp_path / ".e.db.encrypting", tmp_path / ".e.db.bak-3.converting"]
    for leftover in leftovers:
        leftover.write_bytes(plain.read_bytes())
    unrelated = tmp_path / ".other.db.decrypting"
    unrelated.write_bytes(b"not ours")
    opened = cli(encrypted, "stats", env={"PULSE_PASSPHRASE": "first secret"})
    assert opened.returncode == 0, opened.stderr
    assert [p.name for p in leftovers if p.exists()] == []
    assert unrelated.exists()
    assert b"harbour" not in b"".join(p.read_bytes() for p in tmp_path.glob(".e.db*"))
