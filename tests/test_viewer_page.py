"""The exported viewer in a real browser engine (QtWebEngine, offscreen): it draws, makes no
request, never runs memory text as code, and its panel, search and filters work.

conftest.py sets QT_QPA_PLATFORM=offscreen (and, as root, QTWEBENGINE_DISABLE_SANDBOX=1)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if hasattr(os, "geteuid") and os.geteuid() == 0:
    os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")

QtWebEngineCore = pytest.importorskip("PySide6.QtWebEngineCore")
QtWebEngineWidgets = pytest.importorskip("PySide6.QtWebEngineWidgets")
from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QPoint, Qt, QTimer, QUrl  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from core.export import export_html  # noqa: E402
from core.memory import Memory  # noqa: E402

IMG = '<img src=x onerror="window.__pwned=1">'
SCRIPT = "</script><script>window.__pwned=2</script>"

CORPUS = {
    "format": "pulse-corpus/1",
    "entities": [
        {"key": "ana", "name": "Ana Petrova", "kind": "person"},
        {"key": "img", "name": IMG, "kind": "person"},
        {"key": "scr", "name": SCRIPT, "kind": "concept"},
        {"key": "cafe", "name": "Cafe Lumen", "kind": "place"},
        {"key": "gym", "name": "Harbour Gym", "kind": "place"},
        {"key": "team", "name": "Night Shift Crew", "kind": "community"},
        {"key": "hero", "name": "Captain Vela", "kind": "fictional_character",
         "domain": "fiction_content"},
        {"key": "ship", "name": "The Gull", "kind": "thing", "domain": "fiction_content"},
        {"key": "book", "name": "The Lighthouse Draft", "kind": "project",
         "domain": "fiction_meta"},
    ],
    "relations": [
        {"from": "ana", "to": "img", "kind": "sibling", "strength": 0.9},
        {"from": "ana", "to": "scr", "kind": "believes", "strength": 0.3},
        {"from": "ana", "to": "cafe", "kind": "works_at", "strength": 0.6},
        {"from": "ana", "to": "gym", "kind": "goes_to", "strength": 0.4},
        {"from": "ana", "to": "team", "kind": "member_of", "strength": 0.5},
        {"from": "ana", "to": "book", "kind": "writes", "strength": 0.8},
        {"from": "book", "to": "hero", "kind": "features", "strength": 0.7},
        {"from": "hero", "to": "ship", "kind": "captains", "strength": 0.9},
    ],
    "events": [
        {"key": "e1", "title": "Ana starts at Cafe Lumen", "ts": "2026-03-01T09:00:00Z",
         "entities": ["ana", "cafe"]},
        {"key": "e2", "title": SCRIPT, "description": IMG, "ts": "2026-03-02T09:00:00Z",
         "entities": ["ana", "img"], "parents": ["e1"], "belief_class": "self_model"},
        {"key": "e3", "title": IMG, "description": SCRIPT, "ts": "2026-03-03T09:00:00Z",
         "entities": ["scr"], "belief_class": "hypothesis"},
        {"key": "e4", "title": "Vela sails at dawn", "ts": "2026-03-04T09:00:00Z",
         "entities": ["hero", "ship"], "domain": "fiction_content"},
    ],
    "facts": [
        {"entity": "ana", "text": "Ana takes her coffee black"},
        {"entity": "img", "text": SCRIPT},
        {"entity": "scr", "text": IMG},
        {"entity": "hero", "text": "Vela fears still water", "domain": "fiction_content"},
    ],
}


class _Interceptor(QtWebEngineCore.QWebEngineUrlRequestInterceptor):
    """Counts (and blocks) every request except the load of the page file itself."""

    def __init__(self) -> None:
        super().__init__()
        self.page_url = ""
        self.requests: list[str] = []

    def interceptRequest(self, info) -> None:  # noqa: N802 (Qt name)
        url = info.requestUrl().toString()
        if url == self.page_url:
            return
        self.requests.append(url)
        info.block(True)


class _Page(QtWebEngineCore.QWebEnginePage):
    def __init__(self, profile, parent=None) -> None:
        super().__init__(profile, parent)
        self.console: list[str] = []

    def javaScriptConsoleMessage(self, level, message, line, source) -> None:  # noqa: N802
        self.console.append(f"{message} ({source}:{line})")


_PROFILE: list = []


def _profile():
    """One off-the-record profile with the counting interceptor, kept for the whole session
    (a profile must outlive its pages)."""
    if not _PROFILE:
        profile = QtWebEngineCore.QWebEngineProfile()
        interceptor = _Interceptor()
        profile.setUrlRequestInterceptor(interceptor)
        _PROFILE.extend([profile, interceptor])
    return _PROFILE[0], _PROFILE[1]


class Viewer:
    """A page loaded in an offscreen QWebEngineView, with helpers to run JavaScript."""

    def __init__(self, qtbot, path: Path) -> None:
        self.qtbot = qtbot
        self.profile, self.interceptor = _profile()
        self.interceptor.requests.clear()
        self.view = QtWebEngineWidgets.QWebEngineView()
        self.page = _Page(self.profile, self.view)
        self.view.setPage(self.page)
        self.view.resize(1200, 800)
        self.view.show()
        qtbot.addWidget(self.view)
        url = QUrl.fromLocalFile(str(path))
        self.interceptor.page_url = url.toString()
        with qtbot.waitSignal(self.page.loadFinished, timeout=30_000) as blocker:
            self.view.load(url)
        assert blocker.args == [True]
        self.wait_for("window.pulseViewer && window.pulseViewer.ready === true", 30_000)

    def js(self, expression: str, timeout: int = 10_000):
        """Evaluate one JavaScript expression (use the comma operator for several) and return
        its value through JSON (PySide returns plain objects as '')."""
        result: list = []
        loop = QEventLoop()
        self.page.runJavaScript(f"JSON.stringify([({expression})])", 0,
                                lambda value: (result.append(value), loop.quit()))
        QTimer.singleShot(timeout, loop.quit)
        loop.exec()
        assert result and isinstance(result[0], str), f"no answer from JavaScript: {expression}"
        return json.loads(result[0])[0]

    def wait_for(self, condition: str, timeout: int = 10_000) -> None:
        deadline = time.monotonic() + timeout / 1000
        while time.monotonic() < deadline:
            if self.js(f"!!({condition})"):
                return
            self.qtbot.wait(50)
        raise AssertionError(f"timed out waiting for: {condition} (console: {self.page.console})")

    def close(self) -> None:
        self.view.close()
        self.page.deleteLater()
        self.view.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("viewer")
    db = folder / "memory.db"
    with Memory.open(db, create=True) as mem:
        summary = mem.import_corpus(CORPUS)
        ids = {k: v for k, v in summary["keys"].items()}
        entity_ids = {key: row[0] for key, row in
                      ((k, mem.conn.execute("SELECT id FROM entities WHERE key = ?",
                                            (k,)).fetchone()) for k in
                       [e["key"] for e in CORPUS["entities"]])}
        export_html(mem, folder / "graph.html")
        export_html(mem, folder / "redacted.html", redact=True)
    return {"path": folder / "graph.html", "redacted": folder / "redacted.html",
            "events": ids, "entities": entity_ids}


@pytest.fixture
def viewer(qtbot, exported):
    v = Viewer(qtbot, exported["path"])
    yield v
    v.close()


def node(exported, key: str) -> str:
    if key in exported["entities"]:
        return f"en:{exported['entities'][key]}"
    return f"ev:{exported['events'][key]}"


def test_renders_every_node(viewer):
    assert viewer.js("pulseViewer.nodeCount()") == 13          # 9 entities + 4 events
    assert viewer.js("pulseViewer.visibleNodeCount()") == 13
    assert viewer.js("pulseViewer.drawnAt") > 0
    # vis-network really holds them, and they sit on the canvas
    assert viewer.js("Object.keys(pulseViewer.network.body.nodes).length") >= 13
    assert viewer.js("document.querySelector('#graph canvas').width") > 0
    assert viewer.js("pulseViewer.error === null") is True


def test_no_request_leaves_the_page(viewer):
    viewer.js("pulseViewer.select(pulseViewer.visibleNodeIds()[0])")
    viewer.js("pulseViewer.search('ana'), pulseViewer.setClustered(true), "
              "pulseViewer.setClustered(false), pulseViewer.search('')")
    viewer.qtbot.wait(300)
    assert viewer.interceptor.requests == []
    assert viewer.js("typeof QWebChannel") == "undefined"      # never loaded outside Qt's app
    violations = [m for m in viewer.page.console if "Content Security Policy" in m]
    assert violations == []


def test_untrusted_text_never_runs(viewer, exported):
    assert viewer.js("typeof window.__pwned") == "undefined"
    for key in ("img", "scr", "e2", "e3"):
        assert viewer.js(f"pulseViewer.select({json.dumps(node(exported, key))})") is True
        viewer.qtbot.wait(100)
        assert viewer.js("typeof window.__pwned") == "undefined"
    # shown as text: the panel holds the literal markup, and no <img> element exists
    assert IMG in viewer.js("pulseViewer.panelText()") or SCRIPT in viewer.js(
        "pulseViewer.panelText()")
    assert viewer.js("document.querySelectorAll('img').length") == 0
    assert viewer.js("document.querySelectorAll('script').length") == 3
    viewer.js(f"pulseViewer.search({json.dumps('onerror')})")
    assert viewer.js("pulseViewer.visibleNodeCount()") >= 2
    assert viewer.js("typeof window.__pwned") == "undefined"


def test_csp_blocks_inline_handlers_even_if_markup_got_in(viewer):
    # defence in depth: were some future code to insert memory text as HTML, the page's CSP
    # (scripts by hash only) still refuses inline event handlers and injected scripts
    viewer.js(f"document.body.insertAdjacentHTML('beforeend', {json.dumps(IMG)})")
    viewer.js("(function () { var s = document.createElement('script');"
              " s.textContent = 'window.__pwned = 3'; document.body.appendChild(s); })()")
    viewer.qtbot.wait(300)
    assert viewer.js("typeof window.__pwned") == "undefined"
    assert viewer.interceptor.requests == []              # img-src data: only: no fetch of x


def test_xss_entity_panel_shows_markup_as_text(viewer, exported):
    viewer.js(f"pulseViewer.select({json.dumps(node(exported, 'img'))})")
    text = viewer.js("pulseViewer.panelText()")
    assert IMG in text and SCRIPT in text                      # the name and its fact
    assert viewer.js("typeof window.__pwned") == "undefined"


def test_real_mouse_click_opens_the_panel(viewer, exported):
    target = node(exported, "ana")
    viewer.js("pulseViewer.network.fit()")
    viewer.qtbot.wait(300)
    pos = viewer.js(f"pulseViewer.domPosition({json.dumps(target)})")
    widget = viewer.view.focusProxy() or viewer.view
    point = QPoint(round(pos["x"]), round(pos["y"]))
    QTest.mouseMove(widget, point)
    QTest.mousePress(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    viewer.qtbot.wait(40)
    QTest.mouseRelease(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    viewer.wait_for("!document.getElementById('panel').hidden", 5_000)
    assert viewer.js("pulseViewer.selected") == target
    assert "Ana takes her coffee black" in viewer.js("pulseViewer.panelText()")
    assert viewer.js("typeof window.__pwned") == "undefined"


def test_clicking_every_node_is_safe(viewer):
    ids = viewer.js("pulseViewer.visibleNodeIds()")
    viewer.js("pulseViewer.network.fit()")
    viewer.qtbot.wait(300)
    widget = viewer.view.focusProxy() or viewer.view
    for node_id in ids:
        pos = viewer.js(f"pulseViewer.domPosition({json.dumps(node_id)})")
        point = QPoint(round(pos["x"]), round(pos["y"]))
        QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
        viewer.qtbot.wait(30)
    assert viewer.js("typeof window.__pwned") == "undefined"


def test_select_shows_facts_events_relations_observations(viewer, exported):
    assert viewer.js(f"pulseViewer.select({json.dumps(node(exported, 'ana'))})") is True
    text = viewer.js("pulseViewer.panelText()")
    assert "Ana takes her coffee black" in text                # fact
    assert "Ana starts at Cafe Lumen" in text                  # event
    assert "works_at" in text and "Cafe Lumen" in text         # relation
    assert "Observation" in text                               # observation text
    assert viewer.js("pulseViewer.select('en:999999')") is False


def test_on_select_hook(viewer, exported):
    viewer.js("window.__picked = null, pulseViewer.onSelect = function (i) { window.__picked = i; }")
    viewer.js(f"pulseViewer.select({json.dumps(node(exported, 'cafe'))})")
    picked = viewer.js("window.__picked")
    assert picked["label"] == "Cafe Lumen" and picked["type"] == "entity"
    assert picked["id"] == node(exported, "cafe")


def test_search_keeps_neighbours_and_highlights_matches(viewer, exported):
    # "vela": the character and its event match; the ship, and the draft that features her,
    # are their neighbours and stay visible; only the matches are highlighted
    assert viewer.js("pulseViewer.search('vela')") == 4
    shown = set(viewer.js("pulseViewer.visibleNodeIds()"))
    assert shown == {node(exported, k) for k in ("hero", "e4", "ship", "book")}
    assert viewer.js("pulseViewer.network.body.nodeIndices.length") == 4
    assert viewer.js("pulseViewer.highlightedIds()") == sorted(
        [node(exported, "hero"), node(exported, "e4")])
    assert viewer.js(f"pulseViewer.network.body.nodes[{json.dumps(node(exported, 'hero'))}]"
                     ".options.shadow.enabled") is True
    # facts are searched too: Ana's coffee; her relations and events come along
    assert viewer.js("pulseViewer.search('coffee black')") == 9
    assert viewer.js("pulseViewer.highlightedIds()") == [node(exported, "ana")]
    assert viewer.js("pulseViewer.search('')") == 13
    assert viewer.js("pulseViewer.highlightedIds()") == []
    assert viewer.js(f"pulseViewer.network.body.nodes[{json.dumps(node(exported, 'hero'))}]"
                     ".options.shadow.enabled") is False


def test_host_filter_allows_and_highlights(viewer, exported):
    allowed = [node(exported, k) for k in ("ana", "cafe", "gym", "e1", "hero")]
    spec = {"allowed": allowed, "highlight": None}
    assert viewer.js(f"pulseViewer.applyFilter({json.dumps(spec)})") == 5
    spec["highlight"] = [node(exported, "cafe")]       # cafe, and its neighbours among allowed
    assert viewer.js(f"pulseViewer.applyFilter({json.dumps(spec)})") == 3
    assert set(viewer.js("pulseViewer.visibleNodeIds()")) == {
        node(exported, k) for k in ("cafe", "ana", "e1")}
    assert viewer.js("pulseViewer.applyFilter({allowed: null, highlight: null})") == 13


def test_domain_filter_hides_fiction(viewer):
    assert viewer.js("pulseViewer.setDomainFilter(['real'])") == 9
    ids = viewer.js("pulseViewer.network.body.nodeIndices")
    domains = viewer.js("pulseViewer.network.body.nodeIndices.map("
                        "function (id) { return pulseViewer.network.body.nodes[id].options.domain; })")
    assert set(domains) == {"real"} and len(ids) == 9
    assert viewer.js("pulseViewer.setDomainFilter([])") == 13   # empty = all again


def test_kind_and_class_filters(viewer):
    assert viewer.js("pulseViewer.setKindFilter(['place'])") == 2
    assert viewer.js("pulseViewer.setKindFilter([])") == 13
    # hypothesis: the event e3 and the entity it mentions
    assert viewer.js("pulseViewer.setClassFilter(['hypothesis'])") == 2
    # the filter says the classes in plain words: a pinned axiom is a core wound
    names = viewer.js("Array.from(document.querySelectorAll('#filter-class .options label'))"
                      ".map(function(l){return l.textContent.trim()})")
    assert "core wound · axiom" in names and "self model" in names
    assert not any("_" in n for n in names)


def test_time_range_hides_events_outside_it(viewer, exported):
    # events e1..e4 fall on 2026-03-01..04 at 09:00Z; entities are never hidden by time
    assert viewer.js("pulseViewer.setTimeRange('2026-03-02T00:00:00Z', '2026-03-03T12:00:00Z')") == 11
    assert viewer.js("pulseViewer.visibleNodeCount()") == 11
    shown = set(viewer.js("pulseViewer.visibleNodeIds()"))
    assert node(exported, "e2") in shown and node(exported, "e3") in shown
    assert node(exported, "e1") not in shown and node(exported, "e4") not in shown
    assert viewer.js("pulseViewer.network.body.nodeIndices.length") == 11
    # open ends, inclusive bounds, and a timestamp without an offset read as UTC
    assert viewer.js("pulseViewer.setTimeRange(null, '2026-03-01T09:00:00Z')") == 10
    assert viewer.js("pulseViewer.setTimeRange('2026-03-02T09:00:00', null)") == 12
    # it composes with the other filters: search 'vela' = the character and e4, with the ship
    # and the draft next to them; a range without e4 leaves the three entities
    assert viewer.js("pulseViewer.setTimeRange(null, null)") == 13
    assert viewer.js("pulseViewer.search('vela')") == 4
    assert viewer.js("pulseViewer.setTimeRange('2026-03-01T00:00:00Z', '2026-03-02T00:00:00Z')") == 3
    assert viewer.js("pulseViewer.search('')") == 9 + 1
    assert viewer.js("pulseViewer.setDomainFilter(['fiction_content'])") == 2   # hero + ship
    assert viewer.js("pulseViewer.setTimeRange(null, null)") == 3              # + e4
    assert viewer.js("pulseViewer.setDomainFilter([])") == 13
    assert viewer.js("pulseViewer.visibleNodeCount()") == 13


def test_panel_can_be_hidden(viewer, exported):
    assert viewer.js("pulseViewer.setPanelVisible(false)") is False
    assert viewer.js(f"pulseViewer.select('{node(exported, 'ana')}')") is True
    assert viewer.js("pulseViewer.panelVisible()") is False
    assert viewer.js("getComputedStyle(document.getElementById('panel')).display") == "none"
    assert viewer.js("pulseViewer.setPanelVisible(true)") is True
    assert viewer.js("pulseViewer.panelVisible()") is True
    assert "Ana takes her coffee black" in viewer.js("pulseViewer.panelText()")


def test_cluster_by_domain(viewer):
    assert viewer.js("pulseViewer.setClustered(true)") >= 2
    assert viewer.js("pulseViewer.isClustered('real')") is True
    assert "cluster:real" in viewer.js("pulseViewer.network.body.nodeIndices")
    assert viewer.js("pulseViewer.network.body.nodeIndices.length") < 13
    assert viewer.js("pulseViewer.select(pulseViewer.visibleNodeIds()[0])") is True  # opens it
    assert viewer.js("pulseViewer.isClustered('real')") is False
    assert viewer.js("pulseViewer.setClustered(false)") == 0
    assert viewer.js("pulseViewer.network.body.nodeIndices.length") == 13


def test_redacted_export_hides_observations(qtbot, exported):
    v = Viewer(qtbot, exported["redacted"])
    try:
        v.js("pulseViewer.select(pulseViewer.visibleNodeIds()[0])")
        text = v.js("pulseViewer.panelText()")
        assert "redacted" in text
        assert v.interceptor.requests == []
    finally:
        v.close()


def test_demo_memory_renders(qtbot, demo_db, tmp_path):
    if not demo_db.exists():
        pytest.skip("no demo memory")
    with Memory.open(demo_db, read_only=True) as mem:
        summary = export_html(mem, tmp_path / "demo.html")
    v = Viewer(qtbot, tmp_path / "demo.html")
    try:
        assert v.js("pulseViewer.nodeCount()") == summary["nodes"] > 50
        assert v.interceptor.requests == []
        assert v.js("pulseViewer.setDomainFilter(['real'])") < summary["nodes"]
    finally:
        v.close()


# -- issue 15: the cluster box, readable labels, one toolbar row ----------------------------------

def click_element(viewer, selector: str) -> None:
    """A real mouse click in the middle of a page element."""
    box = viewer.js(f"(function(){{var r=document.querySelector({json.dumps(selector)})"
                    ".getBoundingClientRect();return {x:r.left+r.width/2,y:r.top+r.height/2};})()")
    widget = viewer.view.focusProxy() or viewer.view
    point = QPoint(round(box["x"]), round(box["y"]))
    QTest.mouseMove(widget, point)
    QTest.mousePress(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    viewer.qtbot.wait(40)
    QTest.mouseRelease(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)


def test_cluster_box_clicked_on_then_off(viewer):
    """The box shows what the graph does, both ways (setClustered used to untick it)."""
    assert viewer.js("document.getElementById('cluster').checked") is False
    click_element(viewer, "#cluster")
    viewer.wait_for("pulseViewer.isClustered('real')", 5_000)
    assert viewer.js("document.getElementById('cluster').checked") is True
    assert "cluster:real" in viewer.js("pulseViewer.network.body.nodeIndices")
    click_element(viewer, "#cluster")
    viewer.wait_for("!pulseViewer.isClustered('real')", 5_000)
    assert viewer.js("document.getElementById('cluster').checked") is False
    assert viewer.js("pulseViewer.network.body.nodeIndices.length") == 13
    # and through the API the box follows too
    assert viewer.js("pulseViewer.setClustered(true)") >= 2
    assert viewer.js("document.getElementById('cluster').checked") is True
    assert viewer.js("pulseViewer.setClustered(false)") == 0
    assert viewer.js("document.getElementById('cluster').checked") is False


def overlaps(labels: list[dict]) -> list[tuple[str, str]]:
    out = []
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"] and \
                    a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"]:
                out.append((a["text"], b["text"]))
    return out


def test_demo_labels_are_readable_at_fit_and_never_overlap(qtbot, demo_db, tmp_path):
    with Memory.open(demo_db, read_only=True) as mem:
        export_html(mem, tmp_path / "demo.html")
    v = Viewer(qtbot, tmp_path / "demo.html")
    try:
        v.js("pulseViewer.network.fit()")
        v.qtbot.wait(400)
        labels = v.js("pulseViewer.labelLayout()")
        assert len(labels) >= 15                      # a good share of the 51 names shows
        assert min(label["px"] for label in labels) >= 11
        assert overlaps(labels) == []
        scale = v.js("pulseViewer.network.getScale()")
        assert 17 * scale < 11        # vis-network's own labels would be below 11 px here
        # zoomed in, more names fit, still none overlapping
        v.js("pulseViewer.network.moveTo({scale: pulseViewer.network.getScale() * 3})")
        v.qtbot.wait(300)
        closer = v.js("pulseViewer.labelLayout()")
        assert overlaps(closer) == [] and min(label["px"] for label in closer) >= 11
        # the toolbar is one row at the width of the app's graph tab at 1280 px (about 700)
        v.view.resize(690, 700)
        v.qtbot.wait(300)
        tops = v.js("Array.from(document.querySelectorAll('#toolbar > *')).filter(function(e)"
                    "{return e.offsetParent!==null}).map(function(e){var r=e.getBoundingClientRect();"
                    "return [Math.round(r.top), Math.round(r.bottom), Math.round(r.right)]})")
        assert max(top for top, _b, _r in tops) < min(bottom for _t, bottom, _r in tops)
        assert max(right for _t, _b, right in tops) <= 690
        # the search box's hint is whole: the long one if it fits, else a short one
        hint, room, need = v.js(
            "(function(){var s=document.getElementById('search'),c=document.createElement("
            "'canvas').getContext('2d');c.font=getComputedStyle(s).font;return [s.placeholder,"
            " s.clientWidth - 18, c.measureText(s.placeholder).width]})()")
        assert need <= room and hint in ("Search names, facts, events…", "Search…")
        # the graph tab on a 1024 px screen (about 580): two rows, every control whole in it
        v.view.resize(560, 700)
        v.qtbot.wait(300)
        narrow = v.js("Array.from(document.querySelectorAll('#toolbar > *')).filter(function(e)"
                      "{return e.offsetParent!==null}).map(function(e){return Math.round("
                      "e.getBoundingClientRect().right)})")
        assert max(narrow) <= 560
        v.view.resize(1400, 700)
        v.qtbot.wait(300)
        assert v.js("document.getElementById('search').placeholder") == \
            "Search names, facts, events…"
        # colour is never alone: the domain's letter in the nodes, and in the legend's swatches
        assert v.js("pulseViewer.letteredCount()") > 0
        assert v.js("Array.from(document.querySelectorAll('#legend .swatch')).map(function(e)"
                    "{return e.textContent}).join('')") == "RFMA"
    finally:
        v.close()


def test_fit_keeps_every_node_and_label_clear_of_the_legend(qtbot, demo_db, tmp_path):
    """The legend sits over the graph's bottom-left corner: at the first draw and after Fit no
    node and no name may lie under it, where it could be neither read nor clicked."""
    with Memory.open(demo_db, read_only=True) as mem:
        export_html(mem, tmp_path / "demo.html")
    v = Viewer(qtbot, tmp_path / "demo.html")
    covered = """(function () {
      var v = window.pulseViewer, r = document.getElementById('legend').getBoundingClientRect();
      var hits = [];
      v.visibleNodeIds().forEach(function (id) {
        var p = v.domPosition(id);
        if (p.x > r.left - 4 && p.x < r.right + 4 && p.y > r.top - 4 && p.y < r.bottom + 4) hits.push(id);
      });
      v.labelLayout().forEach(function (l) {
        if (l.x < r.right && l.x + l.w > r.left && l.y < r.bottom && l.y + l.h > r.top) hits.push(l.text);
      });
      return hits; })()"""
    try:
        # (776, 672): the graph tab of the app in a 1280×800 window, where a long name centred
        # on a node beside the legend reached under it
        for size in ((1200, 800), (776, 672), (690, 560)):
            v.view.resize(*size)
            v.qtbot.wait(300)
            if size != (1200, 800):
                click_element(v, "#fit")
                settled, scale = 0, None
                for _ in range(50):                    # the Fit animation, however slow
                    v.qtbot.wait(200)
                    now = v.js("pulseViewer.network.getScale()")
                    settled, scale = (settled + 1 if now == scale else 0), now
                    if settled >= 2:
                        break
            assert v.js("pulseViewer.visibleNodeIds().length") > 200
            assert v.js(covered) == [], size
    finally:
        v.close()


def test_tab_reaches_the_graph_with_a_visible_ring(viewer):
    """Keyboard only: Tab from the toolbar reaches the graph's frame, and it shows a ring."""
    viewer.view.setFocus()
    target = viewer.view.focusProxy() or viewer.view
    viewer.js("document.getElementById('search').focus()")
    for _ in range(20):
        if viewer.js("document.activeElement.classList.contains('vis-network')"):
            break
        QTest.keyClick(target, Qt.Key.Key_Tab)
        viewer.qtbot.wait(30)
    assert viewer.js("document.activeElement.classList.contains('vis-network')")
    style = viewer.js("(function(){var s=getComputedStyle(document.activeElement);"
                      "return [s.outlineStyle, s.outlineWidth, s.outlineOffset]})()")
    assert style[0] == "solid" and style[1] == "3px" and style[2] == "-3px"


