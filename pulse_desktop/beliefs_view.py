"""The Beliefs tab: a table of events and facts, inline edits through delegates, bulk edits on a
selection (class, domain, floor, flags, pin, erase), "Pin as core wound" (Ctrl+P), a Pinned
column and filter, and undo/redo (Ctrl+Z / Ctrl+Shift+Z). It shows what the navigator's filter
lets through. Every edit is a journaled core command; the store's invariants refuse what is not
allowed, and each dialog says the invariant before the user hits it."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, Qt
from PySide6.QtGui import QAction, QFont, QFontMetrics, QKeySequence
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
    COL_FLOOR,
    COL_KEY,
    COL_KIND,
    COL_PINNED,
    COL_PROVENANCE,
    COL_TITLE,
    HEADERS,
    ID_ROLE,
    BeliefsFilter,
    BeliefsModel,
    describe,
)
from pulse_desktop.flow_layout import flow_row
from pulse_desktop.keyboard import QuietTableView
from pulse_desktop.session import MemorySession
from pulse_desktop.style import CLASS_NAMES, DOMAIN_NAMES
from pulse_desktop.table_fit import header_width

OPTIONAL_COLUMNS = (COL_KIND, COL_KEY, COL_PROVENANCE)   # step aside on a narrow view
TITLE_MIN = 150
SQUEEZE_MIN = 56
# the longest value a column shows (the Key of a fact is a name: it elides, tooltip has it)
SAMPLES = {COL_KIND: "event", COL_KEY: "e0000", COL_DATE: "2026-12-31",
           COL_DOMAIN: DOMAIN_NAMES["fiction_content"], COL_CLASS: CLASS_NAMES["axiom"],
           COL_FLOOR: "0.85", COL_PROVENANCE: "interactive memory"}


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
        self._syncing_columns = False

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

        self.table = QuietTableView()
        self.table.setAccessibleName("Beliefs")
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
        self.table.viewport().installEventFilter(self)
        header = self.table.horizontalHeader()
        # Columns fit the view (fit_columns): the title takes what is left; on a narrow
        # window Key, Kind and Provenance step aside (Columns ▾ brings them back) and the
        # Archivable bit shows as the Pinned tick (they are one bit, said two ways).
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionsMovable(True)
        header.moveSection(header.visualIndex(COL_PINNED), header.visualIndex(COL_FLOOR) + 1)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(
            lambda pos: self.columns_menu.exec(header.mapToGlobal(pos)))
        self.table.setColumnHidden(COL_ARCHIVABLE, True)
        self.chosen_columns: set[int] | None = None     # the user's own choice, once made
        self.table.setItemDelegateForColumn(COL_CLASS, ChoiceDelegate(BELIEF_CLASSES, CLASS_NAMES, self))
        self.table.setItemDelegateForColumn(COL_DOMAIN, ChoiceDelegate(DOMAINS, DOMAIN_NAMES, self))
        self.table.setItemDelegateForColumn(COL_PROVENANCE, ChoiceDelegate(PROVENANCES, None, self))
        self.table.setItemDelegateForColumn(COL_FLOOR, FloorDelegate(self))
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.table.selectionModel().currentRowChanged.connect(self._current_changed)
        # a click on the row the keyboard arrived on changes no current row: it still chooses
        self.table.clicked.connect(lambda index: self._current_changed(index, index))
        self.table.selectionModel().selectionChanged.connect(self._update_actions)

        # -- actions ---------------------------------------------------------------------------
        self.pin_action = QAction("Pin as core wound", self)
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
        for text, field, value in (("Pinned (never archived)", "archivable", 0),
                                   ("Not pinned (may be archived)", "archivable", 1),
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

        self.columns_menu = QMenu("Columns", self)
        for col in OPTIONAL_COLUMNS:
            act = self.columns_menu.addAction(HEADERS[col])
            act.setCheckable(True)
            act.setData(col)
            act.toggled.connect(lambda on, c=col: self._choose_column(c, on))
        self.columns_menu.aboutToShow.connect(self._sync_columns_menu)
        self.columns_button = QToolButton(text="Columns")
        self.columns_button.setMenu(self.columns_menu)
        self.columns_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.columns_button.setToolTip("Show or hide the Key, Kind and Provenance columns")

        bar = QHBoxLayout()
        bar.addWidget(self.search, 1)
        bar.addWidget(self.facts_box)
        bar.addWidget(self.pinned_box)
        bar.addWidget(self.columns_button)
        edit_widgets: list[QWidget | None] = []
        self.bulk_buttons: list[QToolButton] = []
        for menu, tip in ((self.class_menu, "Set the belief class of the selected rows"),
                          (self.domain_menu, "Move the selected rows to a domain"),
                          (self.flags_menu, "Set pinned (events and facts) / anchor (events)"
                                            " on the selected rows")):
            button = QToolButton(text=menu.title())
            button.setMenu(menu)
            button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
            button.setToolTip(tip)
            edit_widgets.append(button)
            self.bulk_buttons.append(button)
        for action in (self.floor_action, self.pin_action, self.erase_action):
            button = QToolButton()
            button.setDefaultAction(action)
            edit_widgets.append(button)
            self.bulk_buttons.append(button)
        edit_widgets.append(None)
        # Undo / Redo keep a short label; what they would undo is in the tooltip
        self.undo_button = QToolButton(text="Undo")
        self.undo_button.clicked.connect(self.session.undo_stack.undo)
        self.redo_button = QToolButton(text="Redo")
        self.redo_button.clicked.connect(self.session.undo_stack.redo)
        edit_widgets += [self.undo_button, self.redo_button]
        self.bulk_buttons += [self.undo_button, self.redo_button]
        stack = self.session.undo_stack
        stack.canUndoChanged.connect(lambda _on: self._sync_undo())
        stack.canRedoChanged.connect(lambda _on: self._sync_undo())
        stack.indexChanged.connect(lambda _i: self._sync_undo())
        self._sync_undo()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(bar)
        layout.addWidget(flow_row(*edit_widgets))
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count)

        self.model.refused.connect(self._refused)
        # a row selected elsewhere while the rows were still being read is selected once in
        self.model.loaded.connect(lambda: self.session.selection
                                  and self._on_selected(*self.session.selection))
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

    def focus_target(self):
        return self.table

    # -- columns -----------------------------------------------------------------------------
    def _natural_width(self, col: int) -> int:
        """What a column needs: its header, and its longest kind of value."""
        bold = QFont(self.table.horizontalHeader().font())
        bold.setBold(True)
        need = QFontMetrics(bold).horizontalAdvance(HEADERS[col]) + 18
        sample = SAMPLES.get(col)
        if sample:
            font = QFont(self.table.font())
            font.setBold(col == COL_CLASS)          # a core wound's class is written bold
            need = max(need, QFontMetrics(font).horizontalAdvance(sample) + 14)
        if col in (COL_PINNED,):
            need += 22                      # the tick box
        return need

    def fit_columns(self) -> None:
        """Size the columns to the view: the title takes what is left (never less than
        TITLE_MIN); on a narrow view the optional columns step aside, unless chosen."""
        available = self.table.viewport().width()
        if available <= 0:
            return
        hidden = {COL_ARCHIVABLE}
        shown = [c for c in range(len(HEADERS)) if c not in hidden]
        natural = {c: self._natural_width(c) for c in shown if c != COL_TITLE}
        if self.chosen_columns is not None:
            hidden |= {c for c in OPTIONAL_COLUMNS if c not in self.chosen_columns}
        elif sum(natural.values()) + TITLE_MIN > available:
            hidden |= set(OPTIONAL_COLUMNS)
        for col in range(len(HEADERS)):
            self.table.setColumnHidden(col, col in hidden)
        widths = {c: w for c, w in natural.items() if c not in hidden}
        rest = available - sum(widths.values())
        if rest < TITLE_MIN:          # still too narrow: squeeze the widest (they elide,
            for col in sorted(widths, key=lambda c: -widths[c]):     # the tooltip has all)
                floor = max(SQUEEZE_MIN, header_width(self.table, col))   # a whole header
                cut = min(TITLE_MIN - rest, max(0, widths[col] - floor))
                widths[col] -= cut
                rest += cut
                if rest >= TITLE_MIN:
                    break
        for col, width in widths.items():
            self.table.setColumnWidth(col, width)
        self.table.setColumnWidth(COL_TITLE, max(TITLE_MIN, rest))

    def _choose_column(self, col: int, on: bool) -> None:
        if self._syncing_columns:
            return
        chosen = {c for c in OPTIONAL_COLUMNS if not self.table.isColumnHidden(c)}
        chosen = (chosen | {col}) if on else (chosen - {col})
        self.chosen_columns = chosen
        self.fit_columns()

    def _sync_columns_menu(self) -> None:
        self._syncing_columns = True
        try:
            for act in self.columns_menu.actions():
                act.setChecked(not self.table.isColumnHidden(int(act.data())))
        finally:
            self._syncing_columns = False

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def eventFilter(self, watched, event) -> bool:
        # the viewport narrows when the scroll bar appears (rows read in after the window
        # showed, pulse_desktop/view_reads.py): the columns fit again
        if event.type() == QEvent.Type.Resize and watched is self.table.viewport():
            self.fit_columns()
        return False

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.fit_columns()

    def _sync_undo(self) -> None:
        stack = self.session.undo_stack
        if not (shiboken6.isValid(stack) and shiboken6.isValid(self.undo_button)):
            return      # the window is closing: the stack says it emptied as it goes
        writable = self.session.memory is not None and not self.session.read_only
        self.undo_button.setEnabled(stack.canUndo() and writable)
        self.redo_button.setEnabled(stack.canRedo() and writable)
        self.undo_button.setToolTip(f"{stack.undoText() or 'Nothing to undo'} (Ctrl+Z)"
                                    if stack.canUndo() else "Nothing to undo")
        self.redo_button.setToolTip(f"{stack.redoText() or 'Nothing to redo'} (Ctrl+Shift+Z)"
                                    if stack.canRedo() else "Nothing to redo")

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
        if self._syncing or not current.isValid() or self.table.focusing \
                or self.proxy.refiltering:
            return      # (Ctrl+3 or Tab into the table, or a filter, only moves the row)
        kind, item_id = current.data(ID_ROLE)
        self._syncing = True
        try:
            self.session.select(kind, int(item_id))
        finally:
            self._syncing = False

    def _on_selected(self, kind: str, item_id: int) -> None:
        if self._syncing or kind not in ("event", "fact"):
            return
        row = self.model.event_row(item_id) if kind == "event" else self.model.fact_row(item_id)
        if row is None:
            return
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
        self._sync_undo()

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
