"""The recall log (issue 11): what a companion recalled, when, for which question.

Every `recall`, `brief` and `get_event` served through MCP, and `pulse retrieve --log`, leaves
one record: the time, the client (the name the MCP client gave in `initialize`, or "cli"), the
query, the user state, the scorer, and what was returned — the ranked keys with their scores
and breakdowns as they were then, whatever keys the scorer returns — without the memory's own
text (titles only; descriptions and sources stay in the memory).

Rules:
- the log lives in the memory file but outside the content digest and the journal: it is
  bookkeeping of reads (core/store/digest.py NON_MEMORY_TABLES; change sets may not touch it);
- `forget` erases an event from it (its entries, and erased text named in queries or states);
- records older than the retention (default 90 days) are purged when a new one is written and
  are never listed; logging can be switched off per memory. Both settings live in pulse_meta
  and each change of them is a journal row, so "who turned the log off, when" stays on record.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any

from core.errors import PulseError, ValidationError
from core.isotime import utc_iso
from core.privacy.frame import unwrap
from core.store.commands import execute, transaction
from core.store.sqlite import sqlite3

TOOLS = ("recall", "brief", "get_event", "retrieve", "why")
DEFAULT_RETENTION_DAYS = 90
MAX_RETENTION_DAYS = 36500
ENABLED_KEY = "recall_log_enabled"
RETENTION_KEY = "recall_log_retention_days"
# Memory text a record never keeps (it stays in the memory; forget then has one place to erase)
_TEXT_KEYS = ("text", "description", "sources", "corrections")
_BRIEF_EVENT = re.compile(r"\(event (\d+)(?: \[[^\]]*\])?\)\s*$")
ERASED = "[erased]"


def _now(now: datetime | str | None) -> datetime:
    if now is None:
        return datetime.now(timezone.utc)
    if isinstance(now, str):
        from core.scoring.scorer import parse_iso

        return parse_iso(now, "now")
    return now if now.tzinfo else now.replace(tzinfo=timezone.utc)


def _iso(moment: datetime) -> str:
    return utc_iso(moment, "milliseconds")


def exists(conn: sqlite3.Connection) -> bool:
    """False for a memory of schema < 4 opened read-only (never migrated): an empty log."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                        ("recall_log",)).fetchone() is not None


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM pulse_meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


# -- settings ------------------------------------------------------------------------------------

def settings(conn: sqlite3.Connection) -> dict[str, Any]:
    """{"enabled": bool, "retention_days": int}."""
    enabled = _meta(conn, ENABLED_KEY)
    retention = _meta(conn, RETENTION_KEY)
    try:
        days = int(retention) if retention is not None else DEFAULT_RETENTION_DAYS
    except ValueError:
        days = DEFAULT_RETENTION_DAYS
    return {"enabled": enabled != "0", "retention_days": days}


def set_settings(conn: sqlite3.Connection, *, enabled: bool | None = None,
                 retention_days: int | None = None, actor: str = "manual",
                 now: datetime | str | None = None) -> dict[str, Any]:
    """Switch logging on/off and/or set the retention; journaled (a row without changes)."""
    if enabled is not None and not isinstance(enabled, bool):
        raise ValidationError("recall log: enabled must be true or false")
    if retention_days is not None:
        if isinstance(retention_days, bool) or not isinstance(retention_days, int):
            raise ValidationError("recall log: retention must be a whole number of days")
        if not 1 <= retention_days <= MAX_RETENTION_DAYS:
            raise ValidationError(f"recall log: retention must be 1..{MAX_RETENTION_DAYS} days, "
                                  f"got {retention_days}")
    with transaction(conn):
        before = settings(conn)
        after = {"enabled": before["enabled"] if enabled is None else enabled,
                 "retention_days": (before["retention_days"] if retention_days is None
                                    else retention_days)}
        if after == before:
            return {**after, "journal_seq": None, "purged": 0}
        conn.execute("INSERT OR REPLACE INTO pulse_meta (key, value) VALUES (?, ?)",
                     (ENABLED_KEY, "1" if after["enabled"] else "0"))
        conn.execute("INSERT OR REPLACE INTO pulse_meta (key, value) VALUES (?, ?)",
                     (RETENTION_KEY, str(after["retention_days"])))
        seq = execute(conn, actor=actor, op="recall_log.settings", subject="recall_log",
                      changes=[], extra={"recall_log": {"before": before, "after": after}})
        purged = purge(conn, now)
    return {**after, "journal_seq": seq, "purged": purged}