def test_an_empty_memory_says_so_and_one_node_is_counted_as_one(qtbot, tmp_path):
    """An empty export showed a blank canvas and an empty legend box: it read as broken."""
    with Memory.open(tmp_path / "empty.db", create=True) as mem:
        export_html(mem, tmp_path / "empty.html")
    v = Viewer(qtbot, tmp_path / "empty.html")
    try:
        assert v.js("pulseViewer.nodeCount()") == 0
        assert v.js("document.getElementById('status').textContent") == \
            "This memory is empty: nothing to show yet."
        assert v.js("getComputedStyle(document.getElementById('status')).display") != "none"
        assert v.js("getComputedStyle(document.getElementById('legend')).display") == "none"
        assert v.js("document.getElementById('count').textContent") == "0 nodes"
        assert v.interceptor.requests == [] and v.js("pulseViewer.error") is None
    finally:
        v.close()
    with Memory.open(tmp_path / "one.db", create=True) as mem:
        mem.import_corpus({"format": "pulse-corpus/1", "entities": [], "events": [
            {"key": "e1", "title": "First walk by the river", "ts": "2026-05-01T08:00:00Z"}]})
        export_html(mem, tmp_path / "one.html")
    v = Viewer(qtbot, tmp_path / "one.html")
    try:
        assert v.js("document.getElementById('count').textContent") == "1 node"
        assert v.js("document.getElementById('status').textContent") == ""
        assert v.js("getComputedStyle(document.getElementById('legend')).display") != "none"
    finally:
        v.close()


def test_the_long_search_hint_is_chosen_only_where_it_shows_whole(qtbot, demo_db, tmp_path):
    """Chromium clips a search field's placeholder about 15 px before the padding (the clear
    button keeps its place): at 800 px wide the 51-node export showed 'Search names, facts,
    events..'. Wherever the long hint is chosen, the text box leaves that room."""
    with Memory.open(demo_db, read_only=True) as mem:
        export_html(mem, tmp_path / "entities.html", include_events=False)
    v = Viewer(qtbot, tmp_path / "entities.html")
    spare = ("(function(){var s=document.getElementById('search'),c=document.createElement("
             "'canvas').getContext('2d'),st=getComputedStyle(s);c.font=st.font;return [s.placeholder,"
             " s.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight)"
             " - c.measureText(s.placeholder).width]})()")
    try:
        long_seen = short_seen = 0
        for width in range(780, 842, 4):
            v.view.resize(width, 600)
            v.qtbot.wait(120)
            hint, room_left = v.js(spare)
            if hint == "Search names, facts, events…":
                long_seen += 1
                assert room_left >= 16, (width, room_left)
            else:
                short_seen += 1
        assert long_seen and short_seen           # the sweep crossed the switch
    finally:
        v.close()
