"""pulse's borrowed bodies and chain context, their numbers recomputed here: an event without
biometrics takes the body of the nearest day that has them (within body_borrow_days, counted ×
body_borrow_weight), and an event gains chain_context_weight × the own relevance of its best
direct chain link. Fixed `now`, real SQLite, the real query embedding."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from core.memory import Memory
from core.scoring import signature
from core.scoring.settings import DEFAULT_SETTINGS
from core.store import records
from tests.test_scoring_formula import COSINES_30, NOW, QUERY, by_id, designed, iso
from tests.test_scoring_state import STATE, _event, _far_vector

S = DEFAULT_SETTINGS
BODY = {"stress_proxy": 0.8, "sleep_quality": 0.3, "hrv": 45, "hr_trend": "elevated_overnight"}


def test_the_defaults_are_the_tuned_ones() -> None:
    """bench/tune_state.py --round 2 (empathic tuning half) chose these (docs/scoring.md)."""
    assert (S.body_borrow_days, S.body_borrow_weight, S.chain_context_weight) == (7.0, 0.75, 0.3)
    assert S.state_weight == 1.0


# -- which day lends its body -------------------------------------------------------------------

def test_the_nearest_day_within_the_limit_lends_and_a_tie_goes_earlier() -> None:
    days = np.array([30.0, 10.0, 20.0])          # rows 0, 1, 2 — not in time order
    bare = np.array([12.0, 15.0, 25.0, 28.5, 40.0, 9.0, 37.0, 37.01])
    got = signature.borrowed_bodies(days, bare, S)
    # 12 → 10 (2 days); 15 and 25 are 5 from both sides: the earlier; 28.5 → 30; 40 is 10 away;
    # 9 → 10 (before every lender); 37 is exactly 7 from 30 (kept), 37.01 is not
    assert got.tolist() == [1, 1, 2, 0, -1, 1, 0, -1]
    nearer = signature.borrowed_bodies(days, bare, S.with_overrides({"body_borrow_days": 2.0}))
    assert nearer.tolist() == [1, -1, -1, 0, -1, 1, -1, -1]
    off = S.with_overrides({"body_borrow_days": 0.0})
    assert signature.borrowed_bodies(days, bare, off).tolist() == [-1] * 8
    # 0 days is off, even for a moment at the lender's very time
    assert signature.borrowed_bodies(days, np.array([20.0]), off).tolist() == [-1]
    assert signature.borrowed_bodies(days, np.array([20.0]), S).tolist() == [2]
    assert signature.borrowed_bodies(np.zeros(0), bare, S).tolist() == [-1] * 8
    assert signature.borrowed_bodies(days, np.zeros(0), S).shape == (0,)


def test_a_time_that_cannot_be_read_lends_and_borrows_nothing() -> None:
    got = signature._days(["2026-01-02T00:00:00Z", "sometime in spring", "2026-01-01T12:00:00Z"])
    assert got[0] == pytest.approx(got[2] + 0.5, abs=1e-9) and np.isnan(got[1])
    assert signature._days(["2026-01-01T00:00:00Z"]).tolist() == \
        [float(np.datetime64("2026-01-01T00:00:00", "s").astype(np.int64)) / 86400.0]
    lent = signature.borrowed_bodies(np.array([got[0]]), np.array([np.nan, got[2]]), S)
    assert lent.tolist() == [-1, 0]


# -- a borrowed body in the state channel -----------------------------------------------------------

@pytest.fixture
def days_apart(memory: Memory) -> dict[str, int]:
    designed(memory, COSINES_30[:25], days_ago=300.0)   # far from every lender: they borrow none
    at = lambda days: iso(NOW - timedelta(days=days))    # noqa: E731
    return {
        "lender": _event(memory, "a night on the ward", _far_vector(memory, 1), ts=at(10),
                         biometrics=BODY, emotions={"fear": 0.9}),
        "borrower": _event(memory, "wrote it down", _far_vector(memory, 2), ts=at(13),
                           emotions={"fear": 0.9}),
        "too_far": _event(memory, "a letter", _far_vector(memory, 3), ts=at(18),
                          emotions={"fear": 0.9}),
        "half": _event(memory, "the bus home", _far_vector(memory, 4), ts=at(9),
                       emotions={"fear": 0.5, "sadness": 0.5}),
    }


def _terms(memory: Memory, event_id: int, **settings) -> dict:
    request = Memory.request(QUERY, scorer="pulse", now=NOW, top_k=40, state=STATE,
                             abstain=False, settings=settings or None)
    return memory.scorer.explain(event_id, request)["result"]["terms"]


def test_an_event_without_biometrics_lives_in_the_nearest_days_body(memory: Memory,
                                                                     days_apart) -> None:
    out = memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=40, state=STATE, abstain=False)
    got = by_id(out)
    lender, borrower = got[days_apart["lender"]]["terms"], got[days_apart["borrower"]]["terms"]
    assert lender["body_similarity"] == pytest.approx(1.0, abs=1e-12)
    assert borrower["body_similarity"] == pytest.approx(0.75 * 1.0, abs=1e-12)
    assert borrower["state_relevance"] == pytest.approx(0.75 * 1.0, abs=1e-12)
    assert borrower["relevance"] == pytest.approx(1.0 * 0.75, abs=1e-12)   # no words, no dense
    # one day after the lender, a mood half of the kind: 0.75 × 1 × cos(fear, fear + sadness)
    half = got[days_apart["half"]]["terms"]
    assert half["body_similarity"] == pytest.approx(0.75, abs=1e-12)
    assert half["state_relevance"] == pytest.approx(0.75 / np.sqrt(2), abs=1e-12)
    # 8 days from the lender: nothing to borrow, nothing in the channel
    assert days_apart["too_far"] not in got
    assert _terms(memory, days_apart["too_far"])["body_similarity"] == 0.0
    assert _terms(memory, days_apart["too_far"], body_borrow_days=8.0)["body_similarity"] == \
        pytest.approx(0.75, abs=1e-12)
    assert _terms(memory, days_apart["borrower"], body_borrow_weight=0.5)["body_similarity"] == \
        pytest.approx(0.5, abs=1e-12)
    assert _terms(memory, days_apart["borrower"], body_borrow_weight=0.0)["body_similarity"] == 0.0
    # the lender's own body is never discounted
    assert _terms(memory, days_apart["lender"], body_borrow_weight=0.5)["body_similarity"] == \
        pytest.approx(1.0, abs=1e-12)


def test_a_borrowed_body_follows_the_lenders_numbers(memory: Memory) -> None:
    """The borrower's similarity is the lender's, computed on the lender's features."""
    designed(memory, COSINES_30[:25], days_ago=300.0)
    at = lambda days: iso(NOW - timedelta(days=days))    # noqa: E731
    lender = _event(memory, "a night on the ward", _far_vector(memory, 1), ts=at(10),
                    biometrics={**BODY, "stress_proxy": 0.74}, emotions={"fear": 0.9})
    borrower = _event(memory, "wrote it down", _far_vector(memory, 2), ts=at(4),
                      emotions={"fear": 0.9})
    own = _terms(memory, lender)["body_similarity"]
    assert own == pytest.approx(1 - (0.06 / 4) / 0.15, abs=1e-9)
    assert _terms(memory, borrower)["body_similarity"] == pytest.approx(0.75 * own, abs=1e-9)


