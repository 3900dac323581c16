"""A splitter pane whose word-wrapped labels get the height their lines need at its width.

A QSplitter sizes its panes from their minimum sizes, which say nothing of a wrapped label's
height at the pane's width: on a narrow window (1024 px) the labels wrap onto more lines than
at 1280 and the splitter cut their last line. The pane's minimum height follows its width."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget


class HeightForWidth(QObject):
    """Keeps `pane`'s minimum height at what its layout needs at its current width (and never
    under `floor`, the minimum it was given)."""

    def __init__(self, pane: QWidget) -> None:
        super().__init__(pane)
        self.pane = pane
        self.floor = pane.minimumHeight()
        pane.installEventFilter(self)

    def fit(self) -> None:
        layout = self.pane.layout()
        if layout is None or self.pane.width() <= 0:
            return
        need = max(self.floor, layout.totalMinimumHeightForWidth(self.pane.width()))
        if self.pane.minimumHeight() != need:
            self.pane.setMinimumHeight(need)
            # the new minimum may have grown the pane inside its own resize: lay it out
            # again at the size it has now, or its labels keep the squeezed heights
            layout.setGeometry(self.pane.rect())

    def eventFilter(self, obj, event) -> bool:
        if obj is self.pane and event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            self.fit()
        return False
