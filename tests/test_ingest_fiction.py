"""Fiction stays fiction (issue 12, item 4): a name the glossary or a fiction-domain entity knows
is never made a real-life entity; new names that only occur inside fiction passages are
proposed for the glossary; a person accepts (journaled, undoable) or rejects them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from core.errors import PulseError
from core.ingest import add_glossary_term, fiction
from core.ingest.formats import Message
from core.memory import Memory

TS = "2024-05-02T09:00:00Z"


def write_chat(path: Path, texts: list[str], speaker: str = "Nadia", prefix: str = "m") -> Path:
    path.write_text("".join(json.dumps({"id": f"{prefix}{i}", "speaker": speaker, "role": "user",
                                        "text": t, "ts": TS}) + "\n"
                            for i, t in enumerate(texts, 1)), encoding="utf-8")
    return path


NOVEL_CHAT = [
    "In my novel, Mirela lives in Saltmere and meets the ferryman at dawn.",
    "The villain, Corvin Ash, wants the lighthouse and Mirela refuses him.",
    "Mirela hides the letters where Corvin Ash will never look.",
    "I had coffee with Dana at the market and told her about the book.",
    "My friend Dana thinks the ending is too sad.",
]


def entities(memory) -> dict[str, tuple[str, str]]:
    return {r[0]: (r[1], r[2]) for r in memory.conn.execute(
        "SELECT canonical_name, kind, domain FROM entities")}


def test_names_only_inside_fiction_become_glossary_candidates_not_entities(memory, tmp_path):
    summary = memory.import_files(write_chat(tmp_path / "c.jsonl", NOVEL_CHAT), me="Nadia")
    made = entities(memory)
    assert not {"Mirela", "Saltmere", "Corvin Ash"} & set(made)
    assert made["Dana"] == ("person", "real")
    candidates = {c["term"]: c for c in memory.glossary_candidates()}
    assert set(candidates) == {"Mirela", "Saltmere", "Corvin Ash"}
    assert candidates["Saltmere"]["kind"] == "place"
    assert candidates["Mirela"]["kind"] == "fictional_character"
    # "Mirela hides …" counts too: a name the import has mid-sentence may begin a sentence
    assert candidates["Mirela"]["mentions"] == 3 and candidates["Mirela"]["observations"] == 3
    assert summary["total"]["glossary_candidates"] == 3
    # the passages that tell the novel are fiction; the coffee with Dana is real life
    domains = dict(memory.conn.execute(
        "SELECT o.source_id, e.domain FROM events e JOIN observations o"
        " ON o.id = e.source_observation").fetchall())
    assert domains["m1"] == domains["m3"] == "fiction_content"
    assert domains["m4"] == domains["m5"] == "real"
    assert memory.verify() == []


def test_accepting_a_candidate_makes_it_a_glossary_term_and_undo_takes_it_back(memory,
                                                                                tmp_path):
    from core.trust.undo import undo

    memory.import_files(write_chat(tmp_path / "c.jsonl", NOVEL_CHAT), me="Nadia")
    mirela = next(c for c in memory.glossary_candidates() if c["term"] == "Mirela")
    result = memory.resolve_glossary_candidate(mirela["id"], True)
    assert result["status"] == "accepted"
    glossary = {g["term"]: g for g in memory.conn.execute("SELECT * FROM glossary")}
    assert glossary["Mirela"]["domain"] == "fiction_content"
    op = memory.conn.execute("SELECT op FROM journal ORDER BY seq DESC LIMIT 1").fetchone()[0]
    assert op == "glossary.accept"
    with pytest.raises(PulseError, match="already accepted"):
        memory.resolve_glossary_candidate(mirela["id"], False)
    # a later import knows her: a fictional character, in the fiction domain
    memory.import_files(write_chat(tmp_path / "d.jsonl", ["Tonight I rewrote the scene where"
                                                         " Mirela forgives her father."],
                                   prefix="d"), me="Nadia")
    assert entities(memory)["Mirela"] == ("fictional_character", "fiction_content")
    assert memory.verify() == []
    # undo the later import's row, then the acceptance: the term is gone, pending again
    undo(memory)
    undo(memory)
    assert memory.conn.execute("SELECT COUNT(*) FROM glossary WHERE term = 'Mirela'"
                               ).fetchone()[0] == 0
    status = memory.conn.execute("SELECT status FROM glossary_candidates WHERE id = ?",
                                 (mirela["id"],)).fetchone()[0]
    assert status == "pending"


def test_a_rejected_candidate_is_a_real_name_in_later_imports(memory, tmp_path):
    memory.import_files(write_chat(tmp_path / "c.jsonl", NOVEL_CHAT), me="Nadia")
    saltmere = next(c for c in memory.glossary_candidates() if c["term"] == "Saltmere")
    memory.resolve_glossary_candidate(saltmere["id"], False)
    memory.import_files(write_chat(tmp_path / "d.jsonl", [
        "In my novel the storm reaches Saltmere before the ferry does."], prefix="d"),
        me="Nadia")
    assert entities(memory)["Saltmere"][1] == "real"
    assert [c["term"] for c in memory.glossary_candidates("rejected")] == ["Saltmere"]


def test_a_name_the_glossary_or_a_fiction_entity_knows_is_never_made_real(demo_db, tmp_path):
    """The demo memory knows Ilse Marrow (alias Ilse), Aldous Crane ('the Tallyman') and
    Greywick as fiction; a chat that mentions them without any cue links to those entities."""
    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    chat = write_chat(tmp_path / "c.jsonl", [
        "Today I walked with Ilse along the cliff and thought about Greywick.",
        "The harbour office smelled of the Tallyman's cigars when Ilse went in.",
        "Katya called me about Mirela, a new name she loves.",
    ])
    with Memory.open(path) as memory:
        add_glossary_term(memory, "Mirela")
        before = {r[0] for r in memory.conn.execute("SELECT id FROM entities")}
        memory.import_files(chat, me="Nadia")
        new = memory.conn.execute(
            "SELECT canonical_name, kind, domain FROM entities WHERE id NOT IN"
            f" ({','.join(map(str, before))})").fetchall()
        assert all(r["domain"] != "real" for r in new if r["canonical_name"] != "Nadia")
        assert not {r["canonical_name"] for r in new} & {"Ilse", "Greywick", "Tallyman"}
        ilse = memory.conn.execute("SELECT id FROM entities WHERE key = 'p_ilse'").fetchone()[0]
        events = memory.conn.execute(
            "SELECT e.id, e.domain FROM events e JOIN observations o ON o.id ="
            " e.source_observation WHERE o.source_id IN ('m1', 'm2')").fetchall()
        assert events and all(e["domain"] == "fiction_content" for e in events)
        linked = {r[0] for e in events for r in memory.conn.execute(
            "SELECT entity_id FROM event_entities WHERE event_id = ?", (e["id"],))}
        assert ilse in linked
        assert {r[1] for r in new if r[0] == "Mirela"} <= {"fictional_character"}
        assert memory.glossary_candidates() == []
        assert memory.verify() == []


def test_scan_spreads_through_a_novels_names_but_not_to_real_people():
    def msg(i: int, text: str) -> Message:
        return Message("chat", f"m{i}", text, TS, speaker="Nadia", role="user")

    messages = [msg(1, "The protagonist takes shape: Ilse Marrow, who lives in Greywick."),
                msg(2, "New Year's Eve in Greywick: Ilse writes to Tobias."),
                msg(3, "Ilse says no to Crane; I have never said no to Greg."),
                msg(4, "Greg gave me a project at work again, and Priya helped."),
                msg(5, "On Sunday I told Priya about the novel.")]
    found = fiction.scan(messages, fiction={}, real=set())
    assert {"Ilse Marrow", "Greywick", "Ilse", "Tobias", "Crane"} <= set(found)
    assert not {"Greg", "Priya", "Nadia"} & set(found)
    assert found["Greywick"] == "place"
    # the same input proposes the same names (a rerun after a crash converges)
    assert fiction.scan(messages, fiction={}, real=set()) == found
    # a name the memory knows as real, or a rejected one, is never proposed
    assert "Tobias" not in fiction.scan(messages, fiction={}, real={"tobias"})
    assert "Crane" not in fiction.scan(messages, fiction={}, real=set(), rejected={"crane"})


def test_erasing_an_observation_leaves_no_candidate_evidence(memory, tmp_path):
    from core.trust.forget import forget

    memory.import_files(write_chat(tmp_path / "c.jsonl", NOVEL_CHAT), me="Nadia")
    obs = memory.conn.execute("SELECT id FROM observations WHERE source_id = 'm1'").fetchone()[0]
    forget(memory, f"observation:{obs}")
    assert memory.conn.execute("SELECT COUNT(*) FROM evidence WHERE observation_id = ?",
                               (obs,)).fetchone()[0] == 0
    assert memory.verify() == []
