"""Ingest commands: `pulse import` (every format) and `pulse models check ALIAS`."""

from __future__ import annotations

import argparse

from core.cli.engine_cmds import open_memory
from core.cli.output import Progress, emit
from core.errors import PulseError
from core.memory import Memory


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="ingest files (format auto-detected)")
    p.add_argument("files", nargs="+")
    p.add_argument("--format", default="auto",
                   choices=("auto", "corpus", "chat", "chatgpt", "claude", "text", "obsidian"))
    p.add_argument("--extractor", default="offline", help="offline, or a model alias")
    p.set_defaults(handler=cmd_import)

    models = sub.add_parser("models", help="the model router (models.json)")
    msub = models.add_subparsers(dest="models_command", metavar="ACTION")
    msub.required = True
    check = msub.add_parser("check", help="smoke one model alias end to end")
    check.add_argument("alias")
    check.add_argument("--prompt", default="respond with ok")
    check.set_defaults(handler=cmd_models_check)


def cmd_import(args: argparse.Namespace) -> int:
    with open_memory(args, create=True) as memory:
        formats = [args.format if args.format != "auto" else memory.detect_format(f)
                   for f in args.files]
        if all(f == "corpus" for f in formats):
            # the pulse-corpus/1 contract: {"keys": {...}, ...} for one file
            results = [{"file": name, **memory.import_corpus(name)} for name in args.files]
            emit(args, results[0] if len(results) == 1 else {"files": results})
            return 0
        progress = Progress("import")
        summary = memory.import_files(args.files, fmt=args.format,
                                      extractor=args.extractor, progress=progress)
    emit(args, summary)
    return 0


def cmd_models_check(args: argparse.Namespace) -> int:
    result = Memory.check_model(args.alias, prompt=args.prompt)
    emit(args, result)
    if not result.get("ok"):
        raise PulseError(f"model {args.alias!r}: {result.get('error', 'no answer')}")
    return 0
