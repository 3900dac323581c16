"""The main window: navigator left, tabs centre (Graph · Timeline · Beliefs · Playground ·
Corrections · Ingest · Recalls), detail panel right, File/Edit/View/Help menus, a read-only
banner and an empty start page. Long work (demo building, exports, verify) runs in workers.Job,
each with its own Memory; the UI thread only opens the memory and shows results. What another
program changes in the open memory shows by itself (pulse_desktop/live_refresh.py)."""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.errors import PassphraseError, PulseError
from core.memory import Memory, demo_corpus_path
from pulse_desktop import workers
from pulse_desktop.beliefs_view import BeliefsView
from pulse_desktop.detail_panel import DetailPanel
from pulse_desktop.graph_view import GraphView
from pulse_desktop.keyboard import WindowShortcuts, name_controls
from pulse_desktop.live_refresh import LiveRefresh
from pulse_desktop.navigator import NavigatorView
from pulse_desktop.reading_progress import ReadingProgress
from pulse_desktop.session import MemorySession
from pulse_desktop.start_page import RecentMemories, StartPage
from pulse_desktop.style import app_icon
from pulse_desktop.timeline_view import TimelineView
from pulse_desktop.view_reads import ViewRead, memory_rows

TABS = ("Graph", "Timeline", "Beliefs", "Playground", "Corrections", "Ingest", "Recalls",
        "Review")
# Tabs built when first shown: (module, class). A tab that fails to import shows why instead.
EXTERNAL_TABS = {"Playground": ("pulse_desktop.playground_view", "PlaygroundView"),
                 "Corrections": ("pulse_desktop.corrections_view", "CorrectionsView"),
                 "Ingest": ("pulse_desktop.ingest_view", "IngestView"),
                 "Recalls": ("pulse_desktop.recalls_view", "RecallsView"),
                 "Review": ("pulse_desktop.review_view", "ReviewView")}
FILE_FILTER = "Pulse memory (*.db *.sqlite *.pulse);;All files (*)"


def data_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("pulse", appauthor=False))


def demo_db_path() -> Path:
    """Where "Open demo memory" keeps its copy (PULSE_DEMO_DB overrides, for tests)."""
    env = os.environ.get("PULSE_DEMO_DB")
    return Path(env) if env else data_dir() / "demo.db"


def build_demo(path: Path, progress=None, cancel: threading.Event | None = None) -> dict[str, Any]:
    """Build the demo memory at `path` (atomically: a temp file, then rename). `progress`
    follows the events embedded. Cancelled (`cancel` set), nothing is left behind: a half
    demo is worthless, so the temp file goes and `path` is not touched; the summary then
    says cancelled: True."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".building")
    for extra in ("", "-wal", "-shm", "-journal"):
        Path(str(tmp) + extra).unlink(missing_ok=True)
    try:
        with Memory.open(tmp, create=True) as memory:
            summary = memory.import_corpus(demo_corpus_path(), progress=progress,
                                           cancel=cancel)
            if not summary.get("cancelled"):
                memory.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if summary.get("cancelled") or (cancel is not None and cancel.is_set()):
            return {**summary, "cancelled": True}
        os.replace(tmp, path)
    finally:      # the memory is closed by now: its files can go
        for extra in ("", "-wal", "-shm", "-journal"):
            Path(str(tmp) + extra).unlink(missing_ok=True)
    return summary


class LazyTab(QWidget):
    """A tab whose view is built the first time it is shown (or asked for), so the window
    shows without paying for tabs nobody has opened yet."""

    def __init__(self, factory: Callable[[], QWidget]) -> None:
        super().__init__()
        self._factory = factory
        self.widget: QWidget | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

    def ensure(self) -> QWidget:
        if self.widget is None:
            self.widget = self._factory()
            self.layout().addWidget(self.widget)
            name_controls(self.widget)
        return self.widget

    def showEvent(self, event) -> None:
        self.ensure()
        super().showEvent(event)


def fit_to_screen(width: int, height: int) -> tuple[int, int]:
    """The size, made no larger than the primary screen's free area (less the window frame)."""
    screen = QGuiApplication.primaryScreen()
    if screen is None:
        return width, height
    room = screen.availableGeometry()
    return min(width, room.width()), min(height, max(room.height() - 40, 480))


