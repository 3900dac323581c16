"""The scorer where bench/mutate.py found code no test checked (docs/scoring.md, "Mutation
check"): why()'s domain walk and its text, events with a body but no index row, a body state no
event matches, the state channel's candidates when fewer than state_candidates match, and the
state gate of a single candidate. Fixed `now`, real SQLite, the real query embedding."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from core.memory import Memory
from core.scoring.settings import DEFAULT_SETTINGS
from core.store import records
from tests.test_scoring_formula import COSINES_30, NOW, QUERY, by_id, designed, iso
from tests.test_scoring_state import STATE, _event, _far_vector

S = DEFAULT_SETTINGS
BODY = {"stress_proxy": 0.8, "sleep_quality": 0.3, "hrv": 45, "hr_trend": "elevated_overnight"}


def _bare(memory: Memory, title: str, days_ago: float, **fields) -> int:
    """An event without a vector (not embedded yet): in the events table, not in the index."""
    return records.add_event(memory.conn, actor="import", fields={
        "title": title, "ts": iso(NOW - timedelta(days=days_ago)), **fields})


# -- why(): the domains it walks through, and each cause's text ----------------------------------

def test_why_walks_only_through_the_asked_domains(memory: Memory) -> None:
    root = _bare(memory, "Moved to a new city", 300, description="We left everything behind")
    middle = _bare(memory, "Lost touch with old friends", 200)
    story = _bare(memory, "A novel about a lonely sailor", 150, domain="fiction_content")
    lonely = _bare(memory, "Lonely on Sunday evenings", 10)
    for parent, child in ((root, middle), (middle, lonely), (story, lonely)):
        records.link_events(memory.conn, actor="manual", parent_id=parent, child_id=child)
    every = memory.why(lonely)["causes"]
    assert [c["id"] for c in every] == [root, story, middle]      # by depth, then time
    real = memory.why(lonely, domains=["real"])["causes"]
    assert [c["id"] for c in real] == [root, middle]
    fiction = memory.why(lonely, domains=["fiction_content"])["causes"]
    assert [c["id"] for c in fiction] == [story]
    # a cause's text is its description, or its title when it has none
    assert [c["text"] for c in real] == ["We left everything behind",
                                         "Lost touch with old friends"]


# -- a body without an index row ------------------------------------------------------------------

def test_a_body_without_an_index_row_is_left_out_and_the_last_row_keeps_its_own(
        memory: Memory) -> None:
    """The body table holds every event with biometrics; one with no index row (here not
    embedded, the newest id) must neither move another row's body nor fail the query."""
    designed(memory, COSINES_30[:25], days_ago=400.0)
    last = _event(memory, "a night on the ward", _far_vector(memory, 1), biometrics=BODY,
                  emotions={"fear": 0.9})
    _bare(memory, "written before it was embedded", 10, biometrics=BODY)
    out = memory.explain(last, QUERY, scorer="pulse", now=NOW, state=STATE)
    terms = out["result"]["terms"]
    assert (terms["body_similarity"], terms["mood_similarity"]) == pytest.approx((1.0, 1.0))
    assert terms["state_relevance"] == pytest.approx(1.0, abs=1e-12)


def test_a_one_row_index_beside_a_body_without_a_row(memory: Memory) -> None:
    only = _event(memory, "a night on the ward", _far_vector(memory, 1), biometrics=BODY,
                  emotions={"fear": 0.9})
    _bare(memory, "written before it was embedded", 10, biometrics=BODY)
    terms = memory.explain(only, QUERY, scorer="pulse", now=NOW, state=STATE)["result"]["terms"]
    assert terms["body_similarity"] == pytest.approx(1.0, abs=1e-12)


def test_bodies_and_no_index_at_all(memory: Memory) -> None:
    for i in range(2):
        _bare(memory, f"night {i}", 10 + i, biometrics=BODY)
    out = memory.retrieve(QUERY, scorer="pulse", now=NOW, state=STATE, abstain=False)
    assert out["results"] == [] and out["evidence"]["state_match"] == 0.0
    assert out["evidence"]["events"] == 0


