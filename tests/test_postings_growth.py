"""The lexical postings' own bookkeeping (core/scoring/postings.py), observed from outside: the
dense columns by event id grow geometrically (a copy now and then, not one per new event), the
cache of word postings keeps every word while their postings fit, the change log is replayed
up to its limit and a rebuild happens only past it, and an event another connection adds while
the postings are being built is taken in without error. Real SQLite files; the work is seen in
the SQL statements the connection runs (SQLite's own trace callback) and in the arrays' sizes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from core.memory import Memory
from core.scoring.changelog import changes_since
from core.scoring.lexical import bm25_search
from core.scoring.postings import Postings, PostingsCache
from core.store import records
from core.store.commands import transaction

POSTINGS_READ = "FROM temp.pulse_fts_instance"


def _add(memory: Memory, title: str, **links) -> int:
    return records.add_event(memory.conn, actor="import",
                             fields={"title": title, "ts": "2026-10-01T10:00:00Z"}, **links)


def _add_many(memory: Memory, count: int, word: str) -> None:
    with transaction(memory.conn):           # one import: one transaction
        for i in range(count):
            _add(memory, f"{word} item{i}")


@contextmanager
def _traced(memory: Memory, on_statement: Callable[[str], None] | None = None
            ) -> Iterator[list[str]]:
    """The SQL statements the memory's connection starts meanwhile (SQLite calls back as each
    one begins, before it reads anything)."""
    seen: list[str] = []

    def record(sql: str) -> None:
        seen.append(sql)
        if on_statement is not None:
            on_statement(sql)

    memory.conn.set_trace_callback(record)
    try:
        yield seen
    finally:
        memory.conn.set_trace_callback(None)


# -- the dense columns by event id --------------------------------------------------------------

def test_the_columns_grow_by_a_quarter_and_at_least_1024_ids(memory: Memory) -> None:
    """The columns (length, in_fts, absorbed, domain) are arrays indexed by event id. An import
    adds ids one after the other; if each new id past the end grew them to exactly that id,
    every event would copy all four arrays (quadratic). So they start with room for 1,024 ids
    and each growth adds a quarter of their size plus 1,024."""
    for title in ("the harbour at dawn", "my brother called", "rain on the roof"):
        _add(memory, title)
    cache = PostingsCache()
    postings = cache.get(memory.conn)
    size = postings.length.shape[0]
    assert size >= 1024                         # a small memory has room before any copy
    for _ in range(3):                          # ids just past the end, three times
        event_id = size
        assert _add(memory, f"lantern {event_id}", event_id=event_id) == event_id
        assert cache.get(memory.conn) is postings          # refreshed in place
        grown = postings.length.shape[0]
        assert grown - size >= max(size // 4, 1024), (size, grown)
        assert all(getattr(postings, name).shape[0] == grown
                   for name in ("in_fts", "absorbed", "domain"))
        assert postings.search(memory.conn, f"lantern {event_id}", 10) == \
            bm25_search(memory.conn, f"lantern {event_id}", 10)
        size = grown


def test_events_added_one_at_a_time_copy_the_columns_rarely(memory: Memory) -> None:
    """60 events imported one by one across the first size (ids 990-1049): the columns are
    copied once, where the ids pass 1,024, not once per event."""
    for title in ("the harbour at dawn", "my brother called", "rain on the roof"):
        _add(memory, title)
    cache = PostingsCache()
    postings = cache.get(memory.conn)
    arrays = [postings.length]                  # kept alive: a new array is a new object
    for event_id in range(990, 1050):
        _add(memory, f"harbour lantern {event_id}", event_id=event_id)
        assert cache.get(memory.conn) is postings
        if postings.length is not arrays[-1]:
            arrays.append(postings.length)
    assert len(arrays) - 1 <= 1, [a.shape[0] for a in arrays]
    assert postings.search(memory.conn, "harbour", 100) == bm25_search(memory.conn, "harbour",
                                                                      100)


# -- the cache of word postings ------------------------------------------------------------------

class _SmallCache(Postings):
    """The same postings with room for 20 cached postings instead of 20 million, so a test
    can fill it with a handful of events."""

    CACHE_ENTRIES = 20


def test_a_word_whose_postings_fit_is_never_read_again(memory: Memory) -> None:
    """A conversation reuses its words, so a word's postings are read once and kept while the
    cache has room. The room is counted in postings: when an event is added, a cached word's
    count grows by the postings it gained — not by all of them again — so ten events later the
    three words (13 + 3 + 1 postings) still fit in 20 and none is read again."""
    for title in ("alpha", "alpha", "alpha", "beta", "beta", "beta", "gamma"):
        _add(memory, title)
    postings = _SmallCache(memory.conn)
    with _traced(memory) as first:
        postings.search(memory.conn, "alpha", 10)
        postings.search(memory.conn, "beta", 10)
    assert sum(POSTINGS_READ in sql for sql in first) == 2
    for _ in range(10):                         # each refresh replaces alpha's postings
        _add(memory, "alpha")
        postings.refresh(memory.conn, changes_since(memory.conn, postings.rev))
    with _traced(memory) as reads:
        postings.search(memory.conn, "gamma", 10)          # a new word: read once
        again = postings.search(memory.conn, "alpha beta gamma", 20)
    assert sum(POSTINGS_READ in sql for sql in reads) == 1, reads
    assert again == bm25_search(memory.conn, "alpha beta gamma", 20)
    assert len(again) == 17


# -- refresh or rebuild --------------------------------------------------------------------------

def _two_caches(memory: Memory) -> tuple[PostingsCache, PostingsCache]:
    first, second = PostingsCache(), PostingsCache()
    first.get(memory.conn), second.get(memory.conn)
    return first, second


def test_up_to_1000_changed_events_refresh_in_place_and_more_rebuild(memory: Memory) -> None:
    """Replaying the change log event by event is cheaper than reading every posting again
    only up to a point: up to 1,000 changed events (or a quarter of the rows, when that is
    more) the postings are refreshed in place; past it they are rebuilt. A small memory: the
    limit is 1,000 exactly."""
    for title in ("the harbour at dawn", "my brother called", "rain on the roof"):
        _add(memory, title)
    at_limit, past_limit = _two_caches(memory)
    kept = at_limit.get(memory.conn), past_limit.get(memory.conn)
    _add_many(memory, 1000, "lantern")
    assert at_limit.get(memory.conn) is kept[0]             # 1,000 changed: refreshed
    _add(memory, "one lantern more")
    assert past_limit.get(memory.conn) is not kept[1]       # 1,001 changed: rebuilt
    for cache in (at_limit, past_limit):
        assert cache.get(memory.conn).search(memory.conn, "lantern", 5) == \
            bm25_search(memory.conn, "lantern", 5)


def test_a_larger_memory_refreshes_up_to_a_quarter_of_its_rows(memory: Memory) -> None:
    """4,004 rows: a quarter is 1,001, above the floor of 1,000 — 1,001 changed events are
    replayed in place, 1,002 rebuild."""
    _add_many(memory, 4004, "harbour")
    at_limit, past_limit = _two_caches(memory)
    kept = at_limit.get(memory.conn), past_limit.get(memory.conn)
    _add_many(memory, 1001, "lantern")
    assert at_limit.get(memory.conn) is kept[0]             # 1,001 = 4,004 / 4: refreshed
    _add(memory, "one lantern more")
    assert past_limit.get(memory.conn) is not kept[1]       # 1,002: rebuilt
    assert at_limit.get(memory.conn).search(memory.conn, "lantern item7", 5) == \
        bm25_search(memory.conn, "lantern item7", 5)


# -- another connection writing while the postings are built -------------------------------------

def _imported_past_the_first_size(memory: Memory) -> None:
    """A memory whose ids reach 1,500 (an import that kept its ids): the columns are sized to
    exactly 1,501 ids at first, so the next id is already past their end."""
    for event_id, title in ((1, "the harbour at dawn"), (2, "my brother called"),
                            (1500, "rain on the harbour roof")):
        _add(memory, title, event_id=event_id)


def _race(memory: Memory, db_path: Path, statement: str) -> int:
    """Build the postings while another connection to the same file adds an event just as the
    build starts `statement` (after it read the newest id); returns that event's id."""
    other = Memory.open(db_path)
    added: list[int] = []

    def write_meanwhile(sql: str) -> None:
        if statement in sql and not added:
            added.append(_add(other, "a lantern written meanwhile"))

    try:
        cache = PostingsCache()
        with _traced(memory, write_meanwhile):
            cache.get(memory.conn)
        assert added == [1501]
        # the build kept the revision it started from: the next query takes the event in
        postings = cache.get(memory.conn)
        assert postings.search(memory.conn, "lantern", 10) == \
            bm25_search(memory.conn, "lantern", 10) != []
        assert postings.search(memory.conn, "harbour", 10) == \
            bm25_search(memory.conn, "harbour", 10)
    finally:
        other.close()
    return added[0]


