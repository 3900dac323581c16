"""Writes off the UI thread. At 100k events a pin is a few milliseconds of SQLite work, but the
UI thread must never wait on the file: another program (the companion through `pulse mcp`, an
import) may hold the write lock, and a commit may run a WAL checkpoint. So the Beliefs table's
edits run on one long-lived writer thread with its own writable Memory (SQLite connections never
cross threads), in the order they were made; the result comes back to the UI thread, which puts
the undo step on the stack and tells the views which rows moved.

The window's own writes from this thread reach its UI connection like another program's would
(SQLite's data_version moves): the journal rows they wrote are recorded in
`session.own_seqs` before the UI hears of them, so live refresh
(pulse_desktop/live_refresh.py) does not reload every view for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QThreadPool

from pulse_desktop import workers
from pulse_desktop.query_thread import one_thread_pool, run_job, thread_memory

_write_pool: QThreadPool | None = None


def write_pool() -> QThreadPool:
    """One thread: writes land in the order they were asked for."""
    global _write_pool
    if _write_pool is None:
        _write_pool = one_thread_pool()
    return _write_pool


def run_write(session: Any, fn: Callable[[Any], dict[str, Any]],
              on_done: Callable[[dict[str, Any]], None],
              on_failed: Callable[[str], None]) -> workers.Job:
    """fn(memory) on the writer thread's writable Memory of the session's file; fn returns a
    dict whose "seqs" are the journal rows it wrote. Callbacks run on the UI thread."""
    path = session.path
    session.writes_in_flight += 1

    def work(_progress, _cancel) -> dict[str, Any]:
        result = fn(thread_memory(path, read_only=False))
        session.own_seqs.update(result.get("seqs") or ())
        return result

    def done(result: dict[str, Any]) -> None:
        session.writes_in_flight -= 1
        on_done(result)

    def failed(text: str) -> None:
        session.writes_in_flight -= 1
        on_failed(text)

    return run_job(work, done, failed, pool=write_pool())
