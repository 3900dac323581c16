"""`pulse mcp`: an MCP server on stdio (the official `mcp` SDK, low-level Server) over one memory.

Tools: recall, remember, brief, correct, get_event. Every argument is validated here (types,
ranges, lengths, unknown keys); a bad call returns a tool error (is_error) with one clear line
and changes nothing. The tool definitions are kept small (a test holds tools/list under 4 KB).

Run: `python -m core.mcp_server --db PATH [--extractor offline|ALIAS]` or `pulse mcp`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from typing import Any

from core.beliefs import DOMAINS
from core.errors import PulseError

MAX_QUERY = 2000
MAX_TEXT = 20000
MAX_NOTE = 4000
MAX_TERMS = 50
MAX_TOP_K = 50
MAX_BUDGET = 200_000

_STR = {"type": "string"}
_TERMS = {"type": "array", "items": _STR, "maxItems": MAX_TERMS}

TOOLS: list[dict[str, Any]] = [
    {"name": "recall",
     "description": "Search the memory. Ranked events with score breakdown and sources.",
     "input_schema": {"type": "object", "properties": {
         "query": {"type": "string", "maxLength": MAX_QUERY},
         "top_k": {"type": "integer", "minimum": 1, "maximum": MAX_TOP_K},
         "user_state": {"type": "object", "description": "mood_vector, stress_proxy, sleep…"},
         "chain": {"type": "boolean"},
         "domains": {"type": "array", "items": {"enum": list(DOMAINS)}}},
         "required": ["query"], "additionalProperties": False}},
    {"name": "remember",
     "description": "Store what was said (extracted offline or by the configured model).",
     "input_schema": {"type": "object", "properties": {
         "text": {"type": "string", "maxLength": MAX_TEXT},
         "ts": {"type": "string", "description": "ISO-8601 time (default now)"}},
         "required": ["text"], "additionalProperties": False}},
    {"name": "brief",
     "description": "Session brief within a token budget; corrections first.",
     "input_schema": {"type": "object", "properties": {
         "budget": {"type": "integer", "minimum": 1, "maximum": MAX_BUDGET}},
         "additionalProperties": False}},
    {"name": "correct",
     "description": "Record a correction: withdrawn terms are no longer true.",
     "input_schema": {"type": "object", "properties": {
         "note": {"type": "string", "maxLength": MAX_NOTE},
         "withdrawn": _TERMS, "replacement": _TERMS,
         "subject": {"type": "string", "description": "event:ID, fact:ID or entity:ID"},
         "supersedes": {"type": "array", "items": {"type": "integer"},
                        "description": "journal rows of earlier corrections"}},
         "additionalProperties": False}},
    {"name": "get_event",
     "description": "One event by id or key, with emotions, entities, links and sources.",
     "input_schema": {"type": "object", "properties": {
         "id": {"type": ["integer", "string"]}},
         "required": ["id"], "additionalProperties": False}},
]


class ToolError(PulseError):
    """A bad tool call: reported to the client as a tool error."""


# -- validation -------------------------------------------------------------------------------

def _args(name: str, arguments: Any) -> dict[str, Any]:
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolError(f"{name}: arguments must be an object")
    schema = next(t["input_schema"] for t in TOOLS if t["name"] == name)
    unknown = sorted(set(arguments) - set(schema["properties"]))
    if unknown:
        raise ToolError(f"{name}: unknown argument {unknown[0]!r} (known: "
                        f"{', '.join(schema['properties'])})")
    for key in schema.get("required", []):
        if key not in arguments or arguments[key] is None:
            raise ToolError(f"{name}: {key!r} is required")
    return arguments


def _text(name: str, key: str, value: Any, limit: int, *, required: bool = True) -> str:
    if not isinstance(value, str):
        raise ToolError(f"{name}: {key} must be a string")
    if required and not value.strip():
        raise ToolError(f"{name}: {key} is empty")
    if len(value) > limit:
        raise ToolError(f"{name}: {key} is {len(value):,} characters; the limit is {limit:,}")
    return value


def _int(name: str, key: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolError(f"{name}: {key} must be a whole number")
    if not low <= value <= high:
        raise ToolError(f"{name}: {key} must be in {low}..{high:,}, got {value}")
    return value


def _terms(name: str, key: str, value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ToolError(f"{name}: {key} must be a list of strings")
    if len(value) > MAX_TERMS:
        raise ToolError(f"{name}: at most {MAX_TERMS} {key} terms")
    return value


def _finite(value: Any) -> Any:
    """JSON-safe copy (NaN/inf → None)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


