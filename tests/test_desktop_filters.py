"""One filter for all views: the navigator's kind, domain, class and search drive the beliefs
table, the timeline and the graph exactly as the timeline brush does; a search in the graph
keeps the neighbours of what it found and highlights it. And a shift-drag between two event
nodes in the graph adds a cause → effect link that Ctrl+Z takes back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

import PySide6.QtWebEngineWidgets  # noqa: E402,F401  (must load before the QApplication)
from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from pulse_desktop.main_window import MainWindow  # noqa: E402

GRAPH_TIMEOUT = 120_000


@pytest.fixture
def window(qtbot, demo_db: Path, tmp_path: Path, dialogs):
    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.open_path(path)
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()


def js(qtbot, win: MainWindow, script: str):
    box: list = []
    win.graph.run_js(f"JSON.stringify([({script})])", lambda value: box.append(value))
    qtbot.waitUntil(lambda: bool(box), timeout=10_000)
    return json.loads(box[0])[0]


def wait_graph(qtbot, win: MainWindow) -> None:
    win.show_tab("Graph")
    qtbot.waitUntil(lambda: win.graph.ready, timeout=GRAPH_TIMEOUT)


def ids(win: MainWindow, query: str, *args) -> set[int]:
    return {int(r[0]) for r in win.session.memory.conn.execute(query, args)}


def table_rows(win: MainWindow) -> set[tuple[str, int]]:
    from pulse_desktop.beliefs_model import ID_ROLE

    proxy = win.beliefs.proxy
    return {tuple(proxy.index(r, 0).data(ID_ROLE)) for r in range(proxy.rowCount())}


def graph_nodes(qtbot, win: MainWindow) -> set[str]:
    return set(js(qtbot, win, "pulseViewer.visibleNodeIds()"))


def choose(box, data) -> None:
    box.setCurrentIndex(box.findData(data))


def test_domain_and_class_filters_drive_every_view(qtbot, window):
    wait_graph(qtbot, window)
    nav = window.navigator
    choose(nav.domain, "fiction_content")
    events = ids(window, "SELECT id FROM events WHERE domain = 'fiction_content' AND"
                         " absorbed_into IS NULL")
    entities = ids(window, "SELECT id FROM entities WHERE domain = 'fiction_content'")
    facts = ids(window, "SELECT id FROM facts WHERE domain = 'fiction_content'")
    assert 0 < len(events) < 197
    assert set(nav.shown_event_ids()) == events and set(nav.shown_entity_ids()) == entities
    assert {d.id for d in window.timeline.canvas.dots} == events
    assert table_rows(window) == {("event", i) for i in events} | {("fact", i) for i in facts}
    expected = {f"ev:{i}" for i in events} | {f"en:{i}" for i in entities}
    qtbot.waitUntil(lambda: graph_nodes(qtbot, window) == expected, timeout=10_000)
    assert "navigator's filter" in window.beliefs.count.text()
    assert "navigator's filter" in window.timeline.info.text()

    choose(nav.domain, None)
    choose(nav.cls, "axiom")
    axioms = ids(window, "SELECT id FROM events WHERE belief_class = 'axiom'")
    assert len(axioms) == 7
    assert {d.id for d in window.timeline.canvas.dots} == axioms
    assert {i for k, i in table_rows(window) if k == "event"} == axioms
    qtbot.waitUntil(lambda: {n for n in graph_nodes(qtbot, window) if n.startswith("ev:")}
                    == {f"ev:{i}" for i in axioms}, timeout=10_000)

    choose(nav.cls, None)                                   # no filter: everything again
    assert len(window.timeline.canvas.dots) == 197
    assert window.beliefs.proxy.rowCount() == window.beliefs.model.rowCount()
    qtbot.waitUntil(lambda: js(qtbot, window, "pulseViewer.visibleNodeCount()")
                    == js(qtbot, window, "pulseViewer.nodeCount()"), timeout=10_000)


def test_kind_filter_shows_the_events_of_that_kind(qtbot, window):
    nav = window.navigator
    choose(nav.kind, "kind:place")
    places = ids(window, "SELECT id FROM entities WHERE kind = 'place'")
    mention = ids(window, "SELECT DISTINCT x.event_id FROM event_entities x JOIN entities n ON"
                          " n.id = x.entity_id JOIN events e ON e.id = x.event_id WHERE"
                          " n.kind = 'place' AND e.absorbed_into IS NULL")
    assert set(nav.shown_entity_ids()) == places
    assert set(nav.shown_event_ids()) == mention
    assert {d.id for d in window.timeline.canvas.dots} == mention
    facts = ids(window, "SELECT f.id FROM facts f JOIN entities n ON n.id = f.entity_id"
                        " WHERE n.kind = 'place'")
    assert {i for k, i in table_rows(window) if k == "fact"} == facts


def test_searching_a_person_keeps_neighbours_and_highlights_them(qtbot, window):
    wait_graph(qtbot, window)
    nav = window.navigator
    tom = ids(window, "SELECT id FROM entities WHERE key = 'p_tom'").pop()
    nadia = ids(window, "SELECT id FROM entities WHERE key = 'p_self'").pop()
    nav.search.setText("Tom Reyes")
    nav.refresh()
    his_events = ids(window, "SELECT event_id FROM event_entities WHERE entity_id = ?", tom)
    own_words = ids(window, "SELECT id FROM events WHERE title || description LIKE"
                            " '%Tom Reyes%' AND absorbed_into IS NULL")
    shown = his_events | own_words
    assert set(nav.shown_entity_ids()) == {tom}
    assert set(nav.shown_event_ids()) == shown
    assert {d.id for d in window.timeline.canvas.dots} == shown
    assert {i for k, i in table_rows(window) if k == "event"} == shown
    # the graph: Tom highlighted, his events and the people related to him still visible
    qtbot.waitUntil(lambda: f"en:{tom}" in js(qtbot, window, "pulseViewer.highlightedIds()"),
                    timeout=10_000)
    visible = graph_nodes(qtbot, window)
    assert {f"en:{tom}", f"en:{nadia}"} <= visible
    assert {f"ev:{i}" for i in his_events} <= visible
    assert len(visible) < js(qtbot, window, "pulseViewer.nodeCount()")
    nav.search.clear()
    nav.refresh()
    qtbot.waitUntil(lambda: js(qtbot, window, "pulseViewer.highlightedIds()") == [],
                    timeout=10_000)


def test_shift_drag_between_two_events_links_them(qtbot, window):
    wait_graph(qtbot, window)
    js(qtbot, window, "pulseViewer.fit(), true")
    qtbot.wait(300)
    pair = js(qtbot, window, """(function () {
      var v = window.pulseViewer, c = document.getElementById('graph').getBoundingClientRect();
      var ok = v.visibleNodeIds().filter(function (id) {
        if (id.indexOf('ev:') !== 0) return false;
        var p = v.domPosition(id);
        if (p.x < c.left + c.width * 0.3 || p.x > c.right - c.width * 0.1) return false;
        if (p.y < c.top + c.height * 0.15 || p.y > c.bottom - c.height * 0.35) return false;
        return v.network.getNodeAt({x: p.x - c.left, y: p.y - c.top}) === id;
      });
      for (var i = 0; i < ok.length; i++) for (var j = i + 1; j < ok.length; j++) {
        var a = v.domPosition(ok[i]), b = v.domPosition(ok[j]);
        if (Math.abs(a.x - b.x) + Math.abs(a.y - b.y) > 80)
          return [{id: ok[i], x: a.x, y: a.y}, {id: ok[j], x: b.x, y: b.y}];
      }
      return null; })()""")
    assert pair, "no two clear event nodes on screen"
    a, b = (int(p["id"].split(":")[1]) for p in pair)
    conn = window.session.memory.conn

    def linked() -> bool:
        return conn.execute("SELECT 1 FROM event_chains WHERE (parent_id = ? AND child_id = ?)"
                            " OR (parent_id = ? AND child_id = ?)", (a, b, b, a)).fetchone() \
            is not None

    assert not linked()
    before = window.session.memory.digest()
    widget = window.graph.view.focusProxy() or window.graph.view
    start = QPoint(round(pair[0]["x"]), round(pair[0]["y"]))
    end = QPoint(round(pair[1]["x"]), round(pair[1]["y"]))
    shift = Qt.KeyboardModifier.ShiftModifier
    for _attempt in range(3):          # the first event after a load can go to focus handling
        QTest.mouseMove(widget, start)
        QTest.mousePress(widget, Qt.MouseButton.LeftButton, shift, start)
        for k in range(1, 6):
            QTest.mouseMove(widget, start + (end - start) * k / 5)
        QTest.mouseRelease(widget, Qt.MouseButton.LeftButton, shift, end, 30)
        try:
            qtbot.waitUntil(linked, timeout=4000)
            break
        except Exception:
            continue
    assert linked()
    assert conn.execute("SELECT kind FROM event_chains WHERE parent_id = ? AND child_id = ?",
                        (a, b)).fetchone()[0] == "causal"
    # the page asked for exactly this link (dragged from a, dropped on b)
    assert js(qtbot, window, "pulseViewer.lastLinkRequest.to") == f"ev:{b}"
    assert window.session.selection == ("event", b)
    QTest.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert not linked() and window.session.memory.digest() == before
