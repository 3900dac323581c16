"""The Timeline tab: events on a zoomable time axis (native Qt painting), in lanes by belief
class or by domain, coloured by dominant emotion, with marks for axioms (diamonds), anchors
(a flag) and pinned rows (a dark ring); teal marks along the top are the moments the
companion recalled something (pulse_desktop/timeline_recalls.py). Drag to brush a time range:
the navigator, the beliefs table and the graph then show only that range. It shows only the
events the navigator's filter lets through (kind, domain, class, search).

Mouse: wheel or Ctrl+wheel zooms around the pointer, Shift+wheel pans, right/middle drag pans,
left drag brushes, click selects, double-click on empty space clears the range.
Keys: + / − zoom, ← / → pan, 0 fits, Esc clears the range.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen, QPolygonF
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
from core.emotion.plutchik import EMOTIONS
from pulse_desktop import timeline_recalls
from pulse_desktop.session import MemorySession
from pulse_desktop.style import (
    ACCENT,
    CLASS_NAMES,
    DOMAIN_COLORS,
    DOMAIN_NAMES,
    EMOTION_COLORS,
    NEUTRAL,
    color,
)

LEFT, RIGHT, TOP, BOTTOM = 128, 18, 34, 36
DETAIL_LIMIT = 4000      # above this many visible events, draw them as plain points
DAY = 86400.0
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


@dataclass
class Dot:
    id: int
    t: float
    ts: str
    title: str
    key: str
    belief_class: str
    domain: str
    user_flag: bool
    pinned: bool
    emotion: str | None
    emotion_value: float
    weight: float
    jitter: float        # −1..1, stable per event: spreads dots vertically inside a lane


def parse_ts(text: str) -> float:
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.timestamp()


def iso(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


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
        return QRectF(LEFT, TOP, max(10, self.width() - LEFT - RIGHT),
                      max(10, self.height() - TOP - BOTTOM))

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

    # -- painting ------------------------------------------------------------------------------
    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor("#ffffff"))
        r = self.plot_rect()
        lanes = self.lanes()
        lane_h = r.height() / len(lanes)
        label_font = QFont(self.font())
        label_font.setPointSizeF(max(8.0, label_font.pointSizeF() * 0.95))

        # lanes
        for i, lane in enumerate(lanes):
            y = r.top() + i * lane_h
            if i % 2 == 0:
                p.fillRect(QRectF(0, y, self.width(), lane_h), QColor("#f7f8fc"))
            p.setPen(QColor("#e3e7ef"))
            p.drawLine(QPointF(0, y), QPointF(self.width(), y))
            name = CLASS_NAMES.get(lane, lane) if self.lane_by == "class" else DOMAIN_NAMES.get(lane, lane)
            count = self._lane_counts().get(lane, 0)
            p.setFont(label_font)
            p.setPen(QColor("#2d3645") if self.lane_by == "class" else QColor(DOMAIN_COLORS[lane]))
            p.drawText(QRectF(10, y, LEFT - 16, lane_h),
                       Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                       f"{name}\n{count} events")
        p.setPen(QColor("#e3e7ef"))
        p.drawLine(QPointF(0, r.bottom()), QPointF(self.width(), r.bottom()))

        self._paint_axis(p, r)

        # brush
        brush = self._live_brush()
        if brush is not None:
            x0, x1 = sorted((self.x_of(brush[0]), self.x_of(brush[1])))
            x0, x1 = max(x0, r.left()), min(x1, r.right())
            if x1 > x0:
                p.fillRect(QRectF(x0, r.top(), x1 - x0, r.height()), color(ACCENT, 34))
                p.setPen(QPen(color(ACCENT, 160), 1.2))
                p.drawLine(QPointF(x0, r.top()), QPointF(x0, r.bottom()))
                p.drawLine(QPointF(x1, r.top()), QPointF(x1, r.bottom()))

        # events
        p.setClipRect(r.adjusted(-8, -4, 8, 4))
        self._hits = []
        lane_index = {lane: i for i, lane in enumerate(lanes)}
        self._dense = None
        visible = [d for d in self.dots if self.t0 <= d.t <= self.t1]
        if len(visible) > DETAIL_LIMIT:
            self._paint_dense(p, r, lane_h, lanes, brush)
            visible = [d for d in visible if d.belief_class == "axiom" or d.user_flag
                       or d.id == self.selected][:DETAIL_LIMIT]
        for d in visible:
            if d.t < self.t0 or d.t > self.t1:
                continue
            x = self.x_of(d.t)
            li = lane_index.get(self.lane_of(d))
            if li is None:
                continue
            y = r.top() + (li + 0.5) * lane_h + d.jitter * lane_h * 0.34
            radius = 4.0 + 5.0 * max(0.0, min(1.0, d.weight))
            inside = brush is None or (min(brush) <= d.t <= max(brush))
            alpha = 235 if inside else 55
            fill = color(EMOTION_COLORS.get(d.emotion or "", NEUTRAL), alpha)
            outline = QColor("#1f2733") if d.pinned else color("#ffffff", 230)
            p.setPen(QPen(color(outline.name(), alpha), 2.0 if d.pinned else 1.0))
            p.setBrush(fill)
            if d.belief_class == "axiom":
                k = radius * 1.35
                p.drawPolygon(QPolygonF([QPointF(x, y - k), QPointF(x + k, y), QPointF(x, y + k),
                                         QPointF(x - k, y)]))
            else:
                p.drawEllipse(QPointF(x, y), radius, radius)
            if d.user_flag:
                path = QPainterPath()
                top = y - radius - 11
                path.moveTo(x, y - radius - 1)
                path.lineTo(x, top)
                p.setPen(QPen(color("#8a5a00", alpha), 1.3))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawPath(path)
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(color("#e0a416", alpha))
                p.drawPolygon(QPolygonF([QPointF(x, top), QPointF(x + 7, top + 3),
                                         QPointF(x, top + 6)]))
            if d.id == self.selected:
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.setPen(QPen(QColor(ACCENT), 2.5))
                p.drawEllipse(QPointF(x, y), radius + 5, radius + 5)
            self._hits.append((x, y, radius + 3, d.id))
        p.setClipping(False)
        self._recall_hits = timeline_recalls.paint(p, self, r)
        self._paint_legend(p)
        if not self.dots:
            p.setPen(QColor("#6b7585"))
            p.drawText(r, Qt.AlignmentFlag.AlignCenter, "No events in this memory yet.")
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

    def _paint_dense(self, p: QPainter, r: QRectF, lane_h: float, lanes: list[str], brush) -> None:
        """Many events: vectorised positions, one point per occupied pixel and colour."""
        _dots, t, jitter, colour, ids, colours = self._arrays()
        lane_of = {lane: i for i, lane in enumerate(lanes)}
        key = "belief_class" if self.lane_by == "class" else "domain"
        lane = np.fromiter((lane_of.get(getattr(d, key), -1) for d in self.dots),
                           dtype=np.int64, count=len(self.dots))
        keep = (t >= self.t0) & (t <= self.t1) & (lane >= 0)
        x = r.left() + (t[keep] - self.t0) / (self.t1 - self.t0) * r.width()
        y = r.top() + (lane[keep] + 0.5) * lane_h + jitter[keep] * lane_h * 0.38
        inside = np.ones(x.shape, dtype=bool) if brush is None else \
            (t[keep] >= min(brush)) & (t[keep] <= max(brush))
        px, py = (x // 2).astype(np.int64), (y // 2).astype(np.int64)   # 2-pixel cells
        cell = (px * 4096 + py) * 32 + colour[keep] * 2 + inside
        _unique, first = np.unique(cell, return_index=True)
        self._dense = (x, y, ids[keep])
        for c in np.unique(colour[keep]):
            for flag in (False, True):
                sel = first[(colour[keep][first] == c) & (inside[first] == flag)]
                if not sel.size:
                    continue
                hex_code = EMOTION_COLORS.get(colours[c], NEUTRAL)
                p.setPen(QPen(color(hex_code, 200 if flag else 45), 3.2, Qt.PenStyle.SolidLine,
                              Qt.PenCapStyle.RoundCap))
                p.drawPoints(QPolygonF([QPointF(float(a), float(b))
                                        for a, b in zip(x[sel], y[sel])]))

    def _paint_axis(self, p: QPainter, r: QRectF) -> None:
        ticks = self._ticks(r.width())
        p.setFont(self.font())
        for t, label, major in ticks:
            x = self.x_of(t)
            if x < r.left() - 1 or x > r.right() + 1:
                continue
            p.setPen(QPen(QColor("#dfe3ec" if major else "#eef0f5"), 1))
            p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()))
            p.setPen(QColor("#4a5566" if major else "#8a94a3"))
            p.drawLine(QPointF(x, r.bottom()), QPointF(x, r.bottom() + 5))
            p.drawText(QRectF(x - 60, r.bottom() + 6, 120, 20),
                       Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, label)

    def _ticks(self, width: float) -> list[tuple[float, str, bool]]:
        span_days = (self.t1 - self.t0) / DAY
        per_px = span_days / max(width, 1)
        want = per_px * 90  # days between labels
        start = datetime.fromtimestamp(self.t0, timezone.utc)
        end = datetime.fromtimestamp(self.t1, timezone.utc)
        out: list[tuple[float, str, bool]] = []
        if want >= 300:
            step = max(1, math.ceil(want / 365))
            for year in range(start.year - start.year % step, end.year + 2, step):
                t = datetime(year, 1, 1, tzinfo=timezone.utc).timestamp()
                out.append((t, str(year), True))
        elif want >= 25:
            step = next(s for s in (1, 2, 3, 6, 12) if s * 30.4 >= want)
            y, m = start.year, start.month - (start.month - 1) % step
            while True:
                moment = datetime(y, m, 1, tzinfo=timezone.utc)
                if moment > end:
                    break
                label = str(y) if m == 1 else f"{MONTHS[m - 1]}"
                out.append((moment.timestamp(), label if m != 1 else f"{y}", m == 1))
                m += step
                if m > 12:
                    m -= 12
                    y += 1
        else:
            step = next((s for s in (1, 2, 7, 14) if s >= want), 14)
            moment = datetime(start.year, start.month, start.day, tzinfo=timezone.utc)
            while moment <= end:
                if step < 7 or moment.weekday() == 0 or step == 14:
                    out.append((moment.timestamp(), f"{moment.day} {MONTHS[moment.month - 1]}",
                                moment.day == 1))
                moment += timedelta(days=step if step < 7 else 1)
                if step >= 7:
                    while moment.weekday() != 0 and moment <= end:
                        moment += timedelta(days=1)
                    if step == 14:
                        moment += timedelta(days=7)
        return out

    def _paint_legend(self, p: QPainter) -> None:
        x = 12
        y = 10
        font = QFont(self.font())
        font.setPointSizeF(max(7.5, font.pointSizeF() * 0.9))
        p.setFont(font)
        metrics = p.fontMetrics()
        for name in EMOTIONS:
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor(EMOTION_COLORS[name]))
            p.drawEllipse(QPointF(x + 5, y + 7), 5, 5)
            p.setPen(QColor("#4a5566"))
            p.drawText(QPointF(x + 13, y + 11), name)
            x += 20 + metrics.horizontalAdvance(name)
        x += 8
        # marks
        p.setPen(QPen(QColor("#1f2733"), 1.2))
        p.setBrush(QColor("#ffffff"))
        p.drawPolygon(QPolygonF([QPointF(x + 5, y + 1), QPointF(x + 11, y + 7),
                                 QPointF(x + 5, y + 13), QPointF(x - 1, y + 7)]))
        p.drawText(QPointF(x + 15, y + 11), "axiom")
        x += 22 + metrics.horizontalAdvance("axiom")
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor("#e0a416"))
        p.drawPolygon(QPolygonF([QPointF(x, y + 1), QPointF(x + 8, y + 4), QPointF(x, y + 7)]))
        p.setPen(QPen(QColor("#8a5a00"), 1.2))
        p.drawLine(QPointF(x, y + 1), QPointF(x, y + 13))
        p.setPen(QColor("#4a5566"))
        p.drawText(QPointF(x + 12, y + 11), "anchor")
        x += 20 + metrics.horizontalAdvance("anchor")
        p.setPen(QPen(QColor("#1f2733"), 2))
        p.setBrush(QColor(NEUTRAL))
        p.drawEllipse(QPointF(x + 5, y + 7), 5, 5)
        p.setPen(QColor("#4a5566"))
        p.drawText(QPointF(x + 14, y + 11), "pinned")

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

    def keyPressEvent(self, event) -> None:
        key = event.key()
        if key == Qt.Key.Key_Escape:
            self.set_brush(None, None)
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(0.7)
        elif key == Qt.Key.Key_Minus:
            self.zoom(1 / 0.7)
        elif key == Qt.Key.Key_Left:
            self.pan(-0.15)
        elif key == Qt.Key.Key_Right:
            self.pan(0.15)
        elif key in (Qt.Key.Key_0, Qt.Key.Key_Home):
            self.fit()
        else:
            super().keyPressEvent(event)

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
                marks = ", ".join(m for m, on in (("axiom", dot.belief_class == "axiom"),
                                                  ("anchor", dot.user_flag),
                                                  ("pinned", dot.pinned)) if on)
                emo = f"{dot.emotion} {dot.emotion_value:.2f}" if dot.emotion else "no emotion"
                QToolTip.showText(event.globalPos(),
                                  f"{dot.title}\n{dot.ts[:10]} · {dot.key} · "
                                  f"{CLASS_NAMES.get(dot.belief_class)} · "
                                  f"{DOMAIN_NAMES.get(dot.domain)}\n{emo}"
                                  + (f" · {marks}" if marks else ""), self)
            return True
        return super().event(event)


EVENTS_SQL = (
    "SELECT e.id, e.key, e.title, e.ts, e.belief_class, e.domain, e.user_flag, e.archivable,"
    " e.emotional_weight, " + ", ".join(f"m.{name}" for name in EMOTIONS)
    + " FROM events e LEFT JOIN event_emotions m ON m.event_id = e.id"
    " WHERE e.absorbed_into IS NULL AND e.archived = 0 ORDER BY e.ts, e.id")


def load_dots(conn) -> list[Dot]:
    dots = []
    for r in conn.execute(EVENTS_SQL):
        try:
            t = parse_ts(r["ts"])
        except ValueError:
            continue
        values = [(name, r[name] or 0.0) for name in EMOTIONS]
        name, value = max(values, key=lambda x: x[1])
        jitter = (zlib.crc32(str(r["id"]).encode()) % 2001) / 1000.0 - 1.0
        dots.append(Dot(id=int(r["id"]), t=t, ts=r["ts"], title=r["title"], key=r["key"] or "",
                        belief_class=r["belief_class"], domain=r["domain"],
                        user_flag=bool(r["user_flag"]), pinned=not r["archivable"],
                        emotion=name if value >= 0.05 else None, emotion_value=float(value),
                        weight=float(r["emotional_weight"] or 0.0), jitter=jitter))
    return dots


class TimelineView(QWidget):
    def __init__(self, session: MemorySession, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self.canvas = TimelineCanvas(self)
        self._syncing = False
        self._stale = False           # a change came while hidden: re-read the dots when shown

        self.by_class = QPushButton("Lanes: belief class")
        self.by_domain = QPushButton("Lanes: domain")
        for button, mode in ((self.by_class, "class"), (self.by_domain, "domain")):
            button.setCheckable(True)
            button.clicked.connect(lambda _c=False, m=mode: self.canvas.set_lane_by(m))
        self.by_class.setChecked(True)
        self.by_class.setToolTip("One lane per belief class (axiom … hypothesis)")
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
        bar = QHBoxLayout()
        bar.addWidget(self.by_class)
        bar.addWidget(self.by_domain)
        bar.addSpacing(12)
        bar.addWidget(zoom_in)
        bar.addWidget(zoom_out)
        bar.addWidget(fit)
        bar.addSpacing(12)
        bar.addWidget(self.clear)
        bar.addStretch(1)
        hint = QLabel("Drag to filter every view to a time range · wheel: zoom · right-drag: "
                      "pan · click: select")
        hint.setStyleSheet("color: #8a94a3; font-size: 9pt;")
        hint.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        bottom = QHBoxLayout()
        bottom.addWidget(hint, 1)
        bottom.addWidget(self.info)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 6)
        layout.addLayout(bar)
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
        self.reload()

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
        memory = self.session.memory
        self._load_recalls()
        self.all_dots = load_dots(memory.conn) if memory is not None else []
        self.canvas.set_dots(self._filtered())
        self._on_brush(*self.session.brush)
        self._update_info()

    def _on_changed(self, what: str) -> None:
        if what in ("all", "recalls"):
            self._load_recalls()
            self.canvas.update()
        if what in ("all", "events", "beliefs"):
            if not self.isVisible():   # hidden: re-read when shown (live refresh stays cheap)
                self._stale = True
                return
            self._reload_dots()

    def showEvent(self, event) -> None:
        if getattr(self, "_stale", False):
            self._reload_dots()
        super().showEvent(event)

    def _reload_dots(self) -> None:
        self._stale = False
        memory = self.session.memory
        self.all_dots = load_dots(memory.conn) if memory is not None else []
        self._keep_zoom(self._filtered())

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
