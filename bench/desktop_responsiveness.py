"""Does the app stay responsive while a therapist pins memories in a large memory? (issue 16,
item 5)

The real window (MainWindow, offscreen unless a platform is set, 1280×800) opens a working copy
of the synthetic 100k-event memory (bench/common.py), asks a question in the Playground (it
stays open in its tab), then goes to the Beliefs tab and makes a series of pins through the
table's own editors, one after another as a person would:

  pin     — select the row, click **Pin as core wound** (the toolbar button);
  tick    — tick the row's **Pinned** box (the model's setData with CheckStateRole, what the
            tick-box delegate does on a click);
  floor   — double-click-edit the **Floor** cell: the spin box editor, 0.90, Enter;
  axiom   — edit the **Class** cell: the combo box editor, "Core wound · axiom", Enter
            (after tick and floor, so the axiom rules hold).

Targets are events ranked 11–60 for the question (so a pin can lift them into the top 10).
Measured, each over the whole series:

  stall     — a 5 ms QTimer heartbeat on the UI thread; every gap between two beats (wall) and
              the UI thread's own CPU time in it (time.thread_time). Target: max ≤ 100 ms.
  handler   — from the click (or Enter) to its handler returning: wall and UI-thread CPU.
  re-rank   — from the click to the Playground's results model holding a list computed after
              the edit committed (its `resultsReady`): wall, and this process's CPU time (all
              threads). Target: ≤ 300 ms.

    PULSE_BENCH_CACHE=var/bench-cache nice -n 15 .venv/bin/python \\
        bench/desktop_responsiveness.py [--events 100000] [--targets 8] [--json] [--tree DIR]

`--tree DIR` runs another checkout's app code, pulse_desktop (say `git worktree add
/tmp/main-tree main`; core stays this tree's) under this same bench: run it and this tree one
after the other for a before/after.
`--idle SECONDS` first runs the heartbeat with nothing happening (what the shared machine alone
does to it); PULSE_BENCH_PROFILE=1 prints where the UI thread's time went (cProfile over the
series); PULSE_BENCH_SAMPLE=1 prints the UI thread's stacks while a beat was late (a sampling
thread). The working copy is deleted afterwards; the cached file is never written.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")

from common import percentile, synthetic_memory  # noqa: E402

STALL_TARGET_MS = 100.0
RERANK_TARGET_MS = 300.0
HEARTBEAT_MS = 5
QUESTION = "grief loss father hospital"
NOW = "2026-01-01T12:00:00Z"       # the synthetic memory's "now" (bench/common.py SYNTH_NOW)


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50": round(percentile(values, 50), 1),
            "p95": round(percentile(values, 95), 1), "max": round(max(values), 1)}


class Heartbeat:
    """A QTimer on the UI thread; records (wall, UI-thread CPU) at every beat."""

    def __init__(self, interval_ms: int = HEARTBEAT_MS) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.beats: list[tuple[float, float]] = []
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.beat)

    def beat(self) -> None:
        self.beats.append((time.perf_counter(), time.thread_time()))

    def last_beat(self) -> float:
        return self.beats[-1][0] if self.beats else time.perf_counter()

    def start(self) -> None:
        self.beats.clear()
        self.beat()
        self.timer.start()

    def stop(self) -> list[tuple[float, float, float]]:
        """(start wall, gap wall ms, UI-thread CPU ms in the gap) for every gap."""
        self.timer.stop()
        self.beat()
        return [(a[0], (b[0] - a[0]) * 1000, (b[1] - a[1]) * 1000)
                for a, b in zip(self.beats, self.beats[1:])]


class StallSampler:
    """Where the UI thread is while a beat is late: a Python thread looks at the UI thread's
    stack every few milliseconds (sys._current_frames) once the last beat is older than
    `late_ms`, and counts each stack once per sample. A stack that ends in Qt's own C++ code
    (painting, layout) shows as the Python frame that entered it (processEvents)."""

    def __init__(self, beat: Heartbeat, late_ms: float = 30.0, every_ms: float = 3.0) -> None:
        import threading

        self.beat, self.late, self.every = beat, late_ms / 1000, every_ms / 1000
        self.ui = threading.get_ident()
        self.samples: dict[tuple[str, ...], int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        import threading

        while not self._stop.wait(self.every):
            if time.perf_counter() - self.beat.last_beat() < self.late:
                continue
            frames = sys._current_frames()
            if os.environ.get("PULSE_BENCH_SAMPLE_ALL"):    # the other threads' stacks too
                for ident, other in frames.items():
                    if ident in (self.ui, threading.get_ident()):
                        continue
                    where: list[str] = []
                    while other is not None and len(where) < 6:
                        code = other.f_code
                        where.append(f"{Path(code.co_filename).name}:{other.f_lineno} "
                                     f"{code.co_name}")
                        other = other.f_back
                    key = ("[other thread]", *where)
                    self.samples[key] = self.samples.get(key, 0) + 1
            frame = frames.get(self.ui)
            stack: list[str] = []
            while frame is not None and len(stack) < 14:
                code = frame.f_code
                stack.append(f"{Path(code.co_filename).name}:{frame.f_lineno} {code.co_name}")
                frame = frame.f_back
            key = tuple(stack)
            self.samples[key] = self.samples.get(key, 0) + 1

    def report(self, top: int = 15) -> list[tuple[int, list[str]]]:
        ranked = sorted(self.samples.items(), key=lambda kv: -kv[1])[:top]
        return [(n, list(stack)) for stack, n in ranked]

    def inclusive(self, top: int = 30) -> list[tuple[int, str]]:
        """Samples per function anywhere on the stack (file and name, lines merged)."""
        counts: dict[str, int] = {}
        for stack, n in self.samples.items():
            for name in {f.split(":")[0] + " " + f.split(" ", 1)[1] for f in stack}:
                counts[name] = counts.get(name, 0) + n
        return sorted(((n, f) for f, n in counts.items()), reverse=True)[:top]


def spin(app, seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.001)


def wait(app, predicate, timeout: float) -> bool:
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        if predicate():
            return True
        app.processEvents()
        time.sleep(0.001)
    return predicate()


def idle_heartbeat(seconds: float) -> dict:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    beat = Heartbeat()
    beat.start()
    spin(app, seconds)
    gaps = [g for _, g, _ in beat.stop()]
    return {"idle_s": seconds, "idle_gap_ms": summary(gaps)}


def run(db: Path, targets: int, log) -> dict:
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QMessageBox, QToolButton

    from pulse_desktop.app import make_app
    from pulse_desktop.beliefs_model import COL_CLASS, COL_FLOOR, COL_PINNED
    from pulse_desktop.main_window import MainWindow

    app = make_app()
    refusals: list[str] = []
    QMessageBox.warning = staticmethod(lambda *a, **k: refusals.append(str(a[2:3])))  # type: ignore[method-assign]
    window = MainWindow()
    window.resize(1280, 800)
    window.show_tab("Beliefs")
    window.show()
    t0, c0 = time.perf_counter(), time.process_time()
    window.open_path(db)
    # the views read a large memory's rows on the reader thread (pulse_desktop/view_reads.py):
    # the series starts once they have them all
    reads = [getattr(v, "reads", None) for v in (window.beliefs.model, window.navigator,
                                                 window.timeline)]
    wait(app, lambda: not getattr(window.beliefs.model, "loading", False)
         and not any(r is not None and r.busy for r in reads), 600)
    open_s = (time.perf_counter() - t0, time.process_time() - c0)
    spin(app, 0.5)
    log(f"opened {db.name} in {open_s[0]:.1f} s ({open_s[1]:.1f} s CPU)")

    playground = window.tab("Playground")
    beliefs = window.beliefs
    # (wall, process CPU, output, when the question shown was asked)
    outputs: list[tuple[float, float, dict, float]] = []
    playground.resultsReady.connect(
        lambda out: outputs.append((time.perf_counter(), time.process_time(), out,
                                    getattr(playground, "shown_asked_at", None) or 0.0)))
    playground.set_now(NOW)
    playground.query_edit.setText(QUESTION)
    playground.top_k.setValue(60)
    t0 = time.perf_counter()
    playground.run_query()
    if not wait(app, lambda: outputs, 300):
        raise SystemExit("the first question got no answer in 300 s")
    log(f"first question (cold: embedder and index load) {time.perf_counter() - t0:.1f} s")
    ranked = [int(r["id"]) for r in outputs[-1][2]["results"]]
    if len(ranked) < 20:
        raise SystemExit(f"the question found only {len(ranked)} results")
    playground.top_k.setValue(10)
    playground.run_query()
    n = len(outputs)
    wait(app, lambda: len(outputs) > n, 120)
    top10 = [int(r["id"]) for r in outputs[-1][2]["results"]]

    memory = window.session.memory
    candidates = []
    for event_id in ranked[10:]:
        row = memory.event(event_id)
        if row["archivable"] and row["belief_class"] != "axiom":
            candidates.append(event_id)
    chosen = candidates[:targets]
    if len(chosen) < targets:
        raise SystemExit(f"only {len(chosen)} unpinned events among ranks 11–60")
    # half the targets by the button, half by the three editors (tick, floor, class)
    plan: list[tuple[str, int]] = []
    for i, event_id in enumerate(chosen):
        if i % 2 == 0:
            plan.append(("pin", event_id))
        else:
            plan += [("tick", event_id), ("floor", event_id), ("axiom", event_id)]

    table, proxy, model = beliefs.table, beliefs.proxy, beliefs.model
    pin_button = next(b for b in beliefs.findChildren(QToolButton)
                      if b.defaultAction() is beliefs.pin_action)

    def proxy_index(event_id: int, column: int):
        return proxy.mapFromSource(model.index(model.event_row(event_id), column))

    def edit_cell(event_id: int, column: int, editor_type, set_value) -> None:
        index = proxy_index(event_id, column)
        table.scrollTo(index)
        table.setCurrentIndex(index)
        table.edit(index)
        editor = table.viewport().findChild(editor_type)
        if editor is None:
            raise SystemExit(f"no editor opened for column {column}")
        set_value(editor)
        QTest.keyClick(editor, Qt.Key.Key_Return)

    def act(kind: str, event_id: int) -> None:
        if kind == "pin":
            beliefs.select_event(event_id)
            QTest.mouseClick(pin_button, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
        elif kind == "tick":
            proxy.setData(proxy_index(event_id, COL_PINNED), Qt.CheckState.Checked.value,
                          Qt.ItemDataRole.CheckStateRole)
        elif kind == "floor":
            edit_cell(event_id, COL_FLOOR, QDoubleSpinBox, lambda e: e.setValue(0.9))
        elif kind == "axiom":
            edit_cell(event_id, COL_CLASS, QComboBox,
                      lambda e: e.setCurrentIndex(e.findData("axiom")))

    def committed(kind: str, event_id: int) -> bool:
        row = model.rows[model.event_row(event_id)]
        return {"pin": row["belief_class"] == "axiom" and not row["archivable"]
                and row["user_flag"] == 1,
                "tick": not row["archivable"],
                "floor": abs(float(row["confidence_floor"]) - 0.9) < 1e-6,
                "axiom": row["belief_class"] == "axiom"}[kind]

    spin(app, 1.0)          # let the second question's explain etc. settle
    beat = Heartbeat()
    handler_wall, handler_cpu, rerank_wall, rerank_cpu = [], [], [], []
    per_kind: dict[str, list[float]] = {}
    lifted = 0
    missed: list[str] = []
    profile = None
    if os.environ.get("PULSE_BENCH_PROFILE"):      # where the UI thread's time goes
        import cProfile

        profile = cProfile.Profile()
        profile.enable()
    sampler = StallSampler(beat) if os.environ.get("PULSE_BENCH_SAMPLE") else None
    beat.start()
    if sampler is not None:
        sampler.start()
    series_start = time.perf_counter()
    spans: list[tuple[str, float, float]] = []      # (kind, from the click, to the next click)
    for kind, event_id in plan:
        before = len(outputs)
        t0, c0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
        if spans:
            spans[-1] = (spans[-1][0], spans[-1][1], t0)
        spans.append((kind, t0, float("inf")))
        act(kind, event_id)
        handler_wall.append((time.perf_counter() - t0) * 1000)
        handler_cpu.append((time.thread_time() - c0) * 1000)
        # the row shows the edit, and a question asked after the click has answered (the
        # playground asks again only once the edit has committed)
        ok = wait(app, lambda k=kind, e=event_id, n=before, t=t0: committed(k, e)
                  and len(outputs) > n and outputs[-1][3] > t, 30)
        if not ok:
            missed.append(f"{kind} {event_id}")
            continue
        wall, cpu, out, _asked = outputs[-1]
        rerank_wall.append((wall - t0) * 1000)
        rerank_cpu.append((cpu - p0) * 1000)
        per_kind.setdefault(kind, []).append((wall - t0) * 1000)
        if event_id in [int(r["id"]) for r in out["results"]]:
            lifted += 1
        spin(app, 0.15)      # a person's next click comes later than this
    series_s = time.perf_counter() - series_start
    gaps = beat.stop()
    if sampler is not None:
        sampler.stop()
        total = sum(sampler.samples.values())
        print(f"late-beat samples of the UI thread's stack: {total}", file=sys.stderr)
        for n, stack in sampler.report():
            print(f"{n:5d}  " + "\n       ".join(stack[:10]), file=sys.stderr)
        print("by function, inclusive:", file=sys.stderr)
        for n, name in sampler.inclusive():
            print(f"{n:5d}  {name}", file=sys.stderr)
    if profile is not None:
        import pstats

        profile.disable()
        stats = pstats.Stats(profile, stream=sys.stderr)
        stats.sort_stats("cumulative").print_stats(40)
        stats.sort_stats("tottime").print_stats(25)
    gap_wall = [g for _, g, _ in gaps]
    by_kind: dict[str, list[tuple[float, float]]] = {}     # each gap, under the edit it fell in
    for at, g, c in gaps:
        kind = next((k for k, a, b in spans if a <= at < b), "before the first edit")
        by_kind.setdefault(kind, []).append((g, c))
    gap_cpu = [c for _, _, c in gaps]
    worst = sorted(gaps, key=lambda g: -g[1])[:12]
    after_top10 = [int(r["id"]) for r in outputs[-1][2]["results"]]
    window.close()
    return {
        "events": memory_events(db), "open_s": round(open_s[0], 2),
        "open_cpu_s": round(open_s[1], 2), "edits": len(plan),
        "edits_by_kind": {k: sum(1 for p in plan if p[0] == k) for k in ("pin", "tick", "floor",
                                                                         "axiom")},
        "series_s": round(series_s, 2), "heartbeats": len(gaps),
        "stall_gap_ms": summary(gap_wall), "stall_gap_ui_cpu_ms": summary(gap_cpu),
        "gaps_over_100ms": sum(1 for g in gap_wall if g > 100),
        "gaps_over_50ms": sum(1 for g in gap_wall if g > 50),
        "series_clock": series_start,       # time.perf_counter() (CLOCK_MONOTONIC: perf's)
        "worst_gaps": [{"at_s": round(at - series_start, 2), "gap_ms": round(g, 1),
                        "ui_cpu_ms": round(c, 1)} for at, g, c in worst],
        "stall_by_kind": {k: {"max_gap_ms": round(max(g for g, _ in v), 1),
                              "max_gap_ui_cpu_ms": round(max(c for _, c in v), 1),
                              "gaps_over_100ms": sum(1 for g, _ in v if g > 100)}
                          for k, v in by_kind.items()},
        "handler_ms": summary(handler_wall), "handler_ui_cpu_ms": summary(handler_cpu),
        "rerank_ms": summary(rerank_wall), "rerank_process_cpu_ms": summary(rerank_cpu),
        "rerank_ms_by_kind": {k: summary(v) for k, v in per_kind.items()},
        "pinned_events_in_new_top10": lifted, "top10_changed": after_top10 != top10,
        "missed": missed, "refusals": refusals,
        "stall_target_met": bool(gap_wall) and max(gap_wall) <= STALL_TARGET_MS,
        "rerank_target_met": bool(rerank_wall) and not missed
        and max(rerank_wall) <= RERANK_TARGET_MS,
    }


def memory_events(db: Path) -> int:
    from core.memory import Memory

    memory = Memory.open(db, read_only=True)
    try:
        return int(memory.stats()["counts"]["events"])
    finally:
        memory.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--targets", type=int, default=12,
                    help="events edited (half by the button, half by three editors each)")
    ap.add_argument("--idle", type=float, default=0, metavar="SECONDS",
                    help="first run the heartbeat idle for this long (machine noise)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--tree", type=Path, metavar="DIR",
                    help="run the app code (pulse_desktop; core stays this tree's) of another "
                         "checkout, e.g. a worktree of main, for a before/after with this bench")
    args = ap.parse_args()
    if args.tree is not None:
        if not (args.tree / "pulse_desktop").is_dir():
            raise SystemExit(f"--tree {args.tree}: no pulse_desktop there")
        sys.path.insert(0, str(args.tree.resolve()))

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    cached = synthetic_memory(args.events, log=log)
    out: dict = {}
    if args.idle:
        out.update(idle_heartbeat(args.idle))
    with tempfile.TemporaryDirectory(prefix="pulse-responsive-") as tmp:
        db = Path(tmp) / cached.name
        shutil.copy(cached, db)
        out.update(run(db, args.targets, log))
    out["load_average"] = round(os.getloadavg()[0], 1)
    out["tree"] = str(args.tree or ROOT)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        s, r = out["stall_gap_ms"], out["rerank_ms"]
        print(f"{out['events']:,} events, {out['edits']} edits {out['edits_by_kind']}, "
              f"load {out['load_average']}")
        print(f"  UI stall (gap between {HEARTBEAT_MS} ms beats): p50 {s['p50']} p95 {s['p95']} "
              f"max {s['max']} ms wall; UI-thread CPU in a gap max "
              f"{out['stall_gap_ui_cpu_ms']['max']} ms; target ≤ {STALL_TARGET_MS:.0f}: "
              f"{'met' if out['stall_target_met'] else 'NOT met'}")
        h, hc = out["handler_ms"], out["handler_ui_cpu_ms"]
        print(f"  click handler: p50 {h['p50']} p95 {h['p95']} max {h['max']} ms wall; "
              f"UI CPU p50 {hc['p50']} p95 {hc['p95']} max {hc['max']} ms")
        rc = out["rerank_process_cpu_ms"]
        print(f"  click → playground re-ranked: p50 {r.get('p50')} p95 {r.get('p95')} max "
              f"{r.get('max')} ms wall; process CPU p50 {rc.get('p50')} p95 {rc.get('p95')} "
              f"max {rc.get('max')} ms; target ≤ {RERANK_TARGET_MS:.0f}: "
              f"{'met' if out['rerank_target_met'] else 'NOT met'}")
        print(f"  pinned event in the new top 10: {out['pinned_events_in_new_top10']} of "
              f"{out['edits']}; missed: {out['missed'] or 'none'}; refusals: "
              f"{out['refusals'] or 'none'}")
        print(f"  worst gaps: {out['worst_gaps']}")
        print(f"  by kind of edit (pin selects a new row first): {out['stall_by_kind']}")
        if "idle_gap_ms" in out:
            i = out["idle_gap_ms"]
            print(f"  idle heartbeat first ({out['idle_s']:g} s, nothing happening): p50 "
                  f"{i['p50']} p95 {i['p95']} max {i['max']} ms")
        print(f"  window opened in {out['open_s']} s ({out['open_cpu_s']} s CPU)")
    return 0 if out["stall_target_met"] and out["rerank_target_met"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
