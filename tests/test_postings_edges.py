"""The lexical channel's BM25 postings (core/scoring/postings.py) at their edges: a word in
exactly half the rows (idf exactly 0, which FTS5 floors), events whose ids lie past the end of
the postings' dense arrays when they are written, and postings listed out of doc order. Real
SQLite files and FTS5's own bm25() as the oracle."""

from __future__ import annotations

import sqlite3

from core.memory import Memory
from core.scoring.lexical import bm25_search
from core.scoring.postings import Postings, PostingsCache, _read_postings
from core.store import records


def _add(memory: Memory, title: str, day: int, **links) -> int:
    return records.add_event(memory.conn, actor="import",
                             fields={"title": title, "ts": f"2026-10-{day:02d}T10:00:00Z"},
                             **links)


def test_a_word_in_exactly_half_the_rows_is_found_as_fts5_finds_it(memory: Memory) -> None:
    """With n = N/2 rows holding a word, log((N − n + 0.5)/(n + 0.5)) is exactly 0; FTS5
    floors it at 1e-6 (`idf <= 0`), so the rows still match with a small positive score. At 0
    their score would be 0 and the postings would drop them, unlike bm25()."""
    for day, text in enumerate(["the harbour at dawn", "a storm over the harbour",
                                "my brother called", "rain on the roof"], start=1):
        _add(memory, text, day)
    postings = Postings(memory.conn)
    got = postings.search(memory.conn, "harbour", 10)
    assert got == bm25_search(memory.conn, "harbour", 10)
    assert len(got) == 2 and all(score > 0 for _, score in got)
    # beside a word that scores normally, the half-the-rows word still adds its part
    both = postings.search(memory.conn, "harbour brother", 10)
    assert both == bm25_search(memory.conn, "harbour brother", 10)
    assert len(both) == 3


def test_events_past_the_end_of_the_arrays_are_read_in_place(memory: Memory) -> None:
    """The postings keep dense arrays by event id, sized when first read (a memory of a few
    events: 1,024 ids). Events written later with ids past that end — one at a time, each
    beside an edit of an old event in the same refresh — must grow them, not fail: each new
    event is found at once, and every answer equals FTS5's bm25()."""
    for day, text in enumerate(["the harbour at dawn", "my brother called",
                                "rain on the roof"], start=1):
        _add(memory, text, day)
    cache = PostingsCache()
    first = cache.get(memory.conn)
    assert first.search(memory.conn, "harbour", 10) == bm25_search(memory.conn, "harbour", 10)
    floors = [0.0, 0.1]
    for event_id in range(1000, 1050):        # across the first size, an id at a time
        records.set_belief(memory.conn, 1, actor="manual",
                           confidence_floor=floors[event_id % 2])
        assert _add(memory, f"lantern {event_id} over the harbour", 3,
                    event_id=event_id) == event_id
        postings = cache.get(memory.conn)
        assert postings is first                   # refreshed in place, not rebuilt
        for query in ("harbour", f"lantern {event_id}", "brother harbour"):
            got = postings.search(memory.conn, query, 100)
            assert got == bm25_search(memory.conn, query, 100), (event_id, query)
        assert event_id in [doc for doc, _ in postings.search(memory.conn, "lantern", 100)]


