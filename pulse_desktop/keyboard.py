"""Keyboard and screen-reader support shared by every view.

- ``WindowShortcuts``: the window's own shortcuts (Ctrl+E export, Ctrl+P pin, Ctrl+1…8 tabs,
  F1, F2, F5…) work whatever has focus. A text field claims some of those keys for itself
  (on Linux Ctrl+E moves to the end of the line, Ctrl+F one character on), so the window's
  shortcut never fired while typing; the filter lets the window have them, and leaves a text
  field the keys it edits with (undo, copy, paste, delete, select all).
- ``QuietListView`` / ``QuietTableView``: Tab into a list or a table only moves the keyboard
  there. Qt makes the first row current as the view gets focus; a view that selected on that
  would move the graph and the detail panel under the person's eyes.
- ``name_controls``: every control gets an accessible name — from its label in a form, its
  text, its placeholder or the first sentence of its tooltip — unless it was given one.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QTabBar,
    QTableView,
    QTextEdit,
    QWidget,
)

# Keys a text field keeps even when the window has a shortcut on them.
EDITING_KEYS = (QKeySequence.StandardKey.Undo, QKeySequence.StandardKey.Redo,
                QKeySequence.StandardKey.Cut, QKeySequence.StandardKey.Copy,
                QKeySequence.StandardKey.Paste, QKeySequence.StandardKey.SelectAll,
                QKeySequence.StandardKey.Delete, QKeySequence.StandardKey.Backspace,
                QKeySequence.StandardKey.DeleteStartOfWord,
                QKeySequence.StandardKey.DeleteEndOfWord)
TEXT_INPUTS = (QLineEdit, QAbstractSpinBox, QTextEdit, QPlainTextEdit)


def _key_of(event: QKeyEvent) -> QKeySequence:
    mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
    return QKeySequence(event.keyCombination().key().value | mods.value)


class WindowShortcuts(QObject):
    """Lets the window's shortcuts win over a focused text field (see the module docstring)."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        # a filter on each text field as it gets focus: an application-wide Python event
        # filter crashes PySide6 6.11 once QtWebEngine's own objects start receiving events
        QApplication.instance().focusChanged.connect(self._focus_changed)

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        if new is None or not isinstance(new, TEXT_INPUTS) or new.property("pulseShortcuts"):
            return
        if new.window() is not self.window:
            return
        new.setProperty("pulseShortcuts", True)
        new.installEventFilter(self)

    def shortcuts(self) -> set[str]:
        """The key sequences of the window's actions (menus and views), as portable text."""
        out: set[str] = set()
        for action in self.window.findChildren(QAction):
            if action.shortcutContext() == Qt.ShortcutContext.WidgetShortcut:
                continue
            for seq in action.shortcuts():
                if not seq.isEmpty():
                    out.add(seq.toString(QKeySequence.SequenceFormat.PortableText))
        return out

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.ShortcutOverride or not isinstance(obj, TEXT_INPUTS):
            return False
        if not isinstance(obj, QWidget) or obj.window() is not self.window:
            return False
        if isinstance(obj, (QTextEdit, QPlainTextEdit)) and obj.isReadOnly():
            return False
        if any(event.matches(key) for key in EDITING_KEYS):
            return False
        if event.modifiers() in (Qt.KeyboardModifier.NoModifier,
                                 Qt.KeyboardModifier.ShiftModifier) \
                and event.key() < Qt.Key.Key_F1.value:
            return False       # typing, moving and Esc are the field's
        seq = _key_of(event).toString(QKeySequence.SequenceFormat.PortableText)
        if seq in self.shortcuts():
            event.ignore()     # not claimed: the window's shortcut runs
            return True
        return False


def _form_label(widget: QWidget) -> str:
    parent = widget.parentWidget()
    while parent is not None:
        layout = parent.layout()
        if isinstance(layout, QFormLayout):
            label = layout.labelForField(widget)
            if isinstance(label, QLabel) and label.text():
                return label.text()
            # a field inside a row's layout: its row label
            for row in range(layout.rowCount()):
                field = layout.itemAt(row, QFormLayout.ItemRole.FieldRole)
                lab = layout.itemAt(row, QFormLayout.ItemRole.LabelRole)
                if field is not None and lab is not None and field.layout() is not None:
                    inner = field.layout()
                    for i in range(inner.count()):
                        if inner.itemAt(i).widget() is widget and isinstance(lab.widget(),
                                                                              QLabel):
                            return lab.widget().text()
        if parent.parentWidget() is None:
            break
        parent = parent.parentWidget()
    return ""


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    for stop in (". ", " (", ": "):
        if stop in text:
            text = text.split(stop)[0]
    return text[:80]


def suggested_name(widget: QWidget) -> str:
    """A name for a control from what a sighted person reads next to it."""
    label = _form_label(widget)
    if label:
        return label.replace("&", "")
    for attr in ("text", "placeholderText"):
        getter = getattr(widget, attr, None)
        if callable(getter) and not isinstance(widget, (QTextEdit, QPlainTextEdit)):
            try:
                text = getter()
            except TypeError:
                continue
            if text:
                return text.replace("&", "").split("\n")[0]
    if isinstance(widget, (QTextEdit, QPlainTextEdit)) and widget.placeholderText():
        return widget.placeholderText()
    if widget.toolTip():
        from PySide6.QtGui import QTextDocumentFragment

        return _first_sentence(QTextDocumentFragment.fromHtml(widget.toolTip()).toPlainText())
    return ""


CONTROLS = (QAbstractButton, QLineEdit, QComboBox, QAbstractSlider, QAbstractSpinBox,
            QAbstractItemView, QTabBar, QPlainTextEdit, QTextEdit)


def name_controls(root: QWidget) -> int:
    """Give every control under root without an accessible name the one it suggests; returns
    how many were named."""
    named = 0
    for widget in root.findChildren(QWidget):
        if not isinstance(widget, CONTROLS) or widget.accessibleName():
            continue
        name = suggested_name(widget)
        if name:
            widget.setAccessibleName(name)
            named += 1
    return named


class _MarksFocusing:
    """Marks ``focusing`` while focus arrives: the current row it changes is not a choice."""

    focusing = False

    def focusInEvent(self, event) -> None:
        self.focusing = True
        try:
            super().focusInEvent(event)
        finally:
            self.focusing = False


class QuietListView(_MarksFocusing, QListView):
    """A list whose current row, changed as focus arrives, is marked ``focusing`` (not a choice)."""


class QuietTableView(_MarksFocusing, QTableView):
    """A table whose current row, changed as focus arrives, is marked ``focusing``."""
