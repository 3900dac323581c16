"""The vector index updates in place (core/scoring/index.py, the change log of migration 010):
after any sequence of writes — belief edits, pins, emotions, text edits, chain links, new
events, erasure, undo — a scorer that kept its index and read only the changed rows answers
exactly as one that loads the memory afresh; and it did so without a full reload. So does a
cold start from the index snapshot saved before those writes plus the log since
(core/scoring/snapshot.py), unless an erasure dropped it. Another
process's writes are picked up the same way (a real second process)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.errors import PulseError
from core.memory import Memory
from core.scoring import index as index_module
from core.scoring import snapshot
from core.scoring.index import load_index
from core.store.commands import transaction
from tests.conftest import NOW

ROOT = Path(__file__).resolve().parents[1]

QUERIES = [
    {"query": "my father and the hospital"},
    {"query": "feeling ashamed at work", "state": {"mood_vector": {"shame": 0.8},
                                             "sleep_hours": 4, "stress_proxy": 0.8,
                                             "recent_life_events_7d": ["Mama called"]}},
    {"query": "what led to the argument", "chain": True},
    {"query": "the story I am writing", "domains": ["fiction_content", "real"]},
    {"query": "a new job", "scorer": "dense", "top_k": 15},
]
TEXTS = ["I went back to the hospital to see my father today.",
         "Started a new job at the library; my manager seems kind.",
         "Argued with my sister about the move, felt guilty after."]
EMOTIONS = ["joy", "sadness", "fear", "shame", "trust"]


def answers(memory: Memory, queries: list[dict] = QUERIES) -> list[dict]:
    out = []
    for q in queries:
        got = memory.retrieve(q["query"], now=NOW, **{k: v for k, v in q.items() if k != "query"})
        out.append({"evidence": got.get("evidence"), "abstain": got.get("abstain_reason"),
                    "results": [(r["id"], r["score"], r.get("terms")) for r in got["results"]]})
    return out


def live_rows(index) -> dict[int, tuple]:
    """Each live event's row, neighbours given as event ids (rows differ, ids must not)."""
    out = {}
    for pos in np.flatnonzero(index.live):
        prev, nxt = int(index.prev_row[pos]), int(index.next_row[pos])
        out[int(index.ids[pos])] = (
            index.matrix[pos].tobytes(), float(index.ts_days[pos]), int(index.class_code[pos]),
            float(index.floor[pos]), bool(index.user_flag[pos]), int(index.domain_code[pos]),
            index.emotions[pos].tobytes(), int(index.obs_id[pos]),
            int(index.ids[prev]) if prev >= 0 else None, float(index.prev_gap_days[pos]),
            int(index.ids[nxt]) if nxt >= 0 else None, float(index.next_gap_days[pos]),
            None if index.codes is None else index.codes.read(np.array([pos])).tobytes(),
            float(index.scale[pos]), float(index.vec_norm[pos]), float(index.err_norm[pos]))
    return out


@pytest.fixture(params=["float32", "int8", "int8+float32"])
def representation(request, monkeypatch) -> str:
    """float32: the matrix in memory (a small index). int8: what a very large index keeps —
    codes for the first pass, the float32 vectors read from the file for the exact re-score.
    int8+float32: a large one — codes, and the float32 vectors in memory for the re-score
    (a one-part query, the median's sample kept together)."""
    if request.param.startswith("int8"):
        monkeypatch.setattr(index_module, "QUANTISE_ROWS", 0)
        monkeypatch.setattr(index_module, "FLOAT_ROWS", 0 if request.param == "int8" else 10**9)
    return request.param


