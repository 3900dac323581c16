"""The Beliefs table: a Qt model over events and facts, both editable (facts have no anchor /
user flag; only events can be pinned as core wounds).

Edits never touch SQLite directly: ``setData`` turns into an undoable core command
(pulse_desktop.undo_commands), and the store's invariants decide. A refusal leaves the row as
it was and is reported through the ``refused`` signal.

At 100k rows the UI thread neither writes nor re-reads the table for an edit: the write runs on
the writer thread (pulse_desktop/write_thread.py), and a change that names its rows
(``session.changed_items``) re-reads only those (bench/desktop_responsiveness.py measures it).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont

from core.beliefs import BELIEF_CLASSES, DOMAINS, PROVENANCES
from pulse_desktop.qt_roles import (
    ACCESSIBLE,
    ALIGN_RIGHT,
    ALIGNMENT,
    CHECK_STATE,
    CHECKED,
    DISPLAY,
    EDIT,
    FONT,
    FOREGROUND,
    TOOLTIP,
    UNCHECKED,
    USER,
    brush,
)
from pulse_desktop.session import MemorySession
from pulse_desktop.style import CLASS_COLORS, CLASS_NAMES, DOMAIN_COLORS, DOMAIN_NAMES
from pulse_desktop.view_reads import ViewRead, chunks, memory_rows
from pulse_desktop.write_thread import write_beliefs

COL_KIND, COL_KEY, COL_TITLE, COL_DATE, COL_DOMAIN, COL_CLASS, COL_FLOOR, COL_ARCHIVABLE, \
    COL_FLAG, COL_PROVENANCE, COL_PINNED = range(11)
HEADERS = ["Kind", "Key", "Title / text", "Date", "Domain", "Class", "Floor", "Archivable",
           "Anchor", "Provenance", "Pinned"]
TOOLTIPS = [
    "Event or fact (a fact has no date and no anchor).",
    "The external key (e001…) or, for a fact, its entity.",
    "What happened, or the fact's text.",
    "When the event happened (UTC).",
    "Real life, fiction content, fiction meta or authorial: retrieval can be limited to domains.",
    "Belief class: how fast the memory decays (axioms never decay; hypotheses fade fastest).",
    "Confidence floor (0..1): recency never falls below it. An axiom needs ≥ 0.5.",
    "Archivable: may fade out and be archived. An axiom must be non-archivable (pinned).",
    "Anchor (user flag): a structural memory; it decays at most 0.001/day and gets a small boost.",
    "Where the belief came from.",
    "Pinned: never archived, so no clean-up ever touches it (tick or untick it). A core wound "
    "is a pinned axiom anchor with a floor of at least 0.85 (Pin as core wound, Ctrl+P).",
]
FIELD_OF = {COL_DOMAIN: "domain", COL_CLASS: "belief_class", COL_FLOOR: "confidence_floor",
            COL_ARCHIVABLE: "archivable", COL_FLAG: "user_flag", COL_PROVENANCE: "provenance"}
CHOICES = {COL_DOMAIN: DOMAINS, COL_CLASS: BELIEF_CLASSES, COL_PROVENANCE: PROVENANCES}
_ROOT = QModelIndex()
SORT_ROLE = USER + 1
ID_ROLE = USER + 2     # ("event" | "fact", id)
TS_ROLE = USER + 3
_ROLES_ANSWERED = frozenset({DISPLAY, EDIT, TOOLTIP, FONT, ALIGNMENT, FOREGROUND, CHECK_STATE,
                             ACCESSIBLE, SORT_ROLE, ID_ROLE, TS_ROLE})
_NO_FLAGS = Qt.ItemFlag.NoItemFlags
_FONTS: dict[str, QFont] = {}


def _font(kind: str) -> QFont:
    """"italic" or "bold", made once (a QFont can be made only once the app exists)."""
    font = _FONTS.get(kind)
    if font is None:
        font = _FONTS[kind] = QFont()
        font.setItalic(kind == "italic")
        font.setBold(kind == "bold")
    return font

EVENT_SQL = ("SELECT 'event' AS kind, id, key, title, ts, domain, belief_class, confidence_floor,"
             " archivable, user_flag, provenance FROM events WHERE absorbed_into IS NULL"
             " ORDER BY ts, id")
FACT_SQL = ("SELECT 'fact' AS kind, f.id, n.canonical_name AS key, f.text AS title, '' AS ts,"
            " f.domain, f.belief_class, f.confidence_floor, f.archivable, NULL AS user_flag,"
            " f.provenance FROM facts f JOIN entities n ON n.id = f.entity_id ORDER BY f.id")
BELIEF_SQL = ("SELECT id, domain, belief_class, confidence_floor, archivable, user_flag,"
              " provenance FROM events")
FACT_BELIEF_SQL = ("SELECT id, domain, belief_class, confidence_floor, archivable,"
                   " provenance FROM facts")


class BeliefsModel(QAbstractTableModel):
    refused = Signal(str)      # one clear line: why the edit was not made
    edited = Signal(bool)      # an edit finished on the writer thread: written, or refused
    loaded = Signal()          # every row of the memory is in (after a reload)

    def __init__(self, session: MemorySession, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self.pending = 0           # edits on their way through the writer thread
        # sqlite3.Row as read (built in C on the reader thread); a row an edit re-read is a dict
        self.rows: list[Any] = []
        self._event_row: dict[int, int] = {}
        self._fact_row: dict[int, int] = {}
        self._flags: dict[tuple[str, int, bool], Qt.ItemFlag] = {}
        self.loading = False
        self._fresh = False        # the next chunk read replaces the rows (a reload)
        self._touched: set[tuple[str, int]] = set()    # edited while a reload was reading
        self.reads = ViewRead(session, "beliefs", self)
        session.opened.connect(self.reload)
        session.changed.connect(self._on_changed)
        self.reload()

    # -- loading -------------------------------------------------------------------------------
    def reload(self) -> None:
        """Read every row again: at once for a small memory, else on the reader thread, in
        chunks — the table fills in as they arrive (`loading` until `loaded`); the rows shown
        before stay until the first chunk replaces them."""
        memory = self.session.memory
        if memory is None:
            self.reads.cancel()
            self.loading = False
            self._replace([])
            self.loaded.emit()
            return
        self.loading, self._fresh = True, True
        self._touched.clear()
        self.reads.start(read_belief_rows, self._add_chunk, self._load_done,
                         total=memory_rows(memory), size=lambda chunk: len(chunk[1]),
                         on_failed=lambda _text: self._load_done())   # (said in the status bar)

    def _replace(self, rows: list[Any]) -> None:
        self.beginResetModel()
        self.rows, self._event_row, self._fact_row = [], {}, {}
        self._append(rows)
        self.endResetModel()

    def _append(self, chunk) -> None:
        kind, rows = chunk if isinstance(chunk, tuple) else ("", chunk)
        start = len(self.rows)
        self.rows.extend(rows)
        if rows and not kind:
            kind = rows[0]["kind"]
        where = self._event_row if kind == "event" else self._fact_row
        where.update(zip([r[1] for r in rows], range(start, start + len(rows))))

    def _add_chunk(self, chunk: tuple[str, list[Any]]) -> None:
        if self._fresh:
            self._fresh = False
            self._replace(chunk)
            return
        start, n = len(self.rows), len(chunk[1])
        self.beginInsertRows(_ROOT, start, start + n - 1)
        self._append(chunk)
        self.endInsertRows()

    def _load_done(self, _result: Any = None) -> None:
        if self._fresh:                 # nothing was read: the memory has no rows
            self._fresh = False
            self._replace([])
        self.loading = False
        if self._touched:               # edited while their rows may have been read before it
            touched, self._touched = sorted(self._touched), set()
            self.refresh_items(touched)
        self.loaded.emit()

    def refresh_beliefs(self) -> None:
        """Re-read only the belief columns and signal the rows that moved (keeps selection)."""
        memory = self.session.memory
        if memory is None:
            return
        for sql, where in ((BELIEF_SQL, self._event_row), (FACT_BELIEF_SQL, self._fact_row)):
            for r in memory.conn.execute(sql):
                i = where.get(r["id"])
                if i is not None:
                    self._update_row(i, r)

    def refresh_items(self, items: list[tuple[str, int]]) -> None:
        """Re-read the belief columns of these rows only (what an edit touched)."""
        memory = self.session.memory
        if memory is None:
            return
        if self.loading:
            self._touched.update((str(k), int(i)) for k, i in items)
        for kind, sql, where in (("event", BELIEF_SQL, self._event_row),
                                 ("fact", FACT_BELIEF_SQL, self._fact_row)):
            ids = sorted({int(i) for k, i in items if k == kind and int(i) in where})
            for lo in range(0, len(ids), 500):
                chunk = ids[lo:lo + 500]
                marks = ",".join("?" * len(chunk))
                for r in memory.conn.execute(f"{sql} WHERE id IN ({marks})", chunk):
                    self._update_row(where[r["id"]], r)

    def _update_row(self, i: int, fresh: Any) -> None:
        """Put a re-read row's belief columns in, and redraw that row alone if they moved:
        dataChanged over its belief columns (the filter proxy re-checks that one row)."""
        row = self.rows[i]
        fresh = dict(fresh)
        if any(row[k] != fresh[k] for k in fresh):
            self.rows[i] = {**dict(row), **fresh}
            self.dataChanged.emit(self.index(i, COL_DOMAIN), self.index(i, COL_PINNED))

    def _on_changed(self, what: str) -> None:
        if what == "beliefs" and self.session.changed_items is not None:
            self.refresh_items(self.session.changed_items)
        elif what == "beliefs" and not self.loading:
            self.refresh_beliefs()
        elif what in ("all", "events", "entities", "beliefs"):
            self.reload()

    # -- reading -------------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal:
            if role == Qt.ItemDataRole.DisplayRole:
                return HEADERS[section]
            if role == Qt.ItemDataRole.ToolTipRole:
                return TOOLTIPS[section]
        return None

    def event_row(self, event_id: int) -> int | None:
        return self._event_row.get(int(event_id))

    def fact_row(self, fact_id: int) -> int | None:
        return self._fact_row.get(int(fact_id))

    def row_at(self, row: int) -> dict[str, Any]:
        return self.rows[row]

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = DISPLAY):
        # Runs for every role of every painted cell: roles are compared as plain ints
        # (pulse_desktop/qt_roles.py), and brushes and fonts are made once. (Answering the
        # seven roles a delegate asks in one multiData call was measured slower, not faster:
        # a repaint's time is Qt's painting, docs/benchmarks.md.)
        if role not in _ROLES_ANSWERED or not index.isValid():
            return None
        return self._value(self.rows[index.row()], index.column(), role)

    def _value(self, row: Any, col: int, role: int) -> Any:
        if role == DISPLAY:
            return self._display(row, col)
        is_event = row["kind"] == "event"
        if role == FOREGROUND:
            if col == COL_CLASS:
                return brush(CLASS_COLORS.get(row["belief_class"], "#1f2733"))
            if col == COL_DOMAIN:
                return brush(DOMAIN_COLORS.get(row["domain"], "#1f2733"))
            return None if is_event else brush("#6b7585")
        if role == CHECK_STATE:
            if col == COL_PINNED:
                return UNCHECKED if row["archivable"] else CHECKED
            if col in (COL_ARCHIVABLE, COL_FLAG):
                value = row[FIELD_OF[col]]
                if value is None:
                    return None
                return CHECKED if value else UNCHECKED
            return None
        if role == FONT:
            if not is_event and col == COL_TITLE:
                return _font("italic")      # facts read differently from events
            if col == COL_CLASS and row["belief_class"] == "axiom":
                return _font("bold")
            return None
        if role == ALIGNMENT:
            return ALIGN_RIGHT if col == COL_FLOOR else None
        if role == ID_ROLE:
            return (row["kind"], row["id"])
        if role == TS_ROLE:
            return row["ts"]
        if role == EDIT:
            field = FIELD_OF.get(col)
            return row[field] if field else self._display(row, col)
        if role == SORT_ROLE:
            field = FIELD_OF.get(col)
            if field:
                value = row[field]
                return -1 if value is None else value
            return {COL_KIND: row["kind"], COL_KEY: row["key"] or "", COL_TITLE: row["title"],
                    COL_DATE: row["ts"] or "", COL_PINNED: pinned_rank(row)}.get(col)
        if role == TOOLTIP:
            if not is_event and col == COL_FLAG:
                return "Facts have no anchor (user flag); only events do."
            if col == COL_TITLE:
                return row["title"]
            if col == COL_PINNED:
                shown = pinned_words(row)
            else:
                shown = self._display(row, col)
            return f"{shown}\n\n{TOOLTIPS[col]}" if shown else TOOLTIPS[col]
        if role == ACCESSIBLE and col == COL_PINNED:
            return pinned_words(row)
        return None

    @staticmethod
    def _display(row: dict[str, Any], col: int) -> Any:
        if col == COL_KIND:
            return row["kind"]
        if col == COL_KEY:
            return row["key"] or ""
        if col == COL_TITLE:
            return row["title"]
        if col == COL_DATE:
            return (row["ts"] or "")[:10]
        if col == COL_DOMAIN:
            return DOMAIN_NAMES.get(row["domain"], row["domain"])
        if col == COL_CLASS:
            return CLASS_NAMES.get(row["belief_class"], row["belief_class"])
        if col == COL_FLOOR:
            return f"{float(row['confidence_floor']):.2f}"
        if col == COL_PROVENANCE:
            return (row["provenance"] or "").replace("_", " ")
        return None  # the flags (and Pinned) show as tick boxes

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return _NO_FLAGS
        key = (self.rows[index.row()]["kind"], index.column(), self.session.read_only)
        flags = self._flags.get(key)
        if flags is None:       # (asked for every painted cell: made once per kind of cell)
            flags = self._flags[key] = self._make_flags(*key)
        return flags

    @staticmethod
    def _make_flags(kind: str, col: int, read_only: bool) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if read_only:
            return base
        if kind != "event" and col == COL_FLAG:
            return base
        if col in (COL_ARCHIVABLE, COL_FLAG, COL_PINNED):
            return base | Qt.ItemFlag.ItemIsUserCheckable
        if col in FIELD_OF:
            return base | Qt.ItemFlag.ItemIsEditable
        return base

    # -- editing -------------------------------------------------------------------------------
    def setData(self, index: QModelIndex | QPersistentModelIndex, value: Any,
                role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid():
            return False
        col = index.column()
        field = FIELD_OF.get(col)
        row = self.rows[index.row()]
        if col == COL_PINNED and role == Qt.ItemDataRole.CheckStateRole:
            # the Pinned tick is "not archivable": one bit, said the way a person says it
            pinned = coerce("archivable", value)
            return self.setData(self.index(index.row(), COL_ARCHIVABLE), 0 if pinned else 1,
                                Qt.ItemDataRole.EditRole)
        if field is None or role not in (Qt.ItemDataRole.EditRole, Qt.ItemDataRole.CheckStateRole):
            return False
        if row["kind"] != "event" and field == "user_flag":
            self.refused.emit("Facts have no anchor (user flag); only events do.")
            return False
        if self.session.read_only:
            self.refused.emit(self.session.read_only_reason or "This memory is open read-only.")
            return False
        try:
            new = coerce(field, value)
        except ValueError as exc:
            self.refused.emit(str(exc))
            return False
        if new == row[field]:
            return False
        if row["kind"] == "fact":
            name = f"fact {row['id']} ({row['key']})" if row["key"] else f"fact {row['id']}"
        else:
            name = row["key"] or row["id"]
        label = f"Set {HEADERS[col].lower()} of {name} to {describe(field, new)}"
        return self.edit_items([(row["kind"], row["id"])], {field: new}, label)

    def edit_events(self, event_ids: list[int], fields: dict[str, Any] | None, label: str, *,
                    pin: bool = False) -> bool:
        """One undoable edit over several events (see edit_items)."""
        return self.edit_items([("event", int(i)) for i in event_ids], fields, label, pin=pin)

    def edit_items(self, items: list[tuple[str, int]], fields: dict[str, Any] | None, label: str,
                   *, pin: bool = False) -> bool:
        """One undoable edit over several events and/or facts ((kind, id) pairs), written on the
        writer thread: True when it was sent (`edited` says how it ended; a refusal emits
        `refused` and leaves the rows as they were), False when refused at once (read-only)."""
        def finished(ok: bool) -> None:
            self.pending -= 1
            self.edited.emit(ok)

        def failed(text: str) -> None:
            self.refused.emit(text)
            self.refresh_items(items)       # the rows show what the store holds
            finished(False)

        self.pending += 1
        sent = write_beliefs(self.session, items, fields, label, pin=pin,
                             refused_now=self.refused.emit, on_done=lambda: finished(True),
                             on_failed=failed)
        if not sent:
            self.pending -= 1
        return sent


def pinned_words(row: dict[str, Any]) -> str:
    """'not pinned', 'pinned' or 'core wound' (a pinned axiom anchor)."""
    return ("not pinned", "pinned", "core wound")[pinned_rank(row)]


def pinned_rank(row: dict[str, Any]) -> int:
    """0 not pinned, 1 pinned (not archivable), 2 a core wound (a pinned axiom anchor)."""
    if row["archivable"]:
        return 0
    return 2 if row["belief_class"] == "axiom" and row["user_flag"] else 1


def coerce(field: str, value: Any) -> Any:
    """A value from a delegate or a check box, as the store wants it; ValueError if it can't be."""
    if field in ("archivable", "user_flag"):
        if isinstance(value, Qt.CheckState):
            return 1 if value == Qt.CheckState.Checked else 0
        if isinstance(value, int) and value in (0, 2) and not isinstance(value, bool):
            return 1 if value == 2 else 0  # Qt.Checked as a plain int
        return 1 if value else 0
    if field == "confidence_floor":
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"The floor must be a number between 0 and 1, not {value!r}.") from None
        if not 0.0 <= number <= 1.0:
            raise ValueError(f"The floor must be between 0 and 1, not {number:g}.")
        return round(number, 4)
    text = str(value)
    choices = {"belief_class": BELIEF_CLASSES, "domain": DOMAINS, "provenance": PROVENANCES}[field]
    if text in choices:
        return text
    # the combo boxes show friendly names; accept those too
    back = {v: k for k, v in {**CLASS_NAMES, **DOMAIN_NAMES}.items() if k in choices}
    back.update({c.replace("_", " "): c for c in choices})
    if text in back:
        return back[text]
    raise ValueError(f"Unknown {field.replace('_', ' ')} {text!r} (one of {', '.join(choices)}).")


