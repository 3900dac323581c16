"""The app on a 1024×768 screen (a small laptop, a projector): the main window's minimum size
fits inside it with a memory open on every tab and on the start page, the window really
resizes to 1024×768, and at that size no text is cut, no control unnamed, no panel dragged
shut (the audit of tests/test_desktop_fit.py). The dialogs fit the screen too. Before, the
minimum width was 1,091 px (1,234 once the Corrections tab had been shown)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pytestqt")

import PySide6.QtWebEngineWidgets  # noqa: E402,F401  (before the QApplication)

from pulse_desktop.main_window import TABS, MainWindow  # noqa: E402
from pulse_desktop.screenshots import prepare_tab  # noqa: E402
from pulse_desktop.ui_audit import audit_tabs, clipped_texts  # noqa: E402

SCREEN = (1024, 768)
FRAME = 40          # a title bar and a border around the window, as fit_to_screen leaves


pytestmark = pytest.mark.usefixtures("app_style")


def fits(size) -> bool:
    return size.width() <= SCREEN[0] and size.height() <= SCREEN[1] - FRAME


def test_the_start_page_fits_a_1024_screen(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    assert fits(win.minimumSizeHint()), win.minimumSizeHint()
    win.resize(*SCREEN)
    qtbot.wait(20)
    assert (win.width(), win.height()) == SCREEN
    win.close()


def test_every_tab_fits_a_1024_screen(qtbot, demo_copy):
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.open_path(demo_copy)
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    conn = win.session.memory.conn
    person = conn.execute("SELECT id FROM entities WHERE kind = 'person' ORDER BY salience DESC"
                          " LIMIT 1").fetchone()[0]
    win.session.select("entity", int(person))      # the detail panel at its fullest
    wide: dict[str, tuple[int, int]] = {}
    for name in TABS:                               # every tab built and filled, as a person
        win.show_tab(name)                          # who visited them all leaves the window
        prepare_tab(name, win.tab(name))
        qtbot.wait(20)
        need = win.minimumSizeHint()
        if not fits(need):
            wide[name] = (need.width(), need.height())
    assert wide == {}, f"minimum size beyond {SCREEN[0]}×{SCREEN[1] - FRAME}: {wide}"

    win.resize(*SCREEN)
    qtbot.wait(50)
    assert (win.width(), win.height()) == SCREEN
    nav, centre, detail = win.splitter.sizes()
    assert centre >= win.splitter.widget(1).minimumSizeHint().width()
    assert min(nav, detail) >= 180
    found = audit_tabs(win, prepare_tab)
    assert found == {}, json.dumps(found, indent=1)
    # before anything is explained, the Explain field's hint is whole (a short one here)
    play = win.tab("Playground")
    play.explain_edit.clear()
    win.show_tab("Playground")
    qtbot.wait(20)
    assert clipped_texts(play) == []
    assert play.explain_edit.placeholderText() == "e.g. e057"
    win.close()


def test_the_dialogs_fit_a_1024_screen(qtbot, demo_copy):
    from pulse_desktop.erase_dialog import EraseDialog
    from pulse_desktop.export_dialog import ExportDialog
    from pulse_desktop.passphrase_dialog import PassphraseDialog
    from pulse_desktop.ranking_help import RankingHelp
    from pulse_desktop.settings_dialog import SettingsDialog

    win = MainWindow()
    qtbot.addWidget(win)
    assert win.open_path(demo_copy)
    win.resize(*SCREEN)
    win.show()
    qtbot.waitExposed(win)
    person = win.session.memory.conn.execute(
        "SELECT id FROM entities WHERE kind = 'person' LIMIT 1").fetchone()[0]
    dialogs = {
        "settings": SettingsDialog(win.session, win),
        "export": ExportDialog("demo.db", str(demo_copy.parent), lambda _v: None, win),
        "passphrase": PassphraseDialog(demo_copy, lambda _t: None, win),
        "ranking help": RankingHelp(win.session, win),
        "edit entity": None,
        "erase": EraseDialog(win.session, [f"entity:{person}"], "Erase", cascade=True,
                             can_cascade=True, parent=win),
    }
    dialogs.pop("edit entity")
    wide = {}
    for name, dialog in dialogs.items():
        dialog.show()
        qtbot.waitExposed(dialog)
        need = dialog.minimumSizeHint().expandedTo(dialog.minimumSize())
        if not fits(need) or not fits(dialog.size()):
            wide[name] = (need.width(), need.height(), dialog.width(), dialog.height())
        dialog.close()
    assert wide == {}, wide
    win.close()


def test_a_detail_chip_is_never_split_across_lines():
    """At 1024 px the detail panel is 220 px wide: 'salience 0.50' broke after 'salience'."""
    from pulse_desktop.detail_panel import chip

    html = chip("salience 0.50")
    assert "salience&nbsp;0.50" in html and "salience 0.50" not in html
