"""Export commands: `pulse export-html` (the standalone graph viewer, APP.md §2)."""

from __future__ import annotations

import argparse

from core.cli.engine_cmds import open_memory
from core.cli.output import emit
from core.memory import Memory


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export-html", help="write the standalone, offline graph viewer (one HTML file)")
    p.add_argument("--out", required=True, metavar="FILE", help="the HTML file to write")
    p.add_argument("--domains", help="comma-separated domains to include (default: all)")
    p.add_argument("--redact", nargs="?", const="no-event-text", default="names",
                   metavar="LEVEL",
                   help="names (default: names per each person's policy) | no-event-text "
                        "(also no event description or source text; the level without "
                        "LEVEL) | titles-only (names and titles only)")
    p.add_argument("--lock", action="store_true",
                   help="write a page holding only ciphertext, opened with a passphrase in "
                        "the browser ($PULSE_VIEWER_PASSPHRASE, else asked twice)")
    p.add_argument("--no-events", dest="include_events", action="store_false",
                   help="entities only (events still listed in each entity's panel)")
    p.add_argument("--seed", type=int, default=7, help="layout seed (default 7)")
    p.set_defaults(handler=cmd_export_html)


def cmd_export_html(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as memory:
        lock = None
        if args.lock:
            lock = Memory.passphrase_prompt(args.out, env="PULSE_VIEWER_PASSPHRASE",
                                            confirm=True, what="viewer passphrase")()
        summary = memory.export_html(args.out, domains=args.domains or None,
                                     redact=args.redact, include_events=args.include_events,
                                     seed=args.seed, lock=lock)
    withheld = summary.get("withheld", {}).get("events_behind_boundaries")
    emit(args, summary, f"wrote {summary['path']}: {summary['nodes']} nodes, "
                        f"{summary['edges']} edges, {summary['bytes'] / 1e6:.1f} MB "
                        f"in {summary['seconds']:.2f} s · redaction {summary['redaction']}"
                        + (" · locked" if summary["locked"] else "")
                        + (f" · {withheld} events behind a boundary left out" if withheld
                           else ""))
    return 0
