"""pulse's state channel (core/scoring/signature.py), its numbers recomputed here: the body
features, the body and mood similarities, the channel's share of the relevance, the candidates
it brings, and the abstention it answers. Fixed `now`, real SQLite, the real query embedding."""

from __future__ import annotations

import math
from datetime import timedelta

import numpy as np
import pytest

from core.emotion.plutchik import to_vector
from core.memory import Memory
from core.scoring import signature
from core.scoring.settings import DEFAULT_SETTINGS
from core.scoring.state import parse_state
from core.store import records
from tests.test_scoring_formula import COSINES_30, NOW, QUERY, by_id, designed, iso

S = DEFAULT_SETTINGS
NAN = float("nan")

# the person now: stressed, sleepless, low HRV, heart rate up overnight, afraid
STATE = {"mood_vector": {"fear": 0.8}, "stress_proxy": 0.8, "sleep_quality": 0.3, "hrv": 45,
         "hr_trend": "elevated_overnight"}


def test_the_defaults_are_the_tuned_ones() -> None:
    """bench/tune_state.py chose these on the empathic tuning half (docs/scoring.md)."""
    assert (S.state_weight, S.state_candidates, S.body_tolerance, S.body_min_features) == \
        (1.0, 5, 0.15, 2)
    assert (S.body_hrv_low, S.body_hrv_high, S.abstain_state) == (30.0, 90.0, 0.5)
    assert (S.body_borrow_days, S.body_borrow_weight, S.chain_context_weight) == (7.0, 0.75, 0.3)


def test_body_features_are_scaled_and_unknown_is_not_zero() -> None:
    got = signature.features({"stress_proxy": 0.8, "sleep_quality": 0.3, "hrv": 45,
                              "hr_trend": "elevated_overnight", "hrv_trend": "stable"}, S)
    assert got.tolist() == pytest.approx([0.8, 0.3, 0.25, 1.0, 0.0], abs=1e-12)
    for hrv, scaled in ((30, 0.0), (90, 1.0), (60, 0.5), (75, 0.75), (20, 0.0), (120, 1.0)):
        assert signature.features({"hrv": hrv}, S)[2] == pytest.approx(scaled, abs=1e-12)
    trends = signature.features({"hr_trend": "elevated_3d", "hrv_trend": "declining_3d"}, S)
    assert np.isnan(trends[:3]).all() and trends[3:].tolist() == [1.0, 1.0]
    calm = signature.features({"hr_trend": "normal", "hrv_trend": "rising"}, S)
    assert calm[3:].tolist() == [0.0, 0.0]
    odd = signature.features({"stress_proxy": True, "sleep_quality": "good", "hrv_trend": 3}, S)
    assert np.isnan(odd).all()
    wider = S.with_overrides({"body_hrv_low": 40, "body_hrv_high": 80})
    assert signature.features({"hrv": 50}, wider)[2] == pytest.approx(0.25, abs=1e-12)
    flat = S.with_overrides({"body_hrv_low": 50, "body_hrv_high": 50})
    assert np.isnan(signature.features({"hrv": 50}, flat)[2])


def test_a_state_needs_two_body_features() -> None:
    assert signature.state_features(parse_state({"stress_proxy": 0.8}), S) is None
    assert signature.state_features(parse_state({"mood_vector": {"joy": 0.9}}), S) is None
    two = signature.state_features(parse_state({"stress_proxy": 0.8, "hrv": 60}), S)
    assert two is not None
    assert np.isnan(two).tolist() == [False, True, False, True, True]
    one_is_enough = S.with_overrides({"body_min_features": 1})
    assert signature.state_features(parse_state({"stress_proxy": 0.8}), one_is_enough) \
        is not None


