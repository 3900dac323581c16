"""The Review tab (offscreen, real widgets): the queue grouped by kind, Accept / Reject / Later
by keyboard, each decision journaled and undone with Ctrl+Z, Run upkeep in a worker, the count
in the status bar, and the detail panel's storyline."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

import PySide6.QtWebEngineWidgets  # noqa: E402,F401  (must load before the QApplication)
from conftest import NOW  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from core.memory import Memory  # noqa: E402


@pytest.fixture
def session(qtbot, demo_copy: Path):
    from pulse_desktop.session import MemorySession

    s = MemorySession()
    s.open(demo_copy)
    yield s
    s.close()


@pytest.fixture
def view(qtbot, session):
    from pulse_desktop.review_view import ReviewView

    v = ReviewView(session)
    v.now = NOW
    qtbot.addWidget(v)
    v.resize(640, 700)
    v.show()
    qtbot.waitExposed(v)
    return v


def run_upkeep(qtbot, view, dry_run=False) -> dict:
    with qtbot.waitSignal(view.upkeepDone, timeout=60_000) as blocker:
        view.run_upkeep(dry_run=dry_run)
    return blocker.args[0]


def groups(view) -> dict[str, int]:
    tree = view.tree
    return {tree.topLevelItem(i).text(0).rsplit("  (", 1)[0]: tree.topLevelItem(i).childCount()
            for i in range(tree.topLevelItemCount())}


def test_empty_then_run_upkeep_fills_the_queue(qtbot, view, session):
    assert view.empty.isVisibleTo(view) is False or view.items   # gaps may already be there
    preview = run_upkeep(qtbot, view, dry_run=True)
    assert preview["dry_run"] and "Nothing was written" in view.note.text()
    assert session.memory.upkeep_proposals() == []
    out = run_upkeep(qtbot, view)
    assert not out["dry_run"] and len(out["proposed"]["dismiss"]) == 17
    found = groups(view)
    assert found["Open questions past their time"] == 17
    assert found["Old, faint memories"] == len(out["proposed"]["archive"]) > 0
    assert found["Knowledge gaps"] > 0
    assert view.count_label.text() == f"· {len(view.items)} waiting"
    assert view.tree.currentItem() is not None and view.card.isVisible()


def test_keyboard_accept_reject_later_and_undo(qtbot, view, session):
    run_upkeep(qtbot, view)
    view.tree.setCurrentItem(view._row(view.items[0]["ref"]))
    view.tree.setFocus()
    first = view.current()
    assert first["kind"] == "dismiss"
    event_id = first["events"][0]
    assert session.selection == ("event", event_id)            # selecting selects everywhere
    n = len(view.items)
    following = view.items[1]["ref"]
    qtbot.keyClick(view.tree, Qt.Key.Key_A)
    assert session.memory.event(event_id)["archived"] == 1
    assert len(view.items) == n - 1 and view.current()["ref"] == following   # the next one
    session.undo_stack.undo()                                   # Ctrl+Z
    assert session.memory.event(event_id)["archived"] == 0 and len(view.items) == n
    session.undo_stack.redo()
    assert session.memory.event(event_id)["archived"] == 1
    second = view.current()
    qtbot.keyClick(view.tree, Qt.Key.Key_L)                     # later: hidden a week
    assert second["ref"] not in {i["ref"] for i in view.items}
    assert second["ref"] in {i["ref"] for i in session.memory.review_queue(
        now="2026-11-20T00:00:00Z")}
    third = view.current()
    qtbot.keyClick(view.tree, Qt.Key.Key_R)                     # reject: kept open
    assert third["ref"] not in {i["ref"] for i in view.items}
    assert session.memory.event(third["events"][0])["archived"] == 0
    ops = [r[0] for r in session.memory.conn.execute(
        "SELECT op FROM journal ORDER BY seq DESC LIMIT 4")]
    assert ops[:2] == ["upkeep.reject", "review.later"]


def test_gap_rejected_from_the_queue_sets_do_not_probe(qtbot, view, session):
    gap = next(i for i in view.items if i["kind"] == "gap")
    view.tree.setCurrentItem(view._row(gap["ref"]))
    assert session.selection == ("entity", gap["entities"][0])
    view.reject_button.click()
    assert session.memory.conn.execute("SELECT do_not_probe FROM entities WHERE id = ?",
                                       (gap["entities"][0],)).fetchone()[0] == 1
    assert gap["ref"] not in {i["ref"] for i in view.items}


def test_read_only_memory_cannot_decide(qtbot, session, demo_copy):
    from pulse_desktop.review_view import ReviewView

    session.open(demo_copy)
    session.memory.close()
    session.memory = Memory.open(demo_copy, read_only=True)
    v = ReviewView(session)
    qtbot.addWidget(v)
    assert not v.accept_button.isEnabled() and not v.run_button.isEnabled()
    assert v.decide("accept") is None


def test_window_has_the_tab_and_the_count(qtbot, demo_copy):
    from pulse_desktop.main_window import TABS, MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    assert win.open_path(demo_copy)
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    with Memory.open(demo_copy) as other:          # another program (the CLI) runs upkeep
        other.upkeep(now=NOW)
    win.session.notify("all")
    count = win.session.memory.review_count()
    assert win.review_status.isVisible() and win.review_status.text() == f"Review: {count}"
    win.review_status.click()
    assert win.tabs.tabText(win.tabs.currentIndex()) == "Review" == TABS[-1]
    view = win.tab("Review")
    view.now = NOW
    view.refresh()
    view.accept_button.click()
    assert win.review_status.text() == f"Review: {count - 1}"
    # an archived event can be restored from the detail panel, and Ctrl+Z archives it again
    archive = next(i for i in view.items if i["kind"] == "archive")
    view.tree.setCurrentItem(view._row(archive["ref"]))
    view.accept_button.click()
    event_id = archive["events"][0]
    win.session.select("event", event_id)
    assert "Archived: no longer recalled" in win.detail.text()
    win.detail.restore(event_id)
    assert win.session.memory.event(event_id)["archived"] == 0
    win.session.undo_stack.undo()
    assert win.session.memory.event(event_id)["archived"] == 1
    # the detail panel shows the storyline of a chain event
    e025 = win.session.memory.resolve_event("e025")
    qtbot.wait(1500)     # the live refresh of the edits above settles (the queue re-selects)
    win.session.select("event", e025)
    # read on the query thread (pulse_desktop/detail_storyline.py), shown when it arrives
    qtbot.waitUntil(lambda: "STORYLINE · 5 EVENTS" in win.detail.text().upper(), timeout=60_000)
    assert "2021" in win.detail.text()
    win.close()


def test_a_storyline_that_arrives_after_its_panel_is_gone_is_dropped(qtbot, session):
    """The detail panel asks the query thread for an event's storyline; when the panel is
    deleted before the answer comes (a window closed, a test's panel torn down), the answer is
    dropped, not emitted from a deleted object (RuntimeError in the event loop, which failed
    the next test of test_desktop_ingest.py now and then)."""
    import shiboken6

    from pulse_desktop.detail_panel import DetailPanel
    from pulse_desktop.detail_storyline import READING
    from pulse_desktop.query_thread import query_pool

    panel = DetailPanel(session)
    e025 = session.memory.resolve_event("e025")
    session.select("event", e025)
    assert panel.storyline.html(session.memory.event(e025)) == READING
    shiboken6.delete(panel)      # before the event loop runs: the answer can only come after
    assert query_pool().waitForDone(60_000)
    qtbot.wait(100)              # its queued signal is delivered here


def test_the_windows_own_upkeep_is_not_called_another_programs_change(qtbot, demo_copy):
    """Run upkeep writes through its own Memory, so the live watcher sees the journal move
    while it runs: the status bar said "another program changed this memory" (seen at
    1280×800). The watcher polls every 10 ms here, so it sees the first of upkeep's journal
    rows before the job reports."""
    from pulse_desktop.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    assert win.open_path(demo_copy)
    watcher = win.live.watcher
    watcher.stop()
    watcher.poll_s = 0.01
    watcher.start(demo_copy, win.session.marks)
    said: list[str] = []
    win.session.message.connect(said.append)
    view = win.tab("Review")
    view.now = NOW
    run_upkeep(qtbot, view)
    qtbot.wait(int(win.live.min_gap_s * 1000) + 500)
    assert not [line for line in said if "another program" in line], said
    assert "Updated: upkeep is adding proposals to this memory" in said    # views followed
    win.close()


def test_another_memory_does_not_show_the_last_ones_upkeep_note(qtbot, view, session,
                                                               tmp_path):
    """After Run upkeep, opening another memory kept 'Upkeep proposed … 19 old faint
    memories …' above a queue that held none of them (seen at 1280×800)."""
    run_upkeep(qtbot, view)
    assert view.note.text().startswith("Upkeep proposed")
    other = tmp_path / "other.db"
    Memory.open(other, create=True).close()
    session.open(other)
    assert view.items == [] and view.note.text() == ""
