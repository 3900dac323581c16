"""The offline pipeline (INGEST §2–3): routing at θ, the pool and a single-topic promotion,
fiction and the glossary, entity resolution and merge proposals, traceable sources, cancel
and crash convergence, determinism, remember()."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from core.errors import PulseError
from core.ingest import (
    add_glossary_term,
    ingest_files,
    list_merge_proposals,
    pipeline,
    remember,
    resolve_merge_proposal,
)
from core.memory import Memory

TS = "2023-05-08T13:56:00Z"


def write_chat(path: Path, rows: list[tuple[str, str, str]], ts: str = TS) -> Path:
    path.write_text("".join(json.dumps({"id": i, "speaker": s, "text": t, "ts": ts}) + "\n"
                            for i, s, t in rows), encoding="utf-8")
    return path


def events(memory) -> list[dict]:
    return [dict(r) for r in memory.conn.execute("SELECT * FROM events ORDER BY id")]


def test_routing_at_theta(memory, tmp_path):
    path = write_chat(tmp_path / "c.jsonl", [
        ("m1", "Dana", "My mom died last year and I still miss her every day."),
        ("m2", "Dana", "I had toast for breakfast."),
    ])
    ingest_files(memory, [path])
    rows = {r["source_observation"]: r for r in events(memory)}
    vivid, weak = rows[1], rows[2]
    assert vivid["intensity"] >= pipeline.THETA and vivid["belief_class"] != "hypothesis"
    assert weak["intensity"] < pipeline.THETA and weak["belief_class"] == "hypothesis"
    pooled = {r[0] for r in memory.conn.execute("SELECT event_id FROM pool_segments")}
    assert pooled == {weak["id"]}
    assert memory.verify() == []


def test_single_topic_pool_promotes_to_one_distilled_event(memory, tmp_path):
    path = write_chat(tmp_path / "c.jsonl", [
        ("w1", "Dana", "I walked the dog in the park this morning."),
        ("w2", "Dana", "I walked the dog in the park this evening."),
        ("w3", "Dana", "I walked the dog in the park again today."),
    ])
    summary = ingest_files(memory, [path])
    assert summary["total"]["events"]["distilled"] == 1
    distilled = [e for e in events(memory) if e["provenance"] == "memory_pattern"]
    assert len(distilled) == 1 and distilled[0]["belief_class"] == "user_model"
    members = [e for e in events(memory) if e["absorbed_into"] == distilled[0]["id"]]
    assert len(members) == 3
    out = memory.retrieve("walking the dog in the park", scorer="hybrid", top_k=5)
    top = out["results"][0]
    assert top["id"] == distilled[0]["id"]  # absorbed members are no longer ranked
    assert {s["source_id"] for s in top["sources"]} == {"w1", "w2", "w3"}
    assert memory.verify() == []


def test_sources_trace_events_to_messages(memory, tmp_path):
    path = write_chat(tmp_path / "c.jsonl", [
        ("D1:1", "Caroline", "Hey Mel! How have you been?"),
        ("D1:2", "Melanie", "My sister Anna moved to Boston last week for her new job."),
    ])
    ingest_files(memory, [path])
    out = memory.retrieve("Anna moved to Boston", scorer="hybrid", top_k=3)
    assert {"source_kind": "chat", "source_id": "D1:2"} in out["results"][0]["sources"]
    names = {r[0]: r[1] for r in memory.conn.execute("SELECT canonical_name, kind FROM entities")}
    assert names["Anna"] == "person" and names["Boston"] == "place"
    assert names["Melanie"] == "person"
    rel = memory.conn.execute(
        "SELECT r.kind FROM relations r JOIN entities a ON a.id = r.from_entity JOIN entities b"
        " ON b.id = r.to_entity WHERE a.canonical_name = 'Melanie' AND b.canonical_name = 'Anna'"
    ).fetchone()
    assert rel[0] == "sister"


def test_a_name_after_to_is_a_place_only_where_someone_goes(memory, tmp_path):
    """'married to Sam' or 'talked to Priya' names a person; 'moved to Boston' a place."""
    path = write_chat(tmp_path / "c.jsonl", [
        ("t1", "Nadia", "I got married to Sam in June!"),
        ("t2", "Nadia", "Yesterday I talked to Priya about the move."),
        ("t3", "Nadia", "I finally wrote to Jonas after two years."),
        ("t4", "Nadia", "I moved to Boston last week and then flew to Denver."),
        ("t5", "Nadia", "We are going to Lisbon in May."),
    ])
    ingest_files(memory, [path], me="Nadia")
    kinds = {r[0]: r[1] for r in memory.conn.execute("SELECT canonical_name, kind FROM entities")}
    assert {n: kinds.get(n) for n in ("Sam", "Priya", "Jonas", "Boston", "Denver", "Lisbon")} \
        == {"Sam": "person", "Priya": "person", "Jonas": "person", "Boston": "place",
            "Denver": "place", "Lisbon": "place"}


def test_glossary_sets_fiction_domain_and_fiction_never_merges_into_a_person(memory, tmp_path):
    add_glossary_term(memory, "Lyra")
    path = write_chat(tmp_path / "c.jsonl", [
        ("a1", "Lyra", "I finally finished painting the kitchen today."),
        ("a2", "Sam", "In my novel, Lyra betrays her brother at the river."),
    ])
    ingest_files(memory, [path])
    kinds = sorted(r[0] for r in memory.conn.execute(
        "SELECT kind FROM entities WHERE canonical_name = 'Lyra'"))
    assert kinds == ["fictional_character", "person"]
    domain = {r["source_observation"]: r["domain"] for r in events(memory)}
    assert domain[2] == "fiction_content" and domain[1] == "real"
    assert list_merge_proposals(memory) == []  # no cross-kind proposal is ever made
    person, fiction = (r[0] for r in memory.conn.execute(
        "SELECT id FROM entities WHERE canonical_name = 'Lyra' ORDER BY kind DESC"))
    from core.store.commands import execute

    execute(memory.conn, actor="manual", op="test", subject="x", changes=[
        {"t": "merge_proposals", "a": "insert", "row": {
            "id": 99, "keep_entity": person, "merge_entity": fiction, "similarity": 1.0,
            "status": "pending", "reason": "forced"}}])
    with pytest.raises(PulseError, match="fictional"):
        resolve_merge_proposal(memory, 99, True)


@pytest.mark.parametrize("term,pattern", [("", False), ("   ", False), (".*", True),
                                          ("x?", True)])
def test_a_glossary_term_that_would_match_every_text_is_refused(memory, term, pattern):
    # with --apply it moved every real-life event into fiction
    head = memory.conn.execute("SELECT MAX(seq) FROM journal").fetchone()[0]
    with pytest.raises(PulseError, match="glossary"):
        add_glossary_term(memory, term, pattern=pattern)
    assert memory.conn.execute("SELECT COUNT(*) FROM glossary").fetchone()[0] == 0
    assert memory.conn.execute("SELECT MAX(seq) FROM journal").fetchone()[0] == head


def test_one_person_s_unnamed_relatives_are_never_proposed_as_one(memory, tmp_path):
    """'my mom' and 'my grandma' are two people whose names are alike only in their wording:
    proposing to merge Nadia's grandmother into her mother (or her brother into Tom's) is
    wrong whoever approves it."""
    path = write_chat(tmp_path / "c.jsonl", [
        ("r1", "Nadia", "My mom is sick again."),
        ("r2", "Nadia", "My grandma called to ask about her."),
        ("r3", "Nadia", "My brother drove down from the coast."),
        ("r4", "Tom", "My brother never calls me back."),
    ])
    summary = ingest_files(memory, [path], me="Nadia")
    names = {r[0] for r in memory.conn.execute("SELECT canonical_name FROM entities")}
    assert {"mother (of Nadia)", "grandmother (of Nadia)", "brother (of Nadia)",
            "brother (of Tom)"} <= names
    assert summary["total"]["merge_proposals"] == 0 and list_merge_proposals(memory) == []


def test_mom_is_the_mother_the_memory_already_knows_by_name(memory, tmp_path):
    """Once 'my mom Maria' is known, 'Mom called' is Maria, not a second mother."""
    first = write_chat(tmp_path / "a.jsonl", [
        ("m1", "Nadia", "My mom Maria thinks I should move back home."),
        ("m2", "Nadia", "Mom called again this morning and I felt guilty."),
    ])
    ingest_files(memory, [first], me="Nadia")
    later = write_chat(tmp_path / "b.jsonl", [("m3", "Nadia", "My mother sent me a letter.")])
    ingest_files(memory, [later], me="Nadia")
    names = {r[0] for r in memory.conn.execute("SELECT canonical_name FROM entities")}
    assert names == {"Nadia", "Maria"}
    linked = memory.conn.execute(
        "SELECT COUNT(DISTINCT e.source_observation) FROM events e JOIN event_entities ee"
        " ON ee.event_id = e.id JOIN entities n ON n.id = ee.entity_id"
        " WHERE n.canonical_name = 'Maria'").fetchone()[0]
    assert linked == 3  # every message about her


def test_similar_names_make_a_proposal_and_approval_merges(memory, tmp_path):
    path = write_chat(tmp_path / "c.jsonl", [
        ("p1", "Dana", "I had coffee with my friend Caroline at the market."),
        ("p2", "Dana", "Later I met Carolyn again near the station, she was tired."),
    ])
    summary = ingest_files(memory, [path])
    assert summary["total"]["merge_proposals"] == 1
    (prop,) = list_merge_proposals(memory)
    assert {prop["keep_name"], prop["merge_name"]} == {"Caroline", "Carolyn"}
    assert 0.7 <= prop["similarity"] < 0.98
    seq_before = memory.conn.execute("SELECT MAX(seq) FROM journal").fetchone()[0]
    out = resolve_merge_proposal(memory, prop["id"], True)
    assert out["status"] == "approved"
    rows = memory.conn.execute("SELECT canonical_name, aliases FROM entities WHERE"
                               " canonical_name IN ('Caroline', 'Carolyn')").fetchall()
    assert len(rows) == 1 and "Carolyn" in json.loads(rows[0][1])
    linked = memory.conn.execute("SELECT COUNT(DISTINCT event_id) FROM event_entities WHERE"
                                 " entity_id = ?", (prop["keep_entity"],)).fetchone()[0]
    assert linked == 2
    kept = memory.conn.execute("SELECT salience FROM entities WHERE id = ?",
                               (prop["keep_entity"],)).fetchone()[0]
    assert kept == pipeline.salience_of(pipeline.ranked_weight(memory.conn, [prop["keep_entity"]]))
    op = memory.conn.execute("SELECT op FROM journal WHERE seq = ?", (seq_before + 1,)).fetchone()
    assert op[0] == "entity.merge"
    assert memory.verify() == []
    assert list_merge_proposals(memory) == []
    with pytest.raises(PulseError):
        resolve_merge_proposal(memory, prop["id"], False)


def _rows(n: int) -> list[tuple[str, str, str]]:
    topics = ["painting", "my sister Anna", "the garden", "work at the bakery", "hiking",
              "my dog Rex", "a concert in Paris", "the divorce papers"]
    return [(f"D1:{i}", "Dana" if i % 2 else "Sam",
             f"Today I thought about {topics[i % len(topics)]} again, message {i}.")
            for i in range(1, n + 1)]


def test_same_input_same_digest_and_cancel_then_rerun_converges(tmp_path, monkeypatch):
    monkeypatch.setattr(pipeline, "BATCH", 4)
    path = write_chat(tmp_path / "c.jsonl", _rows(14))
    with Memory.open(tmp_path / "a.db", create=True) as a:
        ingest_files(a, [path])
        clean = a.digest()
    with Memory.open(tmp_path / "b.db", create=True) as b:
        cancel = threading.Event()

        def progress(done, total):
            if done >= 6:
                cancel.set()

        summary = ingest_files(b, [path], progress=progress, cancel=cancel)
        assert summary["cancelled"] is True
        stored = b.conn.execute("SELECT COUNT(*) FROM observations").fetchone()[0]
        assert 0 < stored < 14
        assert b.verify() == []
        # every stored observation has its extraction
        bare = b.conn.execute("SELECT COUNT(*) FROM observations o WHERE NOT EXISTS (SELECT 1"
                              " FROM evidence v WHERE v.observation_id = o.id AND"
                              " v.row_kind = 'event')").fetchone()[0]
        assert bare == 0
        ingest_files(b, [path])
        assert b.digest() == clean


def test_crash_mid_batch_then_rerun_converges(tmp_path, monkeypatch):
    monkeypatch.setattr(pipeline, "BATCH", 4)
    path = write_chat(tmp_path / "c.jsonl", _rows(10))
    with Memory.open(tmp_path / "a.db", create=True) as a:
        ingest_files(a, [path])
        clean = a.digest()
    real = pipeline.Writer.write
    calls = {"n": 0}

    def crashing(self, prep, counts):
        calls["n"] += 1
        if calls["n"] == 7:
            raise KeyboardInterrupt("simulated kill")
        return real(self, prep, counts)

    with Memory.open(tmp_path / "b.db", create=True) as b:
        monkeypatch.setattr(pipeline.Writer, "write", crashing)
        with pytest.raises(KeyboardInterrupt):
            ingest_files(b, [path])
        monkeypatch.setattr(pipeline.Writer, "write", real)
        assert b.conn.execute("SELECT COUNT(*) FROM observations").fetchone()[0] == 4
        assert b.verify() == []
        ingest_files(b, [path])
        assert b.digest() == clean


def test_remember_returns_ids(memory):
    out = remember(memory, "Dana's brother Tom was diagnosed with diabetes; she is scared.",
                   ts="2024-02-01T10:00:00Z")
    assert out["events"] and out["observation"]
    row = memory.conn.execute("SELECT ts FROM events WHERE id = ?", (out["events"][0],)).fetchone()
    assert row[0] == "2024-02-01T10:00:00Z"
    assert any(memory.conn.execute("SELECT 1 FROM entities WHERE id = ? AND canonical_name ="
                                   " 'Tom'", (e,)).fetchone() for e in out["entities"])
    again = remember(memory, "Dana's brother Tom was diagnosed with diabetes; she is scared.",
                     ts="2024-02-01T10:00:00Z")
    assert again["duplicate"] is True and again["events"] == []
    journal = memory.conn.execute("SELECT actor FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
    assert journal[0] == "import"


def test_pasted_material_is_one_weak_segment(memory, tmp_path):
    pasted = " ".join(["The committee reviewed the quarterly figures and the regional data."] * 12)
    path = write_chat(tmp_path / "c.jsonl", [("x1", "Dana", pasted)])
    ingest_files(memory, [path])
    (row,) = events(memory)
    assert row["intensity"] == pytest.approx(0.05) and row["belief_class"] == "hypothesis"


def test_replay_needs_no_model(memory, tmp_path, monkeypatch):
    """Vectors and emotions travel in the journal: re-applying the payloads rebuilds the same
    memory with the embedder and tagger disabled."""
    from core.store import db
    from core.store.changes import apply_changes

    path = write_chat(tmp_path / "c.jsonl", _rows(6))
    ingest_files(memory, [path])
    payloads = [json.loads(r[0]) for r in memory.conn.execute(
        "SELECT payload FROM journal ORDER BY seq")]
    monkeypatch.setattr(Memory, "embed_texts", lambda *a, **k: (_ for _ in ()).throw(
        AssertionError("model called")))
    with Memory.open(tmp_path / "replay.db", create=True) as fresh:
        from core.store.commands import transaction

        with transaction(fresh.conn):
            fresh.conn.execute("DELETE FROM pulse_meta WHERE key = 'embedding_model'")
            for p in payloads:
                apply_changes(fresh.conn, p["changes"])
            fresh.set_meta("embedding_model", memory.embedding_model)
        assert db is not None
        assert fresh.digest() == memory.digest()


def test_the_title_head_is_not_embedded_twice(memory, tmp_path):
    text = ("I finally told my sister about the diagnosis, and she cried with me for an hour "
            "before we could talk about anything else.")
    ingest_files(memory, [write_chat(tmp_path / "c.jsonl", [("t1", "Dana", text)])])
    (event,) = events(memory)
    assert event["title"].endswith("…") and event["description"] == f"Dana: {text}"
    stored = memory.conn.execute("SELECT vector FROM event_embeddings WHERE event_id = ?",
                                 (event["id"],)).fetchone()[0]
    import numpy as np

    expected = memory.embedder().embed_passages([f"Dana: {event['description']}"])[0]
    np.testing.assert_array_equal(np.frombuffer(stored, dtype=np.float32), expected)


def test_entity_salience_follows_the_intensity_of_what_mentions_it(memory, tmp_path):
    import math

    rows = _rows(24) + [
        ("s1", "Dana", "My sister Anna was diagnosed with cancer and I am terrified."),
        ("s2", "Dana", "Anna called me crying last night, I love her so much."),
        ("s3", "Dana", "I drove to see Anna at the hospital, the worst day of my life."),
        ("s4", "Dana", "We once had lunch in Lisbon."),
    ]
    ingest_files(memory, [write_chat(tmp_path / "c.jsonl", rows)])
    assert memory.conn.execute("SELECT COUNT(*) FROM events WHERE absorbed_into IS NOT NULL"
                               ).fetchone()[0] > 0          # promotions happened
    salience = {}
    for entity_id, name, stored in memory.conn.execute(
            "SELECT id, canonical_name, salience FROM entities"):
        total = memory.conn.execute(
            "SELECT COALESCE(SUM(e.intensity), 0) FROM event_entities x JOIN events e"
            " ON e.id = x.event_id WHERE x.entity_id = ? AND e.absorbed_into IS NULL",
            (entity_id,)).fetchone()[0]
        assert stored == pytest.approx(1 - math.exp(-total / pipeline.SALIENCE_SCALE), abs=2e-4)
        salience[name] = stored
    assert salience["Dana"] > salience["Anna"] > salience["Lisbon"] > 0
    assert memory.verify() == []
