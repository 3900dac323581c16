"""`pulse-corpus/1` import: all or nothing, and every error names the item."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from core.errors import ValidationError
from core.memory import Memory, demo_corpus_path

GOOD = {
    "format": "pulse-corpus/1",
    "now": "2026-11-01T12:00:00Z",
    "entities": [{"key": "dana", "name": "Dana", "kind": "person", "aliases": ["D"]},
                 {"key": "ilse", "name": "Ilse", "kind": "fictional_character",
                  "domain": "fiction_content"}],
    "relations": [{"from": "dana", "to": "ilse", "kind": "inspired", "strength": 0.4}],
    "events": [
        {"key": "e1", "title": "Coffee with Dana", "ts": "2026-10-01T10:00:00Z",
         "emotions": {"joy": 0.6}, "entities": ["dana"],
         "biometrics": {"hrv": 72, "workout": True}},
        {"key": "e2", "title": "Dad left", "ts": "2001-05-01", "belief_class": "axiom",
         "confidence_floor": 0.9, "archivable": 0, "user_flag": 1, "sentiment": -0.9,
         "sentiment_label": "wound", "parents": []},
        {"key": "e3", "title": "Ilse leaves the orchard", "ts": "2026-09-01T10:00:00+02:00",
         "domain": "fiction_content", "parents": ["e1"], "entities": ["ilse"]},
    ],
    "facts": [{"entity": "dana", "text": "Dana takes oat milk", "confidence": 0.9}],
}


def mutated(path: str, value) -> dict:
    """GOOD with one field replaced; path like 'events.1.confidence_floor'."""
    data = copy.deepcopy(GOOD)
    target = data
    parts = path.split(".")
    for part in parts[:-1]:
        target = target[int(part)] if part.isdigit() else target[part]
    last = parts[-1]
    if value is DELETE:
        del target[int(last) if last.isdigit() else last]
    elif last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value
    return data


DELETE = object()

BAD_CASES = [
    (mutated("format", "pulse-corpus/2"), "format"),
    (mutated("extra", 1), "unknown top-level key 'extra'"),
    (mutated("entities.0.kind", "alien"), "entity 'dana': kind 'alien'"),
    (mutated("entities.0.colour", "red"), "entities[0]: unknown key 'colour'"),
    (mutated("entities.1.key", "dana"), "entity 'dana': duplicate key"),
    (mutated("relations.0.to", "nobody"), "relations[0]: to 'nobody' names no entity"),
    (mutated("relations.0.strength", 1.5), "relations[0]: strength 1.5 is outside 0..1"),
    (mutated("events.0.belief_class", "axion"), "event 'e1': belief_class 'axion'"),
    (mutated("events.0.ts", "last tuesday"), "event 'e1': ts 'last tuesday' is not ISO-8601"),
    (mutated("events.0.title", DELETE), "events[0]: 'title' is required"),
    (mutated("events.0.emotions", {"joy": 1.2}), "event 'e1': emotion joy"),
    (mutated("events.0.emotions", {"happiness": 0.5}), "event 'e1': unknown emotion 'happiness'"),
    (mutated("events.0.entities", ["ghost"]), "event 'e1': entity 'ghost' is not defined"),
    (mutated("events.0.biometrics", {"steps": 100}), "event 'e1': unknown biometrics key 'steps'"),
    (mutated("events.0.sentiment", -2), "event 'e1': sentiment -2"),
    (mutated("events.1.confidence_floor", 0.2), "event 'e2': an axiom needs confidence_floor"),
    (mutated("events.1.archivable", 1), "event 'e2': an axiom must be non-archivable"),
    (mutated("events.2.parents", ["e9"]), "event 'e3': parent 'e9' is not an earlier event"),
    (mutated("events.0.user_flag", 2), "event 'e1': user_flag must be 0 or 1"),
    (mutated("facts.0.entity", "ghost"), "facts[0]: entity 'ghost' is not defined"),
    (mutated("facts.0.confidence", "high"), "facts[0]: confidence must be a number"),
    (mutated("entities", [{"key": "dana", "name": "Dana", "is_self": True},
                          {"key": "ilse", "name": "Ilse", "is_self": True}]),
     "entity 'ilse': is_self, but entity 'dana' already is"),
]


@pytest.mark.parametrize("data,message", BAD_CASES, ids=[m for _, m in BAD_CASES])
def test_each_error_names_the_item_and_imports_nothing(memory: Memory, data: dict,
                                                       message: str) -> None:
    memory.import_corpus({**GOOD, "events": GOOD["events"][:1], "facts": [],
                          "relations": [], "entities": GOOD["entities"][:1]})
    digest, head = memory.digest(), memory.stats()["journal_head"]
    with pytest.raises(ValidationError) as info:
        memory.import_corpus(data)
    assert message in str(info.value)
    assert memory.digest() == digest
    assert memory.stats()["journal_head"] == head


def test_a_second_person_is_never_the_memory_s_own(memory: Memory, tmp_path: Path) -> None:
    # `pulse demo` into someone's memory made Nadia a second is_self beside its own person
    memory.import_corpus({"format": "pulse-corpus/1", "entities": [
        {"key": "me", "name": "Mara", "kind": "person", "is_self": True}]})
    digest = memory.digest()
    with pytest.raises(ValidationError, match="Mara is this memory's own person"):
        memory.import_corpus(demo_corpus_path())
    assert memory.digest() == digest
    memory.import_corpus({"format": "pulse-corpus/1", "entities": [     # the same one: fine
        {"key": "me", "name": "Mara", "kind": "person", "is_self": True}]})


def test_good_corpus_imports_everything(memory: Memory) -> None:
    summary = memory.import_corpus(GOOD)
    assert summary["events"] == 3 and summary["entities"] == 2 and summary["facts"] == 1
    assert set(summary["keys"]) == {"e1", "e2", "e3"}
    e2 = memory.event("e2")
    assert (e2["belief_class"], e2["confidence_floor"], e2["archivable"], e2["user_flag"]) == \
        ("axiom", 0.9, 0, 1)
    assert e2["ts"] == "2001-05-01T00:00:00Z"
    assert memory.event("e3")["ts"] == "2026-09-01T08:00:00Z"
    emotions = memory.conn.execute(
        "SELECT joy, derivation FROM event_emotions WHERE event_id = ?",
        (summary["keys"]["e1"],)).fetchone()
    assert tuple(emotions) == (0.6, "explicit")
    inferred = memory.conn.execute(
        "SELECT derivation FROM event_emotions WHERE event_id = ?",
        (summary["keys"]["e3"],)).fetchone()
    assert inferred[0] == "inferred"
    assert memory.conn.execute("SELECT COUNT(*) FROM event_chains").fetchone()[0] == 1
    out = memory.retrieve("coffee", scorer="v2", now="2026-11-01T12:00:00Z")
    first = out["results"][0]
    assert first["key"] == "e1"
    assert first["sources"] == [{"source_kind": "pulse-corpus", "source_id": "e1"}]


def test_reimport_adds_nothing(memory: Memory) -> None:
    memory.import_corpus(GOOD)
    digest = memory.digest()
    again = memory.import_corpus(GOOD)
    assert again["events"] == 0 and again["skipped_existing"] == 3
    assert memory.digest() == digest


def test_a_corpus_beside_a_chat_counts_in_the_total(memory: Memory, tmp_path: Path) -> None:
    from pulse_desktop.ingest_summary import counts_sentence

    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(GOOD), encoding="utf-8")
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"id": "m1", "speaker": "Maya", "ts": "2026-10-02T09:00:00Z",
                                 "text": "I went hiking with Leo by the lake today."}]),
                    encoding="utf-8")
    summary = memory.import_files([corpus, chat])
    by_file = {Path(f["file"]).name: f for f in summary["files"]}
    made, talk = by_file["corpus.json"], by_file["chat.json"]
    total = summary["total"]
    assert total["events"]["curated"] == made["events"] == 3
    for key in ("entities", "relations", "facts"):
        assert total[key] == made[key] + talk[key], key
    assert total["observations"] == talk["observations"]
    assert "3 curated events added from a corpus." in counts_sentence(total)
    # a chat alone keeps the total's shape: no curated key
    again = memory.import_files([chat])
    assert "curated" not in again["total"]["events"]


def test_a_year_before_1000_keeps_four_digits_and_sorts_first(memory: Memory) -> None:
    # strftime's %Y wrote "900-05-01…", which sorts after "2026-…" as text
    data = {"format": "pulse-corpus/1", "entities": [], "events": [
        {"key": "now", "title": "Coffee in the abbey ruins", "ts": "2026-01-01"},
        {"key": "old", "title": "The abbey burned", "ts": "0900-05-01",
         "domain": "fiction_content"}]}
    memory.import_corpus(data)
    by_ts = [k for (k,) in memory.conn.execute("SELECT key FROM events ORDER BY ts")]
    assert by_ts == ["old", "now"]
    out = memory.retrieve("the abbey burned", top_k=2, now="0001-01-01T00:00:00Z",
                          abstain=False)
    assert out["now"] == "0001-01-01T00:00:00Z"
    assert {r["key"]: r["ts"] for r in out["results"]}["old"] == "0900-05-01T00:00:00Z"


def test_malformed_file_is_one_clear_error(tmp_path: Path, memory: Memory) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": "pulse-corpus/1", "events": [', encoding="utf-8")
    with pytest.raises(ValidationError, match="broken.json: not valid JSON"):
        memory.import_corpus(path)


def test_demo_corpus_imports_with_all_domains(tmp_path: Path) -> None:
    data = json.loads(demo_corpus_path().read_text(encoding="utf-8"))
    with Memory.open(tmp_path / "demo.db", create=True) as memory:
        summary = memory.import_corpus(demo_corpus_path())
        assert summary["events"] == len(data["events"]) >= 150
        stats = memory.stats()
        assert set(stats["events_by_domain"]) == {"real", "fiction_content", "fiction_meta",
                                                  "meta_authorial"}
        assert stats["counts"]["event_embeddings"] == summary["events"]
        assert memory.verify() == []
