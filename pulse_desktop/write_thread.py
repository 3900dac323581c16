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


def write_beliefs(session: Any, items: list[tuple[str, int]], fields: dict[str, Any] | None,
                  label: str, *, pin: bool = False,
                  refused_now: Callable[[str], None],
                  on_done: Callable[[], None] | None = None,
                  on_failed: Callable[[str], None] | None = None) -> bool:
    """One undoable belief edit over events and/or facts ((kind, id) pairs), written on the
    writer thread — the Beliefs table's editors, its bulk menus, the Floor… dialog and the
    navigator's menus all come here. False (and refused_now(text)) when it is refused at once:
    the memory is read-only, or, with no other write in flight, the rows as they are now break
    a rule (reads only). Else True: on the UI thread later, either the undo step is pushed, the
    status bar says `label` and on_done() runs, or on_failed(text) runs (the writer met a
    refusal: an earlier edit still in flight changed the row; nothing was written)."""
    from core.errors import PulseError
    from pulse_desktop.undo_commands import apply_edit, check_edit, push_applied

    if session.read_only:
        refused_now(session.read_only_reason or "This memory is open read-only.")
        return False
    items = [(str(k), int(i)) for k, i in items]
    if not items:
        return False
    if not session.writes_in_flight:
        # With nothing in flight the rows read now are the rows the writer will see: a
        # refusal is said at once (the writer checks again as it writes).
        try:
            check_edit(session.require(), items, fields, pin=pin)
        except PulseError as exc:
            refused_now(str(exc))
            return False
    path = session.path

    def done(result: dict[str, Any]) -> None:
        if session.path == path:      # (not another memory opened meanwhile)
            push_applied(session, result["applied"], fields, label, pin=pin)
            session.message.emit(label)
        if on_done is not None:
            on_done()

    def failed(text: str) -> None:
        if on_failed is not None:
            on_failed(text)

    run_write(session, lambda memory: apply_edit(memory, items, fields, pin=pin), done, failed)
    return True
