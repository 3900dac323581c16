"""The MCP server and listeners (issue 7 §6).

- Nothing in the code base listens anywhere but 127.0.0.1 (or stdio): a static audit of every
  Python file (the fake servers in tests too), and at run time `pulse mcp` and the desktop app
  (with its QtWebEngine helper processes) hold no listening socket at all.
- `pulse mcp` over real stdio: oversized tool input (a 5 MB query, a 1 MB note, 100,000 terms,
  arguments nested 100,000 deep) and malformed frames (not JSON, invalid UTF-8, wrong shapes)
  are refused with a clear error, the server keeps answering, and the memory is unchanged.
"""

from __future__ import annotations

import ast
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

from core.memory import Memory

ROOT = Path(__file__).resolve().parent.parent
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
WILDCARDS = {"0.0.0" + ".0", ":" + ":", "0" * 2}  # spelled so this file does not match itself

CORPUS = {"format": "pulse-corpus/1", "events": [
    {"key": "e1", "title": "Argument with Dana", "description": "She said I never listen.",
     "ts": "2026-10-20T10:00:00Z"},
    {"key": "e2", "title": "Hiking trip", "ts": "2026-09-01T10:00:00Z"}]}


# -- static audit --------------------------------------------------------------------------------

def python_files() -> list[Path]:
    out = []
    for folder in ("core", "pulse_desktop", "tests", "bench", "packaging"):
        out += [p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts]
    return sorted(out)


BIND_CALLS = {"bind", "HTTPServer", "ThreadingHTTPServer", "TCPServer", "ThreadingTCPServer",
              "UDPServer", "create_server", "start_server", "serve", "run", "listen",
              "make_server", "Server", "Config"}


def host_of(node: ast.Call) -> ast.expr | None:
    """The host a server / bind call names: first element of an address tuple, or host=."""
    for kw in node.keywords:
        if kw.arg in ("host", "hostname", "listen", "bind"):
            return kw.value
    if node.args and isinstance(node.args[0], ast.Tuple) and node.args[0].elts:
        return node.args[0].elts[0]
    return None


def test_every_listener_binds_to_localhost_only() -> None:
    problems, servers = [], 0
    for path in python_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        rel = path.relative_to(ROOT)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in WILDCARDS:
                problems.append(f"{rel}:{node.lineno}: wildcard address {node.value!r}")
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(
                node.func, "id", "")
            if name not in BIND_CALLS:
                continue
            host = host_of(node)
            if host is None:
                continue
            servers += 1
            if not (isinstance(host, ast.Constant) and host.value in LOCAL_HOSTS):
                problems.append(f"{rel}:{node.lineno}: {name}() binds to "
                                f"{ast.unparse(host)!r}, not 127.0.0.1")
    assert problems == [], "\n".join(problems)
    assert servers >= 1, "the audit found no server at all (the fake LLM server should count)"


def listening(pid: int) -> list[str]:
    """Listening inet sockets of a process and all its children."""
    out = []
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return out
    for proc in procs:
        try:
            for c in proc.net_connections(kind="inet"):
                if c.status == psutil.CONN_LISTEN or (c.type == 2 and not c.raddr):
                    out.append(f"{proc.name()}[{proc.pid}] {c.laddr}")
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return out


# -- a raw JSON-RPC client over the server's stdio -----------------------------------------------

class RawJSON(str):
    """Arguments given as JSON text, sent as they are."""


class RawServer:
    def __init__(self, db: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        env.pop("PULSE_DB", None)
        self.proc = subprocess.Popen([sys.executable, "-m", "core.cli", "--db", str(db), "mcp"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, cwd=ROOT)
        self.lines: queue.Queue = queue.Queue()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data if data.endswith(b"\n") else data + b"\n")
        self.proc.stdin.flush()

    def send(self, message: dict) -> None:
        self.send_raw(json.dumps(message).encode())

    def wait_for(self, ident: int, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                raise AssertionError(f"the server exited waiting for {ident}: "
                                     f"{b''.join(self.stderr)[-2000:]!r}")
            msg = json.loads(line)
            if msg.get("id") == ident:
                return msg
        raise AssertionError(f"no answer to request {ident} in {timeout} s")

    def call(self, ident: int, name: str, arguments, timeout: float = 30) -> dict:
        if isinstance(arguments, RawJSON):
            head = {"jsonrpc": "2.0", "id": ident, "method": "tools/call"}
            frame = (json.dumps(head)[:-1] + ', "params": {"name": ' + json.dumps(name)
                     + ', "arguments": ' + arguments + "}}")
            self.send_raw(frame.encode())
        else:
            self.send({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments}})
        return self.wait_for(ident, timeout)

    def handshake(self, client: str) -> None:
        """initialize (request 1) and the initialized notification, as a client opens."""
        import mcp_types

        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": mcp_types.LATEST_PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": client, "version": "1"}}})
        assert "result" in self.wait_for(1)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def close(self) -> int:
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise


