"""Reading the views' rows off the UI thread.

Opening a 100k-event memory used to read every row of the Beliefs table, the navigator's lists
and the timeline's dots on the UI thread: 13–16 s with the window frozen
(bench/desktop_open.py). Those reads now run on one long-lived reader thread with its own
read-only Memory (the query thread's pattern, pulse_desktop/query_thread.py); the window shows
at once and each view fills in as its rows arrive, in chunks, with the progress in the status
bar (`session.reading`) and a way to stop (closing the memory cancels every read).

A memory small enough to read in a blink (≤ INLINE_ROWS rows) is read on the UI thread, at
once, as before: no "Reading…" flash, and the views are full when `open` returns.

The reader thread runs almost no Python per row for the table: `fetchmany` builds sqlite3.Row
objects in C and releases the GIL around every SQLite step, so the UI thread gets the GIL
whenever it needs it. Python work per row on the reader (the navigator's texts, the timeline's
dots) is `paced`: 2 ms of work, then 2 ms asleep. With two threads wanting the GIL, each of the
UI thread's calls into Python otherwise waits up to the interpreter's 5 ms switch interval: a
repaint of the table took 3.3× its time beside a busy Python thread, and 1.1–1.4× beside one
paced like this (bench/desktop_open.py measures the stalls).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, Signal, Slot

from pulse_desktop.query_thread import one_thread_pool, run_job, thread_memory

INLINE_ROWS = 5000        # up to this many rows, read on the UI thread at once
FIRST_CHUNK = 500         # the first rows show as soon as they are read
CHUNK = 20000             # then this many per hand-over: each costs the UI thread the rows'
                          # filter and a relayout of the table (~40–70 ms at 100k, whatever
                          # its size), so few and large (bench/desktop_open.py)
SLICE_S = 0.002           # Python work on the reader thread, in slices of this long…
PAUSE_S = 0.002           # …each followed by this long asleep (the GIL, above)

_read_pool: QThreadPool | None = None


def read_pool() -> QThreadPool:
    """One thread for the views' reads (not the query thread: a question must not wait
    behind 100k rows, nor the rows behind a question)."""
    global _read_pool
    if _read_pool is None:
        _read_pool = one_thread_pool()
    return _read_pool


def memory_rows(memory: Any, tables: tuple[str, ...] = ("events", "facts")) -> int:
    """An upper bound of the rows in these tables, at no cost (the largest id)."""
    total = 0
    for table in tables:
        total += int(memory.conn.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}")
                     .fetchone()[0])
    return total


def chunks(cursor: Any, cancel: threading.Event):
    """A cursor's rows in chunks (FIRST_CHUNK, then CHUNK) until done or cancelled."""
    size = FIRST_CHUNK
    while not cancel.is_set():
        rows = cursor.fetchmany(size)
        if not rows:
            return
        yield rows
        size = CHUNK


def paced(items):
    """Iterate, sleeping PAUSE_S after every SLICE_S of the loop's work, so Python work per row
    on the reader thread leaves the GIL to the UI thread half the time (on the UI thread
    itself — a small memory read inline — it does not wait)."""
    if threading.current_thread() is threading.main_thread():
        yield from items
        return
    clock = time.perf_counter
    until = clock() + SLICE_S
    for item in items:
        yield item
        if clock() >= until:
            time.sleep(PAUSE_S)
            until = clock() + SLICE_S


# read(memory, send, cancel) → result: send(rows) hands one chunk to the UI thread
Reader = Callable[[Any, Callable[[Any], None], threading.Event], Any]


class ViewRead(QObject):
    """One view's reads: at most one in flight; starting another (the view's reload when
    a memory is opened or closed, say) drops the older one (its chunks and result are ignored, its job is cancelled).
    `total` is what the progress counts against (rows, an upper bound is fine)."""

    _chunk = Signal(int, object)      # (generation, rows), from the reader thread

    def __init__(self, session: Any, what: str, parent: QObject | None = None, *,
                 quiet: bool = False) -> None:
        super().__init__(parent)
        self.session = session
        self.what = what              # what the status bar says is being read
        self.quiet = quiet            # one short read (a count): no progress shown
        self.generation = 0
        self.job = None
        self.busy = False
        self.read_on: int | None = None   # the thread that read last (tests: not the UI's)
        self._on_chunk: Callable[[Any], None] | None = None
        self._size: Callable[[Any], int] = len
        self._counted = 0
        self._total = 0
        self._chunk.connect(self._chunk_arrived)

    def cancel(self) -> None:
        self.generation += 1
        if self.job is not None:
            self.job.cancel.set()
            self.job = None
        if self.busy:
            self.busy = False
            self._say(0, 0)

    def start(self, read: Reader, on_chunk: Callable[[Any], None],
              on_done: Callable[[Any], None], *, total: int,
              on_failed: Callable[[str], None] | None = None,
              size: Callable[[Any], int] = len, priority: int = 0) -> None:
        """Run read(memory, send, cancel): on the UI thread now when total ≤ INLINE_ROWS,
        else on the reader thread (on_chunk and on_done run on the UI thread later); the
        progress counts size(chunk) rows per chunk sent. Among reads waiting for the reader
        thread, a higher priority goes first."""
        self.cancel()
        memory = self.session.memory
        if memory is None:
            return
        if total <= INLINE_ROWS:
            self.read_on = threading.get_ident()
            on_done(read(memory, on_chunk, threading.Event()))
            return
        generation = self.generation
        path = memory.path
        self._on_chunk, self._size, self._counted, self._total = on_chunk, size, 0, total
        self.busy = True
        self._say(0, total)

        def work(_progress, cancel: threading.Event) -> Any:
            self.read_on = threading.get_ident()
            return read(thread_memory(path), lambda rows: self._chunk.emit(generation, rows),
                        cancel)

        def done(result: Any) -> None:
            if generation != self.generation:
                return
            self.job = None
            self.busy = False
            self._say(self._counted, self._counted)
            on_done(result)

        def failed(text: str) -> None:
            if generation != self.generation:
                return
            self.job = None
            self.busy = False
            self._say(0, 0)
            self.session.message.emit(f"Could not read the {self.what}: {text}")
            if on_failed is not None:
                on_failed(text)

        self.job = run_job(work, done, failed, pool=read_pool(), priority=priority)

    @Slot(int, object)
    def _chunk_arrived(self, generation: int, rows: Any) -> None:
        if generation != self.generation or self._on_chunk is None:
            return
        self._on_chunk(rows)
        self._counted += self._size(rows)
        self._say(self._counted, max(self._total, self._counted))

    def _say(self, done: int, total: int) -> None:
        if not self.quiet:
            self.session.reading.emit(self.what, done, total)
