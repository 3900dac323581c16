"""The hash-chained journal (JOURNAL.md §1): append one row per change, and verify the chain.

A row's hash covers seq, ts, actor, op, subject, payload_sha256 and prev — the payload's digest,
not the payload — so erasure can replace a payload with a redaction marker and the chain still
verifies. Such a rewrite is vouched for by a later row: its payload's `vouches` maps the seq to
the SHA-256 of the rewritten payload (`vouch`). A payload that differs from its digest with no
row vouching for it was edited, redaction marker or not.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from core.store.sqlite import sqlite3

REDACTED_MARKER = {"redacted": True}
VOUCHES = "vouches"
# Set once every rewritten payload is vouched for; until then (a memory erased by a Pulse from
# before vouching, not written since) an unvouched redacted payload verifies as it used to.
VOUCHED_META = "journal_redactions_vouched"


def canonical_json(value: Any) -> str:
    """Keys sorted, no whitespace, UTF-8 (not ASCII-escaped)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def row_hash(seq: int, ts: str, actor: str, op: str, subject: str, payload_sha256: str,
             prev: str | None) -> str:
    body = {"seq": seq, "ts": ts, "actor": actor, "op": op, "subject": subject,
            "payload_sha256": payload_sha256, "prev": prev}
    return sha256_hex(canonical_json(body))


def journal_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def head(conn: sqlite3.Connection) -> tuple[int, str | None]:
    row = conn.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
    return (row[0], row[1]) if row else (0, None)


def append(conn: sqlite3.Connection, actor: str, op: str, subject: str,
           payload: dict[str, Any], ts: str | None = None) -> int:
    """Append one row; the caller holds the transaction that also writes the change."""
    last_seq, prev = head(conn)
    seq = last_seq + 1
    ts = ts or journal_now()
    if not _vouching_started(conn):
        legacy = unvouched_redactions(rewrite_candidates(conn))
        if legacy:
            payload = {**payload, VOUCHES: {**legacy, **payload.get(VOUCHES, {})}}
        mark_vouching_started(conn)
    payload_text = canonical_json(payload)
    payload_sha = sha256_hex(payload_text)
    digest = row_hash(seq, ts, actor, op, subject, payload_sha, prev)
    conn.execute(
        "INSERT INTO journal (seq, ts, actor, op, subject, payload, payload_sha256, prev, hash)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (seq, ts, actor, op, subject, payload_text, payload_sha, prev, digest),
    )
    # The head is mirrored so that a removed last row (which leaves the chain intact) shows.
    conn.execute("INSERT OR REPLACE INTO pulse_meta (key, value) VALUES ('journal_head', ?)",
                 (f"{seq}:{digest}",))
    return seq


@dataclass(frozen=True)
class Break:
    seq: int
    reason: str

    def __str__(self) -> str:
        return f"journal row {self.seq}: {self.reason}"


def vouch(conn: sqlite3.Connection, seqs: list[int]) -> dict[str, str]:
    """The `vouches` entry for rows just rewritten: seq → SHA-256 of the payload as it is now."""
    if not seqs:
        return {}
    marks = ",".join("?" * len(seqs))
    return {str(seq): sha256_hex(text) for seq, text in conn.execute(
        f"SELECT seq, payload FROM journal WHERE seq IN ({marks})", list(seqs))}


def mark_vouching_started(conn: sqlite3.Connection) -> None:
    conn.execute("INSERT OR REPLACE INTO pulse_meta (key, value) VALUES (?, '1')",
                 (VOUCHED_META,))


def _vouching_started(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM pulse_meta WHERE key = ?", (VOUCHED_META,)
                        ).fetchone() is not None


def _vouched(rows: list[dict[str, Any]]) -> dict[int, str]:
    """seq → the digest its rewritten payload must have, from the latest row that vouches for it
    whose own payload is trusted (matches its digest, or is itself vouched for)."""
    vouched: dict[int, str] = {}
    for row in reversed(rows):
        if f'"{VOUCHES}":' not in row["payload"]:
            continue            # most rows vouch for nothing: no need to parse them
        actual = sha256_hex(row["payload"])
        if actual != row["payload_sha256"] and vouched.get(row["seq"]) != actual:
            continue
        try:
            payload = json.loads(row["payload"])
        except ValueError:
            continue
        given = payload.get(VOUCHES) if isinstance(payload, dict) else None
        if not isinstance(given, dict):
            continue
        for seq_text, digest in given.items():
            if isinstance(seq_text, str) and seq_text.isdigit() and int(seq_text) < row["seq"]:
                vouched.setdefault(int(seq_text), digest)
    return vouched


