"""Corrections (JOURNAL §2): withdrawn and replacement terms, a subject, supersedes.

Binding = has withdrawn terms and is not superseded by a later correction. A correction without
withdrawn terms is shown but is "not enforceable". `supersedes` names earlier corrections by the
journal seq that recorded them (what the brief and the guard cite).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.errors import PulseError, ValidationError
from core.store import journal
from core.store.commands import execute, next_id, transaction
from core.store.records import row_id
from core.store.sqlite import sqlite3

MAX_TERMS = 50
MAX_TERM_CHARS = 200
MAX_NOTE_CHARS = 4000
SUBJECT_KINDS = ("event", "fact", "entity")


def conn_of(memory: Any) -> sqlite3.Connection:
    """A Memory or a bare connection → the connection."""
    return memory if isinstance(memory, sqlite3.Connection) else memory.conn


def writable(memory: Any) -> sqlite3.Connection:
    if not isinstance(memory, sqlite3.Connection):
        if getattr(memory, "read_only", False):
            raise PulseError(f"{memory.path}: opened read-only")
    return conn_of(memory)


@dataclass(frozen=True)
class Correction:
    id: int
    created_at: str
    note: str
    withdrawn: tuple[str, ...]
    replacement: tuple[str, ...]
    subject: str | None
    supersedes: tuple[int, ...]
    journal_seq: int | None
    superseded_by: tuple[int, ...] = field(default=())

    @property
    def enforceable(self) -> bool:
        return bool(self.withdrawn)

    @property
    def binding(self) -> bool:
        return bool(self.withdrawn) and not self.superseded_by

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "created_at": self.created_at, "note": self.note,
                "withdrawn": list(self.withdrawn), "replacement": list(self.replacement),
                "subject": self.subject, "supersedes": list(self.supersedes),
                "journal_seq": self.journal_seq, "superseded_by": list(self.superseded_by),
                "binding": self.binding, "enforceable": self.enforceable}


def _terms(values: Iterable[Any] | None, what: str) -> list[str]:
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    out: list[str] = []
    for value in values:
        if not isinstance(value, str):
            raise ValidationError(f"{what} terms must be strings, got {value!r}")
        term = " ".join(value.split())
        if not term:
            raise ValidationError(f"{what} terms must not be empty")
        control = next((c for c in term if unicodedata.category(c) == "Cc"), None)
        if control is not None:
            raise ValidationError(f"{what} term {term[:40]!r} holds a control character "
                                  f"(U+{ord(control):04X}); no text states it")
        if len(term) > MAX_TERM_CHARS:
            raise ValidationError(f"{what} term {term[:40]!r}… is longer than {MAX_TERM_CHARS} "
                                  "characters")
        if term not in out:
            out.append(term)
    if len(out) > MAX_TERMS:
        raise ValidationError(f"at most {MAX_TERMS} {what} terms")
    return out


def _subject(conn: sqlite3.Connection, subject: str | None) -> str | None:
    if subject is None or not str(subject).strip():
        return None
    text = str(subject).strip()
    kind, sep, ref = text.partition(":")
    if not sep or kind not in SUBJECT_KINDS or not ref:
        raise ValidationError(f"subject {text!r} must be event:ID, fact:ID or entity:ID")
    table = {"event": "events", "fact": "facts", "entity": "entities"}[kind]
    row = None
    if row_id(ref) is not None:
        row = conn.execute(f"SELECT id FROM {table} WHERE id = ?", (row_id(ref),)).fetchone()
    if row is None and kind in ("event", "entity"):
        row = conn.execute(f"SELECT id FROM {table} WHERE key = ?", (ref,)).fetchone()
    if row is None:
        raise ValidationError(f"subject {text!r}: no such {kind}")
    return f"{kind}:{int(row[0])}"


def correct(memory: Any, *, withdrawn: Sequence[str] | None = (),
            replacement: Sequence[str] | None = (), note: str = "", subject: str | None = None,
            supersedes: Sequence[int] | None = (), actor: str = "manual",
            extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Record a correction (journaled). Returns the stored correction as a dict (with its
    journal seq, which is how the brief, the guard and `supersedes` cite it)."""
    conn = writable(memory)
    withdrawn_terms = _terms(withdrawn, "withdrawn")
    replacement_terms = _terms(replacement, "replacement")
    if not isinstance(note, str):
        raise ValidationError("the note must be a string")
    note = note.strip()
    if len(note) > MAX_NOTE_CHARS:
        raise ValidationError(f"the note is longer than {MAX_NOTE_CHARS} characters")
    if not note and not withdrawn_terms and not replacement_terms:
        raise ValidationError("a correction needs a note or withdrawn/replacement terms")
    # compared as the guard matches them: "1,000" and "1000" are one term there
    from core.trust.guard import normalise

    replaced = {normalise(t) for t in replacement_terms}
    both = [t for t in withdrawn_terms if normalise(t) in replaced]
    if both:
        raise ValidationError(f"{both[0]!r} is both withdrawn and its own replacement")
    with transaction(conn):
        subject_ref = _subject(conn, subject)
        superseded: list[int] = []
        for value in supersedes or ():
            if isinstance(value, bool) or not isinstance(value, int):
                try:
                    value = int(str(value).strip())
                except ValueError:
                    raise ValidationError(f"supersedes: {value!r} is not a journal seq") from None
            found = conn.execute("SELECT id FROM corrections WHERE journal_seq = ?",
                                 (value,)).fetchone() if 0 < value < 2 ** 63 else None
            if found is None:
                raise ValidationError(f"supersedes: journal row {value} recorded no correction")
            if value not in superseded:
                superseded.append(value)
        seq = journal.head(conn)[0] + 1
        ts = journal.journal_now()
        correction_id = next_id(conn, "corrections")
        row = {"id": correction_id, "created_at": ts[:19] + "Z", "note": note,
               "withdrawn": json.dumps(withdrawn_terms, ensure_ascii=False),
               "replacement": json.dumps(replacement_terms, ensure_ascii=False),
               "subject": subject_ref,
               "supersedes": json.dumps(superseded), "journal_seq": seq}
        got = execute(conn, actor=actor, op="correction.add",
                      subject=subject_ref or f"correction:{correction_id}",
                      changes=[{"t": "corrections", "a": "insert", "row": row}],
                      extra=extra, ts=ts)
        assert got == seq
    return get_correction(conn, correction_id).to_dict()


