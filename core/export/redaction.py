"""What an exported viewer leaves out (docs/privacy.md §Exports). An export leaves the owner's
view, so policies always apply (the OutsideView: boundaries, role labels, no_capture people);
the level says how much text goes on top:

- ``names``         names per policy; event descriptions, facts and source text stay;
- ``no-event-text`` also no event description and no source (observation) text;
- ``titles-only``   only names and titles: no description, fact, alias or source text at all.

Applied to the projected graph before the page data is made, so nothing withheld reaches the
page (its JSON, its labels or its search index).
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from core.errors import PulseError
from core.graph.builder import entity_node, event_node
from core.privacy.outside import OutsideView

LEVELS = ("names", "no-event-text", "titles-only")


def check_level(level: str | None) -> str:
    value = (level or "names").replace("_", "-")
    if value not in LEVELS:
        raise PulseError(f"unknown redaction level {level!r} (one of {', '.join(LEVELS)})")
    return value


def redact_graph(graph: nx.MultiDiGraph, view: OutsideView, level: str) -> dict[str, int]:
    """Apply `view` and `level` to a build_graph() graph in place; returns what was withheld."""
    level = check_level(level)
    withheld_events = {event_node(e) for e in view.withheld("")}
    hidden_entities = [n for n, a in graph.nodes(data=True) if a.get("type") == "entity"
                       and view.policies.person(a["db_id"]) is not None
                       and view.policies.person(a["db_id"]).policy == "no_capture"]
    events: dict[int, dict[str, Any]] = graph.graph.get("events", {})
    for vid in [v for v, ev in events.items() if ev["id"] in withheld_events]:
        del events[vid]
    graph.remove_nodes_from([n for n in list(graph.nodes) if n in withheld_events])
    graph.remove_nodes_from(hidden_entities)
    for ev in events.values():
        ev["title"] = view.text(ev["title"])
        ev["description"] = "" if level != "names" else view.text(ev["description"])
        ev["entities"] = [e for e in ev["entities"] if e not in hidden_entities]
    for _node, attrs in graph.nodes(data=True):
        if attrs.get("type") == "event":
            ev = events.get(int(attrs["db_id"]))
            if ev is not None:
                attrs.update(label=ev["title"], title=ev["title"],
                             description=ev["description"])
            continue
        person = view.policies.person(attrs["db_id"])
        attrs["label"] = view.entity_name(attrs["db_id"], attrs.get("label", ""))
        named = person is not None and person.policy == "redact"
        # a boundary shows only its name, as the brief does: its facts and aliases are the topic
        boundary = person is not None and person.do_not_probe
        if named:
            attrs["key"] = None        # a key ("tom") is a handle on the name, and searchable
        attrs["aliases"] = [] if named or boundary or level == "titles-only" else \
            [view.text(a) for a in attrs.get("aliases", [])]
        attrs["description"] = "" if boundary or level == "titles-only" else \
            view.text(attrs.get("description", ""))
        attrs["facts"] = [] if boundary or level == "titles-only" else \
            [{**f, "text": view.text(f["text"])} for f in attrs.get("facts", [])]
        attrs["events"] = [e for e in attrs.get("events", []) if e not in withheld_events]
    for _src, _dst, attrs in graph.edges(data=True):
        attrs["context"] = "" if level != "names" else view.text(attrs.get("context", ""))
    return {"events_behind_boundaries": len(withheld_events),
            "entities_not_captured": len(hidden_entities)}


def withheld_observations(view: OutsideView) -> set[int]:
    """The source text of every event behind a boundary (its observation and evidence), and
    every source text that names a boundary's topic itself. One entry is cut into several
    events and entities: shown as the observation of any of them, it would carry what the
    boundary withholds."""
    if not view.boundaries:
        return set()
    events = view.withheld("")
    out = {int(o) for o, text in view.conn.execute(
        "SELECT id, content_text FROM observations WHERE redacted = 0")
        if view.names_a_topic(text or "")}
    out |= {int(o) for e, o in view.conn.execute(
        "SELECT id, source_observation FROM events WHERE source_observation IS NOT NULL")
        if int(e) in events}
    out |= {int(o) for o, e in view.conn.execute(
        "SELECT observation_id, row_id FROM evidence WHERE row_kind = 'event'")
        if int(e) in events}
    return out


def redact_observations(observations: dict[str, list[str]], view: OutsideView, level: str
                        ) -> dict[str, list[str]]:
    if check_level(level) != "names":
        return {}
    boundaries = {entity_node(p.id) for p in view.boundaries}
    return {node: [view.text(t) for t in texts] for node, texts in observations.items()
            if node not in boundaries}
