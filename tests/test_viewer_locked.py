"""The passphrase-locked viewer (issue 13 §4) in a real browser engine (QtWebEngine, offscreen):
the file holds only ciphertext, a wrong passphrase says so clearly, the right one — typed into
the page — draws the same graph as an unlocked export, and no request leaves the page."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if hasattr(os, "geteuid") and os.geteuid() == 0:
    os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")

pytest.importorskip("PySide6.QtWebEngineWidgets")
from PySide6.QtCore import Qt, QUrl  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from test_viewer_page import CORPUS, Viewer  # noqa: E402

from core.export import page_data  # noqa: E402
from core.memory import Memory  # noqa: E402

PASSPHRASE = "correct horse battery staple"


@pytest.fixture(scope="module")
def exports(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("locked")
    with Memory.open(folder / "memory.db", create=True) as mem:
        mem.import_corpus(CORPUS)
        mem.export_html(folder / "open.html")
        mem.export_html(folder / "locked.html", lock=PASSPHRASE)
        data = page_data(mem, redact="names")
    return {"open": folder / "open.html", "locked": folder / "locked.html", "data": data}


class LockedViewer(Viewer):
    """Loads the page and waits for its passphrase prompt instead of a drawn graph."""

    def __init__(self, qtbot, path: Path) -> None:   # noqa: D107 - same as Viewer, other wait
        from test_viewer_page import QtWebEngineWidgets, _Page, _profile

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
        self.wait_for("window.pulseViewer && window.pulseViewer.locked === true", 30_000)


def _strings(value, out: set[str]) -> set[str]:
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, dict):
        for v in value.values():
            _strings(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out)
    return out


def test_the_locked_file_holds_no_plaintext(exports):
    raw = exports["locked"].read_bytes()
    data = exports["data"]
    texts = set()
    for node in data["nodes"]:
        _strings([node["label"], node.get("aliases", []), node.get("description", ""),
                  [f["text"] for f in node.get("facts", [])]], texts)
    for event in data["events"].values():
        _strings([event["title"], event["description"]], texts)
    _strings(list(data["observations"].values()), texts)
    texts = {t for t in texts if len(t.strip()) >= 4}
    assert len(texts) >= 15
    for text in texts:
        for form in (text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]):
            assert form.encode("utf-8") not in raw, f"plaintext {text!r} in the locked file"
    # what it does hold: the sealed header and the unlock prompt
    assert b"pulse-sealed/1" in raw and b"600000" in raw and b"PBKDF2-HMAC-SHA256" in raw
    assert b'id="pulse-data">{' not in raw and b'id="pulse-sealed">{' in raw


def test_a_wrong_passphrase_says_so_and_draws_nothing(qtbot, exports):
    v = LockedViewer(qtbot, exports["locked"])
    try:
        assert v.js("document.getElementById('lock').hidden") is False
        v.js("pulseViewer.unlock('not the passphrase')")
        v.wait_for("pulseViewer.unlockError !== null", 60_000)
        message = v.js("document.getElementById('lock-message').textContent")
        assert message.startswith("Wrong passphrase"), message
        assert v.js("pulseViewer.ready === true") is False
        assert v.js("document.getElementById('lock').hidden") is False
        assert v.interceptor.requests == []
    finally:
        v.close()


def test_the_right_passphrase_typed_in_draws_the_same_graph(qtbot, exports):
    plain = Viewer(qtbot, exports["open"])
    try:
        expected_ids = sorted(plain.js("pulseViewer.visibleNodeIds()"))
        expected_count = plain.js("pulseViewer.nodeCount()")
        first = expected_ids[0]
        expected_pos = plain.js(f"pulseViewer.network.getPosition({json.dumps(first)})")
    finally:
        plain.close()
    v = LockedViewer(qtbot, exports["locked"])
    try:
        v.js("document.getElementById('lock-passphrase').focus()")
        widget = v.view.focusProxy() or v.view
        QTest.keyClicks(widget, PASSPHRASE)
        QTest.keyClick(widget, Qt.Key.Key_Return)
        v.wait_for("pulseViewer.ready === true", 60_000)
        assert v.js("pulseViewer.nodeCount()") == expected_count == 13
        assert sorted(v.js("pulseViewer.visibleNodeIds()")) == expected_ids
        pos = v.js(f"pulseViewer.network.getPosition({json.dumps(first)})")
        assert pos == expected_pos
        assert v.js("document.getElementById('lock').hidden") is True
        assert v.js("pulseViewer.select(pulseViewer.visibleNodeIds()[0])") is True
        assert v.js("typeof window.__pwned") == "undefined"
        assert v.interceptor.requests == []
        assert [m for m in v.page.console if "Content Security Policy" in m] == []
    finally:
        v.close()