# -- a body state that nothing matches ------------------------------------------------------------

def test_a_body_state_no_event_matches_has_no_state_match_and_abstains(memory: Memory) -> None:
    designed(memory, COSINES_30[:25])                          # no biometrics anywhere
    out = memory.retrieve("xqzv blorf quantum lasagna", scorer="pulse", now=NOW, state=STATE,
                          settings={"abstain_cosine": 0.99})
    assert out["evidence"]["state_match"] == 0.0
    assert out["abstained"] is True and out["results"] == []
    # the same query and state with an event lived in that body and mood answers
    _event(memory, "a night on the ward", _far_vector(memory, 1), biometrics=BODY,
           emotions={"fear": 0.9})
    found = memory.retrieve("xqzv blorf quantum lasagna", scorer="pulse", now=NOW, state=STATE,
                            settings={"abstain_cosine": 0.99})
    assert found["evidence"]["state_match"] == pytest.approx(1.0, abs=1e-12)
    assert found["abstained"] is False


# -- the state channel's candidates ---------------------------------------------------------------

def test_only_events_with_state_relevance_join_as_state_candidates(memory: Memory) -> None:
    """One event matches the state (fewer than state_candidates = 5): the channel brings it
    and nothing else. The first events written (the lowest ids, which win ties at 0) are
    recent and fairly relevant, so one brought with a state relevance of 0 would rank first."""
    assert S.state_candidates == 5
    first = designed(memory, [0.86, 0.85, 0.84, 0.83], days_ago=1.0, seed=11)
    ages = [3000.0 + 3 * i for i in range(21)]
    rest = designed(memory, [0.05 + 0.04 * i for i in range(20)] + [0.92], days_ago=ages)
    lived = _event(memory, "a night on the ward", _far_vector(memory, 1),
                   biometrics={"stress_proxy": 0.8, "sleep_quality": 0.3, "hrv": 51},
                   emotions={"fear": 0.3, "sadness": 0.7}, ts=iso(NOW - timedelta(days=900)))
    narrow = {"candidates_min": 1, "candidates_per_k": 1, "context_weight": 0.0}
    out = memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=1, state=STATE, abstain=False,
                          settings=narrow)
    # the candidates: the best cosine (old: recency factor alpha) and the lived event
    assert [r["id"] for r in out["results"]] == [rest[-1]]
    got = memory.explain(lived, QUERY, scorer="pulse", now=NOW, state=STATE, settings=narrow)
    assert 0 < got["result"]["terms"]["state_relevance"] < 0.5
    # were they candidates, the recent ones would outrank it
    recent = memory.explain(first[0], QUERY, scorer="pulse", now=NOW, state=STATE,
                            settings=narrow)
    assert recent["result"]["score"] > out["results"][0]["score"]
    assert recent["result"]["terms"]["state_relevance"] == 0.0


# -- the state gate of a single candidate -------------------------------------------------------

def test_the_state_gate_applies_to_a_single_candidate(memory: Memory) -> None:
    stressed = _event(memory, "walking along the harbour at dawn, exhausted",
                      np.asarray(memory.embedder().embed_passages([QUERY])[0], np.float64),
                      biometrics={"stress_proxy": 0.9})
    out = memory.retrieve(QUERY, scorer="dense", now=NOW, state={"stress_proxy": 0.9},
                          abstain=False)
    assert [r["id"] for r in out["results"]] == [stressed]
    terms = out["results"][0]["terms"]
    assert out["gates"]["state"] == "stressed"
    assert terms["state"] == pytest.approx(1.0 + S.gamma_state, abs=1e-12)
    assert out["results"][0]["score"] == pytest.approx(
        terms["relevance"] * terms["recency_factor"] * terms["emotion"] * terms["state"]
        * terms["anchor"] * terms["date"], rel=1e-12)


