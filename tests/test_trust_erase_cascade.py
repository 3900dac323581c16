"""Erasing everything about a person (`forget entity:X --cascade`): the preview lists what goes
and why, unticked items stay, the erasure is one journal row, the chain still verifies, and the
person's names are in no byte of the file, its -wal, the journal export or the HTML export.
Bytes of a file SQLite holds are read from another process, never from this one."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import PulseError
from core.memory import Memory
from tests.bytes_check import CHAT, hits_in_files, sqlite_files

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def mem(demo_db: Path, tmp_path: Path):
    """The demo memory plus a chat naming Tom, a correction, a glossary term and a merge
    proposal about him."""
    path = tmp_path / "m.db"
    shutil.copy(demo_db, path)
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT), encoding="utf-8")
    memory = Memory.open(path)
    memory.import_files([chat])
    memory.correct(withdrawn=["Tom moved back"], replacement=["Tom lives abroad"],
                   note="Tom Reyes lives in Lisbon now")
    memory.add_glossary_term("Tom Reyes", note="also a name in her first draft")
    tom = memory.conn.execute("SELECT id FROM entities WHERE key = 'p_tom'").fetchone()[0]
    dana = memory.conn.execute("SELECT id FROM entities WHERE key = 'p_dana'").fetchone()[0]
    from core.store.commands import execute  # a proposal as the importer would write it

    execute(memory.conn, actor="import", op="merge.propose", subject=f"entity:{tom}",
            changes=[{"t": "merge_proposals", "a": "insert", "row": {
                "id": 1, "keep_entity": dana, "merge_entity": tom, "similarity": 0.71,
                "status": "pending", "reason": "Tom Reyes ~ Dana"}}])
    yield memory
    memory.close()


def test_preview_lists_everything_about_a_person(mem: Memory) -> None:
    before = mem.digest()
    out = mem.forget_preview("entity:Tom Reyes", cascade=True)
    assert mem.digest() == before                     # a preview writes nothing
    kinds = out["counts"]
    # relations: the demo's "ex partner of", and the chat's "mentions" ("Tom called again …"
    # opens a sentence, and the memory knows Tom: the importer links him)
    assert kinds["entity"] == 1 and kinds["fact"] == 1 and kinds["relation"] == 2
    assert kinds["glossary"] == 1 and kinds["correction"] == 1 and kinds["merge_proposal"] == 1
    assert kinds["event"] >= 15 and kinds["observation"] >= 15
    by_ref = {i["ref"]: i for i in out["items"]}
    root = [i for i in out["items"] if i["root"]]
    assert [i["label"] for i in root] == ["Tom Reyes (person)"]
    # the chat's event naming Tom goes, the one about Dana stays
    titles = [i["label"] for i in out["items"] if i["kind"] == "event"]
    assert any("TOMSECRET" in t for t in titles)
    assert not any("HARBOURWALK" in t for t in titles)
    reasons = {i["reason"] for i in by_ref.values()}
    assert {"linked to Tom Reyes", "a fact about Tom Reyes"} <= reasons
    assert out["kept_mentions"] == []                  # nothing left names him
    assert out["rows"]["event_embeddings"] == kinds["event"]
    assert out["names"][0] == "Tom Reyes" and "my ex-husband" in out["names"]


def test_cascade_erasure_leaves_no_byte(mem: Memory, tmp_path: Path) -> None:
    path = mem.path
    # what the companion recalled about him, and a question that names him
    mem.retrieve("Tom asks for a separation", top_k=3, now="2026-11-01T12:00:00Z",
                 log="companion")
    mem.log_recall("recall", "companion", query="is Tom Reyes still in Lisbon",
                   output={"results": []})
    mem.retrieve("running club", top_k=2, now="2026-11-01T12:00:00Z", log="companion")
    assert mem.forget_preview("entity:p_tom", cascade=True)["recall_records"] == 2
    assert hits_in_files(sqlite_files(path))           # he is there before
    head = mem.stats()["journal_head"]
    out = mem.forget("entity:p_tom", cascade=True)
    assert out["journal_seq"] == head + 1              # ONE journaled erasure
    assert out["vacuumed"] and out["wal_truncated"] and out["recall_records_changed"] == 2
    assert len(mem.recalls()) == 3                     # the records stay, without him
    assert mem.stats()["journal_head"] == head + 1
    tomb = mem.conn.execute("SELECT op, payload FROM journal WHERE seq = ?",
                            (out["journal_seq"],)).fetchone()
    assert tomb["op"] == "forget" and "Tom" not in tomb["payload"]
    assert mem.verify() == []
    # the file and its -wal, with the memory still open
    assert hits_in_files(sqlite_files(path)) == {}
    # every derived place: FTS, vectors, emotions
    fts = mem.conn.execute("SELECT COUNT(*) FROM events_fts WHERE events_fts MATCH 'Tom'")
    assert fts.fetchone()[0] == 0
    orphans = mem.conn.execute("SELECT COUNT(*) FROM event_embeddings WHERE event_id NOT IN"
                               " (SELECT id FROM events)").fetchone()[0]
    assert orphans == 0
    assert mem.conn.execute("SELECT COUNT(*) FROM glossary").fetchone()[0] == 0
    assert mem.conn.execute("SELECT COUNT(*) FROM corrections").fetchone()[0] == 0
    assert mem.conn.execute("SELECT COUNT(*) FROM merge_proposals").fetchone()[0] == 0
    # what was not about him stays
    assert mem.conn.execute("SELECT COUNT(*) FROM events WHERE description LIKE '%HARBOURWALK%'"
                            ).fetchone()[0] == 1
    assert mem.conn.execute("SELECT COUNT(*) FROM entities WHERE key = 'p_dana'").fetchone()[0]
    # later exports carry nothing either, and the journal rebuilds what is left
    journal_out = tmp_path / "journal.jsonl"
    mem.export_journal(journal_out)
    html_out = tmp_path / "viewer.html"
    mem.export_html(html_out)
    assert hits_in_files([journal_out, html_out]) == {}
    Memory.replay(journal_out, tmp_path / "replayed.db")
    with Memory.open(tmp_path / "replayed.db") as rebuilt:
        assert rebuilt.digest() == mem.digest()
        assert rebuilt.verify() == []
    # an erasure is final: undo cannot reach past it
    with pytest.raises(PulseError, match="erasure"):
        mem.undo(out["journal_seq"])


def test_unticked_items_stay(mem: Memory) -> None:
    full = mem.forget_preview("entity:p_tom", cascade=True)
    brightline = next(i for i in full["items"] if "Brightline sends" in i["label"])
    obs = mem.event(brightline["id"])["source_observation"]
    keep = [brightline["ref"], f"observation:{obs}"]
    preview = mem.forget_preview("entity:p_tom", cascade=True, keep=keep)
    refs = {i["ref"] for i in preview["items"]}
    assert not refs & set(keep)
    assert preview["counts"]["event"] == full["counts"]["event"] - 1
    # what stays and still names him is said before anything is erased
    assert {m["ref"] for m in preview["kept_mentions"]} >= set(keep)
    out = mem.forget("entity:p_tom", cascade=True, keep=keep)
    assert out["items"]["event"] == preview["counts"]["event"]
    kept = mem.event(brightline["id"])
    assert kept["title"].startswith("Brightline sends") and kept["source_observation"] == obs
    assert mem.verify() == []


def test_keeping_an_event_clears_the_pointer_to_an_erased_observation(mem: Memory) -> None:
    full = mem.forget_preview("entity:p_tom", cascade=True)
    event = next(i for i in full["items"] if "Brightline sends" in i["label"])
    mem.forget("entity:p_tom", cascade=True, keep=[event["ref"]])
    assert mem.event(event["id"])["source_observation"] is None
    assert mem.verify() == []


def test_bad_requests_change_nothing(mem: Memory) -> None:
    before = mem.digest()
    for refs, kwargs, message in (
            ("event:e010", {"cascade": True}, "cascade"),
            ("entity:p_tom", {"cascade": True, "keep": ["entity:8"]}, "cannot also be kept"),
            ("entity:p_tom", {"keep": ["event:x"]}, "numeric id"),
            # a --keep that names nothing the erasure reaches (a typo) is not passed over:
            # what the person meant to keep would be erased, irreversibly
            ("entity:p_tom", {"cascade": True, "keep": ["event:99999"]}, "not among"),
            ("event:e002", {"keep": ["fact:1"]}, "not among"),
            ("entity:Nobody At All", {}, "no such entity"),
            ("person:3", {}, "KIND:ID")):
        with pytest.raises(PulseError, match=message):
            mem.forget_preview(refs, **kwargs)
        with pytest.raises(PulseError, match=message):
            mem.forget(refs, **kwargs)
    assert mem.digest() == before and mem.verify() == []


def test_several_items_in_one_erasure(mem: Memory) -> None:
    fact = mem.conn.execute("SELECT id FROM facts ORDER BY id LIMIT 1").fetchone()[0]
    relation = mem.conn.execute("SELECT id FROM relations ORDER BY id LIMIT 1").fetchone()[0]
    head = mem.stats()["journal_head"]
    out = mem.forget(["event:e002", f"fact:{fact}", f"relation:{relation}"])
    assert out["journal_seq"] == head + 1
    assert out["rows"]["events"] == 1 and out["rows"]["facts"] == 1
    assert out["rows"]["relations"] == 1
    assert mem.verify() == []


def pulse(path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core.cli", "--db", str(path), *args],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_cli_cascade_dry_run_then_erase(mem: Memory) -> None:
    path = mem.path
    digest = mem.digest()
    mem.close()
    dry = pulse(path, "forget", "entity:Tom Reyes", "--cascade", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "would erase entity:8 and everything about it" in dry.stdout
    assert "Tom Reyes (person)" in dry.stdout and "nothing was changed" in dry.stdout
    as_json = json.loads(pulse(path, "--json", "forget", "entity:p_tom", "--cascade",
                               "--dry-run").stdout)
    assert as_json["counts"]["entity"] == 1 and as_json["kept_mentions"] == []
    with Memory.open(path) as again:
        assert again.digest() == digest                # a dry run writes nothing
    bad = pulse(path, "forget", "event:e010", "--cascade")
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "cascade" in bad.stderr
    done = pulse(path, "forget", "entity:p_tom", "--cascade")
    assert done.returncode == 0, done.stderr
    assert re.match(r"forgot entity:8: \d+ rows erased", done.stdout)
    assert pulse(path, "verify").returncode == 0
    assert hits_in_files(sqlite_files(path)) == {}


@pytest.mark.parametrize("stored_form", ["NFD", "NFC"])
def test_a_name_written_decomposed_is_the_same_name(tmp_path: Path, stored_form: str) -> None:
    """macOS and some keyboards write 'ë' as 'e' + a combining diaeresis: the same name, other
    bytes. Everything about Zoë must take the message that names her that way, and a redact
    must rewrite it."""
    import unicodedata

    said = unicodedata.normalize(stored_form, "Zoë")
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([
        {"id": "z1", "speaker": "Zoë", "ts": "2026-10-20T09:00:00Z",
         "text": "I am moving to Tallinn next month."},
        {"id": "z2", "speaker": "Nadia", "ts": "2026-10-21T09:00:00Z",
         "text": f"I cried when {said} said she would leave me for Orlaith."}]),
        encoding="utf-8")
    for step in ("cascade", "redact"):
        path = tmp_path / f"{step}.db"
        with Memory.open(path, create=True) as memory:
            memory.import_files([chat])
            if step == "cascade":
                memory.forget("entity:Zoë", cascade=True)
            else:
                memory.set_policy("entity:Zoë", "redact", label="[friend]")
        if step == "cascade":
            assert hits_in_files(sqlite_files(path), (said.encode(), b"for Orlaith")) == {}
        else:   # only the owner's view keeps her name: the entity row and its journal insert
            left = hits_in_files(sqlite_files(path), (said.encode(),))
            assert sum(left.values()) <= 2, left
