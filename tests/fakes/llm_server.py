"""A fake LLM HTTP server on 127.0.0.1 (a free port) speaking the minimal Anthropic Messages
(`POST /v1/messages`) and OpenAI Chat Completions (`POST /v1/chat/completions`) protocols, so
tests run the REAL `anthropic` and `openai` SDKs with no network and no key.

Responses are scripted per test, in order (one per request); every request is recorded.

    with FakeLLMServer() as server:
        server.script(anthropic_tool("triage", {"decision": "extract"}), error(429), ...)
        client = anthropic.Anthropic(base_url=server.url, api_key="test")
        ...
        server.requests  # [{"path", "body", "headers"}, ...]

or the pytest fixture `fake_llm` (import it into a test module: `from tests.fakes.llm_server
import fake_llm  # noqa: F401`).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_ids = itertools.count(1)


def anthropic_tool(name: str, data: Any, *, input_tokens: int = 100,
                   output_tokens: int = 50) -> dict[str, Any]:
    """A Messages answer that calls tool `name` with input `data`."""
    return {"status": 200, "body": {
        "id": f"msg_{next(_ids)}", "type": "message", "role": "assistant", "model": "fake",
        "content": [{"type": "tool_use", "id": f"toolu_{next(_ids)}", "name": name,
                     "input": data}],
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}}


def anthropic_text(text: str, *, input_tokens: int = 10, output_tokens: int = 5) -> dict[str, Any]:
    return {"status": 200, "body": {
        "id": f"msg_{next(_ids)}", "type": "message", "role": "assistant", "model": "fake",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}}


def openai_tool(name: str, arguments: Any, *, prompt_tokens: int = 100,
                completion_tokens: int = 50) -> dict[str, Any]:
    """A Chat Completions answer calling function `name`; `arguments` is sent as given when it
    is a string (so a test can send malformed JSON), else JSON-encoded."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"status": 200, "body": {
        "id": f"chatcmpl-{next(_ids)}", "object": "chat.completion", "created": 0,
        "model": "fake", "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "tool_calls": [{
                "id": f"call_{next(_ids)}", "type": "function",
                "function": {"name": name, "arguments": args}}]}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens}}}


def openai_text(text: str) -> dict[str, Any]:
    return {"status": 200, "body": {
        "id": f"chatcmpl-{next(_ids)}", "object": "chat.completion", "created": 0,
        "model": "fake", "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}}


def error(status: int, message: str = "scripted error") -> dict[str, Any]:
    """An HTTP error in both protocols' shapes; retry-after 0 keeps SDK retries instant."""
    kind = {429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}.get(
        status, "invalid_request_error")
    return {"status": status, "headers": {"retry-after": "0", "retry-after-ms": "0"},
            "body": {"type": "error", "error": {"type": kind, "message": message,
                                                "code": None, "param": None}}}


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        owner = self.server.owner
        with owner.lock:
            owner.requests.append({"path": self.path, "body": body,
                                   "headers": {k.lower(): v for k, v in self.headers.items()}})
            reply = owner.queue.popleft() if owner.queue else error(500, "no scripted response")
        payload = json.dumps(reply["body"]).encode("utf-8")
        self.send_response(reply["status"])
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        for k, v in reply.get("headers", {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(payload)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeLLMServer


class FakeLLMServer:
    def __init__(self) -> None:
        self.queue: deque[dict[str, Any]] = deque()
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """Base URL for the anthropic SDK (it appends /v1/messages)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        """Base URL for the openai SDK (it appends /chat/completions)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *replies: dict[str, Any]) -> FakeLLMServer:
        with self.lock:
            self.queue.extend(replies)
        return self

    def reset(self) -> None:
        with self.lock:
            self.queue.clear()
            self.requests.clear()

    def paths(self) -> list[str]:
        return [r["path"] for r in self.requests]

    def tool_names(self) -> list[str]:
        """The forced tool of each request, in order (either protocol)."""
        out = []
        for r in self.requests:
            choice = r["body"].get("tool_choice") or {}
            out.append(choice.get("name") or (choice.get("function") or {}).get("name") or "")
        return out

    def start(self) -> FakeLLMServer:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


try:
    import pytest

    @pytest.fixture
    def fake_llm():
        with FakeLLMServer() as server:
            yield server
except ImportError:  # pragma: no cover
    pass
