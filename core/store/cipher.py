"""Keys for encrypted memories (SQLCipher 4), derived once per process.

SQLCipher turns a passphrase into the page key with PBKDF2-HMAC-SHA512 (256,000 iterations)
over the 16-byte salt at the start of the file. Pulse derives that same key itself and hands
SQLCipher the raw key: the file still opens with the bare passphrase in any SQLCipher 4 tool,
but this process pays the derivation (about a second on a loaded 2-core machine, measured in
bench/encryption.py) once per memory and passphrase rather than for every connection — the app
opens one for each worker. Keys live only in this process's memory.

The salt is read from the file's first 16 bytes only when no connection of this process holds
the file (locks.held_in_process); while one does, the salt it was opened with is remembered here.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
from collections.abc import Callable
from pathlib import Path

from core.errors import PassphraseError, StoreError
from core.store import locks

SQLITE_HEADER = b"SQLite format 3\x00"
KDF_ITERATIONS = 256_000          # SQLCipher 4's default: the file opens in its own tools too
SALT_BYTES = 16

Passphrase = str | Callable[[], str] | None

_lock = threading.Lock()
_salts: dict[tuple[int, int], bytes] = {}            # file → salt, for files held here
_keys: dict[tuple[bytes, bytes], str] = {}           # (salt, passphrase digest) → key hex
_unlocked: dict[tuple[int, int], str] = {}           # file → the passphrase that opened it


def _digest(passphrase: str) -> bytes:
    return hashlib.sha256(passphrase.encode("utf-8")).digest()


def derive(passphrase: str, salt: bytes) -> str:
    """The raw page key (hex) SQLCipher 4 derives from this passphrase and salt."""
    if not passphrase:
        raise PassphraseError("the passphrase is empty")
    slot = (salt, _digest(passphrase))
    with _lock:
        cached = _keys.get(slot)
    if cached is not None:
        return cached
    key = hashlib.pbkdf2_hmac("sha512", passphrase.encode("utf-8"), salt, KDF_ITERATIONS,
                              32).hex()
    with _lock:
        _keys[slot] = key
    return key


def remember_salt(path: str | Path, salt: bytes) -> None:
    key = locks.file_key(path)
    if key is not None:
        with _lock:
            _salts[key] = salt


def remember_unlocked(path: str | Path, passphrase: str) -> None:
    """This process opened the file with this passphrase: while it holds it open, its other
    connections (the app's workers, its live-refresh watcher) open it without asking again."""
    key = locks.file_key(path)
    if key is not None:
        with _lock:
            _unlocked[key] = passphrase


def unlocked(path: str | Path) -> str | None:
    """The passphrase this process opened the file with — only while it still holds it open
    (a closed memory asks again)."""
    key = locks.file_key(path)
    if key is None or not locks.held_in_process(path):
        return None
    with _lock:
        return _unlocked.get(key)


def forget_unlocked(path: str | Path) -> None:
    key = locks.file_key(path)
    with _lock:
        if key is not None:
            _unlocked.pop(key, None)
            _salts.pop(key, None)


def header(path: str | Path) -> bytes | None:
    """The first 16 bytes of a memory file, or None when they cannot be read safely here
    (this process holds the file: a plain handle would drop its locks)."""
    path = Path(path)
    if locks.held_in_process(path):
        return None
    try:
        with path.open("rb") as handle:
            return handle.read(SALT_BYTES)
    except OSError:
        return None


def is_encrypted(path: str | Path) -> bool:
    """Whether an existing, non-empty memory file is encrypted (its header is not SQLite's)."""
    path = Path(path)
    first = header(path)
    if first is None:    # held here: keyed when opened if it is encrypted, else plain
        key = locks.file_key(path)
        with _lock:
            return key is not None and key in _salts
    # readable, so not held here: its own header answers (a salt keyed by device and inode
    # may belong to a deleted file whose inode this one reuses)
    return len(first) == SALT_BYTES and first != SQLITE_HEADER


def salt_of(path: str | Path) -> bytes:
    key = locks.file_key(path)
    with _lock:
        known = _salts.get(key) if key is not None else None
    if known is not None:
        return known
    first = header(path)
    if first is None or len(first) < SALT_BYTES:
        raise StoreError(f"{path}: cannot read the encrypted file's header")
    return first


def new_salt() -> bytes:
    return os.urandom(SALT_BYTES)


def key_pragma(key_hex: str, salt: bytes | None = None) -> str:
    """PRAGMA key with a raw key (and, for a new file, the salt to write into its header)."""
    return f"PRAGMA key = \"x'{key_hex}{salt.hex() if salt else ''}'\""


def rekey_pragma(key_hex: str) -> str:
    return f"PRAGMA rekey = \"x'{key_hex}'\""


def resolve(passphrase: Passphrase, path: str | Path) -> str:
    """The passphrase itself (asking the callable when it is one); one clear line when none."""
    value = passphrase() if callable(passphrase) else passphrase
    if not value:
        raise PassphraseError(f"{path}: the memory is encrypted; give its passphrase "
                              "(PULSE_PASSPHRASE, or type it when asked)")
    return value


def same(a: str, b: str) -> bool:
    return hmac.compare_digest(_digest(a), _digest(b))


def wrong_passphrase(path: str | Path) -> PassphraseError:
    return PassphraseError(f"{path}: wrong passphrase, or the encrypted file is damaged; "
                           "nothing was changed")
