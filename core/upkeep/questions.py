"""Open questions: the memory's hypotheses, each with an age and a TTL.

A hypothesis is open while it is live (not absorbed, not archived). A weak segment waiting in
the importer's pool is not one: it is stored as a low-weight hypothesis only so that it stays
retrievable, and the pool decides its fate (promotion into a pattern). Its clock starts at its
date, or again when a person last kept it (rejected its dismissal). Past the TTL it is proposed
for dismissal — never deleted, never dismissed on its own. Confirming one promotes it to
user_model or self_model; dismissing one archives it. Both are journaled and undoable.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from core import beliefs
from core.errors import PulseError
from core.scoring.scorer import format_iso, parse_iso
from core.store.commands import execute, transaction
from core.store.sqlite import sqlite3
from core.upkeep.proposals import archive_change, status_change

CONFIRM_CLASSES = ("user_model", "self_model")
# SQL over `events e`: a live hypothesis that is not a pooled weak segment
OPEN_QUESTION = ("e.belief_class = 'hypothesis' AND e.absorbed_into IS NULL AND e.archived = 0"
                 " AND e.id NOT IN (SELECT event_id FROM pool_segments)")


def as_time(now: datetime | str | None) -> datetime:
    if now is None:
        return datetime.now(timezone.utc)
    return parse_iso(now, "now") if isinstance(now, str) else now


def _kept_at(conn: sqlite3.Connection) -> dict[int, str]:
    """When a person last kept each hypothesis (a rejected dismissal)."""
    return {int(r[0]): r[1] for r in conn.execute(
        "SELECT event_id, MAX(decided_at) FROM upkeep_proposals WHERE kind = 'dismiss'"
        " AND status = 'rejected' GROUP BY event_id")}


def open_questions(memory: Any, *, now: datetime | str | None = None,
                   ttl_days: float | None = None) -> list[dict[str, Any]]:
    from core.upkeep.settings import load

    now = as_time(now)
    ttl = load(memory, None if ttl_days is None else {"question_ttl_days": ttl_days}
               ).question_ttl_days
    conn = memory.conn
    kept = _kept_at(conn)
    pending = {int(r[0]): int(r[1]) for r in conn.execute(
        "SELECT event_id, id FROM upkeep_proposals WHERE kind = 'dismiss'"
        " AND status = 'pending'")}
    out = []
    for row in conn.execute(
            f"SELECT id, key, title, description, ts, archivable, domain FROM events e"
            f" WHERE {OPEN_QUESTION} ORDER BY ts, id"):
        since = max(row["ts"], kept.get(int(row["id"]), ""))
        start = parse_iso(since, "ts")
        age = max(0.0, (now - parse_iso(row["ts"], "ts")).total_seconds() / 86400.0)
        expires = start + timedelta(days=ttl)
        out.append({"id": int(row["id"]), "key": row["key"], "title": row["title"],
                    "text": row["description"] or row["title"], "ts": row["ts"],
                    "domain": row["domain"], "age_days": round(age, 1), "ttl_days": ttl,
                    "clock_from": since, "expires_at": format_iso(expires),
                    "expired": now >= expires, "pinned": not row["archivable"],
                    "dismissal_proposal": pending.get(int(row["id"]))})
    return out


def expired_candidates(memory: Any, now: datetime, ttl_days: float) -> list[dict[str, Any]]:
    """Expired, dismissable hypotheses with no pending dismissal: proposals to make."""
    out = []
    for q in open_questions(memory, now=now, ttl_days=ttl_days):
        if q["expired"] and not q["pinned"] and q["dismissal_proposal"] is None:
            over = (now - parse_iso(q["clock_from"], "ts")).total_seconds() / 86400.0
            out.append({"kind": "dismiss", "event_id": q["id"], "keep_event": None,
                        "score": round(over / ttl_days, 4),
                        "reason": f"open {over:.0f} days (TTL {ttl_days:g})"})
    return out


def _hypothesis(conn: sqlite3.Connection, event_id: int) -> sqlite3.Row:
    row = conn.execute("SELECT * FROM events WHERE id = ?", (event_id,)).fetchone()
    if row is None:
        raise PulseError(f"no event {event_id}")
    if row["belief_class"] != "hypothesis":
        raise PulseError(f"event {event_id} is not an open question (it is {row['belief_class']})")
    if row["absorbed_into"] is not None or row["archived"]:
        raise PulseError(f"event {event_id} is no longer open (absorbed or archived)")
    return row


def _pending_dismissals(conn: sqlite3.Connection, event_id: int) -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM upkeep_proposals WHERE kind = 'dismiss' AND"
                        " status = 'pending' AND event_id = ?", (event_id,)).fetchall()


def confirm(memory: Any, event_id: int, as_class: str = "user_model", *,
            actor: str = "manual") -> dict[str, Any]:
    if as_class not in CONFIRM_CLASSES:
        raise PulseError(f"a confirmed open question becomes one of {', '.join(CONFIRM_CLASSES)}"
                         f", not {as_class!r}")
    conn = memory.conn
    with transaction(conn):
        row = _hypothesis(conn, event_id)
        fields = {**dict(row), "belief_class": as_class}
        beliefs.check_belief(fields, f"event {event_id}")
        decided = format_iso(datetime.now(timezone.utc))
        changes = [{"t": "events", "a": "update", "pk": {"id": event_id},
                    "set": {"belief_class": as_class}, "old": {"belief_class": "hypothesis"}}]
        changes += [status_change(p, "obsolete", decided)
                    for p in _pending_dismissals(conn, event_id)]
        seq = execute(conn, actor=actor, op="question.confirm", subject=f"event:{event_id}",
                      changes=changes, extra={"as": as_class})
    return {"event": event_id, "belief_class": as_class, "seq": seq}


def dismiss(memory: Any, event_id: int, *, actor: str = "manual",
            now: datetime | str | None = None) -> dict[str, Any]:
    conn = memory.conn
    decided = format_iso(as_time(now))
    with transaction(conn):
        _hypothesis(conn, event_id)
        changes = [archive_change(conn, event_id)]
        changes += [status_change(p, "accepted", decided)
                    for p in _pending_dismissals(conn, event_id)]
        seq = execute(conn, actor=actor, op="question.dismiss", subject=f"event:{event_id}",
                      changes=changes)
    return {"event": event_id, "archived": True, "seq": seq}
