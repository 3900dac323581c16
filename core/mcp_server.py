"""`pulse mcp`: an MCP server on stdio (the official `mcp` SDK, low-level Server) over one memory.

Tools: recall, why, remember, brief, correct, get_event. Every argument is validated here (types,
ranges, lengths, unknown keys); a bad call returns a tool error (is_error) with one clear line
and changes nothing. Every recall, brief and get_event served is written to the memory's recall
log with the client's name from `initialize` (core/trust/recall_log.py). The tool definitions are kept small (a test holds tools/list under 4 KB).

Run: `python -m core.mcp_server --db PATH [--extractor offline|ALIAS]` or `pulse mcp`.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable
from contextlib import asynccontextmanager
from typing import Any

from core.beliefs import DOMAINS
from core.emotion.plutchik import EMOTIONS
from core.errors import PulseError

MAX_QUERY = 2000
MAX_TEXT = 20000
MAX_NOTE = 4000
MAX_TERMS = 50
MAX_TOP_K = 50
MAX_BUDGET = 200_000
MAX_ARGS_BYTES = 64 * 1024      # a tool call's arguments, serialized as JSON (UTF-8)
MAX_ARGS_DEPTH = 16             # nesting of a tool call's arguments
MAX_LIFE_EVENTS = 50            # user_state.recent_life_events_7d
MAX_LIFE_EVENT = 500            # characters in one of them
MAX_SUPERSEDES = 50
MAX_REF = 200                   # get_event id / correct subject as text
MAX_TS = 64
MAX_FRAME_BYTES = 1024 * 1024   # one JSON-RPC line on stdin
MAX_FRAME_DEPTH = 64            # nesting of one JSON-RPC line on stdin
DRAIN_SECONDS = 300             # at end of input, how long the requests still running may take
MAX_WHY_DEPTH = 10              # chain links walked back by `why`

_STR = {"type": "string"}
_TERMS = {"type": "array", "items": {"type": "string", "maxLength": MAX_QUERY},
          "maxItems": MAX_TERMS}
_STATE = {"type": "object", "description": "stress_proxy, sleep_quality, hrv…", "properties": {
    "mood_vector": {"type": "object", "propertyNames": {"enum": list(EMOTIONS)},
                    "additionalProperties": {"type": "number", "minimum": 0, "maximum": 1}},
    "recent_life_events_7d": {"type": "array", "maxItems": MAX_LIFE_EVENTS,
                              "items": {"type": "string", "maxLength": MAX_LIFE_EVENT}}}}

_DOMAINS = {"type": "array", "items": {"enum": list(DOMAINS)}, "maxItems": len(DOMAINS)}

TOOLS: list[dict[str, Any]] = [
    {"name": "recall",
     "description": "Search the memory: ranked events with score breakdown and sources, or "
                    "abstained=true when nothing is relevant. chain: the story with its causes.",
     "input_schema": {"type": "object", "properties": {
         "query": {"type": "string", "maxLength": MAX_QUERY},
         "top_k": {"type": "integer", "minimum": 1, "maximum": MAX_TOP_K},
         "user_state": _STATE,
         "chain": {"type": "boolean"},
         "storylines": {"type": "boolean", "description": "one entry per storyline, summarised"},
         "domains": _DOMAINS},
         "required": ["query"], "additionalProperties": False}},
    {"name": "why",
     "description": "What led to an event: its causes in the memory's chains, roots first. "
                    "Give event (id or key) or query (its best match).",
     "input_schema": {"type": "object", "properties": {
         "event": {"type": ["integer", "string"], "maxLength": MAX_REF},
         "query": {"type": "string", "maxLength": MAX_QUERY},
         "depth": {"type": "integer", "minimum": 1, "maximum": MAX_WHY_DEPTH},
         "domains": _DOMAINS},
         "additionalProperties": False}},
    {"name": "remember",
     "description": "Store what was said (extracted offline or by the configured model).",
     "input_schema": {"type": "object", "properties": {
         "text": {"type": "string", "maxLength": MAX_TEXT},
         "ts": {"type": "string", "maxLength": MAX_TS,
                "description": "ISO-8601 time (default now)"}},
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
         "subject": {"type": "string", "maxLength": MAX_REF,
                     "description": "event:ID, fact:ID or entity:ID"},
         "supersedes": {"type": "array", "items": {"type": "integer"},
                        "maxItems": MAX_SUPERSEDES,
                        "description": "journal rows of earlier corrections"}},
         "additionalProperties": False}},
    {"name": "get_event",
     "description": "One event by id or key, with emotions, entities, links and sources.",
     "input_schema": {"type": "object", "properties": {
         "id": {"type": ["integer", "string"], "maxLength": MAX_REF}},
         "required": ["id"], "additionalProperties": False}},
]


class ToolError(PulseError):
    """A bad tool call: reported to the client as a tool error."""


# -- validation -------------------------------------------------------------------------------

def _depth(value: Any, limit: int) -> int:
    """How deeply value nests (iteratively, stopping once past limit: no RecursionError)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if deepest > limit:
                return deepest
            stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict)
                                                  else item))
    return deepest


