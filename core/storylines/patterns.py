"""A distilled pattern's readable title and description, written by the offline summariser.

At promotion (core/ingest/pipeline.py) the pattern is titled "Dana, 3 times: we viewed flats
on Mill Road…" — who, how often, and the most central thing said — and its description is the
dated 1-3 sentence summary followed by the members' own lines (kept, so full-text search still
finds what was said). When a model summarises the pattern's storyline (core/storylines/llm.py,
opt-in), its title and summary replace these the same way. Patterns distilled before this had titles like "Dana: recurring — flat,
lease, road"; `pulse upkeep` rewrites those (journaled), keeping the pattern's vector (its
members' centroid) by updating the vector's text hash too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from core.store.records import text_hash
from core.store.sqlite import sqlite3
from core.storylines.summarise import Member, summarise

OLD_TITLE = re.compile(r"(?:^|: )recurring — ")


def pattern_text(members: Sequence[Member], speaker: str = "") -> tuple[str, str]:
    """(title, description) of a pattern distilled from `members` (story order)."""
    summary = summarise(members)
    head = summary.title
    if speaker and head.startswith(f"{speaker}: "):
        head = head[len(speaker) + 2:]
    if head[:1].isupper() and not head.startswith("I "):
        head = head[0].lower() + head[1:]
    count = f"{len(members)} times"
    title = f"{speaker}, {count}: {head}" if speaker else f"{count[0].upper()}{count[1:]}: {head}"
    lines = "\n".join(m.description for m in members)
    return title, f"{summary.text}\n\n{lines}".strip()


def retitle_changes(memory: Any) -> list[dict[str, Any]]:
    """Rewrites of live patterns that still carry an old "recurring —" title."""
    from core.storylines.graph import names_of

    conn: sqlite3.Connection = memory.conn
    changes: list[dict[str, Any]] = []
    for pattern in conn.execute(
            "SELECT id, title, description FROM events WHERE provenance = 'memory_pattern'"
            " AND absorbed_into IS NULL AND archived = 0 ORDER BY id").fetchall():
        if not OLD_TITLE.search(pattern["title"]):
            continue
        rows = conn.execute("SELECT id, ts, title, description FROM events WHERE"
                            " absorbed_into = ? ORDER BY ts, id", (pattern["id"],)).fetchall()
        if not rows:
            continue
        people, names = names_of(conn, [int(r["id"]) for r in rows])
        members = [Member(int(r["id"]), r["ts"], r["title"], r["description"] or "",
                          people.get(int(r["id"]), []), names.get(int(r["id"]), []))
                   for r in rows]
        speaker = pattern["title"].split(": recurring — ")[0] if ": recurring — " in \
            pattern["title"] else ""
        title, description = pattern_text(members, speaker)
        changes += rewrite_changes(conn, dict(pattern), title, description)
    return changes


def rewrite_changes(conn: sqlite3.Connection, pattern: dict[str, Any], title: str,
                    description: str) -> list[dict[str, Any]]:
    """A pattern event's new title and description; its vector (the members' centroid) stays,
    its text hash follows so `pulse embed` does not replace it."""
    if (title, description) == (pattern["title"], pattern["description"]):
        return []
    changes: list[dict[str, Any]] = [{"t": "events", "a": "update", "pk": {"id": pattern["id"]},
                                      "set": {"title": title, "description": description},
                                      "old": {"title": pattern["title"],
                                              "description": pattern["description"]}}]
    new_hash = text_hash(title, description)
    current = text_hash(pattern["title"], pattern["description"])
    for model, old_hash in conn.execute("SELECT model, text_hash FROM event_embeddings"
                                        " WHERE event_id = ? AND text_hash = ?",
                                        (pattern["id"], current)).fetchall():
        changes.append({"t": "event_embeddings", "a": "update",
                        "pk": {"event_id": pattern["id"], "model": model},
                        "set": {"text_hash": new_hash}, "old": {"text_hash": old_hash}})
    return changes


def model_rewrite_changes(conn: sqlite3.Connection, pattern_id: int, title: str,
                          summary: str) -> list[dict[str, Any]]:
    """A model's summary of a pattern's storyline becomes the pattern's title and description
    too (the members' own lines kept below it)."""
    pattern = conn.execute("SELECT id, title, description FROM events WHERE id = ?",
                           (pattern_id,)).fetchone()
    if pattern is None:
        return []
    lines = "\n".join(r[0] for r in conn.execute(
        "SELECT description FROM events WHERE absorbed_into = ? ORDER BY ts, id", (pattern_id,)))
    return rewrite_changes(conn, dict(pattern), title, f"{summary}\n\n{lines}".strip())
