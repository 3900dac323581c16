"""Structural checks for the shipped demo memory (resources/demo/demo_memory.json).

Uses only the standard library: the demo file must stay valid `pulse-corpus/1` on its own,
independently of the importer.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "resources" / "demo" / "demo_memory.json"
NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)

DOMAINS = {"real", "fiction_content", "fiction_meta", "meta_authorial"}
KINDS = {
    "person",
    "place",
    "project",
    "org",
    "product",
    "community",
    "skill",
    "concept",
    "thing",
    "event_series",
    "ai_entity",
    "ai_persona",
    "fictional_character",
    "fictionalized_self",
    "narrative_device",
    "safety_boundary",
}
CLASSES = {"axiom", "self_model", "user_model", "operational", "hypothesis"}
EMOTIONS = {
    "joy",
    "sadness",
    "anger",
    "fear",
    "trust",
    "disgust",
    "anticipation",
    "surprise",
    "shame",
    "guilt",
}
BIO_KEYS = {"hrv", "sleep_quality", "stress_proxy", "hr_trend", "hrv_trend", "workout"}
HR_TRENDS = {"elevated_3d", "elevated_overnight", "normal"}
HRV_TRENDS = {"declining_3d", "stable", "rising"}

TOP_KEYS = {"format", "now", "entities", "relations", "events", "facts"}
ENTITY_KEYS = {"key", "name", "kind", "aliases", "domain"}
RELATION_KEYS = {"from", "to", "kind", "strength"}
EVENT_KEYS = {
    "key",
    "title",
    "description",
    "ts",
    "belief_class",
    "confidence_floor",
    "archivable",
    "user_flag",
    "domain",
    "sentiment",
    "sentiment_label",
    "emotions",
    "entities",
    "parents",
    "biometrics",
}
FACT_KEYS = {"entity", "text", "confidence", "belief_class", "domain"}

TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
EVENT_KEY_RE = re.compile(r"^e\d{3}$")
ENTITY_KEY_RE = re.compile(r"^[pn]_[a-z0-9_]+$")
CYRILLIC = re.compile(r"[\u0400-\u04FF]")


@pytest.fixture(scope="module")
def corpus() -> dict:
    with DEMO.open(encoding="utf-8") as fh:
        return json.load(fh)


def parse_ts(ts: str) -> datetime:
    assert TS_RE.match(ts), ts
    return datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def is_num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def test_top_level(corpus):
    assert set(corpus) == TOP_KEYS
    assert corpus["format"] == "pulse-corpus/1"
    assert corpus["now"] == "2026-11-01T12:00:00Z"


def test_entities(corpus):
    ents = corpus["entities"]
    assert len(ents) >= 28
    keys = [e["key"] for e in ents]
    assert len(keys) == len(set(keys)), "duplicate entity keys"
    for e in ents:
        assert set(e) - {"do_not_probe", "is_self"} == ENTITY_KEYS, e["key"]
        assert ENTITY_KEY_RE.match(e["key"]), e["key"]
        assert e["kind"] in KINDS, e["key"]
        assert e["domain"] in DOMAINS, e["key"]
        assert isinstance(e["name"], str) and e["name"].strip()
        assert isinstance(e["aliases"], list) and all(isinstance(a, str) for a in e["aliases"])
    assert {e["domain"] for e in ents} == DOMAINS
    # exactly one person is the memory's own (imports link the user's chat turns to her)
    assert [e["key"] for e in ents if e.get("is_self")] == ["p_self"]
    by_key = {e["key"]: e for e in ents}
    assert by_key["p_self"]["kind"] == "person" and by_key["p_self"]["domain"] == "real"
    kinds_by_domain = defaultdict(set)
    for e in ents:
        kinds_by_domain[e["domain"]].add(e["kind"])
    assert {"fictional_character", "place", "narrative_device"} <= kinds_by_domain[
        "fiction_content"
    ]
    assert "project" in kinds_by_domain["fiction_meta"]
    assert "fictionalized_self" in kinds_by_domain["meta_authorial"]
    assert {"person", "place", "org", "skill", "thing"} <= kinds_by_domain["real"]
    # the safety boundary is a real topic boundary (docs/privacy.md), not ordinary text
    boundaries = [e for e in ents if e.get("do_not_probe")]
    assert [(e["key"], e["name"], e["do_not_probe"]) for e in boundaries] == [
        ("n_boundary_papa", "Papa's death", True)]
    behind = [ev["key"] for ev in corpus["events"] if "n_boundary_papa" in ev["entities"]]
    assert len(behind) == 4


def test_relations(corpus):
    keys = {e["key"] for e in corpus["entities"]}
    rels = corpus["relations"]
    assert len(rels) >= 35
    seen = set()
    for r in rels:
        assert set(r) == RELATION_KEYS, r
        assert r["from"] in keys and r["to"] in keys, r
        assert r["from"] != r["to"], r
        assert is_num(r["strength"]) and 0 <= r["strength"] <= 1, r
        assert isinstance(r["kind"], str) and r["kind"]
        triple = (r["from"], r["to"], r["kind"])
        assert triple not in seen, triple
        seen.add(triple)


def test_event_fields(corpus):
    events = corpus["events"]
    ent_keys = {e["key"] for e in corpus["entities"]}
    assert len(events) >= 160
    keys = [e["key"] for e in events]
    assert len(keys) == len(set(keys)), "duplicate event keys"
    for e in events:
        k = e["key"]
        assert set(e) <= EVENT_KEYS, (k, set(e) - EVENT_KEYS)
        assert {"key", "title", "ts"} <= set(e), k
        assert EVENT_KEY_RE.match(k), k
        assert e["title"].strip() and e["description"].strip(), k
        assert parse_ts(e["ts"]) <= NOW, k
        assert e["belief_class"] in CLASSES, k
        assert e["domain"] in DOMAINS, k
        assert is_num(e["confidence_floor"]) and 0 <= e["confidence_floor"] <= 1, k
        assert e["archivable"] in (0, 1) and e["user_flag"] in (0, 1), k
        assert is_num(e["sentiment"]) and -1 <= e["sentiment"] <= 1, k
        assert isinstance(e["sentiment_label"], str), k
        assert isinstance(e["entities"], list), k
        for ref in e["entities"]:
            assert ref in ent_keys, (k, ref)
        assert len(e["entities"]) == len(set(e["entities"])), k
    with_entities = sum(1 for e in events if e["entities"])
    assert with_entities >= 0.9 * len(events)


def test_time_span(corpus):
    stamps = sorted(parse_ts(e["ts"]) for e in corpus["events"])
    assert (stamps[-1] - stamps[0]).days >= 5 * 365
    years = {s.year for s in stamps}
    assert len(years) >= 6
    recent = [s for s in stamps if s >= datetime(2026, 8, 1, tzinfo=UTC)]
    assert len(recent) >= 10, "recent months need targets for date phrases"
    # "last month" (~40 days before now) and "last week" (~10 days) have nearby events
    ages = [(NOW - s).total_seconds() / 86400 for s in stamps]
    assert any(abs(a - 40) <= 3 for a in ages)
    assert any(abs(a - 10) <= 3 for a in ages)


def test_domains_and_classes(corpus):
    events = corpus["events"]
    domains = Counter(e["domain"] for e in events)
    assert set(domains) == DOMAINS
    assert domains["real"] > len(events) / 2
    assert domains["fiction_content"] >= 18
    assert domains["fiction_meta"] >= 8
    assert domains["meta_authorial"] >= 6
    classes = Counter(e["belief_class"] for e in events)
    assert classes["axiom"] >= 6
    assert classes["self_model"] >= 12
    assert classes["user_model"] >= 15
    assert classes["hypothesis"] >= 15
    assert classes["operational"] >= 60


def test_axiom_invariant(corpus):
    for item in corpus["events"]:
        if item["belief_class"] == "axiom":
            assert item["archivable"] == 0, item["key"]
            assert item["confidence_floor"] >= 0.5, item["key"]
        else:
            assert item["confidence_floor"] <= 0.6, item["key"]


def test_user_flags(corpus):
    flagged = [e for e in corpus["events"] if e["user_flag"] == 1]
    assert 8 <= len(flagged) <= 14
    for e in flagged:
        assert e["archivable"] == 0, e["key"]


def test_sentiment_labels(corpus):
    labels = [e["sentiment_label"].lower() for e in corpus["events"]]
    assert any("burden" in lb for lb in labels)
    assert any("wound" in lb for lb in labels)
    assert any("milestone" in lb for lb in labels)
    assert any("repair" in lb for lb in labels)
    assert any("ship" in lb for lb in labels)


def test_emotions(corpus):
    with_emotions = 0
    for e in corpus["events"]:
        emo = e.get("emotions") or {}
        assert isinstance(emo, dict), e["key"]
        if emo:
            with_emotions += 1
        for name, value in emo.items():
            assert name in EMOTIONS, (e["key"], name)
            assert is_num(value) and 0 < value <= 1, (e["key"], name, value)
    assert with_emotions >= 120
    names = set().union(*(e.get("emotions", {}) for e in corpus["events"]))
    assert {"shame", "guilt", "sadness", "joy", "trust", "fear", "anger"} <= names


def test_biometrics(corpus):
    bios = [e for e in corpus["events"] if "biometrics" in e]
    assert len(bios) >= 30
    depletion = restoration = 0
    for e in bios:
        b = e["biometrics"]
        assert b and set(b) <= BIO_KEYS, (e["key"], set(b) - BIO_KEYS)
        if "hrv" in b:
            assert is_num(b["hrv"]) and 20 <= b["hrv"] <= 150, e["key"]
        for key in ("sleep_quality", "stress_proxy"):
            if key in b:
                assert is_num(b[key]) and 0 <= b[key] <= 1, (e["key"], key)
        if "hr_trend" in b:
            assert b["hr_trend"] in HR_TRENDS, e["key"]
        if "hrv_trend" in b:
            assert b["hrv_trend"] in HRV_TRENDS, e["key"]
        if "workout" in b:
            assert isinstance(b["workout"], bool), e["key"]
        if (
            b.get("hrv", 100) < 60
            or b.get("sleep_quality", 1) <= 0.4
            or b.get("stress_proxy", 0) >= 0.6
        ):
            depletion += 1
        if (
            b.get("hrv", 0) >= 70
            or b.get("workout") is True
            or (b.get("sleep_quality", 0) >= 0.7 and b.get("stress_proxy", 1) <= 0.3)
        ):
            restoration += 1
    assert depletion >= 10 and restoration >= 10


def test_parents_and_chains(corpus):
    events = corpus["events"]
    ts = {e["key"]: parse_ts(e["ts"]) for e in events}
    order = {e["key"]: i for i, e in enumerate(events)}
    children = defaultdict(list)
    for e in events:
        parents = e.get("parents", [])
        assert len(parents) == len(set(parents)), e["key"]
        for p in parents:
            assert p in ts, (e["key"], p)
            assert p != e["key"]
            assert ts[p] <= ts[e["key"]], (e["key"], p)
            assert order[p] < order[e["key"]], (e["key"], p)
            children[p].append(e["key"])

    # acyclic (also implied by the ordering above; checked independently)
    state = {}

    def visit(node):
        state[node] = 1
        for child in children[node]:
            assert state.get(child) != 1, f"cycle through {child}"
            if child not in state:
                visit(child)
        state[node] = 2

    for k in ts:
        if k not in state:
            visit(k)

    # chains = connected groups of causally linked events
    adj = defaultdict(set)
    for e in events:
        for p in e.get("parents", []):
            adj[e["key"]].add(p)
            adj[p].add(e["key"])
    seen, sizes = set(), []
    for k in ts:
        if k in seen or not adj[k]:
            continue
        stack, comp = [k], set()
        while stack:
            node = stack.pop()
            if node not in comp:
                comp.add(node)
                stack.extend(adj[node])
        seen |= comp
        sizes.append(len(comp))
    assert sum(1 for s in sizes if 2 <= s <= 5) >= 10, sizes
    assert max(sizes) <= 8, sizes


def test_facts(corpus):
    keys = {e["key"] for e in corpus["entities"]}
    facts = corpus["facts"]
    assert len(facts) >= 40
    pairs = set()
    for f in facts:
        assert set(f) == FACT_KEYS, f
        assert f["entity"] in keys, f
        assert f["text"].strip()
        assert is_num(f["confidence"]) and 0 <= f["confidence"] <= 1, f
        assert f["belief_class"] in CLASSES, f
        assert f["domain"] in DOMAINS, f
        pair = (f["entity"], f["text"])
        assert pair not in pairs, pair
        pairs.add(pair)
    assert {f["domain"] for f in facts} == DOMAINS


def test_multilingual(corpus):
    ru_events = [e for e in corpus["events"] if CYRILLIC.search(e["title"] + e["description"])]
    ru_facts = [f for f in corpus["facts"] if CYRILLIC.search(f["text"])]
    assert len(ru_events) >= 8
    assert len(ru_facts) >= 3


def test_demo_themes_present(corpus):
    """The README's example queries need clear targets."""
    text = {e["key"]: (e["title"] + " " + e["description"]).lower() for e in corpus["events"]}

    def hits(*words):
        return [k for k, t in text.items() if all(w in t for w in words)]

    assert hits("coffee", "dana")
    assert hits("argument", "katya")
    assert hits("papa", "left")
    assert hits("crane", "villain")
    assert hits("biscuit")
    assert hits("burnout")


def test_generator_in_sync():
    """demo_memory.json is generated; it must match its generator byte for byte."""
    script = ROOT / "resources" / "demo" / "build_demo.py"
    result = subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
