"""Knowledge gaps: what a companion could gently ask about.

- an entity mentioned in at least `gap_min_events` live events with no fact known about it;
- a person with no relation to the memory's own person (the entity marked is_self; without
  one this check is skipped).

Only kinds a person can be asked about (people, places, organisations, projects, communities,
series of events, things, products), in the brief's domains (real and meta_authorial unless
told otherwise). Never anything behind a do_not_probe boundary: an entity with do_not_probe,
or one a do_not_probe safety boundary is related to; and an event behind a boundary (linked to
it, or naming its topic: core/privacy/outside.py) is not counted as a mention, so an entity
known only from such events is never offered. Rejecting a gap in the review queue sets
do_not_probe on it (journaled), so it is never offered again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from core.beliefs import domain_list
from core.errors import ValidationError
from core.store.sqlite import sqlite3

GAP_KINDS = ("person", "place", "org", "project", "community", "event_series", "thing",
             "product")
DEFAULT_DOMAINS = ("real", "meta_authorial")


def behind_boundary(conn: sqlite3.Connection) -> set[int]:
    """Entities never to probe: do_not_probe themselves, or related to a do_not_probe
    safety boundary."""
    out = {int(r[0]) for r in conn.execute("SELECT id FROM entities WHERE do_not_probe = 1")}
    for a, b in conn.execute(
            "SELECT r.from_entity, r.to_entity FROM relations r JOIN entities x ON x.id IN"
            " (r.from_entity, r.to_entity) WHERE x.kind = 'safety_boundary'"
            " AND x.do_not_probe = 1"):
        out.update((int(a), int(b)))
    return out


def self_entity(conn: sqlite3.Connection) -> sqlite3.Row | None:
    return conn.execute("SELECT id, canonical_name FROM entities WHERE is_self = 1"
                        " ORDER BY id LIMIT 1").fetchone()


def knowledge_gaps(memory: Any, *, domains: Iterable[str] | str | None = None,
                   limit: int | None = None, min_events: int | None = None
                   ) -> list[dict[str, Any]]:
    from core.privacy.outside import OutsideView
    from core.upkeep.settings import load

    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValidationError(f"limit must be at least 1, got {limit!r}")
    conn = memory.conn
    wanted = tuple(domain_list(domains)) if domains is not None else DEFAULT_DOMAINS
    minimum = min_events if min_events is not None else load(memory).gap_min_events
    blocked = behind_boundary(conn)
    withheld = json.dumps(sorted(OutsideView.of(memory).withheld("")))
    me = self_entity(conn)
    related: set[int] = set()
    if me is not None:
        for a, b in conn.execute("SELECT from_entity, to_entity FROM relations WHERE"
                                 " from_entity = ? OR to_entity = ?", (me["id"], me["id"])):
            related.update((int(a), int(b)))
    decided = {r[0]: r[1] for r in conn.execute(
        "SELECT ref, decision FROM review_decisions WHERE ref LIKE 'gap:%'")}
    kinds = ",".join("?" * len(GAP_KINDS))
    marks = ",".join("?" * len(wanted))
    rows = conn.execute(
        f"SELECT e.id, e.key, e.canonical_name, e.kind, e.domain,"
        f" (SELECT COUNT(*) FROM event_entities x JOIN events v ON v.id = x.event_id"
        f"  WHERE x.entity_id = e.id AND v.absorbed_into IS NULL AND v.archived = 0"
        f"  AND v.id NOT IN (SELECT value FROM json_each(?))) AS mentions,"
        f" (SELECT COUNT(*) FROM facts f WHERE f.entity_id = e.id) AS facts"
        f" FROM entities e WHERE e.is_self = 0 AND e.kind IN ({kinds})"
        f" AND e.domain IN ({marks})", [withheld, *GAP_KINDS, *wanted]).fetchall()
    out = []
    for row in rows:
        entity_id = int(row["id"])
        if entity_id in blocked or decided.get(f"gap:{entity_id}") == "rejected":
            continue
        reasons, why = [], []
        if row["mentions"] >= minimum and row["facts"] == 0:
            reasons.append("no_facts")
            it = "them" if row["kind"] == "person" else "it"
            why.append(f"in {row['mentions']} events, nothing known about {it}")
        if me is not None and row["kind"] == "person" and row["mentions"] > 0 \
                and entity_id not in related:
            reasons.append("no_relation")
            why.append(f"no relation to {me['canonical_name']} recorded")
        if not reasons:
            continue
        out.append({"ref": f"gap:{entity_id}", "entity": entity_id, "key": row["key"],
                    "name": row["canonical_name"], "kind": row["kind"],
                    "domain": row["domain"], "mentions": int(row["mentions"]),
                    "facts": int(row["facts"]), "reasons": reasons, "why": "; ".join(why),
                    "accepted": decided.get(f"gap:{entity_id}") == "accepted"})
    out.sort(key=lambda g: (not g["accepted"], -g["mentions"], g["name"].casefold(),
                            g["entity"]))
    return out[:limit] if limit is not None else out
