"""The memory as a networkx graph: entities (and optionally events) as nodes; relations,
event–entity links and chain links as edges.

Node ids are strings: ``en:<entity id>`` and ``ev:<event id>``. Every node carries ``type``
(entity | event), ``label``, ``kind``, ``domain``, ``salience`` and ``beliefs`` (the belief
classes it touches, for filtering); every edge carries ``type`` (relation | mention | chain),
``kind`` and ``strength``. Read-only: nothing here writes to the memory.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Collection, Iterable
from typing import Any

import networkx as nx

from core.beliefs import DOMAINS, domain_list
from core.errors import ValidationError
from core.store.sqlite import sqlite3

ENTITY_PREFIX = "en:"
EVENT_PREFIX = "ev:"


def entity_node(entity_id: int) -> str:
    return f"{ENTITY_PREFIX}{int(entity_id)}"


def event_node(event_id: int) -> str:
    return f"{EVENT_PREFIX}{int(event_id)}"


def _connection(memory_or_conn: Any) -> sqlite3.Connection:
    if isinstance(memory_or_conn, sqlite3.Connection):
        return memory_or_conn
    conn = getattr(memory_or_conn, "conn", None)
    if isinstance(conn, sqlite3.Connection):
        return conn
    raise TypeError("build_graph needs a Memory or an sqlite3.Connection")


def parse_domains(domains: Iterable[str] | str | None) -> tuple[str, ...]:
    """None → every domain; "a,b" or ["a", "b"] → those, validated, in the canonical order."""
    if domains is None:
        return DOMAINS
    wanted = domain_list(domains)
    if not wanted:
        raise ValidationError("no domain selected")
    return tuple(d for d in DOMAINS if d in wanted)


def _json_list(text: str | None) -> list[Any]:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def build_graph(memory_or_conn: Any, *, include_events: bool = False,
                domains: Iterable[str] | str | None = None) -> nx.MultiDiGraph:
    """Project the memory onto a MultiDiGraph (several relation kinds may join one pair).

    Entities always become nodes. With ``include_events`` events become nodes too, linked to
    their entities (``mention``) and to each other (``chain``); without it, each entity still
    lists its events (``events`` attribute) so a viewer can show them. ``domains`` keeps only
    rows (entities, events, facts) in those domains; edges need both ends kept.
    """
    conn = _connection(memory_or_conn)
    keep = parse_domains(domains)
    marks = ",".join("?" * len(keep))
    graph = nx.MultiDiGraph(domains=list(keep), include_events=bool(include_events))

    # -- entities ------------------------------------------------------------------------------
    rows = conn.execute(
        "SELECT id, key, canonical_name, kind, aliases, domain, salience, emotional_weight,"
        " first_seen, last_seen, is_self, description FROM entities"
        f" WHERE domain IN ({marks}) ORDER BY id", keep).fetchall()
    for (eid, key, name, kind, aliases, domain, salience, weight, first_seen, last_seen,
         is_self, description) in rows:
        graph.add_node(entity_node(eid), type="entity", db_id=int(eid), key=key, label=name,
                       kind=kind, aliases=[str(a) for a in _json_list(aliases)], domain=domain,
                       salience=float(salience), emotional_weight=float(weight),
                       first_seen=first_seen, last_seen=last_seen, is_self=bool(is_self),
                       description=description or "", facts=[], events=[], beliefs=set(),
                       observations=[])

    # -- facts -----------------------------------------------------------------------------------
    for (fid, entity_id, text, confidence, cls, floor, archivable, domain,
         verified) in conn.execute(
            "SELECT id, entity_id, text, confidence, belief_class, confidence_floor, archivable,"
            f" domain, verified FROM facts WHERE domain IN ({marks}) ORDER BY id", keep):
        node = entity_node(entity_id)
        if node not in graph:
            continue
        attrs = graph.nodes[node]
        attrs["facts"].append({"id": int(fid), "text": text, "confidence": float(confidence),
                               "belief_class": cls, "confidence_floor": float(floor),
                               "archivable": bool(archivable), "domain": domain,
                               "verified": bool(verified)})
        attrs["beliefs"].add(cls)

    # -- relations -------------------------------------------------------------------------------
    for rid, src, dst, kind, context, strength in conn.execute(
            "SELECT id, from_entity, to_entity, kind, context, strength FROM relations"
            " ORDER BY id"):
        a, b = entity_node(src), entity_node(dst)
        if a in graph and b in graph:
            graph.add_edge(a, b, key=f"rel:{rid}", type="relation", kind=kind,
                           context=context or "", strength=float(strength))

    # -- events ----------------------------------------------------------------------------------
    events: dict[int, dict[str, Any]] = {}
    for (vid, key, title, description, ts, sentiment, label, weight, intensity, cls, floor,
         archivable, provenance, domain, user_flag, obs_id) in conn.execute(
            "SELECT id, key, title, description, ts, sentiment, sentiment_label,"
            " emotional_weight, intensity, belief_class, confidence_floor, archivable,"
            " provenance, domain, user_flag, source_observation FROM events"
            f" WHERE domain IN ({marks}) AND absorbed_into IS NULL AND archived = 0"
            f" ORDER BY ts, id", keep):
        events[int(vid)] = {
            "id": event_node(vid), "db_id": int(vid), "key": key, "title": title,
            "description": description or "", "ts": ts, "sentiment": float(sentiment),
            "sentiment_label": label or "", "emotional_weight": float(weight),
            "intensity": float(intensity), "belief_class": cls,
            "confidence_floor": float(floor), "archivable": bool(archivable),
            "provenance": provenance, "domain": domain, "user_flag": bool(user_flag),
            "source_observation": obs_id, "entities": [],
        }
    emotions = _dominant_emotions(conn)
    for vid, ev in events.items():
        if vid in emotions:
            ev["emotion"] = emotions[vid]

    links: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for vid, eid, role in conn.execute(
            "SELECT event_id, entity_id, role FROM event_entities ORDER BY event_id, entity_id"):
        if int(vid) in events and entity_node(eid) in graph:
            links[int(vid)].append((int(eid), role or ""))

    for vid, ev in events.items():
        for eid, _role in links.get(vid, ()):
            ev["entities"].append(entity_node(eid))
            attrs = graph.nodes[entity_node(eid)]
            attrs["events"].append(ev["id"])
            attrs["beliefs"].add(ev["belief_class"])

    if include_events:
        for vid, ev in events.items():
            graph.add_node(ev["id"], type="event", label=ev["title"], kind="event",
                           salience=max(ev["intensity"], ev["emotional_weight"]),
                           beliefs={ev["belief_class"]},
                           **{k: v for k, v in ev.items() if k not in ("id", "entities")},
                           entities=list(ev["entities"]))
            for eid, role in links.get(vid, ()):
                graph.add_edge(ev["id"], entity_node(eid), key=f"men:{vid}:{eid}",
                               type="mention", kind=role or "mentions", strength=0.5)
        for parent, child, kind, strength in conn.execute(
                "SELECT parent_id, child_id, kind, strength FROM event_chains"
                " ORDER BY parent_id, child_id"):
            if int(parent) in events and int(child) in events:
                graph.add_edge(event_node(parent), event_node(child),
                               key=f"chain:{parent}:{child}", type="chain", kind=kind,
                               strength=float(strength))
    graph.graph["events"] = events
    return graph


def _dominant_emotions(conn: sqlite3.Connection) -> dict[int, dict[str, float]]:
    """Each event's dominant emotion (name, value) when one is ≥ 0.1."""
    names = ("joy", "sadness", "anger", "fear", "trust", "disgust", "anticipation", "surprise",
             "shame", "guilt")
    out: dict[int, dict[str, float]] = {}
    for row in conn.execute(f"SELECT event_id, {', '.join(names)} FROM event_emotions"):
        values = dict(zip(names, map(float, row[1:])))
        best = max(names, key=lambda n: values[n])
        if values[best] >= 0.1:
            out[int(row[0])] = {"name": best, "value": round(values[best], 3)}
    return out