def apply(memory: Memory, op: str, a: int, b: int) -> None:
    """One write through the public API; writes the memory refuses (cycles, nothing to undo,
    an already superseded event) are part of the sequence too."""
    ids = [r[0] for r in memory.conn.execute(
        "SELECT id FROM events WHERE absorbed_into IS NULL ORDER BY id")]
    x, y = ids[a % len(ids)], ids[b % len(ids)]
    try:
        if op == "pin":
            memory.pin(x)
        elif op == "belief":
            memory.set_belief(x, belief_class=["hypothesis", "operational", "user_model"][b % 3],
                              confidence_floor=(b % 5) / 10)
        elif op == "domain":
            memory.set_belief(x, domain=["real", "fiction_content"][b % 2])
        elif op == "emotion":
            memory.set_emotions(x, {EMOTIONS[b % 5]: 0.2 + (b % 4) / 5})
        elif op == "edit":
            memory.edit_event_text(x, title=f"Changed title {b}")
        elif op == "link":
            memory.link_events(x, y)
        elif op == "unlink":
            link = memory.conn.execute("SELECT parent_id, child_id FROM event_chains"
                                       " ORDER BY parent_id, child_id").fetchall()
            if link:
                memory.unlink_events(*link[b % len(link)])
        elif op == "remember":
            memory.remember(TEXTS[b % len(TEXTS)], f"2026-10-{1 + b % 28:02d}T10:00:00Z")
        elif op == "forget":
            memory.forget(f"event:{x}")
        elif op == "dismiss":       # a hypothesis dismissed is archived: it leaves the index
            memory.dismiss_question(x)
        elif op == "restore":       # and comes back
            archived = memory.conn.execute("SELECT id FROM events WHERE archived = 1"
                                           " ORDER BY id").fetchall()
            if archived:
                memory.restore(archived[b % len(archived)][0])
        elif op == "undo":
            memory.undo()
    except PulseError:
        pass


OPS = ["pin", "belief", "domain", "emotion", "edit", "link", "unlink", "remember", "forget",
       "dismiss", "restore", "undo"]


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 10_000),
                                st.integers(0, 10_000), st.booleans()),
                      min_size=1, max_size=8))
@example(steps=[("edit", 3, 0, True), ("undo", 0, 0, False)])          # an old row returns
@example(steps=[("belief", 4, 0, False), ("dismiss", 4, 0, True),        # archived, then back
                ("restore", 0, 0, True), ("dismiss", 4, 0, False), ("undo", 0, 0, True)])
@example(steps=[("remember", 0, 1, True), ("edit", 5, 2, False), ("forget", 9, 0, True),
                ("link", 1, 2, False), ("undo", 0, 0, False)])
def test_in_place_index_equals_a_fresh_load(tmp_path_factory, demo_db, representation,
                                            steps) -> None:
    path = tmp_path_factory.mktemp("inplace") / "memory.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as memory:
        answers(memory)                       # the index is loaded once, here
        assert memory.save_index_snapshot() is not None   # and saved in the file
        cache = memory.scorer._indexes
        for op, a, b, query_now in steps:
            apply(memory, op, a, b)
            if query_now:                     # refresh at intermediate points too
                answers(memory, QUERIES[:1])
        kept = answers(memory)
        kept_index = memory.scorer._indexes.get(memory.conn, memory.embedding_model)
        assert (kept_index.codes is not None) == representation.startswith("int8")
        assert kept_index.keeps_float == (representation != "int8")
        kept_rows = live_rows(kept_index)
        assert cache.full_loads == 1, "a write forced a full reload"
    with Memory.open(path) as cold:           # a cold start: the snapshot and the log since
        assert answers(cold) == kept
        has_snapshot = snapshot.head(cold.conn, cold.embedding_model) is not None
        assert has_snapshot or any(op == "forget" for op, *_ in steps)   # erasure drops it
        assert cold.scorer._indexes.snapshot_loads == int(has_snapshot)
        assert live_rows(cold.scorer.index()) == kept_rows
        with transaction(cold.conn):
            snapshot.drop(cold.conn)
    with Memory.open(path) as fresh:
        assert answers(fresh) == kept
        assert fresh.scorer._indexes.full_loads == 1
        assert live_rows(load_index(fresh.conn, fresh.embedding_model)) == kept_rows


def test_a_write_touches_only_its_rows(tmp_path, demo_db) -> None:
    """A pin re-reads one row: the arrays are the same objects, only that event's row moved."""
    path = tmp_path / "memory.db"
    shutil.copy(demo_db, path)
    names = ("floor", "class_code", "user_flag", "matrix", "emotions", "ts_days")
    with Memory.open(path) as memory:
        answers(memory)
        index = memory.scorer._indexes.get(memory.conn, memory.embedding_model)
        event = memory.conn.execute("SELECT id FROM events WHERE belief_class = 'operational'"
                                    " AND user_flag = 0 ORDER BY id LIMIT 1").fetchone()[0]
        before = {name: getattr(index, name).copy() for name in names}
        memory.pin(event)
        after = memory.scorer._indexes.get(memory.conn, memory.embedding_model)
        assert after is index and after.matrix is index.matrix
        changed = set()
        for name in names:
            diff = (before[name] != getattr(after, name)).reshape(len(after), -1).any(axis=1)
            changed |= set(after.ids[diff].tolist())
        assert changed == {event}
        assert memory.scorer._indexes.full_loads == 1


