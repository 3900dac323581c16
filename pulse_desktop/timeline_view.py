"""The Timeline tab: events on a zoomable time axis (native Qt painting), in lanes by belief
class or by domain, coloured by dominant emotion (with its letter in the dot), with marks for
core wounds (diamonds), anchors (a flag) and pinned rows (a dark ring); teal marks along the top
are the moments the companion recalled something (pulse_desktop/timeline_recalls.py). Drag to
brush a time range: the navigator, the beliefs table and the graph then show only that range.
It shows only the events the navigator's filter lets through (kind, domain, class, search).
Data: timeline_data.py; painting: timeline_paint.py.

Mouse: wheel or Ctrl+wheel zooms around the pointer, Shift+wheel pans, right/middle drag pans,
left drag brushes, click selects, double-click on empty space clears the range.
Keys: ← / → move the cursor (the view follows), Shift+← / Shift+→ brush a range from the
cursor, Ctrl+← / Ctrl+→ pan, Enter selects the event nearest the cursor, + / − zoom, 0 fits,
Esc clears the range.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from core.beliefs import BELIEF_CLASSES, DOMAINS
from pulse_desktop import timeline_paint, timeline_recalls
from pulse_desktop.flow_layout import FlowLayout
from pulse_desktop.session import MemorySession
from pulse_desktop.style import DOMAIN_NAMES, EMOTION_COLORS, class_name
from pulse_desktop.timeline_data import DAY, Dot, dots_of, iso, parse_ts, read_dots
from pulse_desktop.view_reads import ViewRead, memory_rows

LEFT, RIGHT, BOTTOM = 128, 18, 36
KEY_STEPS = 40           # the cursor moves 1/40 of the visible span per arrow key


class TimelineCanvas(QWidget):
    brushChanged = Signal(object, object)    # (start ISO | None, end ISO | None)
    eventClicked = Signal(int)
    recallClicked = Signal(int)              # a recall-log record's id
    rangeChanged = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumHeight(260)
        self.dots: list[Dot] = []
        self.empty_text: str | None = None    # what an empty canvas says (None: no events)
        self.lane_by = "class"
        self.t0, self.t1 = 0.0, 1.0
        self.brush: tuple[float, float] | None = None
        self.selected: int | None = None
        self._drag_start: QPoint | None = None
        self._drag_now: QPoint | None = None
        self._pan_from: tuple[QPoint, float, float] | None = None
        self._hits: list[tuple[float, float, float, int]] = []
        self._np = None      # numpy arrays of the dots, for the dense path
        self._counts = None  # events per lane
        self._dense = None   # (x, y, ids) drawn by the dense path, for hit tests
        self.recalls: list[timeline_recalls.RecallMark] = []
        self._recall_hits: list[tuple[float, int]] = []
        self._cursor: float | None = None        # the keyboard's place on the time axis
        self._key_anchor: float | None = None    # where a Shift+arrow brush started
        self.setAccessibleName("Timeline")
        self.setAccessibleDescription(
            "Events in time. Arrow keys move the cursor, Shift+arrows choose a time range, "
            "Enter selects the nearest event, Esc clears the range.")

    # -- data ------------------------------------------------------------------------------
    def set_dots(self, dots: list[Dot]) -> None:
        self.dots = dots
        self.fit()

    def lanes(self) -> list[str]:
        return list(BELIEF_CLASSES) if self.lane_by == "class" else list(DOMAINS)

    def lane_of(self, dot: Dot) -> str:
        return dot.belief_class if self.lane_by == "class" else dot.domain

    def set_lane_by(self, mode: str) -> None:
        self.lane_by = mode
        self.update()

    # -- geometry ----------------------------------------------------------------------------
    def plot_rect(self) -> QRectF:
        top = timeline_paint.legend_height(self) + 12      # the legend wraps when narrow
        return QRectF(LEFT, top, max(10, self.width() - LEFT - RIGHT),
                      max(10, self.height() - top - BOTTOM))

    def x_of(self, t: float) -> float:
        r = self.plot_rect()
        return r.left() + (t - self.t0) / (self.t1 - self.t0) * r.width()

    def t_of(self, x: float) -> float:
        r = self.plot_rect()
        return self.t0 + (x - r.left()) / r.width() * (self.t1 - self.t0)

    def x_of_iso(self, text: str) -> float:
        return self.x_of(parse_ts(text))

    def fit(self) -> None:
        times = [d.t for d in self.dots] + [m.t for m in self.recalls]
        if times:
            lo, hi = min(times), max(times)
        else:
            now = datetime.now(timezone.utc).timestamp()
            lo, hi = now - 365 * DAY, now
        span = max(hi - lo, 7 * DAY)
        self.t0, self.t1 = lo - span * 0.03, hi + span * 0.03
        self.rangeChanged.emit()
        self.update()

    def zoom(self, factor: float, around_x: float | None = None) -> None:
        """factor < 1 zooms in. Never closer than a day, never wider than 200 years."""
        r = self.plot_rect()
        x = r.center().x() if around_x is None else around_x
        t = self.t_of(x)
        span = (self.t1 - self.t0) * factor
        span = min(max(span, DAY), 200 * 365 * DAY)
        frac = (x - r.left()) / r.width()
        self.t0 = t - frac * span
        self.t1 = self.t0 + span
        self.rangeChanged.emit()
        self.update()

    def pan(self, fraction: float) -> None:
        shift = (self.t1 - self.t0) * fraction
        self.t0 += shift
        self.t1 += shift
        self.rangeChanged.emit()
        self.update()

    # -- painting (pulse_desktop/timeline_paint.py) -----------------------------------------
    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        timeline_paint.paint(self, p)
        p.end()

    def _lane_counts(self) -> dict[str, int]:
        key = (id(self.dots), len(self.dots), self.lane_by)
        if self._counts is None or self._counts[0] != key:
            counts: dict[str, int] = {}
            for d in self.dots:
                lane = self.lane_of(d)
                counts[lane] = counts.get(lane, 0) + 1
            self._counts = (key, counts)
        return self._counts[1]

    def _arrays(self):
        """numpy views of the dots (built once per data set), for the dense drawing path."""
        if self._np is None or self._np[0] is not self.dots:
            colours = list(EMOTION_COLORS) + ["_"]
            code = {name: i for i, name in enumerate(colours)}
            t = np.fromiter((d.t for d in self.dots), dtype=np.float64, count=len(self.dots))
            jitter = np.fromiter((d.jitter for d in self.dots), dtype=np.float64,
                                 count=len(self.dots))
            colour = np.fromiter((code.get(d.emotion or "_", len(colours) - 1) for d in self.dots),
                                 dtype=np.int64, count=len(self.dots))
            ids = np.fromiter((d.id for d in self.dots), dtype=np.int64, count=len(self.dots))
            self._np = (self.dots, t, jitter, colour, ids, colours)
        return self._np

    def _live_brush(self) -> tuple[float, float] | None:
        if self._drag_start is not None and self._drag_now is not None \
                and abs(self._drag_now.x() - self._drag_start.x()) >= 4:
            return (self.t_of(self._drag_start.x()), self.t_of(self._drag_now.x()))
        return self.brush

    # -- interaction -------------------------------------------------------------------------
    def dot_at(self, pos: QPoint | QPointF) -> int | None:
        best, best_d = None, 1e9
        if self._dense is not None and len(self._dense[0]):
            x, y, ids = self._dense
            d2 = (x - pos.x()) ** 2 + (y - pos.y()) ** 2
            i = int(np.argmin(d2))
            if d2[i] <= 16:
                best, best_d = int(ids[i]), float(np.sqrt(d2[i]))
        for x, y, radius, ident in self._hits:
            d = math.hypot(pos.x() - x, pos.y() - y)
            if d <= radius and d < best_d:
                best, best_d = ident, d
        return best

    def dot_position(self, event_id: int) -> QPoint | None:
        for x, y, _r, ident in self._hits:
            if ident == event_id:
                return QPoint(round(x), round(y))
        return None

    def wheelEvent(self, event) -> None:
        delta = event.angleDelta()
        mods = event.modifiers()
        if mods & Qt.KeyboardModifier.ShiftModifier or abs(delta.x()) > abs(delta.y()):
            amount = delta.x() if abs(delta.x()) > abs(delta.y()) else delta.y()
            self.pan(-amount / 120 * 0.1)
        else:
            self.zoom(0.8 ** (delta.y() / 120), event.position().x())
        event.accept()

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._drag_start = event.position().toPoint()
            self._drag_now = self._drag_start
        elif event.button() in (Qt.MouseButton.RightButton, Qt.MouseButton.MiddleButton):
            self._pan_from = (event.position().toPoint(), self.t0, self.t1)
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
        self.setFocus()

    def mouseMoveEvent(self, event) -> None:
        pos = event.position().toPoint()
        if self._drag_start is not None:
            self._drag_now = pos
            self.update()
        elif self._pan_from is not None:
            origin, t0, t1 = self._pan_from
            dt = (pos.x() - origin.x()) / self.plot_rect().width() * (t1 - t0)
            self.t0, self.t1 = t0 - dt, t1 - dt
            self.rangeChanged.emit()
            self.update()
        else:
            self.setCursor(Qt.CursorShape.PointingHandCursor if self.dot_at(pos) is not None
                           else Qt.CursorShape.CrossCursor)

    def mouseReleaseEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self._drag_start is not None:
            start, end = self._drag_start, event.position().toPoint()
            self._drag_start = self._drag_now = None
            if abs(end.x() - start.x()) >= 4:
                t0, t1 = sorted((self.t_of(start.x()), self.t_of(end.x())))
                self.set_brush(t0, t1)
            else:
                mark = timeline_recalls.mark_at(self, start.x(), start.y())
                hit = self.dot_at(start)
                if mark is not None:
                    self.recallClicked.emit(mark.id)
                elif hit is not None:
                    self.eventClicked.emit(hit)
            self.update()
        elif self._pan_from is not None:
            self._pan_from = None
            self.unsetCursor()

    def mouseDoubleClickEvent(self, event) -> None:
        if self.dot_at(event.position()) is None and self.brush is not None:
            self.set_brush(None, None)

    def cursor_t(self) -> float:
        """Where the keyboard is on the time axis: set by the arrows, else the selected
        event, else the middle of the view."""
        if self._cursor is None or not self.t0 <= self._cursor <= self.t1:
            chosen = next((d.t for d in self.dots if d.id == self.selected), None)
            self._cursor = chosen if chosen is not None and self.t0 <= chosen <= self.t1 \
                else (self.t0 + self.t1) / 2
        return self._cursor

    def move_cursor(self, steps: int) -> float:
        """Move the keyboard cursor; the view pans when it would leave it."""
        step = (self.t1 - self.t0) / KEY_STEPS
        t = self.cursor_t() + steps * step
        if t < self.t0 or t > self.t1:
            shift = (t - self.t1) if t > self.t1 else (t - self.t0)
            self.t0 += shift
            self.t1 += shift
            self.rangeChanged.emit()
        self._cursor = t
        self.update()
        return t

    def brush_by_key(self, steps: int) -> None:
        """Shift+arrow: a range from where the brushing started to the moved cursor."""
        if self._key_anchor is None or self.brush is None:
            self._key_anchor = self.cursor_t()
        edge = self.move_cursor(steps)
        if abs(edge - self._key_anchor) < 1:
            self.set_brush(None, None)
        else:
            self.set_brush(self._key_anchor, edge)

    def nearest_dot(self, t: float) -> Dot | None:
        shown = [d for d in self.dots if self.t0 <= d.t <= self.t1]
        return min(shown, key=lambda d: abs(d.t - t), default=None)

    def keyPressEvent(self, event) -> None:
        key = event.key()
        mods = event.modifiers()
        shift = bool(mods & Qt.KeyboardModifier.ShiftModifier)
        ctrl = bool(mods & Qt.KeyboardModifier.ControlModifier)
        if key == Qt.Key.Key_Escape:
            self._key_anchor = None
            self.set_brush(None, None)
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(0.7, self.x_of(self.cursor_t()))
        elif key == Qt.Key.Key_Minus:
            self.zoom(1 / 0.7, self.x_of(self.cursor_t()))
        elif key in (Qt.Key.Key_Left, Qt.Key.Key_Right):
            direction = -1 if key == Qt.Key.Key_Left else 1
            if ctrl:
                self.pan(0.15 * direction)
            elif shift:
                self.brush_by_key(direction)
            else:
                self._key_anchor = None
                self.move_cursor(direction)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            dot = self.nearest_dot(self.cursor_t())
            if dot is not None:
                self._cursor = dot.t
                self.eventClicked.emit(dot.id)
        elif key in (Qt.Key.Key_0, Qt.Key.Key_Home):
            self.fit()
        else:
            super().keyPressEvent(event)

    def focusInEvent(self, event) -> None:
        super().focusInEvent(event)
        self.update()

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self.update()

    def set_brush(self, t0: float | None, t1: float | None, *, emit: bool = True) -> None:
        self.brush = None if t0 is None or t1 is None else (min(t0, t1), max(t0, t1))
        self.update()
        if emit:
            if self.brush is None:
                self.brushChanged.emit(None, None)
            else:
                self.brushChanged.emit(iso(self.brush[0]), iso(self.brush[1]))

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            mark = timeline_recalls.mark_at(self, event.pos().x(), event.pos().y())
            if mark is not None:
                QToolTip.showText(event.globalPos(), mark.tip(), self)
                return True
            hit = self.dot_at(event.pos())
            dot = next((d for d in self.dots if d.id == hit), None) if hit is not None else None
            if dot is None:
                QToolTip.hideText()
            else:
                marks = ", ".join(m for m, on in (("core wound", dot.belief_class == "axiom"),
                                                  ("anchor", dot.user_flag),
                                                  ("pinned", dot.pinned)) if on)
                emo = f"{dot.emotion} {dot.emotion_value:.2f}" if dot.emotion else "no emotion"
                QToolTip.showText(event.globalPos(),
                                  f"{dot.title}\n{dot.ts[:10]} · {dot.key} · "
                                  f"{class_name(dot.belief_class)} · "
                                  f"{DOMAIN_NAMES.get(dot.domain)}\n{emo}"
                                  + (f" · {marks}" if marks else ""), self)
            return True
        return super().event(event)


class TimelineView(QWidget):
    def __init__(self, session: MemorySession, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self.canvas = TimelineCanvas(self)
        self._syncing = False

        self.by_class = QPushButton("Lanes: belief class")
        self.by_domain = QPushButton("Lanes: domain")
        for button, mode in ((self.by_class, "class"), (self.by_domain, "domain")):
            button.setCheckable(True)
            button.clicked.connect(lambda _c=False, m=mode: self.canvas.set_lane_by(m))
        self.by_class.setChecked(True)
        self.by_class.setToolTip("One lane per belief class (core wounds … hypotheses)")
        self.by_domain.setToolTip("One lane per domain (real life, fiction, authorial)")
        group = QButtonGroup(self)
        group.setExclusive(True)
        group.addButton(self.by_class)
        group.addButton(self.by_domain)
        zoom_in = QPushButton("Zoom in")
        zoom_in.setToolTip("Zoom in (+, or the mouse wheel)")
        zoom_in.clicked.connect(lambda: self.canvas.zoom(0.7))
        zoom_out = QPushButton("Zoom out")
        zoom_out.setToolTip("Zoom out (−, or the mouse wheel)")
        zoom_out.clicked.connect(lambda: self.canvas.zoom(1 / 0.7))
        fit = QPushButton("Fit")
        fit.setToolTip("Show the whole memory (0)")
        fit.clicked.connect(self.canvas.fit)
        self.clear = QPushButton("Clear range")
        self.clear.setToolTip("Stop filtering by time (Esc)")
        self.clear.clicked.connect(lambda: self.session.set_brush(None, None))
        self.info = QLabel()
        self.info.setStyleSheet("color: #5b6678;")
        self.info.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        # wraps onto a second row on a narrow window (1024 px) rather than widening it
        bar = QWidget()
        flow = FlowLayout(bar)
        for item in (self.by_class, self.by_domain, 12, zoom_in, zoom_out, fit, 12, self.clear):
            if isinstance(item, int):
                flow.addSpacing(item)       # between the groups, as before
            else:
                flow.addWidget(item)
        hint = QLabel("Drag (or Shift+←/→) to show one time range everywhere · wheel: zoom · "
                      "right-drag: pan · click or Enter: select")
        hint.setStyleSheet("color: #8a94a3; font-size: 9pt;")
        hint.setWordWrap(True)
        hint.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.info.setWordWrap(True)
        bottom = QHBoxLayout()
        bottom.addWidget(hint, 1)
        bottom.addWidget(self.info)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 6)
        layout.addWidget(bar)
        layout.addWidget(self.canvas, 1)
        layout.addLayout(bottom)

        self.canvas.brushChanged.connect(self._brushed_here)
        self.canvas.eventClicked.connect(lambda i: self.session.select("event", i))
        self.canvas.recallClicked.connect(self.session.show_recall.emit)
        self.canvas.rangeChanged.connect(self._update_info)
        session.opened.connect(self.reload)
        session.changed.connect(self._on_changed)
        session.brushed.connect(self._on_brush)
        session.selected.connect(self._on_selected)
        session.filtered.connect(self._on_filter)
        self.all_dots: list[Dot] = []
        self._stale: bool | None = None    # not read since a change (keep the zoom: True)
        self._dot_rows: dict[int, int] | None = None    # event id → place in all_dots
        self.reads = ViewRead(session, "timeline", self)
        self.reload()

    def focus_target(self):
        return self.canvas

    def _load_recalls(self) -> None:
        memory = self.session.memory
        self.canvas.recalls = timeline_recalls.marks_from(
            memory.recall_moments() if memory is not None else [], parse_ts)

    def _filtered(self) -> list[Dot]:
        result = self.session.filter_result
        if result is None:
            return self.all_dots
        allowed = result["events"]
        return [d for d in self.all_dots if d.id in allowed]

    def reload(self) -> None:
        self._load_recalls()
        self._read_dots(keep_zoom=False)

    def _on_changed(self, what: str) -> None:
        if what in ("all", "recalls"):
            self._load_recalls()
            self.canvas.update()
        items = self.session.changed_items
        if what == "beliefs" and items is not None and self._stale is None \
                and not self.reads.busy:
            self._update_dots([int(i) for k, i in items if k == "event"])
        elif what in ("all", "events", "beliefs"):
            self._read_dots(keep_zoom=True)

    def showEvent(self, event) -> None:
        if self._stale is not None:
            self._read_dots(keep_zoom=self._stale)
        super().showEvent(event)

    def _read_dots(self, *, keep_zoom: bool) -> None:
        """Read the dots again: at once for a small memory, for a large one on the reader
        thread (pulse_desktop/view_reads.py), also while the tab is hidden when a memory is
        opened (it is ready when shown). After another change, a hidden timeline is marked
        stale and reads once shown; a belief edit's rows are updated in place."""
        memory = self.session.memory
        self._stale = None
        if memory is None:
            self.reads.cancel()
            self._show_dots([], keep_zoom=False)
            return
        total = memory_rows(memory, ("events",))
        if keep_zoom and not self.isVisible():
            self.reads.cancel()
            self._stale = keep_zoom
            return
        self.reads.start(lambda m, send, cancel: read_dots(m, cancel, send), lambda _rows: None,
                         lambda dots: self._show_dots(dots, keep_zoom=keep_zoom), total=total,
                         priority=0 if self.isVisible() else -1,   # (hidden: after the table)
                         on_failed=lambda _text: self._show_dots(self.all_dots, keep_zoom=True))
        if self.reads.busy and not self.all_dots:
            self.canvas.empty_text = "Reading the events…"
            self.canvas.update()

    def _update_dots(self, ids: list[int]) -> None:
        """Redraw these events' dots (their lane, marks) without reading the others."""
        memory = self.session.memory
        if memory is None or not ids:
            return
        where = self._dot_rows
        if where is None or len(where) != len(self.all_dots):
            where = self._dot_rows = {dot.id: i for i, dot in enumerate(self.all_dots)}
        fresh = {dot.id: dot for dot in dots_of(memory.conn, ids)}
        gone = [where[i] for i in ids if i in where and i not in fresh]
        if gone or any(i not in where for i in fresh):     # (archived, or newly shown)
            self._read_dots(keep_zoom=True)
            return
        dots = list(self.all_dots)      # a new list: the canvas keys its caches by identity
        for event_id, dot in fresh.items():
            dots[where[event_id]] = dot
        self.all_dots = dots
        self._dot_rows = where          # (the same places)
        self._keep_zoom(self._filtered())

    def _show_dots(self, dots: list[Dot] | None, *, keep_zoom: bool) -> None:
        if dots is None:                # (cancelled)
            return
        self.canvas.empty_text = None
        self.all_dots = dots
        self._dot_rows = None
        if keep_zoom:
            self._keep_zoom(self._filtered())
            return
        self.canvas.set_dots(self._filtered())
        self._on_brush(*self.session.brush)
        self._update_info()

    def _on_filter(self, _result) -> None:
        self._keep_zoom(self._filtered())

    def _keep_zoom(self, dots: list[Dot]) -> None:
        t0, t1 = self.canvas.t0, self.canvas.t1
        self.canvas.dots = dots
        self.canvas.t0, self.canvas.t1 = t0, t1   # an edit or a filter keeps the zoom
        self.canvas.update()
        self._update_info()

    def _brushed_here(self, start, end) -> None:
        self._syncing = True
        try:
            self.session.set_brush(start, end)
        finally:
            self._syncing = False
        self._update_info()

    def _on_brush(self, start, end) -> None:
        if self._syncing:
            return
        if start or end:
            lo = parse_ts(start) if start else self.canvas.t0
            hi = parse_ts(end) if end else self.canvas.t1
            self.canvas.set_brush(lo, hi, emit=False)
        else:
            self.canvas.set_brush(None, None, emit=False)
        self._update_info()

    def _on_selected(self, kind: str, item_id: int) -> None:
        self.canvas.selected = item_id if kind == "event" else None
        self.canvas.update()

    def _update_info(self) -> None:
        c = self.canvas
        start = datetime.fromtimestamp(c.t0, timezone.utc).strftime("%Y-%m-%d")
        end = datetime.fromtimestamp(c.t1, timezone.utc).strftime("%Y-%m-%d")
        shown = (f"{len(c.dots)} of {len(self.all_dots)} events (the navigator's filter)"
                 if self.session.filter_result is not None else f"{len(c.dots)} events")
        text = f"{shown} · showing {start} → {end}"
        if c.brush:
            n = sum(1 for d in c.dots if c.brush[0] <= d.t <= c.brush[1])
            text += f" · range: {n} events"
        self.info.setText(text)
        self.clear.setEnabled(c.brush is not None)
