"""The ingestion pipeline (INGEST §2): observations → segments → routed events, the pool and its
promotions, entity resolution with merge proposals, the glossary, chains; vectors and emotions
computed before the change set is built and carried inside it (replay needs no model).

Writes: one journal row per observation (op `ingest.observation`: the observation, its
entities, relations, facts, events with evidence, emotions, vectors and links) and one per
promotion (`pool.promote`), in one transaction per batch of whole observations. Everything
is derived from the observations' content in file order, so the same input gives the same ids
and digest, and a rerun after a crash (already stored observations are skipped by content hash)
converges to what an uninterrupted run writes.

Parts: roles.py (who speaks), fiction.py (the fiction scan and glossary candidates),
store_view.py (what the writer knows of the memory), pool.py (superseding, salience, thematic
links, pool promotions), merges.py (salience and merge proposals), glossary.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from core import beliefs
from core.errors import ValidationError
from core.ingest import dates, fiction, formats, known, names, offline, person_evidence, roles
from core.ingest.extraction import Extraction
from core.ingest.known import KnownNames
from core.ingest.openers import Openers, openers
from core.store import records
from core.store.commands import execute, transaction

THETA = 0.6                 # vivid at once when ι ≥ θ
MERGE_AT = 0.98             # name similarity from which a mention is the same entity
BATCH = 128

ProgressFn = Callable[[int, int], None]


def _now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")



# The pipeline's parts, in their own modules; these names stay importable from here.
from core.ingest.glossary import (  # noqa: E402,F401
    add_glossary_term,
    apply_glossary_term,
    glossary_pattern,
    list_glossary,
)
from core.ingest.merges import (  # noqa: E402,F401
    SALIENCE_SCALE,
    _merge_changes,
    list_merge_proposals,
    ranked_weight,
    resolve_merge_proposal,
    salience_of,
)
from core.ingest.pool import PoolLinks  # noqa: E402
from core.ingest.store_view import (  # noqa: E402,F401
    PROPOSE_AT,
    EntityRow,
    PoolItem,
    Store,
    _fiction_key,
    norm_name,
)


@dataclass
class Counts:
    new: int = 0
    duplicate: int = 0
    versioned: int = 0
    vivid: int = 0
    pooled: int = 0
    distilled: int = 0
    absorbed: int = 0
    superseded: int = 0
    entities: int = 0
    merge_proposals: int = 0
    relations: int = 0
    facts: int = 0
    links: int = 0
    skipped: int = 0
    assistant_turns: int = 0
    glossary_candidates: int = 0
    curated: int = 0             # events of pulse-corpus/1 files (the total only)
    errors: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        events = {"vivid": self.vivid, "pooled": self.pooled, "distilled": self.distilled,
                  "absorbed": self.absorbed, "superseded": self.superseded}
        if self.curated:
            events["curated"] = self.curated
        return {"observations": {"new": self.new, "duplicate": self.duplicate,
                                 "versioned": self.versioned,
                                 "assistant_turns": self.assistant_turns},
                "glossary_candidates": self.glossary_candidates,
                "events": events,
                "entities": self.entities, "merge_proposals": self.merge_proposals,
                "relations": self.relations, "facts": self.facts, "links": self.links,
                "skipped": self.skipped, "errors": self.errors}


# -- the writer ---------------------------------------------------------------------------------

@dataclass
class Prepared:
    """One new observation, extracted, with its vectors and emotions computed."""
    message: formats.Message
    version: int
    extraction: Extraction
    titles: list[str]
    descriptions: list[str]
    vectors: list[records.Vector]
    emotions: list[records.Emotions]
    extra: dict[str, Any] = field(default_factory=dict)


_PARENT = re.compile(r"(mother|father) \(of (.+)\)")


def _known_parent(conn: Any, name: str, spec: Any, specs: Sequence[Any],
                  ref_ids: dict[str, int]) -> int | None:
    """The one entity the memory knows as the speaker's mother (or father), for "Mom" or "my
    mother" said without a name: "my mom Maria" before makes "Mom called" Maria's, not a
    second mother's. None when no such name is known yet (or more than one is)."""
    found = _PARENT.fullmatch(name)
    if found is None or spec.is_self:
        return None
    owner = next((ref_ids[s.ref] for s in specs if s.name == found.group(2) and s.ref in ref_ids),
                 None)
    if owner is None:
        return None
    rows = conn.execute(
        "SELECT DISTINCT r.to_entity FROM relations r JOIN entities e ON e.id = r.to_entity"
        " WHERE r.from_entity = ? AND r.kind = ? AND e.canonical_name NOT LIKE '% (of %'",
        (owner, found.group(1))).fetchall()
    return int(rows[0][0]) if len(rows) == 1 else None


