"""Multi-process soak of one memory (issue 11 §2): the app, the companion's MCP server and the
CLI on one file at once, with real processes and bounded time.

Running together for --seconds:
- a session process in the app's pattern: one Memory held for the whole run (reads, belief
  edits), worker threads opening and closing their own Memory, and a watcher thread polling
  the change marks on its own read-only connection (as the app's live refresh does); each loop
  it also checks that the -wal and -shm are still on disk (the bug of issue 11);
- `pulse mcp` answering recall, remember, brief and get_event from a scripted stdio client;
- CLI writers one after another (`import` of a small chat file, `set`, `pin`, `correct`) and
  CLI readers (`stats`, `retrieve`, `recalls`, `verify`);
- once, a writer process that opens a write transaction, writes a belief edit and is SIGKILLed
  before it commits.

Afterwards (every process stopped): PRAGMA integrity_check is ok, `pulse verify` exits 0,
every acknowledged write is present (journal rows by seq and subject, imported messages by id,
remembered notes by observation), the killed transaction left nothing, no process ever printed
"database is locked" (or busy), every MCP recall is in the recall log under the client's name.
The report is JSON on stdout.

    .venv/bin/python bench/soak.py                   # 60 s (docs/reliability.md §2b)
    .venv/bin/python bench/soak.py --seconds 12      # the size `make test` runs
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CLIENT = "soak-companion"
SENTINEL_FLOOR = 0.777          # what the killed transaction writes: must never be seen
SESSION_EVENTS = range(1, 21)   # s001..s020: the session's belief edits
CLI_FLOOR_EVENTS = range(21, 31)   # s021..s030: `pulse set --floor`
CLI_PIN_EVENTS = range(31, 41)     # s031..s040: `pulse pin` (an axiom refuses a floor < 0.5,
#                                    so the floors are set on other events)
KILLED_EVENT = "s050"
SESSION_CALLS = 25              # MCP calls per companion session (then it reconnects)
QUERIES = ["feeling abandoned", "argument with my sister", "quiet walk by the river",
           "deadline at work", "a letter from my father", "the night I could not sleep",
           "coffee with Dana", "moving to a new flat"]
TOPICS = ["my sister", "the river", "my father", "work", "the new flat", "Dana", "sleep",
          "the garden"]


def corpus(n: int = 60) -> dict[str, Any]:
    rng = random.Random(3)
    events = []
    for i in range(1, n + 1):
        topic = TOPICS[i % len(TOPICS)]
        events.append({"key": f"s{i:03d}", "title": f"About {topic}, day {i}",
                       "description": f"A note about {topic}: {rng.choice(QUERIES)}.",
                       "ts": f"202{i % 6}-0{1 + i % 9}-1{i % 10}T09:00:00Z"})
    return {"format": "pulse-corpus/1", "events": events}


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PULSE_DB", None)
    return env


def _open(db: Path, **options: Any):
    """A Memory on the soak's file; an encrypted one (--encrypted) with $PULSE_PASSPHRASE, as
    `pulse` and `pulse mcp` read it."""
    from core.memory import Memory

    return Memory.open(db, passphrase=os.environ.get("PULSE_PASSPHRASE") or None, **options)


def _busy(text: str) -> bool:
    low = text.lower()
    return "database is locked" in low or "database table is locked" in low or "busy" in low


# -- child roles -----------------------------------------------------------------------------------

def session_role(db: Path, seconds: float, stop_file: Path, plain_read: bool = False) -> int:
    """The app's pattern; prints one JSON line per acknowledged write, then a summary line.
    plain_read: each worker also reads the file's header with a plain open()/close(), as
    core/store/db.py did before issue 11 — to show the soak catches that bug."""

    memory = _open(db)
    wal, shm = Path(f"{db}-wal"), Path(f"{db}-shm")
    rng = random.Random(11)
    ops: Counter = Counter()
    errors: list[str] = []
    missing = 0
    stop = threading.Event()
    lock = threading.Lock()

    def worker() -> None:   # an app worker: its own Memory, opened and closed
        try:
            with _open(db) as w:
                w.stats()
                w.retrieve(rng.choice(QUERIES), top_k=3)
            if plain_read:
                with open(db, "rb") as handle:   # the old bug, on purpose
                    handle.read(100)
            with lock:
                ops["worker"] += 1
        except Exception as exc:  # noqa: BLE001 - counted and reported
            with lock:
                errors.append(f"worker: {type(exc).__name__}: {exc}")

    def watcher() -> None:  # the app's live refresh: its own read-only connection, polling
        last = None
        try:
            with _open(db, read_only=True) as w:
                while not stop.wait(0.4):
                    marks = w.change_marks()
                    with lock:
                        ops["watch"] += 1
                        if marks != last:
                            ops["watch_moved"] += 1
                    last = marks
        except Exception as exc:  # noqa: BLE001
            with lock:
                errors.append(f"watcher: {type(exc).__name__}: {exc}")

    watch = threading.Thread(target=watcher, daemon=True)
    watch.start()
    threads: list[threading.Thread] = []
    deadline = time.monotonic() + seconds
    reported = time.monotonic()
    i = 0
    while time.monotonic() < deadline and not stop_file.exists():
        i += 1
        if time.monotonic() - reported >= 1.0:   # live progress for the harness
            reported = time.monotonic()
            with lock:
                print(json.dumps({"progress": dict(ops)}), flush=True)
        if not (wal.exists() and shm.exists()):
            missing += 1
        try:
            step = i % 8
            if step == 0:
                t = threading.Thread(target=worker)
                t.start()
                threads.append(t)
            elif step in (1, 4):
                memory.retrieve(rng.choice(QUERIES), top_k=5)
                ops["retrieve"] += 1
            elif step == 2:
                key = f"s{rng.choice(SESSION_EVENTS):03d}"
                floor = round(rng.uniform(0.0, 0.6), 3)
                seq = memory.set_belief(key, confidence_floor=floor)
                ops["set"] += 1
                if seq:
                    print(json.dumps({"ack": "journal", "seq": seq,
                                      "subject": f"event:{memory.event(key)['id']}",
                                      "by": "session"}), flush=True)
            elif step == 3:
                memory.stats()
                ops["stats"] += 1
            elif step == 5:
                memory.event(f"s{rng.randint(1, 60):03d}")
                ops["event"] += 1
            elif step == 6:
                memory.recalls(limit=5)
                ops["recalls"] += 1
            else:
                memory.change_marks()
                ops["marks"] += 1
        except Exception as exc:  # noqa: BLE001 - every failure is reported, none hidden
            errors.append(f"step {i}: {type(exc).__name__}: {exc}")
        if not (wal.exists() and shm.exists()):
            missing += 1
    for t in threads:
        t.join()
    stop.set()
    watch.join(timeout=5)
    memory.close()
    print(json.dumps({"summary": {"ops": dict(ops), "errors": errors, "wal_missing": missing}}),
          flush=True)
    return 0


def hold_role(db: Path, key: str, value: float) -> int:
    """Open a write transaction, write a journaled belief edit, say so, and wait to be killed."""

    memory = _open(db)
    with memory.atomic():
        seq = memory.set_belief(key, confidence_floor=value)
        print(json.dumps({"in_transaction": seq}), flush=True)
        time.sleep(3600)
    return 1  # never reached: SIGKILL comes first


# -- the harness -----------------------------------------------------------------------------------

class Run:
    def __init__(self, work: Path, seconds: float, seed: int, log, *, min_ops: int = 0,
                 max_seconds: float = 900, min_each: int = 1, plain_read: bool = False) -> None:
        self.plain_read = plain_read
        self.work = work
        self.db = work / "soak.db"
        self.encrypted = False
        self.seconds = seconds
        self.min_ops = min_ops
        self.max_seconds = max(max_seconds, seconds)
        self.min_each = min_each
        self.session_progress: dict[str, int] = {}
        self.session_lines: list[str] = []
        self.rng = random.Random(seed)
        self.log = log
        self.ops: Counter = Counter()
        self.acks: list[dict[str, Any]] = []
        self.failures: list[str] = []
        self.busy_seen: list[str] = []
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.mcp_recalls = 0
        self.killed: dict[str, Any] = {}

    # bookkeeping
    def ack(self, **item: Any) -> None:
        with self.lock:
            self.acks.append(item)

    def fail(self, text: str) -> None:
        with self.lock:
            self.failures.append(text[:500])
            if _busy(text):
                self.busy_seen.append(text[:300])

    def count(self, kind: str) -> None:
        with self.lock:
            self.ops[kind] += 1

    def pulse(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "core.cli", "--db", str(self.db), "--json",
                               *args], capture_output=True, text=True, env=_env(), cwd=ROOT,
                              timeout=timeout)

    # the actors
    def cli_writer(self) -> None:
        i = 0
        while not self.stop.is_set():
            i += 1
            step = i % 4
            if step == 1:
                chat = self.work / f"chat-{i}.json"
                ids = [f"imp{i}-{j}" for j in range(3)]
                chat.write_text(json.dumps([
                    {"id": mid, "speaker": "Mira", "conversation": "soak",
                     "text": f"Day {i}: I talked with {self.rng.choice(TOPICS)} about "
                             f"{self.rng.choice(QUERIES)} and felt it mattered ({mid}).",
                     "ts": f"2026-10-{1 + i % 28:02d}T18:0{j}:00Z"} for j, mid in enumerate(ids)]),
                    encoding="utf-8")
                args = ["import", str(chat), "--format", "chat"]
            elif step == 2:
                key = f"s{self.rng.choice(CLI_FLOOR_EVENTS):03d}"
                args = ["set", key, "--floor", str(round(self.rng.uniform(0.0, 0.6), 3))]
            elif step == 3:
                args = ["pin", f"s{self.rng.choice(CLI_PIN_EVENTS):03d}"]
            else:
                args = ["correct", "--withdrawn", f"${40 + i}", "--replacement", f"${20 + i}",
                        "--note", f"soak correction {i}"]
            out = self.pulse(*args)
            if _busy(out.stderr):
                self.busy_seen.append(out.stderr[:300])
            if out.returncode != 0:
                self.fail(f"pulse {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
                continue
            self.count(f"cli_{args[0]}")
            data = json.loads(out.stdout)
            if args[0] == "import":
                self.ack(ack="messages", ids=ids)
            elif data.get("journal_seq"):
                subject = (f"event:{data['event']}" if args[0] in ("set", "pin")
                           else None)
                self.ack(ack="journal", seq=data["journal_seq"], subject=subject,
                         by=f"cli {args[0]}")

    def cli_reader(self) -> None:
        i = 0
        while not self.stop.is_set():
            i += 1
            args = [["stats"], ["retrieve", self.rng.choice(QUERIES), "--top-k", "3"],
                    ["recalls", "--limit", "5"], ["verify"]][i % 4]
            out = self.pulse(*args)
            if _busy(out.stderr):
                self.busy_seen.append(out.stderr[:300])
            if out.returncode != 0:
                self.fail(f"pulse {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
            else:
                self.count(f"cli_{args[0]}")

    def companion(self) -> None:
        """`pulse mcp` driven by a scripted client; like a real companion it reconnects (a new
        server process) every SESSION_CALLS calls, so there are moments when the app's session
        and the CLI are the only ones holding the file."""
        i = 0
        while not self.stop.is_set():
            if not self._companion_session(i):
                return
            i += SESSION_CALLS

    def _companion_session(self, first: int) -> bool:
        from mcp_client import McpProcess

        try:
            mcp = McpProcess(self.db, CLIENT)
        except Exception as exc:  # noqa: BLE001
            self.fail(f"pulse mcp did not start: {exc}")
            return False
        self.count("mcp_sessions")
        try:
            for i in range(first + 1, first + SESSION_CALLS + 1):
                if self.stop.is_set():
                    break
                if i % 3 == 0:
                    text = (f"Soak note {i}: today I walked along {self.rng.choice(TOPICS)} "
                            f"and thought about {self.rng.choice(QUERIES)}.")
                    tool, args = "remember", {"text": text}
                elif i % 11 == 0:
                    tool, args = "brief", {"budget": 1500}
                elif i % 7 == 0:
                    tool, args = "get_event", {"id": f"s{self.rng.randint(1, 60):03d}"}
                else:
                    tool, args = "recall", {"query": self.rng.choice(QUERIES), "top_k": 5}
                try:
                    error, answer = mcp.call(tool, args, timeout=120)
                except Exception as exc:  # noqa: BLE001
                    self.fail(f"mcp {tool}: {type(exc).__name__}: {exc}")
                    return False
                if error:
                    self.fail(f"mcp {tool}: {answer}")
                    continue
                self.count(f"mcp_{tool}")
                if tool == "recall":
                    with self.lock:
                        self.mcp_recalls += 1
                if tool == "remember":
                    self.ack(ack="remember", observation=answer.get("observation"), text=text)
            return True
        finally:
            code = mcp.close()
            err = b"".join(mcp.stderr).decode("utf-8", "replace")
            if _busy(err):
                self.busy_seen.append(err[:300])
            if code not in (0, None):
                self.fail(f"pulse mcp exited {code}: {err[-500:]}")

    def killer(self, at: float) -> None:
        if self.stop.wait(at):
            return
        proc = subprocess.Popen([sys.executable, str(BENCH / "soak.py"), "hold", str(self.db),
                                 KILLED_EVENT, str(SENTINEL_FLOOR)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=_env(), cwd=ROOT)
        line = proc.stdout.readline()
        try:
            seq = json.loads(line)["in_transaction"]
        except (ValueError, KeyError, TypeError):
            self.fail(f"the writer to kill never reached its transaction: {proc.stderr.read()}")
            proc.kill()
            return
        time.sleep(0.3)   # the others queue on its write lock meanwhile
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        self.killed = {"uncommitted_seq": seq, "signal": -proc.returncode, "event": KILLED_EVENT}
        self.count("killed_writer")
        self.log(f"SIGKILLed a writer inside its transaction (it had written journal row {seq})")

    # the whole run
    def run(self) -> dict[str, Any]:
        from core.memory import Memory

        secret = os.environ.get("PULSE_PASSPHRASE") or None
        with Memory.open(self.db, create=True, encrypt=bool(secret),
                         passphrase=secret) as memory:
            memory.import_corpus(corpus())
            self.encrypted = memory.encrypted
        started = time.monotonic()
        stop_file = self.work / "stop"
        session = subprocess.Popen([sys.executable, str(BENCH / "soak.py"), "session",
                                    str(self.db), "--seconds", str(self.max_seconds + 60),
                                    "--stop-file", str(stop_file)]
                                   + (["--plain-header-read"] if self.plain_read else []),
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, env=_env(), cwd=ROOT)
        reader = threading.Thread(target=self._follow_session, args=(session,), daemon=True)
        reader.start()
        threads = [threading.Thread(target=f, daemon=True) for f in (
            self.cli_writer, self.cli_reader, self.companion)]
        threads.append(threading.Thread(target=self.killer, args=(self.seconds * 0.4,),
                                        daemon=True))
        for t in threads:
            t.start()
        while not self.stop.wait(0.5):
            elapsed = time.monotonic() - started
            if elapsed >= self.max_seconds:
                self.log(f"stopping at the cap of {self.max_seconds:.0f} s")
                break
            if elapsed >= self.seconds and self._enough():
                break
        self.stop.set()
        stop_file.write_text("stop")
        for t in threads:
            t.join(timeout=600)
        err = session.stderr.read()
        session.wait(timeout=600)
        reader.join(timeout=60)
        wall = time.monotonic() - started
        summary = self._read_session(err, session.returncode)
        return self._check(summary, wall)

    def _follow_session(self, session: subprocess.Popen) -> None:
        for line in session.stdout:
            item = json.loads(line)
            with self.lock:
                if "progress" in item:
                    self.session_progress = item["progress"]
                else:
                    self.session_lines.append(line)

    def _enough(self) -> bool:
        """Past the minimum time: enough operations in all, and every actor did its part."""
        with self.lock:
            ops = Counter(self.ops)
            ops.update({f"session_{k}": v for k, v in self.session_progress.items()})
        total = sum(v for k, v in ops.items() if not k.startswith("session_watch"))
        each = [ops["session_set"], ops["session_retrieve"], ops["session_worker"],
                ops["mcp_recall"], ops["mcp_remember"],
                sum(v for k, v in ops.items() if k in ("cli_import", "cli_set", "cli_pin",
                                                       "cli_correct")),
                sum(v for k, v in ops.items() if k in ("cli_stats", "cli_retrieve",
                                                       "cli_recalls", "cli_verify"))]
        return (total >= self.min_ops and min(each) >= self.min_each
                and ops["killed_writer"] >= 1)

    def _read_session(self, err: str, code: int) -> dict[str, Any]:
        if _busy(err):
            self.busy_seen.append(err[:300])
        summary: dict[str, Any] = {}
        for line in self.session_lines:
            item = json.loads(line)
            if "summary" in item:
                summary = item["summary"]
            else:
                self.acks.append(item)
        if code != 0 or not summary:
            self.fail(f"session exited {code}: {err[-800:]}")
        for name, n in summary.get("ops", {}).items():
            self.ops[f"session_{name}"] += n
        for text in summary.get("errors", []):
            self.fail(f"session: {text}")
        return summary

    def _check(self, summary: dict[str, Any], wall: float) -> dict[str, Any]:
        from core.store.sqlite import sqlite3 as driver  # SQLCipher: reads either kind

        conn = driver.connect(str(self.db))
        try:
            secret = os.environ.get("PULSE_PASSPHRASE")
            if secret:
                conn.execute("PRAGMA key = '" + secret.replace("'", "''") + "'")
            integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
            journal = {r[0]: (r[1], r[2]) for r in conn.execute(
                "SELECT seq, op, subject FROM journal")}
            obs_ids = {r[0] for r in conn.execute("SELECT source_id FROM observations")}
            remembered = {r[0]: r[1] for r in conn.execute(
                "SELECT id, content_text FROM observations WHERE source_kind = 'remember'")}
            killed_id, killed_floor = conn.execute(
                "SELECT id, confidence_floor FROM events WHERE key = ?", (KILLED_EVENT,)).fetchone()
            killed_rows = conn.execute("SELECT COUNT(*) FROM journal WHERE subject = ?",
                                       (f"event:{killed_id}",)).fetchone()[0]
            logged_recalls = conn.execute(
                "SELECT COUNT(*) FROM recall_log WHERE tool = 'recall' AND client = ?",
                (CLIENT,)).fetchone()[0]
        finally:
            conn.close()
        verify = self.pulse("verify")
        missing: list[dict[str, Any]] = []
        counted = Counter()
        for a in self.acks:
            kind = a["ack"]
            counted[kind] += 1
            if kind == "journal":
                row = journal.get(a["seq"])
                if row is None or (a.get("subject") and row[1] != a["subject"]):
                    missing.append(a)
            elif kind == "messages":
                if not set(a["ids"]) <= obs_ids:
                    missing.append(a)
            elif kind == "remember":
                if remembered.get(a["observation"]) != a["text"]:
                    missing.append(a)
        # nobody else edits KILLED_EVENT: its only journal row is its import's
        killed_absent = killed_floor != SENTINEL_FLOOR and killed_rows == 1
        if self.mcp_recalls != logged_recalls:
            self.fail(f"{self.mcp_recalls} MCP recalls served, {logged_recalls} in the recall log")
        # the watcher's polls are reported beside the operations, not counted among them
        total_ops = sum(v for k, v in self.ops.items() if not k.startswith("session_watch"))
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        me = resource.getrusage(resource.RUSAGE_SELF)
        return {
            "seconds": self.seconds, "wall_s": round(wall, 1),
            "cpu_s": round(children.ru_utime + children.ru_stime + me.ru_utime + me.ru_stime, 1),
            "ops": total_ops, "ops_by_kind": dict(sorted(self.ops.items())),
            "acknowledged_writes": sum(counted.values()), "acknowledged_by_kind": dict(counted),
            "missing_writes": missing, "integrity_check": integrity,
            "verify_exit": verify.returncode, "verify": verify.stdout.strip()[:200],
            "busy_seen": self.busy_seen, "failures": self.failures,
            "wal_missing": summary.get("wal_missing"), "killed": self.killed,
            "killed_edit_absent": killed_absent,
            "mcp_recalls": self.mcp_recalls, "logged_mcp_recalls": logged_recalls,
            "encrypted": self.encrypted,
        }


def run(work: Path, seconds: float = 60, seed: int = 7, log=print, *, min_ops: int = 2000,
        max_seconds: float = 900, min_each: int = 1, plain_read: bool = False,
        passphrase: str | None = None) -> dict[str, Any]:
    """Run for at least `seconds` and until `min_ops` operations are done and every actor did
    at least `min_each` (never past `max_seconds`). With `passphrase` the memory is encrypted
    and every process gets it as PULSE_PASSPHRASE."""
    work.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(BENCH))
    before = os.environ.get("PULSE_PASSPHRASE")
    if passphrase:
        os.environ["PULSE_PASSPHRASE"] = passphrase
    else:
        os.environ.pop("PULSE_PASSPHRASE", None)
    try:
        return Run(work, seconds, seed, log, min_ops=min_ops, max_seconds=max_seconds,
                   min_each=min_each, plain_read=plain_read).run()
    finally:
        if before is None:
            os.environ.pop("PULSE_PASSPHRASE", None)
        else:
            os.environ["PULSE_PASSPHRASE"] = before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="role")
    s = sub.add_parser("session")
    s.add_argument("db")
    s.add_argument("--seconds", type=float, required=True)
    s.add_argument("--stop-file", required=True)
    s.add_argument("--plain-header-read", action="store_true")
    h = sub.add_parser("hold")
    h.add_argument("db")
    h.add_argument("key")
    h.add_argument("value", type=float)
    parser.add_argument("--seconds", type=float, default=60, help="run at least this long")
    parser.add_argument("--min-ops", type=int, default=2000,
                        help="and until this many operations are done")
    parser.add_argument("--max-seconds", type=float, default=900, help="but never longer")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--quick", action="store_true",
                        help="the size make test runs: 12 s, every actor at least once")
    parser.add_argument("--keep", help="work in this folder and keep it")
    parser.add_argument("--encrypted", action="store_true",
                        help="an encrypted memory (SQLCipher; the passphrase reaches every "
                             "process as PULSE_PASSPHRASE)")
    parser.add_argument("--plain-header-read", action="store_true",
                        help="the session's workers read the header with a plain open(), as "
                             "Pulse did before issue 11: the soak must then fail")
    args = parser.parse_args(argv)
    if args.role == "session":
        return session_role(Path(args.db), args.seconds, Path(args.stop_file),
                            args.plain_header_read)
    if args.role == "hold":
        return hold_role(Path(args.db), args.key, args.value)
    log = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    if args.quick:
        args.seconds, args.min_ops = 12, 0
    options = {"min_ops": args.min_ops, "max_seconds": args.max_seconds,
               "plain_read": args.plain_header_read,
               "passphrase": "soak passphrase" if args.encrypted else None}
    if args.keep:
        report = run(Path(args.keep), args.seconds, args.seed, log, **options)
    else:
        with tempfile.TemporaryDirectory(prefix="pulse-soak-") as tmp:
            report = run(Path(tmp), args.seconds, args.seed, log, **options)
    print(json.dumps(report, indent=2))
    ok = (not report["failures"] and not report["missing_writes"] and not report["busy_seen"]
          and report["integrity_check"] == "ok" and report["verify_exit"] == 0
          and report["wal_missing"] == 0 and report["killed_edit_absent"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
