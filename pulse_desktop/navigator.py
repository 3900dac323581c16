"""The navigator: entities and events of the open memory, with search and filters by kind,
domain and belief class. Its filter is the session's: the graph, the timeline and the beliefs
table show what it shows. It honours the timeline's brush (only events in the range, and the
entities those events name) and follows the shared selection.

Both lists take multi-selections (Shift/Ctrl-click); the right-click menu acts on the selection:
class, domain, floor, archivable, pin and erase for events; kind, domain, merge and erase for
entities — each one undoable step, except erasure."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QSize,
    QStringListModel,
    Qt,
    QTimer,
)
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QMessageBox,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.beliefs import BELIEF_CLASSES, DOMAINS, ENTITY_KINDS
from core.errors import PulseError
from pulse_desktop.keyboard import QuietListView
from pulse_desktop.qt_roles import ACCESSIBLE, DECORATION, DISPLAY, EDIT, TOOLTIP, USER
from pulse_desktop.session import MemorySession
from pulse_desktop.style import (
    CLASS_COLORS,
    CLASS_LETTERS,
    CLASS_NAMES,
    DOMAIN_COLORS,
    DOMAIN_LETTERS,
    DOMAIN_NAMES,
    class_name,
    letter_icon,
)
from pulse_desktop.view_reads import ViewRead, chunks, memory_rows, paced

LIMIT = 20000  # rows per list; more is a search away
ID_ROLE = USER + 1
_ROLES_ANSWERED = frozenset({DISPLAY, DECORATION, TOOLTIP, ACCESSIBLE, ID_ROLE})
_LIST_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
_NO_FLAGS = Qt.ItemFlag.NoItemFlags
_ROOT = QModelIndex()


EVENT_ITEM_SQL = ("SELECT id, key, title, ts, domain, belief_class, user_flag, archivable"
                  " FROM events")


def event_item(r: Any) -> tuple[int, str, str, str]:
    """An event's row in the list: (id, text, tooltip, belief class)."""
    marks = " ⚓" if r["user_flag"] else ""
    text = f"{r['ts'][:10]}  {r['title']}{marks}"
    tip = (f"{text}\n{r['key'] or ''} · {class_name(r['belief_class'])}"
           f" · {DOMAIN_NAMES.get(r['domain'])}"
           + (" · anchor" if r["user_flag"] else "")
           + (" · pinned" if not r["archivable"] else ""))
    return (int(r["id"]), text, tip, r["belief_class"])


def read_items(memory: Any, wanted: dict[str, Any], cancel,
               send=None) -> tuple[list, list] | None:
    """The navigator's two lists (events by time, entities by salience; LIMIT each) as
    (id, text, tooltip, mark) rows; runs on the reader thread for a large memory (send(rows)
    after each chunk of events counts the progress)."""
    conn = memory.conn
    start, end = wanted["brush"]
    events: list[tuple[int, str, str, str]] = []
    if wanted["events"]:
        where, args = ["absorbed_into IS NULL"], []
        if start:
            where.append("ts >= ?")
            args.append(start)
        if end:
            where.append("ts <= ?")
            args.append(end)
        sql = f"{EVENT_ITEM_SQL} WHERE {' AND '.join(where)} ORDER BY ts, id"
        allowed = wanted["allowed_events"]
        for rows in chunks(conn.execute(sql, args), cancel):
            events += [event_item(r) for r in paced(rows) if allowed is None or r["id"] in allowed]
            if send is not None:
                send(rows)
            if len(events) >= LIMIT:
                del events[LIMIT:]
                break
    entities: list[tuple[int, str, str, str]] = []
    if wanted["entities"]:
        where, args = ["1 = 1"], []
        if start or end:
            where.append("EXISTS (SELECT 1 FROM event_entities x JOIN events e ON"
                         " e.id = x.event_id WHERE x.entity_id = n.id AND e.ts >= ? AND"
                         " e.ts <= ?)")
            args += [start or "", end or "9999"]
        sql = ("SELECT n.id, n.canonical_name, n.kind, n.domain, n.salience FROM entities n"
               f" WHERE {' AND '.join(where)} ORDER BY n.salience DESC, n.canonical_name")
        allowed = wanted["allowed_entities"]
        for rows in chunks(conn.execute(sql, args), cancel):
            entities += [entity_item(r) for r in paced(rows)
                         if allowed is None or r["id"] in allowed]
            if len(entities) >= LIMIT:
                del entities[LIMIT:]
                break
    return None if cancel.is_set() else (events, entities)


