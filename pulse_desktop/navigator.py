"""The navigator: entities and events of the open memory, with search and filters by kind,
domain and belief class. It honours the timeline's brush (only events in the range, and the
entities those events name) and follows the shared selection."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QSize,
    Qt,
    QTimer,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.beliefs import BELIEF_CLASSES, DOMAINS
from pulse_desktop.session import MemorySession
from pulse_desktop.style import CLASS_COLORS, CLASS_NAMES, DOMAIN_COLORS, DOMAIN_NAMES

LIMIT = 20000  # rows per list; more is a search away
ID_ROLE = Qt.ItemDataRole.UserRole + 1
_ROOT = QModelIndex()


class ItemList(QAbstractListModel):
    """A flat, read-only list of (id, text, tooltip, colour) rows."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.items: list[tuple[int, str, str, str]] = []

    def set_items(self, items: list[tuple[int, str, str, str]]) -> None:
        self.beginResetModel()
        self.items = items
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.items)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        item_id, text, tip, colour = self.items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return text
        if role == Qt.ItemDataRole.ToolTipRole:
            return tip
        if role == Qt.ItemDataRole.DecorationRole:
            return QColor(colour)
        if role == ID_ROLE:
            return item_id
        return None

    def row_of(self, item_id: int) -> int | None:
        for i, item in enumerate(self.items):
            if item[0] == item_id:
                return i
        return None

    def ids(self) -> list[int]:
        return [item[0] for item in self.items]


