"""Painting the timeline canvas: lanes, the time axis, the brush, the events (coloured by their
dominant emotion, with the emotion's letter in the dot; diamonds for core wounds, a flag for an
anchor, a dark ring when pinned), the dense path for very many events, the legend (it wraps
onto more rows when the canvas is narrow) and, with keyboard focus, a focus ring and the
keyboard cursor."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPainterPath, QPen, QPolygonF

from core.emotion.plutchik import EMOTIONS
from pulse_desktop import timeline_recalls
from pulse_desktop.style import (
    ACCENT,
    DOMAIN_COLORS,
    DOMAIN_NAMES,
    EMOTION_COLORS,
    EMOTION_LETTERS,
    NEUTRAL,
    class_name,
    color,
    ink_on,
)
from pulse_desktop.timeline_data import DAY

DETAIL_LIMIT = 4000      # above this many visible events, draw them as plain points
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
LEGEND_ROW = 18
LEGEND_MARKS = ("core wound", "anchor", "pinned")


def small_font(base: QFont, factor: float = 0.9) -> QFont:
    font = QFont(base)
    font.setPointSizeF(max(7.5, font.pointSizeF() * factor))
    return font


def legend_layout(canvas, width: float) -> list[tuple[str, str, float, int]]:
    """(kind, name, x, row) for each legend item, wrapped to `width`."""
    metrics = QFontMetrics(small_font(canvas.font()))
    items = [("emotion", name) for name in EMOTIONS] + [("mark", m) for m in LEGEND_MARKS]
    out, x, row = [], 12.0, 0
    for kind, name in items:
        w = 20 + metrics.horizontalAdvance(name) + 8
        if x + w > width - 8 and x > 12:
            x, row = 12.0, row + 1
        out.append((kind, name, x, row))
        x += w
    return out


def legend_height(canvas) -> float:
    rows = max((row for *_rest, row in legend_layout(canvas, canvas.width())), default=0) + 1
    return 8 + rows * LEGEND_ROW


def draw_emotion_dot(p: QPainter, x: float, y: float, radius: float, emotion: str | None,
                     alpha: int = 255, letter: bool = True) -> None:
    """A dot of the emotion's colour with its letter in it when it is big enough to read."""
    hex_code = EMOTION_COLORS.get(emotion or "", NEUTRAL)
    p.setBrush(color(hex_code, alpha))
    p.drawEllipse(QPointF(x, y), radius, radius)
    if letter and emotion and radius >= 5.5:
        draw_letter(p, x, y, radius, EMOTION_LETTERS.get(emotion, "?"), hex_code, alpha)


def draw_letter(p: QPainter, x: float, y: float, radius: float, letter: str, hex_code: str,
                alpha: int = 255) -> None:
    font = QFont(p.font())
    font.setBold(True)
    font.setPixelSize(max(8, round(radius * 1.25)))
    p.save()
    p.setFont(font)
    ink = ink_on(hex_code)
    ink.setAlpha(alpha)
    p.setPen(ink)
    p.drawText(QRectF(x - radius, y - radius, 2 * radius, 2 * radius),
               Qt.AlignmentFlag.AlignCenter, letter)
    p.restore()


def paint(canvas, p: QPainter) -> None:
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.fillRect(canvas.rect(), QColor("#ffffff"))
    r = canvas.plot_rect()
    lanes = canvas.lanes()
    lane_h = r.height() / len(lanes)
    paint_lanes(canvas, p, r, lanes, lane_h)
    paint_axis(canvas, p, r)
    brush = canvas._live_brush()
    if brush is not None:
        x0, x1 = sorted((canvas.x_of(brush[0]), canvas.x_of(brush[1])))
        x0, x1 = max(x0, r.left()), min(x1, r.right())
        if x1 > x0:
            p.fillRect(QRectF(x0, r.top(), x1 - x0, r.height()), color(ACCENT, 34))
            p.setPen(QPen(color(ACCENT, 160), 1.2))
            p.drawLine(QPointF(x0, r.top()), QPointF(x0, r.bottom()))
            p.drawLine(QPointF(x1, r.top()), QPointF(x1, r.bottom()))
    p.setClipRect(r.adjusted(-8, -4, 8, 4))
    paint_events(canvas, p, r, lanes, lane_h, brush)
    p.setClipping(False)
    canvas._recall_hits = timeline_recalls.paint(p, canvas, r)
    paint_legend(canvas, p)
    if not canvas.dots:
        p.setPen(QColor("#6b7585"))
        p.drawText(r, Qt.AlignmentFlag.AlignCenter,
                   getattr(canvas, "empty_text", None) or "No events in this memory yet.")
    if canvas.hasFocus():
        paint_focus(canvas, p, r)


