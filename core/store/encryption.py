"""`pulse encrypt`, `pulse decrypt`, `pulse rekey`: change how a memory file is encrypted.

Each needs the memory to itself: with another program holding it open (the app, `pulse mcp`),
it refuses in one line and changes nothing. Exclusivity is asked of SQLite, not guessed: the
memory leaves WAL mode (which SQLite allows only to its sole user) and keeps an exclusive lock
until the new file is in place.

- encrypt / decrypt: `sqlcipher_export` writes a complete copy — encrypted or plain — next to the
  memory, which then replaces it in one rename. The pre-migration backups beside it
  (`NAME.bak-N`) are converted the same way, so no plaintext copy is left behind by Pulse. The
  disk blocks the old plaintext file occupied are freed, not overwritten: docs/privacy.md says
  what that means and why starting encrypted (`pulse init --encrypt`) is better.
- rekey: SQLCipher re-encrypts every page in place under the new key (same salt), backups too.

Each writes one journal row (op "encryption", no changes: replay and undo ignore it) so the
history says when the file's protection changed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from core.errors import PulseError, StoreError
from core.store import cipher, db, journal
from core.store.sqlite import sqlite3


def _busy(path: Path) -> StoreError:
    return StoreError(f"{path}: another program has the memory open (the app, `pulse mcp`?); "
                      "close it first; nothing was changed")


def _take_alone(conn: sqlite3.Connection, path: Path) -> None:
    """Leave WAL mode (only the sole user may) and keep an exclusive lock from here on."""
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        mode = conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0]
    except sqlite3.OperationalError:
        raise _busy(path) from None
    if str(mode).lower() != "delete":
        raise _busy(path)
    try:
        db.begin_immediate(conn)
        conn.execute("UPDATE pulse_meta SET value = value WHERE key = 'embedding_model'")
        conn.execute("COMMIT")          # in EXCLUSIVE mode the write lock is kept after this
    except PulseError:
        raise _busy(path) from None


def _back_to_wal(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA locking_mode=NORMAL")
    conn.execute("PRAGMA journal_mode=WAL")


def _mark(conn: sqlite3.Connection, action: str) -> int:
    db.begin_immediate(conn)
    try:
        seq = journal.append(conn, "manual", "encryption", "memory",
                             {"changes": [], "encryption": action})
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return seq


def _export(conn: sqlite3.Connection, target: Path, key_clause: str) -> None:
    """A full copy of `conn`'s database at `target`, keyed by `key_clause` ('' for plain)."""
    target.unlink(missing_ok=True)
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    conn.execute(f"ATTACH DATABASE ? AS converted KEY {key_clause}", (str(target),))
    try:
        conn.execute("SELECT sqlcipher_export('converted')")
        conn.execute(f"PRAGMA converted.application_id = {int(app_id)}")
    finally:
        conn.execute("DETACH DATABASE converted")


def _backups(path: Path) -> list[Path]:
    return sorted(p for p in path.parent.glob(f"{path.name}.bak-*") if p.is_file())


def _convert_file(source: Path, source_key: str | None, key_clause: str) -> None:
    """Convert a file nobody holds (a backup) into `key_clause`'s form, replacing it."""
    conn = sqlite3.connect(str(source), isolation_level=None)
    try:
        if source_key:
            conn.execute(cipher.key_pragma(source_key))
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        tmp = source.with_name(f".{source.name}.converting")
        _export(conn, tmp, key_clause)
    finally:
        conn.close()
    os.replace(tmp, source)


def encrypt(path: str | Path, passphrase: cipher.Passphrase) -> dict[str, Any]:
    path = Path(path)
    if not path.exists():
        raise StoreError(f"{path}: no memory here")
    if cipher.is_encrypted(path):
        raise PulseError(f"{path}: is already encrypted (change its passphrase with "
                         "`pulse rekey`)")
    conn = db.connect(path)
    tmp = path.with_name(f".{path.name}.encrypting")
    try:
        _take_alone(conn, path)
        secret = cipher.resolve(passphrase, path)
        salt = cipher.new_salt()
        key = cipher.derive(secret, salt)
        _export(conn, tmp, f"\"x'{key}{salt.hex()}'\"")
        converted = [str(b) for b in _backups(path)
                     if not cipher.is_encrypted(b)]
        for backup in converted:
            _convert_file(Path(backup), None, f"\"x'{key}{salt.hex()}'\"")
        new = db.connect(tmp, passphrase=secret)
        try:
            seq = _mark(new, "encrypt")
        finally:
            new.close()
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        conn.close()
    return {"db": str(path), "encrypted": True, "journal_seq": seq, "backups": converted}


def decrypt(path: str | Path, passphrase: cipher.Passphrase) -> dict[str, Any]:
    path = Path(path)
    if not path.exists():
        raise StoreError(f"{path}: no memory here")
    if not cipher.is_encrypted(path):
        raise PulseError(f"{path}: is not encrypted")
    conn = db.connect(path, passphrase=passphrase)
    tmp = path.with_name(f".{path.name}.decrypting")
    try:
        _take_alone(conn, path)
        _export(conn, tmp, "''")
        secret = cipher.resolve(passphrase, path)
        converted, left = [], []
        for backup in _backups(path):
            if cipher.is_encrypted(backup):
                try:
                    _convert_file(backup, cipher.derive(secret, cipher.salt_of(backup)), "''")
                    converted.append(str(backup))
                except sqlite3.DatabaseError:
                    left.append(str(backup))    # under another passphrase: left as it is
        new = db.connect(tmp)
        try:
            seq = _mark(new, "decrypt")
        finally:
            new.close()
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        conn.close()
    return {"db": str(path), "encrypted": False, "journal_seq": seq, "backups": converted,
            "left_encrypted": left}


def rekey(path: str | Path, passphrase: cipher.Passphrase,
          new_passphrase: cipher.Passphrase) -> dict[str, Any]:
    path = Path(path)
    if not path.exists():
        raise StoreError(f"{path}: no memory here")
    if not cipher.is_encrypted(path):
        raise PulseError(f"{path}: is not encrypted (encrypt it with `pulse encrypt`)")
    conn = db.connect(path, passphrase=passphrase)
    try:
        old = cipher.resolve(passphrase, path)
        new = cipher.resolve(new_passphrase, path)
        if cipher.same(old, new):
            raise PulseError(f"{path}: the new passphrase is the same as the old one; nothing "
                             "was changed")
        _take_alone(conn, path)
        salt = cipher.salt_of(path)
        conn.execute(cipher.rekey_pragma(cipher.derive(new, salt)))
        cipher.remember_unlocked(path, new)
        converted, left = [], []
        for backup in _backups(path):
            if not cipher.is_encrypted(backup):
                continue
            # its salt first: once it is open here, its header may not be read with a plain
            # handle (that would drop this process's locks on it)
            backup_salt = cipher.salt_of(backup)
            other = sqlite3.connect(str(backup), isolation_level=None)
            try:
                other.execute(cipher.key_pragma(cipher.derive(old, backup_salt)))
                other.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
                other.execute(cipher.rekey_pragma(cipher.derive(new, backup_salt)))
                converted.append(str(backup))
            except sqlite3.DatabaseError:
                left.append(str(backup))    # under another passphrase: left as it is
            finally:
                other.close()
        _back_to_wal(conn)
        seq = _mark(conn, "rekey")
    finally:
        conn.close()
    return {"db": str(path), "encrypted": True, "journal_seq": seq, "backups": converted,
            "left_encrypted": left}