def unvouched_redactions(rows: list[dict[str, Any]]) -> dict[str, str]:
    """Rows rewritten with the redaction marker that no later row vouches for: what an erasure
    by an earlier Pulse left (trusted as they are, once, when vouching starts)."""
    vouched = _vouched(rows)
    out: dict[str, str] = {}
    for row in rows:
        actual = sha256_hex(row["payload"])
        if (actual != row["payload_sha256"] and vouched.get(row["seq"]) != actual
                and _is_redacted(row["payload"])):
            out[str(row["seq"])] = actual
    return out


def rewrite_candidates(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """The rows that may be rewritten or vouch for rewrites (canonical JSON has no spaces, and
    text inside a payload has its quotes escaped): what vouching needs, without reading every
    payload of a long journal."""
    cursor = conn.execute(
        "SELECT seq, payload, payload_sha256 FROM journal WHERE instr(payload, ?) > 0"
        " OR instr(payload, ?) > 0 ORDER BY seq", ('"redacted":true', f'"{VOUCHES}":'))
    return [{"seq": r[0], "payload": r[1], "payload_sha256": r[2]} for r in cursor]


def verify_rows(rows: list[dict[str, Any]], *, legacy_redactions: bool = False,
                relabelled: frozenset[int] = frozenset()) -> list[Break]:
    """Walk rows in stored order; report every edited, removed, reordered or inserted row.
    `legacy_redactions`: accept a redacted payload no row vouches for (a memory, or an export,
    from before vouching); `relabelled`: seqs an export rewrote for the outside view."""
    breaks: list[Break] = []
    prev_hash: str | None = None
    expected_seq = 1
    vouched = _vouched(rows)
    if vouched:
        legacy_redactions = False       # vouching has started: every rewrite must be vouched
    for row in rows:
        seq = row["seq"]
        if seq != expected_seq:
            kind = "missing rows before it (removed)" if seq > expected_seq else (
                "out of order or duplicated (reordered or inserted)")
            breaks.append(Break(seq, f"expected seq {expected_seq}, found {seq}: {kind}"))
        payload = row["payload"]
        actual = sha256_hex(payload)
        if actual != row["payload_sha256"] and vouched.get(seq) != actual:
            if not _is_redacted(payload):
                breaks.append(Break(seq, "payload does not match its payload_sha256 (edited)"))
            elif not (legacy_redactions or seq in relabelled):
                breaks.append(Break(seq, "payload marked redacted, but no erasure vouches for "
                                         "it as it is now (edited)"))
        if row["prev"] != prev_hash:
            breaks.append(Break(seq, "prev does not match the previous row's hash "
                                     "(a row was removed, inserted or reordered)"))
        recomputed = row_hash(seq, row["ts"], row["actor"], row["op"], row["subject"],
                              row["payload_sha256"], row["prev"])
        if recomputed != row["hash"]:
            breaks.append(Break(seq, "hash does not match the row's content (edited)"))
        prev_hash = row["hash"]
        expected_seq = seq + 1
    return breaks


def _is_redacted(payload: str) -> bool:
    try:
        value = json.loads(payload)
    except ValueError:
        return False
    return isinstance(value, dict) and value.get("redacted") is True


def read_rows(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    # rowid order is insertion order: a row whose seq was rewritten still shows where it sits.
    cursor = conn.execute(
        "SELECT seq, ts, actor, op, subject, payload, payload_sha256, prev, hash"
        " FROM journal ORDER BY rowid")
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor]


def verify(conn: sqlite3.Connection) -> list[Break]:
    # rows and the mirrored head from one snapshot: read in two autocommit statements, a write
    # by another process committed between them looks like rows removed at the end
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN")
    try:
        rows = read_rows(conn)
        mirrored = conn.execute("SELECT value FROM pulse_meta WHERE key='journal_head'"
                                ).fetchone()
        legacy = not _vouching_started(conn)
    finally:
        if own:
            conn.execute("COMMIT")
    breaks = verify_rows(rows, legacy_redactions=legacy)
    if mirrored is not None:
        seq_text, _, digest = mirrored[0].partition(":")
        last = rows[-1] if rows else None
        recorded = int(seq_text)
        found = last["seq"] if last else 0
        if found > recorded:
            breaks.append(Break(recorded + 1, f"rows added after its recorded head (row "
                                              f"{recorded}), up to row {found} (inserted)"))
        elif last is None or found != recorded or last["hash"] != digest:
            breaks.append(Break(recorded, f"the journal ends at row {found}, but its recorded"
                                          f" head is row {seq_text} (rows removed at the end)"))
    return breaks
