"""The start page, shown when no memory is open: the ways in (open the demo, a new memory,
import conversations, open a file) and the last eight memories opened, newest first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QFontMetrics, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from pulse_desktop.style import app_icon

if TYPE_CHECKING:
    from pulse_desktop.main_window import MainWindow

RECENT_KEY = "recent_memories"
RECENT_LIMIT = 8


class RecentMemories:
    """The memories opened last, newest first (at most eight), kept in QSettings when there is
    one (the app's), else only for this run (tests, the screenshot tool)."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self.settings = settings
        self._paths: list[str] = []
        if settings is not None:
            stored = settings.value(RECENT_KEY) or []
            self._paths = [str(p) for p in ([stored] if isinstance(stored, str) else stored)]
            last = settings.value("last_memory")     # what earlier versions remembered
            if last and str(last) not in self._paths:
                self._paths.append(str(last))

    def paths(self) -> list[str]:
        """The recent memories that still exist, newest first."""
        return [p for p in self._paths if Path(p).is_file()][:RECENT_LIMIT]

    def add(self, path: str | Path) -> None:
        text = str(Path(path).resolve())
        self._paths = [text] + [p for p in self._paths if p != text]
        self._paths = self._paths[:RECENT_LIMIT * 2]     # room for a few that were moved away
        if self.settings is not None:
            self.settings.setValue(RECENT_KEY, self._paths)
            self.settings.setValue("last_memory", text)


class StartPage(QWidget):
    """Shown when no memory is open: the ways in on the left, recent memories on the right."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self.window_ = window
        title = QLabel("Pulse")
        title.setStyleSheet("font-size: 28pt; font-weight: 700; color: #1f2733;")
        subtitle = QLabel("See and curate what an AI companion remembers.")
        subtitle.setStyleSheet("font-size: 12pt; color: #5b6678;")
        icon = QLabel()
        icon.setPixmap(app_icon().pixmap(88, 88))
        icon.setAccessibleName("Pulse")

        def button(text: str, tip: str, slot: Callable[[], object], primary=False) -> QPushButton:
            b = QPushButton(text)
            b.setToolTip(tip)
            b.setAccessibleDescription(tip)
            if primary:
                b.setObjectName("primary")
            b.setMinimumSize(260, 42)
            b.clicked.connect(lambda _checked=False: slot())
            return b

        self.demo = button("Open demo memory", "A fictional person's memory, built on this "
                           "computer the first time", window.open_demo, primary=True)
        self.new_button = button("New memory…", "Create an empty memory file (Ctrl+N)",
                                 window.new_memory)
        self.import_button = button("Import conversations…", "Start a new memory from chat "
                                    "exports or notes (Ctrl+I)", window.import_conversations)
        self.open_button = button("Open…", "Open a Pulse memory file (Ctrl+O)",
                                  window.open_dialog)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        # as wide as the buttons: centred in the column, the bar took its narrowest size
        self.busy.setMinimumWidth(260)
        self.busy.setMaximumWidth(320)
        self.busy.setAccessibleName("Working")
        self.busy.setFormat("%v of %m events")
        self.busy.hide()
        # stops the work set_busy() was given (the demo build); Esc too
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop building the demo memory; nothing is kept (Esc)")
        self.cancel_button.setAccessibleDescription(self.cancel_button.toolTip())
        self.cancel_button.clicked.connect(lambda _checked=False: self._cancel())
        self.cancel_button.hide()
        self._on_cancel: Callable[[], object] | None = None
        escape = QShortcut(QKeySequence("Escape"), self)
        escape.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        escape.activated.connect(self._cancel)
        self.note = QLabel()
        self.note.setStyleSheet("color: #5b6678;")
        self.note.setWordWrap(True)
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)

        ways = QVBoxLayout()
        ways.setSpacing(10)
        for w in (icon, title, subtitle):
            ways.addWidget(w, 0, Qt.AlignmentFlag.AlignHCenter)
        ways.addSpacing(18)
        for w in (self.demo, self.new_button, self.import_button, self.open_button, self.busy,
                  self.cancel_button):
            ways.addWidget(w, 0, Qt.AlignmentFlag.AlignHCenter)
        ways.addWidget(self.note)      # the column's width, and the height its lines need

        self.recent_box = QFrame()
        self.recent_box.setObjectName("recentBox")
        self.recent_box.setStyleSheet("QFrame#recentBox { background: #ffffff; border: 1px solid"
                                      " #dfe3ec; border-radius: 8px; }")
        self.recent_box.setMinimumWidth(300)
        self.recent_box.setMaximumWidth(420)
        self.recent_layout = QVBoxLayout(self.recent_box)
        self.recent_layout.setContentsMargins(14, 12, 14, 12)
        self.recent_layout.setSpacing(2)
        self.recent_title = QLabel("Recent memories")
        self.recent_title.setObjectName("sectionTitle")
        self.recent_buttons: list[QPushButton] = []

        row = QHBoxLayout()
        row.addStretch(1)
        row.addLayout(ways)
        row.addSpacing(48)
        row.addWidget(self.recent_box, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addStretch(1)
        outer = QVBoxLayout(self)
        outer.addStretch(2)
        outer.addLayout(row)
        outer.addStretch(3)
        self.show_recent([])

    def show_recent(self, paths: list[str]) -> None:
        """List the recent memories (at most eight); the box hides when there are none."""
        while self.recent_layout.count():
            item = self.recent_layout.takeAt(0)
            if item.widget() is not None and item.widget() is not self.recent_title:
                item.widget().deleteLater()
        self.recent_buttons = []
        self.recent_layout.addWidget(self.recent_title)
        for path in paths[:RECENT_LIMIT]:
            p = Path(path)
            folder = QFontMetrics(self.font()).elidedText(str(p.parent),
                                                          Qt.TextElideMode.ElideMiddle, 340)
            b = QPushButton(f"{p.name}\n{folder}")
            b.setObjectName("recentItem")
            b.setToolTip(f"Open {path}")
            b.setAccessibleName(f"Open recent memory {p.name}")
            b.setProperty("path", path)
            b.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            b.setStyleSheet("QPushButton#recentItem { text-align: left; border: 1px solid "
                            "transparent; padding: 6px 8px; } QPushButton#recentItem:hover { "
                            "background: #eef2fb; } QPushButton#recentItem:focus { border: 2px "
                            "solid #4f6fe0; }")
            b.clicked.connect(lambda _c=False, path=path: self.window_.open_path(path))
            self.recent_layout.addWidget(b)
            self.recent_buttons.append(b)
        self.recent_box.setVisible(bool(paths))

    def set_busy(self, text: str | None, cancel: Callable[[], object] | None = None) -> None:
        """Say what is being done (None: nothing, the ways in are back); with `cancel`, a
        Cancel button (and Esc) calls it."""
        self.busy.setRange(0, 0)           # busy until the first count arrives
        self.busy.setTextVisible(False)
        self.busy.setVisible(bool(text))
        self.note.setText(text or "")
        self._on_cancel = cancel if text else None
        self.cancel_button.setVisible(self._on_cancel is not None)
        self.cancel_button.setEnabled(True)
        for b in (self.demo, self.new_button, self.import_button, self.open_button,
                  *self.recent_buttons):
            b.setEnabled(not text)
        if self._on_cancel is not None:    # the clicked button is disabled: Esc still works
            self.cancel_button.setFocus(Qt.FocusReason.OtherFocusReason)
        elif not text:
            self.demo.setFocus(Qt.FocusReason.OtherFocusReason)

    def show_progress(self, done: int, total: int) -> None:
        if self.busy.isVisible() and total > 0:
            self.busy.setRange(0, total)
            self.busy.setValue(done)
            self.busy.setTextVisible(True)

    def cancelling(self) -> None:
        self.cancel_button.setEnabled(False)
        self.note.setText("Cancelling: stopping after the events being embedded now…")

    def _cancel(self) -> None:
        if self._on_cancel is not None and self.cancel_button.isEnabled():
            self._on_cancel()
