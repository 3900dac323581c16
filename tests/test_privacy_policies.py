"""Per-person policies and topic boundaries (issue 13 §2): enforced at import (offline and the
LLM path, pulse-corpus/1), at retrieval, in the brief and in MCP; tightening applies backwards,
journaled (no_capture through forget, redact and summary_only rewrite), and reaches the file's
bytes; bad input is one line and changes nothing; the demo's boundary is real."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import PulseError
from core.memory import Memory

ROOT = Path(__file__).resolve().parent.parent
NOW = "2026-11-01T12:00:00Z"

CORPUS = {"format": "pulse-corpus/1",
          "entities": [{"key": "me", "name": "Nadia", "kind": "person"},
                       {"key": "tom", "name": "Tom Reyes", "kind": "person",
                        "aliases": ["Tom"]},
                       {"key": "lena", "name": "Lena Frost", "kind": "person",
                        "aliases": ["Lena"]},
                       {"key": "mark", "name": "Mark Hale", "kind": "person",
                        "aliases": ["Mark"]},
                       {"key": "grief", "name": "the miscarriage", "kind": "safety_boundary",
                        "aliases": ["losing the baby"], "do_not_probe": True}],
          "events": [
              {"key": "e1", "title": "Tom shouted about the car keys",
               "description": "Tom Reyes said \"you never listen\" and slammed the door.",
               "ts": "2026-01-10T09:00:00Z", "entities": ["me", "tom"]},
              {"key": "e2", "title": "Coffee with Lena",
               "description": "Lena told me about her new job. The weather was grey.",
               "ts": "2026-02-10T09:00:00Z", "entities": ["me", "lena"]},
              {"key": "e3", "title": "Mark quoted at work",
               "description": "Mark said \"we ship on Friday\" at the standup.",
               "ts": "2026-03-10T09:00:00Z", "entities": ["me", "mark"]},
              {"key": "e4", "title": "The hospital in March",
               "description": "The scan showed no heartbeat. I went home and did not speak.",
               "ts": "2026-03-20T09:00:00Z", "entities": ["me", "grief"]},
              {"key": "e5", "title": "A calm walk", "description": "Sun on the river.",
               "ts": "2026-04-10T09:00:00Z", "entities": ["me"]}],
          "facts": [{"entity": "tom", "text": "Tom Reyes lives in Porto now."},
                    {"entity": "lena", "text": "Lena Frost works at the library."},
                    {"entity": "grief", "text": "Do not bring up the scan."}]}


@pytest.fixture
def mem(tmp_path: Path):
    with Memory.open(tmp_path / "m.db", create=True) as memory:
        memory.import_corpus(CORPUS)
        yield memory


def _bytes(memory: Memory) -> bytes:
    path = Path(memory.path)
    memory.close()
    out = b"".join(p.read_bytes() for p in path.parent.glob(f"{path.name}*") if p.is_file())
    return out


# -- boundaries ---------------------------------------------------------------------------------

def test_a_boundary_is_withheld_unless_the_question_names_it(mem: Memory) -> None:
    keys = [r["key"] for r in mem.retrieve("hospital scan heartbeat", now=NOW, top_k=5)
            ["results"]]
    assert "e4" not in keys
    out = mem.retrieve("the miscarriage at the hospital", now=NOW, top_k=5)
    assert out["results"][0]["key"] == "e4"
    out = mem.retrieve("hospital scan heartbeat", now=NOW, top_k=5)
    assert out["withheld"] == {"behind_boundary": 1} and len(out["results"]) == 4
    assert mem.withheld_events("") == {mem.resolve_event("e4")}
    assert mem.boundaries() == [{"id": mem.policy("grief")["id"], "name": "the miscarriage",
                                 "events": [mem.resolve_event("e4")]}]


def test_the_brief_states_the_boundary_and_hides_what_is_behind(mem: Memory) -> None:
    out = mem.brief(3000, now=NOW)
    text = out["text"]
    assert "BOUNDARIES\n- don't probe: the miscarriage" in text
    assert "heartbeat" not in text and "The hospital in March" not in text
    assert "Do not bring up the scan" not in text
    assert out["boundaries"] == ["the miscarriage"] and out["behind_boundaries"] == 1


def test_mcp_recall_and_get_event_respect_the_boundary(mem: Memory) -> None:
    from core.mcp_server import PulseTools, ToolError

    tools = PulseTools(mem)
    out = tools.call("recall", {"query": "scan heartbeat hospital", "top_k": 5})
    assert all("heartbeat" not in r["text"] for r in out["results"])
    with pytest.raises(ToolError) as err:
        tools.call("get_event", {"id": "e4"})
    assert "behind a boundary" in str(err.value) and "the miscarriage" in str(err.value)
    opened = tools.call("recall", {"query": "losing the baby", "top_k": 3})
    assert opened["results"][0]["key"] == "e4"


def test_why_and_storylines_respect_the_boundary(mem: Memory) -> None:
    """The scan (behind the boundary) caused the calm walk: why the walk names no cause, why
    the scan is refused to a companion, and a storyline over both shows no word of the scan."""
    from core.mcp_server import PulseTools, ToolError

    mem.link_events("e4", "e5")
    mem.link_events("e3", "e4")
    out = mem.why("e5", now=NOW)
    assert [c["key"] for c in out["causes"]] == ["e3"]    # e4 withheld; e3 kept, unlinked
    assert out["causes"][0]["led_to"] == [] and out["withheld"] == {"behind_boundary": 1}
    tools = PulseTools(mem)
    with pytest.raises(ToolError) as err:
        tools.call("why", {"event": "e4"})
    assert "behind a boundary" in str(err.value)
    answer = tools.call("why", {"query": "scan heartbeat hospital"})
    assert answer["event"] is None or answer["event"]["key"] != "e4"
    assert "did not speak" not in json.dumps(answer)
    stories = tools.call("recall", {"query": "calm walk river", "storylines": True,
                                    "top_k": 3})
    assert stories["storylines"] and "did not speak" not in json.dumps(stories)
    walk = next(s for s in stories["storylines"] if s["best"]["key"] == "e5")
    assert mem.resolve_event("e4") not in walk["members"]


def test_boundary_set_and_lifted_from_the_cli_journaled(tmp_path: Path, mem: Memory) -> None:
    path = mem.path
    mem.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = lambda *a: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "core.cli", "--db", str(path), "--json", *a],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    out = run("policy", "Lena", "--do-not-probe")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["after"]["do_not_probe"] is True
    with Memory.open(path) as memory:
        keys = [r["key"] for r in memory.retrieve("new job", now=NOW, top_k=5)["results"]]
        assert "e2" not in keys
        assert memory.history(1)[0]["op"] == "policy"
        memory.undo()
        keys = [r["key"] for r in memory.retrieve("new job", now=NOW, top_k=5)["results"]]
        assert "e2" in keys


def test_a_merge_never_lifts_a_boundary_or_a_policy(mem: Memory) -> None:
    # merging the boundary into a person moved its events out from behind it, silently
    mem.set_policy("tom", "redact", label="[ex-partner]")
    head = mem.stats()["journal_head"]
    for keep, gone, needle in (("me", "grief", "do_not_probe"), ("lena", "tom", "redact")):
        for attempt in (mem.merge_preview, mem.merge_entities):
            with pytest.raises(PulseError, match=needle):
                attempt(keep, gone)
    assert mem.stats()["journal_head"] == head
    assert "e4" not in [r["key"] for r in mem.retrieve("hospital scan heartbeat", now=NOW,
                                                       top_k=5)["results"]]
    # the other way round keeps the protection: allowed
    assert mem.merge_preview("grief", "lena")["gone"]["name"] == "Lena Frost"


def test_an_alias_split_out_keeps_the_boundary_and_the_policy(mem: Memory) -> None:
    # the new entity was made without them: what named the alias left the boundary
    mem.set_policy("tom", "redact", label="[ex-partner]")
    for source, alias in (("grief", "losing the baby"), ("tom", "Tom")):
        before = mem.policy(source)
        out = mem.split_alias(source, alias)
        after = mem.policy(out["new_entity"])
        assert (after["policy"], after["role_label"], after["do_not_probe"]) == \
            (before["policy"], before["role_label"], before["do_not_probe"])


# -- tightening backwards -----------------------------------------------------------------------

def test_redact_rewrites_the_stored_text_and_the_journal(mem: Memory) -> None:
    out = mem.set_policy("tom", "redact", label="[ex-partner]")
    assert out["applied_backwards"] and out["rewritten"]["events"] == 1
    detail = mem.event_detail("e1")["event"]
    assert detail["title"] == "[ex-partner] shouted about the car keys"
    assert "Tom" not in detail["description"]
    result = mem.retrieve("car keys shouted", now=NOW, top_k=1)["results"][0]
    assert "Tom" not in result["title"] + result["text"]
    assert mem.policy("tom")["name"] == "Tom Reyes"        # the owner's view keeps it
    assert mem.verify() == []
    with pytest.raises(PulseError):
        mem.undo(out["journal_seq"])                      # a barrier, like an erasure
    # the documented keys are there on every answer, also when nothing is rewritten
    for again in (mem.set_policy("tom", "redact", label="[ex-partner]"),
                  mem.set_policy("tom", do_not_probe=True)):
        assert again["redacted_journal_rows"] == [] and again["other_copies"] == []
    raw = _bytes(mem)
    # the name survives only where the owner's view keeps it: the entity row and its insert
    assert raw.count(b"Tom Reyes") <= 4
    assert b"Tom shouted" not in raw and b"Tom Reyes said" not in raw


def test_summary_only_keeps_what_happened_not_their_words(mem: Memory) -> None:
    mem.set_policy("mark", "summary_only")
    text = mem.event_detail("e3")["event"]["description"]
    assert "we ship on Friday" not in text and "[their words are not kept]" in text
    assert b"we ship on Friday" not in _bytes(mem)


def test_no_capture_erases_through_forget_and_keeps_only_a_count(tmp_path: Path,
                                                                 mem: Memory) -> None:
    out = mem.set_policy("lena", "no_capture")
    assert out["erased"]["event"] == 1 and out["applied_backwards"]
    assert mem.history(1)[0]["op"] == "policy.apply"
    assert mem.verify() == []
    with pytest.raises(PulseError):
        mem.resolve_event("e2")
    assert mem.policy("Lena")["policy"] == "no_capture"
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([
        {"id": "a", "speaker": "Lena Frost", "text": "I got the library job after all!",
         "ts": "2026-05-01T10:00:00Z"},
        {"id": "b", "speaker": "Nadia", "ts": "2026-05-02T10:00:00Z",
         "text": "Lena called me about her sister. I cooked a big soup for the week."}]))
    summary = mem.import_files([chat])
    assert summary["total"]["withheld_segments"] == 2
    assert mem.policy("lena")["skipped_segments"] == 2
    texts = [r[0] for r in mem.conn.execute("SELECT content_text FROM observations")]
    assert any("big soup" in t for t in texts)
    raw = _bytes(mem)
    for gone in (b"library job", b"her sister", b"new job", b"works at the library"):
        assert gone not in raw, gone


def test_the_llm_path_never_sees_a_no_capture_persons_words(tmp_path: Path, fake_llm,
                                                            monkeypatch, mem: Memory) -> None:
    from tests.fakes.llm_server import anthropic_tool

    mem.set_policy("lena", "no_capture")
    monkeypatch.setenv("FAKE_LLM_KEY", "test-key")
    models = tmp_path / "models.json"
    models.write_text(json.dumps({"models": {"x": {
        "provider": "anthropic", "model": "fake-model", "api_key_env": "FAKE_LLM_KEY",
        "base_url": fake_llm.url, "max_tokens": 1024, "temperature": 0, "max_retries": 0}}}))
    monkeypatch.setenv("PULSE_MODELS_PATH", str(models))
    fake_llm.script(anthropic_tool("triage", {"decision": "skip", "reason": "small talk"}))
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([
        {"id": "a", "speaker": "Lena Frost", "text": "Secret plans for the library move.",
         "ts": "2026-05-01T10:00:00Z"},
        {"id": "b", "speaker": "Nadia", "text": "Cooked soup. Lena phoned twice.",
         "ts": "2026-05-02T10:00:00Z"}]))
    summary = mem.import_files([chat], extractor="x")
    assert summary["total"]["withheld_segments"] == 2
    seen = json.dumps([r["body"] for r in fake_llm.requests])
    assert len(fake_llm.requests) == 1 and "Cooked soup" in seen
    assert "Secret plans" not in seen and "phoned twice" not in seen


def test_bad_policy_input_is_one_line_and_changes_nothing(mem: Memory) -> None:
    head = mem.stats()["journal_head"]
    for call, needle in ((lambda: mem.set_policy("tom", "forgetful"), "unknown policy"),
                         (lambda: mem.set_policy("tom", "redact"), "role label"),
                         (lambda: mem.set_policy("nobody", "full"), "no such entity")):
        with pytest.raises(PulseError) as err:
            call()
        assert needle in str(err.value) and "\n" not in str(err.value)
    assert mem.stats()["journal_head"] == head


def test_corpus_policies_apply_to_the_file_itself(tmp_path: Path) -> None:
    data = json.loads(json.dumps(CORPUS))
    data["entities"][1].update(policy="redact", role_label="[ex-partner]")
    data["entities"][2].update(policy="no_capture")
    with Memory.open(tmp_path / "c.db", create=True) as memory:
        out = memory.import_corpus(data)
        assert out["withheld_segments"] == 2            # Lena's event and her fact
        titles = [r[0] for r in memory.conn.execute("SELECT title FROM events")]
        assert "[ex-partner] shouted about the car keys" in titles
        assert not any("Lena" in t for t in titles)
        assert memory.policy("tom")["role_label"] == "[ex-partner]"
    bad = json.loads(json.dumps(CORPUS))
    bad["entities"][1]["policy"] = "hush"
    with Memory.open(tmp_path / "d.db", create=True) as memory, pytest.raises(PulseError):
        memory.import_corpus(bad)


# -- the demo ------------------------------------------------------------------------------------

def test_the_demo_boundary_is_a_real_do_not_probe(demo_db: Path) -> None:
    with Memory.open(demo_db, read_only=True) as memory:
        [boundary] = memory.boundaries()
        # four linked to it, and e160, whose own words name it ("Papa died in February")
        assert boundary["name"] == "Papa's death" and len(boundary["events"]) == 5
        assert memory.resolve_event("e160") in boundary["events"]
        brief = memory.brief(4000, now=NOW)["text"]
        assert "- don't probe: Papa's death" in brief
        assert "heart attack" not in brief and "Don't probe the details" not in brief
        keys = [r["key"] for r in memory.retrieve("my father's funeral", now=NOW, top_k=10)
                ["results"]]
        assert not {"e130", "e131", "e133", "e136"} & set(keys)
        keys = [r["key"] for r in memory.retrieve("Papa's funeral", now=NOW, top_k=10)
                ["results"]]
        assert "e133" in keys


def test_redact_reaches_the_recall_log_the_speakers_and_the_merge_reasons(tmp_path: Path) -> None:
    """Beyond events and facts: a logged recall keeps the titles it returned (shown by `pulse
    recalls show`), a chat keeps who spoke each message, a merge proposal its reason."""
    from core.store.commands import execute

    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([
        {"id": "c1", "speaker": "Quillborvek", "ts": "2026-10-22T09:00:00Z",
         "text": "You will regret the Mirtholen evening forever."}]), encoding="utf-8")
    with Memory.open(tmp_path / "m.db", create=True) as memory:
        memory.import_files([chat])
        who = memory.conn.execute("SELECT id FROM entities WHERE canonical_name = 'Quillborvek'"
                                  ).fetchone()[0]
        execute(memory.conn, actor="import", op="merge.propose", subject=f"entity:{who}",
                changes=[{"t": "merge_proposals", "a": "insert", "row": {
                    "id": 1, "keep_entity": who, "merge_entity": who + 1000, "similarity": 0.7,
                    "status": "pending", "reason": "'Quillborvek' ~ 'Quill'"}}])
        memory.retrieve("Quillborvek regret Mirtholen", now=NOW, top_k=3, log="companion")
        memory.set_policy(who, "redact", label="[ex]")
        record = memory.recall_record(memory.recalls()[0]["id"])
        assert "Quillborvek" not in json.dumps(record, ensure_ascii=False)
        assert any(r.get("title", "").startswith("[ex]") for r in record["results"])
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("m.db*") if p.is_file())
    # only the entity row (the owner's view) and the journal row that inserted it
    assert raw.count(b"Quillborvek") <= 2, raw.count(b"Quillborvek")


def test_a_name_with_a_letter_beyond_ascii_is_one_name_and_redacts_whole(tmp_path: Path) -> None:
    """The name finder read 'Quillbørvek' as 'Quillb' + 'rvek': a person 'Quillb' was made from
    her message, and stayed in every export after the real one was redacted."""
    from core.ingest.names import name_candidates

    assert name_candidates("I never told anyone that Quillbørvek hurt me. I told Łukasz.") == [
        "Quillbørvek", "Łukasz"]
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([
        {"id": "c1", "speaker": "Nadia", "ts": "2026-10-20T09:00:00Z",
         "text": "I never told anyone that Quillbørvek hurt me at the lake house."},
        {"id": "c2", "speaker": "Quillbørvek", "ts": "2026-10-22T09:00:00Z",
         "text": "You will regret this forever, Nadia."}]), encoding="utf-8")
    with Memory.open(tmp_path / "m.db", create=True) as memory:
        memory.import_files([chat])
        memory.set_policy("Quillbørvek", "redact", label="[ex]")
        out = tmp_path / "viewer.html"
        memory.export_html(out)
    assert "Quillb" not in out.read_text(encoding="utf-8")
