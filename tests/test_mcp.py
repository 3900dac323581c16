"""`pulse mcp`: a real MCP client session over stdio (the official SDK) — list the tools, call
each, check clear tool errors; and the tool definitions stay under 4 KB."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest

from core.memory import Memory

ROOT = Path(__file__).resolve().parent.parent

CORPUS = {
    "format": "pulse-corpus/1",
    "entities": [{"key": "dana", "name": "Dana", "kind": "person"}],
    "events": [
        {"key": "e1", "title": "Argument with Dana", "description": "Dana said I never listen.",
         "ts": "2026-10-20", "entities": ["dana"], "emotions": {"anger": 0.7, "shame": 0.4}},
        {"key": "e2", "title": "Hiking trip", "description": "A calm day in the hills.",
         "ts": "2026-09-01", "emotions": {"joy": 0.8}},
        {"key": "e3", "title": "Apologised to Dana", "description": "Coffee and a real sorry.",
         "ts": "2026-10-22", "entities": ["dana"], "parents": ["e1"]},
    ],
}


def tools_json() -> str:
    import mcp_types as types

    from core.mcp_server import TOOLS

    listing = types.ListToolsResult(tools=[types.Tool(**t) for t in TOOLS])
    return json.dumps(listing.model_dump(mode="json", by_alias=True, exclude_none=True),
                      separators=(",", ":"))


def test_tool_definitions_stay_small() -> None:
    size = len(tools_json().encode("utf-8"))
    assert size <= 4096, f"tools/list is {size} bytes; keep the tool definitions under 4 KB"


def test_tools_directly(memory: Memory) -> None:
    from core.errors import PulseError
    from core.mcp_server import PulseTools

    memory.import_corpus(CORPUS)
    tools = PulseTools(memory)
    out = tools.call("recall", {"query": "fight with Dana", "top_k": 1})
    assert out["results"][0]["key"] == "e1"
    for name, args, needle in (
            ("recall", {"query": ""}, "empty"), ("recall", {"query": "x" * 2001}, "limit"),
            ("recall", {"query": "x", "top_k": 0}, "top_k"),
            ("recall", {"query": "x", "top_k": "3"}, "whole number"),
            ("recall", {"query": "x", "domains": ["mars"]}, "unknown domain"),
            ("recall", {"query": "x", "bogus": 1}, "unknown argument"),
            ("recall", {}, "required"), ("brief", {"budget": -1}, "budget"),
            ("get_event", {"id": "nope"}, "no event"), ("get_event", {"id": True}, "number"),
            ("correct", {}, "give a note"), ("nosuch", {}, "unknown tool")):
        with pytest.raises(PulseError, match=needle):
            tools.call(name, args)


async def _session(db: Path, via_cli: bool) -> dict:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    params = StdioServerParameters(command=sys.executable,
                                   args=(["-m", "core.cli", "--db", str(db), "mcp"] if via_cli
                                         else ["-m", "core.mcp_server", "--db", str(db)]),
                                   env=env, cwd=str(ROOT))
    out: dict = {}
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                out["tools"] = sorted(t.name for t in listed.tools)

                async def call(name: str, args: dict):
                    result = await session.call_tool(name, args)
                    text = result.content[0].text
                    return result.is_error, (text if result.is_error else json.loads(text))

                out["recall"] = await call("recall", {"query": "argument with Dana", "top_k": 2,
                                                      "user_state": {"stress_proxy": 0.8},
                                                      "chain": False, "domains": ["real"]})
                out["brief"] = await call("brief", {"budget": 400})
                out["correct"] = await call("correct", {"withdrawn": ["$49"],
                                                        "replacement": ["$29"], "note": "price"})
                out["brief_after"] = await call("brief", {"budget": 400})
                out["get_event"] = await call("get_event", {"id": "e1"})
                out["why"] = await call("why", {"event": "e3"})
                out["bad_recall"] = await call("recall", {"query": 42})
                out["bad_event"] = await call("get_event", {"id": 99999})
                out["bad_state"] = await call("recall", {"query": "x",
                                                         "user_state": {"stress_proxy": 9}})
                out["bad_remember"] = await call("remember", {"text": "x" * 20001})
                try:
                    import core.ingest  # noqa: F401
                    from core.ingest import remember  # noqa: F401
                    out["remember"] = await call("remember", {
                        "text": "Today I told Dana I was sorry about the argument.",
                        "ts": "2026-10-25T10:00:00Z"})
                except ImportError:
                    out["remember"] = None
    return out


@pytest.mark.parametrize("via_cli", [False, True], ids=["module", "pulse-mcp"])
def test_mcp_session_over_stdio(db_path: Path, via_cli: bool) -> None:
    with Memory.open(db_path, create=True) as m:
        m.import_corpus(CORPUS)
    out = anyio.run(_session, db_path, via_cli)
    assert out["tools"] == ["brief", "correct", "get_event", "recall", "remember", "why"]
    err, recall = out["recall"]
    assert not err and recall["results"][0]["key"] == "e1"
    first = recall["results"][0]
    assert "terms" in first and "sources" in first and first["sources"]
    err, brief = out["brief"]
    assert not err and brief["tokens"] <= 400 and brief["text"].startswith("pulse")
    err, correction = out["correct"]
    assert not err and correction["binding"] and correction["journal_seq"] > 0
    err, brief = out["brief_after"]
    assert not err and brief["text"].splitlines()[1] == "CORRECTIONS"
    err, why = out["why"]
    assert not err and why["event"]["key"] == "e3" and [c["key"] for c in why["causes"]] == ["e1"]
    err, event = out["get_event"]
    assert not err and event["event"]["key"] == "e1" and event["entities"][0]["name"] == "<memory_data>Dana</memory_data>"
    assert event["emotions"]["anger"] == pytest.approx(0.7)
    for key, needle in (("bad_recall", "query must be a string"), ("bad_event", "no event"),
                        ("bad_state", "user_state"), ("bad_remember", "limit")):
        err, message = out[key]
        assert err and needle in message, (key, message)
    if out["remember"] is not None:
        err, remembered = out["remember"]
        assert not err, remembered
    with Memory.open(db_path) as m:
        assert m.verify() == []
        assert m.stats()["counts"]["corrections"] == 1


def test_why_and_chain_directly(demo_db: Path, tmp_path: Path) -> None:
    """recall with chain brings causes; why answers what led to an event; recall says when
    nothing is relevant — all through Memory, on a copy of the demo memory."""
    import shutil

    from core.errors import PulseError
    from core.mcp_server import PulseTools

    copy = tmp_path / "demo.db"
    shutil.copy(demo_db, copy)
    with Memory.open(copy) as memory:
        tools = PulseTools(memory)
        why = tools.call("why", {"event": "e042"})
        assert [c["key"] for c in why["causes"]] == ["e031", "e035", "e041"]
        assert [c["hops"] for c in why["causes"]] == [3, 2, 1]
        assert [c["key"] for c in tools.call("why", {"event": "e042", "depth": 1})["causes"]] \
            == ["e041"]
        by_query = tools.call("why", {"query": "Burnout diagnosis"})
        assert by_query["event"]["key"] == "e042" and by_query["causes"] == why["causes"]
        story = tools.call("recall", {"query": "what led to my burnout diagnosis", "top_k": 5,
                                      "chain": True})
        keys = [r["key"] for r in story["results"]]
        assert keys[:4] == ["e031", "e035", "e041", "e042"]
        assert any(r["via_chain"] for r in story["results"])
        nothing = tools.call("recall", {"query": "xqzv blorf quantum lasagna"})
        assert nothing["abstained"] is True and nothing["results"] == []
        assert nothing["abstain_reason"].startswith("nothing relevant")
        for args, needle in (({}, "one of them"), ({"event": "e042", "query": "x"}, "one of them"),
                             ({"event": "e042", "depth": 11}, "depth"),
                             ({"event": True}, "number or a key"),
                             ({"event": "nope"}, "no event"),
                             ({"query": "x", "domains": ["mars"]}, "unknown domain")):
            with pytest.raises(PulseError, match=needle):
                tools.call("why", args)


def test_why_is_in_the_recall_log_and_leaves_it_with_an_erased_cause(demo_db: Path,
                                                                      tmp_path: Path) -> None:
    """`why` shows the companion memory text, so the log keeps what it served: the event, then
    its causes roots first with their hops, no text; a forgotten cause leaves the record."""
    import shutil

    from core.mcp_server import PulseTools

    copy = tmp_path / "demo.db"
    shutil.copy(demo_db, copy)
    with Memory.open(copy) as memory:
        tools = PulseTools(memory)
        tools.call("why", {"event": "e042", "depth": 3}, client="companion")
        tools.call("why", {"query": "Burnout diagnosis"}, client="companion")
        by_query, by_event = memory.recalls()            # newest first
        assert (by_event["tool"], by_event["client"], by_event["query"]) == (
            "why", "companion", "")
        assert by_event["request"] == {"event": "e042", "depth": 3, "domains": None}
        assert (by_query["tool"], by_query["query"]) == ("why", "Burnout diagnosis")
        record = memory.recall_record(by_event["id"])
        assert [(r["rank"], r["key"], r.get("hops")) for r in record["results"]] == [
            (1, "e042", None), (2, "e031", 3), (3, "e035", 2), (4, "e041", 1)]
        raw = memory.conn.execute("SELECT response FROM recall_log WHERE id = ?",
                                  (by_event["id"],)).fetchone()[0]
        assert "memory_data" not in raw and '"text"' not in raw
        assert [r["id"] for r in memory.recalls(event="e031")] == [by_query["id"], by_event["id"]]
        memory.forget("event:e035")
        record = memory.recall_record(by_event["id"])
        assert [r["key"] for r in record["results"]] == ["e042", "e031", "e041"]
        assert record["response"]["erased_results"] == 1


def test_size_limits_directly(memory: Memory) -> None:
    from core.errors import PulseError
    from core.mcp_server import PulseTools

    memory.import_corpus(CORPUS)
    tools = PulseTools(memory)
    for name, args, needle in (
            ("recall", {"query": "x", "user_state": {"recent_life_events_7d": ["z"] * 51}},
             "at most 50"),
            ("recall", {"query": "x", "user_state": {"recent_life_events_7d": ["z" * 501]}},
             "limit is 500"),
            ("recall", {"query": "x", "user_state": {"mood_vector": {"nope": 0.5}}},
             "unknown emotion"),
            ("recall", {"query": "x", "domains": ["real"] * 5}, "at most 4 domains"),
            ("recall", {"query": "x", "user_state": {"recent_life_events_7d": ["z"] * 200_000}},
             "65,536 bytes"),
            ("remember", {"text": "y" * 100_000}, "limit"),
            ("correct", {"note": "n", "supersedes": list(range(1, 60))}, "at most 50"),
            ("recall", {"query": "x", "user_state": [[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]},
             "too deeply")):
        with pytest.raises(PulseError, match=needle):
            tools.call(name, args)
    ok = tools.call("recall", {"query": "Dana", "top_k": 1, "domains": ["real"],
                               "user_state": {"recent_life_events_7d": ["moved house"] * 50,
                                              "mood_vector": {"joy": 0.2}}})
    assert ok["results"]


def test_frame_guard() -> None:
    from core.mcp_server import MAX_FRAME_BYTES, frame_problem

    assert frame_problem(b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}') is None
    assert frame_problem(b'{"a": "' + b"[" * 1000 + b'"}') is None  # brackets inside a string
    message, ident = frame_problem(b'{"jsonrpc": "2.0", "id": 7, "params": '
                                   + b"[" * 100 + b"]" * 100 + b"}")
    assert ident == 7 and "64" in message
    message, ident = frame_problem(b'{"params": {"arguments": {"id": 5, "x": ' + b"[" * 100
                                   + b"]" * 100 + b'}}, "id": "abc"}')
    assert ident == "abc"
    assert frame_problem(b"[" * 100_000 + b"]" * 100_000)[1] is None
    message, ident = frame_problem(b'{"id": 3, "q": "' + b"x" * MAX_FRAME_BYTES + b'"}')
    assert ident == 3 and "limit" in message


def test_lone_surrogates_read_as_replacement_characters() -> None:
    from core.mcp_server import without_lone_surrogates

    assert without_lone_surrogates('{"q": "half \\ud83d", "k": ["\\udc00"]}') \
        == '{"q": "half \ufffd", "k": ["\ufffd"]}'
    assert without_lone_surrogates('{"q": "whole \\ud83d\\ude42"}') is None   # a pair: fine
    assert without_lone_surrogates('{"q": "not an escape \\\\ud83d"}') is None
    assert without_lone_surrogates("not json \\ud83d") is None


def test_ids_past_sqlite_integers_are_no_event(memory: Memory) -> None:
    """An id SQLite cannot hold, or digits that are not ASCII, name nothing: a clear "no such"
    line, not "unexpected error: OverflowError / ValueError"."""
    from core.errors import PulseError
    from core.mcp_server import PulseTools

    memory.import_corpus(CORPUS)
    tools = PulseTools(memory)
    for name, args, needle in (
            ("get_event", {"id": 2 ** 63}, "no event"), ("get_event", {"id": "²"}, "no event"),
            ("why", {"event": 10 ** 30}, "no event"),
            ("correct", {"note": "n", "subject": f"event:{10 ** 23}"}, "no such event"),
            ("correct", {"note": "n", "subject": "fact:²"}, "no such fact")):
        with pytest.raises(PulseError, match=needle):
            tools.call(name, args)
    assert tools.call("get_event", {"id": 1})["event"]["key"] == "e1"
