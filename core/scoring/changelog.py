"""Reading the index change log (migration 010): which events changed since a revision.

Every cache derived from the memory (the vector index per model, the chain graph, the word
counts) remembers the revision it reflects and, when the memory has moved on, asks only for the
events changed since — whether this process or another one wrote them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.store.sqlite import sqlite3

# Above this many changed events a full reload is cheaper than row-by-row updates.
RELOAD_SHARE = 0.25


@dataclass
class Changes:
    rev: str                                           # the revision these changes lead to
    rows: set[int] = field(default_factory=set)        # events to re-read (any kind)
    text: bool = False                                 # an event was added, removed or re-worded
    text_rows: set[int] = field(default_factory=set)   # the events of those 'text' changes
    chains: set[int] = field(default_factory=set)      # events whose chain links changed


def current_rev(conn: sqlite3.Connection) -> str:
    """The memory's revision: the last change-log seq ever issued ('0' for none)."""
    row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'index_changes'").fetchone()
    return str(row[0]) if row else "0"


def changes_since(conn: sqlite3.Connection, rev: str, limit: int | None = None
                  ) -> Changes | None:
    """The changes after `rev`, or None when they cannot be told row by row: the log was pruned
    past `rev`, or more than `limit` distinct events changed."""
    floor = conn.execute("SELECT value FROM pulse_meta WHERE key = 'index_log_floor'").fetchone()
    if floor is None or int(rev) < int(floor[0]):
        return None
    out = Changes(rev=rev)
    last = int(rev)
    for seq, event_id, kind in conn.execute(
            "SELECT seq, event_id, kind FROM index_changes WHERE seq > ? ORDER BY seq", (last,)):
        last = seq
        if kind == "chain":
            out.chains.add(int(event_id))
            continue
        out.rows.add(int(event_id))
        if kind == "text":
            out.text = True
            out.text_rows.add(int(event_id))
        if limit is not None and len(out.rows) > limit:
            return None
    out.rev = str(last)
    return out
