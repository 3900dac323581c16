"""Speaker roles (issue 12, item 4): the chat format's `role`, `--me`, the assistant's turns as
context (never events, never an entity), a short answer keeping its question as evidence."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import ValidationError
from core.memory import Memory

TS = "2024-03-01T20:00:00Z"


def write_chat(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def companion_chat(path: Path, *, roles: bool) -> Path:
    rows = [
        ("c1", "Companion", "assistant", "Good evening, Nadia! How was your day?"),
        ("c2", "Nadia", "user", "My sister Katya called and we argued about Mama again."),
        ("c3", "Companion", "assistant", "That sounds hard. How did that feel?"),
        ("c4", "Nadia", "user", "Awful."),
        ("c5", "Companion", "assistant", "I'm here with you. Tell me more about Katya."),
        ("c6", "Nadia", "user", "Thanks, Companion! Tomorrow I'm running with Dana at the park."),
    ]
    out = []
    for ident, speaker, role, text in rows:
        row = {"id": ident, "speaker": speaker, "text": text, "ts": TS}
        if roles:
            row["role"] = role
        out.append(row)
    return write_chat(path, out)


def entity_names(memory) -> dict[str, tuple[str, int]]:
    return {r[0]: (r[1], r[2]) for r in memory.conn.execute(
        "SELECT canonical_name, kind, is_self FROM entities")}


def assistant_observations(memory) -> set[int]:
    return {r[0] for r in memory.conn.execute(
        "SELECT id FROM observations WHERE json_extract(metadata, '$.role') = 'assistant'")}


@pytest.mark.parametrize("roles", [True, False], ids=["role field", "speaker named Companion"])
def test_the_import_of_a_chat_with_an_assistant_makes_no_assistant_entity(memory, tmp_path,
                                                                         roles):
    summary = memory.import_files(companion_chat(tmp_path / "c.jsonl", roles=roles), me="Nadia")
    assert summary["total"]["observations"] == {"new": 6, "duplicate": 0, "versioned": 0,
                                                "assistant_turns": 3}
    names = entity_names(memory)
    assert "Companion" not in names
    assert not [n for n, (kind, _) in names.items() if kind == "ai_entity"]
    assert names["Nadia"] == ("person", 1)                # the person, marked as such
    assert names["Katya"][0] == "person" and names["Dana"][0] == "person"
    # the assistant's turns are stored (traceable, erasable) but none is an event
    asked = assistant_observations(memory)
    assert len(asked) == 3
    sourced = {r[0] for r in memory.conn.execute("SELECT source_observation FROM events")}
    assert sourced.isdisjoint(asked)
    titles = [r[0] for r in memory.conn.execute("SELECT title FROM events")]
    assert titles and all(t.startswith("Nadia: ") for t in titles)
    hits = memory.retrieve("feeling abandoned", scorer="hybrid", top_k=20)["results"]
    assert not any("Companion:" in r["title"] for r in hits)
    assert memory.verify() == []


def test_a_short_answer_keeps_the_question_as_evidence(memory, tmp_path):
    memory.import_files(companion_chat(tmp_path / "c.jsonl", roles=True), me="Nadia")
    (event,) = memory.conn.execute(
        "SELECT id, description FROM events WHERE title = 'Nadia: Awful.'").fetchall()
    assert "How did that feel?" in event["description"]
    evidence = {r[0] for r in memory.conn.execute(
        "SELECT o.source_id FROM evidence v JOIN observations o ON o.id = v.observation_id"
        " WHERE v.row_kind = 'event' AND v.row_id = ?", (event["id"],))}
    assert evidence == {"c3", "c4"}
    # a long turn stands on its own: only its own message is evidence
    (long_event,) = memory.conn.execute(
        "SELECT id, description FROM events WHERE description LIKE '%argued%'").fetchall()
    assert "in reply to" not in long_event["description"]
    out = memory.retrieve("Awful", scorer="hybrid", top_k=5)["results"]
    top = next(r for r in out if r["id"] == event["id"])
    assert {s["source_id"] for s in top["sources"]} >= {"c4"}


def test_chatgpt_user_turns_are_the_memory_person(demo_db, tmp_path):
    """Without --me an export's user is the memory's own person (the entity marked is_self),
    and its assistant is nobody."""
    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps([{
        "id": "conv-a", "title": "Evening", "create_time": 1700000000.0, "current_node": "n2",
        "mapping": {
            "n1": {"id": "n1", "parent": None, "children": ["n2"], "message": {
                "id": "m1", "author": {"role": "user"}, "create_time": 1700000000.0,
                "content": {"parts": ["I ran ten kilometres with Dana this morning!"]}}},
            "n2": {"id": "n2", "parent": "n1", "children": [], "message": {
                "id": "m2", "author": {"role": "assistant"}, "create_time": 1700000010.0,
                "content": {"parts": ["That's wonderful, Nadia! How do you feel?"]}}}}}]))
    with Memory.open(path) as memory:
        self_id, before = memory.conn.execute(
            "SELECT id, (SELECT COUNT(*) FROM entities) FROM entities WHERE is_self = 1"
        ).fetchone()
        memory.import_files(export)
        (event,) = memory.conn.execute(
            "SELECT e.id, e.title FROM events e JOIN observations o ON o.id ="
            " e.source_observation WHERE o.source_kind = 'chatgpt'").fetchall()
        assert event["title"].startswith("Nadia Volkova: ")
        linked = {r[0] for r in memory.conn.execute(
            "SELECT entity_id FROM event_entities WHERE event_id = ?", (event["id"],))}
        assert self_id in linked
        names = {r[0] for r in memory.conn.execute("SELECT canonical_name FROM entities")}
        assert not names & {"ChatGPT", "User", "Nadia"}
        assert memory.conn.execute("SELECT COUNT(*) FROM entities").fetchone()[0] == before


def test_me_that_is_not_the_memory_person_is_refused_and_nothing_is_written(demo_db, tmp_path):
    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    chat = companion_chat(tmp_path / "c.jsonl", roles=True)
    with Memory.open(path) as memory:
        digest = memory.digest()
        with pytest.raises(ValidationError, match="this memory's person is 'Nadia Volkova'"):
            memory.import_files(chat, me="Dana")
        # a user whose name is not the person's, and no --me: refused too
        other = write_chat(tmp_path / "o.jsonl", [
            {"id": "x1", "speaker": "Caroline", "role": "user", "text": "Hi!", "ts": TS}])
        with pytest.raises(ValidationError, match="say who the user is with --me"):
            memory.import_files(other)
        assert memory.digest() == digest
        memory.import_files(chat, me="Nadia")                 # one of her names: fine
        assert memory.conn.execute("SELECT COUNT(*) FROM entities WHERE is_self = 1"
                                   ).fetchone()[0] == 1


def test_me_marks_an_earlier_speaker_entity_as_the_person(memory, tmp_path):
    """A chat imported before --me existed made 'Dana' a plain person; naming her with --me
    marks that same entity as the memory's person instead of making a second one."""
    write_chat(tmp_path / "a.jsonl", [
        {"id": "a1", "speaker": "Dana", "text": "I adopted a dog named Rex.", "ts": TS}])
    memory.import_files(tmp_path / "a.jsonl")
    assert entity_names(memory)["Dana"] == ("person", 0)
    write_chat(tmp_path / "b.jsonl", [
        {"id": "b1", "speaker": "Dana", "text": "Rex chewed my shoes.", "ts": TS}])
    memory.import_files(tmp_path / "b.jsonl", me="Dana")
    assert entity_names(memory)["Dana"] == ("person", 1)
    assert memory.conn.execute("SELECT COUNT(*) FROM entities WHERE canonical_name = 'Dana'"
                               ).fetchone()[0] == 1
    assert memory.verify() == []


