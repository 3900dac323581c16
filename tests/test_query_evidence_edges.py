"""What a query reports about its own evidence and scale (docs/scoring.md): the share of the
query's words the memory holds when they are everywhere, a word FTS5 splits in two found in
the very first event, the best lexical hit's share of itself when BM25 scores below 1, the
closeness and the normalisation of a domain-filtered query taken over its domain only, and the
confidence floor reported as applied only when it lifts the recency."""

from __future__ import annotations

import numpy as np
import pytest

from core.memory import Memory
from core.store import records
from tests.test_scoring_formula import COSINES_30, NOW, QUERY, by_id, designed, iso, stored_cosines


def _event(memory: Memory, text: str, domain: str = "real") -> int:
    vec = memory.embedder().embed_passages([text])[0]
    return records.add_event(memory.conn, actor="import",
                             fields={"title": text, "ts": iso(NOW), "domain": domain},
                             vectors=[records.Vector(memory.embedding_model,
                                                     np.asarray(vec, np.float32))])


def test_a_word_every_event_holds_is_full_coverage(memory: Memory) -> None:
    """A word in every event carries little information (IDF well below 1), yet it is found:
    the coverage is all of the query's, not none of it."""
    for text in ("The lighthouse keeper waved", "A storm hit the lighthouse",
                 "Painted the lighthouse door"):
        _event(memory, text)
    out = memory.retrieve("lighthouse", scorer="pulse", now=NOW, abstain=False)
    assert out["evidence"]["words_found"] == 1
    assert out["evidence"]["term_coverage"] == 1.0


def test_a_word_fts5_splits_in_two_is_found_in_the_first_event(memory: Memory) -> None:
    """`build_server` is one query word but two FTS5 terms, so it is counted by its phrase;
    the only event holding it is the memory's first (id 1), and it counts."""
    first = _event(memory, "Restarted the build_server after the outage")
    _event(memory, "Walked the dog along the river")
    assert first == 1
    assert memory.scorer._term_counts._terms(memory.conn, "build_server") == ("build", "server")
    out = memory.retrieve("build_server", scorer="pulse", now=NOW, abstain=False)
    assert out["evidence"]["words_found"] == 1 and out["evidence"]["words"] == 1
    assert out["evidence"]["term_coverage"] == 1.0


def test_the_best_lexical_hit_is_its_own_scale_even_below_a_bm25_of_one(
        memory: Memory) -> None:
    """A common word scores below 1 in BM25; the best hit's bm25_norm is still 1 and the others
    are their share of it (not 0: the lexical channel must not vanish for common words)."""
    texts = ["The lighthouse keeper waved from the lighthouse", "A storm hit the lighthouse",
             "Painted the garden fence", "Bought bread at the market", "Fed the neighbours' cat"]
    ids = [_event(memory, t) for t in texts]
    got = by_id(memory.retrieve("lighthouse", scorer="pulse", now=NOW, top_k=10,
                                abstain=False))
    hits = {i: got[i]["terms"] for i in ids[:2]}
    best = max(t["bm25"] for t in hits.values())
    assert 0 < best < 1
    for terms in hits.values():
        assert terms["bm25_norm"] == pytest.approx(terms["bm25"] / best, rel=1e-12)
    assert max(t["bm25_norm"] for t in hits.values()) == 1.0


def _real_and_one_close_fiction(memory: Memory) -> tuple[list[int], int]:
    real = designed(memory, COSINES_30[:20])
    fiction = designed(memory, [0.99], seed=9, domain="fiction_content")[0]
    return real, fiction


def test_a_domain_filtered_query_is_scaled_by_its_own_domain(memory: Memory) -> None:
    """The fiction event is the closest of all, but a `real` query's best, median and
    relevance are those of the real events alone."""
    real, fiction = _real_and_one_close_fiction(memory)
    cos = stored_cosines(memory)
    real_cos = [cos[i] for i in real]
    best, median = max(real_cos), float(np.median(real_cos))
    assert cos[fiction] > best
    out = memory.retrieve(QUERY, scorer="v2", now=NOW, top_k=30, abstain=False,
                          domains="real")
    assert out["evidence"]["max_cosine"] == pytest.approx(best, abs=1e-6)
    assert out["evidence"]["median_cosine"] == pytest.approx(median, abs=1e-6)
    got = by_id(out)
    assert fiction not in got
    top = max(real, key=lambda i: cos[i])
    assert got[top]["terms"]["relevance"] == pytest.approx(1.0, abs=1e-9)


