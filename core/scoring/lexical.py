"""The lexical channel: BM25 over the FTS5 index of event titles and descriptions."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

_WORD = re.compile(r"\w+", re.UNICODE)


def fts_query(text: str) -> str | None:
    """Any of the query's words, each quoted so FTS5 syntax in user text is inert."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))
    if not words:
        return None
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


def bm25_search(conn: sqlite3.Connection, query: str, limit: int,
                domains: Sequence[str] | None = None) -> list[tuple[int, float]]:
    """(event id, BM25 score) best first; higher is better (FTS5's bm25() is negated)."""
    match = fts_query(query)
    if match is None or limit <= 0:
        return []
    sql = ("SELECT e.id, -bm25(events_fts) AS score FROM events_fts"
           " JOIN events e ON e.id = events_fts.rowid"
           " WHERE events_fts MATCH ? AND e.absorbed_into IS NULL")
    params: list[object] = [match]
    if domains:
        sql += f" AND e.domain IN ({', '.join('?' * len(domains))})"
        params.extend(domains)
    sql += " ORDER BY score DESC, e.id LIMIT ?"
    params.append(limit)
    return [(int(r[0]), float(r[1])) for r in conn.execute(sql, params)]
