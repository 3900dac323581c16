"""Near-duplicate events: two events that say the same thing — cosine at least the calibrated
threshold, sharing enough of their content words, the same people, close in time — become a
merge proposal (keep the earlier one).

Why the word overlap: the default embedder puts every turn of one small-talk conversation in a
narrow cosine band (0.90-0.95 between different turns of one speaker), so cosine alone proposed
merging a greeting with a goodbye. Two events that say the same thing also share words
("bank", "branch", "job"); both thresholds are calibrated together on labelled pairs
(bench/near_duplicates.py).

Only live events that may be consolidated take part: not absorbed, not archived, archivable
(so never an axiom or a pinned row), not a weak segment waiting in the importer's pool (the
pool consolidates those itself, into patterns), with a vector of the active model. A pair that
was ever proposed (whatever was decided) is not proposed again.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from core.scoring.index import EventIndex, iso_to_epoch_days
from core.store.sqlite import sqlite3


@dataclass(frozen=True)
class Pair:
    keep: int          # the earlier event, which stays
    absorb: int        # the later one, absorbed into it
    cosine: float
    overlap: float
    days_apart: float


def is_duplicate(cosine: float, shared: float, people_a: frozenset, people_b: frozenset,
                 days_apart: float, threshold: float, min_overlap: float,
                 window_days: float) -> bool:
    """The rule, shared by upkeep and its calibration (bench/near_duplicates.py)."""
    return (cosine >= threshold and shared >= min_overlap and people_a == people_b
            and abs(days_apart) <= window_days)


def content_words(title: str, description: str) -> set[str]:
    """An event's content words (an imported turn's speaker label left out)."""
    from core.storylines.summarise import speaker_of, tokens

    speaker, body = speaker_of(title, description)
    text = body if speaker else f"{title} {description}"
    return set(tokens(text))


def overlap(a: set[str], b: set[str]) -> float:
    """Shared content words over the smaller event's (1.0: one says nothing the other does
    not)."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def people_sets(conn: sqlite3.Connection) -> dict[int, frozenset[int]]:
    """Each event's people (person entities, not the memory's own person)."""
    out: dict[int, set[int]] = defaultdict(set)
    for event_id, entity_id in conn.execute(
            "SELECT x.event_id, x.entity_id FROM event_entities x JOIN entities e"
            " ON e.id = x.entity_id WHERE e.kind = 'person' AND e.is_self = 0"):
        out[int(event_id)].add(int(entity_id))
    return {k: frozenset(v) for k, v in out.items()}


def eligible(conn: sqlite3.Connection) -> set[int]:
    return {int(r[0]) for r in conn.execute(
        "SELECT id FROM events WHERE absorbed_into IS NULL AND archived = 0 AND archivable = 1"
        " AND belief_class <> 'axiom' AND id NOT IN (SELECT event_id FROM pool_segments)")}


def already_proposed(conn: sqlite3.Connection) -> set[frozenset[int]]:
    return {frozenset((int(a), int(b))) for a, b in conn.execute(
        "SELECT event_id, keep_event FROM upkeep_proposals WHERE kind = 'event_merge'")}


def find_pairs(conn: sqlite3.Connection, index: EventIndex, threshold: float,
               min_overlap: float, window_days: float) -> list[Pair]:
    """One proposal per later event: its most similar earlier duplicate."""
    allowed = eligible(conn)
    rows = np.array([i for i, e in enumerate(index.ids.tolist()) if e in allowed], dtype=np.int64)
    if rows.size < 2:
        return []
    days = index.ts_days[rows]
    order = np.lexsort((index.ids[rows], days))
    rows, days = rows[order], days[order]
    ids = index.ids[rows]
    people = people_sets(conn)
    seen = already_proposed(conn)
    words: dict[int, set[str]] = {}

    def words_of(event_id: int) -> set[str]:
        if event_id not in words:
            row = conn.execute("SELECT title, description FROM events WHERE id = ?",
                               (event_id,)).fetchone()
            words[event_id] = content_words(row[0], row[1] or "")
        return words[event_id]

    none: frozenset[int] = frozenset()
    best: dict[int, Pair] = {}
    hi = 0
    for i in range(rows.size):
        hi = max(hi, i + 1)
        while hi < rows.size and days[hi] - days[i] <= window_days:
            hi += 1
        if hi <= i + 1:
            continue
        cos = index.matrix[rows[i + 1:hi]] @ index.matrix[rows[i]]
        for k in np.flatnonzero(cos >= threshold):
            j = i + 1 + int(k)
            a, b = int(ids[i]), int(ids[j])
            if frozenset((a, b)) in seen or people.get(a, none) != people.get(b, none):
                continue
            if not is_duplicate(float(cos[k]), overlap(words_of(a), words_of(b)),
                                people.get(a, none), people.get(b, none),
                                float(days[j] - days[i]), threshold, min_overlap, window_days):
                continue
            pair = Pair(keep=a, absorb=b, cosine=round(float(cos[k]), 4),
                        overlap=round(overlap(words_of(a), words_of(b)), 4),
                        days_apart=round(float(days[j] - days[i]), 3))
            current = best.get(b)
            if current is None or (pair.cosine, -pair.keep) > (current.cosine, -current.keep):
                best[b] = pair
    # an event that is itself absorbed by a proposal here is not also kept by another one
    absorbed = set(best)
    return sorted((p for p in best.values() if p.keep not in absorbed),
                  key=lambda p: (p.keep, p.absorb))


def days_between(ts_a: str, ts_b: str) -> float:
    a, b = iso_to_epoch_days([ts_a, ts_b])
    return float(b - a)