# -- chain context ----------------------------------------------------------------------------------

def _story(memory: Memory, **cause_fields) -> dict[str, int]:
    """25 background events, a cause that matches the query (cosine 0.9), an effect linked to
    it with neither words nor meaning of the query, and an unlinked twin of the effect."""
    designed(memory, COSINES_30[:25], days_ago=300.0)
    q = np.asarray(memory.embedder().embed_query(QUERY), dtype=np.float64)
    q /= np.linalg.norm(q)
    near = 0.9 * q + np.sqrt(1 - 0.81) * _far_vector(memory, 9)
    at = lambda days: iso(NOW - timedelta(days=days))    # noqa: E731
    cause = _event(memory, "event cause", near / np.linalg.norm(near), ts=at(100),
                   **cause_fields)
    weaker = 0.6 * q + np.sqrt(1 - 0.36) * _far_vector(memory, 8)
    minor = _event(memory, "a smaller cause", weaker / np.linalg.norm(weaker), ts=at(120))
    effect = _event(memory, "afterwards", _far_vector(memory, 6), ts=at(40))
    unlinked = _event(memory, "elsewhere", _far_vector(memory, 7), ts=at(40))
    records.link_events(memory.conn, actor="import", parent_id=cause, child_id=effect)
    records.link_events(memory.conn, actor="import", parent_id=minor, child_id=effect)
    return {"cause": cause, "minor": minor, "effect": effect, "unlinked": unlinked}


@pytest.fixture
def story(memory: Memory) -> dict[str, int]:
    return _story(memory)


