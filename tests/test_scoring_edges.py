"""The scorer at its edges, where bench/mutate.py found wrong code passing: the boundary of the
context window, a memory of exactly two turns, rows without a neighbour, the query-emotion gate
at its threshold, the split matrix product, and the defaults of the request and evidence."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import numpy as np
import pytest

from core.memory import Memory
from core.scoring import gates
from core.scoring import scorer as scorer_module
from core.scoring.evidence import Evidence
from core.scoring.scorer import Request
from core.scoring.settings import DEFAULT_SETTINGS
from core.scoring.state import parse_state
from core.store import records
from tests.test_scoring_formula import COSINES_30, NOW, by_id, designed, iso

S = DEFAULT_SETTINGS


def test_request_and_evidence_defaults() -> None:
    request = Request("harbour")
    assert (request.top_k, request.scorer, request.chain, request.abstain, request.domains) == \
        (10, "pulse", False, True, None)
    assert request.settings is DEFAULT_SETTINGS and request.state.is_empty()
    evidence = Evidence(max_cosine=0.9, median_cosine=0.1, term_coverage=1.0, words_found=1,
                        words=1, events=3, calibrated=True)
    assert evidence.state_match is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        evidence.max_cosine = 0.1   # type: ignore[misc]


def _turns(memory: Memory, minutes_apart: float, texts: tuple[str, ...]) -> list[int]:
    start = NOW - timedelta(days=2, hours=12)     # midnight: whole epoch days, exact gaps
    ids = []
    for i, text in enumerate(texts):
        when = iso(start + timedelta(minutes=minutes_apart * i))
        obs, _ = records.add_observation(memory.conn, actor="import", source_kind="chat",
                                         source_id=f"t{i}", content_text=text,
                                         captured_at=iso(NOW), observed_at=when)
        vec = memory.embedder().embed_passages([text])[0]
        ids.append(records.add_event(memory.conn, actor="import",
                                     fields={"title": text, "ts": when, "source_observation": obs},
                                     vectors=[records.Vector(memory.embedding_model,
                                                             np.asarray(vec, np.float32))]))
    return ids


TEXTS = ("Did you go to the lighthouse concert on Friday?", "Yes! It was wonderful.")


def test_two_turns_are_each_others_context(memory: Memory) -> None:
    question, answer = _turns(memory, 5, TEXTS)
    index = memory.scorer.index()
    assert index.prev_row.tolist() == [-1, 0] and index.next_row.tolist() == [1, -1]
    assert index.next_gap_days[0] == pytest.approx(5 / 1440, abs=1e-9)
    out = memory.retrieve("lighthouse concert", scorer="pulse", now=NOW, abstain=False)
    got = by_id(out)
    q = got[question]["terms"]
    fused_q = S.context_dense_weight * q["dense_relevance"] + \
        (1 - S.context_dense_weight) * q["bm25_norm"]
    assert fused_q > 0
    assert got[answer]["terms"]["context_relevance"] == pytest.approx(fused_q, abs=1e-12)


@pytest.mark.parametrize("window,shared", [(1440.0, True), (1439.9, False)])
def test_a_neighbour_exactly_at_the_window_is_context(memory: Memory, window: float,
                                                      shared: bool) -> None:
    designed(memory, COSINES_30[:20], days_ago=300.0)
    question, answer = _turns(memory, 1440, TEXTS)      # a gap of exactly one day
    out = memory.retrieve("lighthouse concert", scorer="pulse", now=NOW, top_k=30,
                          abstain=False, settings={"context_window_minutes": window})
    context = by_id(out)[answer]["terms"]["context_relevance"]
    assert (context > 0) is shared


def test_rows_without_an_observation_have_no_neighbour(memory: Memory) -> None:
    designed(memory, COSINES_30[:3])
    index = memory.scorer.index()
    assert index.prev_row.tolist() == [-1, -1, -1] and index.next_row.tolist() == [-1, -1, -1]
    assert np.isinf(index.prev_gap_days).all() and np.isinf(index.next_gap_days).all()


def test_the_query_emotion_gate_opens_at_its_threshold() -> None:
    from core.emotion import query_emotion

    query = "I am so afraid and ashamed"
    strongest = float(np.max(query_emotion(query)))
    assert strongest > 0
    at = S.with_overrides({"emotion_gate": strongest})
    opened = gates.emotion_gate_vector(parse_state(None), query, at)
    assert opened is not None and opened[1] == "query"
    above = S.with_overrides({"emotion_gate": strongest + 1e-9})
    assert gates.emotion_gate_vector(parse_state(None), query, above) is None


def test_the_split_product_equals_the_single_one(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    matrix = rng.normal(size=(9, 4)).astype(np.float32)
    query = rng.normal(size=4).astype(np.float32)
    single = scorer_module._cosines(matrix, query)
    monkeypatch.setattr(scorer_module, "_PARALLEL_ROWS", 4)
    monkeypatch.setattr(scorer_module, "_pool", None)
    monkeypatch.setattr(scorer_module.os, "cpu_count", lambda: 2)
    split = scorer_module._cosines(matrix, query)
    assert scorer_module._pool is not None          # the split path ran
    assert split.dtype == np.float64 and split.shape == (9,)
    assert split == pytest.approx(single, abs=1e-6)
    monkeypatch.setattr(scorer_module, "_PARALLEL_ROWS", 9)
    monkeypatch.setattr(scorer_module, "_pool", None)
    scorer_module._cosines(matrix, query)
    assert scorer_module._pool is not None          # exactly at the limit: split
    monkeypatch.setattr(scorer_module, "_PARALLEL_ROWS", 10)
    monkeypatch.setattr(scorer_module, "_pool", None)
    scorer_module._cosines(matrix, query)
    assert scorer_module._pool is None               # below it: one product
    monkeypatch.setattr(scorer_module, "_PARALLEL_ROWS", 4)
    monkeypatch.setattr(scorer_module.os, "cpu_count", lambda: 1)
    scorer_module._cosines(matrix, query)
    assert scorer_module._pool is None               # one core: never split


def test_a_graph_knows_which_events_are_linked() -> None:
    from core.scoring.chain import ChainGraph, Link

    g = ChainGraph(rev="t")
    g.parents[2].add(1)
    g.children[1].add(2)
    g.links[(1, 2)] = Link("causal", 0.5)
    assert (g.linked(1), g.linked(2), g.linked(3)) == (True, True, False)
    assert (g.ancestor_depth(2), g.ancestor_depth(1)) == (1, 0)


def test_links_and_events_added_later_are_seen(memory: Memory) -> None:
    """The chain graph, the index and the term counts are cached per memory revision: a write
    moves it, and the next query sees the write."""
    ids = designed(memory, COSINES_30[:22])
    first = memory.why(ids[-1])
    assert first["causes"] == []
    records.link_events(memory.conn, actor="import", parent_id=ids[0], child_id=ids[-1])
    again = memory.why(ids[-1])
    assert [c["id"] for c in again["causes"]] == [ids[0]]
    before = memory.retrieve("zanzibarquux harbour", scorer="v2", now=NOW, abstain=False)
    vector = np.asarray(memory.embedder().embed_passages(["zanzibarquux"])[0], np.float32)
    records.add_event(memory.conn, actor="import", fields={"title": "zanzibarquux", "ts": iso(NOW)},
                      vectors=[records.Vector(memory.embedding_model, vector)])
    after = memory.retrieve("zanzibarquux harbour", scorer="v2", now=NOW, abstain=False)
    assert before["evidence"]["words_found"] == 0 and after["evidence"]["words_found"] == 1


def test_state_fit_values() -> None:
    stressed_day, good_day = {"stress_proxy": 0.9}, {"hrv": 80}
    assert gates.state_fit("stressed", stressed_day, "", False, S) == 1.0
    assert gates.state_fit("restored", good_day, "", False, S) == 1.0
    assert gates.state_fit("restored", stressed_day, "", False, S) == 0.0
    assert gates.state_fit("stressed", good_day, "", False, S) == 0.0
    assert gates.state_fit("stressed", good_day, "", True, S) == 0.7
    assert gates.state_fit("", {}, "", False, S) == 0.0


def test_parse_iso_gives_aware_utc() -> None:
    from datetime import datetime, timezone

    from core.errors import PulseError
    from core.scoring.scorer import format_iso, parse_iso

    utc = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
    assert parse_iso("2026-11-01T12:00:00") == utc            # naive means UTC
    assert parse_iso("2026-11-01T12:00:00Z") == utc
    assert parse_iso(" 2026-11-01T14:00:00+02:00 ") == utc
    assert parse_iso("2026-11-01T14:00:00+02:00").tzinfo == timezone.utc
    assert parse_iso("2026-11-01") == datetime(2026, 11, 1, tzinfo=timezone.utc)
    assert format_iso(parse_iso("2026-11-01T14:00:00+02:00")) == "2026-11-01T12:00:00Z"
    with pytest.raises(PulseError, match="now: 'yesterday' is not an ISO-8601"):
        parse_iso("yesterday", "now")


def test_emotion_similarity_does_not_depend_on_the_gates_strength() -> None:
    from core.scoring.scorer import _emotion_similarity

    rows = np.array([[3.0, 4.0] + [0.0] * 8, [1.0] + [0.0] * 9])
    for strength in (0.5, 2.0):
        gate = strength * np.array([1.0] + [0.0] * 9)
        assert _emotion_similarity(gate, rows).tolist() == pytest.approx([0.6, 1.0], abs=1e-12)


def test_position_of_an_id_not_in_the_index_is_none(memory: Memory) -> None:
    ids = designed(memory, COSINES_30[:3])
    records.add_event(memory.conn, actor="import", fields={"title": "no vector", "ts": iso(NOW)})
    index = memory.scorer.index()
    assert [index.position(i) for i in ids] == [0, 1, 2]
    assert index.position(ids[0] - 1) is None and index.position(ids[-1] + 1) is None
    assert index.position(ids[-1] + 1000) is None


def test_the_median_is_exact_up_to_its_limit_then_a_seeded_sample() -> None:
    from core.scoring.scorer import _median

    pool = np.arange(10, dtype=np.float64) ** 2
    exact = S.with_overrides({"median_exact_limit": 10, "median_sample": 4})
    assert _median(pool, exact) == 20.5                       # (16 + 25) / 2
    sampled = S.with_overrides({"median_exact_limit": 9, "median_sample": 4})
    pick = np.random.default_rng(10).choice(10, size=4, replace=False)
    assert _median(pool, sampled) == float(np.median(pool[pick]))
    assert _median(np.zeros(0), S) == 0.0


def test_iso_times_become_epoch_days() -> None:
    from core.scoring.index import _lenient_epoch_days, iso_to_epoch_days

    assert iso_to_epoch_days([]).shape == (0,)
    got = iso_to_epoch_days(["1970-01-02T00:00:00Z", "1970-01-01T12:00:00"])
    assert got.tolist() == [1.0, 0.5] and got.dtype == np.float64
    odd = _lenient_epoch_days(["1970-01-03T00:00:00Z", "last Tuesday"])
    assert odd[0] == 2.0 and np.isnan(odd[1])


def test_a_request_is_frozen_and_refuses_a_blank_query() -> None:
    from core.errors import PulseError

    with pytest.raises(dataclasses.FrozenInstanceError):
        Request("harbour").top_k = 3   # type: ignore[misc]
    for blank in ("", "   \n"):
        with pytest.raises(PulseError, match="the query is empty"):
            Request(blank).validated()


def test_explain_uses_the_given_now_and_marks_a_dropped_event(memory: Memory) -> None:
    ids = designed(memory, COSINES_30[:25], days_ago=10.0)
    out = memory.explain(ids[0], "walking along the harbour at dawn", scorer="dense", now=NOW)
    assert out["now"] == "2026-11-01T12:00:00Z"
    result = out["result"]
    assert result["terms"]["days_ago"] == pytest.approx(10.0, abs=1e-9)
    assert result["terms"]["relevance"] == 0.0 and result["dropped"] is True   # below median
    top = memory.explain(ids[-1], "walking along the harbour at dawn", scorer="dense", now=NOW)
    assert top["result"]["dropped"] is False and top["result"]["rank"] == 1


def test_without_context_no_neighbour_joins_or_counts(memory: Memory) -> None:
    question, answer = _turns(memory, 5, TEXTS)
    only = {"candidates_min": 1, "candidates_per_k": 0}
    # "wonderful" is only in the answer: the lexical channel brings it, its neighbour (the
    # question, index row 0) joins as context
    both = memory.retrieve("wonderful", scorer="pulse", now=NOW, top_k=5, abstain=False,
                           settings=only)
    assert {r["id"] for r in both["results"]} == {question, answer}
    alone = memory.retrieve("wonderful", scorer="pulse", now=NOW, top_k=5, abstain=False,
                            settings={**only, "context_weight": 0.0})
    assert [r["id"] for r in alone["results"]] == [answer]
    assert alone["results"][0]["terms"]["context_relevance"] == 0.0


def test_a_recent_life_event_names_an_entity_by_its_alias(memory: Memory) -> None:
    designed(memory, COSINES_30[:20])
    sister = records.add_entity(memory.conn, actor="import", name="Ekaterina", kind="person",
                                aliases=["Katya"])
    q = np.asarray(memory.embedder().embed_query("walking along the harbour at dawn"), np.float32)
    linked = records.add_event(memory.conn, actor="import",
                               fields={"title": "call", "ts": iso(NOW - timedelta(days=10))},
                               entities=[sister],
                               vectors=[records.Vector(memory.embedding_model, q)])
    out = memory.retrieve("walking along the harbour at dawn", scorer="dense", now=NOW, top_k=30,
                          abstain=False, state={"stress_proxy": 0.8,
                                                "recent_life_events_7d": ["a fight with Katya"]})
    assert by_id(out)[linked]["terms"]["state"] == pytest.approx(1 + 0.15 * 0.7, abs=1e-12)


def test_base_is_relevance_times_recency(memory: Memory) -> None:
    designed(memory, COSINES_30[:25], days_ago=[float(i * 30) for i in range(25)])
    out = memory.retrieve("walking along the harbour at dawn", scorer="dense", now=NOW,
                          top_k=20, abstain=False)
    assert len(out["results"]) >= 5
    for r in out["results"]:
        t = r["terms"]
        assert t["recency_factor"] < 1.0 or t["days_ago"] == 0
        assert t["base"] == pytest.approx(t["relevance"] * t["recency_factor"], abs=1e-12)


def test_settings_from_a_file(tmp_path) -> None:
    from core.errors import ValidationError
    from core.scoring.settings import ScorerSettings

    good = tmp_path / "s.json"
    good.write_text('{"alpha": 0.5}', encoding="utf-8")
    assert ScorerSettings.from_file(good).alpha == 0.5
    for text, error in (("[1, 2]", "settings must be a JSON object"),
                        ("{nope", "not valid JSON")):
        bad = tmp_path / "bad.json"
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(ValidationError, match=error):
            ScorerSettings.from_file(bad)
    with pytest.raises(ValidationError, match="cannot read settings"):
        ScorerSettings.from_file(tmp_path / "missing.json")


@pytest.mark.parametrize("data,error", [
    ({"stress_proxy": True}, "stress_proxy must be a number"),
    ({"stress_proxy": "high"}, "stress_proxy must be a number"),
    ({"stress_proxy": -0.01}, "stress_proxy must be 0..1"),
    ({"stress_proxy": 1.01}, "stress_proxy must be 0..1"),
    ({"sleep_hours": 24.5}, "sleep_hours must be 0..24"),
    ({"hrv": -1}, "hrv must be ≥ 0"),
    ({"snapshot_days_ago": -2}, "snapshot_days_ago must be ≥ 0"),
    ({"mood_vector": {"joy": 1.5}}, "mood_vector.joy must be a number in 0..1"),
    ({"mood_vector": {"joy": True}}, "mood_vector.joy must be a number in 0..1"),
    ({"mood_vector": {"joy": -0.1}}, "mood_vector.joy must be a number in 0..1"),
    ({"recent_life_events_7d": ["ok", 3]}, "recent_life_events_7d must be a list of strings"),
    ({"recent_life_events_7d": "a fight"}, "recent_life_events_7d must be a list of strings"),
])
def test_a_bad_state_names_the_field(data: dict, error: str) -> None:
    from core.errors import ValidationError

    with pytest.raises(ValidationError, match=error.replace(".", r"\.")):
        parse_state(data)


def test_a_state_at_its_bounds_is_kept() -> None:
    edge = parse_state({"stress_proxy": 0, "sleep_quality": 1, "sleep_hours": 24, "hrv": 0,
                        "snapshot_days_ago": 0, "mood_vector": {"joy": 1, "fear": 0},
                        "recent_life_events_7d": ["a fight"], "hr_trend": None})
    assert (edge.stress_proxy, edge.sleep_quality, edge.sleep_hours, edge.hrv,
            edge.snapshot_days_ago) == (0.0, 1.0, 24.0, 0.0, 0.0)
    assert edge.mood_vector == {"joy": 1.0, "fear": 0.0} and edge.hr_trend is None
    assert edge.recent_life_events_7d == ("a fight",)


def test_recent_life_events_find_entities_added_since_the_last_query(memory: Memory) -> None:
    """The entity names are compiled once and kept until something is written: an entity
    added (here, or an alias) is found by the next query's recent life events."""
    kind = "person"
    mama = records.add_entity(memory.conn, actor="manual", name="Mama", kind=kind,
                              aliases=["Mom"])
    state = parse_state({"recent_life_events_7d": ["Mom called twice; Dr. Lee said rest"]})
    scorer = memory.scorer
    assert scorer._recent_entities(state) == {mama}
    assert scorer._recent_entities(state) == {mama}          # kept: nothing was written
    lee = records.add_entity(memory.conn, actor="manual", name="Dr. Lee", kind=kind)
    records.add_entity(memory.conn, actor="manual", name="Mo", kind=kind)   # not a whole word
    assert scorer._recent_entities(state) == {mama, lee}


def test_the_longest_date_phrase_wins() -> None:
    """A caller's own phrases may extend another ("yesterday morning"): the longer one is read,
    wherever it sorts."""
    settings = dataclasses.replace(S, date_phrase_days={**S.date_phrase_days,
                                                        "yesterday morning": 0.5,
                                                        "a while": 20.0, "a while ago": 30.0})
    state = parse_state(None)
    assert gates.date_reference("what did I do yesterday morning", state, settings) == 0.5
    assert gates.date_reference("what did I do yesterday", state, settings) == 1.0
    assert gates.date_reference("the call a while ago", state, settings) == 30.0
    assert gates.date_reference("for a while now", state, settings) == 20.0