def entity_item(r: Any) -> tuple[int, str, str, str]:
    """An entity's row in the list: (id, name, tooltip, domain)."""
    tip = (f"{r['canonical_name']}\n{r['kind'].replace('_', ' ')} · "
           f"{DOMAIN_NAMES.get(r['domain'])} · salience {r['salience']:.2f}")
    return (int(r["id"]), r["canonical_name"], tip, r["domain"])


class ItemList(QStringListModel):
    """A flat, read-only list of (id, text, tooltip, mark) rows; the mark (a belief class for
    events, a domain for entities) is drawn as a coloured square with its letter in it, so it
    never rests on colour alone.

    A QStringListModel underneath holds the texts so that rowCount() and index() stay in C++:
    a list view lays out by asking index(row) of every row (for hidden rows), and with a
    Python rowCount() that was 20,000 Python calls — ~100 ms of the UI thread at 100k events —
    each time the list was laid out again (bench/desktop_responsiveness.py)."""

    def __init__(self, marks: dict[str, tuple[str, str, str]], parent=None) -> None:
        super().__init__(parent)
        self.items: list[tuple[int, str, str, str]] = []
        self._rows: dict[int, int] | None = None     # id → row, built on first use
        self.marks = marks            # mark → (letter, colour, name)
        self._icons: dict[str, QIcon] = {}

    def icon(self, mark: str) -> QIcon:
        if mark not in self._icons:
            letter, colour, _name = self.marks.get(mark, ("?", "#888888", mark))
            self._icons[mark] = letter_icon(letter, colour)
        return self._icons[mark]

    def set_items(self, items: list[tuple[int, str, str, str]]) -> None:
        self.items = items
        self._rows = None
        self.setStringList([item[1] for item in items])     # (one model reset)

    def set_item(self, row: int, item: tuple[int, str, str, str]) -> None:
        """Replace one row in place (no reset: the selection and scroll stay)."""
        if self.items[row] != item:
            self.items[row] = item
            index = self.index(row, 0)
            self.blockSignals(True)
            try:
                QStringListModel.setData(self, index, item[1], EDIT)
            finally:
                self.blockSignals(False)
            self.dataChanged.emit(index, index)

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        return _LIST_FLAGS if index.isValid() else _NO_FLAGS

    def setData(self, index, value, role: int = EDIT) -> bool:     # read-only
        return False

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = DISPLAY) -> Any:
        # roles as plain ints (pulse_desktop/qt_roles.py): this runs for every painted row
        if role not in _ROLES_ANSWERED or not index.isValid():
            return None
        item_id, text, tip, mark = self.items[index.row()]
        if role == DISPLAY:
            return text
        if role == DECORATION:
            return self.icon(mark)
        if role == TOOLTIP:
            return tip
        if role == ACCESSIBLE:
            return f"{self.marks.get(mark, ('', '', mark))[2]}: {text}"
        return item_id      # ID_ROLE

    def row_of(self, item_id: int) -> int | None:
        if self._rows is None:      # built once per fill: 20,000 rows are scanned only then
            self._rows = {item[0]: i for i, item in enumerate(self.items)}
        return self._rows.get(item_id)

    def ids(self) -> list[int]:
        return [item[0] for item in self.items]