class NavigatorView(QWidget):
    def __init__(self, session: MemorySession, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self._syncing = False

        self.search = QLineEdit(placeholderText="Search entities and events…")
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip("Words in a name, alias, title or description (Ctrl+F)")
        self.kind = QComboBox()
        self.kind.setToolTip("Show entities of one kind, or only events / only entities")
        self.domain = QComboBox()
        self.domain.setToolTip("Only rows in this domain")
        self.domain.addItem("All domains", None)
        for d in DOMAINS:
            self.domain.addItem(DOMAIN_NAMES[d], d)
        self.cls = QComboBox()
        self.cls.setToolTip("Only events (and entities with facts or events) of this belief class")
        self.cls.addItem("All classes", None)
        for c in BELIEF_CLASSES:
            self.cls.addItem(CLASS_NAMES[c], c)

        self.brush_label = QLabel()
        self.brush_label.setObjectName("brushChip")
        self.brush_clear = QToolButton(text="✕")
        self.brush_clear.setToolTip("Clear the time range (Esc on the timeline)")
        self.brush_clear.clicked.connect(lambda: self.session.set_brush(None, None))
        brush_row = QHBoxLayout()
        brush_row.setContentsMargins(0, 0, 0, 0)
        brush_row.addWidget(self.brush_label, 1)
        brush_row.addWidget(self.brush_clear)
        self.brush_box = QWidget()
        self.brush_box.setLayout(brush_row)
        self.brush_box.hide()

        self.entities = ItemList(self)
        self.events = ItemList(self)
        self.entity_view = self._list(self.entities, "entity")
        self.event_view = self._list(self.events, "event")
        self.entity_title = QLabel("Entities")
        self.entity_title.setObjectName("sectionTitle")
        self.event_title = QLabel("Events")
        self.event_title.setObjectName("sectionTitle")
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.entity_title)
        tl.addWidget(self.entity_view)
        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addWidget(self.event_title)
        bl.addWidget(self.event_view)
        self.entity_box, self.event_box = top, bottom
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setSizes([280, 420])
        split.setChildrenCollapsible(False)

        filters = QHBoxLayout()
        filters.setSpacing(4)
        filters.addWidget(self.kind, 1)
        filters.addWidget(self.domain, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 4, 8)
        layout.addWidget(self.search)
        layout.addLayout(filters)
        layout.addWidget(self.cls)
        layout.addWidget(self.brush_box)
        layout.addWidget(split, 1)

        self._timer = QTimer(self, singleShot=True, interval=150)
        self._timer.timeout.connect(self.refresh)
        self.search.textChanged.connect(lambda _t: self._timer.start())
        for box in (self.kind, self.domain, self.cls):
            box.currentIndexChanged.connect(lambda _i: self.refresh())
        session.opened.connect(self._on_opened)
        session.changed.connect(self._on_changed)
        session.brushed.connect(self._on_brush)
        session.selected.connect(self._on_selected)
        self._on_opened()

    def _list(self, model: ItemList, kind: str) -> QListView:
        view = QListView()
        view.setModel(model)
        view.setUniformItemSizes(True)
        view.setIconSize(QSize(10, 10))
        view.setAlternatingRowColors(False)
        view.selectionModel().currentChanged.connect(
            lambda current, _prev, k=kind: self._clicked(k, current))
        view.clicked.connect(lambda index, k=kind: self._clicked(k, index))
        return view

    # -- data --------------------------------------------------------------------------------
    def _on_opened(self) -> None:
        self.kind.blockSignals(True)
        self.kind.clear()
        self.kind.addItem("All kinds", None)
        self.kind.addItem("Events only", "event")
        self.kind.addItem("Entities only", "entity")
        memory = self.session.memory
        if memory is not None:
            for (k,) in memory.conn.execute("SELECT DISTINCT kind FROM entities ORDER BY kind"):
                self.kind.addItem(k.replace("_", " "), f"kind:{k}")
        self.kind.blockSignals(False)
        self._on_brush(*self.session.brush)

    def _on_changed(self, what: str) -> None:
        if what in ("all", "events", "entities", "beliefs"):
            self.refresh()

    def _on_brush(self, start, end) -> None:
        if start or end:
            self.brush_label.setText(f"{(start or '…')[:10]} → {(end or '…')[:10]}")
            self.brush_label.setToolTip("Only events in this time range (from the timeline)")
            self.brush_box.show()
        else:
            self.brush_box.hide()
        self.refresh()

    def refresh(self) -> None:
        memory = self.session.memory
        if memory is None:
            self.entities.set_items([])
            self.events.set_items([])
            self._titles()
            return
        conn = memory.conn
        kind = self.kind.currentData()
        domain = self.domain.currentData()
        cls = self.cls.currentData()
        start, end = self.session.brush
        words = [w for w in self.search.text().lower().split() if w]

        show_events = kind in (None, "event")
        show_entities = kind != "event"
        self.event_box.setVisible(show_events)
        self.entity_box.setVisible(show_entities)

        events: list[tuple[int, str, str, str]] = []
        if show_events:
            where, args = ["absorbed_into IS NULL"], []
            if domain:
                where.append("domain = ?")
                args.append(domain)
            if cls:
                where.append("belief_class = ?")
                args.append(cls)
            if start:
                where.append("ts >= ?")
                args.append(start)
            if end:
                where.append("ts <= ?")
                args.append(end)
            for w in words:
                where.append("(lower(title) LIKE ? OR lower(description) LIKE ? OR lower(key) LIKE ?)")
                args += [f"%{w}%"] * 3
            sql = ("SELECT id, key, title, ts, domain, belief_class, user_flag, archivable FROM events"
                   f" WHERE {' AND '.join(where)} ORDER BY ts, id LIMIT {LIMIT}")
            for r in conn.execute(sql, args):
                marks = " ⚓" if r["user_flag"] else ""
                text = f"{r['ts'][:10]}  {r['title']}{marks}"
                tip = (f"{r['title']}\n{r['key'] or ''} · {CLASS_NAMES.get(r['belief_class'])}"
                       f" · {DOMAIN_NAMES.get(r['domain'])}"
                       + (" · anchor" if r["user_flag"] else "")
                       + (" · pinned" if not r["archivable"] else ""))
                events.append((int(r["id"]), text, tip, CLASS_COLORS.get(r["belief_class"], "#888")))

        entities: list[tuple[int, str, str, str]] = []
        if show_entities:
            where, args = ["1 = 1"], []
            if kind and kind.startswith("kind:"):
                where.append("n.kind = ?")
                args.append(kind[5:])
            if domain:
                where.append("n.domain = ?")
                args.append(domain)
            if cls:
                where.append("(EXISTS (SELECT 1 FROM facts f WHERE f.entity_id = n.id AND"
                             " f.belief_class = ?) OR EXISTS (SELECT 1 FROM event_entities x"
                             " JOIN events e ON e.id = x.event_id WHERE x.entity_id = n.id AND"
                             " e.belief_class = ?))")
                args += [cls, cls]
            if start or end:
                where.append("EXISTS (SELECT 1 FROM event_entities x JOIN events e ON"
                             " e.id = x.event_id WHERE x.entity_id = n.id AND e.ts >= ? AND"
                             " e.ts <= ?)")
                args += [start or "", end or "9999"]
            for w in words:
                where.append("(lower(n.canonical_name) LIKE ? OR lower(n.aliases) LIKE ? OR"
                             " lower(n.description) LIKE ? OR lower(coalesce(n.key, '')) LIKE ?)")
                args += [f"%{w}%"] * 4
            sql = ("SELECT n.id, n.canonical_name, n.kind, n.domain, n.salience FROM entities n"
                   f" WHERE {' AND '.join(where)} ORDER BY n.salience DESC, n.canonical_name"
                   f" LIMIT {LIMIT}")
            for r in conn.execute(sql, args):
                tip = (f"{r['canonical_name']}\n{r['kind'].replace('_', ' ')} · "
                       f"{DOMAIN_NAMES.get(r['domain'])} · salience {r['salience']:.2f}")
                entities.append((int(r["id"]), r["canonical_name"], tip,
                                 DOMAIN_COLORS.get(r["domain"], "#888")))
        self.events.set_items(events)
        self.entities.set_items(entities)
        self._titles()
        if self.session.selection:
            self._on_selected(*self.session.selection)

    def _titles(self) -> None:
        self.entity_title.setText(f"Entities · {len(self.entities.items)}")
        self.event_title.setText(f"Events · {len(self.events.items)}")

    def shown_event_ids(self) -> list[int]:
        return self.events.ids() if self.event_box.isVisibleTo(self) else []

    def shown_entity_ids(self) -> list[int]:
        return self.entities.ids() if self.entity_box.isVisibleTo(self) else []

    # -- selection ---------------------------------------------------------------------------
    def _clicked(self, kind: str, current: QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        self._syncing = True
        try:
            self.session.select(kind, int(current.data(ID_ROLE)))
        finally:
            self._syncing = False

    def _on_selected(self, kind: str, item_id: int) -> None:
        if self._syncing:
            return
        self._syncing = True
        try:
            for k, model, view in (("entity", self.entities, self.entity_view),
                                   ("event", self.events, self.event_view)):
                row = model.row_of(item_id) if k == kind else None
                if row is None:
                    view.selectionModel().setCurrentIndex(
                        QModelIndex(), QItemSelectionModel.SelectionFlag.Clear)
                    continue
                index = model.index(row, 0)
                view.selectionModel().setCurrentIndex(
                    index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
                view.scrollTo(index)
        finally:
            self._syncing = False