def test_an_event_added_before_the_row_lengths_are_read(memory: Memory, db_path: Path) -> None:
    _imported_past_the_first_size(memory)
    _race(memory, db_path, "FROM events_fts_docsize")


def test_an_event_added_before_the_events_flags_are_read(memory: Memory, db_path: Path) -> None:
    _imported_past_the_first_size(memory)
    _race(memory, db_path, "absorbed_into IS NOT NULL OR archived")


# -- an edit that keeps the words ------------------------------------------------------------------

WORDS_READ = "SELECT id, title, description FROM events"


def test_an_edit_that_keeps_the_words_reads_no_words_again(memory: Memory) -> None:
    """Pinning an event changes its row, not its words: the refresh reads the event's flags
    and leaves its postings as they are; a new wording is read."""
    first = _add(memory, "the lighthouse keeper's daughter")
    _add(memory, "a letter from the lighthouse")
    postings = Postings(memory.conn)
    memory.pin(first)
    pinned = changes_since(memory.conn, postings.rev)
    assert pinned.rows and not pinned.text
    with _traced(memory) as statements:
        postings.refresh(memory.conn, pinned)
    assert not [sql for sql in statements if WORDS_READ in sql], statements
    assert postings.search(memory.conn, "lighthouse", 5) == \
        bm25_search(memory.conn, "lighthouse", 5)
    memory.edit_event_text(first, title="the harbour keeper")      # a new version, new words
    reworded = changes_since(memory.conn, postings.rev)
    assert reworded.text
    with _traced(memory) as statements:
        postings.refresh(memory.conn, reworded)
    assert [sql for sql in statements if WORDS_READ in sql]
    assert postings.search(memory.conn, "harbour", 5) == bm25_search(memory.conn, "harbour", 5) != []
