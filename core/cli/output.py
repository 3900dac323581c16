"""Printing helpers shared by the command modules."""

from __future__ import annotations

import json
import sys
from typing import Any


def emit(args: Any, data: Any, human: str | None = None) -> None:
    """JSON with --json (or when no human form exists), else the human form."""
    if args.json or human is None:
        print(json.dumps(data, ensure_ascii=False, indent=None if args.json else 2))
    else:
        print(human)


class Progress:
    """A one-line progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, label: str, stream: Any = None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self.done = self.total = 0
        self.percent = -1

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total, self.percent = done, total, -1
        self._draw("")
        if self.enabled and total > 0 and done >= total:
            self.stream.write("\n")
            self.stream.flush()

    def preparing(self, share: float) -> None:
        """How far the batch after `done` is prepared: one long message takes seconds, and the
        line moves while it does."""
        percent = min(99, int(100 * share))
        if self.done < self.total and percent != self.percent:
            self.percent = percent
            self._draw(f" (preparing {percent:2d} %)")

    def _draw(self, suffix: str) -> None:
        if not self.enabled or self.total <= 0:
            return
        width = 30
        filled = int(width * self.done / self.total)
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}]"
                          f" {self.done}/{self.total}{suffix}\033[K")
        self.stream.flush()
