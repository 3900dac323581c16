"""The scorer's contract (ENGINE §3 and docs/scoring.md): recency, floors, anchors, gates, the
breakdown, chain order and causes, abstention, scorer names,
the no-regression property and model isolation."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import InvariantError, PulseError
from core.memory import Memory
from core.store import records

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def add(memory: Memory, title: str, *, days_ago: float = 10.0, vector=None,
        emotions: dict | None = None, **fields) -> int:
    """An event with a real embedding of its title, or the given vector."""
    if vector is None:
        vector = memory.embedder().embed_passages([title])[0]
    return records.add_event(
        memory.conn, actor="import",
        fields={"title": title, "ts": iso(NOW - timedelta(days=days_ago)), **fields},
        emotions=records.Emotions(emotions, tagger="test", derivation="explicit") if emotions else None,
        vectors=[records.Vector(memory.embedding_model, np.asarray(vector, dtype=np.float32))])


def terms_of(out: dict, event_id: int) -> dict:
    return next(r for r in out["results"] if r["id"] == event_id)["terms"]


# -- recency and belief classes ----------------------------------------------------------------

def test_event_dated_now_is_zero_days_old(memory: Memory) -> None:
    event_id = add(memory, "Morning run along the canal", days_ago=0)
    out = memory.retrieve("morning run", scorer="v2", now=NOW)
    t = terms_of(out, event_id)
    assert t["days_ago"] == 0.0
    assert t["recency"] == 1.0
    assert t["recency_factor"] == 1.0


def test_future_event_is_not_negative_days_old(memory: Memory) -> None:
    event_id = add(memory, "Dentist appointment", days_ago=-3)
    t = terms_of(memory.retrieve("dentist", scorer="v2", now=NOW), event_id)
    assert t["days_ago"] == 0.0


def test_axiom_never_decays(memory: Memory) -> None:
    event_id = add(memory, "My father left when I was seven", days_ago=9000,
                   belief_class="axiom", confidence_floor=0.5, archivable=0)
    t = terms_of(memory.retrieve("father left", scorer="v2", now=NOW), event_id)
    assert t["lambda"] == 0.0
    assert t["recency"] == 1.0


@pytest.mark.parametrize("cls,lam", [("self_model", 0.0005), ("user_model", 0.001),
                                     ("operational", 0.003), ("hypothesis", 0.005)])
def test_each_class_decays_at_its_rate(memory: Memory, cls: str, lam: float) -> None:
    event_id = add(memory, "Bought a new bicycle", days_ago=200, belief_class=cls)
    t = terms_of(memory.retrieve("bicycle", scorer="v2", now=NOW), event_id)
    assert t["lambda"] == lam
    assert t["recency"] == pytest.approx(math.exp(-lam * 200), abs=1e-12)


def test_floor_bounds_recency(memory: Memory) -> None:
    event_id = add(memory, "Grandmother's funeral", days_ago=2000, belief_class="hypothesis",
                   confidence_floor=0.4)
    t = terms_of(memory.retrieve("funeral", scorer="v2", now=NOW), event_id)
    assert t["recency"] < 0.4
    assert t["recency_eff"] == 0.4
    assert t["floor_applied"] is True
    assert t["recency_factor"] == pytest.approx(0.75 + 0.25 * 0.4)


def test_user_flag_caps_decay_but_never_makes_an_axiom_decay(memory: Memory) -> None:
    anchored = add(memory, "Our wedding day", days_ago=1000, belief_class="hypothesis", user_flag=1)
    axiom = add(memory, "The wedding that ended in divorce", days_ago=1000, belief_class="axiom",
                confidence_floor=0.6, archivable=0, user_flag=1)
    out = memory.retrieve("wedding", scorer="v2", now=NOW)
    assert terms_of(out, anchored)["lambda"] == 0.001
    assert terms_of(out, axiom)["lambda"] == 0.0
    assert terms_of(out, axiom)["recency"] == 1.0


# -- the breakdown ------------------------------------------------------------------------------

def _assert_breakdown(out: dict) -> None:
    for r in out["results"]:
        t = r["terms"]
        product = t["relevance"] * t["recency_factor"] * t["emotion"] * t["state"] * t["anchor"] * t["date"]
        assert r["score"] == pytest.approx(product, abs=1e-9)
        assert t["recency_factor"] == pytest.approx(t["alpha"] + (1 - t["alpha"]) * t["recency_eff"], abs=1e-12)
        assert t["recency_eff"] == max(t["recency"], t["confidence_floor"])


@pytest.fixture
def demo(demo_db: Path, tmp_path: Path) -> Memory:
    copy = tmp_path / "demo.db"
    src = Memory.open(demo_db)
    from core.store.sqlite import sqlite3

    dst_conn = sqlite3.connect(copy)    # the one SQLite library: SQLCipher's backup needs its own
    src.conn.backup(dst_conn)
    dst_conn.close()
    src.close()
    memory = Memory.open(copy)
    yield memory
    memory.close()


STRESSED = {"mood_vector": {"shame": 0.8, "sadness": 0.6}, "stress_proxy": 0.75, "hrv": 48,
            "sleep_quality": 0.3, "recent_life_events_7d": ["argument with my sister"],
            "snapshot_days_ago": 20}


@pytest.mark.parametrize("scorer", ["v2", "dense", "pulse", "v3", "hybrid"])
@pytest.mark.parametrize("state", [None, STRESSED])
def test_factors_multiply_to_the_score(demo: Memory, scorer: str, state) -> None:
    for query in ("feeling abandoned by my father", "coffee", "what happened last month"):
        out = demo.retrieve(query, scorer=scorer, state=state, now=NOW, top_k=15)
        assert out["results"]
        _assert_breakdown(out)
        scores = [r["score"] for r in out["results"]]
        assert scores == sorted(scores, reverse=True)
        _assert_breakdown(demo.retrieve(query, scorer=scorer, state=state, now=NOW, top_k=15,
                                        chain=True))


def test_cosine_and_bm25_baselines(demo: Memory) -> None:
    cos = demo.retrieve("coffee shop shift", scorer="cosine", now=NOW, top_k=5)
    assert all(r["score"] == r["terms"]["cosine"] for r in cos["results"])
    bm = demo.retrieve("coffee", scorer="bm25", now=NOW, top_k=5)
    assert bm["results"] and all("coffee" in (r["title"] + r["text"]).lower() for r in bm["results"])
    assert [r["score"] for r in bm["results"]] == sorted((r["score"] for r in bm["results"]), reverse=True)


def test_pulse_breakdown_shows_both_channels(demo: Memory) -> None:
    out = demo.retrieve("coffee", scorer="pulse", now=NOW, top_k=5)
    t = out["results"][0]["terms"]
    w = t["fusion_dense_weight"]
    assert t["relevance"] == pytest.approx(w * t["dense_relevance"] + (1 - w) * t["bm25_norm"]
                                           + t["context_weight"] * t["context_relevance"]
                                           + t["chain_context_weight"] * t["chain_context"])
    assert t["bm25"] > 0 and t["dense_relevance"] > 0


def test_pulse_is_the_default_and_old_names_are_aliases(demo: Memory) -> None:
    default = demo.retrieve("coffee with Dana", now=NOW, top_k=5)
    assert default["scorer"] == "pulse"
    for alias, name in (("hybrid", "pulse"), ("v3", "dense")):
        old = demo.retrieve("coffee with Dana", scorer=alias, now=NOW, top_k=5)
        new = demo.retrieve("coffee with Dana", scorer=name, now=NOW, top_k=5)
        assert old["scorer"] == name
        assert [(r["id"], r["score"]) for r in old["results"]] == \
            [(r["id"], r["score"]) for r in new["results"]]
    assert [(r["id"], r["score"]) for r in default["results"]] == \
        [(r["id"], r["score"]) for r in demo.retrieve("coffee with Dana", scorer="pulse",
                                                      now=NOW, top_k=5)["results"]]


# -- gates ----------------------------------------------------------------------------------------

def test_no_signal_opens_no_gate(demo: Memory) -> None:
    out = demo.retrieve("the radio on the kitchen table", scorer="dense", now=NOW)
    assert out["gates"] == {"emotion": False, "state": None, "date_ref_days": None, "hint": None}
    assert out["effective_query"] == out["query"]
    for r in out["results"]:
        assert (r["terms"]["emotion"], r["terms"]["state"], r["terms"]["date"]) == (1.0, 1.0, 1.0)


def test_radio_is_not_joy_but_ashamed_is_shame(demo: Memory) -> None:
    assert demo.retrieve("radio", scorer="dense", now=NOW)["gates"]["emotion"] is False
    out = demo.retrieve("I feel so ashamed of myself", scorer="dense", now=NOW)
    assert out["gates"]["emotion"] is True
    assert any(r["terms"]["emotion"] > 1.0 for r in out["results"])
    assert out["gates"]["state"] is None and out["gates"]["date_ref_days"] is None


def test_mood_opens_emotion_gate_and_the_hint_only_when_asked(demo: Memory) -> None:
    out = demo.retrieve("coffee", scorer="dense", now=NOW, state={"mood_vector": {"shame": 0.8}})
    assert out["gates"]["emotion"] is True
    assert out["gates"]["hint"] is None and out["effective_query"] == "coffee"
    out = demo.retrieve("coffee", scorer="dense", now=NOW, state={"mood_vector": {"shame": 0.8}},
                        settings={"mood_hint": True})
    assert out["gates"]["hint"] == "wound self-blame rejection origin"
    assert out["effective_query"] == "coffee wound self-blame rejection origin"
    assert out["gates"]["state"] is None


def test_weak_mood_opens_nothing(demo: Memory) -> None:
    out = demo.retrieve("coffee", scorer="dense", now=NOW, state={"mood_vector": {"joy": 0.3}})
    assert out["gates"]["emotion"] is False and out["gates"]["hint"] is None


def test_body_state_gate_only_on_body_signals(demo: Memory) -> None:
    stressed = demo.retrieve("work", scorer="dense", now=NOW, state={"stress_proxy": 0.8})
    assert stressed["gates"]["state"] == "stressed"
    assert stressed["gates"]["emotion"] is False
    assert any(r["terms"]["state"] == pytest.approx(1.15) for r in stressed["results"])
    assert all(r["terms"]["state"] in (1.0, pytest.approx(1.15), pytest.approx(1.105))
               for r in stressed["results"])
    restored = demo.retrieve("work", scorer="dense", now=NOW,
                             state={"stress_proxy": 0.2, "sleep_quality": 0.8})
    assert restored["gates"]["state"] == "restored"
    neutral = demo.retrieve("work", scorer="dense", now=NOW, state={"stress_proxy": 0.45})
    assert neutral["gates"]["state"] is None


def test_date_gate_from_phrase_and_snapshot(demo: Memory) -> None:
    out = demo.retrieve("what happened last month", scorer="dense", now=NOW)
    assert out["gates"]["date_ref_days"] == 40
    assert any(r["terms"]["date"] > 1.0 for r in out["results"])
    assert demo.retrieve("the lastmonth plan", scorer="dense", now=NOW)["gates"]["date_ref_days"] is None
    assert demo.retrieve("что было в прошлом месяце", scorer="dense", now=NOW)["gates"]["date_ref_days"] == 40
    snap = demo.retrieve("coffee", scorer="dense", now=NOW, state={"snapshot_days_ago": 7})
    assert snap["gates"]["date_ref_days"] == 7


def test_anchor_boosts_only_flagged_events_in_top_8(memory: Memory) -> None:
    rng = np.random.default_rng(3)
    base = rng.normal(size=384)
    ids = []
    for i in range(30):
        # event 1 matches the query exactly (so it ranks), event 25 is far down the list
        v = base if i == 1 else base + rng.normal(scale=0.6 if i != 25 else 3.0, size=384)
        ids.append(add(memory, f"event {i}", vector=v / np.linalg.norm(v), days_ago=5 + i,
                       user_flag=int(i in (1, 25))))
    query = base / np.linalg.norm(base)

    class Fixed:
        name, dim = memory.embedding_model, 384

        def embed_query(self, text):
            return query.astype(np.float32)

    memory.scorer._embedder = lambda: Fixed()
    out = memory.retrieve("anything", scorer="dense", now=NOW, top_k=30, abstain=False)
    by_id = {r["id"]: r for r in out["results"]}
    bases = sorted(out["results"], key=lambda r: (-r["terms"]["base"], r["id"]))[:8]
    top8 = {r["id"] for r in bases}
    for r in out["results"]:
        flagged = r["id"] in (ids[1], ids[25])
        expected = 1.05 if (flagged and r["id"] in top8) else 1.0
        assert r["terms"]["anchor"] == pytest.approx(expected)
    assert by_id[ids[1]]["terms"]["anchor"] == pytest.approx(1.05)
    assert ids[25] not in by_id or by_id[ids[25]]["terms"]["anchor"] == 1.0


# -- no-regression property ------------------------------------------------------------------------

@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), n=st.integers(1, 60), top_k=st.integers(1, 12),
       with_floor=st.booleans())
def test_v3_equals_v2_without_signals(tmp_path_factory, seed: int, n: int, top_k: int,
                                      with_floor: bool) -> None:
    path = tmp_path_factory.mktemp("prop") / "m.db"
    rng = np.random.default_rng(seed)
    with Memory.open(path, create=True) as memory:
        classes = ["self_model", "user_model", "operational", "hypothesis", "axiom"]
        for i in range(n):
            v = rng.normal(size=384)
            cls = classes[int(rng.integers(0, 5))]
            floor = float(rng.uniform(0.5, 1)) if cls == "axiom" else (
                float(rng.uniform(0, 0.6)) if with_floor else 0.0)
            emotions = {"joy": float(rng.uniform(0, 1)), "fear": float(rng.uniform(0, 1))}
            add(memory, f"e{i}", vector=v / np.linalg.norm(v), days_ago=float(rng.uniform(0, 3000)),
                belief_class=cls, confidence_floor=floor, archivable=0 if cls == "axiom" else 1,
                emotions=emotions, biometrics={"hrv": 40, "sleep_quality": 0.2})
        for query in ("notes about the garden project", "a plain question about tables"):
            v2 = memory.retrieve(query, scorer="v2", now=NOW, top_k=top_k, abstain=False)
            v3 = memory.retrieve(query, scorer="dense", now=NOW, top_k=top_k, abstain=False)
            assert v3["gates"] == {"emotion": False, "state": None, "date_ref_days": None, "hint": None}
            assert [(r["id"], r["score"]) for r in v3["results"]] == \
                [(r["id"], r["score"]) for r in v2["results"]]


# -- chains ----------------------------------------------------------------------------------------

def test_cycles_and_self_links_are_refused(memory: Memory) -> None:
    a, b, c = (add(memory, t) for t in ("lost the job", "money got tight", "moved back home"))
    records.link_events(memory.conn, actor="manual", parent_id=a, child_id=b)
    records.link_events(memory.conn, actor="manual", parent_id=b, child_id=c)
    with pytest.raises(InvariantError, match="cycle"):
        records.link_events(memory.conn, actor="manual", parent_id=c, child_id=a)
    with pytest.raises(InvariantError):
        records.link_events(memory.conn, actor="manual", parent_id=a, child_id=a)
    assert memory.conn.execute("SELECT COUNT(*) FROM event_chains").fetchone()[0] == 2


def test_chain_mode_orders_roots_first_and_is_deterministic(memory: Memory) -> None:
    titles = ["I lost my job at the studio", "Money worries after losing the job",
              "Moved back in with my mother because of money", "Found a new job at a bakery",
              "Unrelated: the cat learned to open doors"]
    ids = [add(memory, t, days_ago=50 - 10 * i) for i, t in enumerate(titles)]
    records.link_events(memory.conn, actor="manual", parent_id=ids[0], child_id=ids[1])
    records.link_events(memory.conn, actor="manual", parent_id=ids[1], child_id=ids[2])
    records.link_events(memory.conn, actor="manual", parent_id=ids[2], child_id=ids[3])
    runs = [memory.retrieve("money and the job", scorer="dense", now=NOW, top_k=4, chain=True)
            for _ in range(3)]
    orders = [[r["id"] for r in out["results"]] for out in runs]
    assert orders[0] == orders[1] == orders[2]
    assert orders[0] == ids[:4]


def chain_memory(memory: Memory) -> list[int]:
    """A causal chain whose root has nothing in common with the query below."""
    titles = ["Grandfather left me his old car", "Sold the car to pay for violin lessons",
              "Auditioned for the city orchestra", "Stage fright before the orchestra audition",
              "Unrelated: repainted the kitchen yellow"]
    ids = [add(memory, t, days_ago=400 - 80 * i) for i, t in enumerate(titles)]
    for parent, child in ((0, 1), (1, 2), (2, 3)):
        records.link_events(memory.conn, actor="manual", parent_id=ids[parent],
                            child_id=ids[child])
    # closer to the query than the root, so that the plain ranking leaves the root out
    for i, what in enumerate(("a concert", "the school play", "a wedding speech", "karaoke night",
                              "the choir's first show", "a piano recital", "an open mic")):
        add(memory, f"Nervous on stage at {what}", days_ago=60 + i)
    for i in range(20):  # a memory large enough for the normalised relevance
        add(memory, f"Shopping list number {i}: bread, milk, eggs", days_ago=30 + i)
    return ids


def test_chain_brings_causes_the_query_did_not_rank(memory: Memory) -> None:
    ids = chain_memory(memory)
    plain = memory.retrieve("stage fright at the orchestra audition", scorer="pulse", now=NOW,
                            top_k=3)
    assert ids[0] not in [r["id"] for r in plain["results"]]
    # without chain context the root is ranked by nothing: the chain brings it
    out = memory.retrieve("stage fright at the orchestra audition", scorer="pulse", now=NOW,
                          top_k=5, chain=True, settings={"chain_context_weight": 0.0})
    order = [r["id"] for r in out["results"]]
    assert order[:4] == ids[:4]                        # roots first: the whole story
    by = {r["id"]: r for r in out["results"]}
    assert by[ids[0]]["via_chain"] == {"anchor": ids[3], "hops": 3, "relation": "cause"}
    assert by[ids[0]]["terms"]["via_chain"] is True
    assert by[ids[3]]["via_chain"] is None
    for r in out["results"]:                           # the breakdown still multiplies
        t = r["terms"]
        assert r["score"] == pytest.approx(t["relevance"] * t["recency_factor"] * t["emotion"]
                                           * t["state"] * t["anchor"] * t["date"], abs=1e-9)
    # with it (the default) the same story, the root now ranked through its link
    linked = memory.retrieve("stage fright at the orchestra audition", scorer="pulse", now=NOW,
                             top_k=5, chain=True)
    assert [r["id"] for r in linked["results"]][:4] == ids[:4]
    root = {r["id"]: r for r in linked["results"]}[ids[0]]
    assert root["via_chain"] is None and root["terms"]["chain_context"] > 0


def test_chain_never_crosses_a_domain_filter(memory: Memory) -> None:
    ids = chain_memory(memory)
    memory.set_belief(ids[1], domain="fiction_content")
    out = memory.retrieve("stage fright at the orchestra audition", scorer="pulse", now=NOW,
                          top_k=5, chain=True, domains="real")
    got = [r["id"] for r in out["results"]]
    assert ids[1] not in got and ids[0] not in got    # the root is reached only through ids[1]
    assert all(r["domain"] == "real" for r in out["results"])
    assert ids[2] in got and ids[3] in got


def test_chain_order_follows_causes_not_dates(memory: Memory) -> None:
    """A memory recorded later about something older: the cause is dated after its effect.
    Roots first means the cause first, whatever the dates say."""
    late_cause = add(memory, "Remembered in therapy: the flood took our house when I was six",
                     days_ago=10)
    early_effect = add(memory, "Afraid of rain since childhood, a fear of floods", days_ago=300)
    records.link_events(memory.conn, actor="manual", parent_id=late_cause,
                        child_id=early_effect)
    for i in range(25):
        add(memory, f"Shopping list number {i}: bread, milk, eggs", days_ago=30 + i)
    out = memory.retrieve("afraid of rain and floods", scorer="pulse", now=NOW, top_k=3,
                          chain=True)
    assert [r["id"] for r in out["results"]][:2] == [late_cause, early_effect]


def test_chain_respects_top_k_keeping_the_anchor_and_nearest_causes(memory: Memory) -> None:
    ids = chain_memory(memory)
    out = memory.retrieve("stage fright at the orchestra audition", scorer="pulse", now=NOW,
                          top_k=2, chain=True)
    assert [r["id"] for r in out["results"]] == [ids[2], ids[3]]


def test_why_lists_the_causes_roots_first(memory: Memory) -> None:
    ids = chain_memory(memory)
    out = memory.why(ids[3])
    assert out["event"]["id"] == ids[3]
    assert [c["id"] for c in out["causes"]] == ids[:3]
    assert [c["hops"] for c in out["causes"]] == [3, 2, 1]
    assert out["causes"][2]["led_to"] == [{"id": ids[3], "kind": "causal", "strength": 0.5}]
    assert [c["id"] for c in memory.why(ids[3], depth=1)["causes"]] == [ids[2]]
    by_query = memory.why(query="stage fright at the orchestra audition", now=NOW)
    assert by_query["event"]["id"] == ids[3] and by_query["causes"] == out["causes"]
    nothing = memory.why(query="xqzv blorf quantum lasagna", now=NOW,
                         settings={"abstain_cosine": 0.99})
    assert nothing["abstained"] is True and nothing["event"] is None
    assert nothing["abstain_reason"].startswith("nothing relevant")
    with pytest.raises(PulseError, match="one of them"):
        memory.why(ids[3], query="both")


# -- abstention ----------------------------------------------------------------------------------

def test_nothing_relevant_abstains_with_a_reason(demo: Memory) -> None:
    for scorer in ("pulse", "dense", "v2"):
        out = demo.retrieve("xqzv blorf quantum lasagna", scorer=scorer, now=NOW)
        assert out["abstained"] is True and out["results"] == []
        assert out["abstain_reason"].startswith("nothing relevant:")
        assert "0 of 4 query words" in out["abstain_reason"]
        ev = out["evidence"]
        assert ev["term_coverage"] == 0.0 and ev["max_cosine"] < ev["events"]
    forced = demo.retrieve("xqzv blorf quantum lasagna", scorer="pulse", now=NOW,
                           abstain=False)
    assert forced["abstained"] is False and forced["results"]
    for scorer in ("cosine", "bm25"):   # the baselines never abstain
        assert demo.retrieve("xqzv blorf quantum lasagna", scorer=scorer, now=NOW)[
            "abstained"] is False


def test_own_questions_do_not_abstain(demo: Memory) -> None:
    for query in ("feeling abandoned", "coffee with Dana", "my dog", "письмо от мамы",
                  "how was I then"):
        out = demo.retrieve(query, now=NOW)
        assert out["abstained"] is False and out["results"], query


def test_a_model_without_calibration_never_abstains(demo: Memory) -> None:
    out = demo.retrieve("xqzv blorf quantum lasagna", now=NOW,
                        settings={"abstain_model": "some-other-model"})
    assert out["abstained"] is False and out["results"]
    assert out["evidence"]["calibrated"] is False


def test_an_empty_memory_abstains(memory: Memory) -> None:
    out = memory.retrieve("anything at all", now=NOW)
    assert out["abstained"] is True and out["results"] == []
    assert "no event" in out["abstain_reason"]


# -- isolation and validation ----------------------------------------------------------------------

def test_a_query_never_mixes_models(memory: Memory) -> None:
    a = add(memory, "Coffee with Dana")
    b = add(memory, "Tea with Sam")
    other = np.zeros(384, dtype=np.float32)
    other[0] = 1.0
    records.set_embedding(memory.conn, b, records.Vector("other-model", other))
    memory.conn.execute("DELETE FROM event_embeddings WHERE event_id = ? AND model = ?",
                        (b, memory.embedding_model))
    out = memory.retrieve("coffee", scorer="v2", now=NOW)
    assert [r["id"] for r in out["results"]] == [a]


def test_domain_filter_applies_before_scoring(memory: Memory) -> None:
    real = add(memory, "Walked the dog in the park")
    fiction = add(memory, "The heroine walks her dog in the park", domain="fiction_content")
    out = memory.retrieve("dog in the park", scorer="dense", now=NOW, domains="real")
    assert [r["id"] for r in out["results"]] == [real]
    out = memory.retrieve("dog in the park", scorer="dense", now=NOW, domains=["fiction_content"])
    assert [r["id"] for r in out["results"]] == [fiction]


@pytest.mark.parametrize("options,message", [
    ({"scorer": "v9"}, "unknown scorer 'v9' .*pulse.*v3 = dense"),
    ({"top_k": 0}, "top_k"),
    ({"domains": "dreams"}, "unknown domain"),
    ({"state": {"mood": {}}}, "unknown key 'mood'"),
    ({"state": {"mood_vector": {"joy": 2}}}, "mood_vector.joy"),
    ({"state": {"hr_trend": "weird"}}, "hr_trend"),
    ({"now": "yesterday-ish"}, "ISO-8601"),
    ({"settings": {"alpha": 3}}, "alpha"),
    ({"settings": {"gamma": 1}}, "unknown keys"),
])
def test_bad_options_name_the_problem(memory: Memory, options: dict, message: str) -> None:
    add(memory, "Something")
    with pytest.raises(PulseError, match=message):
        memory.retrieve("something", **options)


def test_explain_unranked_event(demo: Memory) -> None:
    out = demo.explain("e001", "coffee at the café", scorer="dense", now=NOW)
    r = out["result"]
    assert r["key"] == "e001"
    assert r["rank"] >= 1
    t = r["terms"]
    assert r["score"] == pytest.approx(t["relevance"] * t["recency_factor"] * t["emotion"]
                                       * t["state"] * t["anchor"] * t["date"], abs=1e-9)


def test_settings_change_alpha_for_one_query(demo: Memory) -> None:
    full = demo.retrieve("coffee", scorer="v2", now=NOW, settings={"alpha": 1.0})
    assert all(r["terms"]["recency_factor"] == 1.0 for r in full["results"])
