"""A scripted MCP client over stdio, for the soak and the live-refresh test: starts `pulse mcp`
as a real process, says `initialize` with a client name, and calls tools one line at a time
(plain JSON-RPC, no SDK: a bounded, synchronous script)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL = "2025-06-18"


class McpProcess:
    def __init__(self, db: Path, client: str = "soak-companion", *, timeout: float = 120) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        env.pop("PULSE_DB", None)
        self.proc = subprocess.Popen([sys.executable, "-m", "core.cli", "--db", str(db), "mcp"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, cwd=ROOT)
        self.lines: queue.Queue = queue.Queue()
        self.stderr: list[bytes] = []
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()
        try:
            from mcp_types import LATEST_PROTOCOL_VERSION as version
        except ImportError:
            version = PROTOCOL
        reply = self.request("initialize", {"protocolVersion": version, "capabilities": {},
                                            "clientInfo": {"name": client, "version": "1"}},
                             timeout=timeout)
        if "result" not in reply:
            raise RuntimeError(f"pulse mcp refused initialize: {reply}")
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _send(self, message: dict[str, Any]) -> None:
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any], timeout: float = 60) -> dict:
        ident = self.next_id
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"pulse mcp: no answer to {method} in {timeout} s")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise RuntimeError("pulse mcp exited: "
                                   + b"".join(self.stderr)[-2000:].decode("utf-8", "replace"))
            message = json.loads(line)
            if message.get("id") == ident:
                return message

    def call(self, tool: str, arguments: dict[str, Any], timeout: float = 60
             ) -> tuple[bool, Any]:
        """(is_error, the tool's JSON answer or its error text)."""
        reply = self.request("tools/call", {"name": tool, "arguments": arguments}, timeout)
        if "error" in reply:
            return True, reply["error"].get("message", "")
        result = reply["result"]
        text = result["content"][0]["text"]
        if result.get("isError"):
            return True, text
        return False, json.loads(text)

    def close(self) -> int:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()
