"""The glossary of fictional names and patterns: what mentions a term takes its domain
(INGEST §2.3). Every change is journaled."""

from __future__ import annotations

import re
from typing import Any

from core import beliefs
from core.errors import PulseError, ValidationError
from core.store.commands import execute, transaction


def add_glossary_term(memory: Any, term: str, *, domain: str = "fiction_content",
                      pattern: bool = False, kind: str = "fictional_character",
                      actor: str = "manual", note: str = "") -> int:
    """Add a fictional name (or a regex with pattern=True): later imports set the domain of what
    mentions it. Journaled."""
    from core.store.commands import next_id

    memory._writable()
    if domain not in beliefs.DOMAINS:
        raise ValidationError(f"glossary {term!r}: unknown domain {domain!r}")
    if kind not in beliefs.ENTITY_KINDS:
        raise ValidationError(f"glossary {term!r}: unknown kind {kind!r}")
    if not isinstance(term, str) or not term.strip():
        raise ValidationError(f"glossary term {term!r}: give a name (it is empty)")
    if pattern:
        try:
            compiled = re.compile(term)
        except re.error as exc:
            raise ValidationError(f"glossary pattern {term!r}: {exc}") from None
        if compiled.search("") is not None:   # it would put every text in the term's domain
            raise ValidationError(f"glossary pattern {term!r} matches an empty text, so it "
                                  "would match every event")
    with transaction(memory.conn):
        row = memory.conn.execute("SELECT id FROM glossary WHERE term = ? AND is_pattern = ?",
                                  (term, int(pattern))).fetchone()
        if row:
            return int(row[0])
        gid = next_id(memory.conn, "glossary")
        execute(memory.conn, actor=actor, op="glossary.add", subject=f"glossary:{gid}",
                changes=[{"t": "glossary", "a": "insert", "row": {
                    "id": gid, "term": term, "is_pattern": int(pattern), "domain": domain,
                    "kind": kind, "note": note}}])
    return gid


def list_glossary(memory: Any) -> list[dict[str, Any]]:
    return [dict(r) for r in memory.conn.execute("SELECT * FROM glossary ORDER BY id")]


def glossary_pattern(term: str, is_pattern: bool) -> re.Pattern[str]:
    return re.compile(term) if is_pattern else re.compile(rf"\b{re.escape(term)}\b")


def apply_glossary_term(memory: Any, glossary_id: int, *, actor: str = "manual") -> list[int]:
    """Give the term's domain to the real-life events already stored that mention it (a term
    added after the import would otherwise only mark later ones). One journaled edit per event;
    returns their ids."""
    memory._writable()
    row = memory.conn.execute("SELECT * FROM glossary WHERE id = ?", (glossary_id,)).fetchone()
    if row is None:
        raise PulseError(f"no glossary entry {glossary_id}")
    pattern = glossary_pattern(row["term"], bool(row["is_pattern"]))
    changed = []
    for event in memory.conn.execute(
            "SELECT id, title, description FROM events WHERE domain = 'real' ORDER BY id"
    ).fetchall():
        if pattern.search(f"{event['title']}\n{event['description']}"):
            memory.set_belief(int(event["id"]), actor=actor, domain=row["domain"])
            changed.append(int(event["id"]))
    return changed
