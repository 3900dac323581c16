"""Export commands: `pulse export-html` (the standalone graph viewer, APP.md §2)."""

from __future__ import annotations

import argparse

from core.cli.engine_cmds import open_memory
from core.cli.output import emit


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export-html", help="write the standalone, offline graph viewer (one HTML file)")
    p.add_argument("--out", required=True, metavar="FILE", help="the HTML file to write")
    p.add_argument("--domains", help="comma-separated domains to include (default: all)")
    p.add_argument("--redact", action="store_true", help="leave observation text out")
    p.add_argument("--no-events", dest="include_events", action="store_false",
                   help="entities only (events still listed in each entity's panel)")
    p.add_argument("--seed", type=int, default=7, help="layout seed (default 7)")
    p.set_defaults(handler=cmd_export_html)


def cmd_export_html(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as memory:
        summary = memory.export_html(args.out, domains=args.domains or None,
                                     redact=args.redact, include_events=args.include_events,
                                     seed=args.seed)
    emit(args, summary, f"wrote {summary['path']}: {summary['nodes']} nodes, "
                        f"{summary['edges']} edges, {summary['bytes'] / 1e6:.1f} MB "
                        f"in {summary['seconds']:.2f} s")
    return 0
