"""The abstention evidence's word counts (core/scoring/lexical.py, TermCounts): a word new to
the counts is read from FTS5's vocabulary instead of walking a MATCH, and must give exactly
the MATCH count — stemmed words, words FTS5 splits into several terms, words no event holds —
and stay exact as events are added after the counts were taken."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np

from core.memory import Memory
from core.scoring.lexical import TermCounts
from tests.conftest import NOW

ODD = ["walking", "walked", "café", "CAFE", "a_b", "x2024", "zzzqxv", "naïve", "_", "über",
       "мама", "hospital", "hospitals"]


def match_count(conn, word: str) -> int:
    phrase = '"' + word.replace('"', '""') + '"'
    return int(conn.execute("SELECT count(*) FROM events_fts WHERE events_fts MATCH ?",
                            (phrase,)).fetchone()[0])


def demo_words(memory: Memory, k: int, seed: int) -> list[str]:
    text = " ".join(r[0] or "" for r in memory.conn.execute(
        "SELECT title || ' ' || COALESCE(description, '') FROM events"))
    words = sorted({w.lower() for w in re.findall(r"\w+", text)})
    rng = np.random.default_rng(seed)
    return [words[i] for i in rng.choice(len(words), size=min(k, len(words)), replace=False)]


def test_vocabulary_counts_equal_match_counts(demo_db: Path, tmp_path: Path) -> None:
    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as memory:
        conn = memory.conn
        words = demo_words(memory, 150, seed=3) + ODD
        counts = TermCounts()
        rev = memory.scorer.index().text_rev
        assert {w: counts.get(conn, rev, w) for w in words} == \
            {w: match_count(conn, w) for w in words}
        assert counts._vocab_conn is conn           # the vocabulary path was taken
        # events added after the counts were taken: kept counts grow by the new ids' matches,
        # words first asked now are read from the vocabulary; both equal a fresh count
        memory.remember("Walking to the café after the hospital, über tired, мама called.",
                        ts="2026-01-02T10:00:00Z")
        memory.remember("zzzqxv hospitals and a_b walked", ts="2026-01-03T10:00:00Z")
        rev = memory.scorer.index().text_rev
        later = demo_words(memory, 60, seed=4)
        assert {w: counts.get(conn, rev, w) for w in words + later} == \
            {w: match_count(conn, w) for w in words + later}
        # words new to the counts asked through another connection (its own vocabulary table)
        with Memory.open(path) as other:
            fresh = [w for w in demo_words(other, 80, seed=5) if w not in words + later]
            assert fresh
            assert {w: counts.get(other.conn, rev, w) for w in fresh} == \
                {w: match_count(other.conn, w) for w in fresh}
            assert counts._vocab_conn is other.conn
        # and through the scorer: the evidence of a retrieve
        got = memory.retrieve("walking to the hospital café", now=NOW, abstain=False)
        assert got["evidence"]["words_found"] == 3