def _check_size(name: str, arguments: Any) -> None:
    """Refuse arguments nested too deeply or larger than MAX_ARGS_BYTES serialized."""
    if _depth(arguments, MAX_ARGS_DEPTH) > MAX_ARGS_DEPTH:
        raise ToolError(f"{name}: arguments nest too deeply: the limit is at most "
                        f"{MAX_ARGS_DEPTH} levels")
    try:
        size = len(json.dumps(arguments, ensure_ascii=False, default=str).encode("utf-8",
                                                                                 "replace"))
    except (ValueError, TypeError, RecursionError):
        raise ToolError(f"{name}: arguments are not serializable JSON") from None
    if size > MAX_ARGS_BYTES:
        raise ToolError(f"{name}: arguments are {size:,} bytes, over the limit: at most "
                        f"{MAX_ARGS_BYTES:,} bytes per call")


def _args(name: str, arguments: Any) -> dict[str, Any]:
    if arguments is None:
        arguments = {}
    _check_size(name, arguments)
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


def _domains(name: str, domains: Any) -> list[str] | None:
    if domains is None:
        return None
    if not isinstance(domains, list) or not all(isinstance(d, str) for d in domains):
        raise ToolError(f"{name}: domains must be a list of strings")
    if len(domains) > len(DOMAINS):
        raise ToolError(f"{name}: at most {len(DOMAINS)} domains "
                        f"({', '.join(DOMAINS)}), got {len(domains):,}")
    bad = [d for d in domains if d not in DOMAINS]
    if bad:
        raise ToolError(f"{name}: unknown domain {bad[0]!r} (one of {', '.join(DOMAINS)})")
    return domains


