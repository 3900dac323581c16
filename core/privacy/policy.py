"""Sensitivity policies, one per person (or any entity), and topic boundaries.

- ``full`` (default): stored as said.
- ``summary_only``: what happened, in neutral words — never their quoted words. A message they
  wrote is stored as one neutral line; words quoted from them in someone else's message are
  replaced by ``[their words are not kept]``.
- ``redact``: their names (canonical and aliases) are replaced by the role label the user chose
  ("[ex-partner]") in everything stored; the entity row keeps the name for the owner's view only.
- ``no_capture``: nothing about them is stored from now on. A message they wrote and every
  sentence naming them are left out; the importer keeps only a count (skipped_segments).
- ``do_not_probe`` (a separate flag): a topic boundary, enforced where memory leaves the owner's
  view (core/privacy/outside.py).

The gate (`Policies.gate`) is applied to every message before extraction — the offline
extractor and the LLM path alike (so an LLM provider never sees a no_capture person's words) —
and to pulse-corpus/1 events. Tightening a policy later applies backwards (`set_policy`): a
journaled rewrite of the stored text (redact, summary_only) or an erasure through `forget`
(no_capture), with the journal's payloads redacted the same way and the file compacted.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from core.errors import PulseError
from core.store.sqlite import sqlite3

POLICIES = ("full", "summary_only", "redact", "no_capture")
# how far each policy withholds: a move to a higher rank is a tightening (applies backwards)
RANK = {"full": 0, "summary_only": 1, "redact": 1, "no_capture": 3}
WORDS_NOT_KEPT = "[their words are not kept]"
MAX_LABEL = 60
_QUOTES = re.compile(r"\"[^\"\n]{1,600}\"|“[^”\n]{1,600}”|«[^»\n]{1,600}»|„[^“\n]{1,600}“")
_SENTENCE = re.compile(r"(?<=[.!?…])\s+|\n+")


def check_policy(name: str) -> str:
    if name not in POLICIES:
        raise PulseError(f"unknown policy {name!r} (one of {', '.join(POLICIES)})")
    return name


def check_label(label: str | None) -> str:
    text = " ".join(str(label or "").split())
    if not text:
        raise PulseError("redact needs a role label, e.g. --label '[ex-partner]'")
    if len(text) > MAX_LABEL:
        raise PulseError(f"the role label is longer than {MAX_LABEL} characters")
    return text


def names_of(name: str, aliases: str | list[str] | None) -> list[str]:
    if isinstance(aliases, str):
        try:
            aliases = json.loads(aliases or "[]")
        except ValueError:
            aliases = []
    extra = [a for a in (aliases or []) if isinstance(a, str)]
    return [n for n in dict.fromkeys([name, *extra]) if n and len(n.strip()) >= 2]


def spellings(names: Iterable[str]) -> set[str]:
    """Each name as given, composed and decomposed: 'Zoë' typed on one keyboard and pasted
    from another are the same name in other bytes (NFC vs NFD)."""
    out = set()
    for name in names:
        name = name.strip()
        if len(name) >= 2:
            out |= {name, unicodedata.normalize("NFC", name), unicodedata.normalize("NFD", name)}
    return out


def name_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    """Whole-word, case-insensitive, in either Unicode form; longest name first (so "Tom
    Reyes" wins over "Tom")."""
    words = sorted(spellings(names), key=len, reverse=True)
    if not words:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")(?!\w)",
                      re.IGNORECASE)


@dataclass
class Person:
    id: int
    key: str | None
    name: str
    names: list[str]
    policy: str
    label: str
    do_not_probe: bool
    pattern: re.Pattern[str] | None = field(default=None, repr=False)

    def named_in(self, text: str) -> bool:
        """Whether `text` names them (or their topic): a name or an alias as a whole word or
        phrase. The one matcher for a question that opens a boundary and for an event's own
        words that put it behind one (core/privacy/mentions.py)."""
        return bool(text) and self.pattern is not None and self.pattern.search(text) is not None

    def shown_name(self) -> str:
        """The name as it may leave the owner's view."""
        if self.policy == "redact" and self.label:
            return self.label
        if self.policy == "no_capture":
            return "[not captured]"
        return self.name


@dataclass
class Gated:
    text: str | None          # None: nothing of it may be stored
    speaker: str
    skipped: dict[int, int]   # entity id → segments left out (no_capture)
    changed: bool