WRITER = """
import sys
from core.memory import Memory
with Memory.open(sys.argv[1]) as memory:
    memory.pin(int(sys.argv[2]))
    memory.set_emotions(int(sys.argv[3]), {"fear": 0.9})
    memory.remember("My brother called from the station; we finally talked.",
                    "2026-10-20T09:00:00Z")
    memory.forget(f"event:{sys.argv[4]}")
print("done")
"""


def test_another_process_write_is_read_row_by_row(tmp_path, demo_db) -> None:
    """A second process pins, tags, remembers and erases while this one holds its index: the
    next query here reads those rows from the change log and answers like a fresh load."""
    path = tmp_path / "memory.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as memory:
        before = answers(memory)
        cache = memory.scorer._indexes
        ids = [r[0] for r in memory.conn.execute("SELECT id FROM events ORDER BY id")]
        top = before[0]["results"][0][0]
        proc = subprocess.run([sys.executable, "-c", WRITER, str(path), str(ids[5]), str(top),
                               str(before[1]["results"][0][0])],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        kept = answers(memory)
        assert cache.full_loads == 1 and cache.refreshes >= 1
        assert kept != before
    with Memory.open(path) as fresh:
        assert answers(fresh) == kept


def test_a_pruned_log_falls_back_to_a_full_reload(tmp_path, demo_db) -> None:
    """A reader older than the pruned part of the log cannot be told row by row: it reloads,
    and still answers like a fresh load."""
    path = tmp_path / "memory.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as memory:
        answers(memory)
        cache = memory.scorer._indexes
        event = memory.conn.execute("SELECT id FROM events ORDER BY id LIMIT 1").fetchone()[0]
        memory.pin(event)
        floor = int(memory.conn.execute(
            "SELECT seq FROM sqlite_sequence WHERE name = 'index_changes'").fetchone()[0])
        memory.conn.execute("UPDATE pulse_meta SET value = ? WHERE key = 'index_log_floor'",
                            (str(floor),))   # as the pruning trigger would after 100,000 rows
        kept = answers(memory)
        assert cache.full_loads == 2
    with Memory.open(path) as fresh:
        assert answers(fresh) == kept


def test_the_log_is_pruned_and_holds_no_text(tmp_path) -> None:
    """The log keeps its last 100,000 rows (older readers reload in full) and records ids and
    kinds only, never what an event says."""
    with Memory.open(tmp_path / "m.db", create=True) as memory:
        conn = memory.conn
        conn.execute("INSERT INTO events (id, title, ts) VALUES (1, 'secret words', ?)",
                     ("2026-01-01T00:00:00Z",))
        conn.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                     " WHERE i < 110000) INSERT INTO index_changes (event_id, kind)"
                     " SELECT 1, 'row' FROM n")
        count, low, high = conn.execute(
            "SELECT COUNT(*), MIN(seq), MAX(seq) FROM index_changes").fetchone()
        floor = int(conn.execute(
            "SELECT value FROM pulse_meta WHERE key = 'index_log_floor'").fetchone()[0])
        assert high == 110_001 and count <= 100_000 + 4096 and low == floor + 1 and floor > 0
        cols = [r[1] for r in conn.execute("PRAGMA table_info(index_changes)")]
        assert cols == ["seq", "event_id", "kind"]
        kinds = {r[0] for r in conn.execute("SELECT DISTINCT kind FROM index_changes")}
        assert kinds <= {"text", "row", "chain"}


