"""A retrieve request's bounds (core/scoring/scorer.py, Request.validated): top_k is a whole
number in 1..1000, both ends included; outside them the request is refused with one line
naming the range, and nothing is scored."""

from __future__ import annotations

import pytest

from core.errors import PulseError
from core.memory import Memory
from tests.test_scoring_formula import COSINES_30, NOW, QUERY, designed


@pytest.mark.parametrize("top_k", [1, 1000])
def test_top_k_at_either_end_of_its_range_is_served(memory: Memory, top_k: int) -> None:
    designed(memory, COSINES_30)
    out = memory.retrieve(QUERY, scorer="v2", now=NOW, top_k=top_k, abstain=False)
    assert len(out["results"]) == min(top_k, 15)     # the 15 above the median rank


@pytest.mark.parametrize("top_k", [0, 1001, 2.0, True])
def test_top_k_outside_its_range_is_refused(memory: Memory, top_k) -> None:
    designed(memory, COSINES_30[:3])
    with pytest.raises(PulseError, match=r"top_k must be a whole number in 1\.\.1000"):
        memory.retrieve(QUERY, scorer="v2", now=NOW, top_k=top_k, abstain=False)


@pytest.mark.parametrize("overrides,served", [
    ({"candidates_min": 0, "candidates_per_k": 0}, None),
    ({"candidates_min": 0}, 15), ({"candidates_per_k": 0}, 15)])
def test_settings_leaving_no_candidate_are_refused(memory: Memory, overrides: dict,
                                                   served: int | None) -> None:
    """N = max(candidates_min, candidates_per_k × top_k) candidates are scored: settings that
    make N 0 are refused with one line (they used to fail inside numpy's partition); either
    one alone at 0 still serves the query."""
    designed(memory, COSINES_30)
    for scorer in ("v2", "pulse"):
        if served is None:
            with pytest.raises(PulseError, match="candidates_min and candidates_per_k cannot"
                                                 " both be 0"):
                memory.retrieve(QUERY, scorer=scorer, now=NOW, top_k=30, abstain=False,
                                settings=overrides)
        else:
            out = memory.retrieve(QUERY, scorer=scorer, now=NOW, top_k=30, abstain=False,
                                  settings=overrides)
            assert len(out["results"]) >= served
