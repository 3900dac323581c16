"""Live refresh: when another program changes the open memory — the companion remembers
something through `pulse mcp`, a CLI import, a recall is logged — the views show it within
about a second, with no manual reload, and the UI thread never waits on the file.

A watcher thread with its own read-only connection polls `Memory.change_marks()` (the journal
head and the newest recall record: every memory change is a journal row, every logged read a
recall record) every POLL_S. Polling two indexed lookups was chosen over watching the -wal file
by measuring both (bench/live_watch.py, docs/reliability.md §8): equally cheap per check, but the
WAL also moves on checkpoints and on bookkeeping that no view shows, and stops moving once
another program checkpoints and truncates it. When the marks move, the session is told on the
UI thread; refreshes are coalesced to at most one per MIN_GAP_S so an import committing batch
after batch does not redraw every view on every batch.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from core.memory import Memory

POLL_S = 0.4       # how often the watcher thread reads the marks
MIN_GAP_S = 0.8    # at most one refresh per this long (latency stays under POLL_S + MIN_GAP_S)


class ChangeWatcher(QObject):
    """Watches one memory file from a thread; `moved(journal_seq, recall_id)` reaches the UI
    thread whenever the marks change."""

    moved = Signal(int, int)

    def __init__(self, poll_s: float = POLL_S, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.poll_s = poll_s
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None
        self.polls = 0                 # how many times the thread read the marks (for tests)

    def start(self, path: str | Path, marks: tuple[int, int]) -> None:
        self.stop()
        stop = threading.Event()
        thread = threading.Thread(target=self._run, args=(Path(path), marks, stop),
                                  name="pulse-change-watcher", daemon=True)
        self._stop, self._thread = stop, thread
        thread.start()

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._stop = self._thread = None

    def _run(self, path: Path, last: tuple[int, int], stop: threading.Event) -> None:
        memory: Memory | None = None
        try:
            while not stop.wait(self.poll_s):
                try:
                    if memory is None:
                        memory = Memory.open(path, read_only=True)
                    marks = memory.change_marks()
                except Exception:  # the file may be replaced, busy or gone for a moment:
                    # try again on the next tick
                    if memory is not None:
                        memory.close()
                        memory = None
                    continue
                self.polls += 1
                if marks != last:
                    last = marks
                    self.moved.emit(*marks)
        finally:
            if memory is not None:
                memory.close()


class LiveRefresh(QObject):
    """Connects a ChangeWatcher to the session: a move another program made becomes
    session.notify("all") (a memory change) or notify("recalls") (only a logged read)."""

    refreshed = Signal(str)   # what was refreshed ("all" | "recalls"), after the views updated

    def __init__(self, session, poll_s: float = POLL_S, min_gap_s: float = MIN_GAP_S) -> None:
        super().__init__(session)
        self.session = session
        self.min_gap_s = min_gap_s
        self.watcher = ChangeWatcher(poll_s, self)
        self.watcher.moved.connect(self._moved)
        self._pending: set[str] = set()
        self._last_refresh = 0.0
        self._data_version = 0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._flush)
        session.opened.connect(self._opened)
        session.changed.connect(self._own_change)
        self._opened()

    def _opened(self) -> None:
        memory = self.session.memory
        self._pending.clear()
        if memory is None:
            self.watcher.stop()
            return
        self._catch_up(memory)
        self.watcher.start(memory.path, self.session.marks)

    def _catch_up(self, memory) -> None:
        self.session.marks = memory.change_marks()
        self._data_version = memory.data_version()

    def _own_change(self, what: str) -> None:
        # This window's own write moved the marks: record them, so the watcher's report is not
        # taken for another program's change. But only when nobody else committed meanwhile
        # (data_version of our connection moves for every commit but our own): otherwise the
        # other program's change would pass for ours and never be shown. After "all" every
        # view reads everything again (an import's end), whoever wrote: nothing is left to show.
        memory = self.session.memory
        if memory is not None and what == "all":
            self._pending.discard("all")
            self._catch_up(memory)
        elif memory is not None and (memory.data_version() == self._data_version
                                     or self._only_own_writes(memory)):
            self.session.marks = memory.change_marks()
            self._data_version = memory.data_version()

    def _only_own_writes(self, memory) -> bool:
        """Whether every journal row since the marks this window saw was written by its own
        writer thread (pulse_desktop/write_thread.py): then nothing needs re-reading."""
        own = self.session.own_seqs
        if not own:
            return False
        known = self.session.marks[0]
        return all(int(r[0]) in own for r in memory.conn.execute(
            "SELECT seq FROM journal WHERE seq > ?", (known,)))

    def _moved(self, journal_seq: int, recall_id: int) -> None:
        known = getattr(self.session, "marks", (0, 0))
        memory = self.session.memory
        if memory is None or (journal_seq, recall_id) == known:
            return
        if journal_seq != known[0]:
            if self._only_own_writes(memory):        # this window's writer thread: shown
                self.session.marks = (memory.change_marks()[0], known[1])
                self._data_version = memory.data_version()
            else:
                self._pending.add("all")
        if recall_id != known[1]:
            self._pending.add("recalls")
        if not self._pending:
            return
        if self.session.writes_in_flight:
            # one of this window's writes may be the move: decide once it has reported
            self._timer.start(int(self.min_gap_s * 1000))
            return
        wait = self.min_gap_s - (time.monotonic() - self._last_refresh)
        if wait <= 0:
            self._flush()
        elif not self._timer.isActive():
            self._timer.start(int(wait * 1000))

    def _flush(self) -> None:
        memory = self.session.memory
        if not self._pending or memory is None:
            return
        if self.session.writes_in_flight:
            self._timer.start(int(self.min_gap_s * 1000))
            return
        if "all" in self._pending and self._only_own_writes(memory):
            self._pending.discard("all")
            self.session.marks = (memory.change_marks()[0], self.session.marks[1])
            self._data_version = memory.data_version()
            if not self._pending:
                return
        what = "all" if "all" in self._pending else "recalls"
        self._pending.clear()
        self._last_refresh = time.monotonic()
        self.session.notify(what)
        self._catch_up(self.session.memory)     # everything up to here is now shown
        own = "; ".join(self.session.own_work.values())
        self.session.message.emit("A recall was logged" if what != "all" else
                                  f"Updated: {own}" if own else
                                  "Updated: another program changed this memory")
        self.refreshed.emit(what)

    def shutdown(self) -> None:
        self.watcher.stop()
