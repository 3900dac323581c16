"""One filter for every view (core/filters.py): kind, domain, belief class and search, and
what the search itself matched (so the graph can show a match's neighbours)."""

from __future__ import annotations

import pytest

from core.errors import PulseError
from core.memory import Memory

CORPUS = {
    "format": "pulse-corpus/1",
    "entities": [
        {"key": "me", "name": "Nadia", "kind": "person"},
        {"key": "tom", "name": "Tom Reyes", "kind": "person", "aliases": ["my ex-husband"]},
        {"key": "cafe", "name": "Juniper", "kind": "place"},
        {"key": "ilse", "name": "Ilse", "kind": "fictional_character", "domain": "fiction_content"},
    ],
    "relations": [{"from": "me", "to": "tom", "kind": "ex_partner_of"}],
    "events": [
        {"key": "e1", "title": "Divorce final", "ts": "2022-10-14", "entities": ["me", "tom"],
         "belief_class": "axiom", "confidence_floor": 0.9, "archivable": 0},
        {"key": "e2", "title": "Coffee at Juniper", "ts": "2023-01-01", "entities": ["cafe"]},
        {"key": "e3", "title": "Ilse reaches the orchard", "ts": "2023-02-01",
         "entities": ["ilse"], "domain": "fiction_content"},
        {"key": "e4", "title": "A letter from Tom", "ts": "2023-03-01"},
    ],
    "facts": [{"entity": "tom", "text": "He lives in Lisbon now"},
              {"entity": "cafe", "text": "Opens at seven", "belief_class": "hypothesis"}],
}


@pytest.fixture
def mem(memory: Memory) -> Memory:
    memory.import_corpus(CORPUS)
    return memory


def ids(mem: Memory, table: str, keys: list[str]) -> set[int]:
    return {mem.conn.execute(f"SELECT id FROM {table} WHERE key = ?", (k,)).fetchone()[0]
            for k in keys}


def fact(mem: Memory, text: str) -> int:
    return mem.conn.execute("SELECT id FROM facts WHERE text = ?", (text,)).fetchone()[0]


def test_no_filter_passes_everything(mem: Memory) -> None:
    out = mem.filter_items()
    assert not out["active"]
    assert out["events"] == ids(mem, "events", ["e1", "e2", "e3", "e4"])
    assert len(out["entities"]) == 4 and len(out["facts"]) == 2


def test_search_a_person_finds_their_events_and_facts(mem: Memory) -> None:
    out = mem.filter_items(text="tom")
    assert out["active"]
    assert out["entities"] == ids(mem, "entities", ["tom"])
    # e1 mentions Tom's entity, e4 names him in its own words
    assert out["events"] == ids(mem, "events", ["e1", "e4"])
    assert out["text_events"] == ids(mem, "events", ["e4"])
    assert out["facts"] == {fact(mem, "He lives in Lisbon now")}
    assert mem.filter_items(text="EX-HUSBAND")["entities"] == ids(mem, "entities", ["tom"])
    assert mem.filter_items(text="tom lisbon")["events"] == set()   # every word must match


def test_kind_domain_and_class(mem: Memory) -> None:
    places = mem.filter_items(kind="kind:place")
    assert places["entities"] == ids(mem, "entities", ["cafe"])
    assert places["events"] == ids(mem, "events", ["e2"])          # events that mention one
    assert places["facts"] == {fact(mem, "Opens at seven")}
    only_events = mem.filter_items(kind="event")
    assert only_events["entities"] == set() and only_events["facts"] == set()
    assert mem.filter_items(kind="entity")["events"] == set()
    fiction = mem.filter_items(domain="fiction_content")
    assert fiction["events"] == ids(mem, "events", ["e3"])
    assert fiction["entities"] == ids(mem, "entities", ["ilse"])
    axioms = mem.filter_items(belief_class="axiom")
    assert axioms["events"] == ids(mem, "events", ["e1"])
    assert axioms["entities"] == ids(mem, "entities", ["me", "tom"])  # they have an axiom event
    assert mem.filter_items(belief_class="hypothesis")["facts"] == {fact(mem, "Opens at seven")}


@pytest.mark.parametrize("bad", [{"kind": "people"}, {"kind": "kind:alien"},
                                 {"domain": "dreams"}, {"belief_class": "rumour"}])
def test_bad_filters_are_refused(mem: Memory, bad: dict) -> None:
    with pytest.raises(PulseError):
        mem.filter_items(**bad)
