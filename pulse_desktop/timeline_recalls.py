"""Recall moments on the timeline: a small teal mark above the plot at each moment the
companion recalled something (the memory's recall log), with a tooltip saying who asked what,
and a click that opens the moment in the Recalls tab."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF

RECALL_COLOR = "#1a9c8c"
MARK_H = 7.0


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
                "the session brief" if self.tool == "brief" else "an event by id")
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
    """Draw the marks in the strip above the plot; returns (x, id) for hit tests."""
    hits: list[tuple[float, int]] = []
    y = r.top() - 2
    p.setPen(QPen(QColor("#0f6f64"), 0.8))
    p.setBrush(QColor(RECALL_COLOR))
    for mark in canvas.recalls:
        if not canvas.t0 <= mark.t <= canvas.t1:
            continue
        x = canvas.x_of(mark.t)
        p.drawPolygon(QPolygonF([QPointF(x - 4, y - MARK_H), QPointF(x + 4, y - MARK_H),
                                 QPointF(x, y)]))
        hits.append((x, mark.id))
    return hits


def mark_at(canvas, x: float, y: float) -> RecallMark | None:
    r = canvas.plot_rect()
    if not r.top() - MARK_H - 6 <= y <= r.top() + 2:
        return None
    best = min(canvas._recall_hits, key=lambda h: abs(h[0] - x), default=None)
    if best is None or abs(best[0] - x) > 6:
        return None
    return next((m for m in canvas.recalls if m.id == best[1]), None)


def paint_legend(p: QPainter, x: float, y: float) -> float:
    p.setPen(QPen(QColor("#0f6f64"), 0.8))
    p.setBrush(QColor(RECALL_COLOR))
    p.drawPolygon(QPolygonF([QPointF(x, y + 3), QPointF(x + 9, y + 3), QPointF(x + 4.5, y + 11)]))
    p.setPen(QColor("#4a5566"))
    p.drawText(QPointF(x + 13, y + 11), "recalled")
    return x + 18 + p.fontMetrics().horizontalAdvance("recalled")
