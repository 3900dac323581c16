"""Storylines (docs/upkeep.md): chains and patterns, offline summaries written when first read
and rewritten when a member changes, centroids kept with the index, retrieval by storyline
(CLI and MCP), readable distilled patterns, erasure of a summary with its member."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from core.cli import main as cli
from core.errors import PulseError
from core.mcp_server import PulseTools, ToolError
from core.memory import Memory

NOW = "2026-11-01T12:00:00Z"


def story_corpus() -> dict:
    ev = [
        {"key": "s1", "title": "Jon lost his job at the bank", "ts": "2024-03-01T10:00:00Z",
         "description": "The bank closed the Mill Street branch and Jon lost his job. He was "
                        "frightened about the rent.", "entities": ["p_jon"]},
        {"key": "s2", "title": "Jon decides to open a dance studio", "ts": "2024-03-20T10:00:00Z",
         "description": "Free for the first time in years, Jon decided to open a dance "
                        "studio.", "entities": ["p_jon"], "parents": ["s1"]},
        {"key": "s3", "title": "The studio's opening night", "ts": "2024-06-01T19:00:00Z",
         "description": "Sixty people came to the opening night of Jon's dance studio. Ana "
                        "danced with him until midnight.", "entities": ["p_jon", "p_ana"],
         "parents": ["s2"]},
        {"key": "x1", "title": "A quiet walk on the beach", "ts": "2024-04-11T08:00:00Z",
         "description": "Walked alone on the beach at dawn, no phone."},
    ]
    return {"format": "pulse-corpus/1",
            "entities": [{"key": "p_jon", "name": "Jon Park", "kind": "person",
                          "aliases": ["Jon"]},
                         {"key": "p_ana", "name": "Ana Ruiz", "kind": "person"}],
            "events": ev}


@pytest.fixture
def story(memory: Memory) -> Memory:
    memory.import_corpus(story_corpus())
    return memory


def refresh_rows(memory: Memory) -> int:
    return memory.conn.execute("SELECT COUNT(*) FROM journal WHERE op = 'storyline.refresh'"
                               ).fetchone()[0]


def test_a_chain_is_a_storyline_with_centroid_and_summary(story: Memory) -> None:
    graph = story.storyline_graph()
    ids = {r[0]: r[1] for r in story.conn.execute("SELECT key, id FROM events")}
    line = graph.of(ids["s2"])
    assert line.kind == "chain" and line.members == (ids["s1"], ids["s2"], ids["s3"])
    assert graph.of(ids["x1"]) is None                         # a lone event is in none
    centroid = graph.centroids[line.key]
    vectors = np.stack([np.frombuffer(r[0], dtype=np.float32) for r in story.conn.execute(
        "SELECT vector FROM event_embeddings WHERE event_id IN (?, ?, ?) ORDER BY event_id",
        line.members)])
    mean = vectors.mean(axis=0)
    assert np.allclose(centroid, mean / np.linalg.norm(mean), atol=1e-6)
    (entry,) = story.storylines([line.key])
    assert entry["method"] == "extractive" and entry["title"]
    assert 1 <= entry["summary"].count(". ") + 1 <= 3
    assert "Jon" in entry["summary"] and "2024" in entry["summary"]   # names and dates kept
    assert entry["span"] == {"from": "2024-03-01T10:00:00Z", "to": "2024-06-01T19:00:00Z"}


def test_summary_written_once_then_cached(story: Memory) -> None:
    assert story.conn.execute("SELECT COUNT(*) FROM storylines").fetchone()[0] == 0
    first = story.storylines()
    assert refresh_rows(story) == 1
    assert story.storylines() == first
    assert refresh_rows(story) == 1                 # a second read writes nothing
    assert story.verify() == []


def test_summary_rewritten_when_a_member_changes(story: Memory) -> None:
    from core.store.changes import row_dict
    from core.store.commands import execute

    (before,) = story.storylines()
    s1 = story.resolve_event("s1")
    old = row_dict(story.conn, "events", {"id": s1})
    execute(story.conn, actor="manual", op="event.edit", subject=f"event:{s1}",
            changes=[{"t": "events", "a": "update", "pk": {"id": s1},
                      "set": {"title": "Jon was let go after nine years"},
                      "old": {"title": old["title"]}}])
    (after,) = story.storylines()
    assert after["summary"] != before["summary"] and "nine years" in after["summary"]
    stored = story.conn.execute("SELECT summary FROM storylines").fetchone()[0]
    assert stored == after["summary"] and refresh_rows(story) == 2


def test_plain_undo_passes_over_a_refreshed_summary(story: Memory) -> None:
    seq = story.set_belief("x1", user_flag=1)
    story.storylines()                         # a read writes a derived row after the edit
    out = story.undo()
    assert out["undoes"] == seq and story.event("x1")["user_flag"] == 0
    assert story.redo()["undoes"] == out["seq"]


def test_read_only_memory_summarises_without_writing(story: Memory, db_path: Path) -> None:
    head = story.stats()["journal_head"]
    story.close()
    with Memory.open(db_path, read_only=True) as ro:
        (entry,) = ro.storylines()
        assert entry["summary"] and ro.stats()["journal_head"] == head


def test_storyline_by_event_and_unknown(story: Memory) -> None:
    entry = story.storyline("s3")
    assert [e["key"] for e in entry["events"]] == ["s1", "s2", "s3"]
    with pytest.raises(PulseError, match="in no storyline"):
        story.storyline("x1")
    # a storyline key that names none is said to be one, not "no event 'chain:99'"
    for ref in ("chain:99", "pattern:abc"):
        with pytest.raises(PulseError, match=f"no storyline '{ref}'"):
            story.storyline(ref)


# -- retrieval by storyline ----------------------------------------------------------------

STORY_KEYS = {"storyline", "kind", "title", "summary", "method", "span", "members", "size",
              "score", "matched", "best"}


def test_retrieve_storylines_shape(story: Memory) -> None:
    out = story.retrieve("Jon's dance studio opening", storylines=True, top_k=5, now=NOW)
    assert "results" not in out and set(out) >= {"query", "scorer", "now", "gates",
                                                   "storylines"}
    entries = out["storylines"]
    assert [e["kind"] for e in entries] == ["chain", "event"]      # one entry per storyline
    chain, lone = entries
    assert set(chain) == STORY_KEYS and chain["size"] == 3 and len(chain["members"]) == 3
    assert chain["score"] == chain["best"]["score"] and chain["best"]["id"] in chain["matched"]
    assert chain["best"]["terms"]["recency_factor"] > 0           # the best member's breakdown
    assert set(chain["span"]) == {"from", "to"}
    assert lone["storyline"] == f"event:{lone['best']['id']}" and lone["size"] == 1
    plain = story.retrieve("Jon's dance studio opening", top_k=5, now=NOW)
    assert chain["best"]["id"] == plain["results"][0]["id"]
    # --chain keeps returning members
    assert len(story.retrieve("Jon's dance studio", chain=True, top_k=3, now=NOW)["results"]) == 3
    with pytest.raises(PulseError, match="not both"):
        story.retrieve("studio", storylines=True, chain=True)


def test_cli_retrieve_storylines_json(story: Memory, db_path: Path, capsys) -> None:
    story.close()
    assert cli(["--db", str(db_path), "retrieve", "dance studio", "--storylines", "--json",
                "--now", NOW, "--top-k", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["storylines"][0]) == STORY_KEYS
    assert cli(["--db", str(db_path), "storylines", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["storylines"]
    assert listed[0]["key"].startswith("chain:") and listed[0]["method"] == "extractive"
    assert cli(["--db", str(db_path), "storylines", "s1"]) == 0
    assert "Jon lost his job" in capsys.readouterr().out


def test_mcp_recall_storylines(story: Memory) -> None:
    tools = PulseTools(story)
    out = tools.call("recall", {"query": "dance studio", "storylines": True, "top_k": 2})
    assert out["storylines"][0]["kind"] == "chain"
    # the recall log keeps each entry's best member, in order, and no summary text
    (record,) = story.recalls()
    full = story.recall_record(record["id"])
    assert full["request"]["storylines"] is True
    assert [r["id"] for r in full["results"]] == [e["best"]["id"] for e in out["storylines"]]
    assert out["storylines"][0]["summary"] not in json.dumps(full)
    for bad in ({"query": "x", "storylines": "yes"},
                {"query": "x", "storylines": True, "chain": True}):
        with pytest.raises(ToolError):
            tools.call("recall", bad)


# -- patterns --------------------------------------------------------------------------------

def test_distilled_pattern_is_readable_and_a_storyline(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({"id": i, "speaker": "Dana", "text": t,
                                        "ts": f"2023-05-0{n}T13:56:00Z"}) + "\n"
                            for n, (i, t) in enumerate([
                                ("w1", "I walked the dog in the park this morning."),
                                ("w2", "I walked the dog in the park this evening."),
                                ("w3", "I walked the dog in the park again today.")], 1)))
    memory.import_files([path])
    pattern = memory.conn.execute("SELECT * FROM events WHERE provenance = 'memory_pattern'"
                                  ).fetchone()
    assert pattern["title"].startswith("Dana, 3 times: ") and "recurring" not in pattern["title"]
    assert "walked the dog" in pattern["title"]
    summary, _, lines = pattern["description"].partition("\n\n")
    assert summary.startswith("In May 2023, Dana: ") and lines.count("Dana: ") == 3
    (entry,) = memory.storylines()
    assert entry["key"] == f"pattern:{pattern['id']}" and entry["size"] == 3
    assert memory.storyline_graph().of(pattern["id"]).kind == "pattern"


def test_upkeep_rewrites_an_old_pattern_title(memory: Memory, tmp_path: Path) -> None:
    from core.store.commands import execute
    from core.store.records import text_hash

    test_distilled_pattern_is_readable_and_a_storyline(memory, tmp_path)
    p = memory.conn.execute("SELECT * FROM events WHERE provenance = 'memory_pattern'").fetchone()
    old_title, old_desc = "Dana: recurring — dog, park, walked", "Dana: a\nDana: b"
    vec_hash = memory.conn.execute("SELECT text_hash FROM event_embeddings WHERE event_id = ?",
                                   (p["id"],)).fetchone()[0]
    execute(memory.conn, actor="manual", op="test.old", subject="x", changes=[
        {"t": "events", "a": "update", "pk": {"id": p["id"]},
         "set": {"title": old_title, "description": old_desc},
         "old": {"title": p["title"], "description": p["description"]}},
        {"t": "event_embeddings", "a": "update", "pk": {"event_id": p["id"],
                                                        "model": memory.embedding_model},
         "set": {"text_hash": text_hash(old_title, old_desc)}, "old": {"text_hash": vec_hash}}])
    out = memory.upkeep(now=NOW)
    assert out["patterns_retitled"] == [p["id"]]
    fresh = memory.event(p["id"])
    assert fresh["title"].startswith("Dana, 3 times: ")
    assert memory.embed()["embedded"] == 0        # the centroid vector stays current
    memory.undo()
    assert memory.event(p["id"])["title"] == old_title


# -- erasure ---------------------------------------------------------------------------------

def test_forgetting_a_member_erases_its_summary(story: Memory, db_path: Path) -> None:
    (entry,) = story.storylines()
    assert "Sixty people" in entry["summary"] or "opening" in entry["summary"].lower()
    story.forget("event:s3")
    assert story.conn.execute("SELECT COUNT(*) FROM storylines").fetchone()[0] == 0
    story.close()
    for path in db_path.parent.glob(f"{db_path.name}*"):
        assert b"Sixty people" not in path.read_bytes(), path
    with Memory.open(db_path) as again:
        (left,) = again.storylines()
        assert left["size"] == 2 and "Sixty" not in left["summary"]


def test_demo_memory_storylines(demo_db: Path, tmp_path: Path) -> None:
    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as memory:
        stories = memory.storylines()
        assert len(stories) == 46 and all(s["kind"] == "chain" for s in stories)
        assert all(1 <= s["size"] <= 5 and s["summary"] for s in stories)
        assert memory.verify() == []


def test_reading_a_storyline_never_moves_the_digest(story: Memory) -> None:
    before = story.digest()
    story.storylines()
    assert story.digest() == before and refresh_rows(story) == 1
    s1 = story.resolve_event("s1")
    story.set_belief(s1, user_flag=1)
    after_edit = story.digest()
    story.retrieve("dance studio", storylines=True)        # may rewrite summaries
    assert story.digest() == after_edit
    story.undo()                                           # undo restores the digest
    assert story.digest() == before
