"""The lexical channel's own BM25 (core/scoring/postings.py) gives exactly FTS5's bm25()
ranking and scores — on the demo memory, for random queries, with domain filters, and after
writes that add, re-word, absorb and erase events (kept current through the change log)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from core.memory import Memory
from core.scoring.lexical import bm25_search
from core.scoring.postings import Postings, PostingsCache, Tokenizer
from tests.conftest import NOW


def words_of(memory: Memory) -> list[str]:
    text = " ".join(r[0] + " " + r[1] for r in memory.conn.execute(
        "SELECT title, description FROM events"))
    return sorted(set(text.lower().split()))


def queries(memory: Memory, n: int = 60, seed: int = 3) -> list[str]:
    rng = np.random.default_rng(seed)
    vocab = words_of(memory) + ["the", "what", "did", "nothing", "Ünïcode", "zzzz"]
    return [" ".join(rng.choice(vocab, size=int(rng.integers(1, 7)))) for _ in range(n)]


def same_as_fts(memory: Memory, postings: Postings, qs: list[str]) -> None:
    for q in qs:
        for domains in (None, ("real",), ("fiction_content", "fiction_meta")):
            for limit in (5, 50, 500):
                got = postings.search(memory.conn, q, limit, domains)
                if got is None:          # a word FTS5 splits into a phrase: FTS5 answers
                    continue
                assert got == bm25_search(memory.conn, q, limit, domains), (q, domains, limit)


def test_scores_equal_fts5_bm25(tmp_path, demo_db) -> None:
    path = tmp_path / "m.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as memory:
        postings = Postings(memory.conn)
        qs = queries(memory)
        same_as_fts(memory, postings, qs)
        assert sum(postings.search(memory.conn, q, 50) is not None for q in qs) == len(qs)


def test_kept_current_through_writes(tmp_path, demo_db) -> None:
    path = tmp_path / "m.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as memory:
        cache = PostingsCache()
        qs = queries(memory, 30, seed=9)
        first = cache.get(memory.conn)
        same_as_fts(memory, first, qs)             # fills the per-word cache
        ids = [r[0] for r in memory.conn.execute("SELECT id FROM events ORDER BY id")]
        memory.edit_event_text(ids[4], title="A walk by the sea with my father")
        memory.remember("My father and I walked by the sea again; the hospital is behind us.",
                        "2026-10-30T10:00:00Z")
        memory.set_belief(ids[7], domain="fiction_content")
        memory.forget(f"event:{ids[9]}")
        now = cache.get(memory.conn)
        assert now is first                        # read row by row, not rebuilt
        same_as_fts(memory, now, qs + ["walked sea father hospital"])


def test_a_word_fts5_splits_is_left_to_fts5(tmp_path, demo_db) -> None:
    path = tmp_path / "m.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as memory:
        postings = Postings(memory.conn)
        assert Tokenizer().word("walking") == ("walk",)
        assert postings.search(memory.conn, "snake_case father", 10) is None
        got = memory.retrieve("snake_case father", scorer="bm25", top_k=5)
        assert [r["id"] for r in got["results"]] == [
            i for i, _ in bm25_search(memory.conn, "snake_case father", 5)]


@pytest.mark.parametrize("scorer", ["pulse", "bm25"])
def test_scorers_use_it_unchanged(tmp_path, demo_db, scorer) -> None:
    """The pulse and bm25 scorers answer as with FTS5's own ranking."""
    path = tmp_path / "m.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as memory:
        for q in queries(memory, 10, seed=4):
            via = memory.retrieve(q, scorer=scorer, top_k=8, abstain=False, now=NOW)
            memory.scorer._postings.get(memory.conn).search = lambda *a, **k: None
            direct = memory.retrieve(q, scorer=scorer, top_k=8, abstain=False, now=NOW)
            memory.scorer._postings = PostingsCache()
            assert via["results"] == direct["results"]