def _finite(value: Any) -> Any:
    """JSON-safe copy (NaN/inf → None)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _check_state(state: dict[str, Any]) -> None:
    """The size limits of user_state (parse_state checks the meaning)."""
    mood = state.get("mood_vector")
    if isinstance(mood, dict):
        unknown = [k for k in mood if k not in EMOTIONS]
        if unknown:
            raise ToolError(f"recall: user_state: mood_vector has unknown emotion "
                            f"{str(unknown[0])[:40]!r} (known: {', '.join(EMOTIONS)})")
    events = state.get("recent_life_events_7d")
    if isinstance(events, list):
        if len(events) > MAX_LIFE_EVENTS:
            raise ToolError(f"recall: user_state: at most {MAX_LIFE_EVENTS} "
                            f"recent_life_events_7d, got {len(events):,}")
        for event in events:
            if isinstance(event, str) and len(event) > MAX_LIFE_EVENT:
                raise ToolError(f"recall: user_state: a recent_life_events_7d entry is "
                                f"{len(event):,} characters; the limit is {MAX_LIFE_EVENT}")


# -- tools ------------------------------------------------------------------------------------

class PulseTools:
    """The tool implementations over one Memory (no MCP types: testable directly)."""

    def __init__(self, memory: Any, extractor: str = "offline") -> None:
        self.memory = memory
        self.extractor = extractor
        self.client = "unknown client"   # the MCP client's name, set per call from initialize

    def call(self, name: str, arguments: Any, *, client: str | None = None) -> dict[str, Any]:
        handler: Callable[[dict[str, Any]], dict[str, Any]] | None = getattr(
            self, f"tool_{name}", None)
        if handler is None or name not in {t["name"] for t in TOOLS}:
            raise ToolError(f"unknown tool {name!r} (tools: "
                            f"{', '.join(t['name'] for t in TOOLS)})")
        if client:
            self.client = client
        return handler(_args(name, arguments))

    def tool_recall(self, a: dict[str, Any]) -> dict[str, Any]:
        query = _text("recall", "query", a["query"], MAX_QUERY)
        top_k = _int("recall", "top_k", a.get("top_k", 5), 1, MAX_TOP_K)
        chain = a.get("chain", False)
        if not isinstance(chain, bool):
            raise ToolError("recall: chain must be true or false")
        storylines = a.get("storylines", False)
        if not isinstance(storylines, bool):
            raise ToolError("recall: storylines must be true or false")
        if chain and storylines:
            raise ToolError("recall: choose chain or storylines, not both")
        domains = _domains("recall", a.get("domains"))
        state = a.get("user_state")
        if state is not None and not isinstance(state, dict):
            raise ToolError("recall: user_state must be an object")
        if state is not None:
            _check_state(state)
        try:
            parsed = self.memory.parse_state(state) if state is not None else None
        except PulseError as exc:
            raise ToolError(f"recall: user_state: {exc}") from None
        out = self.memory.recall(query, top_k=top_k, state=parsed, chain=chain,
                                 domains=domains or None, storylines=storylines)
        served, request = out, {"top_k": top_k, "chain": chain, "domains": domains}
        if storylines:     # the log keeps each entry's best member, not the summaries' text
            request["storylines"] = True
            served = {k: v for k, v in out.items() if k != "storylines"}
            served["results"] = [entry["best"] for entry in out["storylines"]]
        self.memory.log_recall("recall", self.client, query=query, state=state,
                               request=request, output=_finite(served))
        return _finite(out)

    def tool_why(self, a: dict[str, Any]) -> dict[str, Any]:
        event, query = a.get("event"), a.get("query")
        if (event is None) == (query is None):
            raise ToolError("why: give event or query (one of them)")
        if event is not None:
            if isinstance(event, bool) or not isinstance(event, (int, str)):
                raise ToolError("why: event must be a number or a key such as e001")
            if isinstance(event, str):
                _text("why", "event", event, MAX_REF)
        else:
            query = _text("why", "query", query, MAX_QUERY)
        depth = a.get("depth")
        if depth is not None:
            depth = _int("why", "depth", depth, 1, MAX_WHY_DEPTH)
        domains = _domains("why", a.get("domains"))
        try:
            out = _finite(self.memory.companion_why(event, query=query, depth=depth,
                                                    domains=domains or None))
        except PulseError as exc:
            raise ToolError(f"why: {exc}") from None
        # what led to an event shows memory text too: the log says the companion saw it
        self.memory.log_recall("why", self.client, query=query or "", request={
            "event": event, "depth": out.get("depth"), "domains": domains}, output=out)
        return out

    def tool_remember(self, a: dict[str, Any]) -> dict[str, Any]:
        text = _text("remember", "text", a["text"], MAX_TEXT)
        ts = a.get("ts")
        if ts is not None:
            _text("remember", "ts", ts, MAX_TS)
            try:
                self.memory.parse_time(ts, "ts")
            except PulseError as exc:
                raise ToolError(f"remember: {exc}") from None
        return _finite(self.memory.remember(text, ts, extractor=self.extractor))

    def tool_brief(self, a: dict[str, Any]) -> dict[str, Any]:
        budget = a.get("budget")
        if budget is not None:
            budget = _int("brief", "budget", budget, 1, MAX_BUDGET)
        out = self.memory.brief(budget, log=self.client)
        return {k: out[k] for k in ("text", "tier", "chars", "tokens", "budget", "cut",
                                    "binding_corrections", "journal_ok", "boundaries")}

    def tool_correct(self, a: dict[str, Any]) -> dict[str, Any]:
        note = _text("correct", "note", a.get("note", ""), MAX_NOTE, required=False)
        withdrawn = _terms("correct", "withdrawn", a.get("withdrawn"))
        replacement = _terms("correct", "replacement", a.get("replacement"))
        subject = a.get("subject")
        if subject is not None:
            _text("correct", "subject", subject, MAX_REF)
        supersedes = a.get("supersedes") or []
        if not isinstance(supersedes, list):
            raise ToolError("correct: supersedes must be a list of journal rows")
        if len(supersedes) > MAX_SUPERSEDES:
            raise ToolError(f"correct: at most {MAX_SUPERSEDES} supersedes rows")
        supersedes = [_int("correct", "supersedes", s, 1, 2 ** 53) for s in supersedes]
        if not note.strip() and not withdrawn and not replacement:
            raise ToolError("correct: give a note or withdrawn/replacement terms")
        try:
            return self.memory.correct(withdrawn=withdrawn, replacement=replacement, note=note,
                           subject=subject, supersedes=supersedes, actor="manual")
        except PulseError as exc:
            raise ToolError(f"correct: {exc}") from None

    def tool_get_event(self, a: dict[str, Any]) -> dict[str, Any]:
        ref = a["id"]
        if isinstance(ref, bool) or not isinstance(ref, (int, str)):
            raise ToolError("get_event: id must be a number or a key such as e001")
        if isinstance(ref, str):
            _text("get_event", "id", ref, MAX_REF)
        try:
            out = _finite(self.memory.companion_event(ref))
        except PulseError as exc:
            raise ToolError(f"get_event: {exc}") from None
        self.memory.log_recall("get_event", self.client, request={"id": ref}, output=out)
        return out


# -- the MCP server ------------------------------------------------------------------------------

def client_name(ctx: Any) -> str | None:
    """The name the client gave in `initialize` (clientInfo.name), if it gave one."""
    for holder in (getattr(ctx, "session", None), getattr(ctx, "connection", None)):
        info = getattr(getattr(holder, "client_params", None), "client_info", None)
        name = getattr(info, "name", None)
        if isinstance(name, str) and name.strip():
            return " ".join(name.split())[:100]
    return None


def build_server(tools: PulseTools):
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from core.errors import busy_message, is_busy

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(**t) for t in TOOLS])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            out = tools.call(params.name, params.arguments, client=client_name(ctx))
        except PulseError as exc:
            return types.CallToolResult(content=[types.TextContent(text=str(exc))],
                                        is_error=True)
        except Exception as exc:  # a bug: still a tool error, not a dead server
            if is_busy(exc):   # waited and retried already (core/store/db.py): one clear line
                return types.CallToolResult(content=[types.TextContent(
                    text=f"{params.name}: {busy_message(tools.memory.path)}")], is_error=True)
            return types.CallToolResult(
                content=[types.TextContent(text=f"{params.name}: unexpected error: "
                                                f"{type(exc).__name__}: {exc}")],
                is_error=True)
        text = json.dumps(out, ensure_ascii=False)
        return types.CallToolResult(content=[types.TextContent(text=text)],
                                    structured_content=out)

    return Server("pulse", version="1", instructions="Pulse memory: recall, why, remember, "
                  "brief, correct, get_event. Call brief at session start; corrections come "
                  "first. recall says abstained=true when nothing in the memory is relevant.",
                  on_list_tools=list_tools, on_call_tool=call_tool)


# -- stdio with a frame guard ---------------------------------------------------------------------

# one JSON string (escapes included; the unrolled form cannot backtrack badly) or one bracket
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
_ID_VALUE = re.compile(rb'\s*:\s*(-?\d+(?![.eE\d])|"[^"\\]*(?:\\.[^"\\]*)*")')


def _scan_frame(line: bytes, depth_limit: int | None) -> tuple[int, int | str | None]:
    """(deepest nesting, top-level "id") of a JSON text, without parsing it (strings skipped).

    Stops early once the id is known and the nesting is past depth_limit (or at once when
    depth_limit is None and the id is known). Works on a truncated prefix too.
    """
    depth = deepest = 0
    ident: int | str | None = None
    found = False
    for m in _TOKEN.finditer(line):
        token = m.group()
        if token in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        elif token in (b"]", b"}"):
            depth -= 1
        elif depth == 1 and not found and token == b'"id"':
            value = _ID_VALUE.match(line, m.end())
            if value is not None:
                found = True
                try:
                    ident = json.loads(value.group(1))
                except ValueError:
                    ident = None
        if found and (depth_limit is None or deepest > depth_limit):
            break
    return deepest, ident


def frame_problem(line: bytes, oversized: bool = False) -> tuple[str, int | str | None] | None:
    """Why one stdin line must be refused before the SDK parses it, with the request id if it
    can be recovered: (message, id); None for a line the SDK may parse."""
    if oversized or len(line) > MAX_FRAME_BYTES:
        _, ident = _scan_frame(line[:MAX_FRAME_BYTES], None)
        return (f"message too large: over the limit of {MAX_FRAME_BYTES:,} bytes "
                f"(at most {MAX_FRAME_BYTES:,} bytes per line)", ident)
    if line.count(b"[") + line.count(b"{") <= MAX_FRAME_DEPTH:
        return None  # cannot nest deeper than its brackets
    deepest, ident = _scan_frame(line, MAX_FRAME_DEPTH)
    if deepest > MAX_FRAME_DEPTH:
        return (f"message nests too deeply: over the limit of {MAX_FRAME_DEPTH} levels "
                f"(at most {MAX_FRAME_DEPTH})", ident)
    return None


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def without_lone_surrogates(line: str) -> str | None:
    """The frame with each lone UTF-16 surrogate escape made U+FFFD, or None when it is not
    JSON or has none. A client cutting text by UTF-16 units sends half an emoji ("\\ud83d");
    the SDK's parser refuses the whole frame and the request would go unanswered, so the half
    is read as U+FFFD, as an invalid UTF-8 byte is. Python's json reads the escape (a pair
    becomes one character), so any surrogate left in the text is a lone one."""
    try:
        text = json.dumps(json.loads(line), ensure_ascii=False)
    except (ValueError, RecursionError):
        return None
    repaired = _LONE_SURROGATE.sub("\ufffd", text)
    return repaired if repaired != text else None


def parse_frame(line: str) -> Any:
    """The JSON-RPC message of one stdin line (the SDK's parser), a lone surrogate escape read
    as U+FFFD (without_lone_surrogates); raises what the parser raises."""
    import mcp_types as types

    try:
        return types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception:
        repaired = without_lone_surrogates(line)
        if repaired is None:
            raise
    return types.jsonrpc_message_adapter.validate_json(repaired, by_name=False)


def _error_frame(message: str, ident: int | str | None) -> str:
    if isinstance(ident, bool) or not isinstance(ident, (int, str)):
        ident = None
    return json.dumps({"jsonrpc": "2.0", "id": ident,
                       "error": {"code": -32600, "message": message}}, ensure_ascii=False)


def _std_buffers():
    """The binary stdin / stdout the transport owns, claimed the way the SDK's stdio_server
    claims them (fd 0 → null device, fd 1 → stderr while serving), with their restore hooks."""
    try:
        from mcp.server.stdio import _claim_fd, _open_stdin_diversion, _open_stdout_diversion
    except ImportError:  # another SDK layout: serve the std buffers in place
        return sys.stdin.buffer, None, sys.stdout.buffer, None
    restore_out = None
    stdin, restore_in = _claim_fd(0, sys.stdin, "rb", _open_stdin_diversion)
    try:
        stdout, restore_out = _claim_fd(1, sys.stdout, "wb", _open_stdout_diversion)
    except BaseException:
        if restore_in is not None:
            restore_in()
        raise
    return stdin, restore_in, stdout, restore_out


class _InFlight:
    """The ids of the client's requests not answered yet. At end of input the SDK's loop stops
    and cancels the handlers still running, so a client that writes its requests and closes
    stdin (`printf … | pulse mcp`) would lose their answers: the reader waits for them first."""

    def __init__(self) -> None:
        import anyio

        self.ids: set[Any] = set()
        self._changed = anyio.Event()

    def add(self, ident: Any) -> None:
        self.ids.add(ident)

    def done(self, ident: Any) -> None:
        import anyio

        if ident in self.ids:
            self.ids.discard(ident)
            self._changed.set()
            self._changed = anyio.Event()

    async def drained(self, timeout: float) -> None:
        import anyio

        with anyio.move_on_after(timeout):
            while self.ids:
                await self._changed.wait()


@asynccontextmanager
async def guarded_stdio_server(stdin_buffer: Any = None, stdout_buffer: Any = None):
    """stdio_server (mcp.server.stdio) with a guard in front of the SDK's JSON parser.

    Each stdin line is read with a size cap; a line longer than MAX_FRAME_BYTES (drained, never
    held whole) or nesting deeper than MAX_FRAME_DEPTH is answered with a JSON-RPC error
    (-32600, the request's id when it can be recovered, else null) and dropped, so the client
    never waits on a frame the SDK cannot parse and the server keeps serving.
    """
    import anyio
    import anyio.lowlevel
    import anyio.to_thread
    import mcp_types as types
    from mcp.shared._context_streams import create_context_streams
    from mcp.shared.message import SessionMessage

    restore_in = restore_out = None
    try:
        if stdin_buffer is None or stdout_buffer is None:
            claimed_in, restore_in, claimed_out, restore_out = _std_buffers()
            stdin_buffer = stdin_buffer or claimed_in
            stdout_buffer = stdout_buffer or claimed_out
        stdout = anyio.wrap_file(stdout_buffer)
        write_lock = anyio.Lock()

        read_stream_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
        in_flight = _InFlight()
        write_stream, write_stream_reader = create_context_streams[SessionMessage](0)

        async def write_line(text: str) -> None:
            async with write_lock:
                await stdout.write((text + "\n").encode("utf-8", "replace"))
                await stdout.flush()

        async def readline(limit: int) -> bytes:
            return await anyio.to_thread.run_sync(stdin_buffer.readline, limit)

        async def read_lines():
            while True:
                chunk = await readline(MAX_FRAME_BYTES + 1)
                if not chunk:
                    return
                if chunk.endswith(b"\n") or len(chunk) <= MAX_FRAME_BYTES:
                    yield chunk, False
                    continue
                while True:  # too long: drain the rest of the line without keeping it
                    rest = await readline(MAX_FRAME_BYTES)
                    if not rest or rest.endswith(b"\n"):
                        break
                yield chunk, True

        async def stdin_reader():
            try:
                async with read_stream_writer:
                    async for raw, oversized in read_lines():
                        if not raw.strip():
                            continue
                        problem = frame_problem(raw, oversized)
                        if problem is not None:
                            await write_line(_error_frame(*problem))
                            continue
                        line = raw.decode("utf-8", "replace")
                        try:
                            message = parse_frame(line)
                        except Exception as exc:
                            await read_stream_writer.send(exc)
                            continue
                        if isinstance(message, types.JSONRPCRequest):
                            in_flight.add(message.id)
                        elif (isinstance(message, types.JSONRPCNotification)
                              and message.method == "notifications/cancelled"):
                            params = message.params if isinstance(message.params, dict) else {}
                            in_flight.done(params.get("requestId"))
                        await read_stream_writer.send(SessionMessage(message))
                    await in_flight.drained(DRAIN_SECONDS)   # end of input: answer them first
            except anyio.ClosedResourceError:
                await anyio.lowlevel.checkpoint()

        async def stdout_writer():
            try:
                async with write_stream_reader:
                    async for session_message in write_stream_reader:
                        message = session_message.message
                        await write_line(message.model_dump_json(
                            by_alias=True, exclude_unset=True))
                        if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
                            in_flight.done(message.id)
            except anyio.ClosedResourceError:
                await anyio.lowlevel.checkpoint()

        async with anyio.create_task_group() as tg:
            tg.start_soon(stdin_reader)
            tg.start_soon(stdout_writer)
            yield read_stream, write_stream
    finally:
        if restore_out is not None:
            restore_out()
        if restore_in is not None:
            restore_in()


def serve(db_path: str | None = None, extractor: str = "offline") -> None:
    import anyio

    from core.memory import Memory, default_db_path

    # the passphrase of an encrypted memory: $PULSE_PASSPHRASE, else the terminal (never stdin,
    # which carries JSON-RPC), else one clear line and exit 1
    path = db_path or default_db_path()
    memory = Memory.open(path, passphrase=Memory.passphrase_prompt(path))
    server = build_server(PulseTools(memory, extractor))

    async def main() -> None:
        async with guarded_stdio_server() as (read_stream, write_stream):
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