def test_postings_out_of_doc_order_keep_every_doc_once() -> None:
    """fts5vocab lists a term's occurrences in doc order; should it ever not, the postings
    are still each doc once, ascending, with all its occurrences: two docs reversed, and a
    later doc below an earlier one where none is below the first."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TEMP TABLE pulse_fts_instance (term TEXT, doc INTEGER)")
    conn.executemany("INSERT INTO pulse_fts_instance VALUES (?, ?)",
                     [("ebb", d) for d in (7, 2)] + [("swell", d) for d in (1, 5, 3, 5)]
                     + [("calm", d) for d in (4, 4, 9)] + [("still", 6)])
    expected = {"ebb": ([2, 7], [1.0, 1.0]), "swell": ([1, 3, 5], [1.0, 1.0, 2.0]),
                "calm": ([4, 9], [2.0, 1.0]), "still": ([6], [1.0])}
    for term, (docs, counts) in expected.items():
        got_docs, got_counts = _read_postings(conn, term)
        assert (got_docs.tolist(), got_counts.tolist()) == (docs, counts), term


def test_long_events_have_their_length_read_as_fts5_reads_it(memory: Memory) -> None:
    """An event's length D comes from FTS5's docsize blob, one varint per column: 7 bits a
    byte, so a column of 128 tokens or more takes two bytes (16,384 or more, three). BM25
    divides by D over its mean, so a long event read with the wrong length scores differently
    from bm25() — and so do the short ones beside it, through the mean."""
    words = "harbour lantern brother rain roof tide rope gull stone path".split()
    for day, size in enumerate((3, 127, 128, 300, 20_000), start=1):
        text = " ".join(words[(day + i) % len(words)] for i in range(size))
        records.add_event(memory.conn, actor="import",
                          fields={"title": f"night {day}", "description": text,
                                  "ts": f"2026-10-{day:02d}T10:00:00Z"})
    postings = Postings(memory.conn)
    for query in ("harbour", "lantern gull", "night", "stone path rope"):
        got = postings.search(memory.conn, query, 10)
        assert got == bm25_search(memory.conn, query, 10), query
        assert len(got) >= 3, query


def test_the_limit_and_a_one_event_memory_answer_as_bm25_does(memory: Memory) -> None:
    """search() returns the `limit` best, as bm25() with LIMIT: none for 0, the best for 1;
    and a memory of one event finds it."""
    _add(memory, "the harbour at dawn", 1)
    alone = Postings(memory.conn)
    assert alone.search(memory.conn, "harbour", 5) == bm25_search(memory.conn, "harbour", 5)
    assert len(alone.search(memory.conn, "harbour", 5)) == 1
    for day, text in enumerate(["a storm over the harbour", "the harbour wall, the harbour",
                                "rain on the roof"], start=2):
        _add(memory, text, day)
    postings = Postings(memory.conn)
    assert postings.search(memory.conn, "harbour", 0) == []
    best = postings.search(memory.conn, "harbour", 1)
    assert best == bm25_search(memory.conn, "harbour", 1) and len(best) == 1


def test_an_event_far_past_the_end_of_the_arrays_is_read_in_place(memory: Memory) -> None:
    """An id far beyond the arrays' size (an import from another memory keeps its ids) must
    grow them to that id at once, not by their usual step."""
    for day, text in enumerate(["the harbour at dawn", "my brother called"], start=1):
        _add(memory, text, day)
    cache = PostingsCache()
    first = cache.get(memory.conn)
    assert _add(memory, "a lantern over the harbour", 3, event_id=50_000) == 50_000
    postings = cache.get(memory.conn)
    assert postings is first                       # refreshed in place, not rebuilt
    got = postings.search(memory.conn, "lantern harbour", 10)
    assert got == bm25_search(memory.conn, "lantern harbour", 10)
    assert got[0][0] == 50_000


def test_the_tokenizer_made_on_one_thread_serves_another() -> None:
    """The app reads and ranks on worker threads (pulse_desktop's reader and query workers):
    FTS5's tokenizer, made once by whichever thread first asked, must serve the others."""
    import threading

    from core.scoring.postings import Tokenizer

    tokenizer = Tokenizer()
    assert tokenizer.word("harbours") == ("harbour",)
    got: list = []
    worker = threading.Thread(target=lambda: got.append(
        (tokenizer.word("lanterns"), tokenizer.terms([(1, "the harbour", "rain, rain")]))))
    worker.start()
    worker.join()
    assert got == [(("lantern",), {1: {"harbour": 1, "rain": 2, "the": 1}})]
