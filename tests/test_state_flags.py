"""The state gate's inputs kept in memory (core/scoring/state_flags.py) give exactly what
gates.state_fit gives when it reads each event's biometrics and sentiment label itself, for
odd stored values too, under changed thresholds, and after writes (kept current by the change
log, equal to a fresh read); the state channel's body table (signature.BodyCache, rebuilt when
the memory changes: a body lent to nearby days moves with its lender) equals a fresh read too. Real SQLite, events written through the command layer."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from core.memory import Memory
from core.scoring import gates
from core.scoring.changelog import current_rev
from core.scoring.settings import DEFAULT_SETTINGS
from core.scoring.signature import BodyCache
from core.scoring.state_flags import StateFlags, StateFlagsCache
from core.store import records
from tests.test_scoring_formula import NOW, iso

VALUES = [None, True, False, 0, 1, 0.2, 0.3, 0.5, 0.55, 0.7, 0.8, 0.85, 10, 35, 40, 45, 60, 80,
          10**400, "0.8", float("nan")]
TRENDS = [None, "declining_3d", "stable", "elevated_3d", "elevated_overnight", "elevated", 3]
LABELS = ["", "Burden", "old wound", "shipping", "milestone day", "repair", "calm", None]


def random_biometrics(rng: random.Random) -> str | dict | None:
    kind = rng.random()
    if kind < 0.1:
        return rng.choice(["not json", "[1, 2]", "null", "", "{}", "3"])
    if kind < 0.2:
        return None
    bio = {}
    for name in ("hrv", "sleep_quality", "stress_proxy"):
        if rng.random() < 0.6:
            bio[name] = rng.choice(VALUES)
    for name in ("hrv_trend", "hr_trend"):
        if rng.random() < 0.4:
            bio[name] = rng.choice(TRENDS)
    if rng.random() < 0.2:
        bio["workout"] = rng.choice([True, False, 1, "yes"])
    return json.dumps(bio, allow_nan=True)


def add_events(memory: Memory, rng: random.Random, n: int) -> list[int]:
    ids = []
    for i in range(n):
        fields = {"title": f"event {i}", "ts": iso(NOW), "sentiment_label": rng.choice(LABELS)}
        bio = random_biometrics(rng)
        if bio is not None:
            fields["biometrics"] = bio
        if fields["sentiment_label"] is None:
            del fields["sentiment_label"]
        ids.append(records.add_event(memory.conn, actor="import", fields=fields))
    return ids


def gate_per_event(memory: Memory, ids: list[int], body: str, linked: set[int],
                   settings) -> np.ndarray:
    """What the scorer computed before: SQL + json.loads + gates.state_fit per event."""
    out = []
    for event_id in ids:
        bio_text, label = memory.conn.execute(
            "SELECT biometrics, sentiment_label FROM events WHERE id = ?", (event_id,)).fetchone()
        try:
            bio = json.loads(bio_text or "{}")
        except ValueError:
            bio = {}
        out.append(gates.state_fit(body, bio if isinstance(bio, dict) else {}, label or "",
                                   event_id in linked, settings))
    return np.array(out)


SETTINGS = [DEFAULT_SETTINGS,
            DEFAULT_SETTINGS.with_overrides({"depletion_hrv_below": 45.0,
                                             "depletion_sleep_max": 0.3,
                                             "restoration_sleep_min": 0.55,
                                             "restoration_stress_max": 0.2,
                                             "state_fit_entity": 0.4})]


@pytest.mark.parametrize("settings", SETTINGS)
def test_fits_equal_the_gate_read_per_event(memory: Memory, settings) -> None:
    rng = random.Random(4)
    ids = add_events(memory, rng, 160)
    linked = set(rng.sample(ids, 30))
    flags = StateFlags(memory.conn)
    query = np.array(ids + [max(ids) + 5], dtype=np.int64)      # and an id it does not hold
    for body in ("stressed", "restored"):
        got = flags.fits(query, body, np.isin(query, list(linked)), settings)
        want = gate_per_event(memory, ids, body, linked, settings)
        assert got[:-1].tolist() == want.tolist()
        assert got[-1] == 0.0
        assert 0 < np.count_nonzero(got == 1.0) < len(ids)          # the gate opens and shuts


def test_kept_current_through_writes(memory: Memory) -> None:
    rng = random.Random(9)
    ids = add_events(memory, rng, 60)
    cache = StateFlagsCache()
    kept = cache.get(memory.conn)
    bodies = BodyCache()                      # the state channel's body table, kept the same way
    bodies.get(memory.conn, current_rev(memory.conn), DEFAULT_SETTINGS)
    for _ in range(3):
        for event_id in rng.sample(ids, 5):
            memory.forget(f"event:{event_id}")
            ids.remove(event_id)
        ids += add_events(memory, rng, 10)
        assert cache.get(memory.conn) is kept
        fresh = StateFlags(memory.conn)
        query = np.array(ids, dtype=np.int64)
        none = np.zeros(len(ids), dtype=bool)
        for body in ("stressed", "restored"):
            assert kept.fits(query, body, none, DEFAULT_SETTINGS).tolist() == \
                fresh.fits(query, body, none, DEFAULT_SETTINGS).tolist() == \
                gate_per_event(memory, ids, body, set(), DEFAULT_SETTINGS).tolist()
        assert len(kept) == len(fresh)
        rev = current_rev(memory.conn)
        body = bodies.get(memory.conn, rev, DEFAULT_SETTINGS)
        again = BodyCache().get(memory.conn, rev, DEFAULT_SETTINGS)
        assert body.ids.tolist() == again.ids.tolist() and body.ids.size > 0
        assert np.array_equal(body.features, again.features, equal_nan=True)
