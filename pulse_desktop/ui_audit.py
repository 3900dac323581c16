"""What a person would see as broken on screen, found by walking the live widgets: control text
cut off by its widget (buttons, labels, tabs, group titles, combo boxes, placeholders, table
headers), table cells cut off without their full text in the tooltip, tables wider than their
view, controls without an accessible name, and splitters a drag could close a panel with.
tests/test_desktop_fit.py runs it on every tab at 1280×800, 1920×1080 and 200 % scaling;
``pulse-desktop --audit 1280x800`` prints it (offscreen, the demo memory or --db).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QScrollBar,
    QTabBar,
    QTableView,
    QTextEdit,
    QToolButton,
    QWidget,
)

SLACK = 2           # px of rounding a text may overrun before it counts as cut
CELL_ROWS = 40      # table rows checked per view (the visible ones, at most)
SLIDER_MIN = 48     # px: a shorter slider cannot be set with any precision


def _shown(widget: QWidget) -> bool:
    return widget.isVisible() and widget.width() > 0 and widget.height() > 0


def _name(widget: QWidget) -> str:
    text = ""
    for attr in ("text", "title", "placeholderText", "accessibleName", "objectName"):
        getter = getattr(widget, attr, None)
        if callable(getter):
            try:
                text = getter()
            except TypeError:
                continue
            if text:
                break
    parent = widget.parentWidget()
    chain = []
    while parent is not None and len(chain) < 3:
        chain.append(type(parent).__name__)
        parent = parent.parentWidget()
    return f"{type(widget).__name__} {text!r} (in {'/'.join(chain)})"


def _plain(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def _button_need(button: QAbstractButton) -> int:
    """The width a button needs to show its whole text."""
    if isinstance(button, (QCheckBox, QRadioButton, QToolButton)):
        return button.sizeHint().width()
    metrics = QFontMetrics(button.font())
    need = max(metrics.horizontalAdvance(line) for line in _plain(button.text()).split("\n"))
    need += 16    # the QSS padding and border
    if not button.icon().isNull():
        need += button.iconSize().width() + 4
    if isinstance(button, QPushButton) and button.menu() is not None:
        need += 14
    return need


def _cell_problems(view: QAbstractItemView) -> list[str]:
    problems: list[str] = []
    model = view.model()
    if model is None:
        return problems
    metrics = QFontMetrics(view.font())
    header = view.horizontalHeader() if isinstance(view, QTableView) else None
    columns = range(model.columnCount()) if header is not None else [0]
    first = view.indexAt(QPoint(2, 2))
    start = max(first.row(), 0) if first.isValid() else 0
    for row in range(start, min(model.rowCount(), start + CELL_ROWS)):
        for col in columns:
            if header is not None and header.isSectionHidden(col):
                continue
            index = model.index(row, col, QModelIndex())
            text = index.data(Qt.ItemDataRole.DisplayRole)
            if not isinstance(text, str) or not text:
                continue
            rect = view.visualRect(index)
            if rect.width() <= 0:
                continue
            need = metrics.horizontalAdvance(text) + 10
            if index.data(Qt.ItemDataRole.DecorationRole) is not None:
                need += view.iconSize().width() + 6 if view.iconSize().width() > 0 else 20
            if index.data(Qt.ItemDataRole.CheckStateRole) is not None:
                need += 22
            if need <= rect.width() + SLACK:
                continue
            tip = index.data(Qt.ItemDataRole.ToolTipRole) or ""
            if text.strip() not in str(tip):
                problems.append(f"{_name(view)}: cell ({row}, {col}) {text!r} is cut and its "
                                "tooltip does not hold it")
                return problems          # one per view is enough to say it
    return problems


def clipped_texts(root: QWidget) -> list[str]:
    """Every visible control under root whose text does not fit its widget."""
    problems: list[str] = []
    widgets = [root, *root.findChildren(QWidget)]
    for w in widgets:
        if not _shown(w):
            continue
        if isinstance(w, QAbstractButton) and w.text():
            need = _button_need(w)
            if w.width() + SLACK < need:
                problems.append(f"{_name(w)}: {w.width()} px wide, its text needs {need}")
        elif isinstance(w, QLabel) and w.text() and w.pixmap().isNull():
            if w.wordWrap():
                need_h = w.heightForWidth(w.width())
                if need_h > 0 and w.height() + SLACK < need_h:
                    problems.append(f"{_name(w)}: {w.height()} px high, its text needs {need_h}")
            else:
                need = w.minimumSizeHint().width()
                if w.width() + SLACK < need:
                    problems.append(f"{_name(w)}: {w.width()} px wide, its text needs {need}")
        elif isinstance(w, QTabBar):
            bold = QFont(w.font())
            bold.setBold(True)
            metrics = QFontMetrics(bold)
            for i in range(w.count()):
                rect = w.tabRect(i)
                font = bold if i == w.currentIndex() else w.font()
                need = QFontMetrics(font).horizontalAdvance(_plain(w.tabText(i))) + 8
                if rect.width() + SLACK < need or rect.right() > w.width() + SLACK:
                    problems.append(f"tab {w.tabText(i)!r}: {rect.width()} px wide at "
                                    f"x={rect.x()}, needs {need} (bar {w.width()} px)")
        elif isinstance(w, QGroupBox) and w.title():
            need = QFontMetrics(w.font()).horizontalAdvance(_plain(w.title())) + 24
            if w.isCheckable():
                need += 20
            if w.width() + SLACK < need:
                problems.append(f"{_name(w)}: {w.width()} px wide, its title needs {need}")
        elif isinstance(w, QComboBox) and not w.isEditable() and w.currentText():
            need = QFontMetrics(w.font()).horizontalAdvance(w.currentText()) + 34
            if w.width() + SLACK < need:
                problems.append(f"{_name(w)}: {w.width()} px wide, {w.currentText()!r} needs "
                                f"{need}")
        elif isinstance(w, QLineEdit) and w.placeholderText() and not w.text():
            need = QFontMetrics(w.font()).horizontalAdvance(w.placeholderText()) + 18
            if w.isClearButtonEnabled():
                need += 0      # the clear button shows only once there is text
            if w.width() + SLACK < need:
                problems.append(f"{_name(w)}: {w.width()} px wide, its placeholder needs {need}")
        elif isinstance(w, QAbstractSlider) and not isinstance(w, QScrollBar):
            length = w.width() if w.orientation() == Qt.Orientation.Horizontal else w.height()
            if length < SLIDER_MIN:
                problems.append(f"{_name(w)}: a slider {length} px long is too short to use")
        elif isinstance(w, QAbstractItemView):
            if isinstance(w, QTableView):
                header = w.horizontalHeader()
                if header.isVisible():
                    bold = QFont(header.font())
                    bold.setBold(True)
                    metrics = QFontMetrics(bold)
                    model = w.model()
                    for col in range(header.count()):
                        if header.isSectionHidden(col) or model is None:
                            continue
                        text = model.headerData(col, Qt.Orientation.Horizontal)
                        if not isinstance(text, str) or not text:
                            continue
                        lines = text.split("\n")
                        need = max(metrics.horizontalAdvance(line) for line in lines) + 14
                        if header.sectionSize(col) + SLACK < need:
                            problems.append(f"{_name(w)}: header {text!r} is "
                                            f"{header.sectionSize(col)} px, needs {need}")
                if w.horizontalScrollBar().maximum() > 0 and not w.property("mayScrollSideways"):
                    problems.append(f"{_name(w)}: wider than its view (scrolls "
                                    f"{w.horizontalScrollBar().maximum()} px sideways)")
            problems += _cell_problems(w)
    return problems


CONTROLS = (QAbstractButton, QLineEdit, QComboBox, QAbstractSlider, QAbstractSpinBox,
            QAbstractItemView, QTabBar, QPlainTextEdit, QTextEdit)


def accessible_name(widget: QWidget) -> str:
    """What a screen reader says for the widget (Qt's accessibility interface)."""
    from PySide6.QtGui import QAccessible

    iface = QAccessible.queryAccessibleInterface(widget)
    return iface.text(QAccessible.Text.Name) if iface is not None else ""


def unnamed_controls(root: QWidget) -> list[str]:
    """Every visible control under root that a screen reader would not name."""
    out = []
    for w in root.findChildren(QWidget):
        if not _shown(w) or not isinstance(w, CONTROLS):
            continue
        if w.focusPolicy() == Qt.FocusPolicy.NoFocus and not isinstance(w, QAbstractButton):
            continue
        if type(w).__name__ in ("QScrollBar", "QLineEdit") and w.parentWidget() is not None \
                and isinstance(w.parentWidget(), (QAbstractSpinBox, QComboBox)):
            continue       # the inner editor of a spin or combo box is named through it
        if not (w.accessibleName() or accessible_name(w)).strip():
            out.append(_name(w))
    return out


def hidden_by_splitters(root: QWidget) -> list[str]:
    """Every splitter under root that a drag could close a panel of: each is pushed as far as
    it goes both ways, and every panel must keep some room (then the sizes are put back)."""
    from PySide6.QtWidgets import QApplication, QSplitter

    out = []
    for split in root.findChildren(QSplitter):
        if not _shown(split) or split.count() < 2:
            continue
        before = split.sizes()
        total = sum(before)
        for i in range(split.count()):
            split.setSizes([total if j == i else 0 for j in range(split.count())])
            QApplication.processEvents()
            closed = [j for j, size in enumerate(split.sizes()) if size <= 0]
            if closed:
                out.append(f"{_name(split)}: panel {closed} can be dragged shut")
                break
        split.setSizes(before)
    return out


def audit_tabs(window, prepare=None) -> dict[str, list[str]]:
    """Show every tab of the main window in turn (``prepare(name, view)`` may fill it first)
    and list what is cut off, unnamed or can be dragged shut; an empty dict means all is well.
    """
    from PySide6.QtWidgets import QApplication

    from pulse_desktop.main_window import TABS

    found: dict[str, list[str]] = {}
    for name in TABS:
        window.show_tab(name)
        if prepare is not None:
            prepare(name, window.tab(name))
        for _ in range(5):
            QApplication.processEvents()
        problems = clipped_texts(window) + [f"no accessible name: {w}"
                                            for w in unnamed_controls(window)]
        problems += hidden_by_splitters(window)
        if problems:
            found[name] = problems
    return found
