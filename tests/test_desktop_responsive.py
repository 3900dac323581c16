"""Responsive at scale (issue 16, item 5): a pin from the Beliefs table is written on the writer
thread (the UI connection writes nothing), only the touched row is re-read in the table and
the navigator, a refusal met on the writer thread is said and leaves the row as it was, the
Playground asks its question again after a change, and the window's own writes from the
writer thread are not taken for another program's. Real widgets offscreen, real memory files;
the timings are in bench/desktop_responsiveness.py, not here."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("pytestqt")

from conftest import NOW  # noqa: E402
from PySide6.QtCore import QItemSelectionModel, Qt  # noqa: E402

from pulse_desktop.beliefs_model import COL_CLASS, COL_FLOOR, COL_PINNED, COL_TITLE  # noqa: E402


@pytest.fixture
def session(demo_session):
    return demo_session


@pytest.fixture
def beliefs(qtbot, session):
    from pulse_desktop.beliefs_view import BeliefsView

    view = BeliefsView(session)
    qtbot.addWidget(view)
    view.resize(1200, 700)
    view.show()
    qtbot.waitExposed(view)
    return view


def event_id(session, key: str) -> int:
    return int(session.memory.conn.execute("SELECT id FROM events WHERE key = ?",
                                           (key,)).fetchone()[0])


def select(view, event: int) -> None:
    index = view.proxy.mapFromSource(view.model.index(view.model.event_row(event), COL_TITLE))
    view.table.selectionModel().select(index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                       | QItemSelectionModel.SelectionFlag.Rows)


def written(qtbot, view) -> None:
    qtbot.waitUntil(lambda: view.model.pending == 0, timeout=20_000)


def test_pin_is_written_off_the_ui_thread_and_only_its_row_is_redrawn(qtbot, session, beliefs):
    from pulse_desktop.navigator import NavigatorView

    navigator = NavigatorView(session)
    qtbot.addWidget(navigator)
    ev = event_id(session, "e010")
    memory = session.memory
    ui_changes = memory.conn.total_changes
    version = memory.data_version()
    resets: list[str] = []
    redrawn: list[tuple[int, int]] = []
    beliefs.model.modelReset.connect(lambda: resets.append("beliefs"))
    navigator.events.modelReset.connect(lambda: resets.append("navigator"))
    beliefs.model.dataChanged.connect(lambda a, b, *_: redrawn.append((a.row(), b.row())))
    named: list = []
    session.changed.connect(lambda what: named.append((what, session.changed_items)))
    nav_row = navigator.events.row_of(ev)
    assert "pinned" not in navigator.events.items[nav_row][2]

    select(beliefs, ev)
    assert beliefs.pin_selected() is True
    assert beliefs.model.pending == 1             # sent; the UI thread goes on
    written(qtbot, beliefs)

    row = memory.event(ev)
    assert (row["belief_class"], row["archivable"], row["user_flag"]) == ("axiom", 0, 1)
    # the write came through another connection (the writer thread's), none through the UI's
    assert memory.conn.total_changes == ui_changes
    assert memory.data_version() != version
    assert session.undo_stack.count() == 1
    # the change named its row, and the table and the navigator redrew it and reloaded nothing
    assert named == [("beliefs", [("event", ev)])]
    model_row = beliefs.model.event_row(ev)
    assert redrawn and set(redrawn) == {(model_row, model_row)}
    assert resets == []
    assert beliefs.model.index(model_row, COL_CLASS).data() == "Core wound · axiom"
    assert beliefs.model.index(model_row, COL_PINNED).data(Qt.ItemDataRole.CheckStateRole) \
        == Qt.CheckState.Checked
    assert "pinned" in navigator.events.items[nav_row][2] and "⚓" in \
        navigator.events.items[nav_row][1]

    # undo puts the row back, again only that row
    redrawn.clear()
    session.undo_stack.undo()
    assert memory.event(ev)["belief_class"] == "operational"
    assert set(redrawn) == {(model_row, model_row)} and resets == []


def test_refusal_on_the_writer_thread_is_said_and_the_row_stays(qtbot, session, beliefs,
                                                                 dialogs):
    """Two edits sent before the first lands: the second is checked against the row as the
    first leaves it (an axiom needs a floor of 0.5), refused there, and nothing of it is
    written; the first stays done and undoable."""
    ev = event_id(session, "e005")                 # operational, archivable, floor 0
    model = beliefs.model
    index = lambda col: model.index(model.event_row(ev), col)  # noqa: E731
    assert model.setData(index(COL_PINNED), Qt.CheckState.Checked.value,
                         Qt.ItemDataRole.CheckStateRole)
    assert model.setData(index(COL_FLOOR), 0.6)
    written(qtbot, beliefs)
    assert session.memory.event(ev)["confidence_floor"] == pytest.approx(0.6)
    head = session.memory.stats()["journal_head"]
    refused: list[str] = []
    edited: list[bool] = []
    model.refused.connect(refused.append)
    model.edited.connect(edited.append)

    assert model.setData(index(COL_FLOOR), 0.2)            # fine for an operational event
    assert model.setData(index(COL_CLASS), "axiom")        # fine at 0.6, not at 0.2: sent
    written(qtbot, beliefs)

    assert edited == [True, False]
    assert refused and "0.5" in refused[-1]
    said = [text for kind, _title, text in dialogs if kind == "warning"]
    assert said and "0.5" in said[-1]                      # said in a message box
    row = session.memory.event(ev)
    assert (row["belief_class"], row["confidence_floor"]) == ("operational", pytest.approx(0.2))
    assert index(COL_CLASS).data() != "Core wound · axiom"
    assert index(COL_FLOOR).data() == "0.20"
    assert session.memory.stats()["journal_head"] == head + 1    # the floor only
    assert session.undo_stack.undoText().startswith("Set floor")
    assert session.memory.verify() == []


def test_playground_asks_again_after_a_pin(qtbot, session, beliefs):
    from pulse_desktop.playground_view import PlaygroundView

    playground = PlaygroundView(session)
    qtbot.addWidget(playground)
    playground.set_now(NOW)
    playground.compare_check.setChecked(False)
    playground.top_k.setValue(20)
    playground.query_edit.setText("feeling abandoned")
    with qtbot.waitSignal(playground.resultsReady, timeout=120_000) as first:
        playground.run_query()
    before = {r["id"]: (rank, r["score"]) for rank, r in enumerate(first.args[0]["results"])}
    memory = session.memory
    target = next(i for i in list(before)[5:]
                  if memory.event(i)["archivable"] and memory.event(i)["belief_class"]
                  in ("operational", "hypothesis"))
    playground.query_edit.setText("something typed, not asked")     # not what is re-asked

    select(beliefs, target)
    clicked = time.perf_counter()
    with qtbot.waitSignal(playground.resultsReady, timeout=60_000) as again:
        assert beliefs.pin_selected()
    out = again.args[0]
    assert out["query"] == "feeling abandoned"
    assert playground.shown_asked_at > clicked
    after = {r["id"]: (rank, r["score"]) for rank, r in enumerate(out["results"])}
    assert target in after
    assert after[target][1] > before[target][1]            # the pin raised its score
    assert after[target][0] <= before[target][0]           # and never its rank number
    assert playground.model.results[after[target][0]]["id"] == target   # the list shows it
    assert "Ranked again" in playground.status.text()


def test_playground_without_a_question_does_not_ask(qtbot, session, beliefs):
    from pulse_desktop.playground_view import PlaygroundView

    playground = PlaygroundView(session)
    qtbot.addWidget(playground)
    asked: list[dict] = []
    playground.resultsReady.connect(asked.append)
    select(beliefs, event_id(session, "e010"))
    assert beliefs.pin_selected()
    written(qtbot, beliefs)
    qtbot.wait(300)
    assert asked == [] and playground._in_flight is False


def test_own_writer_thread_writes_are_not_another_programs(qtbot, session, beliefs):
    """Live refresh tells the window's writer thread from another program: a pin reloads no
    view, and the marks catch up with it."""
    from pulse_desktop.live_refresh import LiveRefresh

    live = LiveRefresh(session, poll_s=0.05, min_gap_s=0.05)
    refreshed: list[str] = []
    live.refreshed.connect(refreshed.append)
    resets: list[int] = []
    beliefs.model.modelReset.connect(lambda: resets.append(1))
    for key in ("e010", "e011"):
        select(beliefs, event_id(session, key))
        assert beliefs.pin_selected()
        written(qtbot, beliefs)
    qtbot.wait(600)                    # several polls of the watcher thread
    assert live.watcher.polls > 3
    assert refreshed == [] and resets == []
    assert session.marks[0] == session.memory.change_marks()[0]
    live.shutdown()


def test_the_query_thread_keeps_its_memory_between_questions(qtbot, session):
    """A pool thread is not made by Python: a threading.local there is dropped after every job,
    and the Memory (with its vector index) was opened again for every question."""
    from pulse_desktop.query_thread import run_query

    seen: list[tuple[int, int]] = []

    def ask() -> None:
        with qtbot.waitSignal(session.message, timeout=60_000):
            run_query(session.path, lambda m: (id(m), id(m.scorer.index())),
                      lambda got: (seen.append(got), session.message.emit("done")),
                      lambda text: session.message.emit(text))

    ask()
    ask()
    assert len(seen) == 2 and seen[0] == seen[1]


def test_a_rerun_shows_the_chosen_list_first_then_the_compared_one(qtbot, session, beliefs):
    from pulse_desktop.playground_view import PlaygroundView

    playground = PlaygroundView(session)
    qtbot.addWidget(playground)
    playground.set_now(NOW)
    assert playground.compare_check.isChecked()
    playground.query_edit.setText("feeling abandoned")
    with qtbot.waitSignal(playground.resultsReady, timeout=120_000):
        playground.run_query()
    old_compare = playground.compare_output
    assert old_compare is not None and old_compare["scorer"] == "dense"
    target = next(int(r["id"]) for r in old_compare["results"][3:]
                  if session.memory.event(int(r["id"]))["archivable"])
    select(beliefs, target)
    with qtbot.waitSignal(playground.resultsReady, timeout=60_000):
        assert beliefs.pin_selected()
    assert playground.output["scorer"] == "pulse"
    assert playground.compare_output is old_compare and playground.compare_pending
    assert not playground._in_flight       # a next change would be ranked at once
    qtbot.waitUntil(lambda: not playground.compare_pending, timeout=60_000)
    new_compare = playground.compare_output
    assert new_compare is not old_compare and new_compare["scorer"] == "dense"
    score = {int(r["id"]): r["score"] for r in new_compare["results"]}
    before = {int(r["id"]): r["score"] for r in old_compare["results"]}
    assert score[target] > before[target]         # the compared list holds the pin too
    assert not playground.show_main.isHidden() and not playground.show_other.isHidden()


def test_an_urgent_query_goes_ahead_of_the_queued_ones(qtbot, session):
    """The Playground's re-rank (URGENT) starts before reads queued earlier on the query
    thread (a storyline, an Explain, the compared list)."""
    import threading

    from pulse_desktop.query_thread import URGENT, run_query

    gate, started = threading.Event(), threading.Event()
    order: list[str] = []

    def job(name: str):
        def work(_memory):
            if name == "running":
                started.set()
                gate.wait(30)
            order.append(name)
            return name
        return work

    finished: list[str] = []
    for name, priority in (("running", 0), ("storyline", 0), ("compared", 0),
                           ("re-rank", URGENT)):
        run_query(session.path, job(name), finished.append, finished.append,
                  priority=priority)
        if name == "running":
            assert started.wait(60)          # the thread is busy: the rest wait in its queue
    gate.set()
    qtbot.waitUntil(lambda: len(finished) == 4, timeout=30_000)
    assert order[0] == "running" and order[1] == "re-rank"
    assert order[2:] == ["storyline", "compared"]
