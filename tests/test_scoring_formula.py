"""The scorer's numbers, recomputed here from the stored vectors and the real query embedding:
relevance against the median/max formula on ≥ 20 events, the plain-cosine fallback, the candidate
pool N, α, β, γ, δ, the date steps, the emotion clip, the fused relevance of pulse, conversation
context and term coverage. A wrong constant or formula fails a test here (bench/mutate.py)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from core.memory import Memory
from core.scoring import gates
from core.scoring.scorer import _emotion_similarity
from core.scoring.settings import DEFAULT_SETTINGS, ScorerSettings
from core.scoring.state import parse_state
from core.store import records

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
S = DEFAULT_SETTINGS
QUERY = "walking along the harbour at dawn"


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def unit_query(memory: Memory, query: str = QUERY) -> np.ndarray:
    return np.asarray(memory.embedder().embed_query(query), dtype=np.float32)


def designed(memory: Memory, cosines, *, query: str = QUERY, days_ago=10.0, seed: int = 5,
             **fields) -> list[int]:
    """Events whose vectors have (about) the given cosines with the query's real embedding:
    a·q + √(1−a²)·u with u a unit vector orthogonal to q."""
    q = unit_query(memory, query).astype(np.float64)
    q /= np.linalg.norm(q)
    rng = np.random.default_rng(seed)
    ids = []
    for i, a in enumerate(cosines):
        u = rng.normal(size=q.shape[0])
        u -= (u @ q) * q
        u /= np.linalg.norm(u)
        v = a * q + math.sqrt(max(0.0, 1 - a * a)) * u
        age = days_ago[i] if isinstance(days_ago, (list, tuple)) else days_ago
        ids.append(records.add_event(
            memory.conn, actor="import",
            fields={"title": f"event {i}", "ts": iso(NOW - timedelta(days=age)), **fields},
            vectors=[records.Vector(memory.embedding_model, v.astype(np.float32))]))
    return ids


def stored_cosines(memory: Memory, query: str = QUERY) -> dict[int, float]:
    """The cosine of every stored vector with the query, computed as the scorer must."""
    rows = memory.conn.execute(
        "SELECT v.event_id, v.vector FROM event_embeddings v JOIN events e ON e.id = v.event_id"
        " WHERE v.model = ? AND e.absorbed_into IS NULL ORDER BY v.event_id",
        (memory.embedding_model,)).fetchall()
    matrix = np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
    cos = (matrix @ unit_query(memory, query)).astype(np.float64)
    return {int(r[0]): float(c) for r, c in zip(rows, cos)}


def by_id(out: dict) -> dict[int, dict]:
    return {r["id"]: r for r in out["results"]}


@pytest.fixture
def demo_memory(demo_db, tmp_path):
    """A private copy of the session's demo memory."""
    from core.store.sqlite import sqlite3

    src = Memory.open(demo_db)
    dst = sqlite3.connect(tmp_path / "demo.db")
    src.conn.backup(dst)
    dst.close()
    src.close()
    with Memory.open(tmp_path / "demo.db") as memory:
        yield memory


# -- relevance: median / max normalisation, the fallback, dropping r = 0, N ------------------------

COSINES_30 = [0.05 + 0.03 * i for i in range(30)]          # 0.05 … 0.92, median 0.485


@pytest.mark.parametrize("scorer,term", [("v2", "relevance"), ("dense", "relevance"),
                                         ("pulse", "dense_relevance")])
def test_relevance_is_normalised_by_the_median_and_the_best(memory: Memory, scorer: str,
                                                            term: str) -> None:
    designed(memory, COSINES_30)
    cos = stored_cosines(memory)
    values = np.array(list(cos.values()))
    median, best = float(np.median(values)), float(values.max())
    assert median == pytest.approx(0.485, abs=1e-3)   # the median, not the mean (0.485 either
    # way here), is pinned by the skewed set below
    out = memory.retrieve(QUERY, scorer=scorer, now=NOW, top_k=100, abstain=False)
    assert out["results"]
    for event_id, r in by_id(out).items():
        expected = min(1.0, max(0.0, (cos[event_id] - median) / (best - median)))
        assert r["terms"][term] == pytest.approx(expected, abs=1e-9)
        assert r["terms"]["median_cosine"] == pytest.approx(median, abs=1e-12)
        assert r["terms"]["max_cosine"] == pytest.approx(best, abs=1e-12)
        assert r["terms"]["cosine"] == pytest.approx(cos[event_id], abs=1e-12)
    # r = 0 is dropped: exactly the events above the median come back (v2 and dense)
    if scorer != "pulse":
        assert set(by_id(out)) == {i for i, c in cos.items() if c > median}