# -- postings read out of doc order -------------------------------------------------------------

def test_postings_out_of_doc_order_are_counted_per_doc() -> None:
    """fts5vocab lists a term's occurrences in doc order, so counts are run lengths; should it
    ever not, each doc is still counted once with all its occurrences."""
    import sqlite3

    from core.scoring.postings import _read_postings

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TEMP TABLE pulse_fts_instance (term TEXT, doc INTEGER)")
    conn.executemany("INSERT INTO pulse_fts_instance VALUES (?, ?)",
                     [("tide", d) for d in (5, 3, 5, 1, 5)] + [("moon", d) for d in (2, 2, 7)])
    docs, counts = _read_postings(conn, "tide")
    assert docs.tolist() == [1, 3, 5] and counts.tolist() == [1.0, 1.0, 3.0]
    docs, counts = _read_postings(conn, "moon")
    assert docs.tolist() == [2, 7] and counts.tolist() == [2.0, 1.0]
    docs, counts = _read_postings(conn, "absent")
    assert docs.size == 0 and counts.size == 0


def test_the_cached_median_sample_cannot_be_changed_by_a_caller() -> None:
    """_sample_positions is cached (lru_cache): a caller writing into the array it got would
    change every later median of a memory that size."""
    from core.scoring.scorer import _sample_positions

    positions = _sample_positions(5000, 100)
    assert positions is _sample_positions(5000, 100)
    assert sorted(set(positions.tolist())) == sorted(positions.tolist())    # no repeats
    with pytest.raises(ValueError, match="read-only"):
        positions[0] = 0


# -- the index snapshot's early answers -----------------------------------------------------------

def test_a_small_index_or_a_file_without_snapshots_is_never_stale(memory: Memory) -> None:
    """is_stale asks for a snapshot only of an index of SNAPSHOT_ROWS rows or more, and only
    where the file has the snapshot table; drop() of a file without it removes nothing."""
    import sqlite3

    from core.scoring import snapshot

    model = memory.embedding_model
    assert snapshot.head(memory.conn, model) is None
    assert snapshot.is_stale(memory.conn, model, snapshot.SNAPSHOT_ROWS) is True   # none yet
    assert snapshot.is_stale(memory.conn, model, snapshot.SNAPSHOT_ROWS - 1) is False
    bare = sqlite3.connect(":memory:")
    assert snapshot.is_stale(bare, model, 10 * snapshot.SNAPSHOT_ROWS) is False
    assert snapshot.drop(bare) == 0


def test_a_snapshot_is_stale_past_a_share_of_the_rows(memory: Memory, monkeypatch) -> None:
    """Rewritten once more than max(REWRITE_MIN, REWRITE_SHARE × rows) events changed."""
    from core.scoring import snapshot

    monkeypatch.setattr(snapshot, "SNAPSHOT_ROWS", 1)
    monkeypatch.setattr(snapshot, "REWRITE_MIN", 0)
    designed(memory, COSINES_30[:3])
    assert memory.save_index_snapshot() is not None
    model = memory.embedding_model
    assert snapshot.is_stale(memory.conn, model, 100) is False          # nothing changed
    designed(memory, COSINES_30[3:5])                                      # 2 events changed
    assert snapshot.is_stale(memory.conn, model, 50) is True             # 2 > 0.02 × 50
    assert snapshot.is_stale(memory.conn, model, 100) is False           # 2 ≤ 0.02 × 100
    assert snapshot.is_stale(memory.conn, model, 10_000) is False        # 2 ≤ 0.02 × 10,000


