"""What the writer knows of the memory (core/ingest/pipeline.py): its entities by name and kind,
the glossary and the fiction-domain names, glossary candidates, the memory's own person, the
recent pool and the recent vivid events — loaded once per import and kept in step with what
the import writes."""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.ingest import fiction, offline
from core.ingest.glossary import glossary_pattern
from core.ingest.romanise import same_name
from core.store.sqlite import sqlite3

POOL_WINDOW = 400           # clustering looks at the last 400 pooled segments
LINK_WINDOW = 1000          # a new vivid event links to one of the last 1000
PROPOSE_AT = 0.7            # name similarity from which a merge is proposed


RELATIVE = " (of "   # an unnamed relative's entity: "mother (of Nadia)"


def norm_name(name: str) -> str:
    text = unicodedata.normalize("NFKC", name).casefold().strip()
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s()'-]", "", text))


def _fiction_key(name: str) -> str:
    key = norm_name(name)
    return key[4:] if key.startswith("the ") else key


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


class Store:
    """What the writer needs to know of the memory, loaded once and kept in step with its own
    writes; read again when another program has written since (keep_up)."""

    def __init__(self, memory: Any) -> None:
        self.memory = memory
        self.conn: sqlite3.Connection = memory.conn
        self.model = memory.embedding_model
        self.load()

    def keep_up(self) -> None:
        """Read everything again when another program committed since it was read (SQLite's
        data_version moves only for other connections): a person it met meanwhile is not made
        twice, and an entity or event it erased is not linked ("FOREIGN KEY constraint
        failed"). Called under the write lock, so nothing moves while the writer writes."""
        if self.conn.execute("PRAGMA data_version").fetchone()[0] != self.data_version:
            self.load()

    def load(self) -> None:
        self.data_version = self.conn.execute("PRAGMA data_version").fetchone()[0]
        self.entities: dict[int, EntityRow] = {}
        self.fiction_ids: dict[str, int] = {}              # fiction-domain names, any kind
        self.real_ids: dict[str, int] = {}                 # real-life names, any kind
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
        # fictional names (glossary terms and fiction-domain entities): never real-life entities
        self.fiction, self.real_names, _ = fiction.known_names(self.conn)
        for name, (domain, _kind) in self.fiction.items():
            if name not in self.glossary:
                self.patterns.append((glossary_pattern(name, False), domain))
        self.candidates: dict[str, dict[str, Any]] = {
            fiction.fold(r["term"]): dict(r) for r in self.conn.execute(
                "SELECT * FROM glossary_candidates ORDER BY id")}
        row = self.conn.execute("SELECT id FROM entities WHERE is_self = 1 ORDER BY id LIMIT 1"
                                ).fetchone()
        self.self_id: int | None = int(row[0]) if row else None
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
            if row.domain != "real":
                self.fiction_ids.setdefault(_fiction_key(name), row.id)
            elif row.kind not in offline.FICTION_KINDS:
                self.real_ids.setdefault(_fiction_key(name), row.id)

    def best_match(self, name: str, kind: str) -> tuple[int | None, float]:
        key = norm_name(name)
        exact = self.by_name.get((key, kind))
        if exact is not None:
            return exact, 1.0
        if RELATIVE in key:
            # "grandmother (of Nadia)" is not "mother (of Nadia)", nor "brother (of Tom)":
            # a relative named by the relation is that relative only
            return None, 0.0
        best, best_id = 0.0, None
        matcher = difflib.SequenceMatcher(autojunk=False)
        matcher.set_seq2(key)
        for entity_id in self.by_kind.get(kind, []):
            for other in self.entities[entity_id].names():
                cand = norm_name(other)
                if RELATIVE in cand:
                    continue
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

    def other_script(self, name: str, kind: str, domain: str) -> int | None:
        """The one entity of this kind and domain that has this name in the other script
        ("Катя" for "Katya", "Katia" for "Катей": core/ingest/romanise.py). None when none has,
        or when two do: two people are never made one on a spelling."""
        found = {entity_id for entity_id in self.by_kind.get(kind, [])
                 if self.entities[entity_id].domain == domain
                 and any(same_name(name, other) for other in self.entities[entity_id].names()
                         if RELATIVE not in other)}
        return found.pop() if len(found) == 1 else None

    # glossary
    def _add_glossary(self, term: str, is_pattern: bool, domain: str) -> None:
        if not is_pattern:
            self.glossary[term] = domain
            if hasattr(self, "fiction"):
                self.fiction.setdefault(term, (domain, "fictional_character"))
        self.patterns.append((glossary_pattern(term, is_pattern), domain))

    def fiction_of(self, name: str) -> tuple[str, str] | None:
        """(domain, kind) when the glossary or a fiction-domain entity knows this name (or, for
        a person's name, its first word: "Ilse" knows "Ilse Marrow")."""
        found = self.fiction.get(name)
        if found is None and " (of " not in name:
            found = self.fiction.get(name.removeprefix("The "))
        if found is None and " " in name and " (of " not in name:
            found = self.fiction.get(name.split()[0])
            if found is not None and found[1] != "fictional_character":
                found = None
        return found

    def fiction_entity(self, name: str) -> int | None:
        """The fiction-domain entity with this name or alias, of any kind."""
        return self.fiction_ids.get(_fiction_key(name))

    def glossary_domain(self, text: str) -> str | None:
        for pattern, domain in self.patterns:
            if pattern.search(text):
                return domain
        return None
