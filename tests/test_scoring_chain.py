"""Chain mode's story and causes on hand-built link graphs (core/scoring/chain.py): the anchor,
the causes it brings, the depth, the cut at top_k, roots first, the order of the rest, the
domain filter, and a damaged (cyclic) file."""

from __future__ import annotations

from core.scoring.chain import ChainGraph, Link, ancestors, chain_story, descendants, roots_first


def graph(*links: tuple[int, int]) -> ChainGraph:
    g = ChainGraph(rev="test")
    for parent, child in links:
        g.parents[child].add(parent)
        g.children[parent].add(child)
        g.links[(parent, child)] = Link("causal", 0.5)
    return g


def ts(i: int) -> float:
    return float(i)          # event i happened on day i, unless a test says otherwise


ALL = lambda _: True  # noqa: E731


def story(g: ChainGraph, ranked, *, top_k=10, depth=4, anchor_top=3, seeds=30, ts_of=ts,
          allowed=ALL):
    return chain_story(g, ranked, seeds=seeds, top_k=top_k, depth=depth, anchor_top=anchor_top,
                       ts_of=ts_of, allowed=allowed)


def test_ancestors_and_descendants_with_hops_and_depth() -> None:
    g = graph((1, 2), (2, 3), (3, 4), (4, 5), (9, 3))
    assert ancestors(g, 5, 4) == {4: 1, 3: 2, 2: 3, 9: 3, 1: 4}
    assert ancestors(g, 5, 2) == {4: 1, 3: 2}
    assert descendants(g, 1, 4) == {2: 1, 3: 2, 4: 3, 5: 4}
    assert ancestors(g, 5, 4, allowed=lambda i: i != 3) == {4: 1}   # not through 3
    assert ancestors(g, 1, 4) == {}


def test_roots_first_by_depth_then_time_then_id() -> None:
    g = graph((1, 2), (2, 3), (7, 3))
    # 3 is dated before its causes: depth, not the date, puts it last
    assert roots_first(g, [3, 2, 1, 7], lambda i: {1: 50.0, 2: 60.0, 3: 0.0, 7: 40.0}[i]) == \
        [7, 1, 2, 3]
    assert g.ancestor_depth(3) == 2 and g.ancestor_depth(7) == 0 and g.ancestor_depth(2) == 1
    assert roots_first(g, [8, 6], lambda i: 1.0) == [6, 8]           # ties: by id


def test_the_anchor_brings_its_causes_and_followers() -> None:
    g = graph((1, 2), (2, 3), (3, 4), (4, 5), (3, 6))
    out = story(g, [3, 20, 21, 5, 22])
    assert out.anchor == 3
    # causes 1, 2 (not ranked), the anchor 3, the ranked follower 5; then the rest by rank
    assert out.ordered == [1, 2, 3, 5, 20, 21, 22]
    assert out.via_chain == {2: 1, 1: 2}


def test_a_ranked_cause_is_not_via_chain_and_a_follower_must_be_ranked() -> None:
    g = graph((1, 2), (2, 3), (3, 4))
    out = story(g, [3, 1, 30])
    assert out.ordered == [1, 2, 3, 30]
    assert out.via_chain == {2: 1}          # 1 was ranked: not brought by the chain
    assert 4 not in out.ordered             # a consequence the query did not rank stays out


def test_the_anchor_is_the_best_linked_event_among_the_first_few() -> None:
    g = graph((1, 2), (5, 6))
    assert story(g, [40, 41, 2, 6]).anchor == 2
    assert story(g, [40, 41, 42, 2], anchor_top=3).anchor is None   # 2 is fourth
    assert story(g, [40, 41, 42, 2], anchor_top=4).anchor == 2
    plain = story(g, [40, 41, 42, 2], top_k=3)
    assert plain.ordered == [40, 41, 42] and plain.via_chain == {}
    # a link only to a disallowed event does not make an anchor
    assert story(g, [2, 6], allowed=lambda i: i != 1).anchor == 6