def test_the_change_count_since_a_revision_the_log_still_holds(memory: Memory) -> None:
    from core.scoring import snapshot
    from core.scoring.changelog import current_rev

    floor = int(memory.conn.execute(
        "SELECT value FROM pulse_meta WHERE key = 'index_log_floor'").fetchone()[0])
    start = current_rev(memory.conn)
    designed(memory, COSINES_30[:3])
    now_rev = current_rev(memory.conn)
    assert snapshot.changed_since(memory.conn, str(floor)) == 3          # the floor itself
    assert snapshot.changed_since(memory.conn, start) == 3
    assert snapshot.changed_since(memory.conn, now_rev) == 0            # nothing since
    assert snapshot.changed_since(memory.conn, str(int(now_rev) + 1)) is None   # the future
    # a revision the pruned log no longer reaches
    memory.conn.execute("UPDATE pulse_meta SET value = ? WHERE key = 'index_log_floor'",
                        (str(int(now_rev) - 1),))
    assert snapshot.changed_since(memory.conn, str(int(now_rev) - 2)) is None
    assert snapshot.changed_since(memory.conn, str(int(now_rev) - 1)) == 1


# -- borrowed bodies and body similarity at their edges ------------------------------------------

def test_each_bare_day_borrows_from_its_nearest_lender_on_either_side() -> None:
    from core.scoring.signature import borrowed_bodies

    days = np.array([10.0, 0.0, 20.0])            # not in time order: rows 1, 0, 2
    bare = np.array([1.0, 11.0, 5.0, -3.0, 24.0, 40.0, 19.0])
    assert borrowed_bodies(days, bare, S).tolist() == [1, 0, 1, 1, 2, -1, 2]
    # a single lender, a single bare day, a limit under one day
    assert borrowed_bodies(np.array([100.0]), np.array([102.0]), S).tolist() == [0]
    assert borrowed_bodies(np.array([100.0, 90.0]), np.array([91.0]), S).tolist() == [1]
    half = S.with_overrides({"body_borrow_days": 0.5})
    assert borrowed_bodies(np.array([100.0]), np.array([100.25, 100.75]), half).tolist() == \
        [0, -1]
    none = S.with_overrides({"body_borrow_days": 0.0})
    assert borrowed_bodies(np.array([100.0]), np.array([100.0]), none).tolist() == [-1]


def test_with_no_minimum_a_row_sharing_nothing_is_not_similar() -> None:
    from core.scoring.signature import body_similarity

    nan = float("nan")
    query = np.array([0.8, 0.3, nan, nan, nan])
    table = np.array([[nan, nan, 0.5, 1.0, 0.0], [0.8, 0.3, nan, nan, nan]])
    anything = S.with_overrides({"body_min_features": 0})
    assert body_similarity(query, table, anything).tolist() == [0.0, 1.0]


# -- the state gate's flags at their thresholds --------------------------------------------------

def test_state_flags_open_exactly_at_the_thresholds(memory: Memory) -> None:
    from core.scoring import gates
    from core.scoring.state_flags import StateFlags

    assert (S.restoration_hrv_min, S.restoration_sleep_min, S.restoration_stress_max) == \
        (70.0, 0.7, 0.3)
    cases = [({"hrv": 70}, 1.0), ({"hrv": 69.9}, 0.0),
             ({"sleep_quality": 0.7, "stress_proxy": 0.3}, 1.0),
             ({"sleep_quality": 0.69, "stress_proxy": 0.3}, 0.0),
             ({"sleep_quality": 0.7, "stress_proxy": 0.31}, 0.0)]
    ids = np.array([records.add_event(memory.conn, actor="import", fields={
        "title": f"day {i}", "ts": iso(NOW), "biometrics": bio})
        for i, (bio, _) in enumerate(cases)], dtype=np.int64)
    got = StateFlags(memory.conn).fits(ids, "restored", np.zeros(len(ids), dtype=bool), S)
    assert got.tolist() == [fit for _, fit in cases]
    assert got.tolist() == [gates.state_fit("restored", bio, "", False, S) for bio, _ in cases]


# -- explain() of an event the query did not bring ----------------------------------------------

