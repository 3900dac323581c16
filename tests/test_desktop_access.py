"""Keyboard, colour-blind safety and plain words (issue 15, items 4-6), on the demo memory in
real widgets offscreen: window shortcuts that win over a text field, Tab into a list that
chooses nothing, a visible focus ring, Shift+arrow brushing of the timeline, palettes checked
under protanopia and deuteranopia with a letter beside every colour, "Core wound" and the plain
domain names everywhere, Help → How Pulse ranks memories, and the start page's last eight."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

import PySide6.QtWebEngineWidgets  # noqa: E402,F401  (before the QApplication)
from PySide6.QtCore import QModelIndex, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QGroupBox,
    QLabel,
    QTabBar,
    QWidget,
)

from core.memory import Memory  # noqa: E402
from pulse_desktop import colour_vision  # noqa: E402
from pulse_desktop.beliefs_model import COL_TITLE, ID_ROLE  # noqa: E402
from pulse_desktop.main_window import TABS, MainWindow  # noqa: E402
from pulse_desktop.screenshots import prepare_tab  # noqa: E402
from pulse_desktop.style import (  # noqa: E402
    CLASS_COLORS,
    CLASS_LETTERS,
    DOMAIN_COLORS,
    DOMAIN_LETTERS,
    DOMAIN_NAMES,
    EMOTION_COLORS,
    EMOTION_LETTERS,
)

PLAIN_DOMAINS = ["Real life", "Fiction · content", "Fiction · meta", "Authorial"]


@pytest.fixture
def window(qtbot, demo_db: Path, tmp_path: Path):
    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.open_path(path)
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()
    yield win
    win.close()


@pytest.fixture
def app_style(qapp):
    """The app's own style sheet, as pulse-desktop sets it (the focus ring is drawn by it)."""
    from pulse_desktop.style import QSS

    before = qapp.styleSheet()
    qapp.setStyleSheet(QSS)
    yield
    qapp.setStyleSheet(before)


# -- colour -------------------------------------------------------------------------------------

@pytest.mark.parametrize("palette", [EMOTION_COLORS, DOMAIN_COLORS, CLASS_COLORS],
                         ids=["emotions", "domains", "classes"])
@pytest.mark.parametrize("vision", ["normal", "protanopia", "deuteranopia"])
def test_palettes_stay_apart_for_colour_blind_eyes(palette, vision):
    closest, a, b = colour_vision.closest_pairs(palette, vision)[0]
    assert closest >= colour_vision.MIN_DELTA, f"{a} and {b}: ΔE2000 {closest:.1f} ({vision})"


def test_the_simulation_tells_red_from_green_apart_only_for_normal_eyes():
    """The check can fail: a classic red/green pair is far apart for normal vision and all
    but the same under deuteranopia; greys stay themselves."""
    pair = {"red": "#d62728", "green": "#2ca02c"}
    assert colour_vision.closest_pairs(pair, "normal")[0][0] > 60
    assert colour_vision.closest_pairs(pair, "deuteranopia")[0][0] < colour_vision.MIN_DELTA
    assert colour_vision.closest_pairs({"a": "#2ca02c", "b": "#ff7f0e"},
                                       "protanopia")[0][0] < colour_vision.MIN_DELTA
    for grey in ("#000000", "#808080", "#ffffff"):
        for vision in ("protanopia", "deuteranopia"):
            assert colour_vision.delta_e(colour_vision.simulate(grey, vision), grey) < 1.0


def test_every_colour_has_a_letter_or_a_name(window):
    for colours, letters in ((EMOTION_COLORS, EMOTION_LETTERS), (DOMAIN_COLORS, DOMAIN_LETTERS),
                             (CLASS_COLORS, CLASS_LETTERS)):
        assert set(letters) == set(colours)
        assert len(set(letters.values())) == len(letters), "two things share a letter"
    # the navigator: a lettered square beside every row, read out with its meaning
    for view in (window.navigator.entity_view, window.navigator.event_view):
        model = view.model()
        for row in range(min(model.rowCount(), 30)):
            index = model.index(row, 0, QModelIndex())
            assert not index.data(Qt.ItemDataRole.DecorationRole).isNull()
            mark = model.items[row][3]
            letter, _colour, name = model.marks[mark]
            assert letter.isalpha() and name
            assert index.data(Qt.ItemDataRole.AccessibleTextRole).startswith(f"{name}: ")
    # the timeline's legend names every emotion beside its lettered dot
    from pulse_desktop.timeline_paint import legend_layout

    window.show_tab("Timeline")
    legend = legend_layout(window.timeline.canvas, window.timeline.canvas.width())
    named = {entry[1] for entry in legend}
    assert set(EMOTION_COLORS) <= named and "core wound" in named


