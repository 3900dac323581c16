"""Importers (INGEST §1): each format's happy path, re-import is a no-op, a changed message is a
new version, a malformed file gives one error naming the file and line/field and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import ValidationError
from core.ingest import detect_format, ingest_files

TS = "2023-05-08T13:56:00Z"


def journal_count(memory) -> int:
    return int(memory.conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0])


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def chat_rows() -> list[dict]:
    return [
        {"id": "D1:1", "speaker": "Caroline", "text": "Hey Mel! How have you been?", "ts": TS},
        {"id": "D1:2", "speaker": "Melanie",
         "text": "My sister Anna moved to Boston last week.", "ts": TS},
        {"id": "D1:3", "speaker": "Caroline",
         "text": "I went to a support group yesterday and it was so powerful.", "ts": TS},
    ]


def chatgpt_export() -> list[dict]:
    return [{
        "id": "conv-a", "title": "Garden", "create_time": 1683554160.0, "current_node": "n3",
        "mapping": {
            "root": {"id": "root", "message": None, "parent": None, "children": ["n1"]},
            "n1": {"id": "n1", "parent": "root", "children": ["n2"], "message": {
                "id": "m1", "author": {"role": "user"}, "create_time": 1683554160.0,
                "content": {"content_type": "text",
                            "parts": ["My dad was diagnosed with cancer last month."]}}},
            "n2": {"id": "n2", "parent": "n1", "children": ["n3"], "message": {
                "id": "m2", "author": {"role": "assistant"}, "create_time": 1683554170.0,
                "content": {"content_type": "text", "parts": ["I'm so sorry to hear that."]}}},
            "n3": {"id": "n3", "parent": "n2", "children": [], "message": {
                "id": "m3", "author": {"role": "user"}, "create_time": 1683554180.0,
                "content": {"content_type": "text", "parts": ["I planted tomatoes today."]}}},
        }}]


def claude_export() -> list[dict]:
    return [{"uuid": "c-1", "name": "Chat", "created_at": TS, "chat_messages": [
        {"uuid": "u1", "sender": "human", "created_at": TS,
         "text": "I got married to Sam in June!"},
        {"uuid": "u2", "sender": "assistant", "created_at": TS,
         "text": "Congratulations!", "content": [{"type": "text", "text": "Congratulations!"}]},
    ]}]


def sources(memory) -> set[tuple[str, str]]:
    return {(r[0], r[1]) for r in memory.conn.execute(
        "SELECT source_kind, source_id FROM observations")}


def make(tmp_path: Path, fmt: str) -> Path:
    if fmt == "chat":
        return write_jsonl(tmp_path / "chat.jsonl", chat_rows())
    if fmt == "chatgpt":
        p = tmp_path / "conversations.json"
        p.write_text(json.dumps(chatgpt_export()), encoding="utf-8")
        return p
    if fmt == "claude":
        p = tmp_path / "claude.json"
        p.write_text(json.dumps(claude_export()), encoding="utf-8")
        return p
    if fmt == "text":
        p = tmp_path / "notes.md"
        p.write_text("# 2024-03-01\n\nMy brother Tom graduated today.\n\n"
                     "We had dinner at Luigi's.\n", encoding="utf-8")
        return p
    if fmt == "obsidian":
        root = tmp_path / "novel"
        (root / "Characters").mkdir(parents=True)
        (root / "Chapters").mkdir()
        (root / "Characters" / "Lyra.md").write_text(
            "---\ntype: character\naliases: [Lyra Vale]\n---\nA cartographer of dreams.\n")
        (root / "Chapters" / "Chapter 1.md").write_text(
            "# The Map\n\nLyra unrolled the map at dawn.\n\nLyra walked on. " + "word " * 300)
        (root / "ideas.md").write_text("I want the ending to feel earned.\n")
        return root
    raise AssertionError(fmt)


@pytest.mark.parametrize("fmt", ["chat", "chatgpt", "claude", "text", "obsidian"])
def test_happy_path_and_reimport(memory, tmp_path, fmt):
    path = make(tmp_path, fmt)
    assert detect_format(path) == fmt
    summary = ingest_files(memory, [path])
    entry = summary["files"][0]
    assert entry["format"] == fmt
    assert entry["observations"]["new"] >= 2
    assert memory.verify() == []
    events = memory.conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    assert events >= 1
    # the assistant's turns are stored, and none of them became an event
    assistant = memory.conn.execute(
        "SELECT COUNT(*) FROM events e JOIN observations o ON o.id = e.source_observation"
        " WHERE json_extract(o.metadata, '$.role') = 'assistant'").fetchone()[0]
    assert assistant == 0
    before, seq = memory.digest(), journal_count(memory)
    again = ingest_files(memory, [path])
    assert again["total"]["observations"]["new"] == 0
    assert again["total"]["observations"]["duplicate"] == entry["observations"]["new"]
    assert memory.digest() == before and journal_count(memory) == seq


def test_chat_ids_are_source_ids_and_changed_message_is_a_version(memory, tmp_path):
    rows = chat_rows()
    path = write_jsonl(tmp_path / "chat.jsonl", rows)
    ingest_files(memory, [path])
    assert ("chat", "D1:2") in sources(memory)
    rows[1]["text"] = "My sister Anna moved to Chicago last week."
    write_jsonl(path, rows)
    summary = ingest_files(memory, [path])
    assert summary["total"]["observations"] == {"new": 0, "duplicate": 2, "versioned": 1,
                                                "assistant_turns": 0}
    versions = [r[0] for r in memory.conn.execute(
        "SELECT version FROM observations WHERE source_id = 'D1:2' ORDER BY version")]
    assert versions == [1, 2]
    # what the old version said is no longer ranked on its own, but stays traceable
    by_version = {}
    for version, event_id, absorbed in memory.conn.execute(
            "SELECT o.version, e.id, e.absorbed_into FROM events e JOIN observations o"
            " ON o.id = e.source_observation WHERE o.source_id = 'D1:2' ORDER BY e.id"):
        by_version.setdefault(version, []).append((event_id, absorbed))
    first_new = by_version[2][0][0]
    assert all(absorbed == first_new for _, absorbed in by_version[1])
    assert all(absorbed is None for _, absorbed in by_version[2])
    assert summary["total"]["events"]["superseded"] == len(by_version[1])
    hits = memory.retrieve("Anna moved", scorer="hybrid", top_k=10)["results"]
    assert {r["id"] for r in hits}.isdisjoint({e for e, _ in by_version[1]})
    assert memory.verify() == []


def test_chat_accepts_role_content_timestamp_and_conversation(memory, tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([
        {"role": "user", "content": "I adopted a puppy named Biscuit!", "timestamp": TS,
         "conversation": "c9"},
        {"role": "assistant", "content": "How lovely!", "conversation": "c9"}]))
    summary = ingest_files(memory, [path], fmt="chat")
    assert summary["total"]["observations"]["new"] == 2
    kinds = sources(memory)
    assert ("chat:c9", "c9#1") in kinds and ("chat:c9", "c9#2") in kinds


def test_chatgpt_follows_the_shown_thread(memory, tmp_path):
    path = make(tmp_path, "chatgpt")
    ingest_files(memory, [path])
    assert sources(memory) == {("chatgpt", "m1"), ("chatgpt", "m2"), ("chatgpt", "m3")}
    ts = memory.conn.execute("SELECT observed_at FROM observations WHERE source_id = 'm1'"
                             ).fetchone()[0]
    assert ts == "2023-05-08T13:56:00Z"


def test_obsidian_chapter_is_light_and_full_text_on_demand(memory, tmp_path):
    from core.ingest import list_glossary, load_full_text

    root = make(tmp_path, "obsidian")
    ingest_files(memory, [root])
    row = memory.conn.execute("SELECT id, content_text FROM observations WHERE source_id LIKE"
                              " 'Chapters%'").fetchone()
    assert "Chapter: The Map" in row[1] and "Main characters: Lyra" in row[1]
    assert "word word" not in row[1]  # light: the body stays on disk
    assert load_full_text(memory, row[0]).count("word") == 300
    assert {g["term"] for g in list_glossary(memory)} >= {"Lyra", "Lyra Vale"}
    domains = {r[0] for r in memory.conn.execute(
        "SELECT e.domain FROM events e JOIN observations o ON o.id = e.source_observation"
        " WHERE o.source_id LIKE 'Chapters%'")}
    assert domains == {"fiction_content"}
    kinds = {r[0] for r in memory.conn.execute(
        "SELECT kind FROM entities WHERE canonical_name = 'Lyra'")}
    assert kinds == {"fictional_character"}


BAD = {
    "chat-line": ("chat.jsonl", f'{{"id": "1", "speaker": "A", "text": "ok", "ts": "{TS}"}}\n'
                  '{"id": "2", "speaker": "B", "text": "broken\n', "line 2"),
    "chat-field": ("chat.jsonl", f'{{"id": "1", "speaker": "A", "text": "ok", "ts": "{TS}"}}\n'
                   '{"id": "2", "speaker": "B", "text": 5}\n', "'text'"),
    "chat-unknown": ("chat.jsonl", '{"id": "1", "speaker": "A", "txt": "ok"}\n', "'txt'"),
    "chat-ts": ("chat.jsonl", '{"id": "1", "speaker": "A", "text": "ok", "ts": "May 5"}\n',
                "'ts'"),
    "chatgpt": ("conversations.json", json.dumps([{"mapping": {"a": {
        "message": {"author": {"role": 3}, "content": {"parts": ["x"]}}, "parent": None,
        "children": []}}, "current_node": "a"}]), "author.role"),
    "claude": ("claude.json", json.dumps([{"uuid": "x", "chat_messages": [
        {"uuid": "1", "sender": "human", "text": "fine", "created_at": TS},
        {"uuid": "2", "sender": "robot", "text": "x"}]}]), "chat_messages[1]"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_malformed_file_names_file_and_place_and_writes_nothing(memory, tmp_path, case):
    good = write_jsonl(tmp_path / "good.jsonl", chat_rows())
    name, text, where = BAD[case]
    bad = tmp_path / name
    bad.write_text(text, encoding="utf-8")
    before, seq = memory.digest(), journal_count(memory)
    with pytest.raises(ValidationError) as err:
        ingest_files(memory, [good, bad])  # the good file first: still nothing written
    message = str(err.value)
    assert str(bad) in message and where in message
    assert "\n" not in message
    assert memory.digest() == before and journal_count(memory) == seq


def test_cli_import_prints_summary(db_path, tmp_path, capsys):
    from core.cli import main

    path = write_jsonl(tmp_path / "chat.jsonl", chat_rows())
    assert main(["--db", str(db_path), "import", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["total"]["observations"]["new"] == 3
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n")
    assert main(["--db", str(db_path), "import", str(bad)]) == 1
    err = capsys.readouterr().err
    assert str(bad) in err and "line 1" in err


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
@pytest.mark.parametrize("fmt", ["chat", "chatgpt", "claude", "text"])
def test_a_file_with_a_byte_order_mark_imports_like_plain_utf8(memory, tmp_path, fmt, encoding):
    """Windows tools (Notepad, PowerShell) write a BOM, UTF-16 too: the same file, same result."""
    plain = make(tmp_path, fmt)
    marked = tmp_path / f"marked{plain.suffix}"
    marked.write_text(plain.read_text(encoding="utf-8"), encoding=encoding)
    assert detect_format(marked) == fmt
    ingest_files(memory, [marked])
    texts = [r[0] for r in memory.conn.execute("SELECT content_text FROM observations")]
    assert texts and not any(t.startswith("\ufeff") for t in texts)
    again = ingest_files(memory, [plain])  # the same messages: kept once
    assert again["total"]["observations"]["new"] == 0 or fmt == "text"


@pytest.mark.parametrize("content", ['"just a string"', "42", "null", "plain words, not JSON"])
def test_a_json_file_that_holds_no_messages_is_refused(memory, tmp_path, content):
    bad = tmp_path / "export.json"
    bad.write_text(content, encoding="utf-8")
    before = memory.digest()
    with pytest.raises(ValidationError) as err:
        ingest_files(memory, [bad])
    assert str(bad) in str(err.value) and "line 1" in str(err.value)
    assert memory.digest() == before


@pytest.mark.parametrize("ts", ["9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00+05:00"])
def test_a_timestamp_past_the_calendar_is_one_clear_error(memory, tmp_path, ts):
    bad = write_jsonl(tmp_path / "chat.jsonl", [{"id": "1", "speaker": "A", "text": "hi",
                                                 "ts": ts}])
    with pytest.raises(ValidationError) as err:
        ingest_files(memory, [bad])
    assert str(bad) in str(err.value) and "'ts'" in str(err.value)


def test_a_folder_of_plain_text_notes_imports_every_note(memory, tmp_path):
    folder = tmp_path / "journal"
    folder.mkdir()
    (folder / "2024-03-01.txt").write_text("My cousin Lena visited Oslo.\n", encoding="utf-8")
    (folder / "ideas.md").write_text("I want to learn the cello.\n", encoding="utf-8")
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")  # an attachment: skipped
    assert detect_format(folder) == "obsidian"
    summary = ingest_files(memory, [folder])
    assert summary["total"]["observations"]["new"] == 2
    texts = {r[0] for r in memory.conn.execute("SELECT content_text FROM observations")}
    assert texts == {"My cousin Lena visited Oslo.", "I want to learn the cello."}


def test_a_zip_export_is_refused_with_what_to_do(memory, tmp_path):
    import zipfile

    archive = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("conversations.json", json.dumps(chatgpt_export()))
    before = memory.digest()
    with pytest.raises(ValidationError) as err:
        ingest_files(memory, [archive])
    message = str(err.value)
    assert str(archive) in message and "ZIP" in message and "unpack" in message
    assert memory.digest() == before


def test_the_archive_check_never_opens_the_memory_held_here(memory, db_path):
    # `pulse --db m.db import m.db`: a plain open() of the memory to read its first bytes
    # would drop this process's SQLite locks on it when closed; refused before any open
    from core.errors import PulseError
    from core.ingest.formats import _refuse_archive

    with pytest.raises(PulseError, match="open in this program"):
        _refuse_archive(db_path)


def test_another_file_s_message_with_the_same_id_is_not_a_new_version(memory, tmp_path):
    """Two exports that each number their messages from 1: the second file's message 1 is
    not an edit of the first file's (it silently replaced it in ranking)."""
    (tmp_path / "march").mkdir()
    march = write_jsonl(tmp_path / "march" / "chat.jsonl", chat_rows())
    april = tmp_path / "april" / "chat.jsonl"
    april.parent.mkdir()
    other = [dict(r, text=f"April: {r['text']}") for r in chat_rows()]
    write_jsonl(april, other)
    ingest_files(memory, [march])
    before, seq = memory.digest(), journal_count(memory)
    with pytest.raises(ValidationError) as err:
        ingest_files(memory, [april])
    message = str(err.value)
    assert str(april) in message and "'D1:1'" in message and "conversation" in message
    assert memory.digest() == before and journal_count(memory) == seq
    with pytest.raises(ValidationError):   # both in one import: refused before writing
        ingest_files(memory, [tmp_path / "march" / "chat.jsonl", april])
    assert memory.digest() == before
    # the same file edited is still a new version of its message
    rows = chat_rows()
    rows[1]["text"] = "My sister Anna moved to Chicago last week."
    write_jsonl(march, rows)
    assert ingest_files(memory, [march])["total"]["observations"]["versioned"] == 1
