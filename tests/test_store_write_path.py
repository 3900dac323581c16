"""What made the import's write stage cheap again, as behaviour: a change set's column names
are checked against a cache of each table's known columns (core/store/changes.py), which
refuses a name it has not seen only after asking the table again, so a column a migration adds
later is accepted and a crafted name is still refused before it reaches SQL; next_ids reads
several tables' next ids at once; db.connect hands a new or migrated memory over on a
connection opened after its migrations."""

from __future__ import annotations

import pytest

from core.store import changes
from core.store.commands import execute, next_ids
from core.store.sqlite import sqlite3


def _glossary_row(gid: int, **extra) -> dict:
    return {"t": "glossary", "a": "insert", "row": {
        "id": gid, "term": f"term{gid}", "is_pattern": 0, "domain": "fiction_content",
        "kind": "fictional_character", "note": "", **extra}}


def test_unknown_column_refused_after_the_cache_is_warm(memory):
    execute(memory.conn, actor="t", op="t", subject="", changes=[_glossary_row(1)])
    assert "glossary" in changes._columns_seen
    with pytest.raises(ValueError, match="unknown columns of glossary"):
        execute(memory.conn, actor="t", op="t", subject="",
                changes=[_glossary_row(2, **{"note) VALUES (1); --": "x"})])
    with pytest.raises(ValueError, match="unknown columns of glossary"):
        changes.apply_change(memory.conn, {"t": "glossary", "a": "update", "pk": {"id": 1},
                                           "set": {"nope": 1}, "old": {"nope": 0}})
    assert [r[0] for r in memory.conn.execute("SELECT id FROM glossary")] == [1]


def test_a_column_added_later_is_accepted(memory):
    execute(memory.conn, actor="t", op="t", subject="", changes=[_glossary_row(1)])
    with memory.conn:
        memory.conn.execute("ALTER TABLE glossary ADD COLUMN colour TEXT")
    execute(memory.conn, actor="t", op="t", subject="", changes=[_glossary_row(2, colour="red")])
    assert memory.conn.execute("SELECT colour FROM glossary WHERE id = 2").fetchone()[0] == "red"


def test_a_cached_column_missing_from_another_memory_is_refused_by_sqlite(memory, tmp_path):
    execute(memory.conn, actor="t", op="t", subject="", changes=[_glossary_row(1)])
    other = sqlite3.connect(tmp_path / "other.db")
    other.execute("CREATE TABLE glossary (id INTEGER PRIMARY KEY, term TEXT)")
    with pytest.raises(sqlite3.OperationalError, match="no column named"):
        changes.apply_change(other, _glossary_row(1))
    other.close()


def test_next_ids_match_next_id(memory):
    execute(memory.conn, actor="t", op="t", subject="", changes=[_glossary_row(7)])
    assert next_ids(memory.conn, "glossary", "events", "observations") == (8, 1, 1)


def test_a_new_memory_comes_on_a_connection_opened_after_its_migrations(tmp_path):
    # the connection that ran the migrations' DDL wrote about twice as slowly afterwards
    # (docs/benchmarks.md, "Throughput"): db.connect hands over a fresh one
    from core.store import db

    for name, kw in (("plain.db", {}), ("sealed.db", {"passphrase": "pw", "encrypt": True})):
        conn = db.connect(tmp_path / name, create=True, **kw)
        try:
            assert conn.total_changes == 0          # nothing written on this connection
            assert db.applied_versions(conn) == {v for v, _, _ in db.migrations()}
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
            assert conn.encrypted == bool(kw)
            execute(conn, actor="t", op="t", subject="", changes=[_glossary_row(1)])
        finally:
            conn.close()
        again = db.connect(tmp_path / name, **kw)
        assert [r[0] for r in again.execute("SELECT id FROM glossary")] == [1]
        again.close()