def _head(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "…"


def event_texts(speaker: str, text: str) -> tuple[str, str]:
    body = " ".join(text.split())
    if speaker:
        return f"{speaker}: {_head(body)}", f"{speaker}: {body}"
    return _head(body), body


class Writer(PoolLinks):
    def __init__(self, memory: Any, *, actor: str, captured_at: str | None = None) -> None:
        self.memory = memory
        self.conn = memory.conn
        self.actor = actor
        self.captured_at = captured_at or _now_iso()
        self.store = Store(memory)
        # set per import by ingest_files: the fiction scan's glossary candidates (name → kind)
        # and the assistant speakers (folded), never made entities
        self.candidates: dict[str, str] = {}
        self.assistants: set[str] = set()
        self.common: set[str] | None = None         # words the import uses in lower case
        self.forms: dict[str, str] = {}             # Cyrillic case form → the name written
        self.people: dict[str, str] | None = None   # names with person/pet evidence in the import
        self.opens: Openers | None = None          # names even at a sentence's start, alone
        self._known: tuple[tuple[int, int], KnownNames] | None = None
        self.observation_ids: dict[tuple[str, str], int] = {}

    def fiction_names(self) -> dict[str, str]:
        """Names the offline extractor makes fiction-kind entities of: what the glossary and the
        fiction-domain entities know, and this import's candidates."""
        out = {name: kind for name, (_domain, kind) in self.store.fiction.items()}
        for name, kind in self.candidates.items():
            out.setdefault(name, kind)
        return out

    def known_names(self) -> KnownNames:
        """The memory's names for what capitals cannot find (core/ingest/known.py), built
        again only when the memory's entities or fictional names changed."""
        stamp = (len(self.store.entities), len(self.store.fiction))
        if self._known is None or self._known[0] != stamp:
            names: dict[str, str] = {}
            for row in self.store.entities.values():
                if row.domain == "real":
                    names.update(dict.fromkeys(row.names(), row.kind))
            for name, kind in self.fiction_names().items():
                names.setdefault(name, kind)
            self._known = (stamp, KnownNames(names))
        return self._known[1]

    def observation_of(self, msg: formats.Message) -> int | None:
        """The stored observation of a message (its latest version)."""
        key = (msg.source_kind, msg.source_id)
        if key not in self.observation_ids:
            row = self.conn.execute(
                "SELECT id FROM observations WHERE source_kind = ? AND source_id = ?"
                " ORDER BY version DESC LIMIT 1", key).fetchone()
            if row is None:
                return None
            self.observation_ids[key] = int(row[0])
        return self.observation_ids[key]

    # -- preparation (no writes) -----------------------------------------------------------

    def status(self, msg: formats.Message) -> tuple[str, int]:
        """('duplicate'|'new'|'versioned', version)."""
        digest = records.content_hash(msg.text)
        row = self.conn.execute(
            "SELECT version, content_hash FROM observations WHERE source_kind = ? AND"
            " source_id = ? ORDER BY version DESC LIMIT 1", (msg.source_kind, msg.source_id)
        ).fetchone()
        if row is None:
            return "new", 1
        if row[1] == digest:
            return "duplicate", int(row[0])
        return "versioned", int(row[0]) + 1

    def prepare_offline(self, items: Sequence[tuple[formats.Message, int]],
                        step: Callable[[float], None] | None = None) -> list[Prepared]:
        """Decompose and extract a batch; one tag call for sentences, one embed call for all
        segments of the batch (`step(share done)` as its vectors are computed)."""
        known = {name for row in self.store.entities.values() if row.kind == "person"
                 for name in row.names()}
        sent_lists = []
        for msg, _ in items:
            if msg.role == "assistant":
                sent_lists.append([])   # context, not life events: nothing to tag
            elif msg.light or offline.is_pasted(msg.text):
                sent_lists.append([msg.text[:4000]])
            else:
                sent_lists.append(offline.sentences(msg.text) or [msg.text])
        flat = [s for sl in sent_lists for s in sl]
        tagged = self.memory.tag_texts(flat) if flat else []
        pos = 0
        extractions = []
        names = self.fiction_names()
        known_names = self.known_names()
        for (msg, _), sents in zip(items, sent_lists):
            emos = [dict(t.values) for t in tagged[pos:pos + len(sents)]]
            pos += len(sents)
            glossary = {**names, **dict.fromkeys(msg.glossary, "fictional_character")}
            ex = offline.extract_offline(msg.text, speaker=msg.speaker, role=msg.role,
                                         sentence_emotions=emos, sents=sents,
                                         known_people=known, glossary=glossary,
                                         light=msg.light, skip=self.assistants,
                                         context=msg.context.text if msg.context else "",
                                         common=self.common, known_names=known_names,
                                         forms=self.forms, people=self.people,
                                         opens=self.opens)
            extractions.append(ex)
        return self.finish(items, extractions, step)

    def finish(self, items: Sequence[tuple[formats.Message, int]],
               extractions: Sequence[Extraction],
               step: Callable[[float], None] | None = None) -> list[Prepared]:
        titles, descs, owners = [], [], []
        for i, ((msg, _), ex) in enumerate(zip(items, extractions)):
            for seg in ex.segments:
                if seg.ts is None and not msg.light:
                    mention = dates.resolve(seg.text, msg.ts)
                    seg.ts = mention.ts if mention else None
                t, d = event_texts(msg.speaker, seg.text)
                if msg.context is not None:
                    d = f"{d}\n{roles.context_line(msg.context)}"
                titles.append(t)
                descs.append(d)
                owners.append(i)
        texts = [records.embedding_text(t, d) for t, d in zip(titles, descs)]
        if not texts:
            vectors = []
        elif step is not None:    # most of a batch's time: a long message's text is here
            vectors = self.memory.embed_texts(texts, step=step)
        else:
            vectors = self.memory.embed_texts(texts)
        emotions = self.memory.tag_texts(texts) if texts else []
        out = [Prepared(msg, version, ex, [], [], [], []) for (msg, version), ex
               in zip(items, extractions)]
        for k, i in enumerate(owners):
            seg = out[i].extraction.segments[len(out[i].titles)]
            out[i].titles.append(titles[k])
            out[i].descriptions.append(descs[k])
            out[i].vectors.append(vectors[k])
            if seg.emotions is not None:
                tagger = out[i].extraction.tagger or "extractor"
                emotions[k] = records.Emotions(values={n: float(v) for n, v in seg.emotions.items()
                                                       if v > 0}, tagger=tagger,
                                               derivation="inferred")
            out[i].emotions.append(emotions[k])
        return out

    # -- writing -----------------------------------------------------------------------------

    def write(self, prep: Prepared, counts: Counts) -> dict[str, Any]:
        """The observation and its extraction: one change set, one journal row. Then any pool
        promotion it completes. The caller holds the batch transaction. Nothing is written
        when another program stored the same observation meanwhile: a duplicate."""
        msg, ex, st = prep.message, prep.extraction, self.store
        conn = self.conn
        # asked again under the write lock: another program may have stored it since status()
        state, prep.version = self.status(msg)
        if state == "duplicate":
            counts.duplicate += 1
            self.observation_ids.pop((msg.source_kind, msg.source_id), None)
            return {"observation": self.observation_of(msg), "duplicate": True, "events": [],
                    "entities": [], "new_entities": [], "distilled": []}
        st.keep_up()
        changes: list[dict[str, Any]] = []
        from core.store.commands import next_ids

        obs_id, next_entity, next_event, next_rel, next_fact, next_prop, next_gloss = next_ids(
            conn, "observations", "entities", "events", "relations", "facts", "merge_proposals",
            "glossary")
        metadata = dict(msg.metadata)
        if msg.role:
            metadata["role"] = msg.role
        if msg.light:
            metadata["light"] = True
        changes.append({"t": "observations", "a": "insert", "row": {
            "id": obs_id, "source_kind": msg.source_kind, "source_id": msg.source_id,
            "version": prep.version, "content_hash": records.content_hash(msg.text),
            "captured_at": self.captured_at, "observed_at": msg.ts,
            "actors": json.dumps([msg.speaker] if msg.speaker else [], ensure_ascii=False),
            "content_text": msg.text,
            "metadata": json.dumps(metadata, ensure_ascii=False, sort_keys=True), "redacted": 0}})
        self.observation_ids[(msg.source_kind, msg.source_id)] = obs_id
        if msg.role == "assistant":
            counts.assistant_turns += 1
        result: dict[str, Any] = {"observation": obs_id, "events": [], "entities": [],
                                  "new_entities": [], "distilled": []}

        # glossary terms this item defines (a novel's character notes)
        for term in msg.glossary:
            if term and term not in st.glossary:
                changes.append({"t": "glossary", "a": "insert", "row": {
                    "id": next_gloss, "term": term, "is_pattern": 0,
                    "domain": "fiction_content", "kind": "fictional_character",
                    "note": f"from {msg.source_id}"}})
                next_gloss += 1
                st._add_glossary(term, False, "fiction_content")

        # entities
        ref_ids: dict[str, int] = {}
        touched: dict[int, dict[str, Any]] = {}
        inserted: dict[int, dict[str, Any]] = {}
        proposed: set[str] = set()          # refs proposed for the glossary, not entities

        def link(spec_ref: str, entity_id: int, names: Sequence[str], *, make_self: bool) -> None:
            ref_ids[spec_ref] = entity_id
            row = st.entities[entity_id]
            update = touched.setdefault(entity_id, {})
            aliases = update.get("aliases", row.aliases)   # two mentions in one message
            new_aliases = [a for a in dict.fromkeys(names) if norm_name(a) not in
                           {norm_name(n) for n in [row.name, *aliases]}]
            if new_aliases:
                update["aliases"] = aliases + new_aliases
            if row.last_seen is None or msg.ts > row.last_seen:
                update["last_seen"] = msg.ts
            if make_self and st.self_id is None:
                update["is_self"] = 1
                st.self_id = entity_id

        for spec in ex.entities:
            name = spec.name
            if not spec.is_self and fiction.fold(name.split(" (of ")[0]) in self.assistants:
                continue                    # the assistant is context, never an entity
            kind, domain = spec.kind, spec.domain
            known = None if spec.is_self or name == msg.speaker else st.fiction_of(name)
            if known is None and not spec.is_self and name != msg.speaker and (
                    name in self.candidates or kind in offline.FICTION_KINDS):
                if self._propose(name, self.candidates.get(name, kind), obs_id, changes,
                                 counts):
                    proposed.add(spec.ref)
                    continue
                kind = "person" if kind in offline.FICTION_KINDS else kind  # rejected: real
            if known is not None:
                existing = st.fiction_entity(name)
                if existing is None and " " in name and known[1] == "fictional_character":
                    existing = st.fiction_entity(name.split()[0])
                if existing is not None:
                    link(spec.ref, existing, [], make_self=False)
                    continue
                if kind not in offline.FICTION_KINDS and kind != "place":
                    kind = "fictional_character"
                domain = domain or known[0]
            if spec.is_self or name == msg.speaker:
                domain = domain or "real"   # whoever speaks is a real person
            domain = domain or ("fiction_content" if kind in offline.FICTION_KINDS
                                else st.glossary_domain(name) or "real")
            parent = _known_parent(conn, name, spec, ex.entities, ref_ids)
            if parent is not None:
                link(spec.ref, parent, [], make_self=False)
                continue
            if spec.is_self and st.self_id is not None:
                match, similarity = st.self_id, 1.0
            else:
                match, similarity = st.best_match(name, kind)
                same_name = st.real_ids.get(_fiction_key(name))
                if (similarity < MERGE_AT and same_name is not None and domain == "real"
                        and kind not in offline.FICTION_KINDS):
                    # the very name of a real-life entity of another kind: the kind was a
                    # guess ("Biscuit" the dog is not a person), the name is not
                    match, similarity = same_name, 1.0
                if similarity < MERGE_AT:   # "Катя" is the Katya the memory has
                    twin = st.other_script(name, kind, domain)
                    if twin is not None:
                        match, similarity = twin, 1.0
            if match is not None and similarity >= MERGE_AT:
                link(spec.ref, match, [name, *spec.aliases] if not spec.is_self else [],
                     make_self=spec.is_self)
                continue
            entity_id = next_entity
            next_entity += 1
            row = EntityRow(entity_id, name, kind, list(spec.aliases), domain, msg.ts, msg.ts)
            is_self = spec.is_self and st.self_id is None
            inserted[entity_id] = {
                "id": entity_id, "key": None, "canonical_name": name, "kind": kind,
                "aliases": json.dumps(row.aliases, ensure_ascii=False), "domain": domain,
                "salience": 0.5, "emotional_weight": 0.0, "first_seen": msg.ts,
                "last_seen": msg.ts, "is_self": int(is_self), "do_not_probe": 0,
                "description": ""}
            changes.append({"t": "entities", "a": "insert", "row": inserted[entity_id]})
            changes.append({"t": "evidence", "a": "insert", "row": {
                "observation_id": obs_id, "row_kind": "entity", "row_id": entity_id}})
            st._index(row)
            if is_self:
                st.self_id = entity_id
            ref_ids[spec.ref] = entity_id
            counts.entities += 1
            result["new_entities"].append(entity_id)
            if match is not None and similarity >= PROPOSE_AT:
                changes.append({"t": "merge_proposals", "a": "insert", "row": {
                    "id": next_prop, "keep_entity": match, "merge_entity": entity_id,
                    "similarity": round(float(similarity), 4), "status": "pending",
                    "reason": f"{name!r} ~ {st.entities[match].name!r}"}})
                next_prop += 1
                counts.merge_proposals += 1
        for entity_id, update in touched.items():
            row = st.entities[entity_id]
            old = {}
            if "aliases" in update:
                old["aliases"] = json.dumps(row.aliases, ensure_ascii=False)
                row.aliases = update["aliases"]
                update["aliases"] = json.dumps(row.aliases, ensure_ascii=False)
                for name in row.aliases:
                    st.by_name.setdefault((norm_name(name), row.kind), row.id)
            if "last_seen" in update:
                old["last_seen"] = row.last_seen
                row.last_seen = update["last_seen"]
            if "is_self" in update:
                old["is_self"] = 0
            if update:
                changes.append({"t": "entities", "a": "update", "pk": {"id": entity_id},
                                "set": update, "old": old})
        result["entities"] = list(dict.fromkeys(ref_ids.values()))
        for spec in ex.entities:
            if msg.speaker and spec.name == msg.speaker and spec.ref in ref_ids:
                st.speakers.add(ref_ids[spec.ref])

        # relations (a repeat moves strength halfway to 1)
        seen_rel: set[tuple[int, int, str]] = set()
        for rel in ex.relations:
            a, b = ref_ids.get(rel.from_ref), ref_ids.get(rel.to_ref)
            if a is None or b is None or a == b or (a, b, rel.kind) in seen_rel:
                continue
            seen_rel.add((a, b, rel.kind))
            existing = conn.execute(
                "SELECT id, strength, last_seen FROM relations WHERE from_entity = ? AND"
                " to_entity = ? AND kind = ?", (a, b, rel.kind)).fetchone()
            if existing is None:
                changes.append({"t": "relations", "a": "insert", "row": {
                    "id": next_rel, "from_entity": a, "to_entity": b, "kind": rel.kind,
                    "context": "", "strength": min(1.0, max(0.0, float(rel.strength))),
                    "first_seen": msg.ts, "last_seen": msg.ts}})
                changes.append({"t": "evidence", "a": "insert", "row": {
                    "observation_id": obs_id, "row_kind": "relation", "row_id": next_rel}})
                next_rel += 1
                counts.relations += 1
            else:
                strength = min(1.0, existing[1] + (1.0 - existing[1]) * 0.5)
                new = {"strength": round(strength, 6),
                       "last_seen": max(msg.ts, existing[2] or msg.ts)}
                old = {"strength": existing[1], "last_seen": existing[2]}
                if new != old:
                    changes.append({"t": "relations", "a": "update", "pk": {"id": existing[0]},
                                    "set": new, "old": old})

        # facts
        seen_fact: set[tuple[int, str]] = set()
        for fact in ex.facts:
            entity_id = ref_ids.get(fact.entity_ref)
            if entity_id is None or (entity_id, fact.text) in seen_fact:
                continue
            seen_fact.add((entity_id, fact.text))
            if conn.execute("SELECT 1 FROM facts WHERE entity_id = ? AND text = ?",
                            (entity_id, fact.text)).fetchone():
                continue
            domain = st.entities[entity_id].domain
            changes.append({"t": "facts", "a": "insert", "row": {
                "id": next_fact, "entity_id": entity_id, "text": fact.text,
                "confidence": float(fact.confidence), "belief_class": fact.belief_class,
                "confidence_floor": 0.0, "archivable": 1, "provenance": "interactive_memory",
                "domain": domain, "verified": 0}})
            changes.append({"t": "evidence", "a": "insert", "row": {
                "observation_id": obs_id, "row_kind": "fact", "row_id": next_fact}})
            next_fact += 1
            counts.facts += 1

        # events (a short answer's question is evidence too: it gives the answer its meaning)
        asked = self.observation_of(msg.context) if msg.context is not None else None
        context = [asked] if asked is not None and ex.segments else []
        seg_ids: list[int] = []
        deltas: dict[int, float] = {}      # entity -> intensity added (for salience)
        pooled: list[PoolItem] = []
        for k, seg in enumerate(ex.segments):
            event_id = next_event
            next_event += 1
            seg_ids.append(event_id)
            vivid = seg.intensity >= THETA
            ents = [ref_ids[r] for r in seg.entities if r in ref_ids]
            fictional = any(st.entities[e].kind == "fictional_character" for e in ents) or any(
                r in proposed for r in seg.entities)
            domain = (seg.domain or msg.domain or st.glossary_domain(seg.text)
                      or ("fiction_content" if fictional else "real"))
            cls = seg.belief_class or beliefs.DEFAULT_CLASS
            if vivid and cls == "hypothesis":
                cls = beliefs.DEFAULT_CLASS
            fields = {
                "title": prep.titles[k], "description": prep.descriptions[k],
                "ts": seg.ts or msg.ts,
                "sentiment": float(max(-1.0, min(1.0, seg.sentiment))),
                "sentiment_label": {"pos": "positive", "neg": "negative"}.get(seg.valence,
                                                                            "neutral"),
                "intensity": float(max(0.0, min(1.0, seg.intensity))),
                "belief_class": cls if vivid else "hypothesis",
                "confidence_floor": 0.0, "archivable": 1, "provenance": "interactive_memory",
                "domain": domain, "user_flag": int(bool(seg.user_flag) and vivid),
                "source_observation": obs_id,
            }
            if cls == "axiom" and vivid:
                fields.update(archivable=0, confidence_floor=0.5)
            parents: list[tuple[int, str, float]] = []
            for p in seg.parents:
                if 0 <= p < k:
                    parents.append((seg_ids[p], "causal", 0.7))
            vec = prep.vectors[k].values
            if vivid:
                link = self._thematic_parent(vec, set(ents))
                if link is not None and link[0] not in {p for p, _, _ in parents}:
                    parents.append((link[0], "thematic", round(link[1], 4)))
                    counts.links += 1
            for entity_id in dict.fromkeys(ents):
                deltas[entity_id] = deltas.get(entity_id, 0.0) + fields["intensity"]
            _, event_changes = records.event_changes(
                conn, fields, event_id=event_id, entities=ents, parents=parents,
                evidence=[obs_id, *context], emotions=prep.emotions[k],
                vectors=[prep.vectors[k]])
            changes.extend(event_changes)
            result["events"].append(event_id)
            if vivid:
                counts.vivid += 1
                st.vivid.append((event_id, vec, set(ents)))
            else:
                counts.pooled += 1
                topic = sorted(set(seg.topic))
                changes.append({"t": "pool_segments", "a": "insert", "row": {
                    "event_id": event_id, "observation_id": obs_id, "speaker": msg.speaker,
                    "topic": json.dumps(topic, ensure_ascii=False),
                    "intensity": fields["intensity"]}})
                pooled.append(PoolItem(event_id, obs_id, vec, msg.speaker, set(topic),
                                       fields["intensity"], prep.descriptions[k], fields["ts"],
                                       ents, domain))
        if prep.version > 1 and seg_ids:
            changes.extend(self._supersede(msg, seg_ids[0], counts, deltas))
        changes.extend(self._salience_changes(deltas, inserted))
        execute(conn, actor=self.actor, op="ingest.observation", subject=f"observation:{obs_id}",
                changes=changes, extra={"source": {"kind": msg.source_kind, "id": msg.source_id},
                                        "model": st.model, **prep.extra})
        if prep.version > 1:
            counts.versioned += 1
        else:
            counts.new += 1
        for item in pooled:
            st.pool.append(item)
            distilled = self._maybe_promote(item, counts)
            if distilled is not None:
                result["distilled"].append(distilled)
        return result

    def _propose(self, name: str, kind: str, obs_id: int, changes: list[dict[str, Any]],
                 counts: Counts) -> bool:
        """A new fictional name: a glossary candidate (new, or one more mention), with this
        observation as its evidence. False when a person rejected it: the name is real."""
        from core.store.commands import next_id

        st = self.store
        key = fiction.fold(name)
        row = st.candidates.get(key)
        if row is not None and row["status"] == "rejected":
            return False
        if row is not None and row["status"] == "accepted":
            return True     # accepted since this import began: the glossary has it now
        if row is None:
            row = {"id": max([next_id(self.conn, "glossary_candidates"),
                              *(r["id"] + 1 for r in st.candidates.values())]),
                   "term": name, "kind": kind if kind in beliefs.ENTITY_KINDS
                   else "fictional_character", "domain": "fiction_content", "mentions": 1,
                   "status": "pending", "note": "only inside fiction passages"}
            changes.append({"t": "glossary_candidates", "a": "insert", "row": dict(row)})
            st.candidates[key] = row
            counts.glossary_candidates += 1
        else:
            changes.append({"t": "glossary_candidates", "a": "update", "pk": {"id": row["id"]},
                            "set": {"mentions": row["mentions"] + 1},
                            "old": {"mentions": row["mentions"]}})
            row["mentions"] += 1
        evidence = {"observation_id": obs_id, "row_kind": "glossary_candidate",
                    "row_id": row["id"]}
        if not any(c["t"] == "evidence" and c.get("row") == evidence for c in changes):
            changes.append({"t": "evidence", "a": "insert", "row": evidence})
        return True


# -- public entry points --------------------------------------------------------------------------

def _cancelled(cancel: Any) -> bool:
    return cancel is not None and cancel.is_set()


class _Stopped(Exception):
    """Cancel was set while a batch was being prepared: nothing of it is written."""


def _refuse_borrowed_ids(conn: Any, parsed: Sequence[tuple[Path, str, list[Any]]]) -> None:
    """A chat message whose id a different message of another file already holds would be
    taken for an edit of it, and silently replace it (two exports that each number their
    messages from 1). Refused before anything is written. Observations stored before files
    were recorded cannot be told apart and version as before."""
    owners: dict[tuple[str, str], tuple[str, str]] = {}
    for path, kind, messages in parsed:
        if kind != "chat":
            continue
        for msg in messages:
            key, here = (msg.source_kind, msg.source_id), msg.metadata.get("file")
            digest = records.content_hash(msg.text)
            there, there_hash = owners.setdefault(key, (here, digest))
            if there == here:
                row = conn.execute(
                    "SELECT json_extract(metadata, '$.file'), content_hash FROM observations"
                    " WHERE source_kind = ? AND source_id = ? ORDER BY version DESC LIMIT 1",
                    key).fetchone()
                if row is None or row[0] is None or row[0] == here:
                    continue
                there, there_hash = row
            if there_hash != digest:
                raise ValidationError(
                    f"{path}: message id {msg.source_id!r} is already the id of another message,"
                    f" from {there}; if they are separate chats, give each message a "
                    f"'conversation'; if this file is a newer copy of that one, import it from "
                    f"there")


def ingest_files(memory: Any, paths: Sequence[str | Path] | str | Path, *, fmt: str = "auto",
                 extractor: str = "offline", progress: ProgressFn | None = None,
                 cancel: Any = None, captured_at: str | None = None,
                 me: str | None = None,
                 preparing: Callable[[float], None] | None = None) -> dict[str, Any]:
    """Import files (format auto-detected). Every file is parsed and validated before anything
    is written; a malformed file raises ValidationError naming the file and the line or field.
    Writes commit per batch of whole observations; `cancel.is_set()` is checked between
    observations, and while a batch's vectors are computed (a batch cancelled then is not
    written at all), so a cancelled import leaves a consistent memory (rerun to finish).

    `progress(done, total)` counts messages. A batch (up to BATCH messages, or one long
    message: a 160 KB letter takes seconds) is prepared before any of it is written;
    `preparing(share)` reports how far that is, from 0 to 1, so a front shows movement inside
    it.

    `me` names the person whose memory this is: their turns are the user's (core/ingest/
    roles.py). The assistant's turns are kept as context only. Names found only inside fiction
    passages are proposed for the glossary (core/ingest/fiction.py)."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    memory._writable()
    person = roles.memory_person(memory.conn, me)
    parsed: list[tuple[Path, str, list[formats.Message]]] = []
    for p in paths:
        path = Path(p)
        kind, messages = formats.parse(path, fmt)
        if kind == "corpus":
            from core.ingest import corpus

            data = corpus.load_corpus_file(path)
            corpus.validate(data, str(path))  # fail before anything is written
        roles.assign_roles(messages, person, me_given=me is not None, label=str(path))
        parsed.append((path, kind, messages))
    _refuse_borrowed_ids(memory.conn, parsed)
    every = [m for _, _, messages in parsed for m in messages]
    known_fiction, known_real, patterns = fiction.known_names(memory.conn)
    common = names.lowercase_words(m.text for m in every)
    candidates = fiction.scan(every, fiction=known_fiction, real=known_real, patterns=patterns,
                              rejected=fiction.rejected_candidates(memory.conn), common=common)
    assistants = roles.assistant_names(every)
    # names to make people: with person evidence in the import, or said to be real by the
    # person (a rejected glossary candidate)
    people = person_evidence.evidence(m.text for m in every)
    for (term,) in memory.conn.execute(
            "SELECT term FROM glossary_candidates WHERE status = 'rejected'"):
        people.setdefault(term, "person")
    # a sentence's first word alone is a name when the memory or the import says so elsewhere
    memory_names = [n for r in memory.conn.execute("SELECT canonical_name, aliases FROM entities")
                    for n in [r[0], *json.loads(r[1] or "[]")]]
    opens = openers((m.text for m in every), common=common, known=memory_names)
    forms = known.case_forms(n for m in every if m.role != "assistant" and known.has_cyrillic(m.text)
                             for n in names.name_candidates(m.text, common=common, opens=opens))
    total = sum(len(m) for _, _, m in parsed)
    done = 0
    if progress and total:
        progress(0, total)   # the total is known before the first batch (it may take seconds)
    results = []
    runner = None
    if extractor != "offline":
        from core.llm.extractor import LLMRunner

        runner = LLMRunner(memory, extractor)
    cancelled = False
    from core.privacy.gate import PolicyGate

    gate = PolicyGate(memory)
    for path, kind, messages in parsed:
        if cancelled:
            results.append({"file": str(path), "format": kind, "cancelled": True})
            continue
        if kind == "corpus":
            summary = memory.import_corpus(path, cancel=cancel)   # whole, or nothing
            cancelled = bool(summary.get("cancelled"))
            results.append({"file": str(path), **summary})
            continue
        counts = Counts()
        writer = Writer(memory, actor="import" if runner is None else runner.actor,
                        captured_at=captured_at)
        writer.candidates, writer.assistants, writer.common = candidates, assistants, common
        writer.forms, writer.people, writer.opens = forms, people, opens
        pending: list[tuple[formats.Message, int]] = []

        def flush() -> bool:
            nonlocal done
            if not pending:
                return True
            if runner is not None:
                ok = runner.run(writer, pending, counts, progress=lambda: tick(),
                                cancel=cancel)
                pending.clear()
                return ok
            try:
                prepared = writer.prepare_offline(pending, step)
            except _Stopped:
                pending.clear()
                return False
            stopped = False
            with transaction(memory.conn):
                for prep in prepared:
                    if _cancelled(cancel):
                        stopped = True
                        break
                    writer.write(prep, counts)
                    tick()
            pending.clear()
            return not stopped

        def tick() -> None:
            nonlocal done
            done += 1
            if progress:
                progress(done, total)

        def prepared_share(share: float) -> None:
            if _cancelled(cancel):
                raise _Stopped
            if preparing:
                preparing(share)

        # only when someone listens or may cancel: benches replace embed_texts with their own
        step = prepared_share if preparing or cancel is not None else None

        batch_keys: set[tuple[str, str]] = set()
        for msg in messages:
            if _cancelled(cancel):
                cancelled = True
                break
            msg = gate.apply(msg)
            if msg is None:                  # a no_capture person's: only counted
                tick()
                continue
            if (msg.source_kind, msg.source_id) in batch_keys:
                if not flush():
                    cancelled = True
                    break
                batch_keys.clear()
            state, version = writer.status(msg)
            if state == "duplicate":
                counts.duplicate += 1
                tick()
                continue
            pending.append((msg, version))
            batch_keys.add((msg.source_kind, msg.source_id))
            if len(pending) >= BATCH:
                if not flush():
                    cancelled = True
                    break
                batch_keys.clear()
        if not cancelled and not flush():
            cancelled = True
        entry = {"file": str(path), "format": kind, **counts.summary(),
                 **gate.flush(memory)}
        if cancelled:
            entry["cancelled"] = True
        if runner is not None:
            entry["llm"] = runner.summary()
        results.append(entry)
    summary: dict[str, Any] = {"files": results, "cancelled": cancelled}
    totals = Counts()
    for r in results:
        if "observations" in r:
            for k in ("new", "duplicate", "versioned", "assistant_turns"):
                setattr(totals, k, getattr(totals, k) + r["observations"][k])
            for k in ("vivid", "pooled", "distilled", "absorbed", "superseded"):
                setattr(totals, k, getattr(totals, k) + r["events"][k])
            for k in ("entities", "merge_proposals", "relations", "facts", "links", "skipped",
                      "glossary_candidates"):
                setattr(totals, k, getattr(totals, k) + r[k])
            totals.errors += r["errors"]
        elif r.get("format") == "pulse-corpus/1":    # a corpus: what it added counts too
            for k in ("entities", "relations", "facts"):
                setattr(totals, k, getattr(totals, k) + int(r.get(k, 0)))
            totals.curated += int(r.get("events", 0))
    summary["total"] = totals.summary()
    withheld = sum(r.get("withheld_segments", 0) for r in results)
    if withheld:
        summary["total"]["withheld_segments"] = withheld
    return summary



def remember(memory: Any, text: str, ts: str | None = None, *, extractor: str = "offline",
             actor: str = "import") -> dict[str, Any]:
    """One free-text note from the companion (the MCP `remember` tool). Returns the ids made."""
    memory._writable()
    if not isinstance(text, str) or not text.strip():
        raise ValidationError("remember: the note is empty")
    when = formats.parse_ts(ts, "remember: ts") if ts is not None else _now_iso()
    msg = formats.Message("remember", records.content_hash(text)[:16], text.strip(), when)
    from core.privacy.gate import PolicyGate

    gate = PolicyGate(memory)
    gated = gate.apply(msg)
    if gated is None:
        gate.flush(memory)
        return {"duplicate": False, "withheld": True, "events": [], "entities": [],
                "new_entities": [], "distilled": []}
    msg = gated
    writer = Writer(memory, actor=actor)
    state, version = writer.status(msg)
    if state == "duplicate":
        obs = memory.conn.execute("SELECT id FROM observations WHERE source_kind = 'remember'"
                                  " AND source_id = ? ORDER BY version DESC LIMIT 1",
                                  (msg.source_id,)).fetchone()
        return {"observation": int(obs[0]), "duplicate": True, "events": [], "entities": [],
                "new_entities": [], "distilled": []}
    counts = Counts()
    if extractor != "offline":
        from core.llm.extractor import LLMRunner

        runner = LLMRunner(memory, extractor)
        writer.actor = runner.actor
        results = runner.run(writer, [(msg, version)], counts, return_results=True)
        return {"duplicate": False, **(results[0] if results else {})}
    prepared = writer.prepare_offline([(msg, version)])
    with transaction(memory.conn):
        out = writer.write(prepared[0], counts)
    return {"duplicate": False, **out}