def test_body_similarity_is_one_minus_the_mean_gap_over_the_tolerance() -> None:
    query = np.array([0.8, 0.3, 0.25, 1.0, NAN])
    table = np.array([
        [0.8, 0.3, 0.25, 1.0, 0.0],     # the same on all four shared → 1
        [0.78, 0.32, 0.27, NAN, 1.0],   # gaps 0.02 × 3 → 1 − 0.02 / 0.15
        [0.2, 0.9, NAN, NAN, NAN],      # gaps 0.6, 0.6 → below 0, clipped
        [0.8, NAN, NAN, NAN, NAN],      # one shared feature: too few
        [0.65, 0.3, NAN, NAN, NAN],     # gaps 0.15, 0 → 1 − 0.075 / 0.15 = 0.5
        [0.8, 0.3, NAN, 0.0, NAN],      # gaps 0, 0, 1 → mean 1/3 → clipped to 0
    ])
    got = signature.body_similarity(query, table, S)
    assert got.tolist() == pytest.approx([1.0, 1 - 0.02 / 0.15, 0.0, 0.0, 0.5, 0.0], abs=1e-12)
    loose = S.with_overrides({"body_tolerance": 0.3})
    assert signature.body_similarity(query, table[4:5], loose).tolist() == \
        pytest.approx([0.75], abs=1e-12)
    one = S.with_overrides({"body_min_features": 1})
    assert signature.body_similarity(query, table[3:4], one).tolist() == [1.0]
    assert signature.body_similarity(query, np.zeros((0, 5)), S).shape == (0,)


def test_mood_similarity_is_the_clipped_cosine_and_one_without_a_mood() -> None:
    joy = to_vector({"joy": 0.8})
    rows = np.stack([to_vector({"joy": 0.3}), to_vector({"sadness": 1.0}),
                     to_vector({"joy": 0.5, "sadness": 0.5}), np.zeros(10), -to_vector({"joy": 1})])
    assert signature.mood_similarity(joy, rows).tolist() == \
        pytest.approx([1.0, 0.0, 1 / math.sqrt(2), 0.0, 0.0], abs=1e-12)
    assert signature.mood_similarity(np.zeros(10), rows).tolist() == [1.0] * 5


def _event(memory: Memory, title: str, vector: np.ndarray, **fields) -> int:
    emotions = fields.pop("emotions", None)
    return records.add_event(
        memory.conn, actor="import",
        fields={"title": title, "ts": iso(NOW - timedelta(days=10)), **fields},
        emotions=records.Emotions(emotions, tagger="test") if emotions else None,
        vectors=[records.Vector(memory.embedding_model, vector.astype(np.float32))])


def _far_vector(memory: Memory, seed: int) -> np.ndarray:
    """A unit vector nearly orthogonal to the query's: no dense relevance, no shared words."""
    q = np.asarray(memory.embedder().embed_query(QUERY), dtype=np.float64)
    q /= np.linalg.norm(q)
    u = np.random.default_rng(seed).normal(size=q.shape[0])
    u -= (u @ q) * q
    return 0.02 * q + math.sqrt(1 - 0.02 ** 2) * u / np.linalg.norm(u)


@pytest.fixture
def lived(memory: Memory) -> dict[str, int]:
    designed(memory, COSINES_30[:25])          # 25 events with the query's words absent
    same = {"stress_proxy": 0.8, "sleep_quality": 0.3, "hrv": 45,
            "hr_trend": "elevated_overnight"}
    near = {"stress_proxy": 0.78, "sleep_quality": 0.32, "hrv": 46.2}   # gaps 0.02 × 3
    return {
        "same": _event(memory, "a night on the ward", _far_vector(memory, 1), biometrics=same,
                       emotions={"fear": 0.9}),
        "near": _event(memory, "the night bus home", _far_vector(memory, 2), biometrics=near,
                       emotions={"fear": 0.5, "sadness": 0.5}),
        "calm": _event(memory, "a slow Sunday", _far_vector(memory, 3),
                       biometrics={"stress_proxy": 0.2, "sleep_quality": 0.85, "hrv": 78},
                       emotions={"fear": 0.9}),
        "untagged": _event(memory, "an errand", _far_vector(memory, 4), biometrics=same),
    }


def test_the_channel_adds_weight_times_body_times_mood(memory: Memory, lived) -> None:
    out = memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=40, state=STATE, abstain=False)
    got = by_id(out)
    same, near = got[lived["same"]]["terms"], got[lived["near"]]["terms"]
    assert (same["body_similarity"], same["mood_similarity"]) == pytest.approx((1.0, 1.0))
    assert near["body_similarity"] == pytest.approx(1 - 0.02 / 0.15, abs=1e-9)
    assert near["mood_similarity"] == pytest.approx(1 / math.sqrt(2), abs=1e-12)
    assert near["state_relevance"] == pytest.approx(
        near["body_similarity"] * near["mood_similarity"], abs=1e-12)
    w, lam = S.hybrid_dense_weight, S.context_weight
    for r in out["results"]:
        t = r["terms"]
        assert t["state_weight"] == 1.0
        assert t["relevance"] == pytest.approx(
            w * t["dense_relevance"] + (1 - w) * t["bm25_norm"] + lam * t["context_relevance"]
            + 1.0 * t["state_relevance"], abs=1e-12)
        product = t["relevance"] * t["recency_factor"] * t["emotion"] * t["state"] * \
            t["anchor"] * t["date"]
        assert r["score"] == pytest.approx(product, rel=1e-9)
    # nothing but the body and the mood brings them: far below the median cosine
    assert same["dense_relevance"] == 0.0 and same["bm25_norm"] == 0.0
    assert same["relevance"] == pytest.approx(1.0, abs=1e-12)
    assert lived["calm"] not in got and lived["untagged"] not in got   # state relevance 0
    assert out["evidence"]["state_match"] == pytest.approx(1.0, abs=1e-12)


