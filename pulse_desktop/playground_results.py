"""The playground's results: one list (the chosen scorer's, or the one it is compared with), each
row with its rank change against the other (▲ up, ▼ down, new), its score, a bar of its factors
and the six factors as numbers (two or three significant digits; the exact value in the tooltip
and in RAW_ROLE, as retrieve returned it).

The factor bar is drawn on one log scale shared by every row, so the lengths add up to the
score: log(score) = log(relevance) + log(recency) + log(emotion) + log(state) + log(anchor) +
log(date). Relevance is the bar from the left edge, split into the parts that add up to it
(relevance_channels): meaning, shared words, said beside it, linked (the chain context: what led
to it or came of it) and mood + body (the state channel: how closely it matches how the person
feels and how their body is now); recency takes a pale piece back off its end (what time took
away); each boost above 1 adds its piece after that. A factor of 1 adds nothing: it is
listed faded. Each piece carries its name or its letter when there is room, so the bar never
rests on colour alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

from pulse_desktop.numbers import sig
from pulse_desktop.qt_roles import (
    ACCESSIBLE,
    ALIGN_CENTER,
    ALIGN_LEFT,
    ALIGN_RIGHT,
    ALIGNMENT,
    DISPLAY,
    FONT,
    FOREGROUND,
    TOOLTIP,
    USER,
    brush,
)
from pulse_desktop.style import DOMAIN_NAMES, class_name, ink_on
from pulse_desktop.term_help import term_name, term_tooltip

FACTORS = ("relevance", "recency_factor", "emotion", "state", "anchor", "date")
BOOSTS = ("emotion", "state", "anchor", "date")
# the breakdown in the order of CLI.md, then anything a scorer adds
TERM_ORDER = ("cosine", "relevance", "days_ago", "lambda", "recency", "confidence_floor",
              "recency_eff", "floor_applied", "alpha", "recency_factor", "emotion", "state",
              "anchor", "date", "base", "median_cosine", "max_cosine", "dense_relevance",
              "bm25", "bm25_norm", "fusion_dense_weight", "context_relevance", "context_weight",
              "chain_context", "chain_context_weight", "state_relevance", "body_similarity",
              "mood_similarity", "state_weight", "via_chain")
# The bar's log axis: 0.001 at the left edge, 3 at the right (a boosted score can pass 1).
LOG_FLOOR, LOG_TOP = 1e-3, 3.0
PIECES = {  # name → (colour, label, letter)
    "meaning": ("#3f6fb5", "meaning", "M"),
    "words": ("#7fa6d9", "words", "W"),
    "beside": ("#b5cbe8", "beside", "B"),
    "linked": ("#6c8fa0", "linked", "L"),
    "mood_body": ("#5fae8c", "mood + body", "MB"),
    "relevance": ("#3f6fb5", "relevance", "R"),
    "time": ("#d7dbe3", "time", "T"),
    "emotion": ("#d0603c", "emotion", "E"),
    "state": ("#3e9a6a", "body day", "BD"),
    "anchor": ("#8a5cc0", "anchor", "A"),
    "date": ("#c9951a", "date", "D"),
    "score": ("#3f6fb5", "score", ""),
}
RAW_ROLE = USER + 1      # the untouched value of a cell
RESULT_ROLE = USER + 2   # the whole result dict (for the bar delegate)
_ROLES_ANSWERED = frozenset({DISPLAY, ALIGNMENT, FOREGROUND, FONT, RAW_ROLE, RESULT_ROLE, TOOLTIP,
                             ACCESSIBLE})


def _log(value: float) -> float:
    return math.log10(max(value, LOG_FLOOR))


@dataclass
class Piece:
    name: str           # a PIECES key
    start: float        # log10 positions on the shared axis
    end: float
    value: float        # the factor (or the channel's share of relevance)

    @property
    def lost(self) -> bool:
        return self.end < self.start


def factor_pieces(result: dict[str, Any]) -> list[Piece]:
    """The bar's pieces on the log axis (see the module docstring). Relevance runs from the
    floor to log(relevance) split by channel; each other factor moves the end by its log."""
    t = result.get("terms") or {}
    if "relevance" not in t or "recency_factor" not in t:
        score = float(result.get("score") or 0.0)
        return [Piece("score", _log(LOG_FLOOR), _log(score), score)]
    rel = float(t["relevance"])
    end = _log(rel)
    pieces: list[Piece] = []
    channels = relevance_channels(t)
    start = _log(LOG_FLOOR)
    if channels and rel > 0:
        span, total = end - start, sum(v for _n, v in channels)    # (total == rel)
        for name, share in channels:
            length = span * share / total
            pieces.append(Piece(name, start, start + length, share))
            start += length
    else:
        pieces.append(Piece("relevance", start, end, rel))
    at = end
    for term, name in (("recency_factor", "time"), *((b, b) for b in BOOSTS)):
        factor = float(t.get(term, 1.0))
        if factor <= 0 or abs(factor - 1.0) < 1e-12:
            continue
        step = math.log10(factor)
        pieces.append(Piece(name, at, at + step, factor))
        at += step
    return pieces


# The additive parts of pulse's relevance: (name, the share term, its weight term or None for
# 1 − w, a constant weight when the term is absent).
CHANNELS = (("meaning", "dense_relevance", "fusion_dense_weight"),
            ("words", "bm25_norm", None),
            ("beside", "context_relevance", "context_weight"),
            ("linked", "chain_context", "chain_context_weight"),
            ("mood_body", "state_relevance", "state_weight"))
CHANNEL_NAMES = {"meaning": "meaning", "words": "shared words", "beside": "said beside it",
                 "linked": "linked (what led to it or came of it)",
                 "mood_body": "mood + body now"}


def relevance_parts(t: dict[str, Any]) -> list[tuple[str, float]]:
    """Every additive part of a fused relevance, each = its weight × its term, as the scorer
    added them (ENGINE §3 and docs/scoring.md): meaning (w·dense), shared words
    ((1 − w)·bm25_norm), said beside it (λ·context), linked (μ·chain_context) and mood + body
    (κ·state_relevance). Parts the breakdown does not carry are left out; parts of 0 are kept.
    Empty for a scorer without channels."""
    if "dense_relevance" not in t or "bm25_norm" not in t:
        return []
    w = float(t.get("fusion_dense_weight", 1.0))
    parts = []
    for name, term, weight in CHANNELS:
        if term not in t:
            continue
        factor = (1.0 - w) if weight is None else float(t.get(weight, 0.0))
        parts.append((name, factor * float(t[term])))
    return parts


def relevance_channels(t: dict[str, Any]) -> list[tuple[str, float]]:
    """The parts of relevance_parts() above 0: the bar's pieces, which add up to relevance."""
    return [(n, v) for n, v in relevance_parts(t) if v > 0]