# -- tools ------------------------------------------------------------------------------------

class PulseTools:
    """The tool implementations over one Memory (no MCP types: testable directly)."""

    def __init__(self, memory: Any, extractor: str = "offline") -> None:
        self.memory = memory
        self.extractor = extractor

    def call(self, name: str, arguments: Any) -> dict[str, Any]:
        handler: Callable[[dict[str, Any]], dict[str, Any]] | None = getattr(
            self, f"tool_{name}", None)
        if handler is None or name not in {t["name"] for t in TOOLS}:
            raise ToolError(f"unknown tool {name!r} (tools: "
                            f"{', '.join(t['name'] for t in TOOLS)})")
        return handler(_args(name, arguments))

    def tool_recall(self, a: dict[str, Any]) -> dict[str, Any]:
        from core.scoring.state import parse_state

        query = _text("recall", "query", a["query"], MAX_QUERY)
        top_k = _int("recall", "top_k", a.get("top_k", 5), 1, MAX_TOP_K)
        chain = a.get("chain", False)
        if not isinstance(chain, bool):
            raise ToolError("recall: chain must be true or false")
        domains = a.get("domains")
        if domains is not None:
            if not isinstance(domains, list) or not all(isinstance(d, str) for d in domains):
                raise ToolError("recall: domains must be a list of strings")
            bad = [d for d in domains if d not in DOMAINS]
            if bad:
                raise ToolError(f"recall: unknown domain {bad[0]!r} (one of {', '.join(DOMAINS)})")
        state = a.get("user_state")
        if state is not None and not isinstance(state, dict):
            raise ToolError("recall: user_state must be an object")
        try:
            parsed = parse_state(state) if state is not None else None
        except PulseError as exc:
            raise ToolError(f"recall: user_state: {exc}") from None
        out = self.memory.retrieve(query, top_k=top_k, state=parsed, chain=chain,
                                   domains=domains or None)
        return _finite(out)

    def tool_remember(self, a: dict[str, Any]) -> dict[str, Any]:
        text = _text("remember", "text", a["text"], MAX_TEXT)
        ts = a.get("ts")
        if ts is not None:
            from core.scoring.scorer import parse_iso

            _text("remember", "ts", ts, 64)
            try:
                parse_iso(ts, "ts")
            except PulseError as exc:
                raise ToolError(f"remember: {exc}") from None
        try:
            from core.ingest import remember
        except ImportError:
            raise ToolError("remember: this Pulse has no ingestion pipeline yet") from None
        return _finite(remember(self.memory, text, ts, extractor=self.extractor))

    def tool_brief(self, a: dict[str, Any]) -> dict[str, Any]:
        from core.trust.brief import brief

        budget = a.get("budget")
        if budget is not None:
            budget = _int("brief", "budget", budget, 1, MAX_BUDGET)
        out = brief(self.memory, budget)
        return {k: out[k] for k in ("text", "tier", "chars", "tokens", "budget", "cut",
                                    "binding_corrections", "journal_ok")}

    def tool_correct(self, a: dict[str, Any]) -> dict[str, Any]:
        from core.trust.corrections import correct

        note = _text("correct", "note", a.get("note", ""), MAX_NOTE, required=False)
        withdrawn = _terms("correct", "withdrawn", a.get("withdrawn"))
        replacement = _terms("correct", "replacement", a.get("replacement"))
        subject = a.get("subject")
        if subject is not None:
            _text("correct", "subject", subject, 200)
        supersedes = a.get("supersedes") or []
        if not isinstance(supersedes, list):
            raise ToolError("correct: supersedes must be a list of journal rows")
        supersedes = [_int("correct", "supersedes", s, 1, 2 ** 53) for s in supersedes]
        if not note.strip() and not withdrawn and not replacement:
            raise ToolError("correct: give a note or withdrawn/replacement terms")
        try:
            return correct(self.memory, withdrawn=withdrawn, replacement=replacement, note=note,
                           subject=subject, supersedes=supersedes, actor="manual")
        except PulseError as exc:
            raise ToolError(f"correct: {exc}") from None

    def tool_get_event(self, a: dict[str, Any]) -> dict[str, Any]:
        ref = a["id"]
        if isinstance(ref, bool) or not isinstance(ref, (int, str)):
            raise ToolError("get_event: id must be a number or a key such as e001")
        if isinstance(ref, str):
            _text("get_event", "id", ref, 200)
        try:
            return _finite(event_detail(self.memory, ref))
        except PulseError as exc:
            raise ToolError(f"get_event: {exc}") from None


