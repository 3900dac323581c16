"""When the state gate's inputs (core/scoring/state_flags.py, StateFlagsCache) are re-read
event by event and when they are read again whole: up to max(1,000, a quarter of the flagged
events) changed since they were read, the changed events are re-read into the same table;
past that, re-reading row by row costs more than one full read, so a new table is read. Tested
at the limit and one past it, below 4,000 flagged events (the 1,000 floor decides) and above
(the quarter does). Either way the gate gives what a fresh read gives. Real memory files of
synthetic events (tests/bulk_events.py), the changes written by SQL so the change log's
triggers name each changed event once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.memory import Memory
from core.scoring.settings import DEFAULT_SETTINGS
from core.scoring.state_flags import StateFlags, StateFlagsCache
from core.store.commands import transaction
from tests import bulk_events

STRESSED, CALM = '{"stress_proxy": 0.9}', '{"stress_proxy": 0.1}'


def _calm(memory: Memory, ids: range) -> None:
    with transaction(memory.conn):
        memory.conn.executemany("UPDATE events SET biometrics = ? WHERE id = ?",
                                [(CALM, i) for i in ids])


def _stressed(flags: StateFlags, n: int) -> list[float]:
    ids = np.arange(1, n + 1, dtype=np.int64)
    return flags.fits(ids, "stressed", np.zeros(n, dtype=bool), DEFAULT_SETTINGS).tolist()


# (flagged events, changed events re-read at most): max(1,000, flagged // 4)
LIMITS = [(1_200, 1_000), (4_400, 1_100)]


@pytest.mark.parametrize(("flagged", "limit"), LIMITS)
def test_the_gate_inputs_are_re_read_up_to_their_limit_then_read_anew(
        tmp_path: Path, flagged: int, limit: int) -> None:
    path = bulk_events.build(tmp_path / "memory.db", flagged, biometrics=STRESSED)
    with Memory.open(path) as memory:
        conn = memory.conn
        kept_cache, renewed_cache = StateFlagsCache(), StateFlagsCache()
        kept, old = kept_cache.get(conn), renewed_cache.get(conn)   # both at this revision
        assert len(kept) == len(old) == flagged
        _calm(memory, range(1, limit + 1))
        assert kept_cache.get(conn) is kept                 # `limit` changed: re-read in place
        _calm(memory, range(limit + 1, limit + 2))
        renewed = renewed_cache.get(conn)
        assert renewed is not old                           # `limit` + 1 since its read: anew
        want = [0.0] * (limit + 1) + [1.0] * (flagged - limit - 1)
        assert _stressed(kept_cache.get(conn), flagged) == want
        assert _stressed(renewed, flagged) == want == _stressed(StateFlags(conn), flagged)