def test_depth_limits_the_causes() -> None:
    g = graph((1, 2), (2, 3), (3, 4), (4, 5), (5, 6))
    assert story(g, [6], depth=2).ordered == [4, 5, 6]
    assert story(g, [6], depth=4).ordered == [2, 3, 4, 5, 6]


def test_a_long_story_keeps_the_anchor_then_the_nearest_causes() -> None:
    g = graph((1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7))
    out = story(g, [5, 7, 50], top_k=3)
    assert out.ordered == [3, 4, 5]         # anchor 5 and its two nearest causes, roots first
    assert out.via_chain == {4: 1, 3: 2}
    out = story(g, [5, 7, 50], top_k=4)
    assert out.ordered == [2, 3, 4, 5]
    # equally near causes: the later one first (nearer in time)
    g2 = graph((1, 9), (2, 9))
    assert story(g2, [9], top_k=2).ordered == [2, 9]


def test_the_rest_never_comes_after_its_own_descendant() -> None:
    g = graph((1, 2), (10, 11), (11, 12))
    # anchor 2 (story 1, 2); the rest ranks 12 before its ancestor 10
    out = story(g, [2, 12, 30, 10], top_k=6)
    assert out.ordered[:2] == [1, 2]
    rest = out.ordered[2:]
    assert rest.index(10) < rest.index(12) and rest[0] == 10
    # without any anchor too
    none = story(graph((10, 12)), [12, 30, 10], anchor_top=0, top_k=3)
    assert none.anchor is None and none.ordered == [10, 12, 30]


def test_plain_ranking_is_kept_when_nothing_is_related() -> None:
    g = graph((1, 2))
    out = story(g, [30, 31, 32, 33], top_k=3)
    assert out.ordered == [30, 31, 32] and out.anchor is None


def test_a_cyclic_file_does_not_hang() -> None:
    g = graph((1, 2), (2, 3), (3, 1))       # refused on insert; only a damaged file has it
    assert g.ancestor_depth(1) >= 0
    out = story(g, [1, 2, 3])
    assert sorted(out.ordered) == [1, 2, 3]


# -- the abstention rule (core/scoring/evidence.py), at its boundaries ---------------------------

def test_abstention_rule_at_its_thresholds() -> None:
    from core.scoring.evidence import Evidence, abstain_reason
    from core.scoring.settings import DEFAULT_SETTINGS as S

    def ev(cos=0.5, cov=0.0, words=3, events=10, calibrated=True, state=None) -> Evidence:
        return Evidence(max_cosine=cos, median_cosine=0.1, term_coverage=cov, words_found=0,
                        words=words, events=events, calibrated=calibrated, state_match=state)

    assert (S.abstain_cosine, S.abstain_coverage) == (0.82, 0.85)
    assert abstain_reason(ev(), S).startswith("nothing relevant: the closest event's cosine")
    assert abstain_reason(ev(cos=0.82), S) is None              # strong dense evidence answers
    assert abstain_reason(ev(cos=0.8199), S) is not None
    assert abstain_reason(ev(cov=0.85), S) is None              # strong lexical evidence answers
    assert abstain_reason(ev(cov=0.8499), S) is not None
    assert abstain_reason(ev(words=0), S) is None               # nothing to judge the words by
    assert abstain_reason(ev(calibrated=False), S) is None      # another model's cosines
    assert "no event to search" in abstain_reason(ev(events=0, calibrated=False), S)
    assert abstain_reason(ev(state=0.5), S) is None             # the body and mood answer
    assert abstain_reason(ev(state=0.4999), S) is not None
    assert ev().to_dict() == {"max_cosine": 0.5, "median_cosine": 0.1, "term_coverage": 0.0,
                              "words_found": 0, "words": 3, "events": 10, "calibrated": True,
                              "state_match": None}
    assert ev(state=0.7).to_dict()["state_match"] == 0.7


def test_the_rest_is_fixed_even_when_several_moves_are_needed() -> None:
    g = graph((10, 11), (11, 12), (20, 21))
    out = story(g, [12, 21, 11, 20, 10], anchor_top=0, top_k=5)
    assert out.ordered == [10, 11, 12, 20, 21]