def test_the_median_is_the_median_not_the_mean(memory: Memory) -> None:
    # skewed: most events far, a few close; mean 0.32 but median 0.20
    designed(memory, [0.2] * 15 + [0.9] * 5 + [0.1, 0.15, 0.22, 0.25, 0.3])
    cos = stored_cosines(memory)
    values = np.array(list(cos.values()))
    out = memory.retrieve(QUERY, scorer="v2", now=NOW, top_k=100)
    t = out["results"][0]["terms"]
    assert t["median_cosine"] == pytest.approx(float(np.median(values)), abs=1e-12)
    assert abs(float(np.median(values)) - float(values.mean())) > 0.05


def test_fewer_than_20_events_use_plain_cosine(memory: Memory) -> None:
    designed(memory, COSINES_30[:19])
    cos = stored_cosines(memory)
    out = memory.retrieve(QUERY, scorer="v2", now=NOW, top_k=100, abstain=False)
    assert len(out["results"]) == 19          # nothing is dropped: every cosine here is > 0
    for event_id, r in by_id(out).items():
        assert r["terms"]["relevance"] == pytest.approx(max(cos[event_id], 0.0), abs=1e-9)


def test_20_events_are_normalised(memory: Memory) -> None:
    designed(memory, COSINES_30[:20])
    cos = stored_cosines(memory)
    median, best = float(np.median(list(cos.values()))), max(cos.values())
    out = memory.retrieve(QUERY, scorer="v2", now=NOW, top_k=100, abstain=False)
    assert len(out["results"]) == 10
    for event_id, r in by_id(out).items():
        assert r["terms"]["relevance"] == pytest.approx((cos[event_id] - median) / (best - median),
                                                        abs=1e-9)


def test_negative_cosines_clip_to_zero_in_the_fallback(memory: Memory) -> None:
    designed(memory, [-0.3, -0.1, 0.2, 0.4])
    out = memory.retrieve(QUERY, scorer="v2", now=NOW, top_k=10, abstain=False)
    assert len(out["results"]) == 2           # max(cos, 0) = 0 for the negative ones: dropped
    assert all(r["terms"]["relevance"] > 0 for r in out["results"])


def test_flat_cosines_fall_back_to_plain_cosine(memory: Memory) -> None:
    designed(memory, [0.4] * 25)
    cos = stored_cosines(memory)
    assert max(cos.values()) - float(np.median(list(cos.values()))) < 1e-6
    out = memory.retrieve(QUERY, scorer="v2", now=NOW, top_k=5, abstain=False)
    for event_id, r in by_id(out).items():
        assert r["terms"]["relevance"] == pytest.approx(cos[event_id], abs=1e-9)


@pytest.mark.parametrize("top_k,pool", [(1, 50), (6, 60)])
def test_candidate_pool_is_max_of_50_and_10_k(memory: Memory, top_k: int, pool: int) -> None:
    # 140 events with distinct cosines, all of the same age and class: the score order is the
    # cosine order. The 70th best is above the median, so it is dropped only by the pool size:
    # explained, it ranks right after the pool.
    ids = designed(memory, [0.01 + 0.006 * i for i in range(140)])
    cos = stored_cosines(memory)
    seventieth = sorted(ids, key=lambda i: -cos[i])[69]
    out = memory.explain(seventieth, QUERY, scorer="v2", now=NOW, top_k=top_k)
    assert out["result"]["rank"] == pool + 1
    assert not out["result"]["dropped"]


# -- recency: α and λ --------------------------------------------------------------------------------

