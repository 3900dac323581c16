"""The recall log from the terminal: what the companion recalled, when, for which question.

    pulse recalls [--since ISO|7d|12h] [--event EVENT] [--limit N] [--json]
    pulse recalls show ID [--json]
    pulse recalls settings [--on | --off] [--retention DAYS] [--json]

`pulse retrieve --log` (engine_cmds) and the MCP server's recall, brief and get_event write it.
"""

from __future__ import annotations

import argparse
from typing import Any

from core.cli.engine_cmds import open_memory
from core.cli.output import emit


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("recalls", help="the recall log: what was recalled, when, for which "
                                       "question")
    p.add_argument("--since", help="ISO date/time, or a span back from now: 7d, 12h, 30m")
    p.add_argument("--event", help="only records that returned this event (id or key)")
    p.add_argument("--limit", type=int, help="at most this many records (newest first)")
    p.set_defaults(handler=cmd_recalls)
    rsub = p.add_subparsers(dest="recalls_command", metavar="ACTION")
    show = rsub.add_parser("show", help="one record: its ranked results and breakdowns")
    show.add_argument("record", type=int)
    show.set_defaults(handler=cmd_recalls_show)
    settings = rsub.add_parser("settings", help="switch the log on/off, set its retention")
    switch = settings.add_mutually_exclusive_group()
    switch.add_argument("--on", dest="enabled", action="store_const", const=True)
    switch.add_argument("--off", dest="enabled", action="store_const", const=False)
    settings.add_argument("--retention", type=int, metavar="DAYS",
                          help="keep records this many days (default 90)")
    settings.set_defaults(handler=cmd_recalls_settings, enabled=None)


def _line(r: dict[str, Any]) -> str:
    what = (f"{r['query']!r}" if r["query"] else
            f"event {r['request'].get('id')}" if r["tool"] == "get_event" else "session brief")
    top = ", ".join(t["key"] or f"#{t['id']}" for t in r["top"])
    return (f"#{r['id']:<5} {r['ts'][:19].replace('T', ' ')}  {r['client']:<16.16} "
            f"{r['tool']:<9} {what}  → {r['count']} result{'s' if r['count'] != 1 else ''}"
            + (f" ({top})" if top else ""))


def cmd_recalls(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        from core.errors import ValidationError

        raise ValidationError(f"--limit must be at least 1, got {args.limit}")
    with open_memory(args) as memory:
        rows = memory.recalls(since=args.since, limit=args.limit, event=args.event)
        settings = memory.recall_log_settings()
    human = "\n".join(_line(r) for r in rows) if rows else "(no recalls logged" + (
        "" if settings["enabled"] else "; the recall log is off for this memory") + ")"
    emit(args, {"records": rows, "settings": settings}, human)
    return 0


def cmd_recalls_show(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        record = memory.recall_record(args.record)
    lines = [_line(record)]
    for r in record["results"]:
        terms = r.get("terms") or {}
        factors = " · ".join(f"{k} {v:.3f}" for k, v in terms.items()
                             if isinstance(v, float) and k != "days_ago")
        score = r.get("score")
        lines.append(f"{r['rank']:>3}. " + (f"{score:.4f}  " if isinstance(score, float) else "")
                     + f"#{r.get('id')} {r.get('key') or ''} {r.get('title') or ''}".rstrip()
                     + (f"\n       {factors}" if factors else ""))
    emit(args, record, "\n".join(lines))
    return 0


def cmd_recalls_settings(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        if args.enabled is None and args.retention is None:
            out = memory.recall_log_settings()
        else:
            out = memory.set_recall_log(enabled=args.enabled, retention_days=args.retention)
    emit(args, out, f"recall log {'on' if out['enabled'] else 'off'}, records kept "
                    f"{out['retention_days']} days")
    return 0
