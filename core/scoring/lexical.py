"""The lexical channel: BM25 over the FTS5 index of event titles and descriptions."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from core.scoring.changelog import changes_since, current_rev
from core.store.sqlite import sqlite3

_WORD = re.compile(r"\w+", re.UNICODE)

# Function words carry no evidence but make FTS5 score nearly every row; dropping them raised
# hybrid recall@5 on LoCoMo from 0.573 to 0.587 and cut BM25 time (bench/locomo_quality.py).
STOPWORDS = frozenset("""
a an the and or but if of at by for with about against between into through during before after
above below to from up down in out on off over under again further then once here there when
where why how all any both each few more most other some such no nor not only own same so than
too very can will just should now is are was were be been being have has had having do does did
doing i me my myself we our ours ourselves you your yours yourself he him his himself she her
hers herself it its itself they them their theirs themselves what which who whom this that these
those am would could shall may might must s t d ll m re ve y
и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее мне
было вот от меня еще нет о из ему теперь когда даже ну вдруг ли если уже или ни быть был него
до вас нибудь опять уж вам ведь там потом себя ничего ей может они тут где есть надо ней для мы
тебя их чем была сам чтоб без будто чего раз тоже себе под будет ж тогда кто этот того потому
этого какой совсем ним здесь этом один почти мой тем чтобы нее сейчас были куда зачем всех
никогда можно при наконец два об другой хоть после над больше тот через эти нас про всего них
какая много разве три эту моя впрочем хорошо свою этой перед иногда лучше чуть том нельзя такой
им более всегда конечно всю между
""".split())


def fts_words(text: str) -> list[str]:
    """The query's distinct content words in order; a query of function words only keeps them
    all, so it still finds something."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))
    return [w for w in words if w not in STOPWORDS] or words


def fts_query(text: str) -> str | None:
    """Any of the query's content words, each quoted so FTS5 syntax in user text is inert."""
    words = fts_words(text)
    if not words:
        return None
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


def bm25_search(conn: sqlite3.Connection, query: str, limit: int,
                domains: Sequence[str] | None = None,
                column_weights: tuple[float, float] | None = None) -> list[tuple[int, float]]:
    """(event id, BM25 score) best first; higher is better (FTS5's bm25() is negated).
    column_weights (title, description) is for bench/locomo_quality.py's sweep."""
    match = fts_query(query)
    if match is None or limit <= 0:
        return []
    weights = "".join(f", {float(w)}" for w in column_weights or ())
    sql = (f"SELECT e.id, -bm25(events_fts{weights}) AS score FROM events_fts"
           " JOIN events e ON e.id = events_fts.rowid"
           " WHERE events_fts MATCH ? AND e.absorbed_into IS NULL AND e.archived = 0")
    params: list[object] = [match]
    if domains:
        sql += f" AND e.domain IN ({', '.join('?' * len(domains))})"
        params.extend(domains)
    sql += " ORDER BY score DESC, e.id LIMIT ?"
    params.append(limit)
    return [(int(r[0]), float(r[1])) for r in conn.execute(sql, params)]


