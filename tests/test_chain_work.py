"""Chain work that is not done when it is not needed (core/scoring/scorer.py): with
`chain_context_weight` 0 a query outside chain mode never reads the chain links. Real SQLite
(SQLite's trace callback shows what the connection reads). Chain mode's own work, one walk of
causes per listed event, is in tests/test_chain_order.py."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from core.memory import Memory
from core.store import records
from tests.test_scoring_formula import NOW, QUERY, iso

LINKS_READ = "FROM event_chains"


@contextmanager
def _statements(memory: Memory) -> Iterator[list[str]]:
    seen: list[str] = []
    memory.conn.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        memory.conn.set_trace_callback(None)


def _linked_memory(memory: Memory) -> None:
    ids = []
    for title in ("walking along the harbour at dawn", "the harbour storm that night",
                  "rain on the roof"):
        vec = memory.embedder().embed_passages([title])[0]
        ids.append(records.add_event(memory.conn, actor="import",
                                     fields={"title": title, "ts": iso(NOW)},
                                     vectors=[records.Vector(memory.embedding_model,
                                                             np.asarray(vec, np.float32))]))
    records.link_events(memory.conn, actor="import", parent_id=ids[0], child_id=ids[1])


def test_without_chain_context_a_plain_query_reads_no_links(memory: Memory) -> None:
    """Chain context is off at weight 0: nothing is added to any score, so the links (a whole
    table, read when first used) are not read at all; chain mode still reads them, and so does
    the default weight."""
    _linked_memory(memory)
    with _statements(memory) as off:
        out = memory.retrieve(QUERY, scorer="pulse", now=NOW, abstain=False,
                              settings={"chain_context_weight": 0.0})
    assert len(out["results"]) == 3
    assert "chain_context" not in out["results"][0]["terms"]
    assert not [sql for sql in off if LINKS_READ in sql]
    with _statements(memory) as chain_mode:
        memory.retrieve(QUERY, scorer="pulse", now=NOW, abstain=False, chain=True,
                        settings={"chain_context_weight": 0.0})
    assert [sql for sql in chain_mode if LINKS_READ in sql]
    other = Memory.open(memory.path)          # a fresh process's caches: read at the default
    try:
        with _statements(other) as default:
            other.retrieve(QUERY, scorer="pulse", now=NOW, abstain=False)
        assert [sql for sql in default if LINKS_READ in sql]
    finally:
        other.close()