def event_detail(memory: Any, ref: str | int) -> dict[str, Any]:
    """One event with its emotions, entities, chain links and sources (no vectors)."""
    from core.store import records

    conn = memory.conn
    event_id = records.resolve_event(conn, ref)
    event = dict(conn.execute("SELECT * FROM events WHERE id = ?", (event_id,)).fetchone())
    try:
        event["biometrics"] = json.loads(event["biometrics"] or "{}")
    except ValueError:
        pass
    emo = conn.execute("SELECT * FROM event_emotions WHERE event_id = ?", (event_id,)).fetchone()
    if emo is not None:
        emo = dict(emo)
        emo.pop("event_id")
    entities = [dict(r) for r in conn.execute(
        "SELECT e.id, e.key, e.canonical_name AS name, e.kind FROM event_entities l"
        " JOIN entities e ON e.id = l.entity_id WHERE l.event_id = ? ORDER BY e.id", (event_id,))]
    parents = [dict(r) for r in conn.execute(
        "SELECT parent_id AS id, kind, strength FROM event_chains WHERE child_id = ?"
        " ORDER BY parent_id", (event_id,))]
    children = [dict(r) for r in conn.execute(
        "SELECT child_id AS id, kind, strength FROM event_chains WHERE parent_id = ?"
        " ORDER BY child_id", (event_id,))]
    sources = [dict(r) for r in conn.execute(
        "SELECT DISTINCT o.id, o.source_kind, o.source_id, o.observed_at FROM observations o"
        " WHERE o.id IN (SELECT observation_id FROM evidence WHERE row_kind = 'event'"
        " AND row_id = ?) OR o.id = ? ORDER BY o.id", (event_id, event["source_observation"]))]
    return {"event": event, "emotions": emo, "entities": entities, "parents": parents,
            "children": children, "sources": sources}


# -- the MCP server ------------------------------------------------------------------------------

def build_server(tools: PulseTools):
    import mcp_types as types
    from mcp.server.lowlevel import Server

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(**t) for t in TOOLS])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            out = tools.call(params.name, params.arguments)
        except PulseError as exc:
            return types.CallToolResult(content=[types.TextContent(text=str(exc))],
                                        is_error=True)
        except Exception as exc:  # a bug: still a tool error, not a dead server
            return types.CallToolResult(
                content=[types.TextContent(text=f"{params.name}: unexpected error: "
                                                f"{type(exc).__name__}: {exc}")],
                is_error=True)
        text = json.dumps(out, ensure_ascii=False)
        return types.CallToolResult(content=[types.TextContent(text=text)],
                                    structured_content=out)

    return Server("pulse", version="1", instructions="Pulse memory: recall, remember, brief, "
                  "correct, get_event. Call brief at session start; corrections come first.",
                  on_list_tools=list_tools, on_call_tool=call_tool)


def serve(db_path: str | None = None, extractor: str = "offline") -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    from core.memory import Memory

    memory = Memory.open(db_path)
    server = build_server(PulseTools(memory, extractor))

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        memory.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pulse-mcp", description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="memory file (default: $PULSE_DB, else the user data folder)")
    parser.add_argument("--extractor", default="offline", help="remember's extractor")
    args = parser.parse_args(argv)
    try:
        serve(args.db, args.extractor)
    except PulseError as exc:
        print(f"pulse mcp: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
