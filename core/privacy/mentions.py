"""Which events name a boundary's topic in their own words (docs/privacy.md, "Topic boundaries").

An event is behind a `do_not_probe` boundary when it is linked to the boundary's entity or when
its title or description names the topic: the boundary's name or one of its aliases, found by
the very matcher that decides whether a question names the topic (`Person.named_in`: whole word
or phrase, case-insensitive, either Unicode form). "Papa died in February" is behind "Papa's
death" (alias "Papa died") whatever it is linked to.

Reading every event's text on each query would cost a scan of the whole memory per recall, so
the matches are held per boundary beside the change-log revision they reflect
(core/scoring/changelog.py), as the scorer's caches are: a write re-reads only the events it
added, removed or re-worded; a boundary that is new or whose names changed (an alias added) is
scanned anew, alone; a lifted one is dropped. The boundaries themselves are read per query
(a handful of entity rows), so a change to them counts at the next query.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from core.privacy.policy import Person
from core.scoring.changelog import RELOAD_SHARE, changes_since, current_rev
from core.store.sqlite import sqlite3

_CHUNK = 500


def _rows(conn: sqlite3.Connection, ids: list[int] | None = None
          ) -> Iterator[tuple[int, str, str]]:
    """(id, title, description) of every event, or of those in `ids`."""
    if ids is None:
        yield from conn.execute("SELECT id, title, description FROM events")
        return
    for lo in range(0, len(ids), _CHUNK):
        part = ids[lo: lo + _CHUNK]
        yield from conn.execute("SELECT id, title, description FROM events"
                                f" WHERE id IN ({','.join('?' * len(part))})", part)


def _named(rows: Iterable[tuple[int, str, str]], people: list[Person]) -> dict[int, set[int]]:
    """Boundary id → the ids of the events in `rows` whose own words name its topic."""
    out: dict[int, set[int]] = {p.id: set() for p in people}
    for event_id, title, description in rows:
        for person in people:
            if person.named_in(title or "") or person.named_in(description or ""):
                out[person.id].add(int(event_id))
    return out


class TopicMentions:
    """The events naming each boundary's topic, kept current by the change log (see the module's
    text). One per Memory (`Memory.topic_mentions`); a bare connection gets a fresh one."""

    def __init__(self) -> None:
        self.rev: str | None = None
        self.rows = 0                      # events at the last full read (the reload limit)
        self._held: dict[int, tuple[tuple[str, ...], set[int]]] = {}   # id → (names, events)
        self.scans = 0                     # full reads of every event's text (tests, benches)

    def events(self, conn: sqlite3.Connection, boundaries: list[Person]) -> dict[int, set[int]]:
        """Boundary id → the events whose own words name its topic, as of now."""
        rev = current_rev(conn)            # read first: a write after it is re-read next time
        wanted = {p.id: p for p in boundaries if p.pattern is not None}
        held = {b: h for b, h in self._held.items()
                if b in wanted and h[0] == tuple(wanted[b].names)}
        if held and self.rev != rev:
            changes = changes_since(conn, self.rev or "0",
                                    limit=max(1000, int(RELOAD_SHARE * max(self.rows, 1))))
            if changes is None:
                held = {}
            elif changes.text_rows:
                ids = sorted(changes.text_rows)
                fresh = _named(_rows(conn, ids), [wanted[b] for b in held])
                for b, (_names, found) in held.items():
                    found.difference_update(ids)
                    found.update(fresh[b])
        missing = [p for b, p in wanted.items() if b not in held]
        if missing:
            self.scans += 1
            self.rows = 0

            def counted() -> Iterator[tuple[int, str, str]]:
                for row in _rows(conn):
                    self.rows += 1
                    yield row

            for b, found in _named(counted(), missing).items():
                held[b] = (tuple(wanted[b].names), found)
        self._held, self.rev = held, rev
        return {b: found for b, (_names, found) in held.items()}
