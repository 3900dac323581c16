"""Work off the UI thread for the views: ``run_job`` (a workers.Job whose callbacks arrive on
the UI thread) and ``run_query`` (a read-only query on one long-lived thread that keeps its own
Memory, so the embedder and the vector index stay warm between queries; SQLite connections
never cross threads)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, Slot

from pulse_desktop import workers

_memories: dict[int, tuple[Any, tuple]] = {}   # OS thread id → (Memory, stamp)
_query_pool: QThreadPool | None = None
_live: set[Any] = set()   # jobs and relays in flight (kept alive until they report)


def one_thread_pool() -> QThreadPool:
    """A pool of one thread that never expires (its thread's Memory stays open)."""
    pool = QThreadPool()
    pool.setMaxThreadCount(1)
    pool.setExpiryTimeout(-1)
    return pool


def query_pool() -> QThreadPool:
    """One long-lived thread for read-only queries: its Memory and vector index stay warm."""
    global _query_pool
    if _query_pool is None:
        _query_pool = one_thread_pool()
    return _query_pool


def thread_memory(path: str | Path, *, read_only: bool = True):
    """This thread's Memory on `path`, read-only unless asked (reopened when the path or file
    changes).

    Kept by the OS thread's id, not in a threading.local: a QThreadPool thread is not made by
    Python, so its Python thread state — and a threading.local with it — is dropped when each
    job returns. The Memory (and its vector index) was then opened again for every query: a
    full index load per question, 4 s of CPU at 100k events (bench/desktop_responsiveness.py).
    """
    from core.memory import Memory

    path = Path(path)
    try:
        stamp = (str(path.resolve()), path.stat().st_ino, read_only)
    except OSError:
        stamp = (str(path), None, read_only)
    ident = threading.get_ident()
    cached, cached_stamp = _memories.get(ident, (None, None))
    if cached is not None and cached_stamp == stamp:
        return cached
    if cached is not None:
        try:
            cached.close()
        except Exception:  # noqa: BLE001
            pass
        _memories.pop(ident, None)
    memory = Memory.open(path, read_only=read_only)
    _memories[ident] = (memory, stamp)
    return memory


class _Relay(QObject):
    """Lives in the UI thread, so the job's cross-thread signals arrive queued on it."""

    def __init__(self, job: workers.Job, on_done: Callable[[Any], None],
                 on_failed: Callable[[str], None],
                 on_progress: Callable[[int, int], None] | None) -> None:
        super().__init__()
        self.job = job
        self._done, self._failed, self._progress = on_done, on_failed, on_progress
        job.signals.done.connect(self.done)
        job.signals.failed.connect(self.failed)
        job.signals.progress.connect(self.progress)

    @Slot(object)
    def done(self, result: Any) -> None:
        _live.discard(self)
        self._done(result)

    @Slot(str)
    def failed(self, text: str) -> None:
        _live.discard(self)
        self._failed(text)

    @Slot(int, int)
    def progress(self, done: int, total: int) -> None:
        if self._progress is not None:
            self._progress(done, total)


def run_job(fn: Callable[[Callable[[int, int], None], threading.Event], Any],
            on_done: Callable[[Any], None], on_failed: Callable[[str], None],
            on_progress: Callable[[int, int], None] | None = None,
            pool: QThreadPool | None = None, priority: int = 0) -> workers.Job:
    """Start fn(progress, cancel) as a workers.Job; callbacks run on the UI thread. Among the
    jobs waiting in `pool`, a higher priority starts first."""
    job = workers.Job(fn)
    relay = _Relay(job, on_done, on_failed, on_progress)
    _live.add(relay)
    if pool is None:
        workers.start(job)
    else:
        pool.start(job, priority)
    return job


# The ranks a person is waiting for go ahead of the other reads queued on the query thread (a
# storyline for the detail panel, an Explain, the compared list): at 100k events each of those
# is a query of its own, and a pin's new ranks used to wait behind them.
URGENT = 1


def run_query(path: str | Path, fn: Callable[[Any], Any], on_done: Callable[[Any], None],
              on_failed: Callable[[str], None], *, priority: int = 0) -> workers.Job:
    """fn(memory) on the query thread's own read-only Memory (URGENT jumps the queue)."""
    return run_job(lambda progress, cancel: fn(thread_memory(path)), on_done, on_failed,
                   pool=query_pool(), priority=priority)


