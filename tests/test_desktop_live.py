"""The desktop app with other processes on its memory (issue 11 §3-5), real widgets offscreen:

- a `remember` from another process (`pulse mcp`, scripted stdio client) appears in the
  navigator with no manual reload, and a companion's recall appears in the Recalls tab, the
  timeline's marks and the detail panel's "recalled N times" line;
- an idle window reads nothing on the UI thread (the watcher polls on its own thread);
- an undo or redo whose rows another process changed since refuses with a clear message and
  overwrites nothing (one row, and a bulk edit: all or nothing).

How fast the refresh comes is measured in bench/live_watch.py (no timed assertion here).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

import PySide6.QtWebEngineWidgets  # noqa: E402,F401  (must load before the QApplication)

from core.memory import Memory  # noqa: E402
from pulse_desktop.main_window import MainWindow  # noqa: E402
from pulse_desktop.undo_commands import push_edit  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from mcp_client import McpProcess  # noqa: E402

WAIT_MS = 30_000   # generous: a loaded machine; the latency itself is benchmarked

CORPUS = {"format": "pulse-corpus/1", "events": [
    {"key": f"e{i}", "title": f"Ordinary day {i}", "description": f"Work, groceries, call {i}.",
     "ts": f"2026-0{1 + i % 9}-1{i % 10}T09:00:00Z"} for i in range(1, 9)] + [
    {"key": "w1", "title": "Left alone at the station",
     "description": "Nobody came to pick me up; I felt abandoned.", "ts": "2021-02-27",
     "belief_class": "axiom", "confidence_floor": 0.85, "archivable": 0, "user_flag": 1,
     "emotions": {"sadness": 0.8}}]}


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PULSE_DB", None)
    return env


def pulse(db: Path, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), "--json", *args],
                         capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=180)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "m.db"
    with Memory.open(path, create=True) as memory:
        memory.import_corpus(CORPUS)
    return path


@pytest.fixture
def window(qtbot, db: Path, dialogs):
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.open_path(db)
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()


def navigator_titles(win: MainWindow) -> list[str]:
    return [text for _id, text, _tip, _c in win.navigator.events.items]


def event_id(win: MainWindow, key: str) -> int:
    return win.session.memory.event(key)["id"]


def test_a_remember_from_another_process_appears_in_the_navigator(qtbot, window, db) -> None:
    assert not any("zebra" in t for t in navigator_titles(window))
    companion = McpProcess(db, "test-companion")
    try:
        error, out = companion.call("remember", {
            "text": "Today I started volunteering at the zebra sanctuary and I love it.",
            "ts": "2026-11-03T10:00:00Z"})
        assert not error, out
        # no reload asked for: the watcher sees the journal move and the views follow
        qtbot.waitUntil(lambda: any("zebra" in t for t in navigator_titles(window)),
                        timeout=WAIT_MS)
        assert "another program" in window.statusBar().currentMessage()

        # a recall by the companion: the Recalls tab, the timeline mark, the detail line
        error, recalled = companion.call("recall", {"query": "felt abandoned at the station",
                                                    "top_k": 3})
        assert not error and recalled["results"][0]["key"] == "w1"
    finally:
        companion.close()
    recalls = window.tab("Recalls")
    qtbot.waitUntil(lambda: len(recalls.moments.rows) == 1, timeout=WAIT_MS)
    moment = recalls.moments.rows[0]
    assert moment["client"] == "test-companion" and moment["tool"] == "recall"
    recalls.select_row(0)
    assert recalls.results.rows[0]["key"] == "w1"
    assert "relevance" in recalls.results.columns() and "recency_factor" in recalls.results.columns()
    assert "felt abandoned at the station" in recalls.heading.text()
    qtbot.waitUntil(lambda: len(window.timeline.canvas.recalls) == 1, timeout=WAIT_MS)
    window.session.select("event", event_id(window, "w1"))
    text = window.detail.text()
    today = moment["ts"][:10]
    assert f"recalled 1 time, last on {today} for 'felt abandoned at the station'" in text
    assert "by test-companion" in text


def test_an_idle_window_reads_nothing_on_the_ui_thread(qtbot, window) -> None:
    statements: list[str] = []
    ui_thread = threading.get_ident()

    def trace(sql: str) -> None:
        if threading.get_ident() == ui_thread:
            statements.append(sql)

    watcher = window.live.watcher
    polls = watcher.polls
    window.session.memory.conn.set_trace_callback(trace)
    try:
        qtbot.waitUntil(lambda: watcher.polls >= polls + 3, timeout=WAIT_MS)
    finally:
        window.session.memory.conn.set_trace_callback(None)
    assert statements == [], statements[:5]
    assert watcher._thread is not None and watcher._thread.ident != ui_thread


def test_undo_refuses_when_another_process_changed_the_row(qtbot, window, db, dialogs) -> None:
    session = window.session
    memory = session.memory
    e2 = event_id(window, "e2")
    assert push_edit(session, [e2], {"confidence_floor": 0.3}, "Set floor to 0.30") == []
    assert memory.event(e2)["confidence_floor"] == 0.3
    pulse(db, "set", "e2", "--floor", "0.55")             # the companion's side, meanwhile
    head = memory.stats()["journal_head"]
    session.undo_stack.undo()
    assert memory.event(e2)["confidence_floor"] == 0.55, "undo overwrote another program's edit"
    assert memory.stats()["journal_head"] == head           # nothing written
    assert session.undo_stack.count() == 0                  # the stale step left the stack
    qtbot.waitUntil(lambda: bool(dialogs), timeout=5000)
    kind, title, text = dialogs[-1]
    assert kind == "warning" and title == "Cannot undo"
    assert "changed by another program since" in text and "nothing was overwritten" in text

    # redo: undone here, then changed elsewhere, then redone here
    assert push_edit(session, [e2], {"domain": "fiction_meta"}, "Set domain") == []
    session.undo_stack.undo()
    assert memory.event(e2)["domain"] == "real"
    pulse(db, "set", "e2", "--domain", "meta_authorial")
    session.undo_stack.redo()
    assert memory.event(e2)["domain"] == "meta_authorial"
    qtbot.waitUntil(lambda: dialogs[-1][1] == "Cannot redo", timeout=5000)


def test_a_bulk_undo_is_all_or_nothing_after_a_foreign_change(qtbot, window, db,
                                                               dialogs) -> None:
    session = window.session
    memory = session.memory
    ids = [event_id(window, k) for k in ("e3", "e4", "e5")]
    assert push_edit(session, ids, {"confidence_floor": 0.4}, "Set floor to 0.40") == []
    pulse(db, "pin", "e5")                                   # one of the three, elsewhere
    session.undo_stack.undo()
    floors = [memory.event(i)["confidence_floor"] for i in ids]
    assert floors == [0.4, 0.4, 0.85], "a partial undo: some rows went back, one did not"
    qtbot.waitUntil(lambda: bool(dialogs), timeout=5000)
    assert "e5 was changed by another program" in dialogs[-1][2]
    # with no foreign change, the same bulk undo works
    assert push_edit(session, ids[:2], {"archivable": 0}, "Pin rows") == []
    session.undo_stack.undo()
    assert [memory.event(i)["archivable"] for i in ids[:2]] == [1, 1]


def test_another_programs_change_is_not_taken_for_the_windows_own(qtbot, window, db) -> None:
    """Another process logs a recall, then the window makes an edit before the watcher polls:
    the window's own change must not swallow the other one (the Recalls tab still shows it)."""
    recalls = window.tab("Recalls")
    assert recalls.moments.rows == []
    watcher = window.live.watcher
    seen = window.session.marks
    watcher.stop()          # the watcher does not poll between the other write and the edit
    pulse(db, "retrieve", "ordinary day", "--top-k", "2", "--log")
    e4 = event_id(window, "e4")
    assert push_edit(window.session, [e4], {"confidence_floor": 0.2}, "Set floor") == []
    watcher.start(db, seen)  # its next poll sees both moves at once
    qtbot.waitUntil(lambda: len(recalls.moments.rows) == 1, timeout=WAIT_MS)
    assert recalls.moments.rows[0]["client"] == "cli"
