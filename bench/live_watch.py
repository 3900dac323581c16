"""How should the app notice another process's change (issue 11 §3)? Measured side by side.

Three ways to check "did the memory change?", each polled by a watcher:
- wal:   os.stat of the -wal file (size, mtime_ns) — no SQLite call at all;
- dv:    PRAGMA data_version on the watcher's own connection (moves when another connection
         commits);
- marks: Memory.change_marks() — the journal head and the newest recall record (two indexed
         lookups); what the app uses.

Part 1 (cost): CPU time per check, over many checks, on a copy of the demo memory.
Part 2 (meaning): a second process makes changes of five kinds — a journaled edit, a logged
recall, bookkeeping no view shows (an ingest job row), a checkpoint with nothing new
(TRUNCATE), and the last other connection closing — and each way says "changed" or not.
Part 3 (the app): MainWindow offscreen on the demo memory (Beliefs tab shown); a `pulse set`
in another process; the time from its commit (the wall-clock time its journal row records) to
the window's refresh, and how long the UI thread spent in that refresh (the only UI-thread work
live refresh adds), over --writes writes.

    .venv/bin/python bench/live_watch.py                 # all three parts
    .venv/bin/python bench/live_watch.py --part cost     # part 1 only
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.memory import Memory, demo_corpus_path  # noqa: E402


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PULSE_DB", None)
    return env


def build_demo(path: Path) -> None:
    with Memory.open(path, create=True) as memory:
        memory.import_corpus(demo_corpus_path())


class Checks:
    """The three checks, each remembering what it saw last."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.wal = Path(f"{db}-wal")
        self.memory = Memory.open(db, read_only=True)
        self.last = {"wal": self.wal_state(), "dv": self.dv_state(),
                     "marks": self.memory.change_marks()}

    def wal_state(self):
        try:
            st = os.stat(self.wal)
        except OSError:
            return None
        return (st.st_size, st.st_mtime_ns)

    def dv_state(self):
        return self.memory.conn.execute("PRAGMA data_version").fetchone()[0]

    def poll(self) -> dict[str, bool]:
        now = {"wal": self.wal_state(), "dv": self.dv_state(),
               "marks": self.memory.change_marks()}
        moved = {k: now[k] != self.last[k] for k in now}
        self.last = now
        return moved

    def close(self) -> None:
        self.memory.close()


def part_cost(db: Path, n: int) -> dict:
    checks = Checks(db)
    out = {}
    try:
        for name, fn in (("wal", checks.wal_state), ("dv", checks.dv_state),
                         ("marks", checks.memory.change_marks)):
            fn()
            cpu, wall = time.process_time(), time.perf_counter()
            for _ in range(n):
                fn()
            out[name] = {"cpu_us_per_check": round((time.process_time() - cpu) / n * 1e6, 2),
                         "wall_us_per_check": round((time.perf_counter() - wall) / n * 1e6, 2)}
    finally:
        checks.close()
    return {"checks": n, **out}


OTHER = r"""
import sqlite3, sys, json
from core.memory import Memory
db, what = sys.argv[1], sys.argv[2]
with Memory.open(db) as m:
    if what == "edit":
        m.set_belief("e005", confidence_floor=0.42 if m.event("e005")["confidence_floor"] != 0.42 else 0.43)
    elif what == "recall":
        m.retrieve("feeling abandoned", top_k=3, log="bench")
    elif what == "bookkeeping":
        m.conn.execute("BEGIN IMMEDIATE")
        m.conn.execute("INSERT OR REPLACE INTO pulse_meta (key, value) VALUES ('bench_note', hex(randomblob(4)))")
        m.conn.execute("COMMIT")
    elif what == "checkpoint":
        m.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
"""


def part_meaning(db: Path) -> dict:
    """Which check moves for which kind of change. A reader connection held open by this
    process keeps the WAL alive, as the app's session does."""
    session = Memory.open(db)
    checks = Checks(db)
    table = {}
    try:
        for what in ("edit", "recall", "bookkeeping", "checkpoint"):
            subprocess.run([sys.executable, "-c", OTHER, str(db), what], check=True, env=_env(),
                           cwd=ROOT, capture_output=True)
            table[what] = checks.poll()
        session.close()          # the WAL outlives it only while the watcher is open
        table["session_closed"] = checks.poll()
    finally:
        checks.close()
    wanted = {"edit": True, "recall": True, "bookkeeping": False, "checkpoint": False,
              "session_closed": False}
    wrong = {name: [k for k, moved in row.items() if moved != wanted[name]]
             for name, row in table.items()}
    return {"moved": table, "should_move": wanted, "wrong": wrong}


def part_app(db: Path, writes: int) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import PySide6.QtWebEngineWidgets  # noqa: F401

    from pulse_desktop.app import make_app
    from pulse_desktop.main_window import MainWindow

    app = make_app()
    win = MainWindow()
    win.resize(1280, 800)
    win.show()
    assert win.open_path(db)
    win.show_tab("Beliefs")
    refreshes: list[float] = []
    ui_ms: list[float] = []
    session = win.session
    original = session.notify

    def timed_notify(what: str = "all") -> None:
        start = time.perf_counter()
        original(what)
        ui_ms.append((time.perf_counter() - start) * 1000)

    session.notify = timed_notify
    win.live.refreshed.connect(lambda _what: refreshes.append(time.time()))
    latencies = []
    cpu0 = time.process_time()
    for i in range(writes):
        before = len(refreshes)
        proc = subprocess.Popen([sys.executable, "-m", "core.cli", "--db", str(db), "set",
                                 "e010", "--floor", f"{0.30 + (i % 10) / 100:.2f}"],
                                env=_env(), cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        while proc.poll() is None:
            app.processEvents()
            time.sleep(0.005)
        deadline = time.monotonic() + 30
        while len(refreshes) == before and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.005)
        ts = session.memory.conn.execute(
            "SELECT ts FROM journal ORDER BY seq DESC LIMIT 1").fetchone()[0]
        committed = datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
            tzinfo=timezone.utc).timestamp()
        latencies.append(refreshes[-1] - committed if len(refreshes) > before else None)
    cpu = time.process_time() - cpu0
    win.close()
    seen = [x for x in latencies if x is not None]
    return {"writes": writes, "refreshed": len(seen),
            "latency_s": {"median": round(statistics.median(seen), 3),
                          "max": round(max(seen), 3), "min": round(min(seen), 3)} if seen else None,
            "ui_thread_refresh_ms": {"median": round(statistics.median(ui_ms), 1),
                                     "max": round(max(ui_ms), 1)} if ui_ms else None,
            "app_cpu_s": round(cpu, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("all", "cost", "meaning", "app"), default="all")
    parser.add_argument("--checks", type=int, default=20000)
    parser.add_argument("--writes", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="2,000 checks, 3 writes")
    args = parser.parse_args(argv)
    if args.quick:
        args.checks, args.writes = 2000, 3
    report: dict = {"python_sqlite": sqlite3.sqlite_version}
    with tempfile.TemporaryDirectory(prefix="pulse-watch-") as tmp:
        template = Path(tmp) / "demo.db"
        build_demo(template)
        for part in ("cost", "meaning", "app"):
            if args.part not in ("all", part):
                continue
            db = Path(tmp) / f"{part}.db"
            shutil.copy(template, db)
            if part == "cost":
                holder = Memory.open(db)       # the WAL exists, as with the app open
                report["cost"] = part_cost(db, args.checks)
                holder.close()
            elif part == "meaning":
                report["meaning"] = part_meaning(db)
            else:
                report["app"] = part_app(db, args.writes)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