@pytest.mark.parametrize("row, needle", [
    ({"id": "1", "speaker": "Nadia", "role": "boss", "text": "x"}, "field 'role' must be one of"),
    ({"id": "1", "speaker": "", "role": "user", "text": "x"}, "field 'speaker'"),
    ({"id": "1", "role": 3, "text": "x"}, "field 'role'"),
])
def test_a_bad_role_is_one_clear_error(memory, tmp_path, row, needle):
    path = write_chat(tmp_path / "bad.jsonl", [row])
    with pytest.raises(ValidationError, match=needle) as info:
        memory.import_files(path)
    assert str(path) in str(info.value) and "line 1" in str(info.value)
    assert memory.conn.execute("SELECT COUNT(*) FROM observations").fetchone()[0] == 0


def test_a_role_without_a_speaker_and_the_older_name_in_role_form(memory, tmp_path):
    path = write_chat(tmp_path / "c.jsonl", [
        {"role": "user", "content": "I started pottery classes with Priya.", "timestamp": TS},
        {"role": "assistant", "content": "How lovely! What are you making?"},
        {"role": "Melanie", "content": "My sister Anna moved to Boston."}])   # older form
    memory.import_files(path, me="Dana")
    names = entity_names(memory)
    assert names["Dana"] == ("person", 1) and names["Melanie"] == ("person", 0)
    assert "Assistant" not in names and "Priya" in names
    assert len(assistant_observations(memory)) == 1


def test_cli_import_me(tmp_path):
    db = tmp_path / "m.db"
    chat = companion_chat(tmp_path / "c.jsonl", roles=False)
    run = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), "import",
                          str(chat), "--me", "Nadia", "--json"], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["total"]["observations"]["assistant_turns"] == 3
    bad = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), "import",
                          str(chat), "--me", "Dana"], capture_output=True, text=True,
                         timeout=300)
    assert bad.returncode == 1 and len(bad.stderr.strip().splitlines()) == 1
    assert "--me 'Dana'" in bad.stderr and "Traceback" not in bad.stderr