def observation_texts(memory_or_conn: Any, graph: nx.MultiDiGraph, *, per_entity: int = 3,
                      max_chars: int = 2000, exclude: Collection[int] = ()
                      ) -> dict[str, list[str]]:
    """The observation text behind each node: an event's source observation (and evidence);
    an entity's evidence rows, else the observations of its first events. Redacted
    (forgotten) observations, and those in `exclude`, are never returned."""
    conn = _connection(memory_or_conn)
    texts: dict[int, str] = {}
    for oid, text, redacted in conn.execute(
            "SELECT id, content_text, redacted FROM observations"):
        if not redacted and text and int(oid) not in exclude:
            texts[int(oid)] = text if len(text) <= max_chars else text[:max_chars] + "…"
    evidence: dict[tuple[str, int], list[int]] = defaultdict(list)
    for oid, kind, row_id in conn.execute(
            "SELECT observation_id, row_kind, row_id FROM evidence ORDER BY observation_id"):
        evidence[(kind, int(row_id))].append(int(oid))

    events = graph.graph.get("events", {})
    event_obs: dict[str, list[int]] = {}
    for vid, ev in events.items():
        ids = [ev["source_observation"]] if ev.get("source_observation") else []
        ids += [o for o in evidence.get(("event", vid), []) if o not in ids]
        event_obs[ev["id"]] = [o for o in ids if o in texts]

    out: dict[str, list[str]] = {}
    for node, attrs in graph.nodes(data=True):
        if attrs.get("type") == "event":
            ids = event_obs.get(node, [])
        else:
            ids = list(evidence.get(("entity", attrs["db_id"]), []))
            for fact in attrs.get("facts", []):
                ids += [o for o in evidence.get(("fact", fact["id"]), []) if o not in ids]
            ids = [o for o in ids if o in texts]
            if not ids:
                for ev_id in attrs.get("events", []):
                    ids += [o for o in event_obs.get(ev_id, []) if o not in ids]
                    if len(ids) >= per_entity:
                        break
            ids = ids[:per_entity]
        if ids:
            out[node] = [texts[o] for o in ids]
    for ev in events.values():
        if ev["id"] not in out and event_obs.get(ev["id"]):
            out[ev["id"]] = [texts[o] for o in event_obs[ev["id"]]]
    return out
