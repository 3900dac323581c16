"""The turn said right after a candidate (its reply) joins the candidates, so a reply that
neither channel brings is ranked by the context its question gives it — also when the reply's
event was stored first and is the index's row 0 — and a domain filter keeps a reply of the
other domain out, read from the reply's own row (docs/scoring.md, context)."""

from __future__ import annotations

from datetime import timedelta

from core.memory import Memory
from tests.test_scoring_formula import NOW, QUERY, by_id, designed, iso
from tests.test_scoring_neighbours_and_seeds import ANSWER, QUESTION, _event, _observation
from tests.test_scoring_neighbours_and_seeds import QUERY as CONCERT


def _turn(memory: Memory, obs: int, cosine: float, when: str) -> int:
    """The event of a chat turn, with a vector of about `cosine` with QUERY and none of its
    words."""
    return designed(memory, [cosine], seed=20 + obs, title=f"turn {obs}", ts=when,
                    source_observation=obs)[0]


def test_a_reply_stored_first_joins_the_candidates_through_its_question(memory: Memory) -> None:
    start = NOW - timedelta(days=2, hours=12)
    asked, replied = iso(start), iso(start + timedelta(minutes=5))
    asked_obs = _observation(memory, 0, "turn 0", asked)
    replied_obs = _observation(memory, 1, "turn 1", replied)
    reply = _turn(memory, replied_obs, 0.44, replied)     # its event written first: row 0
    question = _turn(memory, asked_obs, 0.90, asked)
    others = designed(memory, [0.47, 0.46, 0.2, 0.1], seed=9, days_ago=2.5)
    index = memory.scorer.index()
    assert index.ids.tolist()[:2] == [reply, question] and index.next_row[1] == 0
    # three candidates a channel brings: the question and the two events just above the reply
    out = memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=3, abstain=False,
                          settings={"candidates_min": 1, "candidates_per_k": 1})
    got = by_id(out)
    assert reply in got and got[reply]["terms"]["context_relevance"] > 0
    assert [r["id"] for r in out["results"]][:2] == [question, reply]
    assert others[0] in got and others[1] not in got
    # without the context it is where its cosine puts it: below the other two
    plain = memory.retrieve(QUERY, scorer="pulse", now=NOW, top_k=3, abstain=False,
                            settings={"candidates_min": 1, "candidates_per_k": 1,
                                      "context_weight": 0})
    assert [r["id"] for r in plain["results"]] == [question, *others[:2]]


def test_a_domain_filter_keeps_the_other_domains_reply_out(memory: Memory) -> None:
    """Row 0 is a real event; the real question's reply is fiction: under domains="real" the
    reply neither joins the results nor gives the question context."""
    start = NOW - timedelta(days=2, hours=12)
    asked, replied = iso(start), iso(start + timedelta(minutes=5))
    _event(memory, "Bought a new bicycle for the commute", iso(start - timedelta(days=3)), None)
    question = _event(memory, QUESTION, asked, _observation(memory, 0, QUESTION, asked))
    reply = _event(memory, ANSWER, replied, _observation(memory, 1, ANSWER, replied),
                   domain="fiction_content")
    everything = by_id(memory.retrieve(CONCERT, scorer="pulse", now=NOW, abstain=False))
    assert everything[question]["terms"]["context_relevance"] > 0    # the turns are linked
    real = by_id(memory.retrieve(CONCERT, scorer="pulse", now=NOW, abstain=False,
                                 domains="real"))
    assert reply not in real and all(r["domain"] == "real" for r in real.values())
    assert real[question]["terms"]["context_relevance"] == 0.0