def paint_lanes(canvas, p: QPainter, r: QRectF, lanes: list[str], lane_h: float) -> None:
    label_font = small_font(canvas.font(), 0.95)
    counts = canvas._lane_counts()
    for i, lane in enumerate(lanes):
        y = r.top() + i * lane_h
        if i % 2 == 0:
            p.fillRect(QRectF(0, y, canvas.width(), lane_h), QColor("#f7f8fc"))
        p.setPen(QColor("#e3e7ef"))
        p.drawLine(QPointF(0, y), QPointF(canvas.width(), y))
        name = class_name(lane) if canvas.lane_by == "class" else DOMAIN_NAMES.get(lane, lane)
        p.setFont(label_font)
        p.setPen(QColor("#2d3645") if canvas.lane_by == "class" else QColor(DOMAIN_COLORS[lane]))
        p.drawText(QRectF(10, y, r.left() - 16, lane_h),
                   Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft
                   | Qt.TextFlag.TextWordWrap, f"{name}\n{counts.get(lane, 0)} events")
    p.setPen(QColor("#e3e7ef"))
    p.drawLine(QPointF(0, r.bottom()), QPointF(canvas.width(), r.bottom()))


def paint_events(canvas, p: QPainter, r: QRectF, lanes: list[str], lane_h: float,
                 brush) -> None:
    canvas._hits = []
    lane_index = {lane: i for i, lane in enumerate(lanes)}
    canvas._dense = None
    visible = [d for d in canvas.dots if canvas.t0 <= d.t <= canvas.t1]
    if len(visible) > DETAIL_LIMIT:
        paint_dense(canvas, p, r, lane_h, lanes, brush)
        visible = [d for d in visible if d.belief_class == "axiom" or d.user_flag
                   or d.id == canvas.selected][:DETAIL_LIMIT]
    for d in visible:
        x = canvas.x_of(d.t)
        li = lane_index.get(canvas.lane_of(d))
        if li is None:
            continue
        y = r.top() + (li + 0.5) * lane_h + d.jitter * lane_h * 0.34
        radius = 5.0 + 5.0 * max(0.0, min(1.0, d.weight))
        inside = brush is None or (min(brush) <= d.t <= max(brush))
        alpha = 235 if inside else 55
        outline = QColor("#1f2733") if d.pinned else color("#ffffff", 230)
        p.setPen(QPen(color(outline.name(), alpha), 2.0 if d.pinned else 1.0))
        hex_code = EMOTION_COLORS.get(d.emotion or "", NEUTRAL)
        if d.belief_class == "axiom":
            k = radius * 1.35
            p.setBrush(color(hex_code, alpha))
            p.drawPolygon(QPolygonF([QPointF(x, y - k), QPointF(x + k, y), QPointF(x, y + k),
                                     QPointF(x - k, y)]))
            if d.emotion:
                draw_letter(p, x, y, radius, EMOTION_LETTERS.get(d.emotion, "?"), hex_code,
                            alpha)
        else:
            draw_emotion_dot(p, x, y, radius, d.emotion, alpha)
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
        if d.id == canvas.selected:
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.setPen(QPen(QColor(ACCENT), 2.5))
            p.drawEllipse(QPointF(x, y), radius + 5, radius + 5)
        canvas._hits.append((x, y, radius + 3, d.id))