def test_recency_factor_uses_alpha(memory: Memory) -> None:
    designed(memory, COSINES_30, days_ago=[30.0 * i for i in range(30)])
    out = memory.retrieve(QUERY, scorer="v2", now=NOW, top_k=100, abstain=False)
    assert S.alpha == 0.75
    for r in out["results"]:
        t = r["terms"]
        recency = math.exp(-0.003 * t["days_ago"])          # operational λ
        assert t["recency"] == pytest.approx(recency, abs=1e-12)
        assert t["recency_factor"] == pytest.approx(0.75 + 0.25 * recency, abs=1e-12)
        assert r["score"] == pytest.approx(t["relevance"] * (0.75 + 0.25 * recency), abs=1e-12)


# -- the factors: β (emotion), γ (state), δ (date) ----------------------------------------------------

def test_emotion_factor_is_one_plus_beta_times_cosine(memory: Memory) -> None:
    designed(memory, COSINES_30[:20])
    pairs = {"fear": {"fear": 1.0}, "joy": {"joy": 1.0}, "mixed": {"fear": 0.6, "joy": 0.8}}
    made = {}
    # events with explicit emotions, on the query's own vector so that they rank
    q = unit_query(memory).astype(np.float64)
    q /= np.linalg.norm(q)
    for name, emotions in pairs.items():
        made[name] = records.add_event(
            memory.conn, actor="import",
            fields={"title": name, "ts": iso(NOW - timedelta(days=10))},
            emotions=records.Emotions(emotions, tagger="test", derivation="explicit"),
            vectors=[records.Vector(memory.embedding_model, q.astype(np.float32))])
    out = memory.retrieve(QUERY, scorer="dense", now=NOW, top_k=50,
                          state={"mood_vector": {"fear": 1.0}})
    got = by_id(out)
    assert got[made["fear"]]["terms"]["emotion"] == pytest.approx(1 + S.beta_emotion, abs=1e-12)
    assert got[made["joy"]]["terms"]["emotion"] == 1.0
    assert got[made["mixed"]]["terms"]["emotion"] == pytest.approx(1 + S.beta_emotion * 0.6,
                                                                   abs=1e-12)
    assert S.beta_emotion == 0.15
    # untagged events (all-zero emotions) get exactly 1
    assert all(r["terms"]["emotion"] == 1.0 for i, r in got.items() if i not in made.values())


