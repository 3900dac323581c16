"""The recall log (issue 11 §4): what the companion recalled, when, for which question.

Written by MCP recall / brief / get_event (with the client's name from `initialize`, through a
real stdio session) and by `pulse retrieve --log`; kept in the memory file but outside the
content digest and the journal; purged past the retention; switched off per memory; erased
with `forget` (down to the file's bytes); listed by `pulse recalls`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from core.errors import PulseError
from core.memory import Memory
from tests.safe_bytes import memory_bytes

ROOT = Path(__file__).resolve().parent.parent
NOW = "2026-11-20T09:30:00Z"

CORPUS = {
    "format": "pulse-corpus/1",
    "entities": [{"key": "dana", "name": "Dana", "kind": "person"}],
    "events": [
        {"key": "e1", "title": "Argument with Dana", "description": "Dana said I never listen.",
         "ts": "2026-10-20", "entities": ["dana"], "emotions": {"anger": 0.7, "shame": 0.4}},
        {"key": "e2", "title": "Hiking trip", "description": "A calm day in the hills.",
         "ts": "2026-09-01", "emotions": {"joy": 0.8}},
        {"key": "e3", "title": "Left alone at the station",
         "description": "Nobody came to pick me up at the Zanzibar station; I felt abandoned.",
         "ts": "2021-02-27", "belief_class": "axiom", "confidence_floor": 0.85,
         "archivable": 0, "user_flag": 1, "emotions": {"sadness": 0.8, "fear": 0.5}},
    ],
}


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PULSE_DB", None)
    return env


def pulse(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), *args],
                          capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=180)


@pytest.fixture
def mem(memory: Memory) -> Memory:
    memory.import_corpus(CORPUS)
    return memory


def test_a_companion_recall_is_logged_with_its_titles_not_their_frames(mem: Memory) -> None:
    from core.mcp_server import PulseTools

    served = PulseTools(mem).call("recall", {"query": "abandoned at the station", "top_k": 2},
                                  client="companion")
    assert served["results"][0]["title"] == "<memory_data>Left alone at the station</memory_data>"
    [listed] = mem.recalls()
    assert listed["top"][0]["title"] == "Left alone at the station"
    record = mem.recall_record(listed["id"])
    assert record["results"][0]["title"] == "Left alone at the station"
    raw = mem.conn.execute("SELECT response FROM recall_log").fetchone()[0]
    assert "memory_data" not in raw
    # a record an earlier version wrote with the frame still reads as the words
    mem.conn.execute("UPDATE recall_log SET response = replace(response, ?, ?)",
                     ('"Left alone at the station"',
                      '"<memory_data>Left alone at the station</memory_data>"'))
    assert mem.recalls()[0]["top"][0]["title"] == "Left alone at the station"


def test_a_logged_retrieve_keeps_ranks_scores_and_breakdowns_but_no_memory_text(
        mem: Memory) -> None:
    digest, head = mem.digest(), mem.stats()["journal_head"]
    out = mem.retrieve("feeling abandoned", top_k=2, now=NOW, log="cli",
                       state={"stress_proxy": 0.8})
    assert mem.digest() == digest, "the recall log must stay outside the content digest"
    assert mem.stats()["journal_head"] == head, "a logged read is not a journal row"
    [listed] = mem.recalls()
    assert listed["client"] == "cli" and listed["tool"] == "retrieve"
    assert listed["query"] == "feeling abandoned" and listed["scorer"] == out["scorer"]
    assert listed["state"] == {"stress_proxy": 0.8} and listed["count"] == 2
    record = mem.recall_record(listed["id"])
    assert [r["key"] for r in record["results"]] == [r["key"] for r in out["results"]]
    for kept, given in zip(record["results"], out["results"]):
        assert kept["score"] == given["score"] and kept["terms"] == given["terms"]
        assert kept["rank"] == out["results"].index(given) + 1
        assert "text" not in kept and "sources" not in kept
    # every other key the scorer returned is kept as it was (no scorer name assumed)
    assert {k for k in out if k not in ("query", "results")} <= set(record["response"])
    raw = mem.conn.execute("SELECT response FROM recall_log").fetchone()[0]
    assert "Zanzibar" not in raw and "never listen" not in raw


def test_summary_line_for_the_detail_panel(mem: Memory) -> None:
    assert mem.recall_summary("e3", now=NOW) is None
    mem.retrieve("feeling abandoned", top_k=3, now=NOW, log="companion")
    mem.log_recall("get_event", "companion", request={"id": "e3"},
                   output={"event": mem.event("e3")}, now="2026-11-10T08:00:00Z")
    mem.retrieve("left alone", top_k=3, log="companion")  # wall clock: after NOW
    latest = mem.recalls(limit=1)[0]
    mem.conn.execute("UPDATE recall_log SET ts = ? WHERE id = ?",
                     ("2026-11-20T09:30:00.000Z", latest["id"]))
    mem.conn.execute("UPDATE recall_log SET ts = ?, query = ? WHERE id = 1",
                     ("2026-11-01T10:00:00.000Z", "feeling abandoned"))
    summary = mem.recall_summary("e3", now="2026-11-21T00:00:00Z")
    assert summary["count"] == 3
    assert summary["line"] == "recalled 3 times, last on 2026-11-20 for 'left alone'"
    assert [r["tool"] for r in mem.recalls(event="e3", now="2026-11-21T00:00:00Z")] == [
        "retrieve", "get_event", "retrieve"]


def test_retention_and_the_off_switch(mem: Memory) -> None:
    assert mem.recall_log_settings() == {"enabled": True, "retention_days": 90}
    old = mem.log_recall("retrieve", "cli", query="long ago", output={"results": []},
                         now="2026-01-01T00:00:00Z")
    recent = mem.log_recall("retrieve", "cli", query="lately", output={"results": []},
                            now="2026-11-15T00:00:00Z")
    assert [r["id"] for r in mem.recalls(now=NOW)] == [recent]     # past 90 days: not listed
    mem.log_recall("retrieve", "cli", query="now", output={"results": []}, now=NOW)
    ids = {r[0] for r in mem.conn.execute("SELECT id FROM recall_log")}
    assert old not in ids and recent in ids                         # and purged on write

    head = mem.stats()["journal_head"]
    out = mem.set_recall_log(retention_days=3, now=NOW)
    assert out["journal_seq"] == head + 1 and out["retention_days"] == 3
    row = mem.conn.execute("SELECT op, payload FROM journal WHERE seq = ?",
                           (out["journal_seq"],)).fetchone()
    assert row["op"] == "recall_log.settings"
    assert json.loads(row["payload"])["recall_log"]["after"] == {"enabled": True,
                                                                 "retention_days": 3}
    assert [r["query"] for r in mem.recalls(now=NOW)] == ["now"]
    mem.set_recall_log(enabled=False, now=NOW)
    assert mem.log_recall("retrieve", "cli", query="off", output={"results": []}) is None
    mem.retrieve("hiking", log="cli")
    assert [r["query"] for r in mem.recalls(now=NOW)] == ["now"]
    assert mem.verify() == []
    for bad in (0, -5, 10 ** 6, True, 2.5):
        with pytest.raises(PulseError, match="retention"):
            mem.set_recall_log(retention_days=bad)


def test_forget_erases_an_event_from_the_log_down_to_the_bytes(mem: Memory,
                                                                 db_path: Path) -> None:
    mem.retrieve("Zanzibar station", top_k=3, now=NOW, log="companion")
    mem.log_recall("get_event", "companion", request={"id": "e3"},
                   output={"event": mem.event("e3")})
    mem.brief(2000, now=NOW, log="companion")
    by_tool = {r["tool"]: mem.recall_record(r["id"]) for r in mem.recalls()}
    assert "e3" in [r["key"] for r in by_tool["brief"]["results"]]
    assert "e3" in [r["key"] for r in by_tool["retrieve"]["results"]]
    assert b"Zanzibar" in memory_bytes(db_path)
    summary = mem.forget("event:e3")
    assert summary["recall_records_changed"] == 3
    for record in (mem.recall_record(r["id"]) for r in mem.recalls()):
        assert all(r.get("key") != "e3" for r in record["results"]), record
        assert record["response"].get("erased_results") == 1
    # the question that found it named it: its words are erased with it
    assert mem.recalls()[-1]["query"] == "[erased] [erased]"
    assert mem.conn.execute("SELECT COUNT(*) FROM recall_log_events WHERE event_id = 3"
                            ).fetchone()[0] == 0
    # the text is gone from every file Pulse keeps for this memory (read in a child process:
    # this test holds the memory open)
    assert b"Zanzibar" not in memory_bytes(db_path)
    assert mem.verify() == []


def test_cli_retrieve_log_and_recalls(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory.open(db, create=True) as m:
        m.import_corpus(CORPUS)
    plain = pulse(db, "retrieve", "hiking in the hills", "--json")
    assert plain.returncode == 0, plain.stderr
    logged = pulse(db, "retrieve", "hiking in the hills", "--top-k", "2", "--log", "--json")
    assert logged.returncode == 0, logged.stderr
    listing = pulse(db, "recalls", "--since", "1d", "--json")
    assert listing.returncode == 0, listing.stderr
    data = json.loads(listing.stdout)
    assert data["settings"] == {"enabled": True, "retention_days": 90}
    [record] = data["records"]                         # only the --log one
    assert record["client"] == "cli" and record["query"] == "hiking in the hills"
    assert record["top"][0]["key"] == json.loads(logged.stdout)["results"][0]["key"]
    shown = pulse(db, "recalls", "show", str(record["id"]))
    assert shown.returncode == 0 and "hiking in the hills" in shown.stdout
    assert "relevance" in shown.stdout
    off = pulse(db, "recalls", "settings", "--off", "--retention", "30", "--json")
    assert json.loads(off.stdout)["enabled"] is False
    assert pulse(db, "recalls", "--since", "2020-01-01").stdout.startswith("#")
    # a span longer than the calendar reaches back is everything (it was an OverflowError)
    assert pulse(db, "recalls", "--since", "999999d").stdout.startswith("#")
    for args, needle in ((("recalls", "--since", "last tuesday"), "since"),
                         (("recalls", "show", "999"), "no recall record 999"),
                         (("recalls", "settings", "--retention", "0"), "retention"),
                         (("recalls", "--limit", "0"), "--limit")):
        bad = pulse(db, *args)
        lines = bad.stderr.strip().splitlines()
        assert bad.returncode == 1 and len(lines) == 1 and needle in lines[0], (args, bad.stderr)
        assert "unexpected" not in lines[0]


async def _mcp_session(db: Path) -> dict:
    import mcp_types as types
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "core.cli", "--db", str(db), "mcp"],
                                   env=_env(), cwd=str(ROOT))
    out: dict = {}
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, client_info=types.Implementation(
                    name="therapy-companion", version="2.1")) as session:
                await session.initialize()
                for name, args in (("recall", {"query": "argument with Dana", "top_k": 2,
                                                "user_state": {"stress_proxy": 0.8}}),
                                   ("brief", {"budget": 800}),
                                   ("get_event", {"id": "e2"}),
                                   ("recall", {"query": ""})):        # refused: not logged
                    result = await session.call_tool(name, args)
                    out[name] = result.is_error
                    if name == "recall" and not result.is_error:
                        out["served"] = json.loads(result.content[0].text)["results"]
    return out


def test_mcp_recall_brief_and_get_event_are_logged_with_the_client_name(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory.open(db, create=True) as m:
        m.import_corpus(CORPUS)
    errors = anyio.run(_mcp_session, db)
    served = errors.pop("served")
    assert errors == {"recall": True, "brief": False, "get_event": False}
    with Memory.open(db) as m:
        records = list(reversed(m.recalls(full=True)))
    assert [r["tool"] for r in records] == ["recall", "brief", "get_event"]
    assert {r["client"] for r in records} == {"therapy-companion"}
    recall, brief, event = records
    assert recall["query"] == "argument with Dana" and recall["state"] == {"stress_proxy": 0.8}
    assert [(r["key"], r["score"], r["terms"]) for r in recall["results"]] == [
        (r["key"], r["score"], r["terms"]) for r in served]
    assert recall["request"]["top_k"] == 2
    assert brief["request"] == {"budget": 800} and brief["results"]
    assert {r["key"] for r in brief["results"]} <= {"e1", "e2", "e3"}
    assert event["request"] == {"id": "e2"} and [r["key"] for r in event["results"]] == ["e2"]


def test_a_memory_from_before_the_log_opened_read_only_has_an_empty_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Schema 3 opened read-only is not migrated (nothing may change): the log reads as empty
    instead of failing (the app opens a memory whose journal does not verify read-only)."""
    from core.store import commands
    from core.store import db as store_db

    every = store_db.migrations()
    db = tmp_path / "old.db"
    with monkeypatch.context() as patch:          # a memory written by a Pulse of schema 3
        patch.setattr(store_db, "migrations", lambda: [m for m in every if m[0] <= 3])
        patch.setattr(store_db, "latest_version", lambda: 3)
        # … which gave ids as MAX(id) + 1 (no id marks before migration 012)
        patch.setattr(commands, "_next_id_sql",
                      lambda table: f"(SELECT COALESCE(MAX(id), 0) + 1 FROM {table})")
        with Memory.open(db, create=True) as m:
            m.import_corpus(CORPUS)
            assert store_db.schema_version(m.conn) == 3
    with Memory.open(db, read_only=True) as m:
        assert m.recalls() == [] and m.recall_summary("e1") is None
        assert m.recall_moments() == [] and m.change_marks()[1] == 0
        assert m.log_recall("retrieve", "cli", query="q", output={"results": []}) is None
    with Memory.open(db) as m:                   # opened to write: migrated, logging works
        m.retrieve("hiking", log="cli")
        assert [r["query"] for r in m.recalls()] == ["hiking"]
    # backed up before the migration (named after the file's highest schema version, which
    # is above 3 once a later-numbered migration, such as 006, landed before 004 on main)
    assert list(tmp_path.glob("old.db.bak-*"))


