"""The Recalls tab: what the companion recalled, when, for which question (the memory's recall
log, core/trust/recall_log.py). A list of moments — newest first — and, for the one selected,
its ranked results with every term of the breakdown as it was recorded then. Double-click a
result to select that event everywhere. The log's two settings (on/off, how long records are
kept) sit above the list; both are journaled."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.errors import PulseError
from pulse_desktop.session import MemorySession

MAX_ROWS = 2000
TOOL_NAMES = {"recall": "recall", "brief": "session brief", "get_event": "opened an event",
              "retrieve": "retrieve (CLI)", "why": "what led to it (why)"}
# The factors whose product is the score first, then any other numeric term, as recorded.
TERM_ORDER = ("relevance", "recency_factor", "emotion", "state", "anchor", "date", "cosine",
              "confidence_floor", "days_ago")
EVENT_COLUMN_MAX = 300
# score = relevance × these (ENGINE §3): headed "× recency" etc., so the table reads as the product
FACTOR_LABELS = {"recency_factor": "× recency", "emotion": "× emotion", "state": "× body day",
                 "anchor": "× anchor", "date": "× date"}


def when(ts: str) -> str:
    return ts[:19].replace("T", " ")


def question(record: dict[str, Any]) -> str:
    """What was asked, in words: the query, or what a brief / get_event stands for."""
    if record["tool"] == "get_event":
        return f"opened event {record['request'].get('id', '?')}"
    if record["tool"] == "brief":
        budget = record["request"].get("budget")
        return f"session brief ({budget} tokens)" if budget else "session brief"
    if record["tool"] == "why" and not record["query"]:
        return f"what led to event {record['request'].get('event', '?')}"
    return f"“{record['query']}”" if record["query"] else "(no question)"


def describe_state(state: dict[str, Any] | None) -> str:
    """'mood shame 0.8, sadness 0.7 · stress 0.7' — the user state a recall came with."""
    if not state:
        return ""
    parts = []
    mood = state.get("mood_vector")
    if isinstance(mood, dict) and mood:
        parts.append("mood " + ", ".join(f"{k} {v:g}" for k, v in sorted(
            mood.items(), key=lambda kv: -float(kv[1]))[:3]))
    for key, value in state.items():
        if key != "mood_vector" and not isinstance(value, (dict, list)):
            parts.append(f"{key.replace('_proxy', '').replace('_', ' ')} {value}")
    events = state.get("recent_life_events_7d")
    if isinstance(events, list) and events:
        parts.append(f"{len(events)} recent life event{'s' if len(events) != 1 else ''}")
    return " · ".join(parts)


class MomentsModel(QAbstractTableModel):
    COLUMNS = ("When (UTC)", "Client", "Asked", "Got back")

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, Any]] = []

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: B008
        return len(self.COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        r = self.rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            top = r["top"][0] if r["top"] else None
            got = (f"{r['count']} · {top['title'] or top['key'] or '#' + str(top['id'])}"
                   if top else "nothing")
            return [when(r["ts"]), r["client"], question(r), got][col]
        if role == Qt.ItemDataRole.ToolTipRole:
            tops = "\n".join(f"{i}. {t['title'] or t['key']}" for i, t in
                             enumerate(r["top"], start=1))
            return (f"{TOOL_NAMES.get(r['tool'], r['tool'])} by {r['client']} · "
                    f"{question(r)}\n{r['count']} result{'s' if r['count'] != 1 else ''}"
                    + (f"\n{tops}" if tops else ""))
        if role == Qt.ItemDataRole.ForegroundRole and col in (0, 1):
            return QColor("#5b6678")
        return None


class ResultsModel(QAbstractTableModel):
    """One record's ranked results; the breakdown columns are the terms it recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, Any]] = []
        self.terms: list[str] = []

    def set_record(self, record: dict[str, Any] | None) -> None:
        self.beginResetModel()
        self.rows = list(record["results"]) if record else []
        seen: list[str] = []
        for r in self.rows:
            for k, v in (r.get("terms") or {}).items():
                if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in seen:
                    seen.append(k)
        first = [t for t in TERM_ORDER if t in seen]
        self.terms = first + [t for t in seen if t not in first]
        self.endResetModel()

    def columns(self) -> list[str]:
        scored = any(isinstance(r.get("score"), (int, float)) for r in self.rows)
        chained = any(isinstance(r.get("hops"), int) for r in self.rows)   # a why record
        return ["#", "Event", *(["Links back"] if chained else []),
                *(["Score"] if scored else []), *self.terms]

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: B008
        return len(self.columns())

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        name = self.columns()[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return FACTOR_LABELS.get(name, name.replace("_", " "))
        if role == Qt.ItemDataRole.ToolTipRole:
            return name
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        r = self.rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return str(r.get("rank", index.row() + 1))
            if col == 1:
                key = f"[{r['key']}] " if r.get("key") else ""
                return f"{key}{r.get('title') or '#' + str(r.get('id'))}"
            name = self.columns()[col]
            if name == "Links back":
                return "asked about" if r.get("hops") is None else str(r["hops"])
            value = r.get("score") if name == "Score" else (r.get("terms") or {}).get(name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return "" if value is None else str(value)
            return f"{value:.1f}" if self.columns()[col] == "days_ago" else f"{value:.3f}"
        if role == Qt.ItemDataRole.TextAlignmentRole and col != 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            terms = r.get("terms") or {}
            lines = [f"{k.replace('_', ' ')}: {v:.4f}" for k, v in terms.items()
                     if isinstance(v, float)]
            return (f"{r.get('title') or ''}\nDouble-click to select this event in every view"
                    + ("\n\n" + "\n".join(lines) if lines else ""))
        return None


class RecallsView(QWidget):
    recordShown = Signal(int)

    def __init__(self, session: MemorySession, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self._settings_busy = False
        title = QLabel("What the companion recalled")
        title.setStyleSheet("font-size: 12pt; font-weight: 600; color: #1f2733;")
        title.setMinimumWidth(title.sizeHint().width())
        self.enabled = QCheckBox("Log recalls")
        self.enabled.setToolTip("Record every recall, why, brief and opened event the "
                                "companion asks for (kept in this memory file, never in its "
                                "content)")
        self.enabled.toggled.connect(self._set_enabled)
        self.retention = QSpinBox()
        self.retention.setRange(1, 36500)
        self.retention.setSuffix(" days")
        self.retention.setToolTip("Older records are deleted")
        self.retention.setMinimumWidth(110)
        self.retention.editingFinished.connect(self._set_retention)
        self.count = QLabel()
        self.count.setStyleSheet("color: #5b6678;")
        bar = QHBoxLayout()
        bar.addWidget(title)
        bar.addStretch(1)
        bar.addWidget(self.count)
        options = QHBoxLayout()
        options.addWidget(self.enabled)
        options.addSpacing(12)
        options.addWidget(QLabel("Keep records for"))
        options.addWidget(self.retention)
        options.addStretch(1)
        hint = QLabel("Select a moment to see what came back, scored as it was then; "
                      "double-click a result to open the event.")
        hint.setStyleSheet("color: #8a94a3; font-size: 9pt;")
        hint.setWordWrap(True)
        # long text wraps inside the tab instead of widening the window
        hint.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        self.moments = MomentsModel()
        self.list = QTableView()
        self.list.setModel(self.moments)
        self._table(self.list)
        header = self.list.horizontalHeader()
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.list.selectionModel().currentRowChanged.connect(self._show_current)

        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.heading.setStyleSheet("color: #2d3645; padding: 6px 2px 2px 2px;")
        self.heading.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.results = ResultsModel()
        self.table = QTableView()
        self.table.setModel(self.results)
        self._table(self.table)
        self.table.doubleClicked.connect(self._open_event)
        lower = QWidget()
        ll = QVBoxLayout(lower)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.heading)
        ll.addWidget(self.table, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)     # a drag never hides a panel whole
        split.addWidget(self.list)
        split.addWidget(lower)
        split.setSizes([320, 360])
        self.empty = QLabel()
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setStyleSheet("color: #6b7585; padding: 30px;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addLayout(bar)
        layout.addLayout(options)
        layout.addWidget(hint)
        layout.addWidget(self.empty, 1)       # the empty note takes the room the lists would
        layout.addWidget(split, 1)
        self.split = split

        session.opened.connect(self.reload)
        session.changed.connect(self._on_changed)
        session.show_recall.connect(self.show_record)
        self.reload()

    def focus_target(self):
        return self.list

    @staticmethod
    def _table(view: QTableView) -> None:
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.verticalHeader().hide()
        view.setAlternatingRowColors(True)
        view.setWordWrap(False)
        view.horizontalHeader().setHighlightSections(False)
        view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)

    def _on_changed(self, what: str) -> None:
        if what in ("all", "recalls"):
            self.reload()

    def reload(self) -> None:
        memory = self.session.memory
        current = self.current_id()
        if memory is None:
            self.moments.set_rows([])
            self.results.set_record(None)
            return
        settings = memory.recall_log_settings()
        self._settings_busy = True
        self.enabled.setChecked(settings["enabled"])
        self.retention.setValue(settings["retention_days"])
        self.enabled.setEnabled(not memory.read_only)
        self.retention.setEnabled(not memory.read_only)
        self._settings_busy = False
        rows = memory.recalls(limit=MAX_ROWS)
        self.moments.set_rows(rows)
        n = len(rows)
        self.count.setText(f"{n} moment{'s' if n != 1 else ''} · last "
                           f"{settings['retention_days']} days")
        self.empty.setVisible(not rows)
        self.split.setVisible(bool(rows))
        self.empty.setText(
            "Nothing was recalled yet. When a companion connected through `pulse mcp` recalls, "
            "asks what led to something, loads its brief or opens an event, the moment appears "
            "here with what it got back."
            if settings["enabled"] else
            "The recall log is off for this memory: turn on “Log recalls” to see what the "
            "companion recalls.")
        ids = [r["id"] for r in rows]
        self.select_row(ids.index(current) if current in ids else 0 if rows else None)

    def current_id(self) -> int | None:
        index = self.list.currentIndex()
        if not index.isValid() or index.row() >= len(self.moments.rows):
            return None
        return self.moments.rows[index.row()]["id"]

    def select_row(self, row: int | None) -> None:
        if row is None:
            self.results.set_record(None)
            self.heading.setText("")
            return
        self.list.selectRow(row)
        self.list.setCurrentIndex(self.moments.index(row, 0))
        self._show_current(self.moments.index(row, 0))

    def show_record(self, log_id: int) -> None:
        """Select one record (from the detail panel's link or a timeline mark)."""
        ids = [r["id"] for r in self.moments.rows]
        if log_id not in ids:
            self.reload()
            ids = [r["id"] for r in self.moments.rows]
        if log_id in ids:
            self.select_row(ids.index(log_id))

    def _show_current(self, index: QModelIndex, _previous=None) -> None:
        memory = self.session.memory
        if memory is None or not index.isValid() or index.row() >= len(self.moments.rows):
            return
        try:
            record = memory.recall_record(self.moments.rows[index.row()]["id"])
        except PulseError as exc:
            self.heading.setText(str(exc))
            self.results.set_record(None)
            return
        self.results.set_record(record)
        width = self.table.horizontalHeader()
        if self.results.columnCount() > 1 and width.sectionSize(1) > EVENT_COLUMN_MAX:
            width.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
            width.resizeSection(1, EVENT_COLUMN_MAX)
        parts = [question(record),
                 f"{TOOL_NAMES.get(record['tool'], record['tool'])} by {record['client']}, "
                 f"{when(record['ts'])} UTC"]
        if record["scorer"]:
            parts.append(f"scorer {record['scorer']}")
        state = describe_state(record.get("state"))
        if state:
            parts.append(state)
        erased = record["response"].get("erased_results")
        if erased:
            parts.append(f"{erased} result{'s' if erased != 1 else ''} since erased")
        if not record["results"]:
            parts.append("nothing returned")
        self.heading.setText(" · ".join(parts))
        self.recordShown.emit(record["id"])

    def _open_event(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        event_id = self.results.rows[index.row()].get("id")
        if isinstance(event_id, int):
            self.session.select("event", event_id)

    def _set_enabled(self, on: bool) -> None:
        self._change(enabled=on)

    def _set_retention(self) -> None:
        self._change(retention_days=self.retention.value())

    def _change(self, **settings: Any) -> None:
        memory = self.session.memory
        if self._settings_busy or memory is None or memory.read_only:
            return
        before = memory.recall_log_settings()
        if all(before.get(k) == v for k, v in settings.items()):
            return
        try:
            memory.set_recall_log(**settings)
        except PulseError as exc:
            self.session.refused.emit("Recall log", str(exc))
        self.session.notify("recalls")