def purge(conn: sqlite3.Connection, now: datetime | str | None = None) -> int:
    """Delete records older than the retention; returns how many."""
    cutoff = _iso(_now(now) - timedelta(days=settings(conn)["retention_days"]))
    with transaction(conn):
        return conn.execute("DELETE FROM recall_log WHERE ts < ?", (cutoff,)).rowcount


# -- writing -------------------------------------------------------------------------------------

def _results_of_retrieve(out: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The response to keep (every key but the memory's text) and its ranked results."""
    kept = {k: v for k, v in out.items() if k not in ("query", "results", "frame")}
    results = []
    for rank, item in enumerate(out.get("results") or [], start=1):
        if isinstance(item, dict):
            results.append(_unframed({"rank": rank, **{k: v for k, v in item.items()
                                                       if k not in _TEXT_KEYS}}))
    return kept, results


def _unframed(result: dict[str, Any]) -> dict[str, Any]:
    """A result's title as stored, not inside the <memory_data> frame the companion read it in
    (the frame is how it travelled; the log and its readers want the words)."""
    if isinstance(result.get("title"), str):
        result["title"] = unwrap(result["title"])
    return result


def _results_of_why(conn: sqlite3.Connection, out: dict[str, Any]
                    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A `why` answer as the log keeps it: the event asked about first, then its causes in the
    order served (roots first) with their hops; titles from the memory, not the framed copies
    the companion read."""
    kept = {k: v for k, v in out.items() if k not in ("query", "event", "causes", "frame")}
    event = out.get("event") if isinstance(out.get("event"), dict) else None
    causes = [c for c in out.get("causes") or [] if isinstance(c, dict)
              and isinstance(c.get("id"), int)]
    ids = [event["id"]] if event and isinstance(event.get("id"), int) else []
    hops = {c["id"]: c.get("hops") for c in causes}
    refs = _event_refs(conn, ids + [c["id"] for c in causes])
    return kept, [{**ref, "hops": hops[ref["id"]]} if ref["id"] in hops else ref for ref in refs]


def brief_events(conn: sqlite3.Connection, text: str) -> list[dict[str, Any]]:
    """The events a brief's text shows, in order (each event line ends "(event ID [key])")."""
    ids = []
    for line in text.splitlines():
        match = _BRIEF_EVENT.search(line)
        if match and int(match.group(1)) not in ids:
            ids.append(int(match.group(1)))
    return _event_refs(conn, ids)


def _event_refs(conn: sqlite3.Connection, ids: list[int]) -> list[dict[str, Any]]:
    found = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(f"SELECT id, key, title FROM events WHERE id IN ({marks})",
                                chunk):
            found[int(row[0])] = {"id": int(row[0]), "key": row[1], "title": row[2]}
    return [{"rank": rank, **found[i]} for rank, i in enumerate(
        (i for i in ids if i in found), start=1)]


def record(conn: sqlite3.Connection, *, tool: str, client: str, query: str = "",
           state: Any = None, request: dict[str, Any] | None = None,
           output: dict[str, Any] | None = None, now: datetime | str | None = None
           ) -> int | None:
    """Log one served read. `output` is what was returned: a retrieve result (its "results"
    are ranked events), a brief (its text names the events it shows) or an event detail.
    Returns the record's id, or None when logging is off for this memory."""
    if tool not in TOOLS:
        raise PulseError(f"recall log: unknown tool {tool!r} (one of {', '.join(TOOLS)})")
    if not exists(conn):
        return None
    output = output or {}
    if tool == "brief":
        results = brief_events(conn, str(output.get("text") or ""))
        response = {k: v for k, v in output.items() if k != "text"}
    elif tool == "get_event":
        event = output.get("event") if isinstance(output.get("event"), dict) else output
        ids = [int(event["id"])] if isinstance(event.get("id"), int) else []
        results, response = _event_refs(conn, ids), {}
    elif tool == "why":
        response, results = _results_of_why(conn, output)
    else:
        response, results = _results_of_retrieve(output)
    response["results"] = results
    if state is not None and hasattr(state, "to_dict"):
        state = state.to_dict()
    moment = _now(now)
    with transaction(conn):
        if not settings(conn)["enabled"]:
            return None
        query, state, response = _without_erased(conn, query, state, response, output)
        results = response["results"]
        cursor = conn.execute(
            "INSERT INTO recall_log (ts, tool, client, query, state, scorer, request, response)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (_iso(moment), tool, str(client or "unknown")[:200], str(query or ""),
             json.dumps(state, ensure_ascii=False, default=str) if state else None,
             output.get("scorer") if isinstance(output.get("scorer"), str) else None,
             json.dumps(request or {}, ensure_ascii=False, default=str),
             json.dumps(response, ensure_ascii=False, default=str, allow_nan=False)))
        log_id = int(cursor.lastrowid)
        conn.executemany(
            "INSERT OR IGNORE INTO recall_log_events (log_id, event_id, rank, score)"
            " VALUES (?, ?, ?, ?)",
            [(log_id, int(r["id"]), int(r["rank"]),
              float(r["score"]) if isinstance(r.get("score"), (int, float)) else None)
             for r in results if isinstance(r.get("id"), int)])
        purge(conn, moment)
    return log_id


def _without_erased(conn: sqlite3.Connection, query: str, state: Any, response: dict[str, Any],
                    output: dict[str, Any]) -> tuple[str, Any, dict[str, Any]]:
    """What `erase` would have left of a record whose events were erased after they were served
    (a forget that committed between the read and this write had nothing to clean yet): the
    erased results dropped and counted, the words of what was served of them blanked."""
    ids = [r["id"] for r in response["results"] if isinstance(r.get("id"), int)]
    present = {i for (i,) in conn.execute(
        f"SELECT id FROM events WHERE id IN ({','.join('?' * len(ids))})", ids)} if ids else set()
    gone = set(ids) - present
    if not gone:
        return query, state, response
    served = [item for item in [*response["results"], *(output.get("results") or [])]
              if isinstance(item, dict) and item.get("id") in gone]
    words = {w.lower() for item in served for key in ("title", "text", "description")
             for w in _WORD.findall(str(item.get(key) or ""))}
    kept = {k: _scrub_words(v, words) for k, v in response.items() if k != "results"}
    kept["results"] = [r for r in response["results"] if r.get("id") not in gone]
    kept["erased_results"] = len(response["results"]) - len(kept["results"])
    return _scrub_words(query, words), _scrub_words(state, words), kept


# -- reading -------------------------------------------------------------------------------------

def parse_since(value: str | None, now: datetime | str | None = None) -> str | None:
    """`--since`: an ISO date/time, or a span back from now ("7d", "12h", "30m")."""
    if value is None or not str(value).strip():
        return None
    text = str(value).strip()
    span = re.fullmatch(r"(\d{1,6})\s*([dhm])", text)
    if span:
        unit = {"d": "days", "h": "hours", "m": "minutes"}[span.group(2)]
        try:
            return _iso(_now(now) - timedelta(**{unit: int(span.group(1))}))
        except OverflowError:   # further back than year 1: every record
            return None
    from core.scoring.scorer import parse_iso

    try:
        return _iso(parse_iso(text, "since"))
    except PulseError:
        raise ValidationError(f"since: {text[:60]!r} is neither an ISO date nor a span like 7d, "
                              "12h or 30m") from None


def _row(row: sqlite3.Row, full: bool) -> dict[str, Any]:
    response = json.loads(row["response"] or "{}")
    # records written before titles were kept unframed are read as if they had been
    results = [_unframed(r) if isinstance(r, dict) else r for r in response.pop("results", [])]
    out = {"id": row["id"], "ts": row["ts"], "tool": row["tool"], "client": row["client"],
           "query": row["query"], "scorer": row["scorer"],
           "state": json.loads(row["state"]) if row["state"] else None,
           "request": json.loads(row["request"] or "{}"), "count": len(results),
           "top": [{"id": r.get("id"), "key": r.get("key"), "title": r.get("title"),
                    "score": r.get("score")} for r in results[:3]]}
    if full:
        out["response"] = response
        out["results"] = results
    return out


def list_records(conn: sqlite3.Connection, *, since: str | None = None, limit: int | None = None,
                 event_id: int | None = None, full: bool = False,
                 now: datetime | str | None = None) -> list[dict[str, Any]]:
    """Records newest first (within the retention): since an ISO moment, for one event."""
    if not exists(conn):
        return []
    cutoff = _iso(_now(now) - timedelta(days=settings(conn)["retention_days"]))
    where, params = ["l.ts >= ?"], [max(cutoff, since) if since else cutoff]
    if event_id is not None:
        where.append("l.id IN (SELECT log_id FROM recall_log_events WHERE event_id = ?)")
        params.append(int(event_id))
    sql = f"SELECT l.* FROM recall_log l WHERE {' AND '.join(where)} ORDER BY l.ts DESC, l.id DESC"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(int(limit))
    return [_row(r, full) for r in conn.execute(sql, params)]


def get_record(conn: sqlite3.Connection, log_id: int) -> dict[str, Any]:
    row = conn.execute("SELECT * FROM recall_log WHERE id = ?", (int(log_id),)).fetchone() \
        if exists(conn) and 0 < int(log_id) < 2 ** 63 else None
    if row is None:
        raise PulseError(f"no recall record {log_id}")
    return _row(row, True)


def event_summary(conn: sqlite3.Connection, event_id: int,
                  now: datetime | str | None = None) -> dict[str, Any] | None:
    """How often an event was recalled, and the latest time: {"count", "last_ts", "last_query",
    "last_tool", "last_client", "line"}; None when it never was (within the retention)."""
    if not exists(conn):
        return None
    cutoff = _iso(_now(now) - timedelta(days=settings(conn)["retention_days"]))
    row = conn.execute(
        "SELECT COUNT(*) AS n, MAX(l.ts) AS last FROM recall_log_events x"
        " JOIN recall_log l ON l.id = x.log_id WHERE x.event_id = ? AND l.ts >= ?",
        (int(event_id), cutoff)).fetchone()
    if not row or not row["n"]:
        return None
    last = conn.execute(
        "SELECT l.* FROM recall_log_events x JOIN recall_log l ON l.id = x.log_id"
        " WHERE x.event_id = ? AND l.ts >= ? ORDER BY l.ts DESC, l.id DESC LIMIT 1",
        (int(event_id), cutoff)).fetchone()
    count = int(row["n"])
    reason = (f"for {last['query']!r}" if last["query"] else
              "in a session brief" if last["tool"] == "brief" else "when asked for it by id")
    line = (f"recalled {count} time{'s' if count != 1 else ''}, last on {last['ts'][:10]} "
            f"{reason}")
    return {"count": count, "last_ts": last["ts"], "last_query": last["query"],
            "last_tool": last["tool"], "last_client": last["client"], "last_id": last["id"],
            "line": line}


def moments(conn: sqlite3.Connection, now: datetime | str | None = None
            ) -> list[dict[str, Any]]:
    """Every record's time, tool, client, query and result count (oldest first), for marks."""
    if not exists(conn):
        return []
    cutoff = _iso(_now(now) - timedelta(days=settings(conn)["retention_days"]))
    return [{"id": r[0], "ts": r[1], "tool": r[2], "client": r[3], "query": r[4],
             "count": int(r[5])} for r in conn.execute(
        "SELECT l.id, l.ts, l.tool, l.client, l.query,"
        " (SELECT COUNT(*) FROM recall_log_events x WHERE x.log_id = l.id)"
        " FROM recall_log l WHERE l.ts >= ? ORDER BY l.ts, l.id", (cutoff,))]


def head(conn: sqlite3.Connection) -> int:
    """The newest record's id (0 for none): moves whenever a recall is logged."""
    try:
        return int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM recall_log").fetchone()[0])
    except sqlite3.OperationalError:   # schema < 4, opened read-only: no log
        return 0


# -- erasure -------------------------------------------------------------------------------------

_WORD = re.compile(r"\w{4,}", re.UNICODE)


def _scrub_words(value: Any, words: set[str]) -> Any:
    """Replace every word of `words` (case-insensitive, whole words) in the strings of value."""
    if isinstance(value, str):
        return _WORD.sub(lambda m: ERASED if m.group().lower() in words else m.group(), value)
    if isinstance(value, list):
        return [_scrub_words(v, words) for v in value]
    if isinstance(value, dict):
        return {k: _scrub_words(v, words) for k, v in value.items()}
    return value


def erase(conn: sqlite3.Connection, event_ids: set[int], texts: list[str],
          names: re.Pattern[str] | None = None) -> int:
    """`forget`: drop erased events from every record (and the index); in the records that
    returned one, blank every word of the erased text in the query and the state (the question
    that found "the Zanzibar station" names it too); everywhere, blank the erased texts whole,
    and (erasing a person with cascade) every mention of the person's names in the questions.
    The caller holds the transaction. Returns how many records changed."""
    changed: set[int] = set()
    if not exists(conn):
        return 0
    words = {w.lower() for text in texts for w in _WORD.findall(text)}
    if event_ids:
        marks = ",".join("?" * len(event_ids))
        ids = sorted(event_ids)
        hit = [r[0] for r in conn.execute(
            f"SELECT DISTINCT log_id FROM recall_log_events WHERE event_id IN ({marks})", ids)]
        conn.execute(f"DELETE FROM recall_log_events WHERE event_id IN ({marks})", ids)
        # records whose index rows were removed earlier (e.g. by the delete trigger) too
        for needle in ids:
            hit += [r[0] for r in conn.execute(
                "SELECT id FROM recall_log WHERE instr(response, ?) > 0",
                (f'"id": {needle}',))]
        for log_id in sorted(set(hit)):
            row = conn.execute("SELECT response FROM recall_log WHERE id = ?",
                               (log_id,)).fetchone()
            if row is None:
                continue
            response = json.loads(row[0] or "{}")
            results = response.get("results") or []
            kept = [r for r in results if r.get("id") not in event_ids]
            if len(kept) != len(results):
                # what the scorer echoed of the question (effective_query, a hint) goes too;
                # the other results' fields stay as they were
                response = {k: v if k == "results" else _scrub_words(v, words)
                            for k, v in response.items()}
                response["results"] = kept
                response["erased_results"] = int(response.get("erased_results", 0)) + (
                    len(results) - len(kept))
                conn.execute("UPDATE recall_log SET response = ? WHERE id = ?",
                             (json.dumps(response, ensure_ascii=False), log_id))
                changed.add(log_id)
                _scrub_question(conn, log_id, words)
    for text in texts:
        variants = {text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]}
        for variant in variants:
            for column in ("query", "state", "request", "response"):
                for (log_id,) in conn.execute(
                        f"SELECT id FROM recall_log WHERE instr({column}, ?) > 0",
                        (variant,)).fetchall():
                    conn.execute(f"UPDATE recall_log SET {column} = replace({column}, ?, ?)"
                                 " WHERE id = ?", (variant, ERASED, log_id))
                    changed.add(log_id)
    if names is not None:
        for log_id, query, state, response in conn.execute(
                "SELECT id, query, state, response FROM recall_log").fetchall():
            new_query = names.sub(ERASED, query)
            new_state = json.dumps(_sub_names(json.loads(state), names), ensure_ascii=False) \
                if state else None
            data = json.loads(response or "{}")
            new_response = json.dumps({k: v if k == "results" else _sub_names(v, names)
                                       for k, v in data.items()}, ensure_ascii=False)
            if (new_query, new_state) != (query, state) or json.loads(new_response) != data:
                conn.execute("UPDATE recall_log SET query = ?, state = ?, response = ?"
                             " WHERE id = ?", (new_query, new_state, new_response, log_id))
                changed.add(log_id)
    return len(changed)


def _sub_names(value: Any, names: re.Pattern[str]) -> Any:
    if isinstance(value, str):
        return names.sub(ERASED, value)
    if isinstance(value, list):
        return [_sub_names(v, names) for v in value]
    if isinstance(value, dict):
        return {k: _sub_names(v, names) for k, v in value.items()}
    return value


def _scrub_question(conn: sqlite3.Connection, log_id: int, words: set[str]) -> None:
    row = conn.execute("SELECT query, state FROM recall_log WHERE id = ?", (log_id,)).fetchone()
    state = json.loads(row[1]) if row[1] else None
    conn.execute("UPDATE recall_log SET query = ?, state = ? WHERE id = ?",
                 (_scrub_words(row[0], words),
                  json.dumps(_scrub_words(state, words), ensure_ascii=False) if state else None,
                  log_id))
