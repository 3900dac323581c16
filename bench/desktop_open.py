"""Opening a large memory in the app: does the window stay live? (issue 16, item 5)

The real window (MainWindow, offscreen unless a platform is set, 1280×800, the Beliefs tab in
front) is shown, then opens a working copy of the synthetic memory (bench/common.py). Measured
from the call to `open_path`:

  first paint   — the Beliefs table's viewport paints for the first time after the call (what
                  the person sees first of the opened memory);
  filled        — the Beliefs table holds every row (events and facts) and the navigator's two
                  lists theirs (its LIMIT), with nothing left reading;
  stall         — a 5 ms QTimer heartbeat on the UI thread from the call until filled: the
                  longest gap between two beats (wall, and the UI thread's own CPU in it);
  CPU           — this process's CPU (all threads) and the UI thread's, call → filled;
  timeline      — then the Timeline tab is shown: until its dots are drawn, and its longest
                  gap (a large memory's timeline reads when first shown).

Each tree runs in its own process, one after the other, alternating (A B A B …), so the
before/after share the machine's minute:

    PULSE_BENCH_CACHE=var/bench-cache nice -n 15 .venv/bin/python bench/desktop_open.py \\
        --tree main=/tmp/main-tree --tree this=. [--events 100000] [--rounds 2] [--json]

(`git archive main | tar -x -C /tmp/main-tree` makes main's tree: its pulse_desktop runs with
this tree's core.) The working copy is deleted afterwards; the cached file is never written.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from common import synthetic_memory  # noqa: E402

HEARTBEAT_MS = 5


def child(db: Path, tree: Path) -> dict:
    """One open in this process, with `tree`'s pulse_desktop."""
    sys.path.insert(0, str(tree.resolve()))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
    import sqlite3

    from PySide6.QtCore import QEvent, QObject, Qt, QTimer

    import pulse_desktop
    from pulse_desktop.app import make_app
    from pulse_desktop.main_window import MainWindow
    from pulse_desktop.navigator import LIMIT

    if not str(Path(pulse_desktop.__file__).resolve()).startswith(str(tree.resolve())):
        raise SystemExit(f"pulse_desktop came from {pulse_desktop.__file__}, not {tree}")
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        events = conn.execute("SELECT COUNT(*) FROM events WHERE absorbed_into IS NULL"
                              ).fetchone()[0]
        facts = conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0]
        entities = conn.execute("SELECT COUNT(*) FROM entities").fetchone()[0]
    conn.close()

    app = make_app()
    window = MainWindow()
    window.resize(1280, 800)
    window.show_tab("Beliefs")
    window.show()
    for _ in range(20):
        app.processEvents()
        time.sleep(0.01)

    beats: list[tuple[float, float]] = []
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(HEARTBEAT_MS)
    timer.timeout.connect(lambda: beats.append((time.perf_counter(), time.thread_time())))

    painted: list[float] = []

    class FirstPaint(QObject):
        def eventFilter(self, _watched, event) -> bool:
            if event.type() == QEvent.Type.Paint and not painted:
                painted.append(time.perf_counter())
            return False

    spy = FirstPaint()
    beliefs, navigator = window.beliefs, window.navigator
    beliefs.table.viewport().installEventFilter(spy)

    def filled() -> bool:
        model = beliefs.model
        reading = [getattr(v, "reads", None) for v in (model, navigator)]
        return (model.rowCount() == events + facts
                and len(navigator.events.items) == min(events, LIMIT)
                and len(navigator.entities.items) == min(entities, LIMIT)
                and not any(r is not None and r.busy for r in reading)
                and not getattr(model, "loading", False))

    def gaps(since: float, until: float) -> tuple[float, float]:
        inside = [b for b in beats if since <= b[0] <= until]
        worst = max(((b[0] - a[0], b[1] - a[1]) for a, b in zip(inside, inside[1:])),
                    default=(0.0, 0.0))
        return round(worst[0] * 1000, 1), round(worst[1] * 1000, 1)

    sampler = None
    if os.environ.get("PULSE_BENCH_SAMPLE"):     # the UI thread's stacks while a beat is late
        from desktop_responsiveness import StallSampler

        class Beats:
            def last_beat(self) -> float:
                return beats[-1][0] if beats else time.perf_counter()

        sampler = StallSampler(Beats())
        sampler.start()
    timer.start()
    t0, c0, u0 = time.perf_counter(), time.process_time(), time.thread_time()
    beats.append((t0, u0))
    window.open_path(db)
    returned = time.perf_counter()
    while not (filled() and painted):
        if time.perf_counter() - t0 > 600:
            raise SystemExit("the views were not filled in 600 s")
        app.processEvents()
        time.sleep(0.001)
    t1, c1, u1 = time.perf_counter(), time.process_time(), time.thread_time()
    beats.append((t1, u1))
    stall = gaps(t0, t1)
    if sampler is not None and not os.environ.get("PULSE_BENCH_SAMPLE_TIMELINE"):
        sampler.stop()
        for n, stack in sampler.report(int(os.environ.get("PULSE_BENCH_SAMPLE_TOP", "12"))):
            print(f"{n:5d}  " + "\n       ".join(stack[:8]), file=sys.stderr)
        sampler = None
    # the Timeline, shown for the first time
    canvas = window.timeline.canvas
    t2 = time.perf_counter()
    beats.append((t2, time.thread_time()))
    window.show_tab("Timeline")
    reads = getattr(window.timeline, "reads", None)
    while not canvas.dots or (reads is not None and reads.busy):
        if time.perf_counter() - t2 > 600:
            raise SystemExit("the timeline was not drawn in 600 s")
        app.processEvents()
        time.sleep(0.001)
    for _ in range(5):
        app.processEvents()
    t3 = time.perf_counter()
    beats.append((t3, time.thread_time()))
    timeline_stall = gaps(t2, t3)
    timer.stop()
    if sampler is not None:
        sampler.stop()
        for n, stack in sampler.report(int(os.environ.get("PULSE_BENCH_SAMPLE_TOP", "12"))):
            print(f"{n:5d}  " + "\n       ".join(stack[:8]), file=sys.stderr)
    window.close()
    return {"tree": str(tree), "events": events, "facts": facts,
            "open_returned_ms": round((returned - t0) * 1000),
            "first_paint_ms": round((painted[0] - t0) * 1000) if painted else None,
            "filled_ms": round((t1 - t0) * 1000),
            "filled_process_cpu_ms": round((c1 - c0) * 1000),
            "filled_ui_cpu_ms": round((u1 - u0) * 1000),
            "stall_max_ms": stall[0], "stall_max_ui_cpu_ms": stall[1],
            "timeline_ms": round((t3 - t2) * 1000),
            "timeline_stall_max_ms": timeline_stall[0],
            "timeline_stall_max_ui_cpu_ms": timeline_stall[1],
            "load_average": round(os.getloadavg()[0], 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=DIR",
                    help="an app tree to run (repeat; default: this one)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", nargs=2, metavar=("DB", "TREE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.child[0]), Path(args.child[1]))))
        return 0
    trees = [t.split("=", 1) for t in args.tree] or [["this", str(ROOT)]]
    for name, tree in trees:
        if not (Path(tree) / "pulse_desktop").is_dir():
            raise SystemExit(f"--tree {name}={tree}: no pulse_desktop there")
    cached = synthetic_memory(args.events, log=lambda t: print(t, file=sys.stderr))
    runs = []
    with tempfile.TemporaryDirectory(prefix="pulse-open-") as tmp:
        for round_no in range(args.rounds):
            for name, tree in trees:
                db = Path(tmp) / cached.name
                for extra in ("", "-wal", "-shm"):
                    Path(str(db) + extra).unlink(missing_ok=True)
                shutil.copy(cached, db)
                out = subprocess.run([sys.executable, __file__, "--child", str(db), tree],
                                     capture_output=True, text=True, check=False)
                if out.returncode != 0:
                    raise SystemExit(f"{name}: {out.stderr[-2000:]}")
                run = {"name": name, "round": round_no + 1,
                       **json.loads(out.stdout.strip().splitlines()[-1])}
                runs.append(run)
                print(f"{name} #{round_no + 1} (load {run['load_average']}): open_path returned "
                      f"{run['open_returned_ms']:,} ms, first paint {run['first_paint_ms']:,} "
                      f"ms, filled {run['filled_ms']:,} ms ({run['filled_process_cpu_ms']:,} ms "
                      f"CPU, UI thread {run['filled_ui_cpu_ms']:,}); longest UI gap "
                      f"{run['stall_max_ms']:,} ms wall / {run['stall_max_ui_cpu_ms']:,} ms UI "
                      f"CPU; timeline shown {run['timeline_ms']:,} ms, longest gap "
                      f"{run['timeline_stall_max_ms']:,} / {run['timeline_stall_max_ui_cpu_ms']:,}"
                      " ms", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(runs, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