def test_an_event_closer_than_the_domains_best_explains_at_relevance_one(
        memory: Memory) -> None:
    """Explained under a `real` query, the closer fiction event's relevance is clipped to the
    scale's top, 1 (it is outside the domain, so the scale is not its own)."""
    _, fiction = _real_and_one_close_fiction(memory)
    out = memory.explain(fiction, QUERY, scorer="v2", now=NOW, domains="real")
    assert out["result"]["allowed_by_domain"] is False
    assert out["result"]["terms"]["relevance"] == 1.0


def test_a_query_no_event_of_its_domain_answers_has_no_closeness(memory: Memory) -> None:
    designed(memory, COSINES_30[:5], domain="fiction_content")
    out = memory.retrieve(QUERY, scorer="pulse", now=NOW, abstain=False, domains="real")
    assert out["results"] == []
    assert out["evidence"]["max_cosine"] == 0.0
    assert out["evidence"]["median_cosine"] == 0.0


def test_the_floor_is_applied_only_when_it_lifts_the_recency(memory: Memory) -> None:
    """Remembered just now, an event's recency is already 1: a confidence floor of 1 changes
    nothing and is not reported as applied; a day later it is."""
    now_event = designed(memory, [0.8], days_ago=0.0, confidence_floor=1.0)[0]
    older = designed(memory, [0.7], days_ago=1.0, confidence_floor=1.0, seed=6)[0]
    got = by_id(memory.retrieve(QUERY, scorer="v2", now=NOW, top_k=10, abstain=False))
    assert got[now_event]["terms"]["recency"] == 1.0
    assert got[now_event]["terms"]["floor_applied"] is False
    assert got[older]["terms"]["recency"] < 1.0
    assert got[older]["terms"]["floor_applied"] is True


def test_words_of_events_older_than_the_change_log_are_found(db_path) -> None:
    """A memory whose events predate its change log (migration 010 starts it empty, with no
    revision): the first query's word counts cover every event, not only logged ones."""
    with Memory.open(db_path, create=True) as memory:
        _event(memory, "The lighthouse keeper waved")
        _event(memory, "Walked the dog along the river")
        memory.conn.execute("DELETE FROM index_changes")         # as migration 010 leaves it
        memory.conn.execute("DELETE FROM sqlite_sequence WHERE name = 'index_changes'")
        memory.conn.commit()
    with Memory.open(db_path) as memory:
        out = memory.retrieve("lighthouse", scorer="pulse", now=NOW, abstain=False)
        assert out["evidence"]["words_found"] == 1
        assert out["evidence"]["term_coverage"] == 1.0


def _count_statements(memory: Memory, query: str) -> list[str]:
    """The statements counting a word's events (TermCounts) run by one retrieve."""
    seen: list[str] = []
    memory.conn.set_trace_callback(seen.append)
    try:
        memory.retrieve(query, scorer="pulse", now=NOW, abstain=False)
    finally:
        memory.conn.set_trace_callback(None)
    return [s for s in seen if s.startswith("SELECT")
            and ("pulse_fts_row" in s or "count(*) FROM events_fts" in s)]


def test_a_word_asked_again_is_not_counted_again(memory: Memory) -> None:
    """The word counts are kept across queries (a conversation reuses its words): asked again
    with no write between, a word costs no count at all; a word new to the memory's counts
    costs one."""
    _event(memory, "The lighthouse keeper waved")
    _event(memory, "Walked the dog along the river")
    assert len(_count_statements(memory, "lighthouse river")) == 2
    assert _count_statements(memory, "lighthouse river") == []
    assert len(_count_statements(memory, "river keeper")) == 1


def test_the_word_counts_hold_at_most_their_limit_of_words(memory: Memory) -> None:
    """The kept counts are bounded (TermCounts.LIMIT words; 3 here): words past the bound are
    counted right but not kept, and a kept word's count still follows new events."""
    from core.scoring.lexical import TermCounts

    _event(memory, "The lighthouse keeper waved at the river boat")
    counts = TermCounts()
    counts.LIMIT = 3
    rev = memory.scorer.index().text_rev
    words = ["lighthouse", "keeper", "river", "boat", "waved"]
    assert [counts.get(memory.conn, rev, w) for w in words] == [1] * 5
    assert sorted(counts._counts) == ["keeper", "lighthouse", "river"]
    _event(memory, "Another lighthouse further north")
    rev = memory.scorer.index().text_rev
    assert counts.get(memory.conn, rev, "lighthouse") == 2
    assert counts.get(memory.conn, rev, "boat") == 1
    assert counts._counts["lighthouse"][0] == 2 and len(counts._counts) == 3
