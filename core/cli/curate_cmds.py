"""Curation from the terminal: entity merge proposals and the glossary of fictional names.

    pulse merges list [--status pending|approved|rejected|obsolete|all]
    pulse merges approve ID | pulse merges reject ID
    pulse glossary list
    pulse glossary add TERM [--pattern] [--domain D] [--kind K] [--note N] [--apply]
    pulse glossary apply ID
    pulse glossary candidates [--status pending|accepted|rejected|all]
    pulse glossary accept ID [--apply] | pulse glossary reject ID
"""

from __future__ import annotations

import argparse

from core import beliefs
from core.cli.engine_cmds import open_memory
from core.cli.output import emit


def register(sub: argparse._SubParsersAction) -> None:
    merges = sub.add_parser("merges", help="entity merge proposals (INGEST §2.3)")
    msub = merges.add_subparsers(dest="merges_command", metavar="ACTION")
    msub.required = True
    listing = msub.add_parser("list", help="proposals, pending by default")
    listing.add_argument("--status", default="pending",
                         choices=("pending", "approved", "rejected", "obsolete", "all"))
    listing.set_defaults(handler=cmd_merges_list)
    for action in ("approve", "reject"):
        p = msub.add_parser(action, help=f"{action} one proposal (journaled)")
        p.add_argument("proposal", type=int)
        p.set_defaults(handler=cmd_merges_resolve, approve=action == "approve")

    glossary = sub.add_parser("glossary", help="fictional names that set the domain of what "
                                                "mentions them")
    gsub = glossary.add_subparsers(dest="glossary_command", metavar="ACTION")
    gsub.required = True
    gsub.add_parser("list", help="every term").set_defaults(handler=cmd_glossary_list)
    add = gsub.add_parser("add", help="add a name (or a regex with --pattern)")
    add.add_argument("term")
    add.add_argument("--pattern", action="store_true", help="TERM is a regular expression")
    add.add_argument("--domain", default="fiction_content", choices=beliefs.DOMAINS)
    add.add_argument("--kind", default="fictional_character", choices=beliefs.ENTITY_KINDS)
    add.add_argument("--note", default="")
    add.add_argument("--apply", action="store_true",
                     help="also re-domain the real-life events already stored that mention it")
    add.set_defaults(handler=cmd_glossary_add)
    apply = gsub.add_parser("apply", help="re-domain stored events that mention an entry")
    apply.add_argument("entry", type=int)
    apply.set_defaults(handler=cmd_glossary_apply)
    cands = gsub.add_parser("candidates", help="names found only inside fiction passages")
    cands.add_argument("--status", default="pending",
                       choices=("pending", "accepted", "rejected", "all"))
    cands.set_defaults(handler=cmd_glossary_candidates)
    for action in ("accept", "reject"):
        p = gsub.add_parser(action, help=f"{action} a glossary candidate (journaled)")
        p.add_argument("candidate", type=int)
        if action == "accept":
            p.add_argument("--apply", action="store_true",
                           help="also re-domain the real-life events already stored that "
                                "mention it")
        p.set_defaults(handler=cmd_glossary_resolve, accept=action == "accept")


def cmd_merges_list(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        rows = memory.merge_proposals(None if args.status == "all" else args.status)
    lines = [f"{r['id']:>5}  {r['status']:<9} keep {r['keep_name']!s} ({r['keep_kind']})  <-  "
             f"{r['merge_name']!s} ({r['merge_kind']})  similarity {r['similarity']:.2f}"
             for r in rows]
    emit(args, {"proposals": rows}, "\n".join(lines) or f"no {args.status} merge proposals")
    return 0


def cmd_merges_resolve(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        result = memory.resolve_merge(args.proposal, args.approve)
    emit(args, result)
    return 0


def cmd_glossary_list(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        rows = memory.glossary()
    lines = [f"{r['id']:>5}  {'/' + r['term'] + '/' if r['is_pattern'] else r['term']}  "
             f"-> {r['domain']} ({r['kind']}){'  ' + r['note'] if r['note'] else ''}"
             for r in rows]
    emit(args, {"glossary": rows}, "\n".join(lines) or "the glossary is empty")
    return 0


def cmd_glossary_add(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        entry = memory.add_glossary_term(args.term, domain=args.domain, pattern=args.pattern,
                                         kind=args.kind, note=args.note)
        changed = memory.apply_glossary_term(entry) if args.apply else []
    emit(args, {"id": entry, "term": args.term, "domain": args.domain, "events": changed})
    return 0


def cmd_glossary_apply(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        changed = memory.apply_glossary_term(args.entry)
    emit(args, {"id": args.entry, "events": changed})
    return 0


def cmd_glossary_candidates(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        rows = memory.glossary_candidates(None if args.status == "all" else args.status)
    lines = [f"{r['id']:>5}  {r['status']:<8} {r['term']}  ({r['kind']}, {r['mentions']} "
             f"mention{'s' if r['mentions'] != 1 else ''})" for r in rows]
    emit(args, {"candidates": rows}, "\n".join(lines) or f"no {args.status} glossary candidates")
    return 0


def cmd_glossary_resolve(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        result = memory.resolve_glossary_candidate(args.candidate, args.accept)
        if args.accept and getattr(args, "apply", False) and result["glossary"] is not None:
            result["events"] = memory.apply_glossary_term(result["glossary"])
    emit(args, result)
    return 0