def _from_row(row: sqlite3.Row | dict[str, Any]) -> Correction:
    def as_list(text: Any) -> list[Any]:
        try:
            value = json.loads(text or "[]")
        except ValueError:
            return []
        return value if isinstance(value, list) else []

    return Correction(
        id=int(row["id"]), created_at=row["created_at"], note=row["note"] or "",
        withdrawn=tuple(str(t) for t in as_list(row["withdrawn"])),
        replacement=tuple(str(t) for t in as_list(row["replacement"])),
        subject=row["subject"],
        supersedes=tuple(int(s) for s in as_list(row["supersedes"])
                         if isinstance(s, int) and not isinstance(s, bool)),
        journal_seq=row["journal_seq"])


def list_corrections(memory: Any) -> list[Correction]:
    """Every correction, newest first, with who supersedes it."""
    conn = conn_of(memory)
    cursor = conn.execute("SELECT * FROM corrections ORDER BY COALESCE(journal_seq, 0) DESC, "
                          "id DESC")
    names = [d[0] for d in cursor.description]
    items = [_from_row(dict(zip(names, r))) for r in cursor]
    by_seq: dict[int, list[int]] = {}
    for c in items:
        for s in c.supersedes:
            if c.journal_seq is not None:
                by_seq.setdefault(s, []).append(c.journal_seq)
    return [Correction(**{**c.__dict__, "superseded_by": tuple(by_seq.get(c.journal_seq, ()))})
            if c.journal_seq in by_seq else c for c in items]


def get_correction(memory: Any, correction_id: int) -> Correction:
    for c in list_corrections(memory):
        if c.id == correction_id:
            return c
    raise PulseError(f"no correction {correction_id}")


def binding(memory: Any) -> list[Correction]:
    return [c for c in list_corrections(memory) if c.binding]


def bearing_on(memory: Any, events: Sequence[dict[str, Any]], text_keys: Sequence[str]
               ) -> dict[int, list[dict[str, Any]]]:
    """For events shown to a companion (dicts with "id" and `text_keys`): the corrections that
    bear on each — a binding one whose withdrawn term the event states, and any about the event
    itself (its subject), binding or not. Newest first, by "id"; events with none are left out.
    An item with "members" (a storyline) is about those events instead of its "id"."""
    from core.privacy.outside import OutsideView
    from core.trust.guard import normalise, term_pattern

    everything = list_corrections(memory)
    if not everything or not events:
        return {}
    shown = OutsideView(conn_of(memory)).text     # a redacted name shows as its label
    out: dict[int, list[dict[str, Any]]] = {}
    patterns = {c.id: [term_pattern(t) for t in c.withdrawn] for c in everything if c.binding}
    for event in events:
        text = normalise("\n".join(str(event.get(k) or "") for k in text_keys))
        about = {f"event:{i}" for i in event.get("members", [event["id"]])}
        found = [c for c in everything
                 if c.subject in about or any(p.search(text) for p in patterns.get(c.id, ()))]
        if found:
            out[int(event["id"])] = [{"id": c.id, "journal_seq": c.journal_seq,
                                      "withdrawn": [shown(t) for t in c.withdrawn],
                                      "replacement": [shown(t) for t in c.replacement],
                                      "note": shown(c.note),
                                      "binding": c.binding, "superseded_by":
                                      list(c.superseded_by)} for c in found]
    return out