# -- keyboard -----------------------------------------------------------------------------------

def test_window_shortcuts_win_over_a_text_field(qtbot, window, monkeypatch, tmp_path):
    monkeypatch.setenv("PULSE_CONFIG_DIR", str(tmp_path / "config"))
    window.show_tab("Playground", focus=True)
    field = window.tab("Playground").query_edit
    qtbot.waitUntil(field.hasFocus, timeout=3000)
    QTest.keyClicks(field, "abandoned")
    assert getattr(window, "export_dialog", None) is None
    QTest.keyClick(field, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: getattr(window, "export_dialog", None) is not None
                    and window.export_dialog.isVisible(), timeout=3000)
    window.export_dialog.reject()
    assert field.text() == "abandoned"          # the field did not take Ctrl+E (end of line)
    # the field keeps the keys it edits with
    QTest.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert field.selectedText() == "abandoned"
    # Ctrl+N from the navigator's search box: the tab, and the keyboard on its main control
    window.navigator.search.setFocus()
    qtbot.waitUntil(window.navigator.search.hasFocus, timeout=3000)
    QTest.keyClick(window.navigator.search, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentIndex() == TABS.index("Beliefs")
    qtbot.waitUntil(window.beliefs.table.hasFocus, timeout=3000)
    assert window.session.selection is None     # the keyboard arrived; nothing was chosen
    QTest.keyClick(window.beliefs.table, Qt.Key.Key_Down)
    assert window.session.selection is not None


def test_every_tabs_shortcut_puts_the_keyboard_in_that_tab(qtbot, window):
    """Ctrl+N from the navigator's search box: the keyboard leaves the box for the tab (on
    Corrections, Ingest, Recalls and Review it stayed in the box: Ctrl+8 then L for 'Later'
    typed an l into the search). The Graph is left out: its page is drawn off the UI thread."""
    search = window.navigator.search
    for number, name in enumerate(TABS, start=1):
        if name == "Graph":
            continue
        search.setFocus()
        qtbot.waitUntil(search.hasFocus, timeout=3000)
        QTest.keyClick(search, Qt.Key(Qt.Key.Key_0 + number), Qt.KeyboardModifier.ControlModifier)
        assert window.tabs.currentIndex() == TABS.index(name)
        tab = window.tab(name)
        qtbot.waitUntil(lambda t=tab: t.isAncestorOf(QApplication.focusWidget()), timeout=3000)
    # Review's A, R and L go to the queue (tests/test_desktop_review.py), not into the search
    assert QApplication.focusWidget() is window.tab("Review").tree
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_L)
    assert search.text() == ""


def test_a_click_on_the_row_the_keyboard_arrived_on_chooses_it(qtbot, window):
    """Ctrl+3 makes the table's first row current without choosing it; a click on that row
    then chose nothing (the detail panel stayed empty) until another row was clicked."""
    window.show_tab("Beliefs", focus=True)
    table = window.beliefs.table
    qtbot.waitUntil(table.hasFocus, timeout=3000)
    first = table.model().index(0, COL_TITLE)
    assert table.currentIndex().row() == 0 and window.session.selection is None
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                     pos=table.visualRect(first).center())
    kind, item_id = first.data(ID_ROLE)
    assert window.session.selection == (kind, int(item_id))


