"""Explain in the playground: why an event ranks where it does, or not at all — one sentence
first ("e057 ranks 14th: relevance 0.31, below the top 10's 0.52"), then its factor bar and
every term of its breakdown with plain names (exact values in the tooltips). It refreshes with
every query."""

from __future__ import annotations

import html
import math
from typing import Any

from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QFont, QPainter
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from pulse_desktop.numbers import sig
from pulse_desktop.playground_results import (
    BOOSTS,
    CHANNEL_NAMES,
    FACTORS,
    TERM_ORDER,
    paint_bar,
    relevance_parts,
)
from pulse_desktop.style import DOMAIN_NAMES
from pulse_desktop.term_help import term_name, term_tooltip

HINT = "event key or id, e.g. e057"
SHORT_HINT = "e.g. e057"


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def why_sentence(explained: dict[str, Any], top: dict[str, Any] | None) -> str:
    """One sentence: where the event ranks and, when it is not in the list, the factor that
    keeps it out against the top results."""
    r = explained["result"]
    name = str(r.get("key") or r.get("id"))
    if explained.get("abstained"):
        reason = str(explained.get("abstain_reason") or "").removeprefix("nothing relevant: ")
        return f"Nothing relevant for this question{': ' + reason if reason else ''}."
    if not r.get("allowed_by_domain", True):
        return (f"{name} is left out: its domain "
                f"{DOMAIN_NAMES.get(r.get('domain'), r.get('domain'))} is not allowed here.")
    if r.get("dropped"):
        return (f"{name} is not ranked: its meaning is further from the question than this "
                "memory's typical event (relevance 0).")
    rank = int(r.get("rank") or 0)
    results = (top or {}).get("results") or []
    k = len(results)
    ids = [int(x["id"]) for x in results]
    if int(r["id"]) in ids:
        return f"{name} ranks {ordinal(ids.index(int(r['id'])) + 1)} of {k}: score {sig(r['score'])}."
    if not results:
        return f"{name} would rank {ordinal(rank)}: score {sig(r.get('score'))}."
    terms = r.get("terms") or {}
    worst, worst_gap = None, 0.0
    for f in FACTORS:
        mine = terms.get(f)
        theirs = [x.get("terms", {}).get(f) for x in results]
        theirs = [v for v in theirs if isinstance(v, (int, float))]
        if not isinstance(mine, (int, float)) or not theirs:
            continue
        lowest = min(theirs)
        if mine < lowest and lowest > 0:
            gap = math.log(max(mine, 1e-9) / lowest)
            if gap < worst_gap:
                worst, worst_gap = (f, mine, lowest), gap
    if worst is not None:
        f, mine, lowest = worst
        return (f"{name} ranks {ordinal(rank)}: {term_name(f).lower()} {sig(mine)}, below "
                f"the top {k}'s {sig(lowest)}.")
    last = results[-1]
    return (f"{name} ranks {ordinal(rank)}: score {sig(r.get('score'))}, below the "
            f"{ordinal(k)}'s {sig(last.get('score'))}.")


def formula_html(result: dict[str, Any]) -> str:
    """"relevance 0.74 × time 0.97 × emotion 1 × … = 0.719", the factors of 1 in grey."""
    terms = result.get("terms") or {}
    parts = []
    for f in FACTORS:
        value = terms.get(f)
        if not isinstance(value, (int, float)):
            continue
        text = f"{html.escape(term_name(f).lower())}&nbsp;{sig(value)}"
        parts.append(f"<span style='color:#9aa4b1'>{text}</span>"
                     if abs(float(value) - 1.0) < 1e-12 else text)
    if not parts:
        return ""
    return " × ".join(parts) + f" = <b>{sig(result.get('score'))}</b>"


def parts_html(result: dict[str, Any]) -> str:
    """"relevance 1.07 = meaning 0.41 + shared words 0.2 + … + mood + body now 0.3": the parts
    that add up to relevance (the default scorer's), a part of 0 in grey; "" for a scorer
    without parts."""
    terms = result.get("terms") or {}
    added = relevance_parts(terms)
    if not added:
        return ""
    pieces = []
    for name, value in added:
        text = f"{html.escape(CHANNEL_NAMES[name].split(' (')[0])}&nbsp;{sig(value)}"
        pieces.append(f"<span style='color:#9aa4b1'>{text}</span>" if value <= 0 else text)
    return (f"{html.escape(term_name('relevance').lower())}&nbsp;{sig(terms.get('relevance'))}"
            " = " + " + ".join(pieces))


class BarLabel(QWidget):
    """One result's factor bar, as in the results list."""

    def __init__(self) -> None:
        super().__init__()
        self.result: dict[str, Any] | None = None
        self.setMinimumHeight(22)
        self.setAccessibleName("Factor bar")

    def set_result(self, result: dict[str, Any] | None) -> None:
        self.result = result
        self.setVisible(result is not None and "terms" in (result or {}))
        self.update()

    def paintEvent(self, _event) -> None:
        if not self.result:
            return
        p = QPainter(self)
        paint_bar(p, QRectF(self.rect()).adjusted(1, 3, -1, -3), self.result, QFont(self.font()))
        p.end()


