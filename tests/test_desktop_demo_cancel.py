"""Building the demo memory can be cancelled from the start page (real widgets, offscreen):
the worker stops within a step, no memory file and no temp file is left (a half demo is
worthless), a file that was there before is not touched, the start page is back to idle and
the status bar says what happened. Open demo memory then builds it whole."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

import PySide6.QtWebEngineWidgets  # noqa: E402,F401  (before the QApplication)
from PySide6.QtCore import Qt, QThreadPool  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from pulse_desktop.main_window import MainWindow  # noqa: E402


def start_build(qtbot, win: MainWindow) -> tuple[list[tuple[int, int]], threading.Event]:
    """Click Open demo memory; hold the worker after its first step until `go` is set, so
    that Cancel lands while it is working (and not after it has finished)."""
    go = threading.Event()
    steps: list[tuple[int, int]] = []
    win.start.demo.click()
    job = win.demo_job
    assert job is not None

    def hold(done: int, total: int) -> None:      # runs in the worker thread
        steps.append((done, total))
        go.wait(30)

    job.signals.progress.connect(hold, Qt.ConnectionType.DirectConnection)
    assert win.start.busy.isVisible() and win.start.cancel_button.isVisible()
    assert not win.start.demo.isEnabled()
    return steps, go


@pytest.mark.parametrize("cancel_with", ["button", "escape"])
def test_cancelling_the_demo_build_leaves_no_memory(qtbot, tmp_path, monkeypatch, dialogs,
                                                    cancel_with):
    target = tmp_path / "data" / "demo.db"
    monkeypatch.setenv("PULSE_DEMO_DB", str(target))
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    steps, go = start_build(qtbot, win)
    # the first count reached the page: the bar counts events now
    qtbot.waitUntil(lambda: win.start.busy.maximum() > 0, timeout=60_000)
    assert win.start.busy.maximum() == 197
    if cancel_with == "button":
        win.start.cancel_button.click()
    else:
        QTest.keyClick(win.start, Qt.Key.Key_Escape)
    assert not win.start.cancel_button.isEnabled()
    assert "Cancelling" in win.statusBar().currentMessage()
    go.set()

    qtbot.waitUntil(lambda: win.demo_job is None, timeout=60_000)
    assert QThreadPool.globalInstance().waitForDone(10_000)      # the worker has stopped
    assert steps[-1][0] < 197                # it stopped before embedding them all
    assert not target.exists()
    assert sorted(p.name for p in target.parent.iterdir()) == []   # no temp file either
    # the page is idle again, nothing opened, and the status bar says why
    assert not win.start.busy.isVisible() and not win.start.cancel_button.isVisible()
    assert win.start.demo.isEnabled() and win.start.note.text() == ""
    assert win.session.path is None and win.stack.currentWidget() is win.start
    assert "not built: cancelled" in win.statusBar().currentMessage()
    assert dialogs == []

    # and it can be built after all
    win.start.demo.click()
    qtbot.waitUntil(lambda: win.session.path == target, timeout=120_000)
    assert win.session.memory.conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 197
    assert not list(target.parent.glob("*.building*"))
    win.close()


def test_a_cancelled_build_leaves_an_existing_file_alone(qtbot, tmp_path, monkeypatch,
                                                         dialogs):
    """An empty file at the demo's place (the app builds over an empty one): a cancelled
    build leaves it as it was."""
    target = tmp_path / "demo.db"
    target.write_bytes(b"")
    os.utime(target, (1_700_000_000, 1_700_000_000))
    monkeypatch.setenv("PULSE_DEMO_DB", str(target))
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    _steps, go = start_build(qtbot, win)
    # File ▸ Open demo memory while it builds does not start a second build
    job = win.demo_job
    win.demo_action.trigger()
    assert win.demo_job is job and "being built" in win.statusBar().currentMessage()
    win.start.cancel_button.click()
    go.set()
    qtbot.waitUntil(lambda: win.demo_job is None, timeout=60_000)
    assert QThreadPool.globalInstance().waitForDone(10_000)
    assert target.stat().st_size == 0 and target.stat().st_mtime == 1_700_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.db"]
    assert dialogs == []
    win.close()


def test_build_demo_cancelled_returns_and_removes_its_temp_file(tmp_path):
    """The function the worker runs: cancelled before it starts, it says so and leaves no file
    (before, it raised 'cancelled' only once the whole demo had been built)."""
    from pulse_desktop.main_window import build_demo

    stop = threading.Event()
    stop.set()
    target = tmp_path / "demo.db"
    out = build_demo(target, cancel=stop)
    assert out["cancelled"] is True
    assert list(Path(tmp_path).iterdir()) == []