def paint_dense(canvas, p: QPainter, r: QRectF, lane_h: float, lanes: list[str], brush) -> None:
    """Many events: vectorised positions, one point per occupied pixel and colour."""
    _dots, t, jitter, colour, ids, colours = canvas._arrays()
    lane_of = {lane: i for i, lane in enumerate(lanes)}
    key = "belief_class" if canvas.lane_by == "class" else "domain"
    lane = np.fromiter((lane_of.get(getattr(d, key), -1) for d in canvas.dots),
                       dtype=np.int64, count=len(canvas.dots))
    keep = (t >= canvas.t0) & (t <= canvas.t1) & (lane >= 0)
    x = r.left() + (t[keep] - canvas.t0) / (canvas.t1 - canvas.t0) * r.width()
    y = r.top() + (lane[keep] + 0.5) * lane_h + jitter[keep] * lane_h * 0.38
    inside = np.ones(x.shape, dtype=bool) if brush is None else \
        (t[keep] >= min(brush)) & (t[keep] <= max(brush))
    px, py = (x // 2).astype(np.int64), (y // 2).astype(np.int64)   # 2-pixel cells
    cell = (px * 4096 + py) * 32 + colour[keep] * 2 + inside
    _unique, first = np.unique(cell, return_index=True)
    canvas._dense = (x, y, ids[keep])
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


def paint_axis(canvas, p: QPainter, r: QRectF) -> None:
    p.setFont(canvas.font())
    for t, label, major in ticks(canvas.t0, canvas.t1, r.width()):
        x = canvas.x_of(t)
        if x < r.left() - 1 or x > r.right() + 1:
            continue
        p.setPen(QPen(QColor("#dfe3ec" if major else "#eef0f5"), 1))
        p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()))
        p.setPen(QColor("#4a5566" if major else "#8a94a3"))
        p.drawLine(QPointF(x, r.bottom()), QPointF(x, r.bottom() + 5))
        p.drawText(QRectF(x - 60, r.bottom() + 6, 120, 20),
                   Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, label)


def ticks(t0: float, t1: float, width: float) -> list[tuple[float, str, bool]]:
    span_days = (t1 - t0) / DAY
    per_px = span_days / max(width, 1)
    want = per_px * 90  # days between labels
    start = datetime.fromtimestamp(t0, timezone.utc)
    end = datetime.fromtimestamp(t1, timezone.utc)
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
            out.append((moment.timestamp(), str(y) if m == 1 else MONTHS[m - 1], m == 1))
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


def paint_legend(canvas, p: QPainter) -> None:
    """Each emotion as its coloured dot with its letter and its name; then the marks."""
    p.setFont(small_font(canvas.font()))
    for kind, name, x, row in legend_layout(canvas, canvas.width()):
        y = 8 + row * LEGEND_ROW
        cy = y + 7
        if kind == "emotion":
            p.setPen(Qt.PenStyle.NoPen)
            draw_emotion_dot(p, x + 6, cy, 6.5, name)
        elif name == "core wound":
            p.setPen(QPen(QColor("#1f2733"), 1.2))
            p.setBrush(QColor("#ffffff"))
            p.drawPolygon(QPolygonF([QPointF(x + 6, cy - 6), QPointF(x + 12, cy),
                                     QPointF(x + 6, cy + 6), QPointF(x, cy)]))
        elif name == "anchor":
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor("#e0a416"))
            p.drawPolygon(QPolygonF([QPointF(x + 3, cy - 6), QPointF(x + 11, cy - 3),
                                     QPointF(x + 3, cy)]))
            p.setPen(QPen(QColor("#8a5a00"), 1.2))
            p.drawLine(QPointF(x + 3, cy - 6), QPointF(x + 3, cy + 6))
        else:
            p.setPen(QPen(QColor("#1f2733"), 2))
            p.setBrush(QColor(NEUTRAL))
            p.drawEllipse(QPointF(x + 6, cy), 5, 5)
        p.setPen(QColor("#4a5566"))
        p.drawText(QPointF(x + 17, cy + 4), name)


def paint_focus(canvas, p: QPainter, r: QRectF) -> None:
    """Keyboard focus: a ring round the canvas and the cursor the arrows move."""
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.setPen(QPen(QColor(ACCENT), 2))
    p.drawRect(QRectF(canvas.rect()).adjusted(1, 1, -1, -1))
    x = canvas.x_of(canvas.cursor_t())
    if r.left() <= x <= r.right():
        p.setPen(QPen(color(ACCENT, 200), 1.5, Qt.PenStyle.DashLine))
        p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()))
        day = datetime.fromtimestamp(canvas.cursor_t(), timezone.utc).strftime("%Y-%m-%d")
        p.setFont(small_font(canvas.font()))
        p.setPen(QColor(ACCENT))
        width = p.fontMetrics().horizontalAdvance(day)
        left = x + 4 if x + 4 + width < r.right() else x - 4 - width
        p.drawText(QPointF(left, r.bottom() - 4), day)
