"""A layout that puts its widgets in a row and wraps onto the next row when the row is full
(Qt's flow layout example), so a toolbar never cuts a button's text on a narrow window or at
200 % scaling. A stretch item pushes what follows to the right end of its row."""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QSizePolicy, QSpacerItem, QWidget


class FlowLayout(QLayout):
    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self.setContentsMargins(0, 0, 0, 0)

    # -- QLayout ---------------------------------------------------------------------------
    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def addStretch(self) -> None:
        self.addItem(QSpacerItem(0, 0, QSizePolicy.Policy.Expanding,
                                 QSizePolicy.Policy.Minimum))

    def addSpacing(self, width: int) -> None:
        self.addItem(QSpacerItem(width, 0, QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Minimum))

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QRect(0, 0, width, 0), apply=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._place(rect, apply=True)

    def sizeHint(self) -> QSize:
        width = sum(i.sizeHint().width() for i in self._items if not self._hidden(i))
        width += self._spacing * max(0, len(self._items) - 1)
        height = max((i.sizeHint().height() for i in self._items), default=0)
        m = self.contentsMargins()
        return QSize(width + m.left() + m.right(), height + m.top() + m.bottom())

    def minimumSize(self) -> QSize:
        size = QSize()
        for item in self._items:
            if not self._hidden(item):
                size = size.expandedTo(item.minimumSize())
        m: QMargins = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    # -- placing -----------------------------------------------------------------------------
    @staticmethod
    def _hidden(item: QLayoutItem) -> bool:
        w = item.widget()
        return w is not None and w.isHidden()

    def _rows(self, width: int) -> list[list[QLayoutItem]]:
        rows: list[list[QLayoutItem]] = [[]]
        used = 0
        for item in self._items:
            if self._hidden(item):
                continue
            if isinstance(item, QSpacerItem) and item.expandingDirections():
                rows[-1].append(item)
                continue
            w = item.sizeHint().width()
            if rows[-1] and used + w > width:
                rows.append([])
                used = 0
            rows[-1].append(item)
            used += w + self._spacing
        return rows

    def _place(self, rect: QRect, *, apply: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        y = area.y()
        for row in self._rows(area.width()):
            fixed = [i for i in row if not (isinstance(i, QSpacerItem) and i.expandingDirections())]
            if not fixed:
                continue
            height = max(i.sizeHint().height() for i in fixed)
            stretch = len(row) - len(fixed)
            free = area.width() - sum(i.sizeHint().width() for i in fixed) \
                - self._spacing * (len(fixed) - 1)
            x = area.x()
            for item in row:
                if isinstance(item, QSpacerItem) and item.expandingDirections():
                    x += max(0, free // max(stretch, 1))
                    continue
                size = item.sizeHint()
                w = min(size.width(), area.width())
                if apply:
                    item.setGeometry(QRect(QPoint(x, y + (height - size.height()) // 2),
                                           QSize(w, size.height())))
                x += w + self._spacing
            y += height + self._spacing
        return y - self._spacing - rect.y() + m.bottom()


def flow_row(*widgets: QWidget, spacing: int = 6) -> QWidget:
    """A widget holding `widgets` in a FlowLayout (None = a stretch)."""
    holder = QWidget()
    layout = FlowLayout(holder, spacing)
    for w in widgets:
        if w is None:
            layout.addStretch()
        else:
            layout.addWidget(w)
    holder.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
    return holder
