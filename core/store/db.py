"""Open a Pulse memory file: identify it, back it up and migrate it, or refuse it untouched.

The file is checked read-only first, so a foreign, newer or corrupt file is refused before any
pragma (WAL switches write to the file) can change a byte of it.
"""

from __future__ import annotations

import re
import time
from datetime import datetime, timezone
from glob import escape as glob_escape
from importlib import resources
from pathlib import Path

from core.errors import BusyError, StoreError, busy_message, is_busy
from core.store import cipher, locks
from core.store.sqlite import sqlite3

# 'PULS' — marks a file as a Pulse memory, so another program's SQLite file is never migrated.
APPLICATION_ID = 0x50554C53
_MIGRATION_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")
# How long one statement waits for another process's lock before SQLite gives up; a write
# transaction that still finds the memory busy is retried (commands.transaction) before the
# user is told, in one line, that another program holds it.
BUSY_TIMEOUT_MS = 10_000


# BEGIN IMMEDIATE waits busy_timeout for the write lock; it is tried this many times before
# the user is told another program holds the memory.
BEGIN_ATTEMPTS = 3


def begin_immediate(conn: sqlite3.Connection) -> None:
    """Take the write lock, waiting and retrying while another process writes."""
    started = time.monotonic()
    for attempt in range(1, BEGIN_ATTEMPTS + 1):
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if not is_busy(exc):
                raise
            if attempt == BEGIN_ATTEMPTS:
                path = conn.execute("PRAGMA database_list").fetchone()[2]
                raise BusyError(busy_message(path, time.monotonic() - started)) from None
            time.sleep(0.05 * attempt)


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) for every file in core/store/migrations, in order."""
    found = []
    for entry in resources.files("core.store").joinpath("migrations").iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [v for v, _, _ in found]
    if len(set(versions)) != len(versions):
        raise RuntimeError("two migrations share a number")
    return found


def latest_version() -> int:
    return migrations()[-1][0]


def _utc_now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


_QUICK_CHECK_LIMIT = 64 * 1024 * 1024  # full page check only where it is cheap


def _truncated(path: Path) -> bool:
    """True when the header promises more pages than the file holds (a cut-off copy).

    Reads the header with a plain file handle, so it may only run while this process holds no
    SQLite lock on the file (closing the handle would drop them all): _inspect calls it only
    after SQLite itself refused the file, and never while a connection to it is open here."""
    if locks.held_in_process(path):
        return False
    with path.open("rb") as handle:
        header = handle.read(100)
    if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
        return False  # not SQLite at all: sqlite itself reports that
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    change_counter, valid_for = header[24:28], header[92:96]
    return change_counter == valid_for and pages * page_size > path.stat().st_size


def _inspect(path: Path, key: str | None = None) -> tuple[int, int, int, frozenset[int]]:
    """(application_id, schema version, number of tables, the migration versions applied), read
    through SQLite without writing.

    With no WAL beside the file it is opened immutable, so not even a -wal/-shm file appears;
    if a WAL shows up meanwhile (another process opened the memory), it is read again the
    normal way. A file this process already has open was checked when it was first opened: it
    gets no page check again (that costs a read of the whole file for every worker)."""
    held = locks.held_in_process(path)
    if not held and Path(f"{path}-journal").exists():
        _recover_hot_journal(path, key)
    for attempt in (1, 2):
        immutable = not held and not Path(f"{path}-wal").exists()
        try:
            return _read_identity(path, immutable=immutable, page_check=not held, key=key)
        except sqlite3.DatabaseError as exc:
            if attempt == 1 and immutable and Path(f"{path}-wal").exists():
                continue  # the file changed under the immutable read: read it properly
            if key is not None and "not a database" in str(exc):
                raise cipher.wrong_passphrase(path) from None
            if key is None and _truncated(path):
                raise StoreError(f"{path}: the file is truncated (a damaged or partial copy)"
                                 ) from None
            raise StoreError(f"{path}: not a readable Pulse memory ({exc})") from None
    raise AssertionError("unreachable")


def _recover_hot_journal(path: Path, key: str | None) -> None:
    """A write killed in rollback-journal mode (encrypt, decrypt and rekey leave WAL for their
    run) leaves a hot -journal: the file holds some new pages, the journal the old ones. A
    read-only or immutable open ignores or refuses it — a rekey killed midway then read as
    'wrong passphrase' with either passphrase. Any read-write open restores the last committed
    file (SQLite's own recovery, before it reads a page), so one is made first. It copies the
    journal's pages back as they are, whichever key it holds: a wrong one changes nothing
    that was committed."""
    try:
        # no wait: a journal beside a file another program is writing is not hot
        conn = sqlite3.connect(str(path), isolation_level=None, timeout=0)
    except sqlite3.Error:
        return
    try:
        if key is not None:
            conn.execute(cipher.key_pragma(key))
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError:
        pass    # a wrong key or not SQLite: the check that follows says which, in one line
    finally:
        conn.close()


def _read_identity(path: Path, *, immutable: bool, page_check: bool,
                   key: str | None = None) -> tuple[int, int, int, frozenset[int]]:
    flags = "&immutable=1" if immutable else ""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro{flags}", uri=True,
                               timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open ({exc})") from None
    try:
        if key is not None:
            conn.execute(cipher.key_pragma(key))
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        version, applied = 0, frozenset()
        if "schema_version" in tables:
            applied = frozenset(int(r[0]) for r in conn.execute(
                "SELECT version FROM schema_version"))
            version = max(applied, default=0)
        if page_check and path.stat().st_size <= _QUICK_CHECK_LIMIT:
            result = conn.execute("PRAGMA quick_check(1)").fetchone()[0]
            if result != "ok":
                raise StoreError(f"{path}: the memory file is damaged ({result})")
        return app_id, version, len(tables), applied
    finally:
        conn.close()


def _configure(conn: sqlite3.Connection, read_only: bool) -> None:
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    if not read_only:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")


def connect(path: str | Path, *, create: bool = False, read_only: bool = False,
            passphrase: cipher.Passphrase = None, encrypt: bool = False) -> sqlite3.Connection:
    """Open (and if needed create or migrate) the memory at `path`.

    An encrypted memory needs `passphrase` (a string, or a callable asked only then); a new one
    is created encrypted with `encrypt=True`. Raises StoreError with one clear line when the
    file is missing (and create is False), is not SQLite, belongs to another program, was
    written by a newer Pulse, or the passphrase is missing or wrong. Nothing is changed then.
    """
    path = Path(path)
    if path.is_dir():
        raise StoreError(f"{path}: is a folder, not a memory file")
    exists = path.exists() and path.stat().st_size > 0
    if not exists and not create:
        raise StoreError(f"{path}: no memory here (create one with `pulse init` or `pulse demo`)")
    key = salt = new_salt = secret = None
    if exists and cipher.is_encrypted(path):
        salt = cipher.salt_of(path)
        secret = cipher.resolve(passphrase or cipher.unlocked(path), path)
        key = cipher.derive(secret, salt)
    elif not exists and encrypt:
        salt = new_salt = cipher.new_salt()
        secret = cipher.resolve(passphrase, path)
        key = cipher.derive(secret, salt)
    if exists:
        app_id, version, n_tables, applied = _inspect(path, key)
        if app_id != APPLICATION_ID and n_tables > 0:
            raise StoreError(f"{path}: a SQLite file of another program, not a Pulse memory")
        if version > latest_version():
            raise StoreError(
                f"{path}: written by a newer Pulse (schema {version}, this version knows "
                f"{latest_version()}); upgrade Pulse to open it"
            )
        pending = [v for v, _, _ in migrations() if v not in applied]
        if 0 < version and pending and not read_only:
            backup = path.with_name(f"{path.name}.bak-{version}")
            _checkpoint_copy(path, backup, key, salt)
    else:
        if not path.parent.exists():
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"{path.parent}: cannot create folder ({exc.strerror})") from None
    target = f"{path.resolve().as_uri()}?mode=ro" if read_only else str(path)
    conn = _open(path, target, read_only, key, new_salt, secret, salt)
    if not read_only:
        try:
            before = applied_versions(conn)
            migrate(conn)
            changed = applied_versions(conn) != before
        except sqlite3.Error as exc:
            conn.close()
            if is_busy(exc):
                raise BusyError(busy_message(path)) from None
            raise StoreError(f"{path}: cannot prepare the memory ({exc})") from None
        if changed:
            # A connection that ran the migrations' DDL wrote about twice as slowly ever after
            # (SQLCipher's SQLite: the LoCoMo import's change sets took 5.5-6.2 s of CPU on it,
            # 2.7-3.1 s on a connection opened after): the caller gets a fresh one.
            conn.close()
            conn = _open(path, target, read_only, key, new_salt, secret, salt)
        _remove_interrupted_conversions(path)
    return conn


# What encrypt / decrypt write beside a memory (and its backups) before one rename
CONVERSIONS = (".{name}.encrypting", ".{name}.decrypting", ".{name}.bak-*.converting")


def _remove_interrupted_conversions(path: Path) -> None:
    """Leftovers of an encrypt or decrypt killed before its rename; a decrypt's is a plain
    copy of the memory. A conversion holds the memory to itself until its rename, so one this
    connection could open and prepare is over."""
    for pattern in CONVERSIONS:
        for leftover in path.parent.glob(pattern.format(name=glob_escape(path.name)) + "*"):
            leftover.unlink(missing_ok=True)


def _open(path: Path, target: str, read_only: bool, key: str | None, new_salt: bytes | None,
          secret: str | None, salt: bytes | None) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(target, uri=read_only, check_same_thread=False,
                               timeout=BUSY_TIMEOUT_MS / 1000,
                               factory=locks.TrackedConnection)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open ({exc})") from None
    conn.track(path)
    conn.isolation_level = None  # we issue BEGIN/COMMIT ourselves (one transaction per command)
    conn.row_factory = sqlite3.Row
    try:
        if key is not None:
            conn.execute(cipher.key_pragma(key, new_salt))
            conn.encrypted = True
            conn.secret = secret        # sealed exports of this memory use the same passphrase
            cipher.remember_salt(path, salt)
            cipher.remember_unlocked(path, secret)
        _configure(conn, read_only)
    except sqlite3.Error as exc:
        conn.close()
        if is_busy(exc):
            raise BusyError(busy_message(path)) from None
        raise StoreError(f"{path}: cannot prepare the memory ({exc})") from None
    return conn


def _checkpoint_copy(path: Path, backup: Path, key: str | None = None,
                     salt: bytes | None = None) -> None:
    """Copy a consistent snapshot (the WAL folded in) before a migration touches the file.

    Through SQLite's backup API only: a plain file copy would open the memory with a plain
    handle (dropping this process's locks on it) and could copy a half-checkpointed file.
    An encrypted memory's backup is encrypted with the same key (it opens with the same
    passphrase)."""
    try:
        src = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                              timeout=BUSY_TIMEOUT_MS / 1000)
        if key is not None:
            src.execute(cipher.key_pragma(key))
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot back it up before migrating ({exc}); nothing was "
                         "changed") from None
    try:
        backup.unlink(missing_ok=True)   # an older backup of the same version is replaced whole
        dst = sqlite3.connect(str(backup))
        if key is not None:
            dst.execute(cipher.key_pragma(key, salt))
        try:
            with dst:
                src.backup(dst)
        finally:
            dst.close()
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot back it up to {backup.name} before migrating ({exc});"
                         " nothing was changed") from None
    finally:
        src.close()


def schema_version(conn: sqlite3.Connection) -> int:
    has_table = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'"
    ).fetchone()
    if not has_table:
        return 0
    return int(conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()[0])


def applied_versions(conn: sqlite3.Connection) -> set[int]:
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'"
                        ).fetchone():
        return set()
    return {int(r[0]) for r in conn.execute("SELECT version FROM schema_version")}


def migrate(conn: sqlite3.Connection) -> int:
    """Apply every migration not yet applied, each in its own transaction, in order. Returns
    the new version. Numbers are reserved per piece of work and may land out of order (007
    before 006): a missing one is applied even when a higher one already is."""
    done = applied_versions(conn)
    for version, name, sql in migrations():
        if version in done:
            continue
        begin_immediate(conn)
        try:
            if version == 1:
                conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
                conn.execute(
                    "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                    " applied_at TEXT NOT NULL)"
                )
            for statement in _split_sql(sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)",
                (version, name, _utc_now_iso()),
            )
            conn.execute("COMMIT")
        except Exception:
            conn.execute("ROLLBACK")
            raise
        done.add(version)
    return schema_version(conn)


def _split_sql(sql: str) -> list[str]:
    """Split a migration into statements; sqlite3.complete_statement keeps triggers whole."""
    statements, buffer = [], ""
    for line in sql.splitlines(keepends=True):
        if not buffer and line.strip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
