"""`pulse-corpus/1` (CLI.md): curated and test data. The whole file is validated before anything
is written; then everything is imported in one transaction, so it lands whole or not at all."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from core import beliefs
from core.emotion.plutchik import EMOTIONS
from core.errors import ValidationError, shown
from core.files import read_text
from core.isotime import utc_iso
from core.privacy.policy import POLICIES, Person, Policies, name_pattern
from core.store import records
from core.store.commands import transaction
from core.store.sqlite import sqlite3

FORMAT = "pulse-corpus/1"
TOP_KEYS = {"format", "now", "entities", "relations", "events", "facts"}
ENTITY_KEYS = {"key", "name", "kind", "aliases", "domain", "policy", "role_label",
               "do_not_probe", "is_self"}
RELATION_KEYS = {"from", "to", "kind", "strength"}
EVENT_KEYS = {"key", "title", "description", "ts", "belief_class", "confidence_floor",
              "archivable", "user_flag", "domain", "sentiment", "sentiment_label", "emotions",
              "entities", "parents", "biometrics"}
FACT_KEYS = {"entity", "text", "confidence", "belief_class", "domain"}
BIOMETRIC_KEYS = {"hrv", "sleep_quality", "stress_proxy", "hr_trend", "hrv_trend", "workout"}


def normalise_ts(value: Any, label: str) -> str:
    """ISO-8601 in → 'YYYY-MM-DDTHH:MM:SSZ' (UTC) out."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{label}: ts must be an ISO-8601 string, got {shown(value)}")
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValidationError(f"{label}: ts {shown(value)} is not ISO-8601") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return utc_iso(moment)


class _Checker:
    def __init__(self, label: str, item: Any, allowed: set[str], required: tuple[str, ...]):
        if not isinstance(item, dict):
            raise ValidationError(f"{label}: must be an object")
        unknown = sorted(set(item) - allowed)
        if unknown:
            raise ValidationError(f"{label}: unknown key {shown(unknown[0])}")
        for name in required:
            if item.get(name) in (None, ""):
                raise ValidationError(f"{label}: {shown(name)} is required")
        self.label, self.item = label, item

    def text(self, name: str, default: str = "") -> str:
        value = self.item.get(name, default)
        if value is None:
            return default
        if not isinstance(value, str):
            raise ValidationError(f"{self.label}: {name} must be a string")
        return value

    def number(self, name: str, default: float, low: float, high: float) -> float:
        value = self.item.get(name, default)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValidationError(f"{self.label}: {name} must be a number")
        if not low <= value <= high:
            raise ValidationError(f"{self.label}: {name} {shown(value)} is outside {low:g}..{high:g}")
        return float(value)

    def flag(self, name: str, default: int) -> int:
        value = self.item.get(name, default)
        if value in (0, 1, True, False) and value is not None:
            return int(value)
        raise ValidationError(f"{self.label}: {name} must be 0 or 1")

    def choice(self, name: str, options: tuple[str, ...], default: str) -> str:
        value = self.item.get(name, default)
        if value is None:
            return default
        if value not in options:
            raise ValidationError(
                f"{self.label}: {name} {shown(value)} is not one of {', '.join(options)}")
        return value

    def string_list(self, name: str) -> list[str]:
        value = self.item.get(name, [])
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValidationError(f"{self.label}: {name} must be a list of strings")
        return value