@pytest.mark.parametrize("sql", [
    "UPDATE events SET source_observation = NULL WHERE id = ?",
    "DELETE FROM observations WHERE id = (SELECT source_observation FROM events WHERE id = ?)",
])
def test_observation_changes_reach_the_neighbours(tmp_path, demo_db, sql) -> None:
    """An event's conversational neighbours come from its observation; cutting that link (by
    hand or by the foreign key's SET NULL on erasure) is logged and relinks the index."""
    path = tmp_path / "memory.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as memory:
        answers(memory)
        event = memory.conn.execute("SELECT id FROM events WHERE source_observation IS NOT NULL"
                                    " ORDER BY id LIMIT 1 OFFSET 2").fetchone()[0]
        memory.conn.execute(sql, (event,))
        kept = live_rows(memory.scorer._indexes.get(memory.conn, memory.embedding_model))
        assert memory.scorer._indexes.full_loads == 1
        assert json.dumps(kept[event][7]) == "-1"
    with Memory.open(path) as fresh:
        assert live_rows(load_index(fresh.conn, fresh.embedding_model)) == kept


@pytest.mark.parametrize("scorer", ["pulse", "dense"])
def test_an_event_without_a_vector_moves_the_word_counts(tmp_path, demo_db, scorer) -> None:
    """An event added without a vector changes no index row, but its words count: a query word
    only it contains, asked before it existed (counted 0) and again after, is found, and the
    coverage, abstention and results equal a fresh load's."""
    from core.store import records

    path = tmp_path / "memory.db"
    shutil.copy(demo_db, path)
    query = [{"query": "quokkablossom lanterns by the hospital", "scorer": scorer},
             {"query": "quokkablossom", "scorer": scorer}]
    with Memory.open(path) as memory:
        before = answers(memory, query)
        assert before[1]["evidence"]["words_found"] == 0 and before[0]["evidence"]["words"] == 3
        records.add_event(memory.conn, actor="import", fields={
            "title": "Quokkablossom", "description": "The quokkablossom lanterns at dusk.",
            "ts": "2026-10-02T10:00:00Z"})
        kept = answers(memory, query)
        assert memory.scorer._indexes.full_loads == 1
    with Memory.open(path) as fresh:
        assert answers(fresh, query) == kept
    assert kept[0]["evidence"]["words_found"] == before[0]["evidence"]["words_found"] + 1
    assert kept[1]["evidence"]["words_found"] == 1
    assert kept[1]["evidence"]["term_coverage"] > before[1]["evidence"]["term_coverage"]


def test_new_events_are_linked_without_relinking_every_row(tmp_path, demo_db,
                                                           monkeypatch) -> None:
    """Events said after everything else of their source kind (here `remember`, twice) extend
    their kind's chain: no relink of every row, and the neighbours are a fresh load's. A new
    event on an old observation (a late arrival in its kind) relinks every row, right too."""
    from core.store import records

    path = tmp_path / "memory.db"
    shutil.copy(demo_db, path)
    relinks = []
    original = index_module.EventIndex.relink
    monkeypatch.setattr(index_module.EventIndex, "relink",
                        lambda self: (relinks.append(len(self)), original(self))[1])
    with Memory.open(path) as memory:
        answers(memory)
        loaded = len(relinks)
        memory.remember(TEXTS[0], "2026-10-03T10:00:00Z")
        memory.remember(TEXTS[1], "2026-10-03T10:05:00Z")
        kept = live_rows(memory.scorer._indexes.get(memory.conn, memory.embedding_model))
        assert len(relinks) == loaded, "an append relinked every row"
        newest = memory.conn.execute("SELECT MAX(id) FROM events").fetchone()[0]
        assert kept[newest][8] is not None          # linked to the one remembered before it
    with Memory.open(path) as fresh:
        assert live_rows(load_index(fresh.conn, fresh.embedding_model)) == kept
    with Memory.open(path) as memory:
        answers(memory)
        loaded = len(relinks)
        low, some = memory.conn.execute(
            "SELECT source_observation, id FROM events WHERE source_observation IS NOT NULL"
            " ORDER BY source_observation LIMIT 1").fetchone()
        vector = np.frombuffer(memory.conn.execute(
            "SELECT vector FROM event_embeddings WHERE event_id = ?", (some,)).fetchone()[0],
            dtype=np.float32)
        records.add_event(memory.conn, actor="import", fields={
            "title": "A late arrival", "ts": "2026-10-05T10:00:00Z", "source_observation": low},
            vectors=[records.Vector(memory.embedding_model, vector)])
        kept = live_rows(memory.scorer._indexes.get(memory.conn, memory.embedding_model))
        assert len(relinks) > loaded
    with Memory.open(path) as fresh:
        assert live_rows(load_index(fresh.conn, fresh.embedding_model)) == kept
