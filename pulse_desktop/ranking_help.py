"""Help ▸ How Pulse ranks memories: a short page in the app — the score's formula, each factor
in one line, and a worked example from the open memory (one query, its best event, every
factor with its number and where the number came from).

The example is computed off the UI thread (pulse_desktop.query_thread.run_query) through
Memory.retrieve and Memory.explain; the page shows the text part at once."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from core.memory import Memory
from pulse_desktop.numbers import sig
from pulse_desktop.playground_results import CHANNEL_NAMES, relevance_parts
from pulse_desktop.query_thread import run_query
from pulse_desktop.style import CLASS_NAMES, DOMAIN_NAMES

FORMULA = "score = relevance × recency × emotion × body day × anchor × date"

# (term in the breakdown, plain name, one line)
FACTORS = (
    ("relevance", "Relevance",
     "how well the event answers the question. The default scorer adds up its meaning, the "
     "words it shares with the question, what was said beside it, the events linked to it in "
     "a chain (what led to it or came of it) and, when a mood and body are given, how closely "
     "its feelings and body match the person's now (mood + body)."),
    ("recency_factor", "Recency",
     "fades with time at the pace of the event's belief class; a core wound's floor stops the "
     f"fading, and no memory keeps less than α ({sig(Memory.scorer_defaults().alpha)}) of its "
     "relevance."),
    ("emotion", "Emotion",
     "above 1 when the event's feelings match the question's or the person's current mood."),
    ("state", "Body day",
     "above 1 when the event happened on a day like the person's today: a draining day for a "
     "stressed, short-slept body, a restoring one for a rested body (stress, sleep, heart "
     "rate, recent life events)."),
    ("anchor", "Anchor",
     "a small lift for an event the person marked as an anchor, when it is already a strong "
     "match."),
    ("date", "Date",
     "above 1 for events near a time the question names (“last spring”, “in May 2021”)."),
)

CSS = """
body { font-size: 10.5pt; color: #1f2733; }
h2 { font-size: 15pt; margin: 0 0 6px 0; }
h3 { font-size: 11pt; margin: 14px 0 4px 0; }
.formula { font-size: 12pt; font-weight: 600; background: #eef2fb; padding: 6px; }
.note { color: #5b6678; }
td { padding: 2px 8px 2px 0; vertical-align: top; }
.num { font-weight: 600; }
"""


def intro_html() -> str:
    rows = "".join(f"<tr><td><b>{name}</b></td><td>{html.escape(line)}</td></tr>"
                   for _term, name, line in FACTORS)
    return (
        "<h2>How Pulse ranks memories</h2>"
        "<p>When a companion asks what to remember, every event gets a score, and the events "
        "with the highest scores come back first. The score is a product of six factors:</p>"
        f"<p class='formula'>{FORMULA}</p>"
        f"<table>{rows}</table>"
        "<p class='note'>A factor of 1 changes nothing; the boosts (emotion, state, anchor, "
        "date) are 1 unless their signal is there. Because the factors multiply, doubling "
        "one doubles the score. When nothing in the memory is close enough to the question, "
        "Pulse says so instead of ranking (“nothing relevant”).</p>")


def recency_line(t: dict[str, Any]) -> str:
    """Where the recency number came from, in words."""
    if "days_ago" not in t or "recency_factor" not in t:
        return ""
    parts = [f"{sig(t['days_ago'])} days ago"]
    if "lambda" in t:
        parts.append(f"fading {sig(t['lambda'])} a day")
    if "recency" in t:
        parts.append(f"freshness {sig(t['recency'])}")
    if t.get("floor_applied"):
        parts.append(f"held up by its floor {sig(t.get('confidence_floor'))}")
    if "alpha" in t and "recency_eff" in t:
        parts.append(f"α {sig(t['alpha'])} + (1 − α) × {sig(t['recency_eff'])} = "
                     f"{sig(t['recency_factor'])}")
    return ", ".join(parts)


def relevance_line(t: dict[str, Any]) -> str:
    parts = relevance_parts(t)      # every part the scorer added, as the Playground shows them
    if parts:
        return (" + ".join(f"{CHANNEL_NAMES[name].split(' (')[0]} {sig(value)}"
                           for name, value in parts) + f" = {sig(t.get('relevance'))}")
    if "cosine" in t and "median_cosine" in t and "max_cosine" in t:
        return (f"cosine {sig(t['cosine'])}, where this memory's typical match is "
                f"{sig(t['median_cosine'])} (→ 0) and the best {sig(t['max_cosine'])} (→ 1)")
    return ""


def example_html(query: str, explained: dict[str, Any]) -> str:
    """The worked example: one query, its best event, each factor with its number."""
    r = explained["result"]
    t = r.get("terms", {})
    name = f"{r.get('key') or r['id']} “{r.get('title', '')}”"
    where = (f"{CLASS_NAMES.get(r.get('belief_class'), r.get('belief_class'))} · "
             f"{DOMAIN_NAMES.get(r.get('domain'), r.get('domain'))} · {str(r.get('ts'))[:10]}")
    numbers = " × ".join(sig(t.get(term, 1.0)) for term, _n, _l in FACTORS)
    rows = []
    for term, label, _line in FACTORS:
        value = t.get(term, 1.0)
        why = {"relevance": relevance_line(t), "recency_factor": recency_line(t)}.get(term, "")
        if not why:
            why = "no boost" if abs(float(value) - 1.0) < 1e-9 else "boosted"
        rows.append(f"<tr><td>{label}</td><td class='num'>{sig(value)}</td>"
                    f"<td class='note'>{html.escape(why)}</td></tr>")
    rank = r.get("rank")
    return (
        f"<h3>An example from this memory</h3>"
        f"<p>For the question <b>“{html.escape(query)}”</b>, "
        f"{'the best event is' if rank in (1, None) else f'rank {rank} is'} "
        f"<b>{html.escape(name)}</b> <span class='note'>({html.escape(where)})</span>:</p>"
        f"<p class='formula'>{numbers} = {sig(r.get('score'))}</p>"
        f"<table>{''.join(rows)}</table>"
        "<p class='note'>Try your own questions in the Playground tab (Ctrl+4): every result "
        "shows these six factors as a bar.</p>")


def pick_example(memory, query: str | None, selected: tuple[str, int] | None) -> dict:
    """(on the query thread) A question and its best event, explained: the Playground's
    question if it has one, else the selected event's title, else the title of the memory's
    most emotional event."""
    if not query and selected and selected[0] == "event":
        query = memory.event_detail(int(selected[1]))["event"].get("title")
    if not query:
        row = memory.conn.execute(
            "SELECT title FROM events WHERE absorbed_into IS NULL "
            "ORDER BY emotional_weight DESC, id LIMIT 1").fetchone()
        if row is None:
            return {"query": None}
        query = row[0]
    out = memory.retrieve(query, top_k=1)
    if not out.get("results"):
        return {"query": query, "abstained": out.get("abstained"),
                "reason": out.get("abstain_reason")}
    best = out["results"][0]
    explained = memory.explain(best["id"], query, now=out["now"], scorer=out["scorer"])
    return {"query": query, "explained": explained}


class RankingHelp(QDialog):
    """The page; ``refresh()`` recomputes the example for the memory open now."""

    exampleReady = Signal(dict)

    def __init__(self, session, parent: QWidget | None = None,
                 query_hint: Callable[[], str | None] | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.query_hint = query_hint
        self.setWindowTitle("How Pulse ranks memories")
        self.resize(640, 620)
        self.browser = QTextBrowser()
        self.browser.setAccessibleName("How Pulse ranks memories")
        self.browser.document().setDefaultStyleSheet(CSS)
        self.browser.setOpenExternalLinks(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)
        self.example: dict[str, Any] | None = None
        self._generation = 0
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)

    def text(self) -> str:
        return self.browser.toPlainText()

    def refresh(self) -> None:
        self._generation += 1
        generation = self._generation
        path = self.session.path
        if path is None:
            self.browser.setHtml(intro_html() + "<h3>An example</h3><p class='note'>Open a "
                                 "memory to see an example from it.</p>")
            return
        self.browser.setHtml(intro_html() + "<h3>An example from this memory</h3>"
                             "<p class='note'>Working one out…</p>")
        query = self.query_hint() if self.query_hint else None
        selected = self.session.selection
        run_query(path, lambda memory: pick_example(memory, query, selected),
                  lambda out: self._done(generation, out),
                  lambda text: self._done(generation, {"error": text}))

    def _done(self, generation: int, out: dict[str, Any]) -> None:
        if generation != self._generation:
            return
        self.example = out
        if "explained" in out:
            tail = example_html(out["query"], out["explained"])
        elif out.get("error"):
            tail = f"<h3>An example</h3><p class='note'>No example: {html.escape(out['error'])}</p>"
        elif out.get("query") is None:
            tail = "<h3>An example</h3><p class='note'>This memory has no events yet.</p>"
        else:
            tail = (f"<h3>An example</h3><p class='note'>For “{html.escape(out['query'])}” "
                    "Pulse found nothing relevant"
                    + (f": {html.escape(str(out.get('reason')))}" if out.get("reason") else "")
                    + ".</p>")
        self.browser.setHtml(intro_html() + tail)
        self.exampleReady.emit(out)
