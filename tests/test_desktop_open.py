"""Opening a large memory keeps the window live (issue 16, item 5): the Beliefs table, the
navigator and the timeline read their rows on the reader thread (pulse_desktop/view_reads.py),
the table fills in chunk by chunk, the UI thread's event loop runs meanwhile, the status bar
shows the progress with Stop, an edit made while the rows are read is not lost, and closing the
memory drops the read. "Large" is forced with INLINE_ROWS = 0 on the demo memory; the reader is
held on a gate so each step is deterministic (no timing). The times are in
bench/desktop_open.py."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QTimer  # noqa: E402

from pulse_desktop import beliefs_model, view_reads  # noqa: E402


@pytest.fixture
def large(monkeypatch):
    """Every memory counts as large, and the table's rows come in small chunks."""
    monkeypatch.setattr(view_reads, "INLINE_ROWS", 0)
    monkeypatch.setattr(view_reads, "FIRST_CHUNK", 7)
    monkeypatch.setattr(view_reads, "CHUNK", 40)


class Gate:
    """Holds the table's read on the reader thread: it reads every row, then waits to be let
    go before handing them over (so a test can act while the read is in flight)."""

    def __init__(self, monkeypatch) -> None:
        self.open = threading.Event()
        self.reached = threading.Event()
        self.threads: list[int] = []
        real = beliefs_model.read_belief_rows

        def held(memory, send, cancel):
            self.threads.append(threading.get_ident())
            read: list = []
            real(memory, read.append, cancel)
            self.reached.set()
            assert self.open.wait(30), "the test never let the read go"
            for chunk in read:
                send(chunk)

        monkeypatch.setattr(beliefs_model, "read_belief_rows", held)


@pytest.fixture
def gate(monkeypatch):
    held = Gate(monkeypatch)
    yield held
    held.open.set()         # (a failed test must not leave the reader thread waiting)


def expected_rows(path) -> list[tuple[str, int]]:
    from core.memory import Memory

    with Memory.open(path, read_only=True) as memory:
        return ([("event", int(r[1])) for r in memory.conn.execute(beliefs_model.EVENT_SQL)]
                + [("fact", int(r[1])) for r in memory.conn.execute(beliefs_model.FACT_SQL)])


def test_the_table_fills_in_from_the_reader_thread_while_the_ui_thread_runs(
        qtbot, demo_db, tmp_path, large, gate):
    import shutil

    from pulse_desktop.beliefs_view import BeliefsView
    from pulse_desktop.navigator import NavigatorView
    from pulse_desktop.session import MemorySession

    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    session = MemorySession()
    view = BeliefsView(session)
    qtbot.addWidget(view)
    navigator = NavigatorView(session)
    qtbot.addWidget(navigator)
    view.resize(1000, 600)
    view.show()
    said: list[tuple[str, int, int]] = []
    session.reading.connect(lambda what, done, total: said.append((what, done, total)))
    inserted: list[int] = []
    view.model.rowsInserted.connect(lambda _p, first, last: inserted.append(last - first + 1))

    session.open(path)          # returns with the read in flight: nothing read on this thread
    assert view.model.loading and view.model.rowCount() == 0
    assert gate.reached.wait(30)
    # the UI thread's event loop runs while the reader holds its rows
    ticked: list[bool] = []
    QTimer.singleShot(0, lambda: ticked.append(True))
    qtbot.waitUntil(lambda: bool(ticked), timeout=10_000)
    assert view.model.loading and view.model.rowCount() == 0
    assert ("beliefs", 0, view_reads.memory_rows(session.memory)) in said

    chosen = expected_rows(path)[5][1]
    session.select("event", chosen)       # chosen elsewhere (the navigator) before its row is in
    gate.open.set()
    with qtbot.waitSignal(view.model.loaded, timeout=30_000):
        pass
    assert view.selected_events() == [chosen]
    want = expected_rows(path)
    assert [(r["kind"], int(r["id"])) for r in view.model.rows] == want
    assert view.proxy.rowCount() == len(want)
    # in chunks (7 first, then 40 at a time), each one inserted as it came
    assert inserted[:2] == [40, 40] and sum(inserted) == len(want) - 7
    assert gate.threads and threading.main_thread().ident not in gate.threads
    beliefs_said = [s for s in said if s[0] == "beliefs"]
    assert beliefs_said[-1] == ("beliefs", len(want), len(want))      # done: the progress goes
    counted = [done for _, done, _ in beliefs_said[1:]]      # after each chunk, then done
    assert counted[0] == 7 and counted == sorted(counted) and len(set(counted)) > 5
    assert view.count.text() == f"{len(want)} rows"
    # the navigator read its lists on the reader thread too
    qtbot.waitUntil(lambda: not navigator.reads.busy and bool(navigator.events.items),
                    timeout=30_000)
    assert navigator.reads.read_on != threading.main_thread().ident
    assert len(navigator.events.items) == sum(1 for kind, _ in want if kind == "event")
    # a row read this way answers like before: selection by id, editing through the model
    ev = want[3][1]
    view.select_event(ev)
    assert view.selected_events() == [ev]
    session.close()


