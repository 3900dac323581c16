"""The abstention evidence's word counts (core/scoring/lexical.py, TermCounts) remember at most
50,000 words: a long-running app or MCP server asked about ever new words must not grow its
counts without bound. A word asked past that is still counted exactly, only not kept; the
words already kept stay kept. Real SQLite (the FTS5 vocabulary the counts read)."""

from __future__ import annotations

from core.memory import Memory
from core.scoring.changelog import current_rev
from core.scoring.lexical import TermCounts
from core.store import records


def test_the_counts_remember_at_most_50_000_words(memory: Memory) -> None:
    records.add_event(memory.conn, actor="import",
                      fields={"title": "A zanzibar postcard came", "ts": "2026-09-01T10:00:00Z"})
    conn, rev, counts = memory.conn, current_rev(memory.conn), TermCounts()
    unheard = [f"w{i}" for i in range(50_000)]
    assert sum(counts.get(conn, rev, word) for word in unheard) == 0
    assert len(counts._counts) == 50_000
    assert counts.get(conn, rev, "zanzibar") == 1           # counted, but no room to keep it
    assert "zanzibar" not in counts._counts and len(counts._counts) == 50_000
    assert counts.get(conn, rev, "postcard") == 1
    assert counts.get(conn, rev, "w0") == 0 and counts._counts["w0"] == (0, counts._top)
