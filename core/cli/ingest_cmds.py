"""Ingest commands: import (every format), models check."""

from __future__ import annotations

import argparse

from core.cli.output import emit
from core.errors import PulseError
from core.memory import Memory, default_db_path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="ingest files (format auto-detected)")
    p.add_argument("files", nargs="+")
    p.add_argument("--format", default="auto",
                   choices=("auto", "corpus", "chat", "chatgpt", "claude", "text", "obsidian"))
    p.add_argument("--extractor", default="offline", help="offline, or a model alias")
    p.set_defaults(handler=cmd_import)


def cmd_import(args: argparse.Namespace) -> int:
    if args.format not in ("auto", "corpus"):
        raise PulseError(f"format {args.format!r} is not available yet (pulse-corpus/1 only)")
    results = []
    with Memory.open(args.db or default_db_path(), create=True) as memory:
        for name in args.files:
            results.append({"file": name, **memory.import_corpus(name)})
    emit(args, results[0] if len(results) == 1 else {"files": results})
    return 0
