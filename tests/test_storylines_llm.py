"""Abstractive storyline summaries through the router, with the real anthropic / openai SDKs
against the fake server: written and journaled, replayed without a call, never paid twice,
undoable; malformed answers retried then dead-lettered (the offline summary stays); the daily
budget gate; nothing called without an alias."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.llm.extractor import MAX_ATTEMPTS
from core.memory import Memory
from tests.fakes.llm_server import anthropic_tool, error, openai_tool
from tests.test_storylines import story_corpus

GOOD = {"title": "Jon's dance studio",
        "summary": "After losing his bank job in March 2024, Jon Park opened a dance studio. "
                   "Its opening night in June 2024 drew sixty people, and Ana Ruiz danced "
                   "with him until midnight."}


def setup(tmp_path: Path, fake, monkeypatch, provider: str = "anthropic", **extra) -> str:
    monkeypatch.setenv("FAKE_LLM_KEY", "test-key")
    url = fake.url if provider == "anthropic" else fake.openai_url
    path = tmp_path / "models.json"
    path.write_text(json.dumps({"models": {"x": {
        "provider": provider, "model": "fake-model", "api_key_env": "FAKE_LLM_KEY",
        "base_url": url, "max_tokens": 512, "temperature": 0, "max_retries": 0,
        "input_cost_per_mtok": 1.0, "output_cost_per_mtok": 5.0}}, **extra}))
    monkeypatch.setenv("PULSE_MODELS_PATH", str(path))
    monkeypatch.delenv("PULSE_DAILY_BUDGET_USD", raising=False)
    return "x"


@pytest.fixture
def story(memory: Memory) -> Memory:
    memory.import_corpus(story_corpus())
    return memory


def stored(memory: Memory) -> dict:
    return dict(memory.conn.execute("SELECT * FROM storylines").fetchone())


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_model_summary_written_journaled_and_replayed(story, tmp_path, fake_llm, monkeypatch,
                                                      provider):
    from core.store.changes import apply_changes
    from core.store.commands import transaction

    alias = setup(tmp_path, fake_llm, monkeypatch, provider)
    story.storylines()                                   # the offline summary first
    offline = stored(story)["summary"]
    answer = anthropic_tool if provider == "anthropic" else openai_tool
    fake_llm.script(answer("write_summary", GOOD))
    out = story.summarise_storylines(alias)
    assert len(out["written"]) == 1 and out["calls"] == 1 and out["dead"] == []
    assert fake_llm.tool_names() == ["write_summary"]
    body = json.dumps(fake_llm.requests[0]["body"])
    assert "<untrusted_observation>" in body and "Jon lost his job" in body
    row = stored(story)
    assert row["method"] == f"llm:{alias}" and row["summary"] == GOOD["summary"]
    (entry,) = story.storylines()
    assert entry["summary"] == GOOD["summary"] and entry["title"] == GOOD["title"]
    actor, op = story.conn.execute("SELECT actor, op FROM journal ORDER BY seq DESC LIMIT 1"
                                   ).fetchone()
    assert (actor, op) == (f"extractor:{alias}", "storyline.summarise")
    usage = story.conn.execute("SELECT purpose, ok FROM llm_usage").fetchall()
    assert [tuple(u) for u in usage] == [("summary", 1)]
    # a rerun pays nothing: already summarised from the same members
    assert story.summarise_storylines(alias)["already"] == 1
    assert len(fake_llm.requests) == 1
    # the journal rebuilds it without a call
    payloads = [json.loads(r[0]) for r in story.conn.execute(
        "SELECT payload FROM journal ORDER BY seq")]
    with Memory.open(tmp_path / "replay.db", create=True) as fresh:
        with transaction(fresh.conn):
            for p in payloads:
                apply_changes(fresh.conn, p["changes"])
        assert fresh.digest() == story.digest()
    assert len(fake_llm.requests) == 1
    # undoable: the offline summary comes back
    story.undo()
    assert stored(story)["summary"] == offline and stored(story)["method"] == "extractive"
    assert story.verify() == []


def test_malformed_answers_die_and_the_offline_summary_stays(story, tmp_path, fake_llm,
                                                             monkeypatch):
    alias = setup(tmp_path, fake_llm, monkeypatch)
    too_long = {"title": "x", "summary": "One. Two. Three. Four sentences are too many."}
    fake_llm.script(anthropic_tool("write_summary", too_long),
                    anthropic_tool("write_summary", {"title": "x"}),
                    error(500))
    out = story.summarise_storylines(alias)
    assert out["written"] == [] and len(out["dead"]) == 1 and len(fake_llm.requests) == MAX_ATTEMPTS
    job = story.conn.execute("SELECT state, attempts, last_error FROM ingest_jobs").fetchone()
    assert job["state"] == "dead" and job["attempts"] == MAX_ATTEMPTS
    assert stored(story)["method"] == "extractive" and stored(story)["summary"]
    # a dead letter is not retried by the next run
    assert story.summarise_storylines(alias)["dead"] and len(fake_llm.requests) == MAX_ATTEMPTS


def test_a_malformed_answer_then_a_good_one(story, tmp_path, fake_llm, monkeypatch):
    alias = setup(tmp_path, fake_llm, monkeypatch)
    fake_llm.script(anthropic_tool("write_summary", {"title": "", "summary": "x."}),
                    anthropic_tool("write_summary", GOOD))
    out = story.summarise_storylines(alias)
    assert len(out["written"]) == 1 and len(fake_llm.requests) == 2
    assert stored(story)["summary"] == GOOD["summary"]


def test_daily_budget_gate(story, tmp_path, fake_llm, monkeypatch):
    alias = setup(tmp_path, fake_llm, monkeypatch, daily_budget_usd=0)
    out = story.summarise_storylines(alias)
    assert out["budget_exhausted"] is True and out["budget_stopped"] == 1
    assert fake_llm.requests == [] and stored(story)["method"] == "extractive"


def test_upkeep_with_an_alias_and_without(story, tmp_path, fake_llm, monkeypatch):
    alias = setup(tmp_path, fake_llm, monkeypatch)
    story.upkeep(now="2026-11-01T12:00:00Z")                 # offline: no call at all
    story.retrieve("dance studio", storylines=True)
    assert fake_llm.requests == []
    fake_llm.script(anthropic_tool("write_summary", GOOD))
    out = story.upkeep(now="2026-11-01T12:00:00Z", extractor=alias)
    assert len(out["llm"]["written"]) == 1 and stored(story)["method"] == f"llm:{alias}"
    dry = story.upkeep(now="2026-11-01T12:00:00Z", extractor=alias, dry_run=True)
    assert dry["llm"] is None and len(fake_llm.requests) == 1


def test_a_model_summary_retitles_its_pattern(memory, tmp_path, fake_llm, monkeypatch):
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
    alias = setup(tmp_path, fake_llm, monkeypatch)
    answer = {"title": "Dana's daily park walks",
              "summary": "In May 2023 Dana walked her dog in the park every day."}
    fake_llm.script(anthropic_tool("write_summary", answer))
    assert len(memory.summarise_storylines(alias)["written"]) == 1
    now = memory.event(pattern["id"])
    assert now["title"] == answer["title"]
    assert now["description"].startswith(answer["summary"] + "\n\nDana: I walked")
    assert memory.embed()["embedded"] == 0            # its centroid vector stays current
    memory.undo()
    assert memory.event(pattern["id"])["title"] == pattern["title"]