def load_corpus_file(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    text = read_text(path)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValidationError(f"{path}: not valid JSON ({exc})") from None
    return data


def validate(data: Any, source: str = "corpus") -> dict[str, Any]:
    """Check everything and return a normalised plan; ValidationError names the first bad item."""
    if not isinstance(data, dict):
        raise ValidationError(f"{source}: a pulse-corpus/1 file is a JSON object")
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise ValidationError(f"{source}: unknown top-level key {shown(unknown[0])}")
    if data.get("format") != FORMAT:
        raise ValidationError(f"{source}: format must be {shown(FORMAT)}, got {shown(data.get('format'))}")
    for section in ("entities", "relations", "events", "facts"):
        if not isinstance(data.get(section, []), list):
            raise ValidationError(f"{source}: {section} must be a list")

    entities, entity_keys = [], set()
    for i, item in enumerate(data.get("entities", [])):
        c = _Checker(f"{source}: entities[{i}]", item, ENTITY_KEYS, ("key", "name"))
        key = c.text("key")
        c.label = f"{source}: entity {shown(key)}"
        if key in entity_keys:
            raise ValidationError(f"{c.label}: duplicate key")
        entity_keys.add(key)
        entity = {"key": key, "name": c.text("name"),
                  "kind": c.choice("kind", beliefs.ENTITY_KINDS, "thing"),
                  "aliases": c.string_list("aliases"),
                  "domain": c.choice("domain", beliefs.DOMAINS, "real"),
                  "policy": c.choice("policy", POLICIES, "full"),
                  "role_label": " ".join(c.text("role_label").split()),
                  "do_not_probe": bool(c.flag("do_not_probe", 0)),
                  "is_self": bool(c.flag("is_self", 0))}
        if entity["policy"] == "redact" and not entity["role_label"]:
            raise ValidationError(f"{c.label}: policy redact needs a role_label "
                                  "(e.g. \"[ex-partner]\")")
        entities.append(entity)

    selves = [e["key"] for e in entities if e["is_self"]]
    if len(selves) > 1:
        raise ValidationError(f"{source}: entity {shown(selves[1])}: is_self, but entity "
                              f"{shown(selves[0])} already is (a memory is one person's)")

    relations = []
    for i, item in enumerate(data.get("relations", [])):
        c = _Checker(f"{source}: relations[{i}]", item, RELATION_KEYS, ("from", "to", "kind"))
        for end in ("from", "to"):
            if c.text(end) not in entity_keys:
                raise ValidationError(f"{c.label}: {end} {shown(item[end])} names no entity")
        relations.append({"from": item["from"], "to": item["to"], "kind": c.text("kind"),
                          "strength": c.number("strength", 0.5, 0, 1)})

    events, event_keys = [], {}
    for i, item in enumerate(data.get("events", [])):
        c = _Checker(f"{source}: events[{i}]", item, EVENT_KEYS, ("key", "title", "ts"))
        key = c.text("key")
        c.label = f"{source}: event {shown(key)}"
        if key in event_keys:
            raise ValidationError(f"{c.label}: duplicate key")
        event = {
            "key": key, "title": c.text("title"), "description": c.text("description"),
            "ts": normalise_ts(item["ts"], c.label),
            "belief_class": c.choice("belief_class", beliefs.BELIEF_CLASSES, beliefs.DEFAULT_CLASS),
            "confidence_floor": c.number("confidence_floor", 0.0, 0, 1),
            "archivable": c.flag("archivable", 1), "user_flag": c.flag("user_flag", 0),
            "domain": c.choice("domain", beliefs.DOMAINS, "real"),
            "sentiment": c.number("sentiment", 0.0, -1, 1),
            "sentiment_label": c.text("sentiment_label"),
        }
        if event["belief_class"] == "axiom" and "archivable" not in item:
            event["archivable"] = 0  # an axiom is pinned by definition
        beliefs_ok(event, c.label)
        emotions = item.get("emotions")
        if emotions is not None:
            if not isinstance(emotions, dict):
                raise ValidationError(f"{c.label}: emotions must be an object")
            for name, value in emotions.items():
                if name not in EMOTIONS:
                    raise ValidationError(f"{c.label}: unknown emotion {shown(name)}")
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                    raise ValidationError(f"{c.label}: emotion {name} must be a number in 0..1")
        bio = item.get("biometrics") or {}
        if not isinstance(bio, dict):
            raise ValidationError(f"{c.label}: biometrics must be an object")
        bad = sorted(set(bio) - BIOMETRIC_KEYS)
        if bad:
            raise ValidationError(f"{c.label}: unknown biometrics key {shown(bad[0])}")
        for name in ("hrv", "sleep_quality", "stress_proxy"):
            if name in bio and (isinstance(bio[name], bool) or not isinstance(bio[name], (int, float))):
                raise ValidationError(f"{c.label}: biometrics.{name} must be a number")
        for name in ("sleep_quality", "stress_proxy"):
            if name in bio and not 0 <= bio[name] <= 1:
                raise ValidationError(f"{c.label}: biometrics.{name} must be in 0..1")
        if "workout" in bio and not isinstance(bio["workout"], bool):
            raise ValidationError(f"{c.label}: biometrics.workout must be true or false")
        linked = c.string_list("entities")
        for ref in linked:
            if ref not in entity_keys:
                raise ValidationError(f"{c.label}: entity {shown(ref)} is not defined")
        parents = c.string_list("parents")
        for ref in parents:
            if ref not in event_keys:
                raise ValidationError(
                    f"{c.label}: parent {shown(ref)} is not an earlier event in the file")
        event.update(emotions=emotions, biometrics=bio, entities=linked, parents=parents)
        event_keys[key] = event
        events.append(event)

    facts, seen = [], set()
    for i, item in enumerate(data.get("facts", [])):
        c = _Checker(f"{source}: facts[{i}]", item, FACT_KEYS, ("entity", "text"))
        if c.text("entity") not in entity_keys:
            raise ValidationError(f"{c.label}: entity {shown(item['entity'])} is not defined")
        fact = {"entity": item["entity"], "text": c.text("text"),
                "confidence": c.number("confidence", 0.7, 0, 1),
                "belief_class": c.choice("belief_class", beliefs.BELIEF_CLASSES, "operational"),
                "domain": c.choice("domain", beliefs.DOMAINS, "real")}
        if fact["belief_class"] == "axiom":
            fact.update(archivable=0, confidence_floor=max(0.5, fact["confidence"]))
        if (fact["entity"], fact["text"]) in seen:
            raise ValidationError(f"{c.label}: duplicate fact for {shown(fact['entity'])}")
        seen.add((fact["entity"], fact["text"]))
        facts.append(fact)
    return {"entities": entities, "relations": relations, "events": events, "facts": facts}


def beliefs_ok(fields: Mapping[str, Any], label: str) -> None:
    try:
        beliefs.check_belief(fields, label)
    except beliefs.InvariantError as exc:
        raise ValidationError(str(exc)) from None


CANCEL_STEP = 32     # texts embedded between two looks at `cancel` (the demo: ~0.3 s each)


class _Cancelled(Exception):
    """Raised inside the import when its `cancel` is set: nothing is written."""


def import_plan(conn: sqlite3.Connection, plan: dict[str, Any], *, captured_at: str,
                embed: Callable[[list[str], Callable[[int, int], None] | None],
                                list[records.Vector]],
                tag: Callable[[list[str]], list[records.Emotions]],
                actor: str = "import", progress: Callable[[int, int], None] | None = None,
                cancel: Any = None) -> dict[str, Any]:
    """Write a validated plan in one transaction. Keys already present are kept, not doubled.
    Policies (the memory's and the file's own entities') are applied before anything is
    embedded or written: no_capture people's events, facts and relations are left out (and
    counted), the others' text passes the gate (core/privacy/policy.py).

    `progress(done, total)` follows the embedding of the new events (the long part).
    `cancel.is_set()` is checked every CANCEL_STEP texts embedded and between the events written:
    a cancelled import writes nothing (its one transaction is rolled back) and returns the
    summary with every count 0 and "cancelled": True."""
    summary = {"entities": 0, "relations": 0, "events": 0, "facts": 0, "skipped_existing": 0}
    try:
        return _import_plan(conn, plan, summary, captured_at=captured_at, embed=embed, tag=tag,
                            actor=actor, progress=progress, cancel=cancel)
    except _Cancelled:
        return {"format": FORMAT, **dict.fromkeys(summary, 0), "keys": {}, "cancelled": True}


def _import_plan(conn: sqlite3.Connection, plan: dict[str, Any], summary: dict[str, int], *,
                 captured_at: str,
                 embed: Callable[[list[str], Callable[[int, int], None] | None],
                                 list[records.Vector]],
                 tag: Callable[[list[str]], list[records.Emotions]], actor: str,
                 progress: Callable[[int, int], None] | None, cancel: Any) -> dict[str, Any]:
    def stop_if_cancelled() -> None:
        if cancel is not None and cancel.is_set():
            raise _Cancelled

    _refuse_a_second_self(conn, plan)
    gate = _corpus_policies(conn, plan)
    plan, withheld = _gated(plan, gate)
    new_events = [e for e in plan["events"]
                  if conn.execute("SELECT 1 FROM events WHERE key = ?", (e["key"],)).fetchone() is None]
    new_texts = [records.embedding_text(e["title"], e["description"]) for e in new_events]
    stop_if_cancelled()
    if cancel is None:
        vectors = embed(new_texts, progress) if new_events else []
    else:       # in steps, to look at `cancel` between them (the same vectors: one per text)
        vectors = []
        for start in range(0, len(new_texts), CANCEL_STEP):
            vectors += embed(new_texts[start:start + CANCEL_STEP], None)
            stop_if_cancelled()
            if progress is not None:
                progress(len(vectors), len(new_texts))
    untagged = [i for i, e in enumerate(new_events) if e["emotions"] is None]
    tagged = tag([new_texts[i] for i in untagged]) if untagged else []
    inferred = dict(zip(untagged, tagged))
    stop_if_cancelled()

    keys: dict[str, int] = {}
    with transaction(conn):
        entity_ids: dict[str, int] = {}
        for ent in plan["entities"]:
            row = conn.execute("SELECT id FROM entities WHERE key = ?", (ent["key"],)).fetchone()
            if row is not None:
                entity_ids[ent["key"]] = int(row[0])
                continue
            entity_ids[ent["key"]] = records.add_entity(
                conn, actor=actor, name=ent["name"], kind=ent["kind"], key=ent["key"],
                aliases=ent["aliases"], domain=ent["domain"], policy=ent["policy"],
                role_label=ent["role_label"], do_not_probe=ent["do_not_probe"],
                is_self=ent["is_self"])
            summary["entities"] += 1
        for rel in plan["relations"]:
            exists = conn.execute(
                "SELECT 1 FROM relations WHERE from_entity = ? AND to_entity = ? AND kind = ?",
                (entity_ids[rel["from"]], entity_ids[rel["to"]], rel["kind"])).fetchone()
            if exists:
                continue
            records.upsert_relation(conn, actor=actor, from_id=entity_ids[rel["from"]],
                                    to_id=entity_ids[rel["to"]], kind=rel["kind"],
                                    strength=rel["strength"])
            summary["relations"] += 1
        fresh = {e["key"] for e in new_events}
        position = {e["key"]: i for i, e in enumerate(new_events)}
        for ev in plan["events"]:
            if ev["key"] not in fresh:
                keys[ev["key"]] = int(conn.execute("SELECT id FROM events WHERE key = ?",
                                                   (ev["key"],)).fetchone()[0])
                summary["skipped_existing"] += 1
                continue
            stop_if_cancelled()            # rolls the transaction back: nothing written
            i = position[ev["key"]]
            obs_id, _ = records.add_observation(
                conn, actor=actor, source_kind="pulse-corpus", source_id=ev["key"],
                content_text=new_texts[i], captured_at=captured_at, observed_at=ev["ts"])
            if ev["emotions"] is not None:
                emotions = records.Emotions(values=ev["emotions"], tagger="corpus",
                                            derivation="explicit")
            else:
                emotions = inferred[i]
            fields = {k: ev[k] for k in ("key", "title", "description", "ts", "belief_class",
                                         "confidence_floor", "archivable", "user_flag", "domain",
                                         "sentiment", "sentiment_label", "biometrics")}
            fields["source_observation"] = obs_id
            fields["intensity"] = max([0.5, *map(float, (ev["emotions"] or {}).values())])
            keys[ev["key"]] = records.add_event(
                conn, actor=actor, fields=fields,
                entities=[entity_ids[k] for k in ev["entities"]],
                parents=[(keys[p], "causal", 0.8) for p in ev["parents"]],
                evidence=[obs_id], emotions=emotions, vectors=[vectors[i]])
            summary["events"] += 1
        for fact in plan["facts"]:
            belief = {k: fact[k] for k in ("belief_class", "domain", "archivable",
                                          "confidence_floor") if k in fact}
            before = conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0]
            records.add_fact(conn, actor=actor, entity_id=entity_ids[fact["entity"]],
                             text=fact["text"], confidence=fact["confidence"], belief=belief)
            summary["facts"] += conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0] - before
        counted = {entity_ids[k] if isinstance(k, str) else k: n for k, n in withheld.items()}
        records.count_skipped(conn, counted, actor=actor)
    if withheld:
        summary["withheld_segments"] = sum(withheld.values())
    return {"format": FORMAT, **summary, "keys": keys}


