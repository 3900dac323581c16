"""What an erasure takes with it (JOURNAL §1), planned before anything is written.

Roots: ``event:ID``, ``fact:ID``, ``relation:ID``, ``entity:ID|KEY|NAME``, ``observation:ID``.

- event: the event and everything derived from it (vector, emotions, chain links, entity links,
  evidence, pool row, full-text index);
- fact / relation: the row and its evidence;
- entity: the entity (name, aliases, description), its relations, facts (and their evidence)
  and its links to events;
- observation: its text and evidence, and the events and facts it alone supports.
Then, repeatedly, the observations that supported no event or fact but erased ones (their
evidence of entities and relations goes with them; the entities and relations stay).

``cascade`` on an entity is "everything about a person": beyond the above, the events linked
to it or quoting one of its names, the observations quoting a name (or spoken by it), the
glossary terms that are its names, and the corrections about it or quoting a name (merge
proposals naming it go with every entity erasure). Names are matched as whole words,
ignoring case.

``keep`` holds the items a person unticked in the preview: they are never expanded into, so
an observation that still supports a kept event stays too. `Plan.items()` is the preview:
every item that goes, with why.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from core.errors import PulseError
from core.privacy.policy import name_pattern
from core.store.changes import table_keys
from core.store.records import row_id
from core.store.sqlite import sqlite3

KINDS = ("event", "fact", "relation", "entity", "observation")
TABLE_OF = {"event": "events", "fact": "facts", "relation": "relations", "entity": "entities",
            "observation": "observations", "glossary": "glossary",
            "correction": "corrections", "merge_proposal": "merge_proposals"}
# Items a preview lists (derived rows — vectors, emotions, links, evidence — are counted only).
ITEM_KINDS = ("entity", "fact", "relation", "event", "observation", "glossary", "correction",
              "merge_proposal")


def parse_ref(ref: str, kinds: Sequence[str] = KINDS) -> tuple[str, str]:
    kind, sep, ident = str(ref).strip().partition(":")
    if not sep or kind not in kinds or not ident.strip():
        raise PulseError(f"forget {_shown(str(ref))!r}: give KIND:ID with KIND one of "
                         f"{', '.join(kinds)} "
                         "(e.g. event:17, event:e001, entity:3, entity:Mark, observation:12)")
    return kind, ident.strip()


def resolve(conn: sqlite3.Connection, kind: str, ident: str) -> int:
    """A row id from a number, an external key (events, entities) or, for an entity, its
    name or an alias when exactly one entity has it."""
    table = TABLE_OF[kind]
    row = None
    number = row_id(ident)     # None for "²" or an id past SQLite's integers: names no row
    if number is not None:
        row = conn.execute(f"SELECT id FROM {table} WHERE id = ?", (number,)).fetchone()
    if row is None and kind in ("event", "entity"):
        row = conn.execute(f"SELECT id FROM {table} WHERE key = ?", (ident,)).fetchone()
    if row is None and kind == "entity":
        wanted = ident.casefold()
        hits = [int(r[0]) for r in conn.execute("SELECT id, canonical_name, aliases FROM entities")
                if wanted in {n.casefold() for n in _names_of(r[1], r[2])}]
        if len(hits) > 1:
            raise PulseError(f"entity:{_shown(ident)}: {len(hits)} entities are called that "
                             f"(ids {', '.join(map(str, hits[:8]))}); give the id")
        return hits[0] if hits else _missing(kind, ident)
    if row is None:
        _missing(kind, ident)
    return int(row[0])


def _missing(kind: str, ident: str) -> int:
    # also how curation commands find an entity: the message names no command
    raise PulseError(f"{kind}:{_shown(ident)}: no such {kind}")


def _shown(ident: str, limit: int = 80) -> str:
    """A reference as an error message repeats it: a pasted page is cut, not echoed whole."""
    return ident if len(ident) <= limit else f"{ident[:limit]}… ({len(ident):,} characters)"


def _names_of(name: str, aliases: str | None) -> list[str]:
    try:
        extra = [a for a in json.loads(aliases or "[]") if isinstance(a, str)]
    except ValueError:
        extra = []
    return [n for n in dict.fromkeys([name, *extra]) if n and n.strip()]


def _in(ids: Iterable[int]) -> tuple[str, list[int]]:
    values = sorted(ids)
    return "(" + ",".join("?" * len(values)) + ")", values


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                        (name,)).fetchone() is not None


class Plan:
    """The rows to erase, by table (pk tuples → row), what each item goes for, and the items
    the user chose to keep."""

    def __init__(self, conn: sqlite3.Connection, keep: dict[str, set[int]] | None = None) -> None:
        self.conn = conn
        self.rows: dict[str, dict[tuple, dict[str, Any]]] = defaultdict(dict)
        self.ids: dict[str, set[int]] = defaultdict(set)        # kind → ids that go
        self.keep: dict[str, set[int]] = defaultdict(set, keep or {})
        self.reasons: dict[tuple[str, int], str] = {}
        self.roots: list[tuple[str, int]] = []
        self.names: list[str] = []                # the person's names (cascade)
        self.storylines: set[str] = set()         # storyline keys whose summary goes

    # compatibility with the older attribute names
    @property
    def events(self) -> set[int]:
        return self.ids["event"]

    @property
    def entities(self) -> set[int]:
        return self.ids["entity"]

    @property
    def facts(self) -> set[int]:
        return self.ids["fact"]

    @property
    def observations(self) -> set[int]:
        return self.ids["observation"]

    def add_rows(self, table: str, where: str, params: list[Any]) -> None:
        keys = table_keys(self.conn, table)
        cursor = self.conn.execute(f"SELECT * FROM {table} WHERE {where}", params)
        names = [d[0] for d in cursor.description]
        for row in cursor:
            data = dict(zip(names, row))
            self.rows[table][tuple(data[k] for k in keys)] = data

    def has(self, table: str, pk: tuple) -> bool:
        return pk in self.rows.get(table, {})

    def take(self, kind: str, ids: Iterable[int], reason: str) -> set[int]:
        """The ids not yet planned and not kept; records why they go."""
        new = {int(i) for i in ids} - self.ids[kind] - self.keep[kind]
        for item in new:
            self.reasons.setdefault((kind, item), reason)
        self.ids[kind] |= new
        return new

    # -- the preview ------------------------------------------------------------------------

    def items(self) -> list[dict[str, Any]]:
        out = []
        for kind in ITEM_KINDS:
            for item in sorted(self.ids.get(kind, ())):
                out.append({"ref": f"{kind}:{item}", "kind": kind, "id": item,
                            "label": self.label(kind, item),
                            "reason": self.reasons.get((kind, item), ""),
                            "root": (kind, item) in self.roots})
        return out + self.storyline_items()

    def label(self, kind: str, item: int) -> str:
        table = TABLE_OF[kind]
        row = self.rows.get(table, {}).get((item,))       # these tables have one-column keys
        if row is None:
            return f"{kind} {item}"
        if kind == "event":
            return f"{str(row['ts'])[:10]}  {row['title']}"
        if kind == "entity":
            return f"{row['canonical_name']} ({row['kind'].replace('_', ' ')})"
        if kind == "fact":
            return row["text"]
        if kind == "relation":
            names = dict(self.conn.execute(
                "SELECT id, canonical_name FROM entities WHERE id IN (?, ?)",
                (row["from_entity"], row["to_entity"])).fetchall())
            return (f"{names.get(row['from_entity'], row['from_entity'])} "
                    f"—{row['kind'].replace('_', ' ')}→ {names.get(row['to_entity'], row['to_entity'])}")
        if kind == "observation":
            text = " ".join(str(row["content_text"]).split())
            return f"{row['source_kind']} {row['source_id']}: {text[:90]}"
        if kind == "glossary":
            return f"glossary term {row['term']}"
        if kind == "correction":
            return f"correction {row['id']}: {row['note'][:80]}"
        if kind == "merge_proposal":
            return f"merge proposal {row['id']} ({row['status']})"
        return f"{kind} {item}"

    def storyline_items(self) -> list[dict[str, Any]]:
        return [{"ref": f"storyline:{key}", "kind": "storyline", "id": key,
                 "label": f"the summary of storyline {key}", "root": False,
                 "reason": "it quotes an erased event"} for key in sorted(self.storylines)]

    def counts(self) -> dict[str, int]:
        out = {kind: len(self.ids[kind]) for kind in ITEM_KINDS if self.ids.get(kind)}
        if self.storylines:
            out["storyline"] = len(self.storylines)
        return out

    def table_counts(self) -> dict[str, int]:
        return {t: len(rows) for t, rows in self.rows.items() if rows}


# -- expansion -------------------------------------------------------------------------------

def expand_events(plan: Plan, ids: Iterable[int], reason: str) -> None:
    new = plan.take("event", ids, reason)
    if not new:
        return
    marks, values = _in(new)
    plan.add_rows("events", f"id IN {marks}", values)
    for table in ("event_embeddings", "event_emotions", "event_entities"):
        plan.add_rows(table, f"event_id IN {marks}", values)
    plan.add_rows("event_chains", f"parent_id IN {marks} OR child_id IN {marks}", values + values)
    plan.add_rows("evidence", f"row_kind = 'event' AND row_id IN {marks}", values)
    _storylines_of(plan, new)


def _storylines_of(plan: Plan, events: set[int]) -> None:
    """A storyline summary quotes its members: it goes with any of them (the next read writes
    a new one from what is left)."""
    if not _has_table(plan.conn, "storylines"):
        return
    for key, members in plan.conn.execute("SELECT key, members FROM storylines").fetchall():
        anchor = int(key.partition(":")[2]) if key.partition(":")[2].isdigit() else None
        if anchor in events or events & {int(m) for m in _json_list(members)
                                         if isinstance(m, int)}:
            plan.storylines.add(key)
            plan.add_rows("storylines", "key = ?", [key])


def expand_facts(plan: Plan, ids: Iterable[int], reason: str) -> None:
    new = plan.take("fact", ids, reason)
    if not new:
        return
    marks, values = _in(new)
    plan.add_rows("facts", f"id IN {marks}", values)
    plan.add_rows("evidence", f"row_kind = 'fact' AND row_id IN {marks}", values)


def expand_relations(plan: Plan, ids: Iterable[int], reason: str) -> None:
    new = plan.take("relation", ids, reason)
    if not new:
        return
    marks, values = _in(new)
    plan.add_rows("relations", f"id IN {marks}", values)
    plan.add_rows("evidence", f"row_kind = 'relation' AND row_id IN {marks}", values)


def expand_entities(plan: Plan, ids: Iterable[int], reason: str) -> None:
    new = plan.take("entity", ids, reason)
    if not new:
        return
    marks, values = _in(new)
    conn = plan.conn
    plan.add_rows("entities", f"id IN {marks}", values)
    plan.add_rows("event_entities", f"entity_id IN {marks}", values)
    plan.add_rows("evidence", f"row_kind = 'entity' AND row_id IN {marks}", values)
    names = dict(conn.execute(f"SELECT id, canonical_name FROM entities WHERE id IN {marks}",
                              values).fetchall())
    for rel_id, a, b in conn.execute(
            f"SELECT id, from_entity, to_entity FROM relations WHERE from_entity IN {marks}"
            f" OR to_entity IN {marks}", values + values).fetchall():
        expand_relations(plan, {rel_id}, f"a relation of {names.get(a if a in new else b)}")
    for fact_id, owner in conn.execute(
            f"SELECT id, entity_id FROM facts WHERE entity_id IN {marks}", values).fetchall():
        expand_facts(plan, {fact_id}, f"a fact about {names.get(owner)}")
    if _has_table(conn, "merge_proposals"):
        for (pid,) in conn.execute(
                f"SELECT id FROM merge_proposals WHERE keep_entity IN {marks} OR"
                f" merge_entity IN {marks}", values + values).fetchall():
            if plan.take("merge_proposal", {pid}, "names an erased entity"):
                plan.add_rows("merge_proposals", "id = ?", [pid])


def expand_observations(plan: Plan, ids: Iterable[int], reason: str) -> None:
    new = plan.take("observation", ids, reason)
    if not new:
        return
    marks, values = _in(new)
    conn = plan.conn
    plan.add_rows("observations", f"id IN {marks}", values)
    plan.add_rows("evidence", f"observation_id IN {marks}", values)
    # events and facts that only these observations support go with them
    events = {r[0] for r in conn.execute(
        f"SELECT id FROM events WHERE source_observation IN {marks}", values)}
    events |= {r[0] for r in conn.execute(
        f"SELECT row_id FROM evidence WHERE row_kind = 'event' AND observation_id IN {marks}",
        values)}
    facts = {r[0] for r in conn.execute(
        f"SELECT row_id FROM evidence WHERE row_kind = 'fact' AND observation_id IN {marks}",
        values)}
    why = "drawn only from an erased observation"
    expand_events(plan, {e for e in events if not _other_support(plan, "event", e)}, why)
    expand_facts(plan, {f for f in facts if not _other_support(plan, "fact", f)}, why)


def _other_support(plan: Plan, kind: str, row_id: int) -> bool:
    """Whether an observation that is not being erased supports this row."""
    others = {r[0] for r in plan.conn.execute(
        "SELECT observation_id FROM evidence WHERE row_kind = ? AND row_id = ?", (kind, row_id))}
    return bool(others - plan.observations)


def _orphaned_observations(plan: Plan) -> set[int]:
    """Observations whose every supported event and fact (and every event sourced from it) is
    erased. Evidence of an entity or relation does not keep one: a message that named someone
    is also that person's evidence, and would otherwise keep an erased event's very words."""
    conn = plan.conn
    candidates: set[int] = {int(r["observation_id"]) for r in plan.rows.get("evidence", {}).values()}
    candidates |= {int(r["source_observation"]) for r in plan.rows.get("events", {}).values()
                   if r["source_observation"] is not None}
    out = set()
    for obs in candidates - plan.observations - plan.keep["observation"]:
        support = conn.execute("SELECT observation_id, row_kind, row_id FROM evidence WHERE "
                               "observation_id = ? AND row_kind IN ('event', 'fact')",
                               (obs,)).fetchall()
        if any(not plan.has("evidence", tuple(r)) for r in support):
            continue
        sourced = {r[0] for r in conn.execute("SELECT id FROM events WHERE source_observation = ?",
                                              (obs,))}
        if sourced - plan.events:
            continue
        out.add(obs)
    return out


# -- everything about a person ---------------------------------------------------------------

def _cascade(plan: Plan, entity_id: int) -> None:
    conn = plan.conn
    row = conn.execute("SELECT canonical_name, aliases FROM entities WHERE id = ?",
                       (entity_id,)).fetchone()
    names = _names_of(row[0], row[1])
    plan.names = names
    pattern = name_pattern(names)
    who = names[0]
    linked = [r[0] for r in conn.execute(
        "SELECT event_id FROM event_entities WHERE entity_id = ?", (entity_id,))]
    expand_events(plan, linked, f"linked to {who}")
    if pattern is None:
        return
    quoting = [r[0] for r in conn.execute("SELECT id, title, description FROM events")
               if pattern.search(f"{r[1]}\n{r[2]}")]
    expand_events(plan, quoting, f"names {who}")
    # someone else's fact that names them ("Katya's daughter Zoya started school") is about
    # them too: left, their name stayed in the file, its index and the journal
    naming = [r[0] for r in conn.execute("SELECT id, text FROM facts")
              if pattern.search(r[1] or "")]
    expand_facts(plan, naming, f"names {who}")
    if _has_table(conn, "storylines"):
        for key, title, summary in conn.execute("SELECT key, title, summary FROM storylines"):
            if pattern.search(f"{title}\n{summary}"):
                plan.storylines.add(key)
                plan.add_rows("storylines", "key = ?", [key])
    said = [r[0] for r in conn.execute("SELECT id, content_text, actors FROM observations")
            if pattern.search(r[1] or "") or any(pattern.fullmatch(str(a).strip())
                                                  for a in _json_list(r[2]))]
    expand_observations(plan, said, f"quotes or is spoken by {who}")
    if _has_table(conn, "glossary"):
        terms = [r[0] for r in conn.execute("SELECT id, term, is_pattern FROM glossary")
                 if not r[2] and pattern.fullmatch(r[1].strip())]
        if plan.take("glossary", terms, f"a glossary term naming {who}"):
            marks, values = _in(terms)
            plan.add_rows("glossary", f"id IN {marks}", values)
    _cascade_corrections(plan, pattern, who)


def _cascade_corrections(plan: Plan, pattern: re.Pattern[str], who: str) -> None:
    erased_refs = {f"{k}:{i}" for k in ("event", "fact", "entity") for i in plan.ids[k]}
    hits = []
    for r in plan.conn.execute("SELECT id, note, withdrawn, replacement, subject FROM corrections"):
        text = "\n".join([r[1] or "", *map(str, _json_list(r[2])), *map(str, _json_list(r[3]))])
        if (r[4] and r[4] in erased_refs) or pattern.search(text):
            hits.append(int(r[0]))
    if plan.take("correction", hits, f"a correction about {who}"):
        marks, values = _in(hits)
        plan.add_rows("corrections", f"id IN {marks}", values)


def _json_list(text: str | None) -> list[Any]:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def parse_keep(conn: sqlite3.Connection, keep: Iterable[str]) -> dict[str, set[int]]:
    out: dict[str, set[int]] = defaultdict(set)
    for ref in keep:
        kind, ident = parse_ref(ref, tuple(TABLE_OF))
        number = row_id(ident)
        if number is None:
            raise PulseError(f"keep {_shown(ref)!r}: give the numeric id the preview shows")
        out[kind].add(number)
    return out


def plan_erasure(conn: sqlite3.Connection, refs: Sequence[str], *, cascade: bool = False,
                 keep: Iterable[str] = ()) -> Plan:
    """Every row that goes when `refs` are erased (with `cascade` on entities), minus `keep`."""
    plan = Plan(conn, parse_keep(conn, keep))
    roots = []
    for ref in refs:
        kind, ident = parse_ref(ref)
        roots.append((kind, resolve(conn, kind, ident)))
    for kind, item in roots:
        if item in plan.keep[kind]:
            raise PulseError(f"{kind}:{item} is what is being erased; it cannot also be kept")
    if cascade and not any(kind == "entity" for kind, _ in roots):
        raise PulseError("--cascade erases everything about an entity: give entity:ID")
    plan.roots = roots
    expand = {"event": expand_events, "fact": expand_facts, "relation": expand_relations,
              "entity": expand_entities, "observation": expand_observations}
    for kind, item in roots:
        expand[kind](plan, {item}, "asked for")
    if cascade:
        for kind, item in roots:
            if kind == "entity":
                _cascade(plan, item)
    while True:
        orphans = _orphaned_observations(plan)
        if not orphans:
            break
        expand_observations(plan, orphans, "supported only erased rows")
    if any(plan.keep.values()):
        _refuse_stray_keeps(plan.keep, plan_erasure(conn, refs, cascade=cascade))
    return plan


def _refuse_stray_keeps(keep: dict[str, set[int]], full: Plan) -> None:
    """A kept item the erasure would not reach is most likely a typo for one it does: passed
    over, it would leave the item meant to be kept to the irreversible erasure."""
    for kind in sorted(keep):
        stray = sorted(keep[kind] - full.ids[kind])
        if stray:
            raise PulseError(f"keep {kind}:{stray[0]}: not among what this erasure reaches "
                             "(the --dry-run preview lists it); nothing was changed")


def kept_mentions(plan: Plan, limit: int = 50) -> list[dict[str, str]]:
    """What stays after the plan and still names the person (cascade only)."""
    pattern = name_pattern(plan.names)
    if pattern is None:
        return []
    conn = plan.conn
    out: list[dict[str, str]] = []
    checks = (("event", "SELECT id, title || char(10) || description FROM events"),
              ("fact", "SELECT id, text FROM facts"),
              ("observation", "SELECT id, content_text || char(10) || actors FROM observations"),
              ("entity", "SELECT id, canonical_name || char(10) || aliases || char(10) ||"
                         " description FROM entities"),
              ("relation", "SELECT id, context FROM relations"),
              ("correction", "SELECT id, note || withdrawn || replacement FROM corrections"))
    for kind, sql in checks:
        for item, text in conn.execute(sql):
            if int(item) in plan.ids[kind] or not pattern.search(text or ""):
                continue
            out.append({"ref": f"{kind}:{item}", "text": " ".join(str(text).split())[:120]})
            if len(out) >= limit:
                return out
    return out
