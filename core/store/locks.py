"""Which memory files this process may hold SQLite locks on — so nothing opens them with a
plain file handle meanwhile.

POSIX advisory locks belong to the process, not to the descriptor: closing *any* descriptor of
a file drops *every* lock the process holds on it (SQLite's "How To Corrupt An SQLite Database
File", §2.2). A plain open()/close() of a memory file, its -wal or its -shm while a connection
is open in the same process therefore leaves that connection unlocked; another process then
takes itself for the last user, checkpoints and deletes the WAL still in use (issue 11).

Two sources, either is enough to say "held": the connections `core.store.db.connect` opened
and has not seen closed (a connection dropped without close() stays counted: the safe side),
and — on Linux — any descriptor of this process open on the file, its -wal or -shm, whoever
opened it.
"""

from __future__ import annotations

import os
import sys
import threading
import weakref
from pathlib import Path

from core.errors import PulseError
from core.store.sqlite import sqlite3

SIDE_FILES = ("", "-wal", "-shm", "-journal")

_lock = threading.Lock()
_open: dict[tuple[int, int], int] = {}     # (st_dev, st_ino) → connections open via connect()


def file_key(path: str | Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


class TrackedConnection(sqlite3.Connection):
    """A sqlite3 connection that counts itself in the registry while it is open."""

    _pulse_token: list | None = None
    encrypted = False            # keyed (an encrypted memory): set by db.connect
    secret: str | None = None    # its passphrase, kept in this process only (sealed exports)

    def track(self, path: str | Path) -> None:
        key = file_key(path)
        if key is None:
            return
        with _lock:
            _open[key] = _open.get(key, 0) + 1
        token = [key]
        self._pulse_token = token
        weakref.finalize(self, _release, token)

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._pulse_token is not None:
                _release(self._pulse_token)


def _release(token: list) -> None:
    key = token[0]
    if key is None:
        return
    token[0] = None
    with _lock:
        left = _open.get(key, 0) - 1
        if left > 0:
            _open[key] = left
        else:
            _open.pop(key, None)


def _main_file(path: Path) -> Path:
    """The database a -wal/-shm/-journal path belongs to (the path itself otherwise)."""
    name = path.name
    for suffix in SIDE_FILES[1:]:
        if name.endswith(suffix):
            return path.with_name(name[: -len(suffix)])
    return path


def _descriptor_open(main: Path) -> bool:
    """Linux: is any descriptor of this process open on `main` or one of its side files?"""
    if not sys.platform.startswith("linux"):    # elsewhere the registry above is the source
        return False
    fd_dir = "/proc/self/fd"
    if not os.path.isdir(fd_dir):
        return False
    try:
        real = os.path.realpath(main)
    except OSError:
        return False
    targets = {real + suffix for suffix in SIDE_FILES}
    try:
        fds = os.listdir(fd_dir)
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"{fd_dir}/{fd}") in targets:
                return True
        except OSError:
            continue
    return False


def held_in_process(path: str | Path) -> bool:
    """True when this process may hold SQLite locks on the memory at `path` (or the memory
    whose -wal/-shm `path` is): then it must not be opened with a plain file handle."""
    main = _main_file(Path(path))
    key = file_key(main)
    if key is not None:
        with _lock:
            if _open.get(key):
                return True
    return _descriptor_open(main)


SQLITE_HEADER = b"SQLite format 3\x00"
SEALED_HEAD = b'{"format": "pulse-sealed/1"'   # core/sealed.py: text header, binary after it
TEXT_PROBE_BYTES = 1024


def refuse_to_overwrite(path: str | Path) -> None:
    """Before an export replaces `path`: never the memory open here, nor any SQLite database —
    another memory given as OUT by mistake (`pulse journal export pulse.db`) would be lost.
    An encrypted memory has no header to know it by (SQLCipher's first bytes are a random
    salt), so a file is replaced only when it could be an export: empty, sealed, or text."""
    import codecs

    refuse_if_held(path, "overwritten")
    try:
        with open(path, "rb") as fh:     # not held here (checked above): no lock to drop
            head = fh.read(TEXT_PROBE_BYTES)
    except OSError:
        return
    if head.startswith(SQLITE_HEADER):
        raise PulseError(f"{path}: is a database (a Pulse memory?); an export never replaces "
                         "it — choose another file name")
    if not head or head.startswith(SEALED_HEAD):
        return
    try:    # a multi-byte character cut by the probe's end is still text
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        raise PulseError(f"{path}: is not a file an export wrote (binary: an encrypted memory?); "
                         "an export never replaces it — choose another file name") from None


def refuse_if_held(path: str | Path, what: str = "read") -> None:
    """One clear line instead of a plain open() that would drop this process's locks on a memory
    that is open here (e.g. `pulse --db m.db import m.db`, or a lint of the memory's folder)."""
    if held_in_process(path):
        raise PulseError(f"{path}: is a Pulse memory file open in this program; it cannot be "
                         f"{what} as a plain file")
