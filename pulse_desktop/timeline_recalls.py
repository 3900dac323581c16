"""Recall moments on the timeline: a teal mark along the top of the plot at each moment the
companion recalled something (the memory's recall log), labelled with how many, with a tooltip
saying who asked what (the newest there), and a click that opens it in the Recalls tab."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF

from pulse_desktop.style import color

RECALL_COLOR = "#1a9c8c"
MARK_H = 8.0
BUCKET_PX = 6      # moments this close share one mark


@dataclass
class RecallMark:
    id: int
    t: float
    ts: str
    tool: str
    client: str
    query: str
    count: int

    def tip(self) -> str:
        what = (f"“{self.query}”" if self.query else
                "the session brief" if self.tool == "brief" else
                "what led to an event" if self.tool == "why" else "an event by id")
        return (f"{self.ts[:16].replace('T', ' ')} UTC · {self.client} recalled {what}\n"
                f"{self.count} result{'s' if self.count != 1 else ''} · click to open it in "
                "Recalls")


def marks_from(moments: list[dict], parse_ts) -> list[RecallMark]:
    out = []
    for m in moments:
        try:
            t = parse_ts(m["ts"])
        except ValueError:
            continue
        out.append(RecallMark(m["id"], t, m["ts"], m["tool"], m["client"], m["query"],
                              m["count"]))
    return out


def paint(p: QPainter, canvas, r: QRectF) -> list[tuple[float, int]]:
    """Draw the marks along the top of the plot: a teal triangle and a faint line per moment;
    moments closer than a few pixels share one mark labelled with their count ("7 recalls").
    Returns (x, id of the newest moment there) for hit tests."""
    buckets: dict[int, list[RecallMark]] = {}
    for mark in canvas.recalls:
        if canvas.t0 <= mark.t <= canvas.t1:
            buckets.setdefault(round(canvas.x_of(mark.t) / BUCKET_PX), []).append(mark)
    hits: list[tuple[float, int]] = []
    font = p.font()
    font.setPointSizeF(max(7.5, font.pointSizeF() * 0.85))
    p.setFont(font)
    for group in buckets.values():
        x = sum(canvas.x_of(m.t) for m in group) / len(group)
        p.setPen(QPen(color(RECALL_COLOR, 90), 1.0, Qt.PenStyle.DashLine))
        p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()))
        p.setPen(QPen(QColor("#0f6f64"), 0.8))
        p.setBrush(QColor(RECALL_COLOR))
        p.drawPolygon(QPolygonF([QPointF(x - 5, r.top() + 1), QPointF(x + 5, r.top() + 1),
                                 QPointF(x, r.top() + 1 + MARK_H)]))
        label = f"{len(group)} recall{'s' if len(group) != 1 else ''}"
        width = p.fontMetrics().horizontalAdvance(label)
        left = x + 8 if x + 8 + width < r.right() else x - 8 - width
        p.setPen(QColor("#0f6f64"))
        p.drawText(QPointF(left, r.top() + 10), label)
        newest = max(group, key=lambda m: (m.t, m.id))
        hits.append((x, newest.id))
    return hits


def mark_at(canvas, x: float, y: float) -> RecallMark | None:
    r = canvas.plot_rect()
    if not r.top() - 2 <= y <= r.top() + MARK_H + 6:
        return None
    best = min(canvas._recall_hits, key=lambda h: abs(h[0] - x), default=None)
    if best is None or abs(best[0] - x) > 7:
        return None
    return next((m for m in canvas.recalls if m.id == best[1]), None)
