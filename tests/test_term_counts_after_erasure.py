"""The abstention evidence's word counts (core/scoring/lexical.py, TermCounts) as events
holding a query's words are erased one by one, in either order. "Forget what I just said" is
the usual erasure, and the newest event is the last one the kept counts cover (its id is their
top): once no event holds a word, the evidence must say so — a forgotten word still reported
as found would tell that it was once said, and would keep a query about it from abstaining."""

from __future__ import annotations

import pytest

from core.memory import Memory
from tests.conftest import NOW

QUERY = "zanzibar postcard"


def _evidence(memory: Memory) -> tuple[int, int, float]:
    got = memory.retrieve(QUERY, now=NOW, abstain=False)["evidence"]
    return got["words"], got["words_found"], got["term_coverage"]


def _said(memory: Memory, text: str, day: int) -> int:
    memory.remember(text, ts=f"2026-01-{day:02d}T10:00:00Z")
    return int(memory.conn.execute("SELECT MAX(id) FROM events").fetchone()[0])


@pytest.mark.parametrize("first", ["older", "newest"])
def test_an_erased_events_words_leave_the_evidence(memory: Memory, first: str) -> None:
    events = {"older": _said(memory, "A zanzibar postcard came from Lena.", 1)}
    _said(memory, "We walked by the harbour at dawn.", 2)
    events["newest"] = _said(memory, "Mira sent a zanzibar postcard too.", 3)
    assert _evidence(memory) == (2, 2, 1.0)          # the counts are taken here and kept
    memory.forget(f"event:{events[first]}")
    assert _evidence(memory) == (2, 2, 1.0)          # the other event still holds both words
    memory.forget(f"event:{events['newest' if first == 'older' else 'older']}")
    assert _evidence(memory) == (2, 0, 0.0)
