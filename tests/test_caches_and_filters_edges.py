"""Edges where a cache kept from an earlier query must not outlive what changed, and where a
domain filter must hold for the turn after a candidate as for the one before it. Each was a
surviving mutant of core/scoring that no test told apart (docs/scoring.md, "Mutation check"):
a new event placed in a spare index row a compaction left dead, a stale held index snapshotted
at close after an erasure, the word counts kept after the newest event was forgotten, a next
turn of another domain let into a filtered query, and a next turn at row 0 left out of the
candidates. Real SQLite files, the real embedder."""

from __future__ import annotations

import math
from datetime import timedelta
from pathlib import Path

import numpy as np

from core.memory import Memory
from core.scoring import snapshot
from core.scoring.index import IndexCache, load_index
from core.store import records
from core.store.commands import execute, transaction
from core.upkeep.proposals import archive_change
from tests.test_index_refresh_edges import MODEL, _add
from tests.test_scoring_formula import NOW, by_id, iso, unit_query
from tests.test_scoring_neighbours_and_seeds import ANSWER, QUERY, QUESTION, _event, _observation


def _archive(memory: Memory, event_id: int) -> None:
    with transaction(memory.conn):
        execute(memory.conn, actor="manual", op="event.archive", subject=f"event:{event_id}",
                changes=[archive_change(memory.conn, event_id)])


def test_a_restored_event_and_a_new_one_after_the_newest_left_are_both_live(
        memory: Memory) -> None:
    """The two newest events leave the index (archived), so its compaction leaves their old
    rows, flagged dead, past the live ones. An older event restored and a new one remembered
    before the next query are placed in one refresh: the old one shifts the rows up, the new
    one (above every id) lands in one of those spare rows, and must be live there."""
    rng = np.random.default_rng(21)
    ids = [_add(memory, f"moment {i}", rng) for i in range(5)]
    cache = IndexCache()
    index = cache.get(memory.conn, MODEL)
    for event_id in (ids[0], ids[3], ids[4]):
        _archive(memory, event_id)
    assert cache.get(memory.conn, MODEL) is index and index.ids.tolist() == ids[1:3]
    memory.restore(ids[0])
    new = _add(memory, "a moment after all of them", rng, day=2)
    assert cache.get(memory.conn, MODEL) is index and cache.full_loads == 1
    assert index.ids.tolist() == [*ids[:3], new]
    assert index.live.all() and index.position(new) == 3
    assert index.ids.tolist() == load_index(memory.conn, MODEL).ids.tolist()


def test_an_event_forgotten_before_close_is_not_written_back_by_the_snapshot(
        tmp_path: Path, monkeypatch) -> None:
    """`close` snapshots a large index it holds when the file's snapshot is missing; an
    erasure since the index was loaded dropped that snapshot but not the index in memory, so
    the index must be brought up to date first: no byte of the forgotten event's vector may
    reach the file. (SNAPSHOT_ROWS lowered so that a small memory counts as large.)"""
    monkeypatch.setattr(snapshot, "SNAPSHOT_ROWS", 1)
    path = tmp_path / "m.db"
    memory = Memory.open(path, create=True)
    for text in ("Walked to the harbour at dawn", "My sister called about the move",
                 "Failed the exam and told no one", "Tea with Anna on Sunday"):
        memory.remember(text, ts="2026-10-01T10:00:00Z")
    memory.retrieve("harbour", abstain=False)            # loads and holds the index
    secret = memory.conn.execute("SELECT id FROM events WHERE title LIKE '%exam%'"
                                 " OR description LIKE '%exam%'").fetchone()[0]
    vector = bytes(memory.conn.execute(
        "SELECT vector FROM event_embeddings WHERE event_id = ? AND model = ?",
        (secret, memory.embedding_model)).fetchone()[0])
    memory.forget([f"event:{secret}"])
    memory.close()
    reopened = Memory.open(path)
    try:
        assert reopened.conn.execute("SELECT COUNT(*) FROM index_snapshot").fetchone()[0] > 0
    finally:
        reopened.close()
    written = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert vector[:64] not in written


