"""Storylines and upkeep from the terminal (docs/upkeep.md).

    pulse storylines [REF] [--extractor ALIAS]
    pulse upkeep [--dry-run] [--now ISO] [--extractor ALIAS] [--ttl-days N]
    pulse upkeep-settings [NAME=VALUE ...]
    pulse questions list [--now ISO] [--ttl-days N] | confirm EVENT [--as CLASS] | dismiss EVENT
    pulse restore EVENT
    pulse gaps [--domains a,b] [--limit N]
    pulse review list [--now ISO] [--kind K] | accept REF | reject REF | later REF [--days N]
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from core.cli.engine_cmds import open_memory
from core.cli.output import emit
from core.errors import PulseError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("storylines", help="chains and patterns with a title and a summary")
    p.add_argument("ref", nargs="?", help="a storyline key (chain:12, pattern:40) or an event")
    p.add_argument("--extractor", metavar="ALIAS",
                   help="write abstractive summaries with this model alias (opt-in)")
    p.set_defaults(handler=cmd_storylines)

    p = sub.add_parser("upkeep", help="propose merges, archival and dismissals; refresh "
                                      "storylines (nothing is merged or archived on its own)")
    p.add_argument("--dry-run", action="store_true", help="show what would be proposed; "
                                                          "write nothing")
    p.add_argument("--now", help="ISO-8601 time to judge ages at (default: now)")
    p.add_argument("--extractor", metavar="ALIAS",
                   help="also write abstractive storyline summaries with this model alias")
    p.add_argument("--ttl-days", type=float, help="open-question TTL for this run")
    p.set_defaults(handler=cmd_upkeep)

    p = sub.add_parser("upkeep-settings", help="show or change this memory's upkeep settings")
    p.add_argument("assignments", nargs="*", metavar="NAME=VALUE")
    p.set_defaults(handler=cmd_upkeep_settings)

    q = sub.add_parser("questions", help="open questions (hypotheses) with age and TTL")
    qsub = q.add_subparsers(dest="questions_command", metavar="ACTION")
    qsub.required = True
    p = qsub.add_parser("list", help="open questions, oldest first")
    p.add_argument("--now")
    p.add_argument("--ttl-days", type=float)
    p.set_defaults(handler=cmd_questions_list)
    p = qsub.add_parser("confirm", help="promote a hypothesis to user_model or self_model")
    p.add_argument("event")
    p.add_argument("--as", dest="as_class", default="user_model",
                   choices=("user_model", "self_model"))
    p.set_defaults(handler=cmd_questions_confirm)
    p = qsub.add_parser("dismiss", help="dismiss a hypothesis (it is archived, not deleted)")
    p.add_argument("event")
    p.set_defaults(handler=cmd_questions_dismiss)

    p = sub.add_parser("restore", help="bring an archived event back (journaled)")
    p.add_argument("event")
    p.set_defaults(handler=cmd_restore)

    p = sub.add_parser("gaps", help="knowledge gaps a companion might gently ask about")
    p.add_argument("--domains", help="comma-separated domains (default real,meta_authorial)")
    p.add_argument("--limit", type=int)
    p.set_defaults(handler=cmd_gaps)

    r = sub.add_parser("review", help="the review queue: everything waiting for a decision")
    rsub = r.add_subparsers(dest="review_command", metavar="ACTION")
    rsub.required = True
    p = rsub.add_parser("list", help="items due now")
    p.add_argument("--now")
    p.add_argument("--kind", action="append", help="only this kind (repeatable)")
    p.set_defaults(handler=cmd_review_list)
    for action in ("accept", "reject", "later"):
        p = rsub.add_parser(action, help=f"{action} one item (journaled, undoable)")
        p.add_argument("ref", help="KIND:ID as `pulse review list` shows it")
        p.add_argument("--now")
        if action == "later":
            p.add_argument("--days", type=float, help="hide it this long (default: setting)")
        p.set_defaults(handler=cmd_review_decide, action=action)


# -- storylines ---------------------------------------------------------------------------------

def _span(s: dict[str, Any]) -> str:
    a, b = (s["span"]["from"] or "")[:10], (s["span"]["to"] or "")[:10]
    return a if a == b else f"{a} – {b}"


def cmd_storylines(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        llm = None
        if args.extractor:
            keys = None
            if args.ref:
                keys = [memory.storyline(args.ref)["key"]]
            llm = memory.summarise_storylines(args.extractor, keys)
        if args.ref:
            story = memory.storyline(args.ref)
            lines = [f"{story['key']}  {story['title']}  ({_span(story)}, {story['method']})",
                     f"  {story['summary']}"]
            lines += [f"  - {e['ts'][:10]} #{e['id']}{' [' + e['key'] + ']' if e['key'] else ''}"
                      f" {e['title']}" for e in story["events"]]
            emit(args, {**story, "llm": llm} if llm else story, "\n".join(lines))
            return 0
        stories = memory.storylines()
    lines = [f"{s['key']:<14} {_span(s):<23} {s['size']:>2} events  {s['title']}\n"
             f"{'':<15}{s['summary']}" for s in stories]
    data: dict[str, Any] = {"storylines": stories}
    if llm:
        data["llm"] = llm
    emit(args, data, "\n".join(lines) or "no storylines (no chains, no distilled patterns)")
    return 0


# -- upkeep -------------------------------------------------------------------------------------

def cmd_upkeep(args: argparse.Namespace) -> int:
    overrides = {"question_ttl_days": args.ttl_days} if args.ttl_days is not None else None
    with open_memory(args) as memory:
        out = memory.upkeep(dry_run=args.dry_run, now=args.now, extractor=args.extractor,
                            settings=overrides)
    emit(args, out, _human_upkeep(out))
    return 0


def _human_upkeep(out: dict[str, Any]) -> str:
    verb = "would propose" if out["dry_run"] else "proposed"
    p = out["proposed"]
    lines = [f"upkeep at {out['now']}{' (dry run: nothing written)' if out['dry_run'] else ''}",
             f"  {verb}: {len(p['event_merge'])} event merges, {len(p['archive'])} archivals, "
             f"{len(p['dismiss'])} dismissals of expired open questions",
             f"  obsolete proposals: {out['obsolete']} · patterns retitled: "
             f"{len(out['patterns_retitled'])}",
             f"  storylines: {out['storylines']['total']} ({out['storylines']['stale']} stale, "
             f"{out['storylines']['written']} written)"]
    for kind, label in (("event_merge", "merge"), ("archive", "archive"),
                        ("dismiss", "dismiss")):
        for item in p[kind]:
            keep = f" into {item['keep_event']}" if item["keep_event"] else ""
            lines.append(f"    {label} event {item['event_id']}{keep}: {item['reason']}")
    if out["llm"]:
        llm = out["llm"]
        lines.append(f"  model {llm['alias']}: {len(llm['written'])} summaries, "
                     f"{len(llm['dead'])} dead, ${llm['cost_usd']:.4f}")
    if out["knowledge_gaps"]:
        lines.append("  you might ask about: " + ", ".join(g["name"]
                                                           for g in out["knowledge_gaps"]))
    lines.append(f"  review queue: {out['review']['pending']} waiting"
                 + (f" ({', '.join(f'{n} {k}' for k, n in out['review']['by_kind'].items())})"
                    if out["review"]["by_kind"] else ""))
    lines += [f"  note: {n}" for n in out["notes"]]
    return "\n".join(lines)


def cmd_upkeep_settings(args: argparse.Namespace) -> int:
    changes: dict[str, Any] = {}
    for item in args.assignments:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise PulseError(f"upkeep-settings: give NAME=VALUE, not {item!r}")
        try:
            changes[name.strip()] = json.loads(value)
        except ValueError:
            raise PulseError(f"upkeep-settings: {name} needs a number (or null), not "
                             f"{value!r}") from None
    with open_memory(args) as memory:
        out = memory.set_upkeep_settings(**changes) if changes else memory.upkeep_settings()
    emit(args, out, "\n".join(f"{k} = {v}" for k, v in out.items()))
    return 0


# -- open questions and gaps -------------------------------------------------------------------

def cmd_questions_list(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        rows = memory.open_questions(now=args.now, ttl_days=args.ttl_days)
    lines = [f"{q['id']:>5}  {q['ts'][:10]}  {q['age_days']:>6.0f} d  "
             f"{'EXPIRED' if q['expired'] else 'open   '}{' pinned' if q['pinned'] else ''}"
             f"  {q['title']}" for q in rows]
    emit(args, {"questions": rows}, "\n".join(lines) or "no open questions")
    return 0


def cmd_questions_confirm(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        out = memory.confirm_question(args.event, args.as_class)
    emit(args, out, f"event {out['event']} is now {out['belief_class']} (journal row "
                    f"{out['seq']})")
    return 0


def cmd_questions_dismiss(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        out = memory.dismiss_question(args.event)
    emit(args, out, f"event {out['event']} dismissed and archived (journal row {out['seq']})")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        out = memory.restore(args.event)
    emit(args, out, f"event {out['event']} restored (journal row {out['seq']})")
    return 0


def cmd_gaps(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        rows = memory.knowledge_gaps(domains=args.domains, limit=args.limit)
    lines = [f"{g['entity']:>5}  {g['name']} ({g['kind']}): {g['why']}" for g in rows]
    emit(args, {"gaps": rows}, "\n".join(lines) or "no knowledge gaps")
    return 0


# -- the review queue ----------------------------------------------------------------------------

def cmd_review_list(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        items = memory.review_queue(now=args.now, kinds=args.kind)
    lines = [f"{i['ref']:<16} {i['title']}\n{'':<17}{i['detail']}" for i in items]
    emit(args, {"items": items, "count": len(items)},
         "\n".join(lines) or "nothing waiting for review")
    return 0


def cmd_review_decide(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        out = memory.review(args.ref, args.action, now=args.now,
                            later_days=getattr(args, "days", None))
    emit(args, out)
    return 0
