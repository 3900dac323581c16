"""The lexical channel's BM25, computed beside the vector index instead of by FTS5's bm25().

FTS5 calls bm25() for every row that contains any query word before its ORDER BY … LIMIT: at
100,000 events that is ~90 ms CPU per query (bench/speed.py). Here the same formula runs in
numpy over postings read from FTS5's own index (fts5vocab), so tokenisation and stemming stay
FTS5's and the scores are bit for bit those of bm25() (tests/test_postings.py):

    score = Σ over query words  idf · f·(k1+1) / (f + k1·(1 − b + b·D/avgdl)),  k1 1.2, b 0.75
    idf   = log((N − n + 0.5) / (n + 0.5)), at least 1e-6

with f the word's count in the row (title and description), D the row's length in tokens,
avgdl the mean length, N the rows of the full-text index and n those containing the word.

A word's postings are read the first time a query uses it and kept (a conversation reuses its
words); row lengths, and the absorbed-or-archived flag and domain of each event, are dense arrays by event
id. All are kept current through the change log: a changed event's words are re-read by
tokenising its text with the same FTS5 tokenizer in a private in-memory table.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from core.beliefs import DOMAINS
from core.scoring.changelog import RELOAD_SHARE, Changes, changes_since, current_rev
from core.scoring.lexical import fts_words
from core.store.sqlite import sqlite3

K1, B = 1.2, 0.75
TOKENIZE = "porter unicode61 remove_diacritics 2"   # as events_fts (migration 001)
_DOMAIN_CODES = {name: i for i, name in enumerate(DOMAINS)}
_CHUNK = 500


def _varints(blob: bytes) -> int:
    """The sum of the varints in an fts5 docsize blob: the row's tokens over all columns."""
    total = value = 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            total += value
            value = 0
    return total


class Tokenizer:
    """FTS5's own tokenizer, applied to text through a private in-memory table."""

    def __init__(self) -> None:
        self._conn = sqlite3.connect(":memory:", check_same_thread=False)
        self._conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(title, description,"
                           f" tokenize='{TOKENIZE}')")
        self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
        self._words: dict[str, tuple[str, ...]] = {}
        self._lock = threading.Lock()      # one private table: one text at a time

    def terms(self, rows: Sequence[tuple[int, str, str]]) -> dict[int, dict[str, int]]:
        """{row id: {term: count}} for rows of (id, title, description)."""
        conn = self._conn
        out: dict[int, dict[str, int]] = {int(r[0]): {} for r in rows}
        with self._lock:
            conn.execute("DELETE FROM t")
            conn.executemany("INSERT INTO t (rowid, title, description) VALUES (?, ?, ?)", rows)
            for term, doc, count in conn.execute(
                    "SELECT term, doc, count(*) FROM v GROUP BY term, doc"):
                out[int(doc)][term] = int(count)
            conn.execute("DELETE FROM t")
        return out

    def word(self, word: str) -> tuple[str, ...]:
        """The terms one query word becomes, in order (usually one)."""
        cached = self._words.get(word)
        if cached is None:
            conn = self._conn
            with self._lock:
                conn.execute("DELETE FROM t")
                conn.execute("INSERT INTO t (rowid, title, description) VALUES (1, ?, '')",
                             (word,))
                cached = tuple(r[0] for r in conn.execute("SELECT term FROM v ORDER BY offset"))
                conn.execute("DELETE FROM t")
            if len(self._words) < 100_000:
                self._words[word] = cached
        return cached


def _read_postings(conn: sqlite3.Connection, term: str) -> tuple[np.ndarray, np.ndarray]:
    """(event ids ascending, counts as float64) of the rows containing term. One row per
    occurrence comes back as one text (group_concat) parsed by numpy: a tuple per occurrence
    cost 3-4 times as much CPU (~11 ms against ~3 ms for a word in 10 % of 100,000 rows), and
    SQL's GROUP BY more still. fts5vocab lists a term's occurrences in doc order, so the
    counts are run lengths (np.unique if that ever did not hold)."""
    text = conn.execute("SELECT group_concat(doc) FROM temp.pulse_fts_instance WHERE term = ?",
                        (term,)).fetchone()[0]
    if not text:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    every = np.fromstring(text, dtype=np.int64, sep=",")
    if every.size > 1 and not (every[1:] >= every[:-1]).all():
        docs, counts = np.unique(every, return_counts=True)
        return docs, counts.astype(np.float64)
    starts = np.flatnonzero(np.concatenate(([True], every[1:] != every[:-1])))
    return every[starts], np.diff(np.append(starts, every.size)).astype(np.float64)


