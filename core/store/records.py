"""Typed writes over the command layer: observations, entities, relations, events, facts, links
and belief edits. Each function validates, builds one change set and journals it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core import beliefs
from core.emotion.plutchik import EMOTIONS
from core.errors import ConflictError, InvariantError, PulseError
from core.store.changes import encode_row, encode_value, row_dict
from core.store.commands import execute, next_id, transaction
from core.store.sqlite import sqlite3


def text_hash(title: str, description: str) -> str:
    return hashlib.sha256(f"{title}\n{description}".encode()).hexdigest()


def embedding_text(title: str, description: str) -> str:
    """What is embedded for an event. A title that is only the description's first words (as
    the offline extractor writes them) is replaced by the speaker's name said once more: who
    it is about keeps its weight in the mean-pooled vector, for 3 tokens instead of 17.
    LoCoMo turns, pure cosine recall@5 (bench/embedders.py --texts): 0.547 this way, 0.509
    with the title, 0.444 with the description alone."""
    head = title.rstrip().removesuffix("…").rstrip()
    body = description.strip()
    if head and not body.startswith(head):
        return f"{title}\n{description}".strip()
    label, sep, _ = body.partition(": ")
    if sep and 0 < len(label) <= 40 and "\n" not in label:
        return f"{label}: {body}"
    return body


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Vector:
    model: str
    values: np.ndarray  # float32, L2-normalised

    def row(self, event_id: int, digest: str) -> dict[str, Any]:
        data = np.ascontiguousarray(self.values, dtype=np.float32)
        return {"event_id": event_id, "model": self.model, "dim": int(data.shape[0]),
                "vector": encode_value(data.tobytes()), "text_hash": digest}


@dataclass(frozen=True)
class Emotions:
    values: Mapping[str, float]
    tagger: str
    tagger_version: str = ""
    derivation: str = "inferred"  # explicit | inferred | user_confirmed
    confidence: float = 1.0

    def row(self, event_id: int) -> dict[str, Any]:
        row: dict[str, Any] = {name: float(self.values.get(name, 0.0)) for name in EMOTIONS}
        row.update(event_id=event_id, tagger=self.tagger, tagger_version=self.tagger_version,
                   derivation=self.derivation, confidence=float(self.confidence))
        return row


def row_id(text: str) -> int | None:
    """The row id `text` spells (ASCII digits within SQLite's integers), else None: "²" or an id
    of 30 digits names no row (int() or SQLite would raise on them)."""
    if not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value < 2 ** 63 else None


def resolve_event(conn: sqlite3.Connection, ref: str | int) -> int:
    """An event id from a numeric id or an external key ('e001'); PulseError if none."""
    text = str(ref).strip()
    if text.startswith("event:"):
        text = text[len("event:"):]
    row = None
    if row_id(text) is not None:
        row = conn.execute("SELECT id FROM events WHERE id = ?", (row_id(text),)).fetchone()
    if row is None:
        row = conn.execute("SELECT id FROM events WHERE key = ?", (text,)).fetchone()
    if row is None:
        raise PulseError(f"no event {ref!r} (give a numeric id or an external key such as e001)")
    return int(row[0])


# -- observations --------------------------------------------------------------------------

def add_observation(conn: sqlite3.Connection, *, actor: str, source_kind: str, source_id: str,
                    content_text: str, captured_at: str, observed_at: str | None = None,
                    actors: Sequence[str] = (), metadata: Mapping[str, Any] | None = None
                    ) -> tuple[int, bool]:
    """Store raw input. Returns (id, is_new): same content → the existing row; changed content →
    a new version of the same source."""
    digest = content_hash(content_text)
    with transaction(conn):
        latest = conn.execute(
            "SELECT id, version, content_hash FROM observations WHERE source_kind = ? AND"
            " source_id = ? ORDER BY version DESC LIMIT 1", (source_kind, source_id)).fetchone()
        if latest is not None and latest["content_hash"] == digest:
            return int(latest["id"]), False
        obs_id = next_id(conn, "observations")
        row = {"id": obs_id, "source_kind": source_kind, "source_id": source_id,
               "version": (latest["version"] + 1) if latest else 1, "content_hash": digest,
               "captured_at": captured_at, "observed_at": observed_at,
               "actors": json.dumps(list(actors), ensure_ascii=False),
               "content_text": content_text,
               "metadata": json.dumps(dict(metadata or {}), ensure_ascii=False, sort_keys=True),
               "redacted": 0}
        execute(conn, actor=actor, op="observation.add", subject=f"observation:{obs_id}",
                changes=[{"t": "observations", "a": "insert", "row": row}])
        return obs_id, True


# -- entities, relations, facts ----------------------------------------------------------------

def add_entity(conn: sqlite3.Connection, *, actor: str, name: str, kind: str,
               key: str | None = None, aliases: Sequence[str] = (), domain: str = "real",
               salience: float = 0.5, emotional_weight: float = 0.0,
               first_seen: str | None = None, last_seen: str | None = None,
               is_self: bool = False, description: str = "", policy: str = "full",
               role_label: str = "", do_not_probe: bool = False) -> int:
    label = f"entity {key or name!r}"
    if kind not in beliefs.ENTITY_KINDS:
        raise InvariantError(f"{label}: unknown kind {kind!r}")
    if domain not in beliefs.DOMAINS:
        raise InvariantError(f"{label}: unknown domain {domain!r}")
    with transaction(conn):
        entity_id = next_id(conn, "entities")
        row = {"id": entity_id, "key": key, "canonical_name": name, "kind": kind,
               "aliases": json.dumps(list(aliases), ensure_ascii=False), "domain": domain,
               "salience": float(salience), "emotional_weight": float(emotional_weight),
               "first_seen": first_seen, "last_seen": last_seen, "is_self": int(is_self),
               "do_not_probe": int(do_not_probe), "description": description}
        if policy != "full" or role_label:   # schema 7 (docs/privacy.md); default rows as before
            row.update(policy=policy, role_label=role_label)
        execute(conn, actor=actor, op="entity.add", subject=f"entity:{entity_id}",
                changes=[{"t": "entities", "a": "insert", "row": row}])
    return entity_id


def count_skipped(conn: sqlite3.Connection, counts: Mapping[int, int], *,
                  actor: str = "import") -> int | None:
    """Add to entities.skipped_segments what an import left out under no_capture (journaled:
    the count is all that is kept of them)."""
    changes = []
    for entity_id, n in sorted(counts.items()):
        row = conn.execute("SELECT skipped_segments FROM entities WHERE id = ?",
                           (entity_id,)).fetchone()
        if row is None or n <= 0:
            continue
        changes.append({"t": "entities", "a": "update", "pk": {"id": entity_id},
                        "set": {"skipped_segments": int(row[0]) + n},
                        "old": {"skipped_segments": int(row[0])}})
    if not changes:
        return None
    return execute(conn, actor=actor, op="policy.skipped", subject="entities", changes=changes)


def upsert_relation(conn: sqlite3.Connection, *, actor: str, from_id: int, to_id: int, kind: str,
                    strength: float = 0.5, context: str = "", seen: str | None = None) -> int:
    """Insert a relation, or strengthen an existing one: a repeat moves strength halfway to 1."""
    with transaction(conn):
        existing = conn.execute(
            "SELECT id, strength, first_seen, last_seen FROM relations WHERE from_entity = ?"
            " AND to_entity = ? AND kind = ?", (from_id, to_id, kind)).fetchone()
        if existing is None:
            rel_id = next_id(conn, "relations")
            row = {"id": rel_id, "from_entity": from_id, "to_entity": to_id, "kind": kind,
                   "context": context, "strength": min(1.0, max(0.0, float(strength))),
                   "first_seen": seen, "last_seen": seen}
            changes = [{"t": "relations", "a": "insert", "row": row}]
        else:
            rel_id = int(existing["id"])
            new_strength = min(1.0, existing["strength"] + (1.0 - existing["strength"]) * 0.5)
            old = {"strength": existing["strength"], "last_seen": existing["last_seen"]}
            new = {"strength": new_strength, "last_seen": seen or existing["last_seen"]}
            changes = [{"t": "relations", "a": "update", "pk": {"id": rel_id}, "set": new,
                        "old": old}]
        execute(conn, actor=actor, op="relation.upsert", subject=f"relation:{rel_id}",
                changes=changes)
    return rel_id


def add_fact(conn: sqlite3.Connection, *, actor: str, entity_id: int, text: str,
             confidence: float = 0.7, belief: Mapping[str, Any] | None = None,
             verified: bool = False, evidence: Sequence[int] = ()) -> int:
    fields = {"belief_class": beliefs.DEFAULT_CLASS, "confidence_floor": 0.0, "archivable": 1,
              "domain": "real", "provenance": "interactive_memory", **(belief or {})}
    fields.pop("user_flag", None)
    beliefs.check_belief(fields, f"fact {text[:40]!r}")
    with transaction(conn):
        existing = conn.execute("SELECT id FROM facts WHERE entity_id = ? AND text = ?",
                                (entity_id, text)).fetchone()
        if existing is not None:
            return int(existing[0])
        fact_id = next_id(conn, "facts")
        row = {"id": fact_id, "entity_id": entity_id, "text": text,
               "confidence": float(confidence), "verified": int(verified), **fields}
        changes = [{"t": "facts", "a": "insert", "row": row}]
        changes += [{"t": "evidence", "a": "insert",
                     "row": {"observation_id": o, "row_kind": "fact", "row_id": fact_id}}
                    for o in evidence]
        execute(conn, actor=actor, op="fact.add", subject=f"fact:{fact_id}", changes=changes)
    return fact_id


# -- events -------------------------------------------------------------------------------

EVENT_DEFAULTS: dict[str, Any] = {
    "description": "", "sentiment": 0.0, "sentiment_label": "", "emotional_weight": 0.0,
    "intensity": 0.5, "belief_class": beliefs.DEFAULT_CLASS, "confidence_floor": 0.0,
    "archivable": 1, "provenance": "interactive_memory", "domain": beliefs.DEFAULT_DOMAIN,
    "user_flag": 0, "biometrics": "{}", "source_observation": None, "key": None,
}


def event_changes(conn: sqlite3.Connection, fields: Mapping[str, Any], *,
                  event_id: int | None = None, entities: Sequence[int] = (),
                  parents: Sequence[tuple[int, str, float]] = (), evidence: Sequence[int] = (),
                  emotions: Emotions | None = None, vectors: Sequence[Vector] = ()
                  ) -> tuple[int, list[dict[str, Any]]]:
    """The change set that adds one event with its links, emotions and vectors."""
    row = {**EVENT_DEFAULTS, **fields}
    label = f"event {row.get('key') or row.get('title', '')[:40]!r}"
    beliefs.check_belief(row, label)
    if not row.get("title"):
        raise InvariantError(f"{label}: a title is required")
    if not row.get("ts"):
        raise InvariantError(f"{label}: a timestamp (ts) is required")
    if isinstance(row["biometrics"], Mapping):
        row["biometrics"] = json.dumps(dict(row["biometrics"]), sort_keys=True)
    if emotions is not None and not row.get("emotional_weight"):
        row["emotional_weight"] = max([0.0, *map(float, emotions.values.values())])
    for flag in ("archivable", "user_flag"):
        row[flag] = int(row[flag])
    if event_id is None:
        event_id = next_id(conn, "events")
    row["id"] = event_id
    changes: list[dict[str, Any]] = [{"t": "events", "a": "insert", "row": row}]
    for entity_id in dict.fromkeys(entities):
        changes.append({"t": "event_entities", "a": "insert",
                        "row": {"event_id": event_id, "entity_id": entity_id, "role": ""}})
    for obs_id in dict.fromkeys(evidence):
        changes.append({"t": "evidence", "a": "insert",
                        "row": {"observation_id": obs_id, "row_kind": "event", "row_id": event_id}})
    for parent_id, kind, strength in parents:
        changes.append(chain_row(parent_id, event_id, kind, strength))
    if emotions is not None:
        changes.append({"t": "event_emotions", "a": "insert", "row": emotions.row(event_id)})
    digest = text_hash(row["title"], row["description"])
    for vector in vectors:
        changes.append({"t": "event_embeddings", "a": "insert", "row": vector.row(event_id, digest)})
    return event_id, changes


def add_event(conn: sqlite3.Connection, *, actor: str, fields: Mapping[str, Any],
              **links: Any) -> int:
    with transaction(conn):
        event_id, changes = event_changes(conn, fields, **links)
        execute(conn, actor=actor, op="event.add", subject=f"event:{event_id}", changes=changes)
    return event_id


def chain_row(parent_id: int, child_id: int, kind: str, strength: float) -> dict[str, Any]:
    if kind not in beliefs.CHAIN_KINDS:
        raise InvariantError(f"chain link {parent_id}→{child_id}: unknown kind {kind!r}")
    if parent_id == child_id:
        raise InvariantError(f"chain link {parent_id}→{child_id}: an event cannot be its own parent")
    return {"t": "event_chains", "a": "insert",
            "row": {"parent_id": parent_id, "child_id": child_id, "kind": kind,
                    "strength": min(1.0, max(0.0, float(strength)))}}


def would_close_cycle(conn: sqlite3.Connection, parent_id: int, child_id: int) -> bool:
    """True when child already reaches parent, so parent→child would make a cycle."""
    row = conn.execute(
        "WITH RECURSIVE reach(id) AS (SELECT ? UNION SELECT c.child_id FROM event_chains c"
        " JOIN reach r ON c.parent_id = r.id) SELECT 1 FROM reach WHERE id = ? LIMIT 1",
        (child_id, parent_id)).fetchone()
    return row is not None


def link_events(conn: sqlite3.Connection, *, actor: str, parent_id: int, child_id: int,
                kind: str = "causal", strength: float = 0.5) -> int:
    with transaction(conn):
        if parent_id == child_id or would_close_cycle(conn, parent_id, child_id):
            raise InvariantError(
                f"chain link {parent_id}→{child_id} refused: it would close a cycle")
        exists = conn.execute("SELECT 1 FROM event_chains WHERE parent_id = ? AND child_id = ?",
                              (parent_id, child_id)).fetchone()
        if exists:
            raise InvariantError(f"chain link {parent_id}→{child_id} already exists")
        return execute(conn, actor=actor, op="chain.add", subject=f"event:{child_id}",
                       changes=[chain_row(parent_id, child_id, kind, strength)])


def check_expected(current: Mapping[str, Any], expect: Mapping[str, Any] | None,
                   label: str) -> None:
    """Refuse (ConflictError) when a field differs from what the caller last saw: another
    program changed the row since. Checked inside the writing transaction."""
    if not expect:
        return
    moved = [k for k, v in expect.items() if not _same_value(current.get(k), v)]
    if moved:
        now = ", ".join(f"{k} {current.get(k)!r}" for k in moved[:3])
        raise ConflictError(f"{label} was changed by another program since (now {now}); "
                            "nothing was overwritten")


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(float(a) - float(b)) < 1e-12
    return a == b


def set_belief(conn: sqlite3.Connection, event_id: int, *, actor: str = "manual",
               op: str = "event.set", expect: Mapping[str, Any] | None = None,
               **new_values: Any) -> int | None:
    """Edit belief fields of an event; the store refuses a result that breaks an invariant.
    Returns the journal seq, or None when nothing changed."""
    allowed = set(beliefs.BELIEF_FIELDS)
    unknown = set(new_values) - allowed
    if unknown:
        raise PulseError(f"cannot set {sorted(unknown)} (belief fields: {sorted(allowed)})")
    with transaction(conn):
        current = row_dict(conn, "events", {"id": event_id})
        if current is None:
            raise PulseError(f"no event {event_id}")
        check_expected(current, expect, f"event {current.get('key') or event_id}")
        merged = {**current, **{k: v for k, v in new_values.items() if v is not None}}
        for flag in ("archivable", "user_flag"):
            merged[flag] = int(merged[flag])
        if "confidence_floor" in merged:
            merged["confidence_floor"] = float(merged["confidence_floor"])
        beliefs.check_belief(merged, f"event {event_id}")
        new = {k: merged[k] for k in allowed if merged[k] != current[k]}
        if not new:
            return None
        old = {k: current[k] for k in new}
        return execute(conn, actor=actor, op=op, subject=f"event:{event_id}",
                       changes=[{"t": "events", "a": "update", "pk": {"id": event_id},
                                 "set": new, "old": old}])


FACT_BELIEF_FIELDS = tuple(f for f in beliefs.BELIEF_FIELDS if f != "user_flag")


def set_fact_belief(conn: sqlite3.Connection, fact_id: int, *, actor: str = "manual",
                    op: str = "fact.set", expect: Mapping[str, Any] | None = None,
                    **new_values: Any) -> int | None:
    """Edit belief fields of a fact (facts have no user_flag); the store refuses a result that
    breaks an invariant. Returns the journal seq, or None when nothing changed."""
    allowed = set(FACT_BELIEF_FIELDS)
    unknown = set(new_values) - allowed
    if unknown:
        raise PulseError(f"cannot set {sorted(unknown)} on a fact (fields: {sorted(allowed)})")
    with transaction(conn):
        current = row_dict(conn, "facts", {"id": fact_id})
        if current is None:
            raise PulseError(f"no fact {fact_id}")
        check_expected(current, expect, f"fact {fact_id}")
        merged = {**current, **{k: v for k, v in new_values.items() if v is not None}}
        merged["archivable"] = int(merged["archivable"])
        merged["confidence_floor"] = float(merged["confidence_floor"])
        beliefs.check_belief(merged, f"fact {fact_id}")
        new = {k: merged[k] for k in allowed if merged[k] != current[k]}
        if not new:
            return None
        old = {k: current[k] for k in new}
        return execute(conn, actor=actor, op=op, subject=f"fact:{fact_id}",
                       changes=[{"t": "facts", "a": "update", "pk": {"id": fact_id},
                                 "set": new, "old": old}])


def pin_core_wound(conn: sqlite3.Connection, event_id: int, *, actor: str = "manual",
                   expect: Mapping[str, Any] | None = None) -> int | None:
    with transaction(conn):
        current = row_dict(conn, "events", {"id": event_id})
        if current is None:
            raise PulseError(f"no event {event_id}")
        check_expected(current, expect, f"event {current.get('key') or event_id}")
        return set_belief(conn, event_id, actor=actor, op="event.pin",
                          **beliefs.core_wound(current))


def set_embedding(conn: sqlite3.Connection, event_id: int, vector: Vector, *,
                  actor: str = "system") -> int:
    """Store (or replace) one model's vector of an event."""
    with transaction(conn):
        event = conn.execute("SELECT title, description FROM events WHERE id = ?",
                             (event_id,)).fetchone()
        if event is None:
            raise PulseError(f"no event {event_id}")
        row = vector.row(event_id, text_hash(event["title"], event["description"]))
        old = row_dict(conn, "event_embeddings", {"event_id": event_id, "model": vector.model})
        changes: list[dict[str, Any]] = []
        if old is not None:
            changes.append({"t": "event_embeddings", "a": "delete", "row": old})
        changes.append({"t": "event_embeddings", "a": "insert", "row": row})
        return execute(conn, actor=actor, op="embedding.set", subject=f"event:{event_id}",
                       changes=changes, extra={"model": vector.model})


def encoded(row: Mapping[str, Any]) -> dict[str, Any]:
    return encode_row(dict(row))