def test_an_event_gains_the_own_relevance_of_its_best_link(memory: Memory, story) -> None:
    out = memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=40, abstain=False)
    got = by_id(out)
    cause, effect = got[story["cause"]]["terms"], got[story["effect"]]["terms"]
    w = S.hybrid_dense_weight
    own_cause = w * cause["dense_relevance"] + (1 - w) * cause["bm25_norm"]
    minor = got[story["minor"]]["terms"]
    own_minor = w * minor["dense_relevance"] + (1 - w) * minor["bm25_norm"]
    assert own_cause > 0.5 and 0 < own_minor < own_cause - 0.1
    assert effect["dense_relevance"] == 0.0 and effect["bm25_norm"] == 0.0
    # two causes: the better one's own relevance (not the smaller, not their sum)
    assert effect["chain_context"] == pytest.approx(own_cause, abs=1e-12)
    assert effect["chain_context_weight"] == 0.3
    assert effect["relevance"] == pytest.approx(0.3 * own_cause, abs=1e-12)
    # the link is both ways: the cause gains its effect's own relevance (0 here)
    assert cause["chain_context"] == 0.0
    assert story["unlinked"] not in got                     # no link, no words: dropped
    for r in out["results"]:
        t = r["terms"]
        assert t["relevance"] == pytest.approx(
            w * t["dense_relevance"] + (1 - w) * t["bm25_norm"]
            + S.context_weight * t["context_relevance"] + 0.3 * t["chain_context"], abs=1e-12)
        assert r["score"] == pytest.approx(t["relevance"] * t["recency_factor"] * t["emotion"]
                                           * t["state"] * t["anchor"] * t["date"], rel=1e-9)


def test_chain_context_counts_the_links_state_channel(memory: Memory) -> None:
    story = _story(memory, biometrics=BODY, emotions={"fear": 0.9})
    out = by_id(memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=40, state=STATE,
                                abstain=False))
    cause, effect = out[story["cause"]]["terms"], out[story["effect"]]["terms"]
    w = S.hybrid_dense_weight
    assert cause["state_relevance"] == pytest.approx(1.0, abs=1e-12)
    own = w * cause["dense_relevance"] + (1 - w) * cause["bm25_norm"] + 1.0 * 1.0
    assert effect["chain_context"] == pytest.approx(own, abs=1e-12)
    # 60 days from the cause's body: the effect borrows none of it
    assert effect["body_similarity"] == 0.0


def test_a_link_outside_the_domains_carries_nothing(memory: Memory) -> None:
    story = _story(memory, domain="fiction_content")
    every = by_id(memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=40, abstain=False))
    assert every[story["effect"]]["terms"]["chain_context"] > 0.5
    real = by_id(memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=40, abstain=False,
                                 domains=["real"]))
    assert story["cause"] not in real
    # only the real cause counts now
    minor = real[story["minor"]]["terms"]
    w = S.hybrid_dense_weight
    assert real[story["effect"]]["terms"]["chain_context"] == pytest.approx(
        w * minor["dense_relevance"] + (1 - w) * minor["bm25_norm"], abs=1e-12)
    assert real[story["effect"]]["terms"]["chain_context"] < \
        every[story["effect"]]["terms"]["chain_context"] - 0.1


def test_without_its_weight_chain_context_neither_counts_nor_brings(memory: Memory,
                                                                    story) -> None:
    off = memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=40, abstain=False,
                          settings={"chain_context_weight": 0.0})
    assert story["effect"] not in by_id(off)
    assert "chain_context" not in off["results"][0]["terms"]
    dense = memory.retrieve(QUERY, scorer="dense", now=NOW, top_k=40, abstain=False)
    assert story["effect"] not in by_id(dense)
    assert "chain_context" not in dense["results"][0]["terms"]


def test_a_link_brings_its_event_into_the_candidates_only_with_its_weight(memory: Memory
                                                                         ) -> None:
    """A linked event outside the candidate pool joins it through the link (and ranks on its
    own relevance); without the weight it stays out."""
    designed(memory, COSINES_30[:25], days_ago=300.0)
    q = np.asarray(memory.embedder().embed_query(QUERY), dtype=np.float64)
    q /= np.linalg.norm(q)
    at = lambda days: iso(NOW - timedelta(days=days))    # noqa: E731
    top = 0.9 * q + np.sqrt(1 - 0.81) * _far_vector(memory, 9)
    low = 0.6 * q + np.sqrt(1 - 0.36) * _far_vector(memory, 8)
    cause = _event(memory, "the best match", top / np.linalg.norm(top), ts=at(100))
    earlier = _event(memory, "before it", low / np.linalg.norm(low), ts=at(150))
    records.link_events(memory.conn, actor="import", parent_id=earlier, child_id=cause)
    few = {"candidates_min": 3, "candidates_per_k": 0, "context_weight": 0.0}
    off = by_id(memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=10, abstain=False,
                                settings={**few, "chain_context_weight": 0.0}))
    assert cause in off and earlier not in off and len(off) == 3
    on = by_id(memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=10, abstain=False,
                               settings=few))
    assert earlier in on and len(on) == 4
    t = on[earlier]["terms"]
    assert t["dense_relevance"] > 0
    assert t["chain_context"] == pytest.approx(
        S.hybrid_dense_weight * on[cause]["terms"]["dense_relevance"], abs=1e-12)
