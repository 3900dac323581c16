"""The Graph tab: the standalone viewer page (core.export) inside a QWebEngineView, talking to
Qt over QWebChannel through one object named ``bridge`` (Anki's web-bridge pattern).

page → Qt: ``bridge.nodeClicked(json)``, ``bridge.viewerReady(json)`` and
``bridge.linkRequested(json)`` (a shift-drag from one event to another: a cause → effect link,
made through the undo stack);
Qt → page: the ``focusNode(id)`` signal (and ``searchRequested``, ``domainsRequested``), and
``pulseViewer.applyFilter`` with the navigator's filter (the session's), so the graph shows what
every other view shows; a search keeps the matches' neighbours and highlights the matches.

The page is built off the UI thread (its own read-only Memory) and loaded from a temporary
file: ``setHtml`` silently fails past 2 MB and vis-network alone is ~0.7 MB. The web view is
created only when the first page is ready, so the window shows without waiting for Chromium.
"""

from __future__ import annotations

import json
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtWidgets import QLabel, QStackedLayout, QWidget

from core.memory import Memory
from pulse_desktop import workers
from pulse_desktop.session import MemorySession

# Inside the app the Qt detail panel shows the selection, so the page's own panel is hidden
# (through the page API; an older page without setPanelVisible gets a style rule instead).
HIDE_PAGE_PANEL = ("(function(){var v=window.pulseViewer;"
                   "if(v&&typeof v.setPanelVisible==='function'){v.setPanelVisible(false);return true}"
                   "var s=document.createElement('style');"
                   "s.textContent='#panel{display:none !important}';"
                   "document.head.appendChild(s);return true;})()")


class Bridge(QObject):
    """The one object the page sees (``channel.objects.bridge``)."""

    focusNode = Signal(str)          # Qt → page: select and centre this node id
    searchRequested = Signal(str)    # Qt → page: put this text in the search box
    domainsRequested = Signal(str)   # Qt → page: JSON list of domains to show
    clicked = Signal(dict)           # for Qt: a node was clicked in the page
    ready = Signal(dict)             # for Qt: the page has drawn
    link = Signal(str, str)          # for Qt: shift-dragged from one node to another

    @Slot(str)
    def nodeClicked(self, payload: str) -> None:
        try:
            info = json.loads(payload)
        except ValueError:
            return
        if isinstance(info, dict):
            self.clicked.emit(info)

    @Slot(str)
    def linkRequested(self, payload: str) -> None:
        try:
            info = json.loads(payload)
        except ValueError:
            return
        if isinstance(info, dict) and isinstance(info.get("from"), str) \
                and isinstance(info.get("to"), str):
            self.link.emit(info["from"], info["to"])

    @Slot(str)
    def viewerReady(self, payload: str) -> None:
        try:
            info = json.loads(payload)
        except ValueError:
            info = {}
        self.ready.emit(info if isinstance(info, dict) else {})


def node_id(kind: str, item_id: int, conn=None) -> str | None:
    """The page's node id for a Qt selection (a fact focuses its entity)."""
    if kind == "entity":
        return f"en:{int(item_id)}"
    if kind == "event":
        return f"ev:{int(item_id)}"
    if kind == "fact" and conn is not None:
        row = conn.execute("SELECT entity_id FROM facts WHERE id = ?", (item_id,)).fetchone()
        return f"en:{int(row[0])}" if row else None
    return None


def selection_of(info: dict[str, Any]) -> tuple[str, int] | None:
    """A page node (``en:5`` / ``ev:7``, or the describe() dict) → ("entity" | "event", id)."""
    ident = str(info.get("id", ""))
    prefix, _, number = ident.partition(":")
    kind = {"en": "entity", "ev": "event"}.get(prefix)
    if kind is None or not number.isdigit():
        return None
    return kind, int(number)


