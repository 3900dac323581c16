"""The Beliefs tab: a table of events and facts, inline edits through delegates, bulk edits on a
selection (class, domain, floor, flags, pin, erase), "Pin as core wound" (Ctrl+P), a Pinned
column and filter, and undo/redo (Ctrl+Z / Ctrl+Shift+Z). It shows what the navigator's filter
lets through. Every edit is a journaled core command; the store's invariants refuse what is not
allowed, and each dialog says the invariant before the user hits it."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QStyledItemDelegate,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.beliefs import BELIEF_CLASSES, CORE_WOUND_FLOOR, DOMAINS, PROVENANCES
from core.errors import PulseError
from pulse_desktop.beliefs_model import (
    COL_ARCHIVABLE,
    COL_CLASS,
    COL_DATE,
    COL_DOMAIN,
    COL_FLAG,
    COL_FLOOR,
    COL_KEY,
    COL_KIND,
    COL_PINNED,
    COL_PROVENANCE,
    COL_TITLE,
    ID_ROLE,
    BeliefsFilter,
    BeliefsModel,
    describe,
)
from pulse_desktop.session import MemorySession
from pulse_desktop.style import CLASS_NAMES, DOMAIN_NAMES


class ChoiceDelegate(QStyledItemDelegate):
    def __init__(self, choices: tuple[str, ...], names: dict[str, str] | None, parent=None) -> None:
        super().__init__(parent)
        self.choices = choices
        self.names = names or {}

    def createEditor(self, parent, option, index):
        box = QComboBox(parent)
        for value in self.choices:
            box.addItem(self.names.get(value, value.replace("_", " ")), value)
        return box

    def setEditorData(self, editor: QComboBox, index) -> None:
        value = index.data(Qt.ItemDataRole.EditRole)
        i = editor.findData(value)
        editor.setCurrentIndex(max(i, 0))

    def setModelData(self, editor: QComboBox, model, index) -> None:
        model.setData(index, editor.currentData(), Qt.ItemDataRole.EditRole)


class FloorDelegate(QStyledItemDelegate):
    def createEditor(self, parent, option, index):
        box = QDoubleSpinBox(parent)
        box.setRange(0.0, 1.0)
        box.setSingleStep(0.05)
        box.setDecimals(2)
        box.setToolTip("Confidence floor, 0..1. An axiom needs at least 0.5.")
        return box

    def setEditorData(self, editor: QDoubleSpinBox, index) -> None:
        editor.setValue(float(index.data(Qt.ItemDataRole.EditRole) or 0.0))

    def setModelData(self, editor: QDoubleSpinBox, model, index) -> None:
        editor.interpretText()
        model.setData(index, editor.value(), Qt.ItemDataRole.EditRole)


class BeliefsView(QWidget):
    def __init__(self, session: MemorySession, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self.model = BeliefsModel(session, self)
        self.proxy = BeliefsFilter(self)
        self.proxy.setSourceModel(self.model)
        self._syncing = False

        self.search = QLineEdit(placeholderText="Filter by key, title, class or domain…")
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(180)
        self.search.textChanged.connect(self.proxy.set_text)
        self.facts_box = QCheckBox("Show facts")
        self.facts_box.setChecked(True)
        self.facts_box.setToolTip("Show the facts about entities too (editable like events; "
                                  "they have no anchor and cannot be pinned).")
        self.facts_box.toggled.connect(self.proxy.set_show_facts)
        self.pinned_box = QCheckBox("Pinned only")
        self.pinned_box.setToolTip("Only rows that are not archivable (pinned), core wounds "
                                   "among them")
        self.pinned_box.toggled.connect(self.proxy.set_pinned_only)
        self.pinned_box.toggled.connect(self._update_count)
        self.count = QLabel()
        self.count.setObjectName("sectionTitle")

        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed
                                   | QAbstractItemView.EditTrigger.SelectedClicked)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(26)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        # the title keeps a readable width (the table scrolls sideways when the window is
        # narrow); Pinned sits with the other belief flags, Provenance last takes what is left
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.moveSection(header.visualIndex(COL_PINNED), header.visualIndex(COL_FLOOR) + 1)
        for col, width in ((COL_KIND, 44), (COL_KEY, 64), (COL_TITLE, 220), (COL_DATE, 84),
                           (COL_DOMAIN, 108), (COL_CLASS, 96), (COL_FLOOR, 48),
                           (COL_ARCHIVABLE, 90), (COL_FLAG, 62), (COL_PROVENANCE, 112),
                           (COL_PINNED, 90)):
            self.table.setColumnWidth(col, width)
        self.table.setItemDelegateForColumn(COL_CLASS, ChoiceDelegate(BELIEF_CLASSES, CLASS_NAMES, self))
        self.table.setItemDelegateForColumn(COL_DOMAIN, ChoiceDelegate(DOMAINS, DOMAIN_NAMES, self))
        self.table.setItemDelegateForColumn(COL_PROVENANCE, ChoiceDelegate(PROVENANCES, None, self))
        self.table.setItemDelegateForColumn(COL_FLOOR, FloorDelegate(self))
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.table.selectionModel().currentRowChanged.connect(self._current_changed)
        self.table.selectionModel().selectionChanged.connect(self._update_actions)

        # -- actions ---------------------------------------------------------------------------
        self.pin_action = QAction("Pin as core wound", self)
        self.pin_action.setIconText("Pin")
        self.pin_action.setShortcut(QKeySequence("Ctrl+P"))
        self.pin_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.pin_action.setToolTip(
            f"Pin the selected events as core wounds: class axiom, floor ≥ {CORE_WOUND_FLOOR}, "
            "non-archivable and anchored, so they never fade (Ctrl+P).")
        self.pin_action.triggered.connect(self.pin_selected)
        self.addAction(self.pin_action)
        # The shortcuts (Ctrl+Z / Ctrl+Shift+Z) live on the main window's Edit menu.
        self.undo_action = session.undo_stack.createUndoAction(self, "Undo")
        self.redo_action = session.undo_stack.createRedoAction(self, "Redo")

        self.class_menu = QMenu("Class", self)
        self.class_menu.setToolTipsVisible(True)
        for cls in BELIEF_CLASSES:
            act = self.class_menu.addAction(CLASS_NAMES[cls])
            if cls == "axiom":
                act.setToolTip(f"An axiom never decays, is never archivable and keeps a floor "
                               f"of at least 0.5: rows that break that are refused. Pin as core "
                               f"wound (Ctrl+P) sets it all at once (floor ≥ {CORE_WOUND_FLOOR}).")
            act.triggered.connect(lambda _=False, c=cls: self.bulk_set("belief_class", c))
        self.domain_menu = QMenu("Domain", self)
        for dom in DOMAINS:
            act = self.domain_menu.addAction(DOMAIN_NAMES[dom])
            act.triggered.connect(lambda _=False, d=dom: self.bulk_set("domain", d))
        self.flags_menu = QMenu("Flags", self)
        for text, field, value in (("Archivable", "archivable", 1),
                                   ("Not archivable (pinned)", "archivable", 0),
                                   ("Anchor (user flag) on", "user_flag", 1),
                                   ("Anchor (user flag) off", "user_flag", 0)):
            act = self.flags_menu.addAction(text)
            act.triggered.connect(lambda _=False, f=field, v=value: self.bulk_set(f, v))
        self.floor_action = QAction("Floor…", self)
        self.floor_action.setToolTip("Set the confidence floor of the selected rows (an axiom's "
                                     "floor stays ≥ 0.5).")
        self.floor_action.triggered.connect(self.bulk_floor)
        self.erase_action = QAction("Erase…", self)
        self.erase_action.setToolTip("Erase the selected rows everywhere, for good (a preview "
                                     "shows what goes first).")
        self.erase_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        self.erase_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.erase_action.triggered.connect(self.erase_selected)
        self.addAction(self.erase_action)

        bar = QHBoxLayout()
        bar.addWidget(self.search, 1)
        bar.addWidget(self.facts_box)
        bar.addWidget(self.pinned_box)
        edits = QHBoxLayout()
        label = QLabel("Selected:")
        label.setStyleSheet("color: #5b6678;")
        edits.addWidget(label)
        self.bulk_buttons: list[QToolButton] = []
        for menu, tip in ((self.class_menu, "Set the belief class of the selected rows"),
                          (self.domain_menu, "Move the selected rows to a domain"),
                          (self.flags_menu, "Set archivable (events and facts) / anchor (events)"
                                            " on the selected rows")):
            button = QToolButton(text=menu.title())
            button.setMenu(menu)
            button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
            button.setToolTip(tip)
            edits.addWidget(button)
            self.bulk_buttons.append(button)
        for i, action in enumerate((self.floor_action, self.pin_action, self.erase_action,
                                    self.undo_action, self.redo_action)):
            if i == 3:
                edits.addStretch(1)
            button = QToolButton()
            button.setDefaultAction(action)
            edits.addWidget(button)
            self.bulk_buttons.append(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(bar)
        layout.addLayout(edits)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count)

        self.model.refused.connect(self._refused)
        self.model.modelReset.connect(self._update_count)
        self.proxy.rowsInserted.connect(self._update_count)
        self.proxy.rowsRemoved.connect(self._update_count)
        self.proxy.layoutChanged.connect(self._update_count)
        session.selected.connect(self._on_selected)
        session.brushed.connect(self._on_brush)
        session.filtered.connect(self._on_filter)
        session.opened.connect(self._update_actions)
        session.opened.connect(lambda: self._on_filter(session.filter_result))
        self._update_count()
        self._update_actions()

    # -- selection ---------------------------------------------------------------------------
    def selected_events(self) -> list[int]:
        ids = []
        for index in self.table.selectionModel().selectedRows():
            kind, item_id = index.data(ID_ROLE)
            if kind == "event":
                ids.append(int(item_id))
        return ids

    def selected_items(self) -> list[tuple[str, int]]:
        """The selected rows as ("event" | "fact", id) pairs."""
        out = []
        for index in self.table.selectionModel().selectedRows():
            kind, item_id = index.data(ID_ROLE)
            out.append((str(kind), int(item_id)))
        return out

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        kind, item_id = current.data(ID_ROLE)
        self._syncing = True
        try:
            self.session.select(kind, int(item_id))
        finally:
            self._syncing = False

    def _on_selected(self, kind: str, item_id: int) -> None:
        if self._syncing or kind not in ("event", "fact"):
            return
        for row, r in enumerate(self.model.rows):
            if r["kind"] == kind and r["id"] == item_id:
                proxy_index = self.proxy.mapFromSource(self.model.index(row, COL_TITLE))
                if proxy_index.isValid():
                    self._syncing = True
                    try:
                        self.table.selectionModel().setCurrentIndex(
                            proxy_index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                            | QItemSelectionModel.SelectionFlag.Rows)
                        self.table.scrollTo(proxy_index)
                    finally:
                        self._syncing = False
                return

    def select_event(self, event_id: int) -> None:
        """Select one event's row (used by tests and the main window)."""
        self._on_selected("event", int(event_id))

    def _on_brush(self, start, end) -> None:
        self.proxy.set_brush(start, end)
        self._update_count()

    def _on_filter(self, result) -> None:
        self.proxy.set_allowed(result)
        self._update_count()

    def _update_count(self, *_args) -> None:
        shown = self.proxy.rowCount()
        total = self.model.rowCount()
        why = [w for w, on in (("time range from the timeline", self.proxy.brush != (None, None)),
                               ("the navigator's filter", self.proxy.allowed is not None),
                               ("pinned only", self.proxy.pinned_only)) if on]
        self.count.setText(f"{shown} of {total} rows" + "".join(f" · {w}" for w in why)
                           if shown != total or why else f"{total} rows")

    def _update_actions(self, *_args) -> None:
        writable = self.session.memory is not None and not self.session.read_only
        has_rows = bool(self.selected_items()) if writable else False
        self.pin_action.setEnabled(writable)
        self.floor_action.setEnabled(has_rows)
        self.erase_action.setEnabled(has_rows)
        for button in self.bulk_buttons[:3]:
            button.setEnabled(has_rows)

    # -- edits -------------------------------------------------------------------------------
    def _target_items(self) -> list[tuple[str, int]]:
        items = self.selected_items() if self.isVisible() else []
        if not items and self.session.selection and self.session.selection[0] in ("event", "fact"):
            items = [(self.session.selection[0], int(self.session.selection[1]))]
        return items

    def _targets(self) -> list[int]:
        """The selected events (ids); facts are left out."""
        return [i for k, i in self._target_items() if k == "event"]

    def pin_selected(self) -> bool:
        items = self._target_items()
        ids = [i for k, i in items if k == "event"]
        if not ids:
            if items:
                self._refused("Only events can be pinned as core wounds; a fact has no pin. "
                              "Set its class, floor and archivable in the table instead.")
            else:
                self._refused("Select one or more events to pin as core wounds.")
            return False
        skipped = len(items) - len(ids)
        label = "Pin as core wound" if len(ids) > 1 else f"Pin {self._label(ids[0])} as core wound"
        ok = self.model.edit_events(ids, None, label, pin=True)
        if ok and skipped:
            self.session.message.emit(
                f"{label}; {skipped} selected fact(s) left as they were (only events are pinned).")
        return ok

    def bulk_set(self, field: str, value) -> bool:
        items = self._target_items()
        if field == "user_flag":
            items = [(k, i) for k, i in items if k == "event"]
            if not items and self._target_items():
                self._refused("Facts have no anchor (user flag); only events do.")
                return False
        if not items:
            self._refused("Select one or more rows first.")
            return False
        label = f"Set {field.replace('_', ' ')} to {describe(field, value)}"
        return self.model.edit_items(items, {field: value}, label)

    def _curate(self, fn):
        from pulse_desktop.curation import curator

        try:
            return fn(curator(self.session))
        except PulseError as exc:
            self._refused(str(exc))
            return None

    def bulk_floor(self):
        """The floor dialog for the selection, starting at the current row's floor."""
        items = self._target_items()
        if not items:
            self._refused("Select one or more rows first.")
            return None
        current = self.table.currentIndex()
        if current.isValid():
            first = tuple(current.data(ID_ROLE))
            if first in items:
                items.remove(first)
                items.insert(0, first)
        return self._curate(lambda c: c.floor(items, self))

    def erase_selected(self):
        items = self._target_items()
        if not items:
            self._refused("Select one or more rows first.")
            return None
        if len(items) == 1:
            index = self.table.currentIndex()
            title = f"“{index.siblingAtColumn(COL_TITLE).data()[:60]}”" if index.isValid() \
                else f"{items[0][0]} {items[0][1]}"
        else:
            title = f"{len(items)} rows"
        return self._curate(lambda c: c.erase([f"{k}:{i}" for k, i in items], title,
                                              parent=self))

    def _label(self, event_id: int) -> str:
        row = self.model.event_row(event_id)
        if row is None:
            return str(event_id)
        r = self.model.row_at(row)
        return r["key"] or str(event_id)

    def _refused(self, text: str) -> None:
        self.session.message.emit(f"Not changed: {text}")
        QMessageBox.warning(self, "Change refused", text)

    def _context_menu(self, pos) -> None:
        menu = QMenu(self)
        menu.addAction(self.pin_action)
        menu.addSeparator()
        menu.addMenu(self.class_menu)
        menu.addAction(self.floor_action)
        menu.addMenu(self.domain_menu)
        menu.addMenu(self.flags_menu)
        menu.addSeparator()
        menu.addAction(self.erase_action)
        menu.addSeparator()
        menu.addAction(self.undo_action)
        menu.addAction(self.redo_action)
        menu.exec(self.table.viewport().mapToGlobal(pos))
