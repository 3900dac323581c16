"""Curation commands: fix what the importer got wrong, from a terminal (the app does the same
through the same Memory methods). Each is one journaled step that `pulse undo` inverts.

    pulse emotions EVENT NAME=VALUE…              user-confirmed emotions (absent names are 0)
    pulse retext EVENT [--title T] [--description D]   a new version superseding the old one
    pulse entity ENTITY [--name N] [--alias A…] [--kind K] [--domain D] [--drop-old-name]
    pulse merge KEEP GONE [--dry-run]             merge GONE into KEEP (preview with --dry-run)
    pulse split ENTITY ALIAS [--kind K] [--dry-run]
    pulse link PARENT CHILD [--kind K] [--strength S] | --remove
"""

from __future__ import annotations

import argparse

from core import beliefs
from core.cli.engine_cmds import open_memory
from core.cli.output import emit
from core.errors import ValidationError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("emotions", help="set an event's emotions by hand (user-confirmed)")
    p.add_argument("event")
    p.add_argument("values", nargs="+", metavar="NAME=VALUE", help="e.g. shame=0.8 fear=0.3")
    p.set_defaults(handler=cmd_emotions)

    p = sub.add_parser("retext", help="a new version of an event's text (the old one stays, "
                                      "superseded)")
    p.add_argument("event")
    p.add_argument("--title")
    p.add_argument("--description")
    p.set_defaults(handler=cmd_retext)

    p = sub.add_parser("entity", help="rename an entity, set its aliases, kind or domain")
    p.add_argument("entity", help="an id, a key or a name")
    p.add_argument("--name")
    p.add_argument("--alias", nargs="*", action="extend", dest="aliases", metavar="A",
                   help="the full list of aliases, repeatable (give none to clear them)")
    p.add_argument("--kind", choices=beliefs.ENTITY_KINDS)
    p.add_argument("--domain", choices=beliefs.DOMAINS)
    p.add_argument("--drop-old-name", action="store_true",
                   help="on a rename, do not keep the old name as an alias")
    p.set_defaults(handler=cmd_entity)

    p = sub.add_parser("merge", help="merge one entity into another (by hand)")
    p.add_argument("keep")
    p.add_argument("gone")
    p.add_argument("--dry-run", action="store_true", dest="dry_run",
                   help="print what would move and change nothing")
    p.set_defaults(handler=cmd_merge)

    p = sub.add_parser("split", help="make an alias an entity of its own")
    p.add_argument("entity")
    p.add_argument("alias")
    p.add_argument("--kind", choices=beliefs.ENTITY_KINDS)
    p.add_argument("--dry-run", action="store_true", dest="dry_run")
    p.set_defaults(handler=cmd_split)

    p = sub.add_parser("link", help="a cause → effect link between two events (or --remove)")
    p.add_argument("parent")
    p.add_argument("child")
    p.add_argument("--kind", choices=beliefs.CHAIN_KINDS)
    p.add_argument("--strength", type=float)
    p.add_argument("--remove", action="store_true")
    p.set_defaults(handler=cmd_link)


def _changed(args: argparse.Namespace, seq: int | None, what: str) -> int:
    if seq is None:
        emit(args, {"changed": False}, f"{what}: nothing to change")
    else:
        emit(args, {"changed": True, "seq": seq}, f"{what} (journal row {seq}; pulse undo "
                                                  "reverts it)")
    return 0


def cmd_emotions(args: argparse.Namespace) -> int:
    values: dict[str, float] = {}
    for item in args.values:
        name, sep, number = item.partition("=")
        try:
            values[name.strip()] = float(number)
        except ValueError:
            raise ValidationError(f"emotions: {item!r} is not NAME=VALUE (e.g. shame=0.8)") from None
        if not sep:
            raise ValidationError(f"emotions: {item!r} is not NAME=VALUE (e.g. shame=0.8)")
    with open_memory(args) as memory:
        return _changed(args, memory.set_emotions(memory.current_event(args.event), values),
                        f"emotions of {args.event} set")


def cmd_retext(args: argparse.Namespace) -> int:
    if args.title is None and args.description is None:
        raise ValidationError("retext: give --title and/or --description")
    with open_memory(args) as memory:
        out = memory.edit_event_text(args.event, title=args.title, description=args.description)
    if out is None:
        return _changed(args, None, f"text of {args.event}")
    emit(args, out, f"event {out['event']} now holds the text; event {out['replaces']} is "
                    f"superseded (journal row {out['seq']})")
    return 0


def cmd_entity(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        return _changed(args, memory.edit_entity(
            args.entity, name=args.name, aliases=args.aliases, kind=args.kind,
            domain=args.domain, keep_old_name=not args.drop_old_name), f"{args.entity} edited")


def cmd_merge(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        if args.dry_run:
            out = memory.merge_preview(args.keep, args.gone)
            moves = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in out["moves"].items() if v)
            emit(args, out, f"would merge {out['gone']['name']} into {out['keep']['name']}: "
                            f"{moves or 'nothing else moves'}"
                            + (f"; new aliases: {', '.join(out['aliases_added'])}"
                               if out["aliases_added"] else "")
                            + (f"\nnote: {out['note']}" if out["note"] else ""))
            return 0
        out = memory.merge_entities(args.keep, args.gone)
    emit(args, out, f"merged entity {out['merged']} into {out['kept']} (journal row "
                    f"{out['seq']}; pulse undo reverts it)")
    return 0


def cmd_split(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        if args.dry_run:
            out = memory.split_alias_preview(args.entity, args.alias)
            emit(args, out, f"would split {out['alias']} out of {out['entity']['name']} with "
                            f"{len(out['events'])} event(s) and {len(out['facts'])} fact(s)")
            return 0
        out = memory.split_alias(args.entity, args.alias, kind=args.kind)
    emit(args, out, f"entity {out['new_entity']} made from the alias, with "
                    f"{len(out['events'])} event(s) (journal row {out['seq']})")
    return 0


def cmd_link(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        if args.remove:
            return _changed(args, memory.unlink_events(args.parent, args.child),
                            f"link {args.parent} → {args.child} removed")
        exists = memory.conn.execute(
            "SELECT 1 FROM event_chains WHERE parent_id = ? AND child_id = ?",
            (memory.current_event(args.parent), memory.current_event(args.child))).fetchone()
        if exists:
            return _changed(args, memory.set_link(args.parent, args.child,
                                                  strength=args.strength, kind=args.kind),
                            f"link {args.parent} → {args.child} changed")
        return _changed(args, memory.link_events(
            args.parent, args.child, kind=args.kind or "causal",
            strength=0.5 if args.strength is None else args.strength),
            f"linked {args.parent} → {args.child}")
