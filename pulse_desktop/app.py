"""Entry point of the desktop app: ``pulse-desktop [--db PATH]`` (also ``python -m pulse_desktop``).

    --db PATH           open this memory
    --screenshots DIR   open the demo memory (or --db) offscreen, save a PNG of every tab, exit
    --self-test         open the demo memory offscreen, render the graph page, run one
                        retrieval, exit 0 (used by packaging to check a build)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

STARTED = time.perf_counter()


def display_problem() -> str | None:
    """On Linux without a display Qt aborts with a long message; say it in one line instead."""
    if not sys.platform.startswith("linux"):
        return None
    if os.environ.get("QT_QPA_PLATFORM") or os.environ.get("DISPLAY") \
            or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return ("pulse-desktop: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set). Run it "
            "from a desktop session, or set QT_QPA_PLATFORM=offscreen for headless use "
            "(e.g. --screenshots DIR or --self-test).")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="pulse-desktop", description="Pulse: see and curate an AI companion's memory.")
    parser.add_argument("--db", metavar="PATH", help="memory file to open")
    parser.add_argument("--screenshots", metavar="DIR",
                        help="save a PNG of every tab (offscreen) into DIR and exit")
    parser.add_argument("--audit", metavar="WxH",
                        help="open the memory offscreen at that window size, show every tab, "
                             "print what is cut off or unnamed as JSON; exit 1 if anything is")
    parser.add_argument("--self-test", action="store_true",
                        help="open the demo memory offscreen, render the graph, run one "
                             "retrieval, and exit 0 if all worked")
    parser.add_argument("--self-test-report", metavar="FILE",
                        help="with --self-test, also write its JSON report to FILE (a windowed "
                             "Windows or macOS build has no console to print to)")
    parser.add_argument("--exit-when-shown", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def make_app(argv0: str = "pulse-desktop"):
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # Chromium refuses to run its sandbox as root (containers, CI)
        os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
    from PySide6.QtCore import QCoreApplication, Qt
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        # QtWebEngine needs this before the application exists; the view itself is created
        # later, when the first graph page is ready, so the window shows sooner.
        QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
        app = QApplication([argv0])
    from pulse_desktop.style import QSS, app_icon

    app.setApplicationName("Pulse")
    app.setOrganizationName("pulse")
    app.setApplicationDisplayName("Pulse")
    app.setWindowIcon(app_icon())
    app.setStyleSheet(QSS)
    return app


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # Leave one core to the UI thread while a worker embeds (bench/desktop_ingest_stall.py:
    # the longest UI stall fell from 96 ms to 30 ms with the embedder on one core of two).
    spare = str(max(1, (os.cpu_count() or 2) - 1))
    os.environ.setdefault("PULSE_EMBED_THREADS", spare)
    os.environ.setdefault("OMP_NUM_THREADS", spare)
    if args.screenshots or args.self_test or args.audit:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    problem = display_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 2
    app = make_app()
    if args.screenshots or args.self_test or args.audit:
        # a run by a script: the person's own recent memories and window layout stay untouched
        import tempfile

        from PySide6.QtCore import QSettings

        scratch = tempfile.mkdtemp(prefix="pulse-settings-")
        for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
            QSettings.setPath(fmt, QSettings.Scope.UserScope, scratch)
    from pulse_desktop.main_window import MainWindow, fit_to_screen

    window = MainWindow()
    if args.self_test:
        return self_test(app, window, args.db, args.self_test_report)
    if args.audit:
        return audit(window, args.db, args.audit)
    if args.screenshots:
        from pulse_desktop.screenshots import take_screenshots

        db = Path(args.db) if args.db else ensure_demo()
        if not window.open_path(db):
            return 1
        written = take_screenshots(window, Path(args.screenshots))
        print(json.dumps({"screenshots": [str(p) for p in written]}))
        window.close()
        return 0
    if not args.exit_when_shown:
        window.restore_state()
    window.resize(*fit_to_screen(window.width(), window.height()))  # a 1280×800 laptop too
    if args.db:
        window.open_path(args.db)
    window.show()
    if args.exit_when_shown:
        from PySide6.QtCore import QTimer

        def shown() -> None:
            print(json.dumps({"shown_after_s": round(time.perf_counter() - STARTED, 3),
                              "cpu_s": round(time.process_time(), 3),
                              "size": [window.width(), window.height()]}), flush=True)
            window.close()
            app.quit()

        QTimer.singleShot(0, shown)
    return app.exec()


def audit(window, db: str | None, size: str) -> int:
    """``--audit WxH``: what is cut off, unnamed or closable on every tab, as JSON."""
    from pulse_desktop.screenshots import prepare_tab, settle
    from pulse_desktop.ui_audit import audit_tabs

    try:
        width, height = (int(n) for n in size.lower().split("x"))
    except ValueError:
        print(f"--audit wants a window size like 1280x800, not {size!r}", file=sys.stderr)
        return 2
    if not window.open_path(Path(db) if db else ensure_demo()):
        return 1
    window.resize(width, height)
    window.show()
    settle(0.5)
    found = audit_tabs(window, prepare_tab)
    print(json.dumps({"size": [window.width(), window.height()],
                      "scale": window.devicePixelRatioF(), "problems": found}, indent=1))
    window.close()
    return 1 if found else 0


def ensure_demo() -> Path:
    """The demo memory in the user data folder, built (synchronously) if it is not there."""
    from pulse_desktop.main_window import build_demo, demo_db_path

    path = demo_db_path()
    if not (path.exists() and path.stat().st_size > 0):
        print(f"building the demo memory at {path} …", file=sys.stderr)
        build_demo(path)
    return path


def wait_for(app, predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        app.processEvents()
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def self_test(app, window, db: str | None, report_path: str | None = None) -> int:
    """Open the demo memory, render the graph page, run one retrieval; 0 when all worked."""
    from core.errors import PulseError

    report: dict = {}
    try:
        path = Path(db) if db else ensure_demo()
        if not window.open_path(path):
            print("self-test: the memory did not open", file=sys.stderr)
            return 1
        window.resize(1280, 800)
        window.show()
        window.show_tab("Graph")
        graph = window.graph
        if not wait_for(app, lambda: graph.ready, 90):
            print("self-test: the graph page did not draw within 90 s", file=sys.stderr)
            return 1
        counts: dict = {}
        graph.run_js("window.pulseViewer.nodeCount()", lambda n: counts.update(nodes=n))
        wait_for(app, lambda: "nodes" in counts, 10)
        result = window.session.require().retrieve("feeling abandoned", top_k=3)
        report = {"ok": True, "memory": str(path), "graph_nodes": counts.get("nodes"),
                  "embedding_model": window.session.require().embedding_model,
                  "retrieved": [r["key"] or r["id"] for r in result["results"]],
                  "seconds": round(time.perf_counter() - STARTED, 2)}
    except PulseError as exc:
        print(f"self-test: {exc}", file=sys.stderr)
        return 1
    finally:
        window.close()
    print(json.dumps(report))
    if report_path:
        Path(report_path).write_text(json.dumps(report) + "\n", encoding="utf-8")
    return 0 if report.get("retrieved") else 1
