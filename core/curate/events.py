"""Event edits a person makes: its emotions, and its text.

- Emotions set by hand are stored with derivation ``user_confirmed`` (tagger "manual"). Nothing
  automatic writes over an existing emotion row — an import adds new events and never re-tags
  stored ones — so a confirmed value stays until a person changes it again.
- A new text is a new version, as a changed message is on import: a new event takes the text,
  the key, the belief fields, the links (entities, evidence, chain) and the emotions (re-tagged
  from the new text unless they were confirmed or explicit), with a fresh vector; the old event
  stays, absorbed into the new one (traceable, no longer ranked).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.emotion.plutchik import EMOTIONS
from core.errors import PulseError, ValidationError
from core.store import records
from core.store.changes import row_dict
from core.store.commands import execute, next_id, transaction
from core.store.sqlite import sqlite3

MAX_TITLE = 300
MAX_DESCRIPTION = 20_000
KEPT_DERIVATIONS = ("user_confirmed", "explicit")


def check_emotions(values: Mapping[str, Any]) -> dict[str, float]:
    """Plutchik-10 names with values in 0..1 (ValidationError naming the bad one)."""
    if not isinstance(values, Mapping):
        raise ValidationError("emotions must be a mapping of name → value in 0..1")
    out: dict[str, float] = {}
    for name, value in values.items():
        if name not in EMOTIONS:
            raise ValidationError(f"unknown emotion {name!r} (one of {', '.join(EMOTIONS)})")
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not 0.0 <= float(value) <= 1.0:
            raise ValidationError(f"emotion {name}: the value must be a number in 0..1, "
                                  f"got {value!r}")
        out[name] = round(float(value), 4)
    return out


def set_emotions(memory: Any, event_id: int, values: Mapping[str, Any], *,
                 actor: str = "manual") -> int | None:
    """Set an event's ten emotions (absent names are 0), marked user-confirmed. Returns the
    journal seq, or None when nothing changed."""
    conn: sqlite3.Connection = memory.conn
    clean = check_emotions(values)
    with transaction(conn):
        event = row_dict(conn, "events", {"id": event_id})
        if event is None:
            raise PulseError(f"no event {event_id}")
        new = {name: clean.get(name, 0.0) for name in EMOTIONS}
        new.update(tagger="manual", tagger_version="", derivation="user_confirmed",
                   confidence=1.0)
        old = row_dict(conn, "event_emotions", {"event_id": event_id})
        changes: list[dict[str, Any]] = []
        if old is None:
            changes.append({"t": "event_emotions", "a": "insert",
                            "row": {"event_id": event_id, **new}})
        else:
            moved = {k: v for k, v in new.items() if old[k] != v}
            if moved:
                changes.append({"t": "event_emotions", "a": "update",
                                "pk": {"event_id": event_id}, "set": moved,
                                "old": {k: old[k] for k in moved}})
        weight = max(new[name] for name in EMOTIONS)
        if changes and float(event["emotional_weight"]) != weight:
            changes.append({"t": "events", "a": "update", "pk": {"id": event_id},
                            "set": {"emotional_weight": weight},
                            "old": {"emotional_weight": event["emotional_weight"]}})
        if not changes:
            return None
        return execute(conn, actor=actor, op="event.emotions", subject=f"event:{event_id}",
                       changes=changes)


def edit_event_text(memory: Any, event_id: int, *, title: str | None = None,
                    description: str | None = None, actor: str = "manual") -> dict[str, Any] | None:
    """A new version of the event with this text, superseding the old one (one journaled,
    undoable step). Returns {"event": new id, "replaces": old id, "seq"}, or None when the text
    is unchanged."""
    conn: sqlite3.Connection = memory.conn
    old = row_dict(conn, "events", {"id": event_id})
    if old is None:
        raise PulseError(f"no event {event_id}")
    if old["absorbed_into"] is not None:
        raise PulseError(f"event {event_id} was already replaced by event {old['absorbed_into']};"
                         " edit that one")
    new_title = old["title"] if title is None else " ".join(str(title).split())
    new_desc = old["description"] if description is None else str(description).strip()
    if not new_title:
        raise ValidationError("an event needs a title")
    if len(new_title) > MAX_TITLE or len(new_desc) > MAX_DESCRIPTION:
        raise ValidationError(f"the title is limited to {MAX_TITLE} characters and the "
                              f"description to {MAX_DESCRIPTION}")
    if (new_title, new_desc) == (old["title"], old["description"]):
        return None
    # derived data first (it travels inside the change set)
    text = records.embedding_text(new_title, new_desc)
    emotions = conn.execute("SELECT * FROM event_emotions WHERE event_id = ?",
                            (event_id,)).fetchone()
    retag = emotions is None or emotions["derivation"] not in KEPT_DERIVATIONS
    tagged = memory.tag_texts([text])[0] if retag else None
    vectors = memory.embed_texts([text])
    with transaction(conn):
        new_id = next_id(conn, "events")
        changes: list[dict[str, Any]] = []
        if old["key"] is not None:
            changes.append({"t": "events", "a": "update", "pk": {"id": event_id},
                            "set": {"key": None}, "old": {"key": old["key"]}})
        row = {**old, "id": new_id, "title": new_title, "description": new_desc,
               "absorbed_into": None}
        changes.append({"t": "events", "a": "insert", "row": row})
        changes.append({"t": "events", "a": "update", "pk": {"id": event_id},
                        "set": {"absorbed_into": new_id}, "old": {"absorbed_into": None}})
        for link in conn.execute("SELECT * FROM event_entities WHERE event_id = ?", (event_id,)):
            changes.append({"t": "event_entities", "a": "insert",
                            "row": {**dict(link), "event_id": new_id}})
        for ev in conn.execute("SELECT observation_id FROM evidence WHERE row_kind = 'event'"
                               " AND row_id = ?", (event_id,)):
            changes.append({"t": "evidence", "a": "insert", "row": {
                "observation_id": ev[0], "row_kind": "event", "row_id": new_id}})
        for link in conn.execute("SELECT * FROM event_chains WHERE parent_id = ? OR child_id = ?",
                                 (event_id, event_id)).fetchall():
            link = dict(link)
            changes.append({"t": "event_chains", "a": "delete", "row": link})
            moved = {**link, **({"parent_id": new_id} if link["parent_id"] == event_id
                                else {"child_id": new_id})}
            changes.append({"t": "event_chains", "a": "insert", "row": moved})
        if tagged is not None:
            changes.append({"t": "event_emotions", "a": "insert", "row": tagged.row(new_id)})
        else:
            changes.append({"t": "event_emotions", "a": "insert",
                            "row": {**dict(emotions), "event_id": new_id}})
        digest = records.text_hash(new_title, new_desc)
        for vector in vectors:
            changes.append({"t": "event_embeddings", "a": "insert",
                            "row": vector.row(new_id, digest)})
        seq = execute(conn, actor=actor, op="event.text", subject=f"event:{new_id}",
                      changes=changes, extra={"replaces": event_id})
    return {"event": new_id, "replaces": event_id, "seq": seq}
