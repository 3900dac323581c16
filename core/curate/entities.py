"""Entity edits a person makes: rename, aliases, kind, domain; merge two entities; split an
alias back out.

Invariants (said to the user before they hit them): a fictional character, fictionalized self
or narrative device is never merged with a real entity; a name is never empty; an entity is
never merged into itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from core import beliefs
from core.errors import PulseError, ValidationError
from core.ingest.pipeline import _merge_changes, norm_name, ranked_weight, salience_of
from core.store.changes import row_dict
from core.store.commands import execute, next_id, transaction
from core.store.sqlite import sqlite3

FICTION_KINDS = ("fictional_character", "fictionalized_self", "narrative_device")
MAX_NAME = 200
MAX_ALIASES = 100


def resolve_entity(conn: sqlite3.Connection, ref: str | int) -> int:
    """An entity id from a number, "entity:ID", an external key or a name/alias that exactly
    one entity has."""
    from core.trust.erase_plan import resolve

    text = str(ref).strip()
    if text.startswith("entity:"):
        text = text[len("entity:"):]
    if not text:
        raise PulseError("give an entity (an id, a key or a name)")
    return resolve(conn, "entity", text)


def _aliases(row: Any) -> list[str]:
    try:
        return [a for a in json.loads(row["aliases"] or "[]") if isinstance(a, str)]
    except ValueError:
        return []


def _clean_name(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValidationError(f"{what} must be text, got {value!r}")
    text = " ".join(value.split())
    if not text:
        raise ValidationError(f"{what} must not be empty")
    if len(text) > MAX_NAME:
        raise ValidationError(f"{what} is longer than {MAX_NAME} characters")
    return text


def edit_entity(memory: Any, entity_id: int, *, name: str | None = None,
                aliases: Sequence[str] | None = None, kind: str | None = None,
                domain: str | None = None, description: str | None = None,
                keep_old_name: bool = True, actor: str = "manual") -> int | None:
    """Rename (the old name kept as an alias unless keep_old_name=False), set the aliases, kind,
    domain or description. One journaled step; None when nothing changed."""
    conn: sqlite3.Connection = memory.conn
    with transaction(conn):
        current = row_dict(conn, "entities", {"id": entity_id})
        if current is None:
            raise PulseError(f"no entity {entity_id}")
        new: dict[str, Any] = {}
        new_name = current["canonical_name"] if name is None else _clean_name(name, "the name")
        alias_list = _aliases(current) if aliases is None else [
            _clean_name(a, "an alias") for a in aliases]
        if name is not None and new_name != current["canonical_name"] and keep_old_name:
            alias_list.append(current["canonical_name"])
        seen, clean = {norm_name(new_name)}, []
        for alias in alias_list:
            if norm_name(alias) not in seen:
                seen.add(norm_name(alias))
                clean.append(alias)
        if len(clean) > MAX_ALIASES:
            raise ValidationError(f"at most {MAX_ALIASES} aliases")
        if kind is not None and kind not in beliefs.ENTITY_KINDS:
            raise ValidationError(f"unknown kind {kind!r} (one of {', '.join(beliefs.ENTITY_KINDS)})")
        if domain is not None and domain not in beliefs.DOMAINS:
            raise ValidationError(f"unknown domain {domain!r} (one of {', '.join(beliefs.DOMAINS)})")
        wanted = {"canonical_name": new_name, "aliases": json.dumps(clean, ensure_ascii=False),
                  "kind": kind or current["kind"], "domain": domain or current["domain"],
                  "description": current["description"] if description is None
                  else str(description).strip()}
        new = {k: v for k, v in wanted.items() if v != current[k]}
        if not new:
            return None
        return execute(conn, actor=actor, op="entity.edit", subject=f"entity:{entity_id}",
                       changes=[{"t": "entities", "a": "update", "pk": {"id": entity_id},
                                 "set": new, "old": {k: current[k] for k in new}}])


# -- merge ------------------------------------------------------------------------------------

def _pair(conn: sqlite3.Connection, keep_id: int, gone_id: int) -> tuple[sqlite3.Row, sqlite3.Row]:
    if keep_id == gone_id:
        raise PulseError("an entity cannot be merged into itself")
    keep = conn.execute("SELECT * FROM entities WHERE id = ?", (keep_id,)).fetchone()
    gone = conn.execute("SELECT * FROM entities WHERE id = ?", (gone_id,)).fetchone()
    if keep is None or gone is None:
        raise PulseError(f"no entity {keep_id if keep is None else gone_id}")
    if (keep["kind"] in FICTION_KINDS) != (gone["kind"] in FICTION_KINDS):
        raise PulseError(f"{gone['canonical_name']} ({gone['kind'].replace('_', ' ')}) and "
                         f"{keep['canonical_name']} ({keep['kind'].replace('_', ' ')}): a "
                         "fictional character is never merged with a real entity")
    return keep, gone


def _merge_plan(conn: sqlite3.Connection, keep_id: int, gone_id: int
                ) -> tuple[sqlite3.Row, sqlite3.Row, list[dict[str, Any]]]:
    keep, gone = _pair(conn, keep_id, gone_id)
    changes = _merge_changes(conn, keep, gone)
    salience = salience_of(ranked_weight(conn, [keep_id, gone_id]))
    if salience != keep["salience"]:
        changes.append({"t": "entities", "a": "update", "pk": {"id": keep_id},
                        "set": {"salience": salience}, "old": {"salience": keep["salience"]}})
    for prop in conn.execute(
            "SELECT id, keep_entity, merge_entity FROM merge_proposals WHERE status = 'pending'"
            " AND (keep_entity IN (?, ?) OR merge_entity IN (?, ?))",
            (keep_id, gone_id, keep_id, gone_id)).fetchall():
        pair = {prop["keep_entity"], prop["merge_entity"]}
        if pair == {keep_id, gone_id}:
            status = "approved"            # the person did what the importer proposed
        elif gone_id in pair:
            status = "obsolete"
        else:
            continue
        changes.append({"t": "merge_proposals", "a": "update", "pk": {"id": prop["id"]},
                        "set": {"status": status}, "old": {"status": "pending"}})
    return keep, gone, changes


def merge_preview(memory: Any, keep_id: int, gone_id: int) -> dict[str, Any]:
    """What merging `gone` into `keep` would do, without writing: counts by what moves, the
    aliases added, and a note when the kinds differ (the kept kind wins)."""
    conn: sqlite3.Connection = memory.conn
    keep, gone, changes = _merge_plan(conn, keep_id, gone_id)
    moved = {"relations": 0, "relations_folded": 0, "events": 0, "facts": 0, "facts_folded": 0,
             "evidence": 0, "proposals_closed": 0}
    for c in changes:
        t, a = c["t"], c["a"]
        if t == "relations" and a == "update" and "from_entity" in c["set"]:
            moved["relations"] += 1
        elif t == "relations" and a == "delete":
            moved["relations_folded"] += 1
        elif t == "event_entities" and a == "delete":
            moved["events"] += 1
        elif t == "facts":
            moved["facts" if a == "update" else "facts_folded"] += 1
        elif t == "evidence" and a == "insert":
            moved["evidence"] += 1
        elif t == "merge_proposals":
            moved["proposals_closed"] += 1
    known = {norm_name(keep["canonical_name"]), *map(norm_name, _aliases(keep))}
    added = [n for n in [gone["canonical_name"], *_aliases(gone)] if norm_name(n) not in known]
    note = None
    if keep["kind"] != gone["kind"]:
        note = (f"the kinds differ: {gone['canonical_name']} is a "
                f"{gone['kind'].replace('_', ' ')}; the merged entity stays a "
                f"{keep['kind'].replace('_', ' ')}")
    return {"keep": {"id": keep_id, "name": keep["canonical_name"], "kind": keep["kind"]},
            "gone": {"id": gone_id, "name": gone["canonical_name"], "kind": gone["kind"]},
            "moves": moved, "aliases_added": list(dict.fromkeys(added)), "note": note}


def merge_entities(memory: Any, keep_id: int, gone_id: int, *, actor: str = "manual"
                   ) -> dict[str, Any]:
    """Merge `gone` into `keep` (relations, event links, facts and evidence move; duplicates
    fold; the names join the aliases; `gone` is removed). One journaled, undoable step."""
    conn: sqlite3.Connection = memory.conn
    with transaction(conn):
        _, _, changes = _merge_plan(conn, keep_id, gone_id)
        seq = execute(conn, actor=actor, op="entity.merge", subject=f"entity:{keep_id}",
                      changes=changes, extra={"merged": gone_id, "manual": True})
    return {"kept": keep_id, "merged": gone_id, "seq": seq}


# -- split an alias out -------------------------------------------------------------------------

def _alias_pattern(alias: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(alias) + r"(?!\w)", re.IGNORECASE)


def split_alias_preview(memory: Any, entity_id: int, alias: str) -> dict[str, Any]:
    """Which linked events and facts name `alias` (and so move to the new entity)."""
    conn: sqlite3.Connection = memory.conn
    row = conn.execute("SELECT * FROM entities WHERE id = ?", (entity_id,)).fetchone()
    if row is None:
        raise PulseError(f"no entity {entity_id}")
    match = next((a for a in _aliases(row) if norm_name(a) == norm_name(str(alias))), None)
    if match is None:
        raise PulseError(f"{row['canonical_name']} has no alias {alias!r} "
                         f"(aliases: {', '.join(_aliases(row)) or 'none'})")
    pattern = _alias_pattern(match)
    others = [n for n in [row["canonical_name"], *_aliases(row)] if n != match]
    other = re.compile("|".join(_alias_pattern(n).pattern for n in others), re.IGNORECASE) \
        if others else None
    events, facts = [], []
    for ev in conn.execute(
            "SELECT e.id, e.title, e.description, e.ts FROM event_entities x JOIN events e"
            " ON e.id = x.event_id WHERE x.entity_id = ? ORDER BY e.ts, e.id", (entity_id,)):
        text = f"{ev['title']}\n{ev['description']}"
        if pattern.search(text):
            events.append({"id": int(ev["id"]), "title": ev["title"], "ts": ev["ts"],
                           "also_names_the_rest": bool(other and other.search(text))})
    for f in conn.execute("SELECT id, text FROM facts WHERE entity_id = ? ORDER BY id",
                          (entity_id,)):
        if pattern.search(f["text"]) and not (other and other.search(f["text"])):
            facts.append({"id": int(f["id"]), "text": f["text"]})
    return {"entity": {"id": entity_id, "name": row["canonical_name"], "kind": row["kind"]},
            "alias": match, "events": events, "facts": facts}


def split_alias(memory: Any, entity_id: int, alias: str, *, kind: str | None = None,
                events: Sequence[int] | None = None, actor: str = "manual") -> dict[str, Any]:
    """Take `alias` off the entity and make it an entity of its own (same domain; `kind` or the
    same kind). The events that name it (or `events`, as ticked in the preview) and the facts
    that name only it move to the new entity. One journaled, undoable step."""
    conn: sqlite3.Connection = memory.conn
    preview = split_alias_preview(memory, entity_id, alias)
    if kind is not None and kind not in beliefs.ENTITY_KINDS:
        raise ValidationError(f"unknown kind {kind!r}")
    moving = [e["id"] for e in preview["events"]] if events is None else [int(e) for e in events]
    with transaction(conn):
        row = conn.execute("SELECT * FROM entities WHERE id = ?", (entity_id,)).fetchone()
        linked = {r[0] for r in conn.execute("SELECT event_id FROM event_entities WHERE"
                                             " entity_id = ?", (entity_id,))}
        stray = [e for e in moving if e not in linked]
        if stray:
            raise PulseError(f"event {stray[0]} is not linked to {row['canonical_name']}")
        new_id = next_id(conn, "entities")
        name = preview["alias"]
        aliases = [a for a in _aliases(row) if a != name]
        rest = ranked_weight(conn, [entity_id]) - _weight(conn, moving)
        changes: list[dict[str, Any]] = [
            {"t": "entities", "a": "insert", "row": {
                "id": new_id, "key": None, "canonical_name": name, "kind": kind or row["kind"],
                "aliases": "[]", "domain": row["domain"], "salience": salience_of(_weight(conn, moving)),
                "emotional_weight": 0.0, "first_seen": row["first_seen"],
                "last_seen": row["last_seen"], "is_self": 0, "description": "",
                # what named the alias stays as protected as it was
                "do_not_probe": row["do_not_probe"], "policy": row["policy"],
                "role_label": row["role_label"]}},
            {"t": "entities", "a": "update", "pk": {"id": entity_id},
             "set": {"aliases": json.dumps(aliases, ensure_ascii=False),
                     "salience": salience_of(max(0.0, rest))},
             "old": {"aliases": row["aliases"], "salience": row["salience"]}}]
        for event_id in moving:
            link = row_dict(conn, "event_entities", {"event_id": event_id, "entity_id": entity_id})
            changes.append({"t": "event_entities", "a": "delete", "row": link})
            changes.append({"t": "event_entities", "a": "insert",
                            "row": {**link, "entity_id": new_id}})
        for fact in preview["facts"]:
            changes.append({"t": "facts", "a": "update", "pk": {"id": fact["id"]},
                            "set": {"entity_id": new_id}, "old": {"entity_id": entity_id}})
        seq = execute(conn, actor=actor, op="entity.split", subject=f"entity:{entity_id}",
                      changes=changes, extra={"new_entity": new_id})
    return {"entity": entity_id, "new_entity": new_id, "events": moving,
            "facts": [f["id"] for f in preview["facts"]], "seq": seq}


def _weight(conn: sqlite3.Connection, event_ids: Sequence[int]) -> float:
    if not event_ids:
        return 0.0
    marks = ",".join("?" * len(event_ids))
    return float(conn.execute(
        f"SELECT COALESCE(SUM(intensity), 0) FROM events WHERE absorbed_into IS NULL AND id IN"
        f" ({marks})", list(event_ids)).fetchone()[0])