def describe(field: str, value: Any) -> str:
    if field in ("archivable", "user_flag"):
        return "on" if value else "off"
    if field == "confidence_floor":
        return f"{value:.2f}"
    if field == "belief_class":
        return CLASS_NAMES.get(value, value)
    if field == "domain":
        return DOMAIN_NAMES.get(value, value)
    return str(value)


def read_belief_rows(memory: Any, send, cancel) -> None:
    """Every row of the table, as ("event" | "fact", rows) chunks (pulse_desktop/view_reads.py):
    sqlite3.Row objects, made in C with no Python per row on the reading thread."""
    for kind, sql in (("event", EVENT_SQL), ("fact", FACT_SQL)):
        for rows in chunks(memory.conn.execute(sql), cancel):
            send((kind, rows))


class BeliefsFilter(QSortFilterProxyModel):
    """The session's filter (from the navigator), search text, the timeline brush, facts on/off,
    pinned only."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.text = ""
        self.brush: tuple[str | None, str | None] = (None, None)
        self.show_facts = True
        self.pinned_only = False
        self.allowed: dict[str, set[int]] | None = None     # {"event": ids, "fact": ids}
        self.everything = True    # no filter at all: a row read in is shown without a look
        self.refiltering = False
        self.setSortRole(SORT_ROLE)

    def _refilter(self, change) -> None:
        # while rows come and go the view moves its current row by itself (the current one
        # filtered out): the table reads `refiltering` so that move is not taken for a choice
        self.refiltering = True
        try:
            if hasattr(self, "beginFilterChange"):     # Qt ≥ 6.9
                self.beginFilterChange()
                change()
                self._everything()
                self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
            else:  # pragma: no cover - older Qt
                change()
                self._everything()
                self.invalidateFilter()
        finally:
            self.refiltering = False

    def _everything(self) -> None:
        self.everything = (not self.text and self.brush == (None, None) and self.show_facts
                           and not self.pinned_only and self.allowed is None)

    def set_text(self, text: str) -> None:
        self._refilter(lambda: setattr(self, "text", text.strip().lower()))

    def set_brush(self, start: str | None, end: str | None) -> None:
        self._refilter(lambda: setattr(self, "brush", (start, end)))

    def set_show_facts(self, on: bool) -> None:
        self._refilter(lambda: setattr(self, "show_facts", bool(on)))

    def set_pinned_only(self, on: bool) -> None:
        self._refilter(lambda: setattr(self, "pinned_only", bool(on)))

    def set_allowed(self, result: dict[str, Any] | None) -> None:
        """The session filter's result (None: everything)."""
        allowed = None if result is None else {"event": set(result["events"]),
                                               "fact": set(result["facts"])}
        self._refilter(lambda: setattr(self, "allowed", allowed))

    def filterAcceptsRow(self, source_row: int, source_parent) -> bool:
        if self.everything:         # (100k rows read in at open: one call each, no lookups)
            return True
        model: BeliefsModel = self.sourceModel()  # type: ignore[assignment]
        row = model.rows[source_row]
        if self.allowed is not None and row["id"] not in self.allowed[row["kind"]]:
            return False
        if self.pinned_only and row["archivable"]:
            return False
        if row["kind"] == "fact":
            if not self.show_facts or self.brush != (None, None):
                return False
        else:
            start, end = self.brush
            if start and row["ts"] < start:
                return False
            if end and row["ts"] > end:
                return False
        if self.text:
            hay = f"{row['key'] or ''} {row['title']} {row['belief_class']} {row['domain']}".lower()
            return all(word in hay for word in self.text.split())
        return True