def test_forgetting_a_person_erases_their_name_from_every_question(mem: Memory,
                                                                   db_path: Path) -> None:
    found = mem.retrieve("argument with Dana", top_k=3, now=NOW, log="companion")
    assert "e1" in [r["key"] for r in found["results"]]
    mem.log_recall("retrieve", "companion", query="is Dana still angry", output={"results": []},
                   state={"recent_life_events_7d": ["lunch with Dana"]})
    mem.retrieve("hiking in the hills", top_k=1, now=NOW, log="companion")
    out = mem.forget("entity:dana", cascade=True)
    assert out["recall_records_changed"] == 2
    records = [mem.recall_record(r["id"]) for r in reversed(mem.recalls())]
    assert "Dana" not in json.dumps(records)
    found_it, named_her, hiking = records
    # the question that found her erased event loses every word of it; one that only named
    # her loses the name; one about something else keeps its words
    assert found_it["query"] == "[erased] [erased] [erased]"
    assert "e1" not in [r["key"] for r in found_it["results"]]
    assert found_it["response"]["erased_results"] == 1
    assert named_her["query"] == "is [erased] still angry"
    assert named_her["state"] == {"recent_life_events_7d": ["lunch with [erased]"]}
    assert hiking["query"] == "hiking in the hills" and hiking["results"]
    assert b"Dana" not in memory_bytes(db_path)