def bar_end(result: dict[str, Any]) -> float:
    """Where the bar ends on the log axis: log10(score) (the pieces add up to it)."""
    return _log(float(result.get("score") or 0.0))


def factor_tooltip(result: dict[str, Any]) -> str:
    t = result.get("terms") or {}
    lines = [f"score {sig(result.get('score'))} = "
             + " × ".join(sig(t.get(f, 1.0)) for f in FACTORS if f in t or f in BOOSTS)]
    for f in FACTORS:
        if f in t:
            neutral = abs(float(t[f]) - 1.0) < 1e-12 and f in BOOSTS
            lines.append(f"  {term_name(f)} {sig(t[f])}" + ("  (no effect)" if neutral else ""))
    parts = relevance_parts(t)
    if parts:
        lines.append("relevance = " + " + ".join(f"{CHANNEL_NAMES[n]} {sig(v)}"
                                                 for n, v in parts))
        if "state_relevance" in t:
            lines.append(f"  mood + body now = {sig(t.get('state_weight'))} × body match "
                         f"{sig(t.get('body_similarity'))} × mood match "
                         f"{sig(t.get('mood_similarity'))}")
        if "chain_context" in t:
            lines.append(f"  linked = {sig(t.get('chain_context_weight'))} × the best "
                         f"relevance of a linked event {sig(t['chain_context'])}")
    lines.append("The bar is on a log scale shared by every row: its pieces add up to the "
                 "score; the pale piece is what time took away.")
    return "\n".join(lines)


