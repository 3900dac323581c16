"""Corrections (JOURNAL §2) and the budgeted brief (JOURNAL §3)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import PulseError
from core.memory import Memory
from core.trust.brief import TIERS, brief, char_limit, pick_tier, tokens
from core.trust.corrections import binding, correct, list_corrections

NOW = "2026-11-01T12:00:00Z"


def corpus(n: int) -> dict:
    events = []
    for i in range(n):
        cls = ("axiom", "user_model", "operational", "hypothesis")[i % 4]
        ev = {"key": f"e{i}", "title": f"Event number {i}", "ts": f"20{10 + i % 16}-05-01",
              "description": ("A longer description of what happened. " * (1 + i % 5)).strip(),
              "belief_class": cls, "emotions": {"sadness": (i % 10) / 10}}
        if cls == "axiom":
            ev["confidence_floor"] = 0.9
        events.append(ev)
    return {"format": "pulse-corpus/1", "events": events}


def test_corrections_binding_superseded_not_enforceable(memory: Memory) -> None:
    memory.import_corpus(corpus(2))
    a = correct(memory, withdrawn=["$49"], replacement=["$29"], note="price")
    assert a["binding"] and a["journal_seq"] > 0
    b = correct(memory, note="just a remark")
    assert not b["binding"] and not b["enforceable"]
    c = correct(memory, withdrawn=["$29"], replacement=["$39"], supersedes=[a["journal_seq"]],
                subject="event:e1")
    assert c["subject"].startswith("event:")
    items = {x.id: x for x in list_corrections(memory)}
    assert not items[a["id"]].binding and items[a["id"]].superseded_by == (c["journal_seq"],)
    assert [x.id for x in binding(memory)] == [c["id"]]
    assert [x.id for x in list_corrections(memory)] == [c["id"], b["id"], a["id"]]  # newest first


@pytest.mark.parametrize("kwargs, message", [
    ({}, "needs a note"),
    ({"withdrawn": ["$49"], "replacement": ["$49"]}, "its own replacement"),
    ({"withdrawn": [""]}, "empty"),
    ({"withdrawn": [5]}, "strings"),
    ({"withdrawn": ["x"], "subject": "event:999"}, "no such event"),
    ({"withdrawn": ["x"], "subject": "planet:1"}, "must be event"),
    ({"withdrawn": ["x"], "supersedes": [999]}, "recorded no correction"),
])
def test_bad_corrections_are_refused_whole(memory: Memory, kwargs: dict, message: str) -> None:
    with pytest.raises(PulseError, match=message):
        correct(memory, **kwargs)
    assert memory.stats()["counts"]["corrections"] == 0 and memory.stats()["journal_head"] == 0


def test_tier_choice() -> None:
    assert pick_tier(None) == ("brief", 6000)
    assert pick_tier(100)[0] == "index" and pick_tier(100)[1] == char_limit(100)
    assert pick_tier(500) == ("index", 1800)
    assert pick_tier(1600) == ("brief", 6000)
    assert pick_tier(6000) == ("notes", 20000)
    assert pick_tier(40000) == ("full", 120000)
    assert all(tokens("x" * char_limit(b)) <= b for b in range(1, 3000))


def test_brief_order_and_provenance(memory: Memory) -> None:
    memory.import_corpus(corpus(12))
    correct(memory, withdrawn=["$49"], replacement=["$29"], note="older")
    correct(memory, withdrawn=["Lisbon"], replacement=["Porto"], note="newer")
    out = brief(memory, 2000, now=NOW)
    lines = out["text"].splitlines()
    assert lines[0].startswith("pulse: ") and "2 binding corrections (2 withdrawn terms)" in lines[0]
    assert "journal row" in lines[0] and "tier brief" in lines[0]
    assert lines[1] == "CORRECTIONS" and "newer" in lines[2] and "older" in lines[3]
    headers = [ln for ln in lines if ln and not ln.startswith(("-", "pulse:"))]
    assert headers == ["CORRECTIONS", "HOW TO READ", "CORE WOUNDS / AXIOMS", "USER MODEL",
                       "RECENT SALIENT EVENTS", "OPEN"][:len(headers)]
    assert out["tokens"] <= 2000


def test_domain_filter(memory: Memory) -> None:
    data = corpus(4)
    data["events"][2]["domain"] = "fiction_content"
    data["events"][2]["title"] = "Dragon chapter"
    memory.import_corpus(data)
    assert "Dragon chapter" not in brief(memory, 5000, now=NOW)["text"]
    assert "Dragon chapter" in brief(memory, 5000, now=NOW, domains="fiction_content")["text"]
    with pytest.raises(PulseError):
        brief(memory, 5000, domains="nowhere")
    for bad in (0, -5, "10", 2.5, True):
        with pytest.raises(PulseError):
            brief(memory, bad)


@pytest.fixture(scope="module")
def brief_memories(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    paths = []
    for n, n_corr in ((0, 0), (5, 1), (40, 3), (120, 6)):
        path = tmp_path_factory.mktemp("brief") / f"m{n}.db"
        with Memory.open(path, create=True) as m:
            if n:
                m.import_corpus(corpus(n))
            for i in range(n_corr):
                correct(m, withdrawn=[f"old value {i}"], replacement=[f"new value {i}"],
                        note="a correction note that is reasonably long " * (1 + i % 3))
        paths.append(path)
    return paths


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.one_of(st.integers(1, 400), st.integers(400, 40000)), which=st.integers(0, 3))
def test_brief_never_over_budget(brief_memories: list[Path], budget: int, which: int) -> None:
    with Memory.open(brief_memories[which], read_only=True) as m:
        out = brief(m, budget, now=NOW)
        corrections = list_corrections(m)
    text = out["text"]
    assert tokens(text) <= budget and len(text) <= char_limit(budget)
    assert out["chars"] == len(text)
    if not text:
        return
    lines = text.splitlines()
    assert lines[0].startswith("pulse")
    if out["cut"].get("corrections") is None and corrections:
        # corrections whole and first, right after the provenance line
        assert lines[1] == "CORRECTIONS"
        assert len(lines) >= 2 + len(corrections)
        for line in lines[2:2 + len(corrections)]:
            assert line.startswith("- [binding]")
    sizes = dict(TIERS)
    assert len(text) <= sizes[out["tier"]] or out["tier"] == "index"


def test_brief_of_demo_memory(demo_db: Path, tmp_path: Path) -> None:
    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as m:
        correct(m, withdrawn=["$49"], replacement=["$29"], note="price")
        for budget in (50, 500, 1600, 6000, 40000):
            out = brief(m, budget, now=NOW)
            assert out["tokens"] <= budget
            if budget >= 500:
                assert out["text"].splitlines()[1] == "CORRECTIONS"
        assert brief(m, 40000, now=NOW)["tier"] == "full"