def test_tab_into_a_list_chooses_nothing(qtbot, window):
    view = window.navigator.event_view
    assert window.session.selection is None
    window.navigator.search.setFocus()
    qtbot.waitUntil(window.navigator.search.hasFocus, timeout=3000)
    for _ in range(8):            # Tab along the navigator until the events list has the keys
        if view.hasFocus():
            break
        QTest.keyClick(window.focusWidget(), Qt.Key.Key_Tab)
    assert view.hasFocus()
    assert window.session.selection is None     # arriving is not choosing
    QTest.keyClick(view, Qt.Key.Key_Down)
    assert window.session.selection is not None and window.session.selection[0] == "event"


def test_the_focus_ring_shows_on_lists_and_the_detail_panel(qtbot, window, app_style):
    for widget in (window.navigator.event_view, window.detail.browser):
        window.navigator.search.setFocus()
        qtbot.waitUntil(lambda w=widget: not w.hasFocus(), timeout=3000)
        before = widget.grab().toImage()
        widget.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(widget.hasFocus, timeout=3000)
        after = widget.grab().toImage()
        edge = [(x, 0) for x in range(0, widget.width(), 7)] + \
            [(0, y) for y in range(0, widget.height(), 7)]
        assert any(before.pixel(x, y) != after.pixel(x, y) for x, y in edge), \
            f"{type(widget).__name__} looks the same with and without the keyboard"