def build_page(path: Path, out_dir: Path, cancel: threading.Event | None = None) -> dict[str, Any]:
    """Render the viewer page for the memory at `path` into out_dir (worker thread)."""
    with Memory.open(path, read_only=True) as memory:
        page, meta = memory.graph_page(title=f"Pulse · {path.name}")
    if (cancel is not None and cancel.is_set()) or not out_dir.is_dir():
        return {}        # replaced by a newer build, or the window is closing
    fd, name = tempfile.mkstemp(prefix="graph-", suffix=".html", dir=out_dir)
    with open(fd, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(page)
    return {"file": name, "nodes": meta["counts"]["nodes"], "bytes": len(page)}


class GraphView(QWidget):
    pageReady = Signal()            # the page has drawn and the bridge is connected
    failed = Signal(str)

    def __init__(self, session: MemorySession, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self.bridge = Bridge(self)
        self.bridge.clicked.connect(self._on_clicked)
        self.bridge.ready.connect(self._on_ready)
        self.bridge.link.connect(self._on_link)
        self.view = None            # QWebEngineView, created with the first page
        self.channel = None
        self.ready = False
        self.page_file: str | None = None
        self._job: workers.Job | None = None
        self._stale = True
        self._generation = 0
        self._from_page = False
        self._pending_focus: str | None = None
        self._tmp = tempfile.TemporaryDirectory(prefix="pulse-graph-")

        self.status = QLabel("No memory open.")
        self.status.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.status.setStyleSheet("color: #6b7585; font-size: 11pt;")
        self.stack = QStackedLayout(self)
        self.stack.addWidget(self.status)

        self._debounce = QTimer(self, singleShot=True, interval=400)
        self._debounce.timeout.connect(self.rebuild)
        session.opened.connect(self._on_opened)
        session.changed.connect(self._on_changed)
        session.selected.connect(self._on_selected)
        session.brushed.connect(self._on_brush)
        session.filtered.connect(self._on_filter)

    # -- page lifecycle ------------------------------------------------------------------------
    def _on_opened(self) -> None:
        self._stale = True
        self.ready = False
        self._generation += 1          # a page still being built is for the old memory
        if self._job is not None:
            self._job.cancel.set()
            self._job = None
        if self.session.memory is None:
            self.status.setText("No memory open.")
            self.stack.setCurrentWidget(self.status)
            return
        # Build when the tab is on screen (showEvent), a moment after the window has painted:
        # the worker's layout would otherwise compete with the first paint for the GIL.
        self.status.setText("Drawing the memory graph…")
        if self.isVisible():
            self._debounce.start(50)

    def _on_changed(self, what: str) -> None:
        if what in ("all", "events", "entities", "beliefs"):
            self._stale = True
            if self.isVisible():
                self._debounce.start()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale and self.session.memory is not None and self._job is None:
            self._debounce.start(50)

    def rebuild(self) -> None:
        """Build the page for the open memory in a worker, then load it."""
        memory = self.session.memory
        if memory is None:
            return
        if self._job is not None:
            self._job.cancel.set()
        self._stale = False
        self._generation += 1
        generation = self._generation
        if self.view is None:
            self.status.setText("Drawing the memory graph…")
            self.stack.setCurrentWidget(self.status)
        path, out_dir = Path(memory.path), Path(self._tmp.name)
        out_dir.mkdir(parents=True, exist_ok=True)
        job = workers.Job(lambda _progress, cancel: build_page(path, out_dir, cancel))
        job.signals.done.connect(lambda result, g=generation: self._page_built(g, result))
        job.signals.failed.connect(lambda text, g=generation: self._page_failed(g, text))
        self._job = job
        workers.start(job)

    def _page_built(self, generation: int, result: dict[str, Any]) -> None:
        if generation != self._generation:
            return
        self._job = None
        if not result:
            return
        self._ensure_view()
        old = self.page_file
        self.page_file = result["file"]
        self.ready = False
        self._inject_initial_state()
        self.view.load(QUrl.fromLocalFile(self.page_file))
        self.stack.setCurrentWidget(self.view)
        if old and old != self.page_file:
            Path(old).unlink(missing_ok=True)

    def _page_failed(self, generation: int, text: str) -> None:
        if generation != self._generation:
            return
        self._job = None
        self.status.setText(f"The graph could not be drawn: {text}")
        self.stack.setCurrentWidget(self.status)
        self.session.message.emit(f"Graph: {text}")
        self.failed.emit(text)

    def _ensure_view(self) -> None:
        if self.view is not None:
            return
        from PySide6.QtWebChannel import QWebChannel
        from PySide6.QtWebEngineCore import QWebEnginePage
        from PySide6.QtWebEngineWidgets import QWebEngineView

        class Page(QWebEnginePage):
            def javaScriptConsoleMessage(page, level, message, line, source):  # noqa: N805
                if level == QWebEnginePage.JavaScriptConsoleMessageLevel.ErrorMessageLevel:
                    self.session.message.emit(f"Graph page: {message} (line {line})")

            def acceptNavigationRequest(page, url, kind, is_main_frame):  # noqa: N805
                # the page is self-contained: it may load itself, never navigate elsewhere
                return (not is_main_frame) or (
                    url.isLocalFile() and url.toLocalFile() == self.page_file)

        self.view = QWebEngineView(self)
        page = Page(self.view)
        self.view.setPage(page)
        self.channel = QWebChannel(page)
        self.channel.registerObject("bridge", self.bridge)
        page.setWebChannel(self.channel)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)
        self.view.loadFinished.connect(self._load_finished)
        self.stack.addWidget(self.view)

    def _load_finished(self, ok: bool) -> None:
        if not ok:
            self._page_failed(self._generation, "the page did not load")

    def initial_state(self) -> dict[str, Any]:
        """What the page applies before its first draw (window.pulseViewerInit): the
        session's filter and time range, and no page panel."""
        start, end = self.session.brush
        state: dict[str, Any] = {"panel": False}
        if start or end:
            state["timeRange"] = [start, end]
        if self.session.filter_result is not None:
            state["filter"] = self.filter_spec(self.session.filter_result)
        return state

    def _inject_initial_state(self) -> None:
        """A rebuilt page (after an edit, say) draws already filtered: the state goes in as a
        script that runs before the page's own."""
        from PySide6.QtWebEngineCore import QWebEngineScript

        scripts = self.view.page().scripts()
        for old in scripts.find("pulse-init"):
            scripts.remove(old)
        state = self.initial_state()
        script = QWebEngineScript()
        script.setName("pulse-init")
        script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
        script.setWorldId(QWebEngineScript.ScriptWorldId.MainWorld)
        script.setRunsOnSubFrames(False)
        script.setSourceCode("window.pulseViewerInit = " + json.dumps(state) + ";")
        scripts.insert(script)
        self._injected = state

    def _on_ready(self, info: dict) -> None:
        self.ready = True
        injected = getattr(self, "_injected", None)
        current = self.initial_state()
        self.run_js(HIDE_PAGE_PANEL)
        if injected == current:       # the page drew with it already
            pass
        else:
            start, end = self.session.brush
            if start or end or "timeRange" in (injected or {}):
                self._on_brush(start, end)
            if self.session.filter_result is not None or "filter" in (injected or {}):
                self._on_filter(self.session.filter_result)
        focus = self._pending_focus
        if focus is None and self.session.selection:
            focus = node_id(*self.session.selection, conn=self.session.memory.conn
                            if self.session.memory else None)
        self._pending_focus = None
        if focus:
            self.bridge.focusNode.emit(focus)
        self.pageReady.emit()

    def focus_target(self):
        return self.view

    # -- page calls ------------------------------------------------------------------------------
    def run_js(self, script: str, callback: Callable[[Any], None] | None = None) -> None:
        if self.view is None:
            if callback:
                callback(None)
            return
        if callback is None:
            self.view.page().runJavaScript(script)
        else:
            self.view.page().runJavaScript(script, 0, callback)

    def search(self, text: str) -> None:
        self.bridge.searchRequested.emit(text)

    def _on_clicked(self, info: dict) -> None:
        target = selection_of(info)
        if target is None:
            return
        self._from_page = True
        try:
            self.session.select(*target)
        finally:
            self._from_page = False

    def _on_selected(self, kind: str, item_id: int) -> None:
        if self._from_page:
            return
        ident = node_id(kind, item_id, self.session.memory.conn if self.session.memory else None)
        if ident is None:
            return
        if self.ready:
            self.bridge.focusNode.emit(ident)
        else:
            self._pending_focus = ident

    def _on_brush(self, start, end) -> None:
        """Ask the page to show only events in the range, if it offers that (setTimeRange);
        (None, None) clears it. A page that is not ready yet gets the brush in _on_ready."""
        if not self.ready:
            return
        args = json.dumps([start, end])
        self.run_js("(function(a){var v=window.pulseViewer;"
                    "if(v&&typeof v.setTimeRange==='function'){v.setTimeRange(a[0],a[1]);return true}"
                    "return false})(" + args + ")")

    def filter_spec(self, result: dict[str, Any] | None) -> dict[str, Any]:
        """The page's applyFilter argument for a session filter result."""
        if result is None:
            return {"allowed": None, "highlight": None}
        allowed = ([f"en:{i}" for i in sorted(result["allowed_entities"])]
                   + [f"ev:{i}" for i in sorted(result["allowed_events"])])
        highlight = None
        if self.session.item_filter.get("text"):
            highlight = ([f"en:{i}" for i in sorted(result["text_entities"])]
                         + [f"ev:{i}" for i in sorted(result["text_events"])])
        return {"allowed": allowed, "highlight": highlight}

    def _on_filter(self, result) -> None:
        """Show what the navigator's filter lets through (a page not ready yet gets it in
        _on_ready)."""
        if not self.ready:
            return
        self.run_js("(function(a){var v=window.pulseViewer;"
                    "if(v&&typeof v.applyFilter==='function'){return v.applyFilter(a)}"
                    "return null})(" + json.dumps(self.filter_spec(result)) + ")")

    def _on_link(self, source: str, target: str) -> None:
        """A shift-drag from one event node to another: source caused target."""
        a, b = selection_of({"id": source}), selection_of({"id": target})
        if a is None or b is None or a[0] != "event" or b[0] != "event":
            self.session.message.emit("A cause → effect link joins two events.")
            return
        if self.session.read_only:
            self.session.message.emit(self.session.read_only_reason or "Open read-only.")
            return
        from pulse_desktop.curation import curator

        if curator(self.session).link(a[1], b[1]) is None:
            self.session.select("event", b[1])

    def shutdown(self) -> None:
        if self._job is not None:
            self._job.cancel.set()
            disconnect_job(self._job)
            self._job = None
        if self.view is not None:
            # delete the page before the profile goes away at exit (Chromium warns otherwise)
            self.view.stop()
            page = self.view.page()
            self.view.deleteLater()
            page.deleteLater()
            self.view = None
            self.ready = False
        self._tmp.cleanup()


def disconnect_job(job: workers.Job) -> None:
    """A job that outlives its view must not call back into it."""
    for signal in (job.signals.done, job.signals.failed):
        try:
            signal.disconnect()
        except (RuntimeError, TypeError):
            pass
