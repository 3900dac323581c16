"""What may leave the owner's view: recall, the brief, MCP, the viewer and journal exports.

The owner's own view (the app's navigator, timeline, beliefs, detail panel) shows the memory as
stored. Everything else goes through an `OutsideView`:

- boundaries: events linked to a `do_not_probe` entity, or whose own title or description names
  its topic (core/privacy/mentions.py), are withheld unless the question names the topic itself
  (the entity's name or one of its aliases, as a whole word); the brief states each boundary as
  an instruction ("don't probe: Papa's death") and never shows what is behind;
- names: a `redact` person appears under their role label, a `no_capture` one as
  "[not captured]" — in text (stored text is already rewritten; this is the second lock) and
  wherever an entity's name is shown.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from core.privacy.mentions import TopicMentions
from core.privacy.policy import Person, Policies, relabel
from core.store.sqlite import sqlite3


class OutsideView:
    def __init__(self, conn: sqlite3.Connection, mentions: TopicMentions | None = None) -> None:
        self.conn = conn
        self.mentions = mentions if mentions is not None else TopicMentions()
        self.policies = Policies.load(conn)
        self.boundaries = [p for p in self.policies.people if p.do_not_probe]
        self.hidden_names = [p for p in self.policies.people
                             if p.policy in ("redact", "no_capture")]

    @classmethod
    def of(cls, memory: Any) -> OutsideView:
        """The view of a Memory (with its kept TopicMentions) or of a bare connection."""
        if isinstance(memory, sqlite3.Connection):
            return cls(memory)
        return cls(memory.conn, getattr(memory, "topic_mentions", None))

    # -- boundaries -----------------------------------------------------------------------------

    @cached_property
    def behind(self) -> dict[int, list[Person]]:
        """Event id → the boundaries it is behind: linked to the entity, or naming the topic in
        its own words. Read on first use (a view used only for names never reads it)."""
        behind: dict[int, list[Person]] = {}
        if not self.boundaries:
            return behind
        by_id = {p.id: p for p in self.boundaries}
        marks = ",".join("?" * len(by_id))
        for event_id, entity_id in self.conn.execute(
                f"SELECT event_id, entity_id FROM event_entities WHERE entity_id IN ({marks})",
                list(by_id)):
            behind.setdefault(int(event_id), []).append(by_id[int(entity_id)])
        for boundary_id, events in self.mentions.events(self.conn, self.boundaries).items():
            person = by_id[boundary_id]
            for event_id in events:
                people = behind.setdefault(event_id, [])
                if all(p is not person for p in people):
                    people.append(person)
        return behind

    def opened_by(self, query: str) -> set[int]:
        """Boundaries whose topic the question names itself."""
        return {p.id for p in self.boundaries if p.named_in(query)}

    def names_a_topic(self, text: str) -> bool:
        """Whether `text` names the topic of any boundary (e.g. an observation's source text)."""
        return any(p.named_in(text) for p in self.boundaries)

    def withheld(self, query: str = "") -> set[int]:
        """Event ids behind a boundary the question does not open."""
        if not self.behind:
            return set()
        opened = self.opened_by(query)
        return {e for e, people in self.behind.items()
                if any(p.id not in opened for p in people)}

    def boundary(self, event_id: int) -> Person | None:
        people = self.behind.get(int(event_id))
        return people[0] if people else None

    def instructions(self) -> list[str]:
        """The brief's boundary lines, as instructions to the companion."""
        return [f"- don't probe: {p.name}" for p in self.boundaries]

    # -- names ---------------------------------------------------------------------------------

    def text(self, value: str) -> str:
        for person in self.hidden_names:
            if person.policy == "redact":
                value = relabel(value, person)
            elif person.pattern is not None:
                value = person.pattern.sub("[not captured]", value)
        return value

    def entity_name(self, entity_id: int, name: str) -> str:
        person = self.policies.person(int(entity_id))
        return person.shown_name() if person is not None else self.text(name)

    def hides_entity(self, entity_id: int) -> bool:
        """An entity that is not shown at all outside (a boundary or a no_capture person)."""
        person = self.policies.person(int(entity_id))
        return person is not None and (person.do_not_probe or person.policy == "no_capture")

    # -- whole outputs -------------------------------------------------------------------------

    def results(self, out: dict[str, Any], query: str, top_k: int) -> dict[str, Any]:
        """A retrieval answer with the withheld events taken out (and the text relabelled)."""
        hidden = self.withheld(query)
        kept, dropped = [], 0
        for row in out.get("results", []):
            if int(row["id"]) in hidden:
                dropped += 1
                continue
            kept.append({**row, "title": self.text(row["title"]),
                         "text": self.text(row["text"])})
        out = {**out, "results": kept[:top_k]}
        if dropped:
            out["withheld"] = {"behind_boundary": dropped}
        return out

    def storyline(self, entry: dict[str, Any], hidden: set[int], query: str = ""
                  ) -> dict[str, Any]:
        """A storyline entry as the outside view may show it: a summary written over a
        withheld member could quote it, and one may name a topic in its own words, so the best
        match stands for the storyline instead."""
        opened = self.opened_by(query)
        names = any(p.named_in(entry.get(key) or "") for p in self.boundaries
                    if p.id not in opened for key in ("title", "summary"))
        if not names and not hidden & set(entry["members"]):
            return {**entry, "title": self.text(entry["title"]),
                    "summary": self.text(entry["summary"])}
        best = entry["best"]
        members = [m for m in entry["members"] if m not in hidden]
        return {**entry, "title": best["title"], "summary": best["text"], "method": "event",
                "members": members, "size": len(members)}

    def event_detail(self, detail: dict[str, Any]) -> dict[str, Any]:
        event = dict(detail["event"])
        for key in ("title", "description"):
            if isinstance(event.get(key), str):
                event[key] = self.text(event[key])
        entities = [{**e, "name": self.entity_name(e["id"], e["name"])}
                    for e in detail.get("entities", []) if not self.hides_entity(e["id"])]
        return {**detail, "event": event, "entities": entities}
