"""Chain mode's order (core/scoring/chain.py `_topological`): the listed order, except that an
event's causes among the listed events come before it.

- On every acyclic graph it gives exactly what the earlier move-a-cause-up-per-round loop gave
  (kept here as the reference), with one walk of ancestors per listed event instead of up to
  one per event per round.
- On a damaged (cyclic) file — Pulse refuses a link that closes a cycle, another program may
  not — it still lists every event once, every cause before its effects outside the cycle,
  and a cycle's members in their listed order, whatever the list's length."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.scoring import chain
from core.scoring.chain import ChainGraph, ancestors
from tests.test_scoring_chain import graph


def _reference(graph: ChainGraph, ids: list[int]) -> list[int]:
    """The loop chain mode ran before: move the first later ancestor of the first event that
    has one up to just before it, round after round, until a round moves nothing."""
    out = list(ids)
    changed = True
    while changed:
        changed = False
        for i, event_id in enumerate(out):
            above = ancestors(graph, event_id, 10_000)
            later = [j for j in range(i + 1, len(out)) if out[j] in above]
            if later:
                out.insert(i, out.pop(later[0]))
                changed = True
                break
    return out


@st.composite
def _with_a_list(draw, n: int, pairs: list[tuple[int, int]], max_links: int):
    """The graph of some of `pairs` over events 1..n, and some of its events in any order."""
    links = set(draw(st.lists(st.sampled_from(pairs), max_size=max_links)))
    listed = draw(st.lists(st.sampled_from(range(1, n + 1)), min_size=1, unique=True))
    return graph(*links), listed


@st.composite
def dags_and_lists(draw):
    """A random acyclic graph over events 1..n (links follow a hidden order) and a list."""
    n = draw(st.integers(2, 9))
    hidden = draw(st.permutations(range(1, n + 1)))
    return draw(_with_a_list(n, [(hidden[i], hidden[j]) for i in range(n)
                                 for j in range(i + 1, n)], 12))


@settings(max_examples=300, deadline=None)
@given(dags_and_lists())
def test_on_acyclic_graphs_the_order_is_the_earlier_loops(case) -> None:
    graph, listed = case
    assert chain._topological(graph, listed) == _reference(graph, listed)


@st.composite
def graphs_and_lists(draw):
    """Any graph over events 1..n, cycles included, and a list."""
    n = draw(st.integers(2, 8))
    return draw(_with_a_list(n, [(a, b) for a in range(1, n + 1) for b in range(1, n + 1)
                                 if a != b], 14))


@settings(max_examples=300, deadline=None)
@given(graphs_and_lists())
def test_any_graph_lists_each_event_once_causes_first_and_cycles_as_listed(case) -> None:
    graph, listed = case
    out = chain._topological(graph, listed)
    assert sorted(out) == sorted(listed)
    at = {e: i for i, e in enumerate(out)}
    above = {e: set(ancestors(graph, e, 10_000)) for e in listed}
    for a in listed:
        for b in listed:
            if a == b or a not in above[b]:
                continue
            if b in above[a]:          # on one cycle: the listed order stays
                assert (at[a] < at[b]) == (listed.index(a) < listed.index(b)), (a, b)
            else:                      # a cause: before its effect
                assert at[a] < at[b], (a, b)


def test_a_cycle_keeps_its_order_whatever_the_lists_length() -> None:
    # 1 → 2 → 3 → 1 (damaged) and 5 → 4, the effect listed first
    links = graph(*{(1, 2), (2, 3), (3, 1), (5, 4)})
    for extra in range(0, 4):
        listed = [1, 2, 3, 4, 5] + list(range(6, 6 + extra))
        assert chain._topological(links, listed)[:5] == [1, 2, 3, 5, 4]


def test_one_walk_of_causes_per_listed_event(monkeypatch) -> None:
    """150 events, 75 cause → effect pairs listed effect first: every pair is reordered with
    150 walks of ancestors, where the earlier loop walked the list again after every move."""
    pairs = graph(*{(c, c + 1) for c in range(1, 150, 2)})
    listed = [e for c in range(1, 150, 2) for e in (c + 1, c)]
    walks = []
    real = chain.ancestors
    monkeypatch.setattr(chain, "ancestors", lambda *a, **k: walks.append(a[1]) or real(*a, **k))
    out = chain._topological(pairs, listed)
    assert out == list(range(1, 151))
    assert sorted(walks) == list(range(1, 151))


def test_a_cause_however_far_up_comes_first() -> None:
    # a chain of 12,000 links (each a lived moment: no memory holds one, but no depth is
    # too far for "never after one of its own descendants")
    links = graph(*{(e, e + 1) for e in range(1, 12_001)})
    assert chain._topological(links, [12_001, 5, 1]) == [1, 5, 12_001]
