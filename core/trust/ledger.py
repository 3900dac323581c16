"""memory-pulse ledger compatibility (JOURNAL §5): `.memory-pulse/events.jsonl`.

Rows: t, cause, effect, kind (event | correction | override), note, tags, pinned, withdrawn,
replacement, supersedes, prev, hash, legacy_digest, gap_digest. Canonical JSON is JavaScript's
JSON.stringify with keys sorted by UTF-16 code unit and no whitespace; a row's hash is the
SHA-256 hex of the row without `hash`. Rows before the first chained row are legacy rows; the
first chained row carries `legacy_digest` = SHA-256 of those raw lines (trimmed, empties
dropped, joined by "\\n"; SHA-256 of "" for none) and `prev` null; every later row carries `prev`
= the previous chained row's hash. An unchained row after the chain started is a break unless
the next chained row seals the gap with `gap_digest` = SHA-256 of the gap's raw lines.

Import keeps every row verbatim (table ledger_rows) and turns correction rows into Pulse
corrections (supersedes mapped by t). Event and override rows are kept as rows only and
exported back unchanged. Export writes the kept rows, then appends Pulse's own corrections and
guard overrides as new chained rows, and checks the result verifies before writing it.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from core.errors import PulseError, ValidationError
from core.files import read_text
from core.store.commands import execute, transaction
from core.store.locks import refuse_to_overwrite
from core.store.sqlite import sqlite3
from core.trust.corrections import conn_of, correct, writable

KINDS = ("event", "correction", "override")
FIELDS = ("t", "cause", "effect", "kind", "note", "tags", "pinned", "withdrawn", "replacement",
          "supersedes", "prev", "hash", "legacy_digest", "gap_digest")
PULSE_TAG = "pulse-journal:"


# -- JSON.stringify, canonical ----------------------------------------------------------------------

def js_number(value: float | int) -> str:
    """Number::toString as JSON.stringify writes it."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(value, int) and abs(value) <= 2 ** 53:
        return str(value)
    value = float(value)
    if not math.isfinite(value):
        return "null"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    d = Decimal(repr(abs(value))).normalize()
    _, digit_tuple, exponent = d.as_tuple()
    digits = "".join(map(str, digit_tuple))
    k = len(digits)
    n = k + int(exponent)
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        body = f"{mantissa}e{'+' if e > 0 else '-'}{abs(e)}"
    return sign + body


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
            "\t": "\\t"}