class MainWindow(QMainWindow):
    def __init__(self, session: MemorySession | None = None) -> None:
        super().__init__()
        self.session = session or MemorySession(self)
        self.jobs: set[workers.Job] = set()
        self.demo_job: workers.Job | None = None      # the demo memory being built
        self.setWindowTitle("Pulse")
        self.setWindowIcon(app_icon())
        self.resize(1440, 900)        # the app's start makes it fit the screen (app.py)

        self.navigator = NavigatorView(self.session)
        self.detail = DetailPanel(self.session)
        self.graph = GraphView(self.session)
        self.timeline = TimelineView(self.session)
        self.beliefs = BeliefsView(self.session)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(False)
        # every tab's name stays in sight: the centre is never narrower than the bar (arrows
        # would hide the last tabs, and elided names are hard to tell apart)
        self.tabs.setUsesScrollButtons(False)
        self.tabs.setElideMode(Qt.TextElideMode.ElideNone)
        self.views: dict[str, QWidget] = {"Graph": self.graph, "Timeline": self.timeline,
                                          "Beliefs": self.beliefs}
        for name in TABS:
            if name not in self.views:
                self.views[name] = LazyTab(lambda n=name: self._external(n))
            self.tabs.addTab(self.views[name], name)
        tips = ["The memory as a graph: click a node to see it (Ctrl+1)",
                "Events in time; drag to filter every view to a range (Ctrl+2)",
                "Belief classes, floors and flags; edits are undoable (Ctrl+3)",
                "Try a query and see every term of the score (Ctrl+4)",
                "Corrections and the brief the companion gets (Ctrl+5)",
                "Import conversations and notes (Ctrl+6)",
                "What the companion recalled, when, for which question (Ctrl+7)",
                "What waits for your decision: merges, archival, open questions (Ctrl+8)"]
        for i, tip in enumerate(tips):
            self.tabs.setTabToolTip(i, tip)

        self.banner = QLabel()
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.hide()
        # says plainly when this memory's embeddings are not the default e5 (or cannot be made)
        self.embedding_banner = QLabel()
        self.embedding_banner.setObjectName("banner")
        self.embedding_banner.setWordWrap(True)
        self.embedding_banner.hide()
        centre = QWidget()
        cl = QVBoxLayout(centre)
        cl.setContentsMargins(0, 8, 0, 0)
        cl.addWidget(self.banner)
        cl.addWidget(self.embedding_banner)
        cl.addWidget(self.tabs, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.navigator)
        self.splitter.addWidget(centre)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(2, 0)
        self.splitter.setChildrenCollapsible(False)
        self.navigator.setMinimumWidth(200)
        self.detail.setMinimumWidth(220)       # on a 1024 px screen the tabs get 590
        self._sized = False          # side panels get their width from the window's, once

        self.start = StartPage(self)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.start)
        self.stack.addWidget(self.splitter)
        self.setCentralWidget(self.stack)
        self._build_menus()
        # the open memory's line stays under passing messages (a message, or a menu item
        # under the mouse, wiped it for good when it was a message itself); added before the
        # first message, or QStatusBar hides it for good
        self.memory_status = QLabel()
        self.statusBar().addWidget(self.memory_status, 1)
        self.statusBar().showMessage("Open a memory to begin.")
        self.review_status = QPushButton()
        self.review_status.setFlat(True)
        self.review_status.setStyleSheet("QPushButton { border: none; color: #3455c9; "
                                         "padding: 0 8px; }")
        self.review_status.setToolTip("Items waiting for your decision (the Review tab, Ctrl+8)")
        self.review_status.clicked.connect(lambda: self.show_tab("Review"))
        self.statusBar().addPermanentWidget(self.review_status)
        self.reading = ReadingProgress(self.session, self.close_memory)
        self.statusBar().addPermanentWidget(self.reading)
        self.review_reads = ViewRead(self.session, "review queue", self, quiet=True)
        self.status_reads = ViewRead(self.session, "counts", self, quiet=True)
        self.session.changed.connect(self._update_review_count)

        self.session.opened.connect(self._on_opened)
        self.session.changed.connect(self._update_embedding_banner)
        self.session.message.connect(self._show_message)
        self.session.refused.connect(self._refused)
        self.session.show_recall.connect(self._show_recall)
        self.session.undo_stack.cleanChanged.connect(self._update_title)
        self.session.opened.connect(self._remember_recent)
        self.live = LiveRefresh(self.session)
        self.recent = RecentMemories(QSettings() if QCoreApplication.organizationName()
                                     else None)
        self.start.show_recent(self.recent.paths())
        self.shortcuts = WindowShortcuts(self)
        name_controls(self)
        self._on_opened()

    def side_widths(self, width: int) -> tuple[int, int]:
        """(navigator, detail panel) widths for a window this wide: the centre tabs get the
        rest (at 1280 px about 760, enough for every tab without cutting a word)."""
        nav = max(self.navigator.minimumWidth(), min(300, round(width * 0.175)))
        detail = max(self.detail.minimumWidth(), min(400, round(width * 0.21)))
        return nav, detail

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if not self._sized and self.isVisible():
            self.fit_panels()
        self.keep_centre_room()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._sized:
            self.fit_panels()
        self.keep_centre_room()

    def keep_centre_room(self) -> None:
        """Narrow the side panels (down to their minimum) when the tabs would get less than
        they need: splitter positions saved on a wide screen must not cut the tabs' controls
        on a 1280 px one."""
        sizes = self.splitter.sizes()
        if len(sizes) != 3 or sum(sizes) <= 0:
            return
        short = self.splitter.widget(1).minimumSizeHint().width() - sizes[1]
        if short <= 0:
            return
        spare = [max(0, sizes[0] - self.navigator.minimumWidth()),
                 max(0, sizes[2] - self.detail.minimumWidth())]
        if sum(spare) <= 0:
            return
        take = [min(spare[i], round(short * spare[i] / sum(spare))) for i in (0, 1)]
        self.splitter.setSizes([sizes[0] - take[0], sizes[1] + sum(take), sizes[2] - take[1]])

    def fit_panels(self) -> None:
        """Give the side panels their share of the window's width (once; the user's own
        splitter positions are kept after that)."""
        nav, detail = self.side_widths(self.width())
        centre = max(200, self.width() - nav - detail - 2 * self.splitter.handleWidth())
        self.splitter.setSizes([nav, centre, detail])
        self._sized = True

    # -- construction ----------------------------------------------------------------------------
    def _external(self, name: str) -> QWidget:
        module_name, class_name = EXTERNAL_TABS[name]
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
            return cls(self.session)
        except Exception as exc:  # a missing or broken tab must not take the app down
            label = QLabel(f"The {name} tab is not available in this build.\n\n"
                           f"{type(exc).__name__}: {exc}")
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            label.setWordWrap(True)
            label.setStyleSheet("color: #6b7585;")
            label.setObjectName(f"placeholder-{name}")
            return label

    def _action(self, menu, text: str, slot: Callable, shortcut: Any = None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            if isinstance(shortcut, (list, tuple)):
                action.setShortcuts([QKeySequence(s) for s in shortcut])
            else:
                action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setToolTip(tip)
            action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        f = bar.addMenu("&File")
        self.new_action = self._action(f, "&New memory…", self.new_memory, QKeySequence.StandardKey.New,
                                       "Create an empty memory file")
        self.open_action = self._action(f, "&Open…", self.open_dialog, QKeySequence.StandardKey.Open,
                                        "Open a memory file")
        self.demo_action = self._action(f, "Open &demo memory", self.open_demo, None,
                                        "A fictional person's memory, for trying things out")
        self.import_action = self._action(f, "&Import conversations…", self.import_conversations,
                                          "Ctrl+I", "Import chat exports and notes")
        f.addSeparator()
        self.export_html_action = self._action(
            f, "Export &viewer…", self.export_html, "Ctrl+E",
            "Write the graph as one offline HTML file you can hand to someone")
        self.export_journal_action = self._action(
            f, "Export &journal…", self.export_journal, None,
            "Write the hash-chained journal as JSON Lines (it can rebuild the memory)")
        self.verify_action = self._action(f, "&Verify journal", self.verify, "Ctrl+Shift+V",
                                          "Check that no one altered the memory's history")
        f.addSeparator()
        self.settings_action = self._action(f, "&Settings…", self.open_settings,
                                            QKeySequence.StandardKey.Preferences)
        self.settings_action.setShortcuts([QKeySequence("Ctrl+,")])
        self.close_action = self._action(f, "&Close memory", self.close_memory, "Ctrl+W")
        self.quit_action = self._action(f, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        e = bar.addMenu("&Edit")
        self.undo_action = self.session.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(QKeySequence("Ctrl+Z"))
        self.redo_action = self.session.undo_stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        e.addAction(self.undo_action)
        e.addAction(self.redo_action)
        e.addSeparator()
        e.addAction(self.beliefs.pin_action)
        self.edit_item_action = self._action(
            e, "&Edit selected…", lambda: self.detail.edit() if self._can_curate(
                ("event", "entity")) else None, "F2",
            "Edit the selected event or entity: text, emotions, domain, name, aliases, kind")
        self.erase_item_action = self._action(
            e, "E&rase selected…", lambda: self.detail.erase() if self._can_curate(
                ("event", "entity", "fact")) else None, "Shift+Del",
            "Erase the selected item everywhere, for good (a preview shows what goes first)")
        self._action(e, "&Find…", self.find, QKeySequence.StandardKey.Find,
                     "Search entities and events")
        self._action(e, "Clear time range", lambda: self.session.set_brush(None, None), None)

        v = bar.addMenu("&View")
        for i, name in enumerate(TABS):
            self._action(v, name, lambda n=name: self.show_tab(n, focus=True), f"Ctrl+{i + 1}")
        v.addSeparator()
        self._action(v, "Reload", lambda: self.session.notify("all"), "F5",
                     "Re-read the memory now (what other programs change also shows by itself)")

        h = bar.addMenu("&Help")
        self.ranking_help_action = self._action(
            h, "How Pulse &ranks memories", self.show_ranking_help, "F1",
            "The score's formula, each factor in a line, and an example from this memory")
        self._action(h, "&About Pulse", self.about)

    def _can_curate(self, kinds: tuple[str, ...]) -> bool:
        selection = self.session.selection
        if self.session.memory is None:
            self.statusBar().showMessage("Open a memory first (File ▸ Open, or the demo on the "
                                         "start page).", 8000)
            return False
        if selection is None or selection[0] not in kinds:
            self.statusBar().showMessage("Select an item first (in the navigator, the graph, "
                                         "the timeline or the beliefs table).", 8000)
            return False
        return True

    # -- state -----------------------------------------------------------------------------------
    def _on_opened(self) -> None:
        has = self.session.memory is not None
        self.stack.setCurrentIndex(1 if has else 0)
        reason = self.session.read_only_reason
        if reason:
            self.banner.setText(f"⚠  Read-only: {reason}")
        self.banner.setVisible(bool(reason) and has)
        writable = has and not self.session.read_only
        for action in (self.export_html_action, self.export_journal_action, self.verify_action,
                       self.close_action):
            action.setEnabled(has)
        self.beliefs.pin_action.setEnabled(writable)
        self._update_review_count()
        self._update_embedding_banner()
        memory = self.session.memory
        if memory is not None:
            path, suffix = self.session.path, " · read-only" if reason else ""
            self.memory_status.setText(f"{path}{suffix}")
            self.statusBar().clearMessage()
            self.status_reads.start(
                lambda m, _send, _cancel: m.stats()["counts"], lambda _rows: None,
                lambda n: self.memory_status.setText(
                    f"{path} · {n['events']} events · {n['entities']} entities"
                    f" · journal {n['journal']} rows{suffix}"),
                total=memory_rows(memory, ("events",)))
        else:
            self.status_reads.cancel()
            self.memory_status.setText("")
            self.statusBar().showMessage("No memory open")    # not the one just closed
        self._update_title()

    def _update_review_count(self, *_args) -> None:
        """The status bar's "Review: n" (read on the reader thread for a large memory: the
        queue looks at every event)."""
        from pulse_desktop.review_view import due_count

        memory = self.session.memory
        if memory is None:
            self.review_reads.cancel()
            self.review_status.setVisible(False)
            return
        now = getattr(getattr(self.views.get("Review"), "widget", None), "now", None)
        self.review_reads.start(lambda m, _send, _cancel: due_count(m, now), lambda _rows: None,
                                self._show_review_count, total=memory_rows(memory, ("events",)))

    def _show_review_count(self, n: int | None) -> None:
        self.review_status.setVisible(n is not None)
        if n is not None:
            self.review_status.setText(f"Review: {n}")

    def _update_embedding_banner(self, what: str = "all") -> None:
        # a belief edit cannot change the embeddings, and the notice looks for the e5 model's
        # files (9 ms of the UI thread per pin at 100k, bench/desktop_responsiveness.py)
        if what == "beliefs":
            return
        memory = self.session.memory
        notice = None
        if memory is not None:
            notice = memory.embedding_notice(memory.embedding_model)
        self.embedding_banner.setText(f"⚠  Embeddings: {notice}" if notice else "")
        self.embedding_banner.setVisible(bool(notice))

    def _show_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def _refused(self, title: str, text: str) -> None:
        # after the refused action has returned (an undo inside QUndoStack, say)
        QTimer.singleShot(0, lambda: self._error(title, text))

    def _show_recall(self, log_id: int) -> None:
        self.show_tab("Recalls")
        view = self.tab("Recalls")
        if hasattr(view, "show_record"):
            view.show_record(log_id)

    def _update_title(self, *_args) -> None:
        path = self.session.path
        if path is None:
            self.setWindowTitle("Pulse")
        else:
            suffix = " (read-only)" if self.session.read_only else ""
            self.setWindowTitle(f"{path.name}{suffix} — Pulse")

    def tab(self, name: str) -> QWidget:
        """The view of a tab (built now if it was not shown yet)."""
        view = self.views[name]
        return view.ensure() if isinstance(view, LazyTab) else view

    def show_tab(self, name: str, *, focus: bool = False) -> None:
        """Show a tab; with focus, the keyboard goes to its main control (the question in the
        Playground, the table in Beliefs…), as a person switching with Ctrl+N expects."""
        self.tabs.setCurrentIndex(TABS.index(name))
        if focus:
            target = getattr(self.tab(name), "focus_target", None)
            widget = target() if callable(target) else None
            if widget is not None:
                widget.setFocus(Qt.FocusReason.ShortcutFocusReason)

    # -- opening ---------------------------------------------------------------------------------
    def open_path(self, path: str | Path, *, create: bool = False,
                  passphrase: str | None = None) -> bool:
        try:
            if not create and passphrase is None and Memory.is_encrypted(path):
                if not self._open_encrypted(Path(path)):
                    return False
            else:
                self.session.open(path, create=create, passphrase=passphrase)
        except PulseError as exc:
            self._error("Cannot open the memory", str(exc))
            return False
        except Exception as exc:  # e.g. a corrupt file sqlite cannot read
            self._error("Cannot open the memory", f"{path}: {type(exc).__name__}: {exc}")
            return False
        return True

    def _remember_recent(self) -> None:
        if self.session.path is not None:
            self.recent.add(self.session.path)
        self.start.show_recent(self.recent.paths())

    def _open_encrypted(self, path: Path) -> bool:
        """Ask for the passphrase (or take it from the OS keyring, if the user chose that for
        this memory); False when the user cancels. docs/privacy.md."""
        from pulse_desktop import app_settings
        from pulse_desktop.passphrase_dialog import PassphraseDialog

        settings = app_settings.load()
        account = str(path.resolve())
        if account in settings.keyring_memories:
            saved = Memory.keyring_passphrase(path)
            if saved:
                try:
                    self.session.open(path, passphrase=saved)
                    return True
                except PassphraseError:
                    pass        # rekeyed since: ask, and offer to save the new one
        dialog = PassphraseDialog(path, lambda text: self.session.open(path, passphrase=text),
                                  self)
        self.passphrase_dialog = dialog
        accepted = dialog.exec() == QDialog.DialogCode.Accepted
        self.passphrase_dialog = None
        if not accepted:
            return False
        if dialog.remember.isChecked():
            try:
                Memory.keep_passphrase_in_keyring(path, dialog.passphrase)
            except PulseError as exc:
                self._error("The passphrase was not saved", str(exc))
            else:
                if account not in settings.keyring_memories:
                    settings.keyring_memories.append(account)
                    app_settings.save(settings)
        return True

    def open_dialog(self) -> None:
        start = str(self.session.path.parent) if self.session.path else str(data_dir())
        path, _ = QFileDialog.getOpenFileName(self, "Open a memory", start, FILE_FILTER)
        if path:
            self.open_path(path)

    def new_memory(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "New memory", str(data_dir() / "memory.db"),
                                              FILE_FILTER)
        if not path:
            return
        if Path(path).exists() and Path(path).stat().st_size > 0:
            self._error("Cannot create the memory",
                        f"{path} already exists. Choose a new name, or open it with Open….")
            return
        self.open_path(path, create=True)

    def close_memory(self) -> None:
        self.session.close()
        self.session.undo_stack.clear()
        self.session.opened.emit()

    def open_demo(self) -> None:
        if self.demo_job is not None:      # File ▸ Open demo memory while it is being built
            self.statusBar().showMessage("The demo memory is being built; Cancel stops it.",
                                         8000)
            return
        path = demo_db_path()
        if path.exists() and path.stat().st_size > 0:
            self.open_path(path)
            return
        self.start.set_busy("Building the demo memory on this computer (about a minute the "
                            "first time)…", cancel=self.cancel_demo)
        self.statusBar().showMessage("Building the demo memory…")

        def finished(summary: dict[str, Any]) -> None:
            self.demo_job = None
            self.start.set_busy(None)
            if summary.get("cancelled"):
                self.statusBar().showMessage("Demo memory not built: cancelled, nothing was "
                                             "kept. Open demo memory starts it again.", 15000)
            else:
                self.open_path(path)

        def failed(text: str) -> None:
            self.demo_job = None
            self.start.set_busy(None)
            self._error("The demo memory could not be built", text)

        self.demo_job = self.run_job(lambda progress, cancel: build_demo(path, progress, cancel),
                                     done=finished, failed=failed)
        self.demo_job.signals.progress.connect(self.start.show_progress)

    def cancel_demo(self) -> None:
        """Stop building the demo memory: the worker stops within a step (about 0.3 s) and
        leaves no file; finished() then says so."""
        if self.demo_job is None:
            return
        self.demo_job.cancel.set()
        self.start.cancelling()
        self.statusBar().showMessage("Cancelling the demo memory…")

    def import_conversations(self) -> None:
        """Go to the Ingest tab (creating a memory first if none is open)."""
        if self.session.memory is None:
            path, _ = QFileDialog.getSaveFileName(
                self, "New memory for the import", str(data_dir() / "memory.db"), FILE_FILTER)
            if not path or not self.open_path(path, create=True):
                return
        self.show_tab("Ingest")
        ingest = self.tab("Ingest")
        pick = getattr(ingest, "pick_files", None)
        if callable(pick):
            QTimer.singleShot(0, pick)

    # -- long jobs -------------------------------------------------------------------------------
    def run_job(self, fn, *, done: Callable[[Any], Any], failed: Callable[[str], Any] | None = None
                ) -> workers.Job:
        job = workers.Job(fn)
        self.jobs.add(job)

        def finished(result: Any) -> None:
            self.jobs.discard(job)
            done(result)

        def fail(text: str) -> None:
            self.jobs.discard(job)
            (failed or (lambda t: self._error("Something went wrong", t)))(text)

        job.signals.done.connect(finished)
        job.signals.failed.connect(fail)
        return workers.start(job)

    def export_html(self) -> None:
        """The export dialog (pulse_desktop/export_dialog.py): domains, redaction level, lock,
        where to save (the last folder is remembered); the export runs on a worker."""
        from pulse_desktop import app_settings
        from pulse_desktop.export_dialog import ExportDialog

        memory = self.session.memory
        if memory is None:
            return self._error("Nothing to export", "Open a memory first.")
        settings = app_settings.load()
        folder = settings.last_export_folder or str(Path.home())
        src = Path(memory.path)
        dialog = ExportDialog(src.name, folder, lambda values: start(values), self)
        self.export_dialog = dialog

        def start(values: dict[str, Any]) -> None:
            def work(_progress, _cancel):
                with Memory.open(src, read_only=True) as m:
                    return m.export_html(values["out"], domains=values["domains"],
                                         redact=values["redact"], lock=values["lock"],
                                         include_events=values["include_events"])

            def done(summary: dict[str, Any]) -> None:
                dialog.finished(summary)
                saved = app_settings.load()
                saved.last_export_folder = str(Path(summary["path"]).parent)
                try:
                    app_settings.save(saved)
                except OSError:
                    pass        # remembering the folder is a convenience
                self.statusBar().showMessage(f"Viewer written to {summary['path']}", 15000)

            self.run_job(work, done=done, failed=dialog.fail)

        dialog.open()

    def export_journal(self) -> None:
        memory = self.session.memory
        if memory is None:
            return self._error("Nothing to export", "Open a memory first.")
        default = str(Path.home() / f"{memory.path.stem}-journal.jsonl")
        out, _ = QFileDialog.getSaveFileName(self, "Export journal", default,
                                             "JSON Lines (*.jsonl);;All files (*)")
        if not out:
            return
        src = Path(memory.path)

        def work(_progress, _cancel):
            with Memory.open(src, read_only=True) as m:
                return m.export_journal(out)

        self.run_job(work, done=lambda s: self.statusBar().showMessage(
            f"Journal written to {s['out']} ({s['rows']} rows)", 15000),
            failed=lambda t: self._error("The journal could not be exported", t))

    def verify(self) -> None:
        memory = self.session.memory
        if memory is None:
            return self._error("Nothing to verify", "Open a memory first.")
        src = Path(memory.path)

        def work(_progress, _cancel):
            with Memory.open(src, read_only=True) as m:
                return [str(b) for b in m.verify()], m.stats()["counts"]["journal"]

        def done(result) -> None:
            breaks, rows = result
            if breaks:
                more = f"\n… and {len(breaks) - 5} more" if len(breaks) > 5 else ""
                QMessageBox.warning(self, "The journal does not verify",
                                    "These rows were altered, removed or reordered:\n\n"
                                    + "\n".join(breaks[:5]) + more)
            else:
                self.statusBar().showMessage(f"Journal verified: {rows} rows, the hash chain is "
                                             "intact.", 15000)
                QMessageBox.information(self, "Journal verified",
                                        f"All {rows} journal rows verify: the history is intact.")

        self.statusBar().showMessage("Verifying the journal…")
        self.run_job(work, done=done, failed=lambda t: self._error("Verify failed", t))

    # -- other ---------------------------------------------------------------------------------
    def open_settings(self) -> None:
        try:
            from pulse_desktop.settings_dialog import SettingsDialog
        except Exception as exc:
            return self._error("Settings are not available", f"{type(exc).__name__}: {exc}")
        SettingsDialog(self.session, self).exec()

    def find(self) -> None:
        if self.session.memory is not None:
            self.navigator.search.setFocus()
            self.navigator.search.selectAll()

    def show_ranking_help(self) -> None:
        from pulse_desktop.ranking_help import RankingHelp

        if getattr(self, "ranking_help", None) is None:
            self.ranking_help = RankingHelp(self.session, self, query_hint=self._playground_query)
        self.ranking_help.refresh()
        self.ranking_help.show()
        self.ranking_help.raise_()
        self.ranking_help.activateWindow()

    def _playground_query(self) -> str | None:
        view = self.views.get("Playground")
        built = view.widget if isinstance(view, LazyTab) else view
        edit = getattr(built, "query_edit", None)
        return edit.text().strip() or None if edit is not None else None

    def about(self) -> None:
        QMessageBox.about(self, "About Pulse",
                          "Pulse — an empathic memory engine for AI companions.\n\n"
                          "Everything you change here is written to a hash-chained journal, "
                          "and can be undone.")

    def _error(self, title: str, text: str) -> None:
        self.statusBar().showMessage(f"{title}: {text}", 15000)
        QMessageBox.warning(self, title, text)

    # -- window state (QSettings holds only this, as in TagStudio) ------------------------------
    def restore_state(self) -> None:
        """Geometry, splitter and the last memory (offered on the start page)."""
        settings = QSettings()
        geometry = settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        splitter = settings.value("window/splitter")
        if splitter is not None and self.splitter.restoreState(splitter):
            self._sized = True
        self.start.show_recent(self.recent.paths())
        self._save_state = True

    def closeEvent(self, event) -> None:
        if getattr(self, "_save_state", False):
            settings = QSettings()
            settings.setValue("window/geometry", self.saveGeometry())
            settings.setValue("window/splitter", self.splitter.saveState())
        from pulse_desktop.graph_view import disconnect_job

        for job in list(self.jobs):
            job.cancel.set()
            disconnect_job(job)
        self.jobs.clear()
        for reads in self.findChildren(ViewRead):      # rows still being read: dropped
            reads.cancel()
        self.graph.shutdown()
        self.live.shutdown()
        self.session.close()
        super().closeEvent(event)