def tool_error(reply: dict) -> str:
    """The clear message of a refused call (a tool error, or a JSON-RPC error)."""
    if "error" in reply:
        return reply["error"]["message"]
    result = reply["result"]
    assert result.get("isError") is True, f"accepted: {json.dumps(result)[:300]}"
    text = result["content"][0]["text"]
    return text


def test_mcp_refuses_oversized_and_malformed_input(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory.open(db, create=True) as memory:
        memory.import_corpus(CORPUS)
        before = (memory.digest(), memory.stats()["journal_head"])

    server = RawServer(db)
    try:
        server.handshake("reliability")
        assert not listening(server.proc.pid), listening(server.proc.pid)

        # malformed frames: the server must survive them (and answer the next request)
        for frame in (b"this is not json", b"\xff\xfe\x00garbage", b"{", b"[]", b"null",
                      b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": "nope"}',
                      b'{"jsonrpc": "1.0", "id": 3, "method": "tools/list"}',
                      b'{"id": 4}', b"[" * 100_000 + b"]" * 100_000):
            server.send_raw(frame)
        server.send({"jsonrpc": "2.0", "id": 10, "method": "tools/list"})
        assert len(server.wait_for(10)["result"]["tools"]) == 6

        refused = {
            11: ("recall", {"query": "x" * 5_000_000}, "limit"),
            12: ("remember", {"text": "y" * 1_000_000}, "limit"),
            13: ("correct", {"withdrawn": ["a"] * 100_000, "note": "n"}, "at most"),
            14: ("recall", {"query": "x", "user_state": {"mood_vector": {"shame": 5}}}, "state"),
            15: ("recall", {"query": "x", "top_k": 10**12}, "top_k"),
            16: ("get_event", {"id": "9" * 10_000}, "event"),
            17: ("recall", ["not", "an", "object"], ""),
            18: ("recall", {"query": "x", "user_state": {"recent_life_events_7d": ["z"] * 200_000}},
                 ""),
            19: ("nosuchtool", {}, "unknown tool"),
            20: ("brief", {"budget": "all of it"}, "budget"),
            21: ("recall", {"query": "x", "domains": ["real"] * 100_000}, ""),
        }
        # arguments nested 50,000 deep (as raw JSON: Python's own encoder cannot write them)
        refused[22] = ("recall", RawJSON('{"query": "x", "user_state": ' + '{"a": ' * 50_000
                                         + "{}" + "}" * 50_000 + "}"), "")
        problems = []
        for ident, (name, args, needle) in refused.items():
            started = time.monotonic()
            try:
                reply = server.call(ident, name, args)
            except AssertionError as exc:  # no reply at all: the client would wait forever
                problems.append(f"#{ident} {name}: {exc}")
                assert server.proc.poll() is None, "the server died"
                continue
            took = time.monotonic() - started
            size = len(args) if isinstance(args, RawJSON) else len(json.dumps(args))
            try:
                message = tool_error(reply)
            except AssertionError:
                problems.append(f"#{ident} {name} ({size:,} bytes) was accepted ({took:.1f} s)")
                continue
            if needle.lower() not in message.lower() or "\n" in message or len(message) > 1000 \
                    or "Traceback" in message:
                problems.append(f"#{ident} {name}: unclear refusal: {message[:200]!r}")
            if took > 30:
                problems.append(f"#{ident} {name}: took {took:.0f} s to refuse")
        assert problems == [], "\n".join(problems)

        # still alive and still correct
        ok = server.call(30, "recall", {"query": "argument with Dana", "top_k": 1})
        assert json.loads(ok["result"]["content"][0]["text"])["results"][0]["key"] == "e1"
        assert server.close() == 0
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
    assert b"Traceback" not in b"".join(server.stderr), b"".join(server.stderr)[-3000:]

    with Memory.open(db) as memory:
        assert (memory.digest(), memory.stats()["journal_head"]) == before
        assert memory.verify() == []


def test_mcp_answers_arguments_with_a_lone_surrogate(tmp_path: Path) -> None:
    """A client that cuts text by UTF-16 units splits an emoji and sends half of it as a lone
    escape ("\\ud83d"). The SDK's parser refuses such a frame, so the call went unanswered and
    the companion waited forever. Like an invalid UTF-8 byte, the half is read as U+FFFD."""
    db = tmp_path / "m.db"
    with Memory.open(db, create=True) as memory:
        memory.import_corpus(CORPUS)

    server = RawServer(db)
    try:
        server.handshake("surrogates")
        recall = server.call(2, "recall", {"query": "argument with Dana \ud83d", "top_k": 1})
        assert not recall["result"].get("isError"), recall
        answer = json.loads(recall["result"]["content"][0]["text"])
        assert answer["query"] == "argument with Dana \ufffd"
        assert answer["results"][0]["key"] == "e1"
        remembered = server.call(3, "remember", {"text": "A walk \udc00 by the sea with Dana."})
        assert not remembered["result"].get("isError"), remembered
        observation = json.loads(remembered["result"]["content"][0]["text"])["observation"]
        assert server.close() == 0
    finally:
        if server.proc.poll() is None:
            server.proc.kill()

    with Memory.open(db) as memory:
        stored = memory.full_text(observation)
        assert stored == "A walk \ufffd by the sea with Dana."
        assert memory.verify() == []


def test_a_piped_session_is_answered_in_full_before_the_server_exits(tmp_path: Path) -> None:
    """A script that writes its requests and closes stdin (`printf … | pulse mcp`) gets an
    answer to each: the requests still running at end of input were cancelled, unanswered."""
    import mcp_types

    db = tmp_path / "m.db"
    with Memory.open(db, create=True) as memory:
        memory.import_corpus(CORPUS)
    frames = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": mcp_types.LATEST_PROTOCOL_VERSION, "capabilities": {},
        "clientInfo": {"name": "script", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    calls = {2: ("recall", {"query": "argument with Dana", "top_k": 1}),
             3: ("brief", {"budget": 200}), 4: ("get_event", {"id": "e2"}),
             5: ("recall", {"query": "hiking", "top_k": 1})}
    frames += [{"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": name, "arguments": args}} for i, (name, args) in calls.items()]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PULSE_DB", None)
    run = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), "mcp"],
                         input="".join(json.dumps(f) + "\n" for f in frames).encode(),
                         capture_output=True, env=env, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    answered = {json.loads(line).get("id") for line in run.stdout.splitlines() if line.strip()}
    assert answered == {1, 2, 3, 4, 5}, run.stderr[-2000:]


def test_the_desktop_app_listens_nowhere(tmp_path: Path, demo_db: Path) -> None:
    """The app, with its graph page loaded in QtWebEngine (a helper process tree), holds no
    listening socket."""
    import shutil

    db = tmp_path / "demo.db"
    shutil.copy(demo_db, db)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen",
           "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    proc = subprocess.Popen([sys.executable, "-m", "pulse_desktop", "--db", str(db)], env=env,
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        seen_children = 0
        deadline = time.monotonic() + 120
        found: list[str] = []
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            try:
                seen_children = max(seen_children,
                                    len(psutil.Process(proc.pid).children(recursive=True)))
            except psutil.NoSuchProcess:
                break
            found += listening(proc.pid)
            if seen_children >= 1 and time.monotonic() > deadline - 100:
                # QtWebEngine is up (its helpers exist); keep watching a little longer
                time.sleep(5)
                found += listening(proc.pid)
                break
            time.sleep(0.5)
        assert seen_children >= 1, "QtWebEngine's helper processes never started"
        assert found == [], found
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