def test_only_the_best_state_matches_join_the_candidates(memory: Memory, lived) -> None:
    few = {"candidates_min": 5, "candidates_per_k": 0, "context_weight": 0.0}
    ids = lambda out: [r["id"] for r in out["results"]]           # noqa: E731
    one = memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=10, state=STATE, abstain=False,
                          settings={**few, "state_candidates": 1})
    assert lived["same"] in ids(one) and lived["near"] not in ids(one)
    two = memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=10, state=STATE, abstain=False,
                          settings={**few, "state_candidates": 2})
    assert lived["same"] in ids(two) and lived["near"] in ids(two)
    none = memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=10, state=STATE,
                           abstain=False, settings={**few, "state_candidates": 0})
    assert lived["same"] not in ids(none)
    assert len(ids(one)) == 6 and len(ids(none)) == 5


def test_no_body_or_no_weight_leaves_pulse_as_it_was(memory: Memory, lived) -> None:
    off = memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=40, state=STATE, abstain=False,
                          settings={"state_weight": 0.0})
    assert lived["same"] not in by_id(off)
    assert "body_similarity" not in off["results"][0]["terms"]
    assert off["evidence"]["state_match"] is None
    mood_only = memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=40, abstain=False,
                                state={"mood_vector": {"fear": 0.8}, "stress_proxy": 0.8})
    assert lived["same"] not in by_id(mood_only)
    assert "state_relevance" not in mood_only["results"][0]["terms"]
    dense = memory.retrieve(QUERY, scorer="dense", now=NOW, top_k=40, state=STATE, abstain=False)
    assert lived["same"] not in by_id(dense)
    assert "state_relevance" not in dense["results"][0]["terms"]


def test_the_channel_sees_a_new_event_and_the_settings(memory: Memory, lived) -> None:
    first = memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=40, state=STATE, abstain=False)
    later = _event(memory, "another night", _far_vector(memory, 5),
                   biometrics={"stress_proxy": 0.8, "sleep_quality": 0.3},
                   emotions={"fear": 0.4})
    assert later not in by_id(first)
    again = by_id(memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=40, state=STATE,
                                  abstain=False))
    assert again[later]["terms"]["body_similarity"] == pytest.approx(1.0, abs=1e-12)
    # the HRV scale is a setting: 45 on 0..90 is 0.5 for both sides, the near event's 46.2 moves
    scaled = by_id(memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=40, state=STATE,
                                   abstain=False, settings={"body_hrv_low": 0.0}))
    gap = (0.02 + 0.02 + 1.2 / 90) / 3
    assert scaled[lived["near"]]["terms"]["body_similarity"] == \
        pytest.approx(1 - gap / 0.15, abs=1e-9)


def test_a_matching_body_answers_abstention(memory: Memory, lived) -> None:
    words = "xqzv blorf quantum lasagna"
    plain = memory.retrieve(words, scorer="pulse", now=NOW, top_k=5,
                            settings={"abstain_cosine": 1.0})
    assert plain["abstained"] is True
    felt = memory.retrieve(words, scorer="pulse", now=NOW, top_k=5, state=STATE,
                           settings={"abstain_cosine": 1.0})
    assert felt["abstained"] is False and felt["evidence"]["state_match"] == 1.0
    assert lived["same"] in by_id(felt)
    strict = memory.retrieve(words, scorer="pulse", now=NOW, top_k=5, state=STATE,
                             settings={"abstain_cosine": 1.0, "abstain_state": 1.01})
    assert strict["abstained"] is True
    at = memory.retrieve(words, scorer="pulse", now=NOW, top_k=5, state=STATE,
                         settings={"abstain_cosine": 1.0, "abstain_state": 1.0})
    assert at["abstained"] is False