def test_the_timeline_is_brushed_with_shift_arrows(qtbot, window):
    window.show_tab("Timeline")
    canvas = window.timeline.canvas
    qtbot.waitExposed(canvas)
    canvas.fit()
    canvas.setFocus()
    qtbot.waitUntil(canvas.hasFocus, timeout=3000)
    for _ in range(6):
        QTest.keyClick(canvas, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    start, end = window.session.brush
    assert start and end and start < end
    shown = window.navigator.shown_event_ids()
    assert 0 < len(shown) < 197
    # Shift+Left takes the range back in: fewer events
    for _ in range(3):
        QTest.keyClick(canvas, Qt.Key.Key_Left, Qt.KeyboardModifier.ShiftModifier)
    start2, end2 = window.session.brush
    assert start2 == start and end2 < end
    assert len(window.navigator.shown_event_ids()) <= len(shown)
    # a plain arrow moves on; Esc clears the range everywhere
    QTest.keyClick(canvas, Qt.Key.Key_Escape)
    assert window.session.brush == (None, None)
    assert len(window.navigator.shown_event_ids()) == 197


# -- words --------------------------------------------------------------------------------------

RAW = re.compile(r"fiction_content|fiction_meta|meta_authorial|self_model|user_model|"
                 r"recency_factor|\b\d\.\d+e[-+]\d+\b|\bAxiom\b")


def shown_texts(root: QWidget) -> list[str]:
    """Every text a sighted person reads in the window now (tooltips are not counted)."""
    out: list[str] = []
    for w in root.findChildren(QWidget):
        if not w.isVisible():
            continue
        if isinstance(w, (QLabel, QAbstractButton)) and w.text():
            out.append(w.text())
        elif isinstance(w, QGroupBox):
            out.append(w.title())
        elif isinstance(w, QComboBox):
            out += [w.itemText(i) for i in range(w.count())]
        elif isinstance(w, QTabBar):
            out += [w.tabText(i) for i in range(w.count())]
        elif isinstance(w, QAbstractItemView) and w.model() is not None:
            model = w.model()
            try:
                columns = model.columnCount()
            except TypeError:        # a list model: one column (its count is private)
                columns = 1
            for col in range(columns):
                out.append(str(model.headerData(col, Qt.Orientation.Horizontal) or ""))
                for row in range(min(model.rowCount(QModelIndex()), 60)):
                    value = model.index(row, col, QModelIndex()).data()
                    if isinstance(value, str):
                        out.append(value)
    return out


def test_plain_words_on_every_tab(qtbot, window):
    seen: list[str] = []
    for name in TABS:
        window.show_tab(name)
        prepare_tab(name, window.tab(name))
        qtbot.wait(50)
        seen += shown_texts(window)
    raw = sorted({t for t in seen if RAW.search(t)})
    assert not raw, raw
    assert [window.navigator.domain.itemText(i) for i in range(1, 5)] == PLAIN_DOMAINS
    assert [DOMAIN_NAMES[d] for d in DOMAIN_NAMES] == PLAIN_DOMAINS
    checks = window.tab("Playground").context.domain_checks
    assert [box.text() for box in checks.values()] == PLAIN_DOMAINS
    # a pinned axiom is a core wound, its class beside it: beliefs, timeline lanes, navigator
    assert "Core wound · axiom" in seen
    classes = window.navigator.findChildren(QComboBox)
    assert any(c.findText("Core wound · axiom") >= 0 for c in classes)


def test_help_how_pulse_ranks_memories(qtbot, window):
    menu_actions = [a for a in window.menuBar().actions() if a.text().replace("&", "") == "Help"]
    help_menu = menu_actions[0].menu()
    action = next(a for a in help_menu.actions()
                  if a.text().replace("&", "") == "How Pulse ranks memories")
    ready: list[dict] = []
    action.trigger()
    page = window.ranking_help
    page.exampleReady.connect(ready.append)
    qtbot.waitUntil(lambda: bool(ready), timeout=60_000)
    assert page.isVisible()
    text = page.text()
    assert "score = " in text.lower() or "=" in text.splitlines()[2]
    for factor in ("Relevance", "Recency", "Emotion", "Body day", "Anchor", "Date"):
        assert re.search(rf"^{factor}\s", text, re.M), factor
    example = ready[0]["explained"]["result"]
    assert "An example from this memory" in text
    assert example["key"] in text and example["title"] in text
    row = window.session.memory.conn.execute("SELECT title FROM events WHERE key = ?",
                                             (example["key"],)).fetchone()
    assert row[0] == example["title"]         # the example is an event of the open memory


def test_the_help_example_adds_up_and_says_the_real_alpha(qtbot, window):
    """The worked example's relevance line named only meaning and shared words, "mixed
    0.6 : 0.4" (1 × 0.6 + 1 × 0.4 = 1) beside a relevance of 1.05: the linked events' part
    was missing. And the recency line called α "half" while the scorer's α is 0.75."""
    from pulse_desktop.numbers import sig
    from pulse_desktop.playground_results import CHANNEL_NAMES, relevance_parts

    ready: list[dict] = []
    window.show_ranking_help()
    page = window.ranking_help
    page.exampleReady.connect(ready.append)
    qtbot.waitUntil(lambda: bool(ready), timeout=60_000)
    text = " ".join(page.text().split())
    terms = ready[0]["explained"]["result"]["terms"]
    parts = relevance_parts(terms)
    assert len([v for _n, v in parts if v > 0]) >= 3          # the example has a linked part
    added = " + ".join(f"{CHANNEL_NAMES[n].split(' (')[0]} {sig(v)}" for n, v in parts)
    assert f"{added} = {sig(terms['relevance'])}" in text
    assert abs(sum(v for _n, v in parts) - terms["relevance"]) < 1e-9
    assert "(half)" not in text and f"α ({sig(Memory.scorer_defaults().alpha)})" in text


def test_start_page_offers_the_last_eight_memories(qtbot, tmp_path):
    paths = []
    for i in range(10):
        path = tmp_path / f"memory-{i}.db"
        Memory.open(path, create=True).close()
        paths.append(path)
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    for path in paths:
        assert win.open_path(path)
    win.close_memory()
    assert win.stack.currentWidget() is win.start
    assert win.statusBar().currentMessage() == "No memory open"
    buttons = win.start.recent_buttons
    assert [b.accessibleName() for b in buttons] == \
        [f"Open recent memory {p.name}" for p in reversed(paths[2:])]
    qtbot.wait(20)
    assert all(b.isVisible() for b in buttons), [(b.isHidden(), b.parentWidget().isVisible(),
                                                  win.start.isVisible()) for b in buttons]
    texts = {b.text() for b in win.start.findChildren(QAbstractButton)}
    assert {"Open demo memory", "New memory…", "Import conversations…", "Open…"} <= texts
    buttons[2].click()
    assert win.session.path is not None and Path(win.session.path).name == "memory-7.db"
    assert win.stack.currentWidget() is not win.start
    win.close()