def _refuse_a_second_self(conn: sqlite3.Connection, plan: dict[str, Any]) -> None:
    """The file's own person must be the memory's, if it has one (`pulse demo` into someone's
    memory made the demo's person a second is_self beside theirs)."""
    mine = next((e for e in plan["entities"] if e["is_self"]), None)
    if mine is None:
        return
    row = conn.execute("SELECT id, key, canonical_name FROM entities WHERE is_self = 1"
                       " ORDER BY id LIMIT 1").fetchone()
    if row is not None and row[1] != mine["key"]:
        raise ValidationError(
            f"entity {shown(mine['key'])} ({mine['name']}) is marked is_self, but {row[2]} is "
            f"this memory's own person (entity {row[0]}); a memory is one person's: import "
            "this file into a memory of its own (for the demo: `pulse demo --out demo.db`)")


def _corpus_policies(conn: sqlite3.Connection, plan: dict[str, Any]) -> Policies:
    """The memory's policies, plus those the file gives its own new entities (by key)."""
    known = Policies.load(conn)
    people = list(known.people)
    ids = {p.key for p in people}
    for ent in plan["entities"]:
        if ent["key"] in ids or (ent["policy"] == "full" and not ent["do_not_probe"]):
            continue
        row = conn.execute("SELECT id FROM entities WHERE key = ?", (ent["key"],)).fetchone()
        if row is not None:
            continue               # already in the memory: its stored policy is the one
        names = [n for n in dict.fromkeys([ent["name"], *ent["aliases"]]) if len(n.strip()) >= 2]
        people.append(Person(ent["key"], ent["key"], ent["name"], names, ent["policy"],
                             ent["role_label"], ent["do_not_probe"], name_pattern(names)))
    return Policies(people)


