"""The status bar's "Reading…" while the views read a large memory's rows off the UI thread
(pulse_desktop/view_reads.py): which views are still reading, one bar for all of them, and
Stop, which closes the memory (every read is dropped; the start page shows again)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

REDRAW_MS = 250     # the label and bar change at most this often: each change relays out the
                    # status bar, and a 100k fill reports dozens of times


class ReadingProgress(QWidget):
    def __init__(self, session, stop: Callable[[], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.reads: dict[str, tuple[int, int]] = {}      # what → (rows read, of about)
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setFixedWidth(140)
        self.bar.setTextVisible(False)
        self.stop = QToolButton(text="Stop")
        self.stop.setToolTip("Stop reading and close this memory")
        self.stop.clicked.connect(stop)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 4, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.stop)
        self.setAccessibleName("Reading the memory")
        self._redraw = QTimer(self, singleShot=True, interval=REDRAW_MS)
        self._redraw.timeout.connect(self._show)
        session.reading.connect(self.update_read)
        self.hide()

    def update_read(self, what: str, done: int, total: int) -> None:
        if total <= 0 or done >= total:
            self.reads.pop(what, None)
        else:
            self.reads[what] = (done, total)
        if not self.reads:
            self._redraw.stop()
            self.hide()
        elif self.isHidden() or what not in self.label.text():
            self._show()            # a read starts: said at once
        elif not self._redraw.isActive():
            self._redraw.start()

    def _show(self) -> None:
        if not self.reads:
            return
        done_all = sum(d for d, _ in self.reads.values())
        total_all = sum(t for _, t in self.reads.values())
        self.label.setText(f"Reading {', '.join(self.reads)}… {done_all:,} of ~{total_all:,} rows")
        self.bar.setRange(0, max(total_all, 1))
        self.bar.setValue(done_all)
        self.show()