class NavigatorView(QWidget):
    def __init__(self, session: MemorySession, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self._syncing = False

        self.search = QLineEdit(placeholderText="Search entities and events…")
        self.search.setClearButtonEnabled(True)
        # the hint is read whole whatever the other panels ask for (the clear button's room too)
        self.search.setMinimumWidth(
            self.search.fontMetrics().horizontalAdvance(self.search.placeholderText()) + 40)
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
        self.brush_label.setWordWrap(True)      # a narrow navigator: the end date goes below
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

        self.entities = ItemList({d: (DOMAIN_LETTERS[d], DOMAIN_COLORS[d], DOMAIN_NAMES[d])
                                  for d in DOMAINS}, self)
        self.events = ItemList({c: (CLASS_LETTERS[c], CLASS_COLORS[c], class_name(c))
                                for c in BELIEF_CLASSES}, self)
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

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 4, 8)
        layout.addWidget(self.search)
        layout.addWidget(self.kind)       # one per row: "Fiction · content" needs the width
        layout.addWidget(self.domain)
        layout.addWidget(self.cls)
        layout.addWidget(self.brush_box)
        layout.addWidget(split, 1)

        self.reads = ViewRead(session, "navigator", self)
        self._timer = QTimer(self, singleShot=True, interval=150)
        self._timer.timeout.connect(self.refresh)
        self.search.textChanged.connect(lambda _t: self._timer.start())
        for box in (self.kind, self.domain, self.cls):
            box.currentIndexChanged.connect(lambda _i: self.refresh())
        session.opened.connect(self._on_opened)
        session.changed.connect(self._on_changed)
        session.brushed.connect(self._on_brush)
        session.selected.connect(self._on_selected)
        session.filtered.connect(self._populate)
        self._on_opened()

    def _list(self, model: ItemList, kind: str) -> QListView:
        view = QuietListView()
        view.setModel(model)
        view.setAccessibleName("Entities" if kind == "entity" else "Events")
        view.setUniformItemSizes(True)
        # a long title ends in … (its whole text is the row's tooltip), no sideways scrolling
        view.setTextElideMode(Qt.TextElideMode.ElideRight)
        view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        view.setIconSize(QSize(14, 14))
        view.setAlternatingRowColors(False)
        view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        view.selectionModel().currentChanged.connect(
            lambda current, _prev, k=kind: self._clicked(k, current))
        view.clicked.connect(lambda index, k=kind: self._clicked(k, index))
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(
            lambda pos, k=kind, v=view: self._context_menu(k, v, pos))
        return view

    # -- bulk actions on a multi-selection -------------------------------------------------------
    def selected_ids(self, kind: str) -> list[int]:
        """The selected rows of one list, in list order (the current row first if selected)."""
        view = self.event_view if kind == "event" else self.entity_view
        rows = sorted(i.row() for i in view.selectionModel().selectedRows())
        ids = [int(view.model().index(r, 0).data(ID_ROLE)) for r in rows]
        current = view.currentIndex()
        if current.isValid() and int(current.data(ID_ROLE)) in ids:
            first = int(current.data(ID_ROLE))
            ids.remove(first)
            ids.insert(0, first)
        return ids

    def _context_menu(self, kind: str, view: QListView, pos) -> None:
        menu = self.event_menu() if kind == "event" else self.entity_menu()
        if menu is not None:
            menu.exec(view.viewport().mapToGlobal(pos))

    def _curate(self, fn):
        from pulse_desktop.curation import curator

        try:
            return fn(curator(self.session))
        except PulseError as exc:
            self._refused(str(exc))
            return None

    def _refused(self, text: str) -> None:
        self.session.message.emit(f"Not changed: {text}")
        QMessageBox.warning(self, "Not changed", text)

    def bulk_events(self, fields: dict[str, Any] | None, label: str, *, pin: bool = False) -> bool:
        ids = self.selected_ids("event")
        if not ids:
            return False
        errors = self._curate(lambda c: c.set_beliefs([("event", i) for i in ids], fields,
                                                      label, pin=pin))
        if errors:
            self._refused(errors[0])
            return False
        return errors is not None

    def bulk_entities(self, label: str, **fields: Any) -> bool:
        ids = self.selected_ids("entity")
        errors = self._curate(lambda c: c.set_entities(ids, label, **fields)) if ids else None
        if errors:
            self._refused(errors[0])
        return errors == []

    def erase_selected(self, kind: str):
        ids = self.selected_ids(kind)
        if not ids:
            return None
        conn = self.session.require().conn
        if kind == "entity" and len(ids) == 1:
            name = conn.execute("SELECT canonical_name FROM entities WHERE id = ?",
                                (ids[0],)).fetchone()[0]
            return self._curate(lambda c: c.erase([f"entity:{ids[0]}"], name, cascade=True,
                                                  parent=self))
        noun = {"event": "events", "entity": "entities"}[kind]
        title = f"{len(ids)} {noun}" if len(ids) > 1 else f"this {kind}"
        return self._curate(lambda c: c.erase([f"{kind}:{i}" for i in ids], title, parent=self))

    def event_menu(self) -> QMenu | None:
        ids = self.selected_ids("event")
        if not ids or self.session.read_only:
            return None
        menu = QMenu(self)
        n = len(ids)
        if n == 1:
            menu.addAction("Edit…", lambda: self._curate(lambda c: c.edit_event(ids[0], self)))
            menu.addAction("Link to another event…",
                           lambda: self._curate(lambda c: c.add_link(ids[0], self)))
        if n == 2:
            conn = self.session.require().conn
            a, b = sorted(ids, key=lambda i: conn.execute("SELECT ts FROM events WHERE id = ?",
                                                          (i,)).fetchone()[0])
            menu.addAction("Link the two (earlier → later)",
                           lambda: self._curate(lambda c: c.link(a, b)))
        menu.addSeparator()
        cls = menu.addMenu(f"Class ({n})")
        for c in BELIEF_CLASSES:
            cls.addAction(CLASS_NAMES[c], lambda c=c: self.bulk_events(
                {"belief_class": c}, f"Set class to {CLASS_NAMES[c]}"))
        dom = menu.addMenu(f"Domain ({n})")
        for d in DOMAINS:
            dom.addAction(DOMAIN_NAMES[d], lambda d=d: self.bulk_events(
                {"domain": d}, f"Move to {DOMAIN_NAMES[d]}"))
        menu.addAction(f"Floor… ({n})", lambda: self._curate(
            lambda c: c.floor([("event", i) for i in ids], self)))
        arch = menu.addMenu(f"Archivable ({n})")
        arch.addAction("Archivable", lambda: self.bulk_events({"archivable": 1},
                                                              "Set archivable on"))
        arch.addAction("Not archivable (pinned)", lambda: self.bulk_events(
            {"archivable": 0}, "Set archivable off"))
        menu.addAction(f"Pin as core wound ({n})", lambda: self.bulk_events(
            None, "Pin as core wound", pin=True))
        menu.addSeparator()
        menu.addAction(f"Erase {n} event{'s' if n > 1 else ''}…",
                       lambda: self.erase_selected("event"))
        return menu

    def entity_menu(self) -> QMenu | None:
        ids = self.selected_ids("entity")
        if not ids or self.session.read_only:
            return None
        menu = QMenu(self)
        n = len(ids)
        if n == 1:
            menu.addAction("Edit…", lambda: self._curate(lambda c: c.edit_entity(ids[0], self)))
            menu.addAction("Merge with…", lambda: self._curate(lambda c: c.merge(ids[0], self)))
            menu.addAction("Split an alias out…",
                           lambda: self._curate(lambda c: c.split_alias(ids[0], self)))
        if n == 2:
            menu.addAction("Merge the two…", lambda: self._curate(
                lambda c: c.merge(ids[0], self, other=ids[1])))
        menu.addSeparator()
        kinds = menu.addMenu(f"Kind ({n})")
        for k in ENTITY_KINDS:
            kinds.addAction(k.replace("_", " "), lambda k=k: self.bulk_entities(
                f"Set kind to {k.replace('_', ' ')}", kind=k))
        dom = menu.addMenu(f"Domain ({n})")
        for d in DOMAINS:
            dom.addAction(DOMAIN_NAMES[d], lambda d=d: self.bulk_entities(
                f"Move to {DOMAIN_NAMES[d]}", domain=d))
        menu.addSeparator()
        menu.addAction("Erase everything about them…" if n == 1 else f"Erase {n} entities…",
                       lambda: self.erase_selected("entity"))
        return menu

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
        self._show_brush(*self.session.brush)
        self.refresh()

    def _on_changed(self, what: str) -> None:
        if what in ("all", "events", "entities", "beliefs") and not self.session.item_filter:
            items = self.session.changed_items
            if what == "beliefs" and items is not None:
                self._update_events([i for k, i in items if k == "event"])
            else:
                self._populate()  # a filtered session re-emits `filtered`, which repopulates

    def _update_events(self, ids: list[int]) -> None:
        """Redraw these events' rows (their class, anchor, pinned) without re-reading the list:
        a belief edit changes no row's place in it (by time) unless a filter is on."""
        memory = self.session.memory
        wanted = set(ids)
        if memory is None or not wanted:
            return
        rows = {i: n for i in wanted if (n := self.events.row_of(i)) is not None}
        if not rows:
            return
        marks = ",".join("?" * len(rows))
        for r in memory.conn.execute(f"{EVENT_ITEM_SQL} WHERE id IN ({marks})", list(rows)):
            self.events.set_item(rows[int(r["id"])], event_item(r))

    def _on_brush(self, start, end) -> None:
        self._show_brush(start, end)
        self._populate()

    def _show_brush(self, start, end) -> None:
        if start or end:
            self.brush_label.setText(f"{(start or '…')[:10]} → {(end or '…')[:10]}")
            self.brush_label.setToolTip("Only events in this time range (from the timeline)")
            self.brush_box.show()
        else:
            self.brush_box.hide()

    def refresh(self) -> None:
        """Push the filter widgets to the session (every view follows), then fill the lists."""
        if self.session.memory is not None and self.session.set_filter(
                kind=self.kind.currentData(), domain=self.domain.currentData(),
                belief_class=self.cls.currentData(), text=self.search.text()):
            return                     # `filtered` has repopulated the lists
        self._populate()

    def _populate(self, *_args) -> None:
        """Fill both lists from the memory, the session's filter and the brush: read at once for
        a small memory, else on the reader thread (pulse_desktop/view_reads.py) — the lists
        keep what they show until the new rows are in."""
        memory = self.session.memory
        if memory is None:
            self.reads.cancel()
            self.entities.set_items([])
            self.events.set_items([])
            self._titles()
            return
        kind = self.kind.currentData()
        show_events = kind is None or kind == "event" or str(kind).startswith("kind:")
        show_entities = kind != "event"
        self.event_box.setVisible(show_events)
        self.entity_box.setVisible(show_entities)
        result = self.session.filter_result
        wanted = {"events": show_events, "entities": show_entities, "brush": self.session.brush,
                  "allowed_events": result["events"] if result else None,
                  "allowed_entities": result["entities"] if result else None}
        self.reads.start(lambda m, send, cancel: read_items(m, wanted, cancel, send), lambda _: None,
                         self._fill, total=min(memory_rows(memory, ("events",)), LIMIT))

    def _fill(self, lists: tuple[list, list] | None) -> None:
        if lists is None:           # (cancelled)
            return
        events, entities = lists
        kept = {k: self.selected_ids(k) for k in ("event", "entity")}
        self.events.set_items(events)
        self.entities.set_items(entities)
        self._titles()
        if self.session.selection:
            self._on_selected(*self.session.selection)
        self._reselect(kept)

    def _reselect(self, kept: dict[str, list[int]]) -> None:
        """A refresh (after a bulk edit, say) keeps the multi-selection that is still shown."""
        for kind, view, model in (("event", self.event_view, self.events),
                                  ("entity", self.entity_view, self.entities)):
            if len(kept[kind]) < 2:
                continue
            selection = view.selectionModel()
            for item in kept[kind]:
                row = model.row_of(item)
                if row is not None:
                    selection.select(model.index(row, 0),
                                     QItemSelectionModel.SelectionFlag.Select)

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
        view = self.event_view if kind == "event" else self.entity_view
        if view.focusing:
            return      # Tab into the list only moves the keyboard there: nothing is chosen yet
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