def _gated(plan: dict[str, Any], gate: Policies) -> tuple[dict[str, Any], dict[Any, int]]:
    """The plan with the gate applied; {entity id or key: segments left out}."""
    if not gate.by_policy:
        return plan, {}
    silenced = {p.key for p in gate.by_policy.get("no_capture", []) if p.key}
    withheld: dict[Any, int] = {}
    events = []
    for ev in plan["events"]:
        who = [k for k in ev["entities"] if k in silenced]
        if who:
            withheld[_person_ref(gate, who[0])] = withheld.get(_person_ref(gate, who[0]), 0) + 1
            continue
        title = gate.gate(ev["title"])
        description = gate.gate(ev["description"]) if ev["description"] else None
        for part in (title, description):
            for pid, n in (part.skipped if part else {}).items():
                withheld[pid] = withheld.get(pid, 0) + n
        if title.text is None:
            continue
        events.append({**ev, "title": title.text,
                       "description": description.text or "" if description else ""})
    kept = {e["key"] for e in events}
    events = [{**e, "parents": [p for p in e["parents"] if p in kept]} for e in events]
    facts = []
    for fact in plan["facts"]:
        if fact["entity"] in silenced:
            ref = _person_ref(gate, fact["entity"])
            withheld[ref] = withheld.get(ref, 0) + 1
            continue
        text = gate.gate(fact["text"])
        if text.text is not None:
            facts.append({**fact, "text": text.text})
    relations = [r for r in plan["relations"] if r["from"] not in silenced
                 and r["to"] not in silenced]
    return {**plan, "events": events, "facts": facts, "relations": relations}, withheld


def _person_ref(gate: Policies, key: str) -> Any:
    person = next(p for p in gate.people if p.key == key)
    return person.id