class Policies:
    """Every entity whose policy is not `full`, or that marks a boundary, loaded once."""

    def __init__(self, people: list[Person]) -> None:
        self.people = people
        self.by_policy: dict[str, list[Person]] = {}
        for person in people:
            self.by_policy.setdefault(person.policy, []).append(person)

    @classmethod
    def load(cls, conn: sqlite3.Connection, only: Iterable[int] | None = None) -> Policies:
        columns = {r[1] for r in conn.execute("PRAGMA table_info(entities)")}
        if "policy" not in columns:        # a memory opened read-only before migration 007
            rows = conn.execute("SELECT id, key, canonical_name, aliases, 'full', '',"
                                " do_not_probe FROM entities WHERE do_not_probe = 1").fetchall()
        else:
            rows = conn.execute("SELECT id, key, canonical_name, aliases, policy, role_label,"
                                " do_not_probe FROM entities WHERE policy <> 'full'"
                                " OR do_not_probe = 1").fetchall()
        wanted = set(only) if only is not None else None
        people = []
        for r in rows:
            if wanted is not None and int(r[0]) not in wanted:
                continue
            names = names_of(r[2], r[3])
            people.append(Person(int(r[0]), r[1], r[2], names, r[4], r[5] or "", bool(r[6]),
                                 name_pattern(names)))
        return cls(people)

    def __bool__(self) -> bool:
        return bool(self.people)

    def person(self, entity_id: int) -> Person | None:
        return next((p for p in self.people if p.id == entity_id), None)

    def speaker(self, name: str) -> Person | None:
        wanted = " ".join(str(name or "").split()).casefold()
        if not wanted:
            return None
        for person in self.people:
            if person.policy != "full" and wanted in {n.casefold() for n in person.names}:
                return person
        return None

    # -- the gate: what may be stored of a text ---------------------------------------------

    def gate(self, text: str, speaker: str = "") -> Gated:
        who = self.speaker(speaker)
        skipped: dict[int, int] = {}
        if who is not None and who.policy == "no_capture":
            skipped[who.id] = max(1, len(_sentences(text)))
            return Gated(None, speaker, skipped, True)
        out = text
        if who is not None and who.policy == "summary_only":
            out = f"{speaker} said something; {WORDS_NOT_KEPT[1:-1]} (summary only)."
        for person in self.by_policy.get("no_capture", []):
            kept = []
            for sentence in _sentences(out):
                if person.pattern is not None and person.pattern.search(sentence):
                    skipped[person.id] = skipped.get(person.id, 0) + 1
                else:
                    kept.append(sentence)
            out = " ".join(kept)
        if not out.strip():
            return Gated(None, speaker, skipped, True)
        for person in self.by_policy.get("summary_only", []):
            out = unquote(out, person)
        shown_speaker = speaker
        for person in self.by_policy.get("redact", []):
            out = relabel(out, person)
            if who is person:
                shown_speaker = person.label
        return Gated(out, shown_speaker, skipped, out != text or shown_speaker != speaker)


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


def relabel(text: str, person: Person) -> str:
    if person.pattern is None or not person.label:
        return text
    return person.pattern.sub(person.label, text)


def unquote(text: str, person: Person) -> str:
    """Their quoted words out of every sentence that names them."""
    if person.pattern is None:
        return text
    parts = []
    for piece in re.split(r"((?<=[.!?…])\s+|\n+)", text):
        if person.pattern.search(piece):
            piece = _QUOTES.sub(WORDS_NOT_KEPT, piece)
        parts.append(piece)
    return "".join(parts)


def rewrite_for(person: Person) -> Callable[[str], str]:
    """The text rewrite a tightening to `person.policy` applies to what is already stored."""
    if person.policy == "redact":
        return lambda text: relabel(text, person)
    if person.policy == "summary_only":
        return lambda text: _summarise_own(unquote(text, person), person)
    return lambda text: text


def _summarise_own(text: str, person: Person) -> str:
    """A stored segment of theirs ("Tom: …", as the importer writes a speaker's words)."""
    for name in person.names:
        prefix = f"{name}:"
        if text.startswith(prefix) and not text.endswith("(summary only)."):
            return f"{name} said something; {WORDS_NOT_KEPT[1:-1]} (summary only)."
    return text


def resolve_entity(conn: sqlite3.Connection, ref: str | int) -> int:
    """An entity id from an id, a key (p_tom), a name or an alias (exactly one entity)."""
    text = str(ref).strip()
    if text.startswith("entity:"):
        text = text[len("entity:"):]
    if text.isdigit():
        row = conn.execute("SELECT id FROM entities WHERE id = ?", (int(text),)).fetchone()
        if row:
            return int(row[0])
    row = conn.execute("SELECT id FROM entities WHERE key = ?", (text,)).fetchone()
    if row:
        return int(row[0])
    wanted = text.casefold()
    hits = [int(r[0]) for r in conn.execute("SELECT id, canonical_name, aliases FROM entities")
            if wanted in {n.casefold() for n in names_of(r[1], r[2])}]
    if len(hits) > 1:
        raise PulseError(f"{text!r}: {len(hits)} entities have that name (ids "
                         f"{', '.join(map(str, hits[:8]))}); give the id")
    if not hits:
        raise PulseError(f"{text!r}: no such entity (give an id, a key or a name)")
    return hits[0]


def policy_of(conn: sqlite3.Connection, entity_id: int) -> dict[str, Any]:
    row = conn.execute("SELECT id, key, canonical_name, kind, policy, role_label, do_not_probe,"
                       " skipped_segments FROM entities WHERE id = ?", (entity_id,)).fetchone()
    return {"id": int(row[0]), "key": row[1], "name": row[2], "kind": row[3], "policy": row[4],
            "role_label": row[5], "do_not_probe": bool(row[6]), "skipped_segments": int(row[7])}
