"""What a query reads around its candidates (docs/scoring.md): a turn's conversational
neighbours — the next turn even when its event was stored first, the context window's edge on
the next side, never a turn a domain filter leaves out — and the ranked events a chain story
takes its followers from (the first max(3·top_k, chain_widen_min))."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from core.memory import Memory
from core.scoring.settings import DEFAULT_SETTINGS
from core.store import records
from tests.test_scoring_formula import COSINES_30, NOW, by_id, designed, iso

S = DEFAULT_SETTINGS
QUESTION = "Did you go to the lighthouse concert on Friday?"
ANSWER = "Yes, the lighthouse concert was wonderful."
QUERY = "lighthouse concert"


def _observation(memory: Memory, i: int, text: str, when: str) -> int:
    obs, _ = records.add_observation(memory.conn, actor="import", source_kind="chat",
                                     source_id=f"t{i}", content_text=text,
                                     captured_at=iso(NOW), observed_at=when)
    return obs


def _event(memory: Memory, text: str, when: str, obs: int | None, domain: str = "real") -> int:
    vec = memory.embedder().embed_passages([text])[0]
    fields = {"title": text, "ts": when, "domain": domain}
    if obs is not None:
        fields["source_observation"] = obs
    return records.add_event(memory.conn, actor="import", fields=fields,
                             vectors=[records.Vector(memory.embedding_model,
                                                     np.asarray(vec, np.float32))])


def _fused(terms: dict) -> float:
    """A neighbour's share of context: its fused relevance at the context dense weight."""
    return S.context_dense_weight * terms["dense_relevance"] + \
        (1 - S.context_dense_weight) * terms["bm25_norm"]


def test_the_next_turn_is_context_even_when_its_event_was_stored_first(memory: Memory) -> None:
    """The reply's event is written before the question's (extraction out of order): the
    question is still followed by the reply, and the reply is the index's row 0."""
    start = NOW - timedelta(days=2, hours=12)
    asked, replied = iso(start), iso(start + timedelta(minutes=5))
    question_obs = _observation(memory, 0, QUESTION, asked)
    answer_obs = _observation(memory, 1, ANSWER, replied)
    answer = _event(memory, ANSWER, replied, answer_obs)
    question = _event(memory, QUESTION, asked, question_obs)
    index = memory.scorer.index()
    assert index.ids.tolist() == [answer, question]
    assert index.next_row.tolist() == [-1, 0] and index.prev_row.tolist() == [1, -1]
    got = by_id(memory.retrieve(QUERY, scorer="pulse", now=NOW, abstain=False))
    assert _fused(got[answer]["terms"]) > 0
    assert got[question]["terms"]["context_relevance"] == \
        pytest.approx(_fused(got[answer]["terms"]), abs=1e-12)
    assert got[answer]["terms"]["context_relevance"] == \
        pytest.approx(_fused(got[question]["terms"]), abs=1e-12)


@pytest.mark.parametrize("window,shared", [(1440.0, True), (1439.9, False)])
def test_a_next_turn_exactly_at_the_window_is_context(memory: Memory, window: float,
                                                      shared: bool) -> None:
    designed(memory, COSINES_30[:20], days_ago=300.0)
    start = NOW - timedelta(days=2, hours=12)       # midnight: whole epoch days, exact gaps
    asked, replied = iso(start), iso(start + timedelta(days=1))
    question = _event(memory, QUESTION, asked, _observation(memory, 0, QUESTION, asked))
    _event(memory, ANSWER, replied, _observation(memory, 1, ANSWER, replied))
    out = memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=30, abstain=False,
                          settings={"context_window_minutes": window})
    # the question's only neighbour is the reply after it, a day later
    assert (by_id(out)[question]["terms"]["context_relevance"] > 0) is shared


def test_a_domain_filter_keeps_the_other_domains_turn_out_of_results_and_context(
        memory: Memory) -> None:
    start = NOW - timedelta(days=2, hours=12)
    asked, replied = iso(start), iso(start + timedelta(minutes=5))
    _event(memory, "Bought a new bicycle for the commute", iso(start - timedelta(days=3)), None)
    question = _event(memory, QUESTION, asked, _observation(memory, 0, QUESTION, asked),
                      domain="fiction_content")
    answer = _event(memory, ANSWER, replied, _observation(memory, 1, ANSWER, replied))
    everything = by_id(memory.retrieve(QUERY, scorer="pulse", now=NOW, abstain=False))
    assert everything[answer]["terms"]["context_relevance"] > 0    # the turns are linked
    real = by_id(memory.retrieve(QUERY, scorer="pulse", now=NOW, abstain=False,
                                 domains="real"))
    assert question not in real
    assert all(r["domain"] == "real" for r in real.values())
    assert real[answer]["terms"]["context_relevance"] == 0.0


def _ranked_with_followers(memory: Memory, followers_at: tuple[int, ...]) -> list[int]:
    """20 events ranked 1..20 by their cosine with the query (0.01 apart), over 40 far below
    the median (dropped); event 1 is the parent of the events ranked at `followers_at`."""
    designed(memory, [0.02 + 0.002 * i for i in range(40)], seed=7)
    ranked = designed(memory, [0.90 - 0.01 * i for i in range(20)], seed=11)
    for rank in followers_at:
        records.link_events(memory.conn, actor="manual", parent_id=ranked[0],
                            child_id=ranked[rank - 1])
    return ranked


@pytest.mark.parametrize("top_k,widened", [(2, 9), (3, 9), (4, 12)])
def test_a_story_takes_its_followers_from_the_first_max_3_top_k_and_9_ranked(
        memory: Memory, top_k: int, widened: int) -> None:
    ranked = _ranked_with_followers(memory, (widened, widened + 1))
    plain = memory.retrieve("walking along the harbour at dawn", scorer="v2", now=NOW,
                            top_k=30, abstain=False)
    assert [r["id"] for r in plain["results"]][:20] == ranked   # the designed ranking
    out = memory.retrieve("walking along the harbour at dawn", scorer="v2", now=NOW,
                          top_k=top_k, abstain=False, chain=True)
    # the anchor, the follower ranked within the widened set (not the one just past it),
    # then the best of the rest
    assert [r["id"] for r in out["results"]] == \
        [ranked[0], ranked[widened - 1]] + ranked[1: top_k - 1]
    assert all(r["via_chain"] is None for r in out["results"])
