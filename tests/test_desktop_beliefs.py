"""The Beliefs tab against the real demo memory: inline edits through the model (as the
delegates do), undo/redo through the QUndoStack onto journaled core commands, "Pin as core
wound" (Ctrl+P) and refusals of edits that break the axiom invariant."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QItemSelectionModel, Qt  # noqa: E402
from PySide6.QtWidgets import QDoubleSpinBox, QMessageBox  # noqa: E402

from pulse_desktop.beliefs_model import COL_ARCHIVABLE, COL_CLASS, COL_FLOOR, COL_TITLE  # noqa: E402
from pulse_desktop.beliefs_view import BeliefsView, FloorDelegate  # noqa: E402
from pulse_desktop.session import MemorySession  # noqa: E402


@pytest.fixture
def warnings(monkeypatch) -> list[str]:
    """QMessageBox.warning would block offscreen: record what it would have said."""
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning",
                        lambda parent, title, text, *a, **k: said.append(text))
    return said


@pytest.fixture
def view(qtbot, demo_copy: Path, warnings):
    session = MemorySession()
    session.open(demo_copy)
    widget = BeliefsView(session)
    qtbot.addWidget(widget)
    widget.resize(1200, 700)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    session.close()


def event_id(view: BeliefsView, key: str) -> int:
    row = view.session.memory.conn.execute("SELECT id FROM events WHERE key = ?", (key,)).fetchone()
    return int(row[0])


def index_of(view: BeliefsView, event: int, column: int):
    row = view.model.event_row(event)
    return view.model.index(row, column)


def journal(view: BeliefsView, event: int) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in view.session.memory.conn.execute(
        "SELECT op, payload FROM journal WHERE subject = ? ORDER BY seq", (f"event:{event}",))]


def head(view: BeliefsView) -> int:
    return view.session.memory.stats()["journal_head"]


def written(view: BeliefsView, timeout: float = 20.0) -> None:
    """Wait until the edits sent to the writer thread have landed and the rows show them."""
    from PySide6.QtWidgets import QApplication

    deadline = time.monotonic() + timeout
    while view.model.pending and time.monotonic() < deadline:
        QApplication.processEvents()
        time.sleep(0.002)
    assert view.model.pending == 0, "an edit never came back from the writer thread"


def select_rows(view: BeliefsView, events: list[int]) -> None:
    selection = view.table.selectionModel()
    selection.clearSelection()
    for ev in events:
        proxy = view.proxy.mapFromSource(index_of(view, ev, COL_TITLE))
        selection.select(proxy, QItemSelectionModel.SelectionFlag.Select
                         | QItemSelectionModel.SelectionFlag.Rows)
        selection.setCurrentIndex(proxy, QItemSelectionModel.SelectionFlag.NoUpdate)


def test_table_lists_events_and_facts(view):
    kinds = [r["kind"] for r in view.model.rows]
    assert kinds.count("event") == 197
    assert kinds.count("fact") == 51
    # facts are editable too (class, floor, archivable, domain), but have no anchor
    from pulse_desktop.beliefs_model import COL_FLAG

    fact_row = kinds.index("fact")
    assert view.model.flags(view.model.index(fact_row, COL_FLOOR)) & Qt.ItemFlag.ItemIsEditable
    assert view.model.flags(view.model.index(fact_row, COL_CLASS)) & Qt.ItemFlag.ItemIsEditable
    assert view.model.flags(view.model.index(fact_row, COL_ARCHIVABLE)) \
        & Qt.ItemFlag.ItemIsUserCheckable
    assert not view.model.flags(view.model.index(fact_row, COL_FLAG)) \
        & (Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEditable)
    event_row = kinds.index("event")
    assert view.model.flags(view.model.index(event_row, COL_FLOOR)) & Qt.ItemFlag.ItemIsEditable


def test_edit_floor_undo_redo_writes_journal_rows(view):
    ev = event_id(view, "e005")
    memory = view.session.memory
    before = memory.event(ev)["confidence_floor"]
    assert before == 0.0
    rows_before = len(journal(view, ev))

    # as the FloorDelegate would: an editor, then setModelData
    delegate = view.table.itemDelegateForColumn(COL_FLOOR)
    assert isinstance(delegate, FloorDelegate)
    index = view.proxy.mapFromSource(index_of(view, ev, COL_FLOOR))
    editor = delegate.createEditor(view.table.viewport(), None, index)
    assert isinstance(editor, QDoubleSpinBox)
    delegate.setEditorData(editor, index)
    editor.setValue(0.7)
    delegate.setModelData(editor, view.proxy, index)
    written(view)

    assert memory.event(ev)["confidence_floor"] == pytest.approx(0.7)
    assert index_of(view, ev, COL_FLOOR).data() == "0.70"
    assert view.session.undo_stack.count() == 1

    view.session.undo_stack.undo()
    assert memory.event(ev)["confidence_floor"] == pytest.approx(0.0)
    assert index_of(view, ev, COL_FLOOR).data() == "0.00"

    view.session.undo_stack.redo()
    assert memory.event(ev)["confidence_floor"] == pytest.approx(0.7)

    rows = journal(view, ev)[rows_before:]
    assert [op for op, _ in rows] == ["event.set", "event.set", "event.set"]
    assert '"confidence_floor":0.7' in rows[0][1] and '"confidence_floor":0.0' in rows[1][1]
    assert memory.verify() == []


def test_undo_redo_shortcuts_of_the_main_window(qtbot, demo_copy, warnings):
    from pulse_desktop.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    assert window.open_path(demo_copy)
    window.show_tab("Beliefs")
    window.show()
    qtbot.waitExposed(window)
    beliefs = window.beliefs
    ev = event_id(beliefs, "e007")
    assert beliefs.model.setData(index_of(beliefs, ev, COL_FLOOR), 0.4)
    written(beliefs)
    assert window.undo_action.shortcut().toString() == "Ctrl+Z"
    assert "Ctrl+Shift+Z" in [s.toString() for s in window.redo_action.shortcuts()]
    window.undo_action.trigger()
    assert window.session.memory.event(ev)["confidence_floor"] == 0.0
    window.redo_action.trigger()
    assert window.session.memory.event(ev)["confidence_floor"] == pytest.approx(0.4)
    window.close()


def test_pin_core_wound_with_ctrl_p(qtbot, view):
    ev = event_id(view, "e010")   # an operational, archivable event
    memory = view.session.memory
    assert memory.event(ev)["belief_class"] == "operational"
    select_rows(view, [ev])
    view.table.setFocus()
    view.activateWindow()
    qtbot.waitUntil(lambda: view.table.hasFocus() or view.isActiveWindow(), timeout=3000)
    qtbot.keyClick(view.table, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)
    written(view)
    row = memory.event(ev)
    assert row["belief_class"] == "axiom"
    assert row["confidence_floor"] >= 0.85
    assert row["archivable"] == 0
    assert row["user_flag"] == 1
    assert journal(view, ev)[-1][0] == "event.pin"
    assert index_of(view, ev, COL_CLASS).data() == "Core wound · axiom"
    assert index_of(view, ev, COL_ARCHIVABLE).data(Qt.ItemDataRole.CheckStateRole) \
        == Qt.CheckState.Unchecked

    # the invariant holds: the pinned axiom cannot be made archivable or dropped below 0.5
    assert not view.model.setData(index_of(view, ev, COL_ARCHIVABLE), Qt.CheckState.Checked,
                                  Qt.ItemDataRole.CheckStateRole)
    assert not view.model.setData(index_of(view, ev, COL_FLOOR), 0.3)
    assert memory.event(ev)["archivable"] == 0

    view.session.undo_stack.undo()
    row = memory.event(ev)
    assert (row["belief_class"], row["archivable"], row["user_flag"]) == ("operational", 1, 0)


def test_axiom_with_floor_0_2_is_refused(view, warnings):
    ev = event_id(view, "e004")   # an axiom (floor 0.9)
    memory = view.session.memory
    seq = head(view)
    ok = view.model.setData(index_of(view, ev, COL_FLOOR), 0.2)
    assert ok is False
    assert warnings and "axiom" in warnings[-1] and "0.5" in warnings[-1]
    assert memory.event(ev)["confidence_floor"] == pytest.approx(0.9)
    assert index_of(view, ev, COL_FLOOR).data() == "0.90"
    assert head(view) == seq                       # nothing journaled
    assert view.session.undo_stack.count() == 0    # nothing to undo

    # making an archivable event an axiom is refused too (an axiom must be pinned)
    plain = event_id(view, "e005")
    assert view.model.setData(index_of(view, plain, COL_CLASS), "axiom") is False
    assert "archivable" in warnings[-1]
    assert head(view) == seq


def test_bulk_edit_is_one_undo_step(view):
    ids = [event_id(view, k) for k in ("e005", "e007", "e008")]
    memory = view.session.memory
    select_rows(view, ids)
    assert sorted(view.selected_events()) == sorted(ids)
    assert view.bulk_set("belief_class", "hypothesis")
    written(view)
    assert all(memory.event(i)["belief_class"] == "hypothesis" for i in ids)
    assert view.session.undo_stack.count() == 1
    view.session.undo_stack.undo()
    assert all(memory.event(i)["belief_class"] == "operational" for i in ids)
    view.session.undo_stack.redo()
    assert all(memory.event(i)["belief_class"] == "hypothesis" for i in ids)


def test_bulk_refusal_changes_nothing(view, warnings):
    ids = [event_id(view, "e005"), event_id(view, "e004")]   # operational + axiom
    memory = view.session.memory
    seq = head(view)
    select_rows(view, ids)
    assert view.bulk_set("confidence_floor", 0.2) is False
    assert warnings and "axiom" in warnings[-1]
    assert memory.event(ids[0])["confidence_floor"] == 0.0
    assert memory.event(ids[1])["confidence_floor"] == pytest.approx(0.9)
    assert head(view) == seq


def test_checkbox_toggles_anchor(view):
    from pulse_desktop.beliefs_model import COL_FLAG

    ev = event_id(view, "e009")
    memory = view.session.memory
    assert memory.event(ev)["user_flag"] == 0
    assert view.model.setData(index_of(view, ev, COL_FLAG), Qt.CheckState.Checked.value,
                              Qt.ItemDataRole.CheckStateRole)
    written(view)
    assert memory.event(ev)["user_flag"] == 1
    view.session.undo_stack.undo()
    assert memory.event(ev)["user_flag"] == 0


def test_read_only_memory_refuses_edits(qtbot, demo_copy, warnings):
    import sqlite3

    with sqlite3.connect(demo_copy) as conn:
        conn.execute("UPDATE journal SET actor = 'mallory' WHERE seq = 3")
    session = MemorySession()
    session.open(demo_copy)
    assert session.read_only and session.read_only_reason
    widget = BeliefsView(session)
    qtbot.addWidget(widget)
    ev = event_id(widget, "e005")
    index = index_of(widget, ev, COL_FLOOR)
    assert not widget.model.flags(index) & Qt.ItemFlag.ItemIsEditable
    assert widget.model.setData(index, 0.5) is False
    assert warnings and "read-only" in warnings[-1]
    assert not widget.pin_action.isEnabled()
    session.close()


# -- facts ---------------------------------------------------------------------------------------

def a_fact(view: BeliefsView, belief_class: str = "operational") -> int:
    row = view.session.memory.conn.execute(
        "SELECT id FROM facts WHERE belief_class = ? AND archivable = 1 AND confidence_floor = 0"
        " ORDER BY id LIMIT 1", (belief_class,)).fetchone()
    assert row is not None
    return int(row[0])


def fact_index(view: BeliefsView, fact: int, column: int):
    return view.model.index(view.model.fact_row(fact), column)


def fact_journal(view: BeliefsView, fact: int) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in view.session.memory.conn.execute(
        "SELECT op, payload FROM journal WHERE subject = ? ORDER BY seq", (f"fact:{fact}",))]


def fact_floor(view: BeliefsView, fact: int) -> float:
    return view.session.memory.conn.execute(
        "SELECT confidence_floor FROM facts WHERE id = ?", (fact,)).fetchone()[0]


def test_edit_fact_floor_undo_redo_writes_fact_set_rows(view):
    fact = a_fact(view)
    memory = view.session.memory
    rows_before = len(fact_journal(view, fact))

    delegate = view.table.itemDelegateForColumn(COL_FLOOR)
    index = view.proxy.mapFromSource(fact_index(view, fact, COL_FLOOR))
    editor = delegate.createEditor(view.table.viewport(), None, index)
    delegate.setEditorData(editor, index)
    editor.setValue(0.6)
    delegate.setModelData(editor, view.proxy, index)
    written(view)

    assert fact_floor(view, fact) == pytest.approx(0.6)
    assert fact_index(view, fact, COL_FLOOR).data() == "0.60"
    assert view.session.undo_stack.count() == 1

    view.session.undo_stack.undo()
    assert fact_floor(view, fact) == pytest.approx(0.0)
    assert fact_index(view, fact, COL_FLOOR).data() == "0.00"

    view.session.undo_stack.redo()
    assert fact_floor(view, fact) == pytest.approx(0.6)
    assert fact_index(view, fact, COL_FLOOR).data() == "0.60"

    rows = fact_journal(view, fact)[rows_before:]
    assert [op for op, _ in rows] == ["fact.set", "fact.set", "fact.set"]
    assert '"confidence_floor":0.6' in rows[0][1] and '"confidence_floor":0.0' in rows[1][1]
    assert memory.verify() == []


def test_fact_class_edit_respects_the_axiom_invariant(view, warnings):
    fact = a_fact(view)
    seq = head(view)
    # an archivable fact cannot become an axiom: refused, nothing written
    assert view.model.setData(fact_index(view, fact, COL_CLASS), "axiom") is False
    assert warnings and "archivable" in warnings[-1] and f"fact {fact}" in warnings[-1]
    assert head(view) == seq and view.session.undo_stack.count() == 0
    # pinned (non-archivable) with a floor of 0.6, it can
    assert view.model.setData(fact_index(view, fact, COL_ARCHIVABLE), Qt.CheckState.Unchecked,
                              Qt.ItemDataRole.CheckStateRole)
    written(view)
    assert view.model.setData(fact_index(view, fact, COL_FLOOR), 0.6)
    written(view)
    assert view.model.setData(fact_index(view, fact, COL_CLASS), "axiom")
    written(view)
    assert fact_index(view, fact, COL_CLASS).data() == "Core wound · axiom"
    # ...and then its floor cannot drop to 0.2
    seq = head(view)
    assert view.model.setData(fact_index(view, fact, COL_FLOOR), 0.2) is False
    assert "0.5" in warnings[-1]
    assert head(view) == seq
    assert [op for op, _ in fact_journal(view, fact)][-3:] == ["fact.set"] * 3


def test_pin_is_for_events_only(view, warnings):
    fact = a_fact(view)
    seq = head(view)
    view.session.select("fact", fact)
    selection = view.table.selectionModel()
    selection.clearSelection()
    proxy = view.proxy.mapFromSource(fact_index(view, fact, COL_TITLE))
    selection.select(proxy, QItemSelectionModel.SelectionFlag.Select
                     | QItemSelectionModel.SelectionFlag.Rows)
    assert view.selected_items() == [("fact", fact)]
    assert view.pin_selected() is False
    assert warnings and "Only events can be pinned" in warnings[-1]
    assert head(view) == seq


def test_bulk_edit_over_events_and_facts_is_one_step(view):
    ev = event_id(view, "e005")
    fact = a_fact(view)
    memory = view.session.memory
    selection = view.table.selectionModel()
    selection.clearSelection()
    for index in (index_of(view, ev, COL_TITLE), fact_index(view, fact, COL_TITLE)):
        selection.select(view.proxy.mapFromSource(index), QItemSelectionModel.SelectionFlag.Select
                         | QItemSelectionModel.SelectionFlag.Rows)
    assert view.bulk_set("belief_class", "hypothesis")
    written(view)
    fact_class = lambda: memory.conn.execute(  # noqa: E731
        "SELECT belief_class FROM facts WHERE id = ?", (fact,)).fetchone()[0]
    assert memory.event(ev)["belief_class"] == "hypothesis" and fact_class() == "hypothesis"
    assert view.session.undo_stack.count() == 1
    view.session.undo_stack.undo()
    assert memory.event(ev)["belief_class"] == "operational" and fact_class() == "operational"