def _turn(memory: Memory, cosine: float, minute: int, seed: int) -> int:
    """An event with (about) this cosine to QUERY, one chat turn `minute` minutes into a chat."""
    q = np.asarray(memory.embedder().embed_query(QUERY), dtype=np.float64)
    q /= np.linalg.norm(q)
    u = np.random.default_rng(seed).normal(size=q.shape[0])
    u -= (u @ q) * q
    v = cosine * q + np.sqrt(1 - cosine ** 2) * u / np.linalg.norm(u)
    when = iso(NOW - timedelta(days=3) + timedelta(minutes=minute))
    obs, _ = records.add_observation(memory.conn, actor="import", source_kind="chat",
                                     source_id=f"turn {minute}", content_text=f"turn {minute}",
                                     captured_at=iso(NOW), observed_at=when)
    return records.add_event(memory.conn, actor="import", fields={
        "title": f"turn {minute}", "ts": when, "source_observation": obs},
        vectors=[records.Vector(memory.embedding_model, v.astype(np.float32))])


def test_explain_scores_a_non_candidate_by_the_formula(memory: Memory) -> None:
    """With N = 1 only the best cosine is a candidate: explain() scores another event on its
    own (forced), and each of its terms is still the formula's."""
    from tests.test_scoring_formula import stored_cosines

    designed(memory, COSINES_30)
    forced = _turn(memory, 0.86, 0, seed=21)
    neighbour = _turn(memory, 0.89, 5, seed=22)
    narrow = {"candidates_min": 1, "candidates_per_k": 1}
    out = memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=1, abstain=False,
                          settings=narrow)
    assert forced not in by_id(out) and neighbour not in by_id(out)
    cos = stored_cosines(memory)
    values = np.array(list(cos.values()))
    median, best = float(np.median(values)), float(values.max())

    def dense(event_id: int) -> float:
        return (cos[event_id] - median) / (best - median)

    terms = memory.explain(forced, QUERY, scorer="pulse", now=NOW, top_k=1,
                           settings=narrow)["result"]["terms"]
    assert terms["dense_relevance"] == pytest.approx(dense(forced), abs=1e-9)
    assert terms["bm25_norm"] == 0.0
    assert terms["context_relevance"] == pytest.approx(
        S.context_dense_weight * dense(neighbour), abs=1e-9)
    assert terms["chain_context"] == 0.0
    assert terms["relevance"] == pytest.approx(
        S.hybrid_dense_weight * dense(forced)
        + S.context_weight * S.context_dense_weight * dense(neighbour), abs=1e-9)


def test_an_appended_turn_of_a_new_source_kind_has_no_neighbours_as_in_a_fresh_load(
        memory: Memory) -> None:
    from core.scoring.index import load_index

    designed(memory, COSINES_30[:3])
    for minute in (0, 5):
        _turn(memory, 0.5, minute, seed=30 + minute)
    held = memory.scorer.index()
    assert held.prev_row.tolist()[-2:] == [-1, 3]
    obs, _ = records.add_observation(memory.conn, actor="import", source_kind="journal",
                                     source_id="diary", content_text="a page",
                                     captured_at=iso(NOW), observed_at=iso(NOW))
    records.add_event(memory.conn, actor="import", fields={
        "title": "a page", "ts": iso(NOW), "source_observation": obs},
        vectors=[records.Vector(memory.embedding_model,
                                np.asarray(memory.embedder().embed_passages(["a page"])[0],
                                           np.float32))])
    _turn(memory, 0.5, 10, seed=40)
    index = memory.scorer.index()
    assert index is held                                    # brought up to date in place
    fresh = load_index(memory.conn, memory.embedding_model)
    for name in ("prev_row", "next_row", "prev_gap_days", "next_gap_days"):
        assert getattr(index, name).tolist() == getattr(fresh, name).tolist(), name
    assert index.prev_row.tolist()[-2:] == [-1, 4] and index.next_row.tolist()[-2:] == [-1, -1]