def content_words(text: str, limit: int = 16) -> list[str]:
    """The query's distinct content words (function words dropped), at most `limit`."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))
    return [w for w in words if w not in STOPWORDS][:limit]


class TermCounts:
    """How many events contain each word, kept across writes: a conversation reuses its words,
    so most queries cost no FTS lookup at all. When the memory's words change (the change log)
    and every re-worded event is new — an id above all the events counted, the usual import
    or `remember` — a kept count grows by the word's matches among the new ids only, when the
    word is next asked (FTS5 seeks by rowid: at 1M events a full count of a common word is
    tens of ms). Any other change of words (an edit, an erasure) drops the counts."""

    LIMIT = 50_000   # words remembered

    def __init__(self) -> None:
        self._rev: str | None = None      # the text revision last asked for
        self._seen = "0"                  # the change-log position the counts reflect
        self._top = 0                     # the counts cover events with id ≤ _top
        self._counts: dict[str, tuple[int, int]] = {}     # word → (count, its ids' top)
        self._tokenizer = None            # FTS5's tokenizer, made at the first new word
        self._vocab_conn = None           # the connection holding temp.pulse_fts_row

    def _terms(self, conn: sqlite3.Connection, word: str) -> tuple[str, ...] | None:
        """The FTS5 terms of a word (the index's own tokenizer), or None without the
        vocabulary table (then every count walks a MATCH)."""
        if self._vocab_conn is not conn:
            try:
                conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.pulse_fts_row"
                             " USING fts5vocab(main, events_fts, row)")
            except sqlite3.Error:
                return None
            self._vocab_conn = conn
            if self._tokenizer is None:
                from core.scoring.postings import Tokenizer  # postings imports this module

                self._tokenizer = Tokenizer()
        return self._tokenizer.word(word)

    def _reset(self, conn: sqlite3.Connection) -> None:
        self._seen = current_rev(conn)    # read before MAX(id): a write between is seen below
        self._top = self._max_id(conn)
        self._counts = {}

    @staticmethod
    def _max_id(conn: sqlite3.Connection) -> int:
        return int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0])

    def _sync(self, conn: sqlite3.Connection) -> None:
        changes = changes_since(conn, self._seen, limit=self.LIMIT)
        if changes is None or any(i <= self._top for i in changes.text_rows):
            self._reset(conn)
            return
        self._seen = changes.rev
        if changes.text_rows:
            self._top = max(self._top, self._max_id(conn))

    def get(self, conn: sqlite3.Connection, rev: str, word: str) -> int:
        if rev != self._rev:
            if self._rev is None:
                self._reset(conn)
            else:
                self._sync(conn)
            self._rev = rev
        phrase = '"' + word.replace('"', '""') + '"'
        kept = self._counts.get(word)
        if kept is not None and kept[1] == self._top:
            return kept[0]
        low, count = (0, 0) if kept is None else (kept[1], kept[0])
        terms = self._terms(conn, word) if kept is None else None
        if terms is not None and len(terms) == 1:
            # a word new to the counts, one term once tokenised: the rows holding it are in
            # FTS5's vocabulary (no walk through a MATCH: ~3× less CPU); those above _top
            # (written since) are taken off in the same statement, so the count is the same
            count += int(conn.execute(
                "SELECT COALESCE((SELECT doc FROM temp.pulse_fts_row WHERE term = ?), 0)"
                " - (SELECT count(*) FROM events_fts WHERE events_fts MATCH ? AND rowid > ?)",
                (terms[0], phrase, self._top)).fetchone()[0])
        else:
            count += int(conn.execute(
                "SELECT count(*) FROM events_fts WHERE events_fts MATCH ? AND rowid > ?"
                " AND rowid <= ?", (phrase, low, self._top)).fetchone()[0])
        if kept is not None or len(self._counts) < self.LIMIT:
            self._counts[word] = (count, self._top)
        return count


def term_coverage(conn: sqlite3.Connection, query: str, n_events: int,
                  counts: TermCounts | None = None, rev: str = "") -> tuple[float, int, int]:
    """How much of the query's information occurs anywhere in the memory: the IDF-weighted
    share of its content words that at least one event contains (FTS5 stemming applies).
    Returns (coverage 0..1, words found, content words); (0, 0, 0) for a query of function
    words only. A word no event contains carries the largest IDF, so a query about names or
    things this memory has never seen scores low whatever its common words."""
    words = content_words(query)
    if not words:
        return 0.0, 0, 0
    counts = counts or TermCounts()
    total = found_idf = 0.0
    found = 0
    for word in words:
        n = min(counts.get(conn, rev, word), n_events)
        idf = math.log(1.0 + (n_events - n + 0.5) / (n + 0.5))
        total += idf
        if n > 0:
            found += 1
            found_idf += idf
    return (found_idf / total if total > 0 else 0.0), found, len(words)
