"""The store: creation, pragmas, migrations with backup, refusal of files it must not touch."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.errors import StoreError
from core.memory import Memory
from core.store import db


def test_new_memory_has_schema_wal_and_foreign_keys(db_path: Path) -> None:
    with Memory.open(db_path, create=True) as memory:
        conn = memory.conn
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
        assert db.schema_version(conn) == db.latest_version()
        assert conn.execute("PRAGMA application_id").fetchone()[0] == db.APPLICATION_ID


def test_opening_twice_is_idempotent(db_path: Path) -> None:
    Memory.open(db_path, create=True).close()
    with Memory.open(db_path) as memory:
        assert db.schema_version(memory.conn) == db.latest_version()


def test_missing_file_is_refused_without_create(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no memory here"):
        Memory.open(tmp_path / "absent.db")
    assert not (tmp_path / "absent.db").exists()


def _bytes(path: Path) -> bytes:
    return path.read_bytes()


def test_foreign_sqlite_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("INSERT INTO notes (body) VALUES ('hello')")
    conn.commit()
    conn.close()
    before = _bytes(path)
    with pytest.raises(StoreError, match="another program"):
        Memory.open(path)
    assert _bytes(path) == before
    assert not Path(f"{path}-wal").exists()


def test_random_bytes_are_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "noise.db"
    path.write_bytes(bytes(range(256)) * 40)
    before = _bytes(path)
    with pytest.raises(StoreError, match="noise.db"):
        Memory.open(path)
    assert _bytes(path) == before


def test_newer_schema_is_refused_untouched(db_path: Path) -> None:
    Memory.open(db_path, create=True).close()
    conn = sqlite3.connect(db_path)
    conn.execute("INSERT INTO schema_version (version, name, applied_at) VALUES (999, 'future', 'x')")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    before = _bytes(db_path)
    with pytest.raises(StoreError, match="newer Pulse"):
        Memory.open(db_path)
    assert _bytes(db_path) == before


def test_older_schema_is_backed_up_then_migrated(db_path: Path, monkeypatch) -> None:
    all_migrations = db.migrations()
    # Pretend only the first migration existed when the file was made …
    monkeypatch.setattr(db, "migrations", lambda: all_migrations[:1])
    monkeypatch.setattr(db, "latest_version", lambda: all_migrations[0][0])
    Memory.open(db_path, create=True).close()
    monkeypatch.undo()
    # … then add a new numbered migration and open the file again.
    extra = (all_migrations[-1][0] + 1, "999_test_extra.sql",
             "CREATE TABLE test_extra (id INTEGER PRIMARY KEY);")
    monkeypatch.setattr(db, "migrations", lambda: all_migrations + [extra])
    monkeypatch.setattr(db, "latest_version", lambda: extra[0])
    with Memory.open(db_path) as memory:
        assert db.schema_version(memory.conn) == extra[0]
    backup = db_path.with_name(f"{db_path.name}.bak-{all_migrations[0][0]}")
    assert backup.exists()
    old = sqlite3.connect(backup)
    assert old.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] == all_migrations[0][0]
    old.close()


def test_a_migration_numbered_below_the_latest_is_still_applied(db_path: Path,
                                                               monkeypatch) -> None:
    """Migrations are written on parallel branches and land in either order: a file made
    before 005 existed, but after 006, still gets 005 (backed up first)."""
    all_migrations = db.migrations()
    numbers = {v for v, _, _ in all_migrations}
    gap = min(set(range(2, max(numbers))) - numbers, default=None)
    if gap is None:
        gap = max(numbers) + 1
        all_migrations = all_migrations + [(gap + 1, f"{gap + 1:03d}_later.sql", "")]
    Memory.open(db_path, create=True).close()
    late = (gap, f"{gap:03d}_test_gap.sql", "CREATE TABLE test_gap (id INTEGER PRIMARY KEY);")
    monkeypatch.setattr(db, "migrations", lambda: sorted(all_migrations + [late]))
    with Memory.open(db_path) as memory:
        assert gap in db.applied_versions(memory.conn)
        assert memory.conn.execute("SELECT COUNT(*) FROM test_gap").fetchone()[0] == 0
    assert db_path.with_name(f"{db_path.name}.bak-{max(numbers)}").exists()
    with Memory.open(db_path) as memory:                 # nothing pending: no second run
        assert memory.verify() == []


def test_folder_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="folder"):
        Memory.open(tmp_path, create=True)


@pytest.mark.parametrize("fraction", [0.01, 0.5, 0.97])
def test_truncated_memory_is_refused_untouched(db_path: Path, tmp_path: Path,
                                               fraction: float) -> None:
    with Memory.open(db_path, create=True) as memory:
        memory.import_corpus({"format": "pulse-corpus/1", "events": [
            {"key": f"e{i}", "title": f"Event number {i}", "ts": "2026-01-01T00:00:00Z"}
            for i in range(40)]})
        memory.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = db_path.read_bytes()
    cut = tmp_path / "cut.db"
    cut.write_bytes(data[: int(len(data) * fraction)])
    before = cut.read_bytes()
    with pytest.raises(StoreError, match="cut.db"):
        Memory.open(cut)
    assert cut.read_bytes() == before
    assert not Path(f"{cut}-wal").exists() and not Path(f"{cut}-shm").exists()


def test_path_under_a_file_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "plain.txt"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError, match="plain.txt"):
        Memory.open(blocker / "memory.db", create=True)
    assert blocker.read_text() == "not a folder"


def test_embedding_text_says_the_speaker_again_instead_of_the_title_head():
    from core.store.records import embedding_text

    desc = "Dana: I finally told my sister about the diagnosis and she cried with me."
    assert embedding_text("Dana: I finally told my sister about the…", desc) == f"Dana: {desc}"
    assert embedding_text(desc, desc) == f"Dana: {desc}"
    assert embedding_text("", "  just this  ") == "just this"
    assert embedding_text("A note…", "A note: without a speaker label") == \
        "A note: A note: without a speaker label"
    assert embedding_text("Dad's funeral", "We buried him in the rain.") == \
        "Dad's funeral\nWe buried him in the rain."