def test_an_edit_while_the_rows_are_read_is_not_lost(qtbot, demo_session, large, gate):
    from pulse_desktop.beliefs_view import BeliefsView

    session = demo_session
    view = BeliefsView(session)      # reads (held: its rows are read before the edit below)
    qtbot.addWidget(view)
    assert gate.reached.wait(30)
    memory = session.memory
    ev = int(memory.conn.execute("SELECT id FROM events WHERE belief_class != 'axiom' "
                                 "ORDER BY id LIMIT 1").fetchone()[0])
    memory.set_belief(ev, belief_class="hypothesis")
    session.notify("beliefs", [("event", ev)])       # as the writer thread's report does
    gate.open.set()
    with qtbot.waitSignal(view.model.loaded, timeout=30_000):
        pass
    # the chunk holding the row was read before the edit; the row shows the edit all the same
    assert view.model.rows[view.model.event_row(ev)]["belief_class"] == "hypothesis"


def test_the_window_shows_the_read_and_stop_closes_the_memory(qtbot, demo_db, tmp_path, large,
                                                             gate):
    import shutil

    from pulse_desktop.main_window import MainWindow

    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show_tab("Beliefs")
    window.show()
    assert window.open_path(path)
    assert gate.reached.wait(30)
    qtbot.waitUntil(lambda: window.reading.isVisible(), timeout=10_000)
    assert "beliefs" in window.reading.label.text()
    assert window.stack.currentIndex() == 1          # the memory's views show at once
    model = window.beliefs.model
    window.reading.stop.click()                      # Stop: the memory closes, the read goes
    assert window.session.memory is None and window.stack.currentIndex() == 0
    assert not window.reading.isVisible() and not model.loading
    gate.open.set()
    for _ in range(50):          # the dropped read's chunks arrive, and are ignored
        qtbot.wait(10)
    assert model.rowCount() == 0
    window.close()


def test_the_timeline_reads_a_large_memory_while_hidden_and_a_pin_moves_one_dot(
        qtbot, demo_session, large):
    from pulse_desktop.timeline_view import TimelineView

    timeline = TimelineView(demo_session)        # hidden: it reads all the same (ready when shown)
    qtbot.addWidget(timeline)
    qtbot.waitUntil(lambda: bool(timeline.all_dots) and not timeline.reads.busy,
                    timeout=30_000)
    assert timeline.reads.read_on != threading.main_thread().ident
    assert timeline.canvas.empty_text is None        # ("Reading the events…" while it read)
    memory = demo_session.memory
    count = memory.conn.execute(
        "SELECT COUNT(*) FROM events WHERE absorbed_into IS NULL AND archived = 0").fetchone()[0]
    assert len(timeline.canvas.dots) == count
    ev = int(memory.conn.execute("SELECT id FROM events WHERE belief_class = 'operational' "
                                 "AND archived = 0 ORDER BY id LIMIT 1").fetchone()[0])
    before = {d.id: d for d in timeline.all_dots}
    started = timeline.reads.generation
    memory.pin(ev)
    demo_session.notify("beliefs", [("event", ev)])
    # the pinned event's dot moved to the axiom lane, with its marks; nothing was read again
    after = {d.id: d for d in timeline.all_dots}
    assert (after[ev].belief_class, after[ev].pinned, after[ev].user_flag) == ("axiom", True, True)
    assert timeline.canvas._lane_counts()["axiom"] == sum(
        1 for d in after.values() if d.belief_class == "axiom")
    assert all(after[i] is before[i] for i in before if i != ev)
    assert timeline.reads.generation == started and timeline._stale is None


def test_a_small_memory_is_read_at_once(qtbot, demo_session):
    """Below INLINE_ROWS the views are full when they are made (no Reading… flash)."""
    from pulse_desktop.beliefs_view import BeliefsView

    view = BeliefsView(demo_session)
    qtbot.addWidget(view)
    assert not view.model.loading
    assert view.model.reads.read_on == threading.main_thread().ident
    assert view.model.rowCount() == len(expected_rows(demo_session.path))


def test_a_read_that_fails_is_said_and_ends(qtbot, demo_session, large, monkeypatch):
    from core.errors import PulseError
    from pulse_desktop.beliefs_view import BeliefsView

    def broken(_memory, _send, _cancel):
        raise PulseError("the file went away")

    monkeypatch.setattr(beliefs_model, "read_belief_rows", broken)
    said: list[str] = []
    demo_session.message.connect(said.append)
    view = BeliefsView(demo_session)
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.model.loaded, timeout=30_000):
        pass
    assert not view.model.loading and not view.model.reads.busy
    assert said == ["Could not read the beliefs: the file went away"]
