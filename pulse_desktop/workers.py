"""Long work off the UI thread: QRunnable jobs on the global QThreadPool with progress, cancel
and done/failed signals. Each job opens its own Memory (SQLite connections stay in one thread)."""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from core.errors import PulseError


class JobSignals(QObject):
    progress = Signal(int, int)   # done, total
    done = Signal(object)         # the job's result
    failed = Signal(str)          # one clear line for the user


class Job(QRunnable):
    """Runs fn(progress, cancel) in the pool. cancel is a threading.Event the fn checks."""

    def __init__(self, fn: Callable[[Callable[[int, int], None], threading.Event], Any]) -> None:
        super().__init__()
        self.fn = fn
        self.cancel = threading.Event()
        self.signals = JobSignals()
        self.setAutoDelete(False)

    def run(self) -> None:
        try:
            result = self.fn(self.signals.progress.emit, self.cancel)
        except PulseError as exc:
            self.signals.failed.emit(str(exc))
        except OSError as exc:      # a path the person chose, a full disk: theirs to fix
            self.signals.failed.emit(os_error_line(exc))
        except Exception as exc:  # a bug: say so rather than crash the app
            traceback.print_exc()
            self.signals.failed.emit(f"unexpected error: {type(exc).__name__}: {exc}")
        else:
            self.signals.done.emit(result)


def os_error_line(exc: OSError) -> str:
    """'/x/y: No such file or directory' rather than 'unexpected error: … [Errno 2] …'; a job
    may read or write, so the line names the file and the system's reason, nothing more."""
    reason = exc.strerror or str(exc)
    return f"{exc.filename}: {reason}" if exc.filename else reason


def start(job: Job) -> Job:
    QThreadPool.globalInstance().start(job)
    return job