class Postings:
    """BM25 over FTS5's index, kept current by the change log (see the module's text)."""

    CACHE_ENTRIES = 20_000_000     # postings kept (about 12 bytes each)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.rev = current_rev(conn)
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.pulse_fts_instance"
                     " USING fts5vocab(main, events_fts, instance)")
        self._tokenizer = Tokenizer()
        self._terms: OrderedDict[str, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._entries = 0
        top = int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0])
        self._size = 0
        self.length = np.zeros(0, dtype=np.float64)      # D, by event id
        self.in_fts = np.zeros(0, dtype=bool)
        self.absorbed = np.zeros(0, dtype=bool)
        self.domain = np.zeros(0, dtype=np.int8)
        self._grow(top + 1)
        for doc, size in conn.execute("SELECT id, sz FROM events_fts_docsize"):
            self._set_length(int(doc), size)
        self._read_events(conn, None)

    # -- dense columns by event id -----------------------------------------------------------

    def _grow(self, size: int) -> None:
        if size <= self._size:
            return
        size = max(size, self._size + self._size // 4 + 1024)
        for name, dtype in (("length", np.float64), ("in_fts", bool), ("absorbed", bool),
                            ("domain", np.int8)):
            new = np.zeros(size, dtype=dtype)
            old = getattr(self, name)
            new[: old.shape[0]] = old
            setattr(self, name, new)
        self._size = size

    def _set_length(self, doc: int, size: bytes | None) -> None:
        self._grow(doc + 1)
        if size is None:
            self.length[doc], self.in_fts[doc] = 0.0, False
        else:
            self.length[doc], self.in_fts[doc] = float(_varints(size)), True

    def _read_events(self, conn: sqlite3.Connection, ids: list[int] | None) -> None:
        sql = "SELECT id, absorbed_into IS NOT NULL OR archived <> 0, domain FROM events"
        chunks = [None] if ids is None else [ids[i: i + _CHUNK] for i in range(0, len(ids), _CHUNK)]
        for part in chunks:
            if part is not None:
                self._grow(max(part) + 1)
                self.absorbed[part] = True          # gone unless read again below
            rows = conn.execute(sql if part is None else
                                f"{sql} WHERE id IN ({','.join('?' * len(part))})",
                                part or ()).fetchall()
            if rows:
                cols = list(zip(*rows))
                doc = np.array(cols[0], dtype=np.int64)
                self._grow(int(doc.max()) + 1)
                self.absorbed[doc] = np.array(cols[1], dtype=bool)
                self.domain[doc] = np.array([_DOMAIN_CODES[d] for d in cols[2]], dtype=np.int8)

    # -- postings --------------------------------------------------------------------------

    def _postings(self, conn: sqlite3.Connection, term: str) -> tuple[np.ndarray, np.ndarray]:
        """(event ids ascending, counts) of rows that contain term."""
        hit = self._terms.get(term)
        if hit is not None:
            self._terms.move_to_end(term)
            return hit
        docs, counts = _read_postings(conn, term)
        self._terms[term] = (docs, counts)
        self._entries += docs.shape[0]
        while self._entries > self.CACHE_ENTRIES and len(self._terms) > 1:
            _, (old, _) = self._terms.popitem(last=False)
            self._entries -= old.shape[0]
        return docs, counts

    def search(self, conn: sqlite3.Connection, query: str, limit: int,
               domains: Sequence[str] | None = None) -> list[tuple[int, float]] | None:
        """(event id, BM25 score) best first, as lexical.bm25_search returns them; None when a
        query word is not one FTS5 term (a phrase of several: FTS5 must match positions)."""
        words = fts_words(query)
        if not words or limit <= 0:
            return []
        terms = []
        for word in words:
            found = self._tokenizer.word(word)
            if len(found) != 1:
                return None
            terms.append(found[0])
        n_row = int(np.count_nonzero(self.in_fts))
        if n_row == 0:
            return []
        avgdl = float(self.length.sum()) / float(n_row)
        score = np.zeros(self._size, dtype=np.float64)
        for term in terms:
            docs, f = self._postings(conn, term)
            if docs.size == 0:
                continue
            idf = math.log((n_row - docs.shape[0] + 0.5) / (docs.shape[0] + 0.5))
            if idf <= 0.0:
                idf = 1e-6
            d = self.length[docs]
            score[docs] += idf * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * d / avgdl)))
        rows = np.flatnonzero(score)
        rows = rows[~self.absorbed[rows]]
        if domains:
            codes = np.array([_DOMAIN_CODES[d] for d in domains], dtype=np.int8)
            rows = rows[np.isin(self.domain[rows], codes)]
        if rows.size > limit:
            cut = np.partition(score[rows], rows.size - limit)[rows.size - limit]
            rows = rows[score[rows] >= cut]
        order = np.lexsort((rows, -score[rows]))[:limit]
        return [(int(r), float(score[r])) for r in rows[order]]

    # -- keeping current -------------------------------------------------------------------

    def refresh(self, conn: sqlite3.Connection, changes: Changes) -> None:
        ids = sorted(changes.rows)
        if ids:
            self._read_events(conn, ids)
        if ids and changes.text:
            texts: list[tuple[int, str, str]] = []
            for lo in range(0, len(ids), _CHUNK):
                part = ids[lo: lo + _CHUNK]
                marks = ",".join("?" * len(part))
                sizes = dict(conn.execute(
                    f"SELECT id, sz FROM events_fts_docsize WHERE id IN ({marks})", part))
                for doc in part:
                    self._set_length(doc, sizes.get(doc))
                texts += conn.execute(
                    f"SELECT id, title, description FROM events WHERE id IN ({marks})",
                    part).fetchall()
            now = self._tokenizer.terms([t for t in texts if self.in_fts[t[0]]])
            self._update_terms(np.array(ids, dtype=np.int64), now)
        self.rev = changes.rev

    def _update_terms(self, changed: np.ndarray, now: dict[int, dict[str, int]]) -> None:
        """Re-place the changed events (ascending ids) in the cached postings: each term's
        postings are searched for them (a binary search, not a pass over the postings) and
        rebuilt only when they held one of them or one now contains the term; new events
        (ids above every posting) are appended."""
        adds: dict[str, list[tuple[int, float]]] = {}
        for doc in sorted(now):
            for term, count in now[doc].items():
                if term in self._terms:
                    adds.setdefault(term, []).append((doc, float(count)))
        for term, (docs, counts) in list(self._terms.items()):
            add = adds.get(term)
            at = np.searchsorted(docs, changed)
            held = at < docs.shape[0]
            held[held] = docs[at[held]] == changed[held]
            if not held.any() and not add:
                continue
            if held.any():
                keep = np.ones(docs.shape[0], dtype=bool)
                keep[at[held]] = False
                docs, counts = docs[keep], counts[keep]
            if add:
                new_docs = np.array([a[0] for a in add], dtype=np.int64)
                new_counts = np.array([a[1] for a in add], dtype=np.float64)
                if docs.shape[0] and new_docs[0] <= docs[-1]:
                    at = np.searchsorted(docs, new_docs)
                    docs, counts = np.insert(docs, at, new_docs), np.insert(counts, at, new_counts)
                else:
                    docs = np.concatenate([docs, new_docs])
                    counts = np.concatenate([counts, new_counts])
            self._entries += docs.shape[0] - self._terms[term][0].shape[0]
            self._terms[term] = (docs, counts)


class PostingsCache:
    """The memory's Postings, refreshed through the change log (rebuilt when that cannot say)."""

    def __init__(self) -> None:
        self._postings: Postings | None = None

    def get(self, conn: sqlite3.Connection) -> Postings:
        postings = self._postings
        if postings is not None:
            if postings.rev == current_rev(conn):
                return postings
            size = int(np.count_nonzero(postings.in_fts))
            changes = changes_since(conn, postings.rev, limit=max(1000, int(RELOAD_SHARE * size)))
            if changes is not None:
                try:
                    postings.refresh(conn, changes)
                    return postings
                except BaseException:
                    self._postings = None
                    raise
        self._postings = None
        self._postings = Postings(conn)
        return self._postings