def test_a_word_of_the_newest_event_is_not_found_after_that_event_is_forgotten(
        memory: Memory) -> None:
    """The word counts are kept between queries and synced from the change log; a change to
    the words of the newest event they counted (here its erasure) must drop them, or the
    word still counts as found (term coverage, the abstention's evidence)."""
    for text in ("Planted the pear tree", "Made plum jam with Anna"):
        _event(memory, text, iso(NOW), None)
    newest = _event(memory, "Baked an apple pie for the fair", iso(NOW), None)
    before = memory.retrieve("apple", scorer="pulse", now=NOW, abstain=False)["evidence"]
    assert before["words_found"] == 1
    memory.forget([f"event:{newest}"])
    after = memory.retrieve("apple", scorer="pulse", now=NOW, abstain=False)["evidence"]
    assert after["words_found"] == 0 and after["term_coverage"] == 0.0


def test_a_domain_filter_keeps_the_other_domains_reply_out_of_results_and_context(
        memory: Memory) -> None:
    """The mirror of the previous-turn case in test_scoring_neighbours_and_seeds.py: the
    question is real, its reply (the next turn) is fiction, and an older real event holds row
    0. A `domains="real"` query must neither return the reply nor take context from it."""
    start = NOW - timedelta(days=2, hours=12)
    asked, replied = iso(start), iso(start + timedelta(minutes=5))
    _event(memory, "Bought a new bicycle for the commute", iso(start - timedelta(days=3)), None)
    question = _event(memory, QUESTION, asked, _observation(memory, 0, QUESTION, asked))
    answer = _event(memory, ANSWER, replied, _observation(memory, 1, ANSWER, replied),
                    domain="fiction_content")
    everything = by_id(memory.retrieve(QUERY, scorer="pulse", now=NOW, abstain=False))
    assert everything[question]["terms"]["context_relevance"] > 0    # the turns are linked
    real = by_id(memory.retrieve(QUERY, scorer="pulse", now=NOW, abstain=False,
                                 domains="real"))
    assert answer not in real
    assert all(r["domain"] == "real" for r in real.values())
    assert real[question]["terms"]["context_relevance"] == 0.0


def _designed(memory: Memory, cosine: float, title: str, when: str, obs: int | None,
              seed: int) -> int:
    """An event whose vector has (about) `cosine` with the query's real embedding."""
    q = unit_query(memory).astype(np.float64)
    q /= np.linalg.norm(q)
    u = np.random.default_rng(seed).normal(size=q.shape[0])
    u -= (u @ q) * q
    u /= np.linalg.norm(u)
    vector = cosine * q + math.sqrt(1 - cosine * cosine) * u
    fields = {"title": title, "ts": when}
    if obs is not None:
        fields["source_observation"] = obs
    return records.add_event(memory.conn, actor="import", fields=fields,
                             vectors=[records.Vector(memory.embedding_model,
                                                     vector.astype(np.float32))])


def test_a_next_turn_at_row_0_joins_the_candidates_through_its_context(memory: Memory) -> None:
    """The reply's event is stored first (row 0) and is far from the query itself (cosine
    0.02, not among the N = 5 dense candidates); the question before it is the best match. The
    reply joins the candidates as the question's next turn, and its context (0.5 × 0.3 × 0.9)
    ranks it above the fifth dense candidate (cosine 0.05): it is among the top 5."""
    start = NOW - timedelta(days=2)
    asked, replied = iso(start), iso(start + timedelta(minutes=5))
    question_obs = _observation(memory, 0, "a question", asked)
    reply = _designed(memory, 0.02, "a reply", replied,
                      _observation(memory, 1, "a reply", replied), seed=1)
    question = _designed(memory, 0.9, "a question", asked, question_obs, seed=2)
    others = [_designed(memory, c, f"note {i}", asked, None, seed=10 + i)
              for i, c in enumerate((0.5, 0.4, 0.3, 0.05, 0.04, 0.03))]
    assert memory.scorer.index().ids.tolist()[0] == reply
    out = memory.retrieve("walking along the harbour at dawn", scorer="pulse", now=NOW,
                          top_k=5, abstain=False,
                          settings={"candidates_min": 1, "candidates_per_k": 1})
    got = [r["id"] for r in out["results"]]
    assert got == [question, *others[:3], reply]
    assert by_id(out)[reply]["terms"]["context_relevance"] > 0
