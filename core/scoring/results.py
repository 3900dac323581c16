"""The shape of a retrieve answer (CLI.md `pulse retrieve --json`): the envelope, and each
result's event fields with its breakdown and sources, read in one batch per answer."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from core.isotime import utc_iso
from core.store.sqlite import sqlite3


def format_iso(moment: datetime) -> str:
    return utc_iso(moment)


def envelope(query: str, effective: str, scorer: str, now: datetime, *,
             emotion: bool = False, body: str | None = None, date_ref: float | None = None,
             hint: str | None = None, evidence: dict[str, Any] | None = None,
             abstain_reason: str | None = None) -> dict[str, Any]:
    return {"query": query, "effective_query": effective, "scorer": scorer,
            "now": format_iso(now),
            "gates": {"emotion": bool(emotion), "state": body, "date_ref_days": date_ref,
                      "hint": hint},
            "abstained": abstain_reason is not None, "abstain_reason": abstain_reason,
            "evidence": evidence}


def results(conn: sqlite3.Connection, ordered: Sequence[int], terms: dict[int, dict[str, Any]],
            via_chain: dict[int, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One result per id, in order: the event's fields, its score and terms, its sources, and
    `via_chain` ({anchor, hops, relation}) for an event the chain brought rather than the
    ranking (null otherwise)."""
    if not ordered:
        return []
    via_chain = via_chain or {}
    marks = ",".join("?" * len(ordered))
    meta = {r["id"]: r for r in conn.execute(
        f"SELECT id, key, title, description, ts, belief_class, domain, user_flag"
        f" FROM events WHERE id IN ({marks})", list(ordered))}
    sources: dict[int, list[dict[str, str]]] = {i: [] for i in ordered}
    for event_id, kind, source_id in conn.execute(
            f"SELECT DISTINCT ev.row_id, o.source_kind, o.source_id FROM evidence ev"
            f" JOIN observations o ON o.id = ev.observation_id"
            f" WHERE ev.row_kind = 'event' AND ev.row_id IN ({marks})"
            f" ORDER BY ev.row_id, o.id", list(ordered)):
        sources[event_id].append({"source_kind": kind, "source_id": source_id})
    out = []
    for event_id in ordered:
        row = meta[event_id]
        out.append({
            "id": event_id, "key": row["key"], "title": row["title"],
            "text": row["description"] or row["title"], "ts": row["ts"],
            "belief_class": row["belief_class"], "domain": row["domain"],
            "user_flag": bool(row["user_flag"]), "score": terms[event_id]["score"],
            "terms": terms[event_id]["terms"], "sources": sources[event_id],
            "via_chain": via_chain.get(event_id),
        })
    return out
