"""The detail panel's storyline section, read off the UI thread.

Which storyline an event belongs to comes from the storyline graph, whose centroids need the
whole vector index: on the UI thread's own Memory that was a full index load (12 s at 100k
events) on the first selection and a graph rebuild (~1 s) after every pin. Here the panel asks
the query thread (pulse_desktop/query_thread.py, whose index is already warm) and shows the
section when it arrives; events that cannot be in a storyline (no chain link, not a distilled
pattern) are told apart by two indexed lookups and never ask at all. A belief edit (class,
floor, pin) moves no storyline, so it keeps what was read.
"""

from __future__ import annotations

import html
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Signal

from core.errors import PulseError
from pulse_desktop.query_thread import run_query

READING = "<p class='note'>Storyline: reading…</p>"


def may_be_in_storyline(conn: Any, event: Any) -> bool:
    """False only when the event cannot be in a storyline (no chain link, not a pattern)."""
    if event["provenance"] == "memory_pattern" or event["absorbed_into"]:
        return True
    return conn.execute("SELECT 1 FROM event_chains WHERE parent_id = ? UNION ALL SELECT 1"
                        " FROM event_chains WHERE child_id = ? LIMIT 1",
                        (event["id"], event["id"])).fetchone() is not None


def render(story: dict[str, Any] | None, event_id: int) -> str:
    """The section's HTML (empty when the event is in no storyline)."""
    if story is None:
        return ""
    esc = html.escape
    span = story["span"]
    dates = span["from"][:10] if span["from"][:10] == span["to"][:10] else \
        f"{span['from'][:10]} – {span['to'][:10]}"
    kind = "Pattern" if story["kind"] == "pattern" else "Storyline"
    members = ", ".join(f'<a href="pulse://event/{int(e["id"])}">{esc(e["ts"][:10])}</a>'
                        for e in story["events"] if e["id"] != event_id)
    return (f"<h3>{kind} · {story['size']} events · {esc(dates)}</h3>"
            f"<p><b>{esc(story['title'])}</b></p><p>{esc(story['summary'])}</p>"
            + (f"<p class='note'>Also in it: {members}</p>" if members else ""))


def _read(memory: Any, event_id: int) -> dict[str, Any] | None:
    try:
        return memory.storyline(event_id)
    except PulseError:          # in no storyline
        return None


class StorylineSection(QObject):
    """html(event row) → the section now (cached, or a "reading…" note while the query thread
    reads it); `ready(event_id)` when it arrived."""

    ready = Signal(int)

    def __init__(self, session: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._cache: dict[int, str] = {}
        self._asked: set[int] = set()
        self._generation = 0
        session.changed.connect(self._changed)
        session.opened.connect(self.clear)

    def clear(self, *_args) -> None:
        self._generation += 1
        self._cache.clear()
        self._asked.clear()

    def _changed(self, what: str) -> None:
        if what in ("recalls", "corrections") or (
                what == "beliefs" and self.session.changed_items is not None):
            return      # nothing a storyline is made of
        self.clear()

    def html(self, event: Any) -> str:
        event_id = int(event["id"])
        if event_id in self._cache:
            return self._cache[event_id]
        memory, path = self.session.memory, self.session.path
        if memory is None or path is None or not may_be_in_storyline(memory.conn, event):
            return ""
        if event_id not in self._asked:
            self._asked.add(event_id)
            generation = self._generation

            # the panel may be gone when the answer comes (a closed window): then drop it
            def done(story: dict[str, Any] | None) -> None:
                if shiboken6.isValid(self) and generation == self._generation:
                    self._cache[event_id] = render(story, event_id)
                    self.ready.emit(event_id)

            def failed(_text: str) -> None:
                if shiboken6.isValid(self) and generation == self._generation:
                    self._cache[event_id] = ""
                    self.ready.emit(event_id)

            run_query(path, lambda m: _read(m, event_id), done, failed)
        return READING
