"""Curation in the app, driven through real widgets (offscreen) on the demo memory: edit an
event (text, domain, emotions) and an entity, merge two entities, split an alias out, link,
re-weight and unlink events, edit a relation, bulk actions on navigator selections — each one
undone with Ctrl+Z — and erase everything about a person with the preview, a typed
confirmation, and a bytes check of the file and its -wal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

import PySide6.QtWebEngineWidgets  # noqa: E402,F401  (must load before the QApplication)
from PySide6.QtCore import QItemSelectionModel, Qt, QUrl  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from pulse_desktop.curation import curator  # noqa: E402
from pulse_desktop.main_window import MainWindow  # noqa: E402
from tests.bytes_check import CHAT, hits_in_files, sqlite_files  # noqa: E402


@pytest.fixture
def window(qtbot, demo_copy: Path, dialogs):
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.open_path(demo_copy)
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()


def one(win: MainWindow, query: str, *args):
    return win.session.memory.conn.execute(query, args).fetchone()


def entity(win: MainWindow, key: str) -> int:
    return int(one(win, "SELECT id FROM entities WHERE key = ?", key)[0])


def event(win: MainWindow, key: str) -> int:
    return int(one(win, "SELECT id FROM events WHERE key = ?", key)[0])


def ctrl_z(win: MainWindow) -> None:
    QTest.keyClick(win, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)


def head(win: MainWindow) -> int:
    return win.session.memory.stats()["journal_head"]


def ok(qtbot, dialog) -> None:
    assert dialog.isVisible()
    QTest.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)


# -- events --------------------------------------------------------------------------------------

def test_edit_an_event_then_ctrl_z(qtbot, window):
    ev = event(window, "e010")
    window.session.select("event", ev)
    before = window.session.memory.digest()
    dialog = window.detail.edit()
    assert "confirmed by you" in dialog.invariant.text()      # the rule, before saving
    dialog.emotion_spins["shame"].setValue(0.8)
    dialog.emotion_spins["joy"].setValue(0.0)
    dialog.domain_box.setCurrentIndex(dialog.domain_box.findData("meta_authorial"))
    dialog.title_edit.setText("Argument with Tom about children (as I remember it)")
    ok(qtbot, dialog)
    memory = window.session.memory
    new = memory.resolve_event("e010")
    assert new != ev and memory.event(new)["title"].endswith("(as I remember it)")
    assert memory.event(new)["domain"] == "meta_authorial"
    emo = one(window, "SELECT shame, derivation FROM event_emotions WHERE event_id = ?", new)
    assert tuple(emo) == (0.8, "user_confirmed")
    assert window.session.selection == ("event", new)
    assert "confirmed by you" in window.detail.text()
    ops = [r["op"] for r in memory.history(subject=f"event:{ev}")]
    assert ops[:2] == ["event.emotions", "event.set"]
    ctrl_z(window)                                          # one Ctrl+Z undoes the whole edit
    assert memory.digest() == before
    assert memory.resolve_event("e010") == ev


def test_an_edit_the_core_refuses_stays_in_the_dialog(qtbot, window):
    window.session.select("event", event(window, "e010"))
    dialog = window.detail.edit()
    dialog.title_edit.setText("   ")
    QTest.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and "title" in dialog.error.text()
    dialog.reject()


def test_link_reweight_and_remove_from_the_detail_panel(qtbot, window):
    a, b = event(window, "e057"), event(window, "e072")
    window.session.select("event", a)
    before = window.session.memory.digest()
    dialog = window.detail.add_link()
    assert "never closes a cycle" in dialog.invariant.text()
    dialog.other.setCurrentIndex(dialog.other.findData(b))
    dialog.strength.setValue(0.8)
    ok(qtbot, dialog)
    link = one(window, "SELECT kind, strength FROM event_chains WHERE parent_id = ? AND"
                       " child_id = ?", a, b)
    assert tuple(link) == ("causal", 0.8)
    assert "weight" in window.detail.text() and "remove" in window.detail.text()
    # re-weight through the panel's own link
    window.detail._follow(QUrl(f"pulse-act://link/{a}/{b}"))
    edit = curator(window.session).dialog
    edit.strength.setValue(0.3)
    ok(qtbot, edit)
    assert one(window, "SELECT strength FROM event_chains WHERE parent_id = ? AND child_id = ?",
               a, b)[0] == 0.3
    window.detail._follow(QUrl(f"pulse-act://unlink/{a}/{b}"))
    assert one(window, "SELECT 1 FROM event_chains WHERE parent_id = ? AND child_id = ?",
               a, b) is None
    for _ in range(3):
        ctrl_z(window)
    assert window.session.memory.digest() == before
    # a link that would close a cycle is refused, in the dialog
    first, second = one(window, "SELECT parent_id, child_id FROM event_chains LIMIT 1")
    window.session.select("event", second)
    dialog = window.detail.add_link()
    dialog.other.setCurrentIndex(dialog.other.findData(first))
    QTest.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and "cycle" in dialog.error.text()
    dialog.reject()


# -- entities -------------------------------------------------------------------------------------

def test_rename_an_entity_and_edit_a_relation(qtbot, window):
    dana = entity(window, "p_dana")
    window.session.select("entity", dana)
    before = window.session.memory.digest()
    dialog = window.detail.edit()
    assert "old name as an alias" in dialog.invariant.text()
    dialog.name_edit.setText("Dana W.")
    dialog.kind_box.setCurrentIndex(dialog.kind_box.findData("person"))
    ok(qtbot, dialog)
    row = one(window, "SELECT canonical_name, aliases FROM entities WHERE id = ?", dana)
    assert row[0] == "Dana W." and "Dana Whitfield" in json.loads(row[1])
    assert "Dana W." in window.detail.text()
    rel = one(window, "SELECT id FROM relations WHERE from_entity = ? OR to_entity = ?",
              dana, dana)[0]
    window.detail._follow(QUrl(f"pulse-act://relation/{rel}"))
    dialog = curator(window.session).dialog
    dialog.strength.setValue(0.95)
    dialog.context.setText("best friend since university")
    ok(qtbot, dialog)
    assert one(window, "SELECT strength FROM relations WHERE id = ?", rel)[0] == 0.95
    ctrl_z(window)
    ctrl_z(window)
    assert window.session.memory.digest() == before


def select_rows(view, model, ids: list[int]) -> None:
    selection = view.selectionModel()
    selection.clearSelection()
    for item in ids:
        index = model.index(model.row_of(item), 0)
        selection.select(index, QItemSelectionModel.SelectionFlag.Select)
    selection.setCurrentIndex(model.index(model.row_of(ids[0]), 0),
                              QItemSelectionModel.SelectionFlag.NoUpdate)


def test_merge_two_entities_from_the_navigator(qtbot, window):
    nav = window.navigator
    erik, zoya = entity(window, "p_erik"), entity(window, "p_zoya")
    before = window.session.memory.digest()
    select_rows(nav.entity_view, nav.entities, [erik, zoya])
    assert nav.selected_ids("entity") == [erik, zoya]
    menu = nav.entity_menu()
    merge = next(a for a in menu.actions() if a.text() == "Merge the two…")
    merge.trigger()
    dialog = curator(window.session).dialog
    assert "never merged with a real person" in dialog.invariant.text()
    assert "Zoya Lind goes into Erik Lind" in dialog.preview.text()
    ok(qtbot, dialog)
    assert one(window, "SELECT 1 FROM entities WHERE id = ?", zoya) is None
    assert window.session.selection == ("entity", erik)
    ctrl_z(window)
    assert window.session.memory.digest() == before
    # a fictional character cannot be merged into a real person: the dialog says so first
    window.session.select("entity", erik)
    dialog = window.detail.merge()
    dialog.other.setCurrentIndex(dialog.other.findData(entity(window, "p_ilse")))
    assert "never merged" in dialog.preview.text() and not dialog.ok.isEnabled()
    dialog.reject()


def test_split_an_alias_out(qtbot, window):
    katya = entity(window, "p_sister")
    window.session.select("entity", katya)
    before = window.session.memory.digest()
    dialog = window.detail.split_alias()
    dialog.alias.setCurrentText("Kate")
    ok(qtbot, dialog)
    assert one(window, "SELECT kind FROM entities WHERE canonical_name = 'Kate'")[0] == "person"
    ctrl_z(window)
    assert window.session.memory.digest() == before


# -- bulk actions ----------------------------------------------------------------------------------

def test_bulk_actions_on_a_navigator_selection(qtbot, window):
    nav = window.navigator
    ids = nav.shown_event_ids()[10:13]
    before = window.session.memory.digest()
    select_rows(nav.event_view, nav.events, ids)
    assert nav.bulk_events({"belief_class": "user_model"}, "Set class")
    assert window.session.writes_in_flight == 1            # sent to the writer thread
    assert nav.bulk_events({"domain": "meta_authorial"}, "Move")
    assert nav.bulk_events({"archivable": 0}, "Pin")
    floor = nav.event_menu()
    action = next(a for a in floor.actions() if a.text().startswith("Floor…"))
    action.trigger()
    dialog = curator(window.session).dialog
    current = one(window, "SELECT confidence_floor FROM events WHERE id = ?", ids[0])[0]
    assert dialog.spin.value() == pytest.approx(current)      # starts at the current value
    dialog.spin.setValue(0.4)
    ok(qtbot, dialog)
    # the menus and the Floor… dialog write on the writer thread, in order
    qtbot.waitUntil(lambda: window.session.writes_in_flight == 0, timeout=20_000)
    # (offscreen, activation goes back to the closed dialog once events run: Ctrl+Z then
    # reaches no window; a window manager gives it to the main window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    rows = [tuple(one(window, "SELECT belief_class, domain, archivable, confidence_floor FROM"
                              " events WHERE id = ?", i)) for i in ids]
    assert rows == [("user_model", "meta_authorial", 0, 0.4)] * 3
    for _ in range(4):
        ctrl_z(window)                                        # one step per bulk action
    assert window.session.memory.digest() == before
    # entities: kind and domain on several at once
    people = [entity(window, k) for k in ("p_priya", "p_jonah")]
    select_rows(nav.entity_view, nav.entities, people)
    assert nav.bulk_entities("Move to authorial", domain="meta_authorial")
    assert {one(window, "SELECT domain FROM entities WHERE id = ?", i)[0] for i in people} == {
        "meta_authorial"}
    ctrl_z(window)
    assert window.session.memory.digest() == before


def test_floor_dialog_shows_the_axiom_invariant(qtbot, window):
    beliefs = window.beliefs
    axiom = event(window, "e004")
    window.show_tab("Beliefs")
    beliefs.select_event(axiom)
    dialog = beliefs.bulk_floor()
    assert dialog.spin.value() == pytest.approx(0.9)          # not 0.5: Enter changes nothing
    assert "at least 0.5" in dialog.invariant.text() and "is an axiom" in dialog.invariant.text()
    dialog.spin.setValue(0.3)
    assert not dialog.ok.isEnabled() and "can't go below" in dialog.warning.text()
    dialog.spin.setValue(0.9)
    QTest.keyClick(dialog.spin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.session.writes_in_flight == 0, timeout=20_000)
    assert window.session.memory.event(axiom)["confidence_floor"] == pytest.approx(0.9)


def test_pinned_column_and_filter(qtbot, window):
    from pulse_desktop.beliefs_model import COL_PINNED

    beliefs = window.beliefs
    pinned = one(window, "SELECT COUNT(*) FROM events WHERE archivable = 0 AND"
                         " absorbed_into IS NULL")[0]
    pinned += one(window, "SELECT COUNT(*) FROM facts WHERE archivable = 0")[0]
    beliefs.pinned_box.setChecked(True)
    assert beliefs.proxy.rowCount() == pinned > 0
    # the column is a tick; what it means is read out (and in the tooltip): pinned, core wound
    texts = {beliefs.proxy.index(r, COL_PINNED).data(Qt.ItemDataRole.AccessibleTextRole)
             for r in range(beliefs.proxy.rowCount())}
    assert texts <= {"pinned", "core wound"} and "core wound" in texts
    assert {beliefs.proxy.index(r, COL_PINNED).data(Qt.ItemDataRole.CheckStateRole)
            for r in range(beliefs.proxy.rowCount())} == {Qt.CheckState.Checked}
    assert "pinned only" in beliefs.count.text()
    beliefs.pinned_box.setChecked(False)
    assert beliefs.proxy.rowCount() == beliefs.model.rowCount()


# -- erase everything about a person ---------------------------------------------------------------

def test_erase_everything_about_a_person_from_the_app(qtbot, window, tmp_path):
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT), encoding="utf-8")
    window.session.memory.import_files([chat])
    window.session.notify("all")
    path = window.session.path
    assert hits_in_files(sqlite_files(path))
    tom = entity(window, "p_tom")
    window.session.select("entity", tom)
    window.beliefs.bulk_set("domain", "real")                 # something on the undo stack
    qtbot.waitUntil(lambda: window.beliefs.model.pending == 0, timeout=20_000)
    start = head(window)
    dialog = window.detail.erase()
    assert dialog.cascade_box.isVisible() and dialog.cascade_box.isChecked()
    groups = {dialog.tree.topLevelItem(i).text(0).split(" (")[0]
              for i in range(dialog.tree.topLevelItemCount())}
    assert {"Entity", "Events", "Facts", "Relations"} <= groups
    assert "Will erase" in dialog.summary.text()
    assert not dialog.erase_button.isEnabled()                # not before the typed word
    # untick one event: the plan shrinks, and the dialog says what still names him
    events_group = next(dialog.tree.topLevelItem(i) for i in range(dialog.tree.topLevelItemCount())
                        if dialog.tree.topLevelItem(i).text(0).startswith("Events"))
    kept = events_group.child(0)
    kept_ref = kept.data(0, Qt.ItemDataRole.UserRole + 1)
    kept.setCheckState(0, Qt.CheckState.Unchecked)
    assert kept_ref in dialog.keep and dialog.mentions.isVisible()
    kept.setCheckState(0, Qt.CheckState.Checked)             # and back: everything goes
    assert not dialog.keep and not dialog.mentions.isVisible()
    QTest.keyClicks(dialog.confirm, "erase")
    assert dialog.erase_button.isEnabled()
    with qtbot.waitSignal(dialog.erased, timeout=120_000) as blocker:
        QTest.mouseClick(dialog.erase_button, Qt.MouseButton.LeftButton)
    out = blocker.args[0]
    assert out["journal_seq"] == start + 1 and out["wal_truncated"]
    assert head(window) == start + 1                          # one journaled erasure
    assert window.session.memory.verify() == []
    assert window.session.undo_stack.count() == 0             # irreversible: nothing to undo
    assert hits_in_files(sqlite_files(path)) == {}            # the file and its -wal
    journal_out, html_out = tmp_path / "j.jsonl", tmp_path / "v.html"
    window.session.memory.export_journal(journal_out)
    window.session.memory.export_html(html_out)
    assert hits_in_files([journal_out, html_out]) == {}       # and later exports
    assert tom not in window.navigator.shown_entity_ids()
    assert "Tom Reyes" not in window.detail.text()


def test_bulk_erase_from_the_beliefs_table(qtbot, window):
    beliefs = window.beliefs
    window.show_tab("Beliefs")
    ids = [event(window, k) for k in ("e020", "e021")]
    beliefs.select_event(ids[0])
    selection = beliefs.table.selectionModel()
    from pulse_desktop.beliefs_model import COL_TITLE

    index = beliefs.proxy.mapFromSource(beliefs.model.index(beliefs.model.event_row(ids[1]),
                                                            COL_TITLE))
    selection.select(index, QItemSelectionModel.SelectionFlag.Select
                     | QItemSelectionModel.SelectionFlag.Rows)
    dialog = beliefs.erase_selected()
    assert not dialog.cascade_box.isVisible()
    assert dialog.preview["counts"]["event"] == 2
    QTest.keyClicks(dialog.confirm, "ERASE")
    with qtbot.waitSignal(dialog.erased, timeout=120_000):
        QTest.mouseClick(dialog.erase_button, Qt.MouseButton.LeftButton)
    assert all(one(window, "SELECT 1 FROM events WHERE id = ?", i) is None for i in ids)
    assert beliefs.model.rowCount() == 197 + 51 - 2


def test_approving_a_merge_proposal_in_the_ingest_tab_is_undoable(qtbot, window):
    from core.store.commands import execute  # a proposal as the importer would write it

    erik, zoya = entity(window, "p_erik"), entity(window, "p_zoya")
    execute(window.session.memory.conn, actor="import", op="merge.propose",
            subject=f"entity:{erik}", changes=[{"t": "merge_proposals", "a": "insert", "row": {
                "id": 1, "keep_entity": erik, "merge_entity": zoya, "similarity": 0.8,
                "status": "pending", "reason": ""}}])
    before = window.session.memory.digest()
    window.show_tab("Ingest")
    ingest = window.tab("Ingest")
    ingest.refresh_proposals()
    ingest.proposals.selectRow(0)
    with qtbot.waitSignal(ingest.proposalResolved, timeout=10_000):
        ingest.resolve_selected(True)
    assert one(window, "SELECT 1 FROM entities WHERE id = ?", zoya) is None
    ctrl_z(window)
    assert window.session.memory.digest() == before
    assert one(window, "SELECT status FROM merge_proposals WHERE id = 1")[0] == "pending"


def test_erase_a_fact_and_a_relation_from_the_detail_panel(qtbot, window):
    fact = one(window, "SELECT id, text FROM facts ORDER BY id LIMIT 1")
    window.session.select("fact", fact[0])
    dialog = window.detail.erase()
    assert not dialog.cascade_box.isVisible()
    assert [i["ref"] for i in dialog.preview["items"]] == [f"fact:{fact[0]}"]
    QTest.keyClicks(dialog.confirm, "erase")
    with qtbot.waitSignal(dialog.erased, timeout=120_000):
        QTest.mouseClick(dialog.erase_button, Qt.MouseButton.LeftButton)
    assert one(window, "SELECT 1 FROM facts WHERE id = ?", fact[0]) is None
    assert fact[1] not in window.detail.text()
    rel = one(window, "SELECT id, from_entity FROM relations ORDER BY id LIMIT 1")
    window.session.select("entity", rel[1])
    window.detail._follow(QUrl(f"pulse-act://erase-relation/{rel[0]}"))
    dialog = curator(window.session).dialog
    assert dialog.preview["counts"] == {"relation": 1}
    QTest.keyClicks(dialog.confirm, "erase")
    with qtbot.waitSignal(dialog.erased, timeout=120_000):
        QTest.mouseClick(dialog.erase_button, Qt.MouseButton.LeftButton)
    assert one(window, "SELECT 1 FROM relations WHERE id = ?", rel[0]) is None
    assert window.session.memory.verify() == []


def test_the_floor_dialog_grows_for_its_warning(qtbot, qapp):
    """Floor… on a core wound, typed down to 0.2: the warning line appears, and the dialog
    grows for it (it stayed as tall as before, and the note above and the warning were cut
    at the bottom, seen at 1280×800)."""
    from pulse_desktop.edit_dialogs import FloorDialog
    from pulse_desktop.style import QSS
    from pulse_desktop.ui_audit import clipped_texts

    before = qapp.styleSheet()
    qapp.setStyleSheet(QSS)
    try:
        dialog = FloorDialog(1, 0.85, 1, None)
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        dialog.spin.setValue(0.2)
        qtbot.wait(50)
        assert dialog.warning.isVisible() and not dialog.ok.isEnabled()
        assert clipped_texts(dialog) == []
    finally:
        qapp.setStyleSheet(before)