def js_string(text: str) -> str:
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def canonical(value: Any) -> str:
    """Keys sorted by UTF-16 code unit, no whitespace, JSON.stringify's numbers and escapes."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=_utf16_key)
        return "{" + ",".join(js_string(k) + ":" + canonical(value[k]) for k in keys) + "}"
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def row_hash(row: dict[str, Any]) -> str:
    return sha256_hex(canonical({k: v for k, v in row.items() if k != "hash"}))


# -- reading and verifying ---------------------------------------------------------------------

@dataclass
class LedgerRow:
    line: int          # physical line number in the file (1-based)
    raw: str           # the trimmed line
    data: dict[str, Any]

    @property
    def chained(self) -> bool:
        return "hash" in self.data


def parse_ledger(text: str, label: str = "ledger") -> list[LedgerRow]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        raw = line.strip()
        if not raw:
            continue
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise ValidationError(f"{label}: row {number} is not valid JSON ({exc})") from None
        if not isinstance(data, dict):
            raise ValidationError(f"{label}: row {number} is not a JSON object")
        rows.append(LedgerRow(number, raw, data))
    return rows


def verify_ledger(rows: list[LedgerRow]) -> list[tuple[int, str]]:
    """Every break as (row number, reason); empty when the ledger verifies."""
    breaks: list[tuple[int, str]] = []
    prev: str | None = None
    started = False
    legacy: list[str] = []
    gap: list[LedgerRow] = []
    for row in rows:
        data = row.data
        if not row.chained:
            if started:
                gap.append(row)
            else:
                legacy.append(row.raw)
            continue
        if not isinstance(data.get("hash"), str):
            breaks.append((row.line, "hash is not a string"))
            continue
        if row_hash(data) != data["hash"]:
            breaks.append((row.line, "hash does not match the row's content (edited)"))
        if not started:
            want = sha256_hex("\n".join(legacy))
            if data.get("legacy_digest") != want:
                breaks.append((row.line, "legacy_digest does not match the rows before the chain"
                                         " (an earlier row was edited, removed or added)"))
            if data.get("prev") is not None:
                breaks.append((row.line, "the first chained row must have prev null"))
            started = True
        else:
            if data.get("prev") != prev:
                breaks.append((row.line, "prev does not match the previous row's hash (a row was"
                                         " removed, inserted or reordered)"))
            if gap:
                sealed = data.get("gap_digest") == sha256_hex("\n".join(g.raw for g in gap))
                if not sealed:
                    breaks.append((gap[0].line, "an unchained row after the chain started"))
                gap = []
            elif "gap_digest" in data and data["gap_digest"] != sha256_hex(""):
                breaks.append((row.line, "gap_digest names rows that are not there"))
        prev = data["hash"]
    if gap:
        breaks.append((gap[0].line, "an unchained row after the chain started"))
    return breaks


def _validate_rows(rows: list[LedgerRow], label: str) -> None:
    for row in rows:
        d = row.data
        where = f"{label}: row {row.line}"
        kind = d.get("kind", "event")
        if kind not in KINDS:
            raise ValidationError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
        for name in ("withdrawn", "replacement", "tags"):
            value = d.get(name)
            if value is not None and (not isinstance(value, list)
                                      or not all(isinstance(v, str) for v in value)):
                raise ValidationError(f"{where}: {name} must be a list of strings")
        for name in ("cause", "effect", "note"):
            if d.get(name) is not None and not isinstance(d[name], str):
                raise ValidationError(f"{where}: {name} must be a string")
        if d.get("supersedes") is not None and not isinstance(d["supersedes"], list):
            raise ValidationError(f"{where}: supersedes must be a list")


def read_ledger(path: str | Path) -> list[LedgerRow]:
    path = Path(path)
    if path.is_dir():
        path = path / "events.jsonl" if (path / "events.jsonl").exists() else \
            path / ".memory-pulse" / "events.jsonl"
    return parse_ledger(read_text(path), str(path))


# -- import -------------------------------------------------------------------------------------

def import_ledger(memory: Any, path: str | Path, *, actor: str = "import") -> dict[str, Any]:
    """Verify and import a memory-pulse ledger. A tampered ledger is refused with its row
    number; rows imported before are recognised and skipped; nothing is half-written."""
    conn = writable(memory)
    rows = read_ledger(path)
    breaks = verify_ledger(rows)
    if breaks:
        line, reason = breaks[0]
        raise PulseError(f"{path}: ledger row {line}: {reason}; refusing to import it")
    _validate_rows(rows, str(path))
    summary = {"rows": len(rows), "imported": 0, "already_present": 0, "corrections": 0,
               "events": 0, "overrides": 0, "linked": 0}
    with transaction(conn):
        stored = {int(r["pos"]): r["raw"] for r in conn.execute("SELECT pos, raw FROM ledger_rows")}
        t_to_seq = _t_to_seq(conn)
        for pos, row in enumerate(rows, start=1):
            if pos in stored:
                if stored[pos] != row.raw:
                    raise PulseError(f"{path}: ledger row {row.line} differs from the row imported"
                                     " before at that place; import it into a new memory")
                summary["already_present"] += 1
                continue
            d = row.data
            kind = d.get("kind", "event")
            correction_id = None
            if kind == "correction":
                correction_id, linked = _import_correction(conn, row, t_to_seq, str(path), actor)
                summary["linked" if linked else "corrections"] += 1
                t_to_seq[_t_key(d.get("t"))] = conn.execute(
                    "SELECT journal_seq FROM corrections WHERE id = ?",
                    (correction_id,)).fetchone()[0]
            else:
                summary["events" if kind == "event" else "overrides"] += 1
            record = {"pos": pos, "raw": row.raw, "kind": kind,
                      "row_hash": d.get("hash") if isinstance(d.get("hash"), str) else None,
                      "correction_id": correction_id}
            execute(conn, actor=actor, op="ledger.row", subject=f"ledger:{pos}",
                    changes=[{"t": "ledger_rows", "a": "insert", "row": record}])
            summary["imported"] += 1
    return summary


def _t_key(t: Any) -> str:
    return canonical(t)


def _t_to_seq(conn: sqlite3.Connection) -> dict[str, int]:
    out = {}
    for raw, seq in conn.execute(
            "SELECT l.raw, c.journal_seq FROM ledger_rows l JOIN corrections c"
            " ON c.id = l.correction_id"):
        try:
            out[_t_key(json.loads(raw).get("t"))] = int(seq)
        except (ValueError, TypeError):
            continue
    return out


def _import_correction(conn: sqlite3.Connection, row: LedgerRow, t_to_seq: dict[str, int],
                       label: str, actor: str) -> tuple[int, bool]:
    d = row.data
    # a row Pulse exported itself: link it to the correction it came from, do not double it
    for tag in d.get("tags") or []:
        if tag.startswith(PULSE_TAG) and tag[len(PULSE_TAG):].isdigit():
            found = conn.execute("SELECT id, withdrawn, replacement FROM corrections"
                                 " WHERE journal_seq = ?", (int(tag[len(PULSE_TAG):]),)).fetchone()
            if (found is not None and json.loads(found["withdrawn"]) == (d.get("withdrawn") or [])
                    and json.loads(found["replacement"]) == (d.get("replacement") or [])):
                return int(found["id"]), True
    supersedes = []
    for t in d.get("supersedes") or []:
        seq = t_to_seq.get(_t_key(t))
        if seq is None:
            raise ValidationError(f"{label}: row {row.line}: supersedes t={canonical(t)}, which "
                                  "is no earlier correction in the ledger")
        supersedes.append(seq)
    note = d.get("note") or ""
    if d.get("cause") or d.get("effect"):
        head = f"{d.get('cause') or '?'} -> {d.get('effect') or '?'}"
        note = f"{head}: {note}" if note else head
    if not note and not d.get("withdrawn") and not d.get("replacement"):
        note = "(empty correction from the ledger)"
    result = correct(conn, withdrawn=d.get("withdrawn") or [],
                     replacement=d.get("replacement") or [], note=note, supersedes=supersedes,
                     actor=actor, extra={"ledger": {"t": d.get("t"), "row": row.line}})
    return int(result["id"]), False


# -- export -------------------------------------------------------------------------------------

def _not_yet_exported(overrides: list[Any], kept: list[LedgerRow]) -> list[Any]:
    """The overrides no kept row already carries: a ledger Pulse wrote and then imported back
    holds them as kept rows, and writing them again would double them at every round trip.
    Matched by content, one kept row for one override (the same override recorded twice stays
    twice)."""
    carried: dict[tuple[Any, ...], int] = {}
    for row in kept:
        d = row.data
        tags = d.get("tags") or []
        if d.get("kind") == "override" and "pulse" in tags:
            key = (d.get("cause"), d.get("effect"), d.get("note"), tuple(tags))
            carried[key] = carried.get(key, 0) + 1
    out = []
    for o in overrides:     # as the export below writes it
        key = ("guard-allow", o["term"], o["reason"], ("pulse", f"path:{o['path_prefix']}"))
        if carried.get(key, 0) > 0:
            carried[key] -= 1
        else:
            out.append(o)
    return out


def export_ledger(memory: Any, path: str | Path) -> dict[str, Any]:
    """Write the ledger: the imported rows verbatim, then Pulse's corrections and overrides as
    new chained rows. The result is verified before it replaces `path`."""
    conn = conn_of(memory)
    path = Path(path)
    if path.is_dir():
        path = path / "events.jsonl"
    refuse_to_overwrite(path)
    kept = [LedgerRow(i, r["raw"], json.loads(r["raw"])) for i, r in enumerate(
        conn.execute("SELECT raw FROM ledger_rows ORDER BY pos").fetchall(), start=1)]
    linked = {int(r[0]) for r in conn.execute(
        "SELECT correction_id FROM ledger_rows WHERE correction_id IS NOT NULL")}
    prev = None
    started = False
    last_t = 0
    t_of_seq: dict[int, Any] = {}
    for row in kept:
        if row.chained:
            prev, started = row.data["hash"], True
        t = row.data.get("t")
        if isinstance(t, (int, float)) and not isinstance(t, bool):
            last_t = max(last_t, t)
    for raw, seq in conn.execute("SELECT l.raw, c.journal_seq FROM ledger_rows l JOIN corrections"
                                 " c ON c.id = l.correction_id"):
        t_of_seq[int(seq)] = json.loads(raw).get("t")
    new_rows: list[dict[str, Any]] = []
    t = int(last_t) if float(last_t).is_integer() else int(math.floor(last_t))
    corrections = conn.execute("SELECT * FROM corrections ORDER BY journal_seq, id").fetchall()
    pending = [c for c in corrections if int(c["id"]) not in linked]
    overrides = []
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name='guard_overrides'").fetchone():
        overrides = conn.execute("SELECT * FROM guard_overrides ORDER BY id").fetchall()
    items = [("correction", c["journal_seq"] or 0, c) for c in pending]
    items += [("override", o["journal_seq"] or 0, o) for o in _not_yet_exported(overrides, kept)]
    items.sort(key=lambda item: item[1])
    for kind, _seq, item in items:
        t += 1
        if kind == "correction":
            data: dict[str, Any] = {
                "t": t, "cause": item["subject"] or "pulse", "effect": f"correction-{item['id']}",
                "kind": "correction", "note": item["note"],
                "withdrawn": json.loads(item["withdrawn"]),
                "replacement": json.loads(item["replacement"]),
                "tags": ["pulse", f"{PULSE_TAG}{item['journal_seq']}"]}
            sup = [t_of_seq[s] for s in json.loads(item["supersedes"]) if s in t_of_seq]
            if sup:
                data["supersedes"] = sup
            if item["journal_seq"] is not None:
                t_of_seq[int(item["journal_seq"])] = t
        else:
            data = {"t": t, "cause": "guard-allow", "effect": item["term"], "kind": "override",
                    "note": item["reason"], "tags": ["pulse", f"path:{item['path_prefix']}"]}
        data["prev"] = prev
        if not started:
            data["legacy_digest"] = sha256_hex("\n".join(r.raw for r in kept))
            started = True
        data["hash"] = row_hash(data)
        prev = data["hash"]
        new_rows.append(data)
    lines = [r.raw for r in kept] + [canonical(d) for d in new_rows]
    text = "".join(line + "\n" for line in lines)
    breaks = verify_ledger(parse_ledger(text))
    if breaks:  # only a ledger imported unverified could get here
        raise PulseError(f"the ledger would not verify (row {breaks[0][0]}: {breaks[0][1]})")
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8", newline="\n")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise PulseError(f"{path}: cannot write the ledger ({exc.strerror})") from None
    return {"out": str(path), "rows": len(lines), "kept": len(kept), "added": len(new_rows)}
