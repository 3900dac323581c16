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

    def __init__(self, label: str) -> None:
        self.label = label
        self.enabled = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        width = 30
        filled = int(width * done / total)
        sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()