def test_emotion_similarity_is_clipped_at_zero() -> None:
    gate = np.array([1.0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    rows = np.array([[1.0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [-1.0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                     [0, 1.0, 0, 0, 0, 0, 0, 0, 0, 0], [0.0] * 10])
    assert _emotion_similarity(gate, rows).tolist() == [1.0, 0.0, 0.0, 0.0]


def test_state_factor_is_one_plus_gamma_times_fit(memory: Memory) -> None:
    designed(memory, COSINES_30[:20])
    q = unit_query(memory).astype(np.float32)
    person = records.add_entity(memory.conn, actor="import", name="Katya", kind="person")

    def event(title: str, **fields) -> int:
        entities = fields.pop("entities", ())
        return records.add_event(memory.conn, actor="import",
                                 fields={"title": title, "ts": iso(NOW - timedelta(days=10)),
                                         **fields}, entities=entities,
                                 vectors=[records.Vector(memory.embedding_model, q)])

    depleted = event("bad night", biometrics={"hrv": 50})
    burden = event("a heavy week", sentiment_label="burden")
    restored = event("long run", biometrics={"workout": True})
    linked = event("call with my sister", entities=[person])
    out = memory.retrieve(QUERY, scorer="dense", now=NOW, top_k=50,
                          state={"stress_proxy": 0.8,
                                 "recent_life_events_7d": ["argument with Katya"]})
    got = by_id(out)
    assert out["gates"]["state"] == "stressed"
    assert S.gamma_state == 0.15
    assert got[depleted]["terms"]["state"] == pytest.approx(1.15, abs=1e-12)
    assert got[burden]["terms"]["state"] == pytest.approx(1.15, abs=1e-12)
    assert got[restored]["terms"]["state"] == 1.0
    assert got[linked]["terms"]["state"] == pytest.approx(1 + 0.15 * 0.7, abs=1e-12)


@pytest.mark.parametrize("state,body", [
    ({"stress_proxy": 0.6}, "stressed"), ({"stress_proxy": 0.59}, None),
    ({"sleep_quality": 0.4}, "stressed"), ({"sleep_quality": 0.41}, None),
    ({"hrv": 54.9}, "stressed"), ({"hrv": 55}, None),
    ({"hr_trend": "elevated_3d"}, "stressed"), ({"hr_trend": "elevated_overnight"}, "stressed"),
    ({"hr_trend": "normal"}, None), ({"hrv_trend": "declining_3d"}, "stressed"),
    ({"stress_proxy": 0.3}, "restored"), ({"stress_proxy": 0.31}, None),
    ({"stress_proxy": 0.3, "sleep_quality": 0.7}, "restored"),
    ({"stress_proxy": 0.3, "sleep_quality": 0.69}, None),
])
def test_body_state_thresholds(state: dict, body: str | None) -> None:
    assert gates.body_state(parse_state(state), S) == body


@pytest.mark.parametrize("bio,label,depletion,restoration", [
    ({"hrv": 59.9}, "", True, False), ({"hrv": 60}, "", False, False),
    ({"hrv": 70}, "", False, True), ({"hrv": 69.9}, "", False, False),
    ({"sleep_quality": 0.4}, "", True, False), ({"sleep_quality": 0.41}, "", False, False),
    ({"stress_proxy": 0.6}, "", True, False), ({"stress_proxy": 0.59}, "", False, False),
    ({"sleep_quality": 0.7, "stress_proxy": 0.3}, "", False, True),
    ({"sleep_quality": 0.7, "stress_proxy": 0.31}, "", False, False),
    ({"sleep_quality": 0.69, "stress_proxy": 0.3}, "", False, False),
    ({"hrv_trend": "declining_3d"}, "", True, False),
    ({"hr_trend": "elevated_overnight"}, "", True, False),
    ({"workout": True}, "", False, True), ({"workout": "yes"}, "", False, False),
    ({}, "Old Wound", True, False), ({}, "burden", True, False),
    ({}, "shipped it", False, True), ({}, "milestone", False, True), ({}, "repair", False, True),
    ({"hrv": True}, "", False, False),
])
def test_event_depletion_and_restoration_thresholds(bio: dict, label: str, depletion: bool,
                                                    restoration: bool) -> None:
    assert gates.is_depletion(bio, label, S) is depletion
    assert gates.is_restoration(bio, label, S) is restoration


def test_state_thresholds_come_from_the_settings() -> None:
    strict = S.with_overrides({"stressed_stress_min": 0.9, "depletion_hrv_below": 40})
    assert gates.body_state(parse_state({"stress_proxy": 0.8}), strict) is None
    assert not gates.is_depletion({"hrv": 50}, "", strict)


@pytest.mark.parametrize("gap,proximity", [(0.0, 1.0), (1.0, 1.0), (1.5, 0.7), (3.0, 0.7),
                                           (3.5, 0.3), (7.0, 0.3), (7.5, 0.0), (-2.0, 0.7),
                                           (-7.0, 0.3), (-8.0, 0.0)])
def test_date_steps(memory: Memory, gap: float, proximity: float) -> None:
    designed(memory, COSINES_30[:20], days_ago=100.0)
    q = unit_query(memory).astype(np.float32)
    # "last week" refers to 10 days ago
    event_id = records.add_event(memory.conn, actor="import",
                                 fields={"title": "x", "ts": iso(NOW - timedelta(days=10 + gap))},
                                 vectors=[records.Vector(memory.embedding_model, q)])
    out = memory.retrieve(f"{QUERY} last week", scorer="dense", now=NOW, top_k=50,
                          abstain=False)
    assert out["gates"]["date_ref_days"] == 10.0
    assert S.delta_date == 2.0
    t = by_id(out)[event_id]["terms"]
    assert t["date"] == pytest.approx(1 + 2.0 * proximity, abs=1e-12)


@pytest.mark.parametrize("phrase,days", [("today", 0), ("yesterday", 1), ("this week", 3),
                                         ("recently", 3), ("last week", 10), ("this month", 15),
                                         ("last month", 40), ("вчера", 1),
                                         ("на прошлой неделе", 10), ("в прошлом месяце", 40)])
def test_date_phrases(phrase: str, days: float) -> None:
    assert gates.date_reference(f"what happened {phrase} then", parse_state(None), S) == days
    assert gates.date_reference(f"the {phrase}ish plan", parse_state(None), S) is None


# -- pulse: the fused relevance, its lexical normalisation and conversation context ------------------

def test_pulse_fuses_dense_and_bm25_normalised_by_the_best_hit(demo_memory: Memory) -> None:
    query = "coffee with Dana at Juniper"
    best = demo_memory.retrieve(query, scorer="bm25", now=NOW, top_k=1)["results"][0]["score"]
    out = demo_memory.retrieve(query, scorer="pulse", now=NOW, top_k=30)
    w, lam = S.hybrid_dense_weight, S.context_weight
    assert (w, lam) == (0.6, 0.5)
    lexical = 0
    for r in out["results"]:
        t = r["terms"]
        assert t["bm25_norm"] == pytest.approx(t["bm25"] / best, abs=1e-12)
        assert t["chain_context_weight"] == S.chain_context_weight == 0.3
        assert t["relevance"] == pytest.approx(
            w * t["dense_relevance"] + (1 - w) * t["bm25_norm"] + lam * t["context_relevance"]
            + 0.3 * t["chain_context"], abs=1e-12)
        lexical += t["bm25"] > 0
    assert lexical >= 5
    assert out["results"][0]["terms"]["bm25_norm"] <= 1.0


def test_context_relevance_is_the_best_neighbours_fused_relevance(memory: Memory) -> None:
    """Turns said within the window are neighbours: an answer carries the question's words."""
    designed(memory, COSINES_30[:20], days_ago=300.0)
    start = NOW - timedelta(days=3)
    texts = ["Did you go to the lighthouse concert on Friday?", "Yes! The concert was wonderful.",
             "We should go sailing next month."]
    ids = []
    for i, text in enumerate(texts):
        when = iso(start + timedelta(minutes=5 * i if i < 2 else 600))
        obs, _ = records.add_observation(memory.conn, actor="import", source_kind="chat",
                                         source_id=f"m{i}", content_text=text,
                                         captured_at=iso(NOW), observed_at=when)
        vec = memory.embedder().embed_passages([text])[0]
        ids.append(records.add_event(memory.conn, actor="import",
                                     fields={"title": text, "ts": when,
                                             "source_observation": obs},
                                     vectors=[records.Vector(memory.embedding_model,
                                                             np.asarray(vec, np.float32))]))
    out = memory.retrieve("lighthouse concert", scorer="pulse", now=NOW, top_k=30,
                          abstain=False)
    got = by_id(out)
    question, answer, later = (got.get(i) for i in ids)
    w, cw = S.hybrid_dense_weight, S.context_dense_weight
    assert (w, cw) == (0.6, 0.3)
    # the neighbour's relevance is fused with the context's own dense weight
    fused_q = cw * question["terms"]["dense_relevance"] + (1 - cw) * question["terms"]["bm25_norm"]
    # the answer's only neighbour within 60 minutes is the question (the third is 10 h later)
    assert answer is not None
    assert answer["terms"]["context_relevance"] == pytest.approx(fused_q, abs=1e-12)
    assert answer["terms"]["relevance"] == pytest.approx(
        w * answer["terms"]["dense_relevance"] + (1 - w) * answer["terms"]["bm25_norm"]
        + S.context_weight * fused_q, abs=1e-12)
    if later is not None:
        assert later["terms"]["context_relevance"] == 0.0
    # outside the window nothing is shared; with the window widened the third turn joins
    wide = memory.retrieve("lighthouse concert", scorer="pulse", now=NOW, top_k=30,
                           abstain=False, settings={"context_window_minutes": 1000})
    assert by_id(wide)[ids[2]]["terms"]["context_relevance"] > 0


# -- term coverage (the lexical evidence of abstention) ----------------------------------------------

def test_term_coverage_is_the_idf_share_of_words_found(memory: Memory) -> None:
    designed(memory, COSINES_30[:9])
    for i in range(3):
        records.add_event(memory.conn, actor="import",
                          fields={"title": f"harbour walk {i}", "ts": iso(NOW)})
    out = memory.retrieve("harbour zanzibarquux", scorer="v2", now=NOW, abstain=False)
    ev = out["evidence"]
    n = 9                            # events with a vector of this model (the index)
    idf_found = math.log(1 + (n - 3 + 0.5) / (3 + 0.5))
    idf_absent = math.log(1 + (n + 0.5) / 0.5)
    assert (ev["words_found"], ev["words"]) == (1, 2)
    assert ev["term_coverage"] == pytest.approx(idf_found / (idf_found + idf_absent), abs=1e-12)


def test_settings_keep_every_threshold() -> None:
    names = {f for f in ScorerSettings.__dataclass_fields__}
    for name in ("stressed_stress_min", "stressed_sleep_max", "stressed_hrv_below",
                 "restored_stress_max", "restored_sleep_min", "depletion_hrv_below",
                 "depletion_sleep_max", "depletion_stress_min", "restoration_hrv_min",
                 "restoration_sleep_min", "restoration_stress_max", "date_gap_exact",
                 "date_gap_near", "date_gap_far", "date_weight_near", "date_weight_far",
                 "date_phrase_days", "abstain_cosine", "abstain_coverage"):
        assert name in names


@pytest.mark.parametrize("value,opens", [(0.5, True), (0.49, False)])
def test_emotion_gate_and_hint_open_at_their_threshold(value: float, opens: bool) -> None:
    state = parse_state({"mood_vector": {"fear": value}})
    assert (gates.emotion_gate_vector(state, "the train station", S) is not None) is opens
    hinted = S.with_overrides({"mood_hint": True})
    assert (gates.mood_hint(state, hinted) is not None) is opens
    assert gates.mood_hint(state, S) is None                     # the hint is off by default


def test_bm25_ignores_function_words_and_opens_no_gate(demo_memory: Memory) -> None:
    out = demo_memory.retrieve("the with of Biscuit", scorer="bm25", now=NOW, top_k=5)
    assert out["gates"] == {"emotion": False, "state": None, "date_ref_days": None, "hint": None}
    assert out["evidence"] is None and out["abstained"] is False
    assert out["results"] and all("biscuit" in (r["title"] + r["text"]).lower()
                                  for r in out["results"])
    words = demo_memory.retrieve("what was it then", scorer="v2", now=NOW, abstain=False)
    assert (words["evidence"]["words"], words["evidence"]["term_coverage"]) == (0, 0.0)


# -- the constants themselves (a changed default must fail here, not pass by reading itself) ------

def test_the_defaults_are_the_documented_ones() -> None:
    from dataclasses import asdict

    got = asdict(DEFAULT_SETTINGS)
    phrases = got.pop("date_phrase_days")
    assert got == {
        "alpha": 0.75, "beta_emotion": 0.15, "gamma_state": 0.15, "delta_anchor": 0.05,
        "delta_date": 2.0,
        "decay_per_day": {"axiom": 0.0, "self_model": 0.0005, "user_model": 0.001,
                          "operational": 0.003, "hypothesis": 0.005},
        "anchor_decay_per_day": 0.001, "emotion_gate": 0.5, "hint_gate": 0.5,
        "mood_hint": False, "anchor_top": 8, "candidates_min": 50, "candidates_per_k": 10,
        "normalise_min_events": 20, "median_exact_limit": 50000, "median_sample": 4096,
        "hybrid_dense_weight": 0.6, "context_weight": 0.5, "context_window_minutes": 60.0,
        "context_dense_weight": 0.3, "chain_context_weight": 0.3,
        "state_weight": 1.0, "state_candidates": 5, "body_tolerance": 0.15,
        "body_min_features": 2, "body_hrv_low": 30.0, "body_hrv_high": 90.0,
        "body_borrow_days": 7.0, "body_borrow_weight": 0.75, "chain_depth": 4,
        "chain_widen_min": 9, "chain_anchor_top": 3, "abstain_cosine": 0.82,
        "abstain_coverage": 0.85, "abstain_state": 0.5,
        "abstain_model": "onnx/multilingual-e5-small-q4", "state_fit_entity": 0.7,
        "stressed_stress_min": 0.6, "stressed_sleep_max": 0.4, "stressed_hrv_below": 55.0,
        "restored_stress_max": 0.3, "restored_sleep_min": 0.7, "depletion_hrv_below": 60.0,
        "depletion_sleep_max": 0.4, "depletion_stress_min": 0.6, "restoration_hrv_min": 70.0,
        "restoration_sleep_min": 0.7, "restoration_stress_max": 0.3, "date_gap_exact": 1.0,
        "date_gap_near": 3.0, "date_gap_far": 7.0, "date_weight_near": 0.7,
        "date_weight_far": 0.3}
    assert phrases == {
        "today": 0, "yesterday": 1, "this week": 3, "recently": 3, "last few days": 3,
        "past few days": 3, "last week": 10, "this month": 15, "last month": 40,
        "сегодня": 0, "вчера": 1, "на этой неделе": 3, "недавно": 3,
        "последние несколько дней": 3, "последние дни": 3, "на прошлой неделе": 10,
        "в этом месяце": 15, "в прошлом месяце": 40}


@pytest.mark.parametrize("overrides,error", [
    ({"alpha": -0.01}, "alpha must be in 0..1"), ({"alpha": 1.01}, "alpha must be in 0..1"),
    ({"alpha": True}, "alpha must be a number"), ({"alpha": "0.5"}, "alpha must be a number"),
    ({"top": 1}, "unknown keys ['top']"),
    ({"chain_depth": -1}, "chain_depth must be a whole number ≥ 0"),
    ({"chain_depth": 1.5}, "chain_depth must be a whole number ≥ 0"),
    ({"chain_depth": True}, "chain_depth must be a whole number ≥ 0"),
    ({"mood_hint": 1}, "mood_hint must be true or false"),
    ({"abstain_model": 3}, "abstain_model must be a string"),
    ({"decay_per_day": {"nope": 1}}, "decay_per_day must map"),
    ({"decay_per_day": 0.1}, "decay_per_day must map"),
    ({"state_weight": -1}, "state_weight must be a number ≥ 0"),
    ({"beta_emotion": float("nan")}, "beta_emotion must be a number ≥ 0"),
    ({"delta_date": float("inf")}, "delta_date must be a number ≥ 0"),
    ({"abstain_cosine": float("nan")}, "abstain_cosine must be a finite number"),
    ({"alpha": float("nan")}, "alpha must be a finite number"),
    ({"body_tolerance": 0}, "body_tolerance must be above 0"),
    ({"decay_per_day": {"axiom": -0.1}}, "decay_per_day values must be numbers ≥ 0"),
    ({"date_phrase_days": {"today": float("nan")}}, "date_phrase_days values must be numbers"),
    ({"date_phrase_days": {"today": True}}, "date_phrase_days values must be numbers"),
])
def test_bad_settings_name_the_problem(overrides: dict, error: str) -> None:
    from core.errors import ValidationError

    with pytest.raises(ValidationError) as caught:
        S.with_overrides(overrides)
    assert error in str(caught.value)


def test_settings_at_the_edges_of_their_ranges_are_taken() -> None:
    """0 switches a weight off, a raw-cosine threshold may be negative (cosines are in
    −1..1), alpha's ends are allowed."""
    taken = S.with_overrides({"state_weight": 0, "beta_emotion": 0.0, "abstain_cosine": -0.5,
                              "body_tolerance": 0.01, "alpha": 1,
                              "decay_per_day": {"axiom": 0}})
    assert (taken.state_weight, taken.beta_emotion, taken.abstain_cosine,
            taken.body_tolerance, taken.alpha, taken.decay_per_day["axiom"]) == (
        0.0, 0.0, -0.5, 0.01, 1.0, 0.0)
    assert S.with_overrides({"alpha": 0}).alpha == 0.0


def test_settings_overrides_keep_the_rest() -> None:
    assert S.with_overrides(None) is S and S.with_overrides({}) is S
    edge = S.with_overrides({"alpha": 0, "chain_depth": 0, "mood_hint": True,
                             "abstain_model": "m", "decay_per_day": {"axiom": 1}})
    assert (edge.alpha, edge.chain_depth, edge.mood_hint, edge.abstain_model) == \
        (0.0, 0, True, "m")
    assert isinstance(edge.alpha, float) and isinstance(edge.chain_depth, int)
    assert edge.decay_per_day == {**S.decay_per_day, "axiom": 1.0}
    assert S.with_overrides({"alpha": 1}).alpha == 1.0
    assert edge.beta_emotion == S.beta_emotion and edge.to_dict()["alpha"] == 0.0