class ExplainPanel(QWidget):
    """The event to explain, the sentence, the bar and the terms."""

    def __init__(self) -> None:
        super().__init__()
        self.edit = QLineEdit()
        self.edit.setPlaceholderText(HINT)
        self.edit.setToolTip(HINT)
        self.edit.setAccessibleName("Event to explain")
        # the short hint whole, whatever the width (1024 px: about 60 px for the field)
        self.edit.setMinimumWidth(self.edit.fontMetrics().horizontalAdvance(SHORT_HINT) + 20)
        self.edit.installEventFilter(self)
        self.button = QPushButton("Explain")
        self.button.setToolTip("Why this event ranks where it does, or not at all "
                               "(Ctrl+Shift+E; it also follows every query)")
        self.sentence = QLabel("Pick a result, or type an event's key, to see why it ranks "
                               "where it does.")
        self.sentence.setWordWrap(True)
        self.sentence.setObjectName("whySentence")
        self.sentence.setStyleSheet("QLabel#whySentence { font-weight: 600; color: #1f2733; }")
        self.sentence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.bar = BarLabel()
        self.bar.set_result(None)
        self.formula = QLabel("")
        self.formula.setWordWrap(True)
        self.formula.setTextFormat(Qt.TextFormat.RichText)
        self.formula.setAccessibleName("Factors multiplied")
        self.formula.setToolTip("The six factors multiply to the score; a factor of 1 (grey) "
                                "changes nothing")
        self.parts = QLabel("")
        self.parts.setWordWrap(True)
        self.parts.setTextFormat(Qt.TextFormat.RichText)
        self.parts.setAccessibleName("Parts of relevance")
        self.parts.setToolTip("What relevance is made of: meaning, shared words, what was said "
                              "beside it, linked events (a cause or consequence in a chain) and "
                              "how closely it matches the person's mood and body now. The parts "
                              "add up to relevance; a part of 0 (grey) adds nothing")
        self.terms = QTableWidget(0, 2)
        self.terms.setHorizontalHeaderLabels(["Term", "Value"])
        self.terms.verticalHeader().setVisible(False)
        self.terms.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.terms.setAccessibleName("Terms of the explained event")
        self.terms.horizontalHeader().setStretchLastSection(True)
        self.terms.setColumnWidth(0, 150)
        # The formula and the parts under the bar say the numbers that make the score; the
        # table of every term is one click away (at 1280×800 it left the list 8 rows and
        # itself 3).
        self.terms_button = QToolButton(text="Every term")
        self.terms_button.setCheckable(True)
        self.terms_button.setToolTip("Show every term of this event's breakdown with its value "
                                     "(hover a term for what it means)")
        self.terms_button.toggled.connect(self.terms.setVisible)
        self.terms.setVisible(False)
        row = QHBoxLayout()        # the Explain button names the field: no label before it
        row.addWidget(self.edit, 1)
        row.addWidget(self.button)
        row.addWidget(self.terms_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.sentence)
        layout.addWidget(self.bar)
        layout.addWidget(self.formula)
        layout.addWidget(self.parts)
        layout.addWidget(self.terms, 1)
        layout.addStretch(0)
        # room for the row, two lines of the sentence, the bar, and two of the product and of
        # the parts each (wrapped labels do not ask a splitter for their height)
        lines = self.fontMetrics().lineSpacing()
        self.setMinimumHeight(6 * lines + self.bar.minimumHeight()
                              + self.button.sizeHint().height() + 6 * layout.spacing() + 8)

    def eventFilter(self, obj, event) -> bool:
        if obj is self.edit and event.type() == QEvent.Type.Resize:
            # the long hint when it fits the field, else the short one (never a cut hint)
            need = self.edit.fontMetrics().horizontalAdvance(HINT) + 18
            self.edit.setPlaceholderText(HINT if self.edit.width() >= need else SHORT_HINT)
        return False

    def text(self) -> str:
        lines = [self.sentence.text()]
        for i in range(self.terms.rowCount()):
            lines.append(f"{self.terms.item(i, 0).text()}: {self.terms.item(i, 1).text()}")
        return "\n".join(lines)

    def show_explained(self, out: dict[str, Any], top: dict[str, Any] | None) -> None:
        r = out["result"]
        title = f"#{r['id']} {r.get('key') or ''} — {r.get('title')}"
        self.sentence.setText(why_sentence(out, top))
        self.sentence.setToolTip(title)
        self.bar.set_result(r)
        terms = r.get("terms") or {}
        self.formula.setText(formula_html(r))
        self.formula.setVisible(bool(self.formula.text()))
        self.parts.setText(parts_html(r))
        self.parts.setVisible(bool(self.parts.text()))
        order = {n: i for i, n in enumerate((*FACTORS, *TERM_ORDER))}
        names = ["score", *sorted(terms, key=lambda n: (order.get(n, 99), n))]
        self.terms.setRowCount(0)
        for name in names:
            value = r.get("score") if name == "score" else terms[name]
            i = self.terms.rowCount()
            self.terms.insertRow(i)
            label = QTableWidgetItem(term_name(name))
            label.setToolTip(term_tooltip(name))
            shown = sig(value) if isinstance(value, (int, float)) and not isinstance(
                value, bool) else ("yes" if value is True else "no" if value is False
                                   else str(value))
            cell = QTableWidgetItem(shown)
            cell.setToolTip(repr(value))
            cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if name in BOOSTS and isinstance(value, (int, float)) and abs(value - 1) < 1e-12:
                for item in (label, cell):
                    item.setForeground(Qt.GlobalColor.gray)
            self.terms.setItem(i, 0, label)
            self.terms.setItem(i, 1, cell)

    def show_message(self, text: str) -> None:
        self.sentence.setText(text)
        self.bar.set_result(None)
        self.formula.setText("")
        self.formula.setVisible(False)
        self.parts.setText("")
        self.parts.setVisible(False)
        self.terms.setRowCount(0)
