"""One filter for every view: which entities, events and facts pass a kind / domain / belief
class / search filter (the app's navigator sets it; the graph, the timeline, the beliefs table
and the navigator itself show what passes).

- kind: None (everything), "event" (events only), "entity" (entities and their facts only) or
  "kind:<entity kind>" (entities of that kind, their facts, and the events that mention one).
- domain, belief_class: the row's own; an entity passes a class when one of its facts or
  events has it.
- text: every word, ignoring case, in a name, alias, description or key (entities), a title,
  description or key (events) or a fact's text. An event that mentions a matching entity
  matches too, and so do the facts about it: searching a person shows their events everywhere.
The result also says what passes without the text, and what the text itself matched, so the
graph can keep a match's neighbours visible and highlight the match.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core import beliefs
from core.errors import ValidationError
from core.store.sqlite import sqlite3


@dataclass(frozen=True)
class ItemFilter:
    kind: str | None = None
    domain: str | None = None
    belief_class: str | None = None
    text: str = ""

    def __post_init__(self) -> None:
        if self.kind not in (None, "event", "entity") and not (
                isinstance(self.kind, str) and self.kind.startswith("kind:")
                and self.kind[5:] in beliefs.ENTITY_KINDS):
            raise ValidationError(f"filter kind {self.kind!r}: use event, entity or "
                                  "kind:<entity kind>")
        if self.domain is not None and self.domain not in beliefs.DOMAINS:
            raise ValidationError(f"filter domain {self.domain!r}: one of "
                                  f"{', '.join(beliefs.DOMAINS)}")
        if self.belief_class is not None and self.belief_class not in beliefs.BELIEF_CLASSES:
            raise ValidationError(f"filter class {self.belief_class!r}: one of "
                                  f"{', '.join(beliefs.BELIEF_CLASSES)}")

    @property
    def words(self) -> list[str]:
        return [w for w in self.text.casefold().split() if w]

    @property
    def active(self) -> bool:
        return bool(self.kind or self.domain or self.belief_class or self.words)


def _has_all(text: str, words: list[str]) -> bool:
    hay = text.casefold()
    return all(w in hay for w in words)


def filter_items(conn: sqlite3.Connection, f: ItemFilter) -> dict[str, Any]:
    """{"events", "entities", "facts"}: ids that pass the whole filter; "allowed_events",
    "allowed_entities": without the text; "text_events", "text_entities": matched by their own
    words (within what is allowed); "active": whether anything is filtered."""
    words = f.words
    kind = f.kind
    entity_kind = kind[5:] if kind and kind.startswith("kind:") else None

    kind_of: dict[int, str] = {}
    name_hits: set[int] = set()          # entities whose own words match (no other filter)
    allowed_entities: set[int] = set()
    for r in conn.execute("SELECT id, key, canonical_name, kind, aliases, domain, description"
                          " FROM entities"):
        entity_id = int(r["id"])
        kind_of[entity_id] = r["kind"]
        if words:
            try:
                aliases = " ".join(a for a in json.loads(r["aliases"] or "[]")
                                   if isinstance(a, str))
            except ValueError:
                aliases = ""
            if _has_all(f"{r['canonical_name']}\n{aliases}\n{r['description']}\n"
                        f"{r['key'] or ''}", words):
                name_hits.add(entity_id)
        if kind == "event" or (entity_kind and r["kind"] != entity_kind):
            continue
        if f.domain and r["domain"] != f.domain:
            continue
        allowed_entities.add(entity_id)
    if f.belief_class:
        with_class = {int(r[0]) for r in conn.execute(
            "SELECT entity_id FROM facts WHERE belief_class = ? UNION SELECT x.entity_id FROM"
            " event_entities x JOIN events e ON e.id = x.event_id WHERE e.belief_class = ?"
            " AND e.absorbed_into IS NULL", (f.belief_class, f.belief_class))}
        allowed_entities &= with_class
    text_entities = (name_hits & allowed_entities) if words else set(allowed_entities)

    links: dict[int, set[int]] = {}
    for event_id, entity_id in conn.execute("SELECT event_id, entity_id FROM event_entities"):
        links.setdefault(int(event_id), set()).add(int(entity_id))

    allowed_events: set[int] = set()
    text_events: set[int] = set()
    event_hits: set[int] = set()
    if kind != "entity":
        sql = ("SELECT id, key, title, description, domain, belief_class FROM events"
               " WHERE absorbed_into IS NULL")
        for r in conn.execute(sql):
            event_id = int(r["id"])
            if f.domain and r["domain"] != f.domain:
                continue
            if f.belief_class and r["belief_class"] != f.belief_class:
                continue
            mentioned = links.get(event_id, set())
            if entity_kind and not any(kind_of.get(e) == entity_kind for e in mentioned):
                continue
            allowed_events.add(event_id)
            if not words:
                continue
            if _has_all(f"{r['title']}\n{r['description']}\n{r['key'] or ''}", words):
                text_events.add(event_id)
                event_hits.add(event_id)
            elif mentioned & name_hits:
                event_hits.add(event_id)
    if not words:
        text_events = set(allowed_events)
        event_hits = set(allowed_events)

    facts: set[int] = set()
    if kind != "event":
        for r in conn.execute("SELECT id, entity_id, text, domain, belief_class FROM facts"):
            owner = int(r["entity_id"])
            if entity_kind and kind_of.get(owner) != entity_kind:
                continue
            if f.domain and r["domain"] != f.domain:
                continue
            if f.belief_class and r["belief_class"] != f.belief_class:
                continue
            if words and not (owner in name_hits or _has_all(r["text"], words)):
                continue
            facts.add(int(r["id"]))
    return {"active": f.active, "events": event_hits, "entities": text_entities,
            "facts": facts, "allowed_events": allowed_events,
            "allowed_entities": allowed_entities, "text_events": text_events,
            "text_entities": text_entities}