# -- the model -------------------------------------------------------------------------------

class ResultsModel(QAbstractTableModel):
    """One row per result. Columns: #, Change, Event, Score, Why (the bar), the six factors,
    then (with all terms shown) every other term of the breakdown."""

    FIXED = ("rank", "change", "event", "score", "why")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.output: dict[str, Any] | None = None
        self.results: list[dict[str, Any]] = []
        self.terms: list[str] = []
        self.other_ranks: dict[int, int] | None = None    # id → rank in the compared list
        self.other_label = ""
        self.all_terms = False
        self._columns: list[str] = list(self.FIXED)

    def set_output(self, output: dict[str, Any] | None, other: dict[str, Any] | None = None,
                   other_label: str = "") -> None:
        self.beginResetModel()
        self.output = output
        self.results = list(output["results"]) if output else []
        seen: list[str] = []
        for r in self.results:
            for name in r.get("terms", {}):
                if name not in seen:
                    seen.append(name)
        order = {name: i for i, name in enumerate(TERM_ORDER)}
        factors = [f for f in FACTORS if f in seen]
        rest = sorted((n for n in seen if n not in FACTORS), key=lambda n: (order.get(n, 99), n))
        self.terms = factors + rest
        self._columns = [*self.FIXED, *self.terms]
        self.other_ranks = ({int(r["id"]): i + 1 for i, r in enumerate(other["results"])}
                            if other is not None else None)
        self.other_label = other_label
        self.endResetModel()

    def factor_columns(self) -> list[int]:
        return [len(self.FIXED) + i for i, t in enumerate(self.terms) if t in FACTORS]

    def detail_columns(self) -> list[int]:
        return [len(self.FIXED) + i for i, t in enumerate(self.terms) if t not in FACTORS]

    def columns(self) -> list[str]:
        return list(self._columns)

    def column_of(self, name: str) -> int:
        return self.columns().index(name)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.results)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.FIXED) + len(self.terms)

    def rank_change(self, row: int) -> tuple[str, int | None]:
        """('▲2' | '▼1' | '=' | 'new', delta) against the compared list."""
        if self.other_ranks is None:
            return "", None
        rid = int(self.results[row]["id"])
        if rid not in self.other_ranks:
            return "new", None
        delta = self.other_ranks[rid] - (row + 1)
        return ("=" if delta == 0 else f"▲{delta}" if delta > 0 else f"▼{-delta}"), delta

    def raw(self, row: int, name: str) -> Any:
        r = self.results[row]
        if name == "rank":
            return row + 1
        if name == "change":
            return self.rank_change(row)[1]
        if name == "event":
            return r.get("key") or r.get("id")
        if name == "score":
            return r.get("score")
        if name == "why":
            return {f: r.get("terms", {}).get(f) for f in FACTORS}
        return r.get("terms", {}).get(name)

    def data(self, index: QModelIndex, role: int = DISPLAY) -> Any:
        # roles as plain ints (pulse_desktop/qt_roles.py): this runs for every painted cell
        if role not in _ROLES_ANSWERED or not index.isValid():
            return None
        row, name = index.row(), self._columns[index.column()]
        r = self.results[row]
        if role == DISPLAY:
            if name == "change":
                return self.rank_change(row)[0]
            if name == "event":
                via = "↳ via chain · " if r.get("via_chain") else ""
                return f"{via}{r.get('title')}"
            if name == "why":
                return None
            value = self.raw(row, name)
            return sig(value) if isinstance(value, (int, float)) and name != "rank" else \
                ("" if value is None else str(value))
        if role == ALIGNMENT:
            if name == "event":
                return ALIGN_LEFT
            return ALIGN_CENTER if name in ("rank", "change") else ALIGN_RIGHT
        if role == FOREGROUND:
            if name == "change":
                text, delta = self.rank_change(row)
                if text == "new" or (delta or 0) > 0:
                    return brush("#2e7d32")
                if (delta or 0) < 0:
                    return brush("#c62828")
            if name in BOOSTS or name == "recency_factor":
                value = r.get("terms", {}).get(name)
                if isinstance(value, (int, float)) and abs(value - 1.0) < 1e-12:
                    return brush("#b3bac6")        # neutral: faded
            if name == "event" and r.get("via_chain"):
                return brush("#6b5a2e")
            return None
        if role == FONT:
            if name == "event" and r.get("via_chain"):
                font = QFont()
                font.setItalic(True)
                return font
            return None
        if role == RAW_ROLE:
            return self.raw(row, name)
        if role == RESULT_ROLE:
            return r
        if role == TOOLTIP:
            return self._tooltip(row, name)
        if role == ACCESSIBLE and name == "why":
            return factor_tooltip(r)
        return None

    def _tooltip(self, row: int, name: str) -> str | None:
        r = self.results[row]
        if name == "event":
            via = r.get("via_chain")
            tail = ""
            if via:
                tail = (f"\n\nVia chain: it came with the story as a cause of event "
                        f"{via.get('anchor')} ({via.get('hops')} step"
                        f"{'s' if via.get('hops') != 1 else ''} back), not because the "
                        "question ranked it.")
            return (f"{r.get('title')}\n{r.get('key') or r.get('id')} · {str(r.get('ts'))[:10]}"
                    f" · {class_name(r.get('belief_class'))} · "
                    f"{DOMAIN_NAMES.get(r.get('domain'), r.get('domain'))}\n\n"
                    f"{r.get('text') or ''}{tail}")
        if name == "why":
            return factor_tooltip(r)
        if name == "change":
            text, delta = self.rank_change(row)
            if text == "new":
                return (f"not in the top {len(self.other_ranks or {})} of "
                        f"{self.other_label}")
            if delta is not None:
                return f"rank {row + 1} here, {self.other_ranks[int(r['id'])]} with " \
                       f"{self.other_label}"
            return None
        if name == "rank":      # with the change, which a narrow table hides (1024 px)
            change = self._tooltip(row, "change")
            return f"rank {row + 1}" + (f" · {change}" if change else "")
        value = self.raw(row, name)
        return f"{term_name(name)}: {value!r}" if value is not None else None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        cols = self.columns()
        if not 0 <= section < len(cols):
            return None
        name = cols[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return {"rank": "#", "change": "Change", "event": "Event", "score": "Score",
                    "why": "Why"}.get(name) or term_name(name)   # its tooltip: the factors
        if role == Qt.ItemDataRole.ToolTipRole:
            if name == "why":
                return ("Each factor's piece of the score, on one log scale shared by every "
                        "row: the pieces add up to the score. Relevance from the left, split "
                        "into what adds up to it: meaning, shared words, what was said beside "
                        "it, linked (a cause or consequence in a chain) and mood + body (how "
                        "closely it matches how the person feels and how their body is now). "
                        "The pale piece is what time took away; each boost adds its piece "
                        "after it.")
            if name == "change":
                return (f"Rank change against {self.other_label or 'the other scorer'}: "
                        "▲ up, ▼ down, new = not in its list")
            if name == "rank":
                return "Rank"
            if name == "event":
                return "The event (↳ via chain: a cause that came with the story)"
            return term_tooltip(name)
        return None


# -- the bar ---------------------------------------------------------------------------------

class FactorBarDelegate(QStyledItemDelegate):
    """Draws factor_pieces() of the row's result in the cell."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        super().paint(painter, option, index)
        result = index.data(RESULT_ROLE)
        if result:
            paint_bar(painter, QRectF(option.rect).adjusted(3, 5, -3, -5), result,
                      QFont(option.font))


def paint_bar(painter: QPainter, rect: QRectF, result: dict[str, Any], font: QFont) -> None:
    span = _log(LOG_TOP) - _log(LOG_FLOOR)
    left = _log(LOG_FLOOR)

    def x(pos: float) -> float:
        return rect.left() + rect.width() * (pos - left) / span

    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    painter.fillRect(rect, QColor("#f3f5f9"))
    font.setPixelSize(max(9, int(rect.height() * 0.62)))
    painter.setFont(font)
    metrics = painter.fontMetrics()
    for piece in factor_pieces(result):
        a, b = sorted((x(piece.start), x(piece.end)))
        a, b = max(a, rect.left()), min(b, rect.right())
        if b - a < 0.5:
            continue
        colour, label, letter = PIECES[piece.name]
        box = QRectF(a, rect.top(), b - a, rect.height())
        if piece.lost:          # time took it away: pale, hatched over what relevance had
            painter.fillRect(box, QColor(255, 255, 255, 170))
            painter.fillRect(box, QBrush(QColor("#9aa4b1"), Qt.BrushStyle.BDiagPattern))
            ink = QColor("#4a5566")
        else:
            painter.fillRect(box, QColor(colour))
            ink = ink_on(colour)
        text = f"{label} {sig(piece.value)}" if piece.name not in (*CHANNEL_NAMES,
                                                                   "relevance") else label
        if metrics.horizontalAdvance(text) + 4 > box.width():
            text = letter if metrics.horizontalAdvance(letter) + 2 <= box.width() else ""
        if text:
            painter.setPen(ink)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
    end = x(bar_end(result))
    painter.setPen(QPen(QColor("#1f2733"), 2))
    painter.drawLine(int(end), int(rect.top() - 2), int(end), int(rect.bottom() + 2))
    # the 1.0 mark: where a score of 1 would end
    one = x(0.0)
    painter.setPen(QPen(QColor("#8a94a3"), 1, Qt.PenStyle.DotLine))
    painter.drawLine(int(one), int(rect.top()), int(one), int(rect.bottom()))
    painter.restore()


def gates_text(out: dict[str, Any]) -> str:
    """Which boosts could switch on, in words, and what was searched for."""
    g = out.get("gates") or {}
    searched = out.get("effective_query", out.get("query"))
    if not g:
        return f"No boosts with this scorer · effective query: {searched!r}"
    state = g.get("state")
    parts = ["feelings: on" if g.get("emotion") else "feelings: off",
             f"body: {state}" if state else "body: off",
             f"a date {g['date_ref_days']:g} days back" if g.get("date_ref_days")
             is not None else "no date named",
             f"hint {g['hint']!r}" if g.get("hint") else "no hint"]
    return "Boosts — " + " · ".join(parts) + f" · effective query: {searched!r}"


def withheld_text(out: dict[str, Any]) -> str:
    """What a boundary kept out of this list: the Playground shows what a companion gets, and
    an owner checking a boundary needs to see that it held (the events stay in the timeline)."""
    n = int((out.get("withheld") or {}).get("behind_boundary") or 0)
    if not n:
        return ""
    events, them = ("events", "them") if n != 1 else ("event", "it")
    return (f"{n} {events} behind a boundary left out, as a companion would get it "
            f"(the Timeline shows {them})")


def caption(out: dict[str, Any]) -> str:
    # which scorer is shown is what the toggle beside says (a longer caption was cut)
    if out.get("abstained"):
        return "Nothing relevant"
    n = len(out["results"])
    return f"{n} result{'s' if n != 1 else ''}"
