"""Trust commands (JOURNAL.md): journal export, replay, undo, redo, forget, correct, brief,
check, lint, guard (+ guard allow), ledger import/export, mcp."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from core.cli.engine_cmds import open_memory
from core.cli.output import emit
from core.errors import PulseError
from core.files import read_input
from core.memory import Memory


def _open(args: argparse.Namespace, **kw: Any) -> Memory:
    return open_memory(args, **kw)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("journal", help="the journal: export it as JSON Lines")
    jsub = p.add_subparsers(dest="journal_command", metavar="ACTION")
    jsub.required = True
    q = jsub.add_parser("export", help="write the journal as JSON Lines")
    q.add_argument("out")
    q.set_defaults(handler=cmd_journal_export)

    p = sub.add_parser("replay", help="rebuild a memory from an exported journal (offline)")
    p.add_argument("journal")
    p.add_argument("--db", dest="replay_db", metavar="NEW", help="the memory to build")
    p.set_defaults(handler=cmd_replay)

    p = sub.add_parser("undo", help="append the inverse of the latest action (or of row SEQ)")
    p.add_argument("--seq", type=int, help="undo this journal row")
    p.set_defaults(handler=cmd_undo)

    p = sub.add_parser("redo", help="reverse the latest undo")
    p.set_defaults(handler=cmd_redo)

    p = sub.add_parser("forget", help="erase events, facts, relations, entities or "
                                      "observations everywhere (irreversible)")
    p.add_argument("refs", nargs="+", metavar="KIND:ID",
                   help="event:ID|KEY, fact:ID, relation:ID, entity:ID|KEY|NAME, observation:ID")
    p.add_argument("--cascade", action="store_true",
                   help="everything about an entity: its events, the observations quoting it, "
                        "its facts, relations, merge proposals, glossary terms and corrections")
    p.add_argument("--dry-run", action="store_true", dest="dry_run",
                   help="print what would be erased and change nothing")
    p.add_argument("--keep", nargs="+", action="extend", default=[], metavar="KIND:ID",
                   help="items of the preview to leave in place")
    p.set_defaults(handler=cmd_forget)

    p = sub.add_parser("correct", help="record a correction")
    p.add_argument("--withdrawn", nargs="+", action="extend", default=[], metavar="T")
    p.add_argument("--replacement", nargs="+", action="extend", default=[], metavar="T")
    p.add_argument("--note", default="")
    p.add_argument("--subject", help="event:ID, fact:ID or entity:ID")
    p.add_argument("--supersedes", nargs="+", action="extend", type=int, default=[],
                   metavar="SEQ",
                   help="journal rows of the corrections this one replaces")
    p.set_defaults(handler=cmd_correct)

    p = sub.add_parser("corrections", help="list corrections, newest first")
    p.set_defaults(handler=cmd_corrections)

    p = sub.add_parser("brief", help="the session brief (JOURNAL §3)")
    p.add_argument("--budget", type=int, metavar="TOKENS")
    p.add_argument("--now", help="ISO-8601 time for recency (default: now)")
    p.add_argument("--domains", help="comma-separated domains (default: real,meta_authorial)")
    p.set_defaults(handler=cmd_brief)

    p = sub.add_parser("check", help="verdict for a text against the corrections")
    p.add_argument("file", nargs="?", default="-", metavar="FILE|-")
    p.add_argument("--ci", action="store_true", help="also exit 1 when nothing was checked")
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser("lint", help="verdicts for files (default: the agent rule files here)")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.add_argument("--ci", action="store_true", help="also exit 1 when nothing was checked")
    p.set_defaults(handler=cmd_lint)

    p = sub.add_parser("guard", help="PreToolUse hook: block edits that reintroduce a withdrawn "
                                     "term (hook JSON on stdin)")
    gsub = p.add_subparsers(dest="guard_command", metavar="ACTION")
    q = gsub.add_parser("allow", help="record an override (journaled)")
    q.add_argument("term")
    q.add_argument("--path", required=True, metavar="PREFIX")
    q.add_argument("--reason", required=True)
    q.set_defaults(handler=cmd_guard_allow)
    p.set_defaults(handler=cmd_guard)

    p = sub.add_parser("ledger", help="memory-pulse ledger import/export")
    lsub = p.add_subparsers(dest="ledger_command", metavar="ACTION")
    lsub.required = True
    q = lsub.add_parser("import", help="verify and import .memory-pulse/events.jsonl")
    q.add_argument("path")
    q.set_defaults(handler=cmd_ledger_import)
    q = lsub.add_parser("export", help="write a ledger that verifies")
    q.add_argument("path")
    q.set_defaults(handler=cmd_ledger_export)

    p = sub.add_parser("mcp", help="MCP server on stdio (recall, why, remember, brief, correct, "
                                   "get_event)")
    p.add_argument("--extractor", default="offline", help="remember's extractor (or an alias)")
    p.set_defaults(handler=cmd_mcp)


# -- journal ----------------------------------------------------------------------------------

def cmd_journal_export(args: argparse.Namespace) -> int:
    with _open(args, read_only=True) as memory:
        out = memory.export_journal(args.out)
    emit(args, out, f"{out['rows']} journal rows written to {out['out']}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    target = args.replay_db or args.db
    if not target:
        raise PulseError("give the memory to build: pulse replay JOURNAL --db NEW")
    out = Memory.replay(args.journal, target, Memory.passphrase_prompt(args.journal))
    emit(args, out, f"{target}: {out['applied']} rows replayed, {out['already_present']} already "
                    f"there (journal head {out['head']})")
    return 0


def cmd_undo(args: argparse.Namespace) -> int:
    with _open(args) as memory:
        out = memory.undo(args.seq)
    emit(args, out, f"journal row {out['seq']}: {out['op']} of row {out['undoes']} "
                    f"({out['target_op']} {out['subject']})")
    return 0


def cmd_redo(args: argparse.Namespace) -> int:
    with _open(args) as memory:
        out = memory.redo()
    emit(args, out, f"journal row {out['seq']}: redo (reverses undo row {out['undoes']})")
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    if args.dry_run:
        with _open(args, read_only=True) as memory:
            out = memory.forget_preview(args.refs, cascade=args.cascade, keep=args.keep)
        emit(args, out, _preview_text(out))
        return 0
    with _open(args) as memory:
        out = memory.forget(args.refs, cascade=args.cascade, keep=args.keep)
    rows = sum(out["rows"].values())
    forgot = out["forgot"] if isinstance(out["forgot"], str) else ", ".join(out["forgot"])
    lines = [f"forgot {forgot}: {rows} rows erased, "
             f"{len(out['redacted_journal_rows'])} journal payloads redacted, "
             f"tombstone at journal row {out['journal_seq']}"]
    if not out["wal_truncated"]:
        lines.append("warning: another program holds the memory open, so its -wal file could "
                     "not be emptied yet; close it and run this again to be sure")
    for copy in out["other_copies"]:
        lines.append(f"warning: {copy} is an older copy (a backup made before a migration) "
                     "that still holds what was erased; delete it if it must go too")
    emit(args, out, "\n".join(lines))
    return 0


def _preview_text(out: dict[str, Any]) -> str:
    counts = ", ".join(f"{n} {kind.replace('_', ' ')}{'s' if n != 1 else ''}"
                       for kind, n in out["counts"].items())
    lines = [f"would erase {', '.join(out['refs'])}"
             + (" and everything about it" if out["cascade"] else "") + f": {counts}"]
    for item in out["items"]:
        lines.append(f"  {item['ref']:<18} {item['label'][:80]}"
                     + (f"  ({item['reason']})" if item["reason"] and not item["root"] else ""))
    lines.append(f"rows: {sum(out['rows'].values())} in all ("
                 + ", ".join(f"{t} {n}" for t, n in sorted(out["rows"].items())) + ")")
    if out["kept_mentions"]:
        lines.append(f"still naming {out['names'][0]} after this: "
                     + ", ".join(m["ref"] for m in out["kept_mentions"][:20]))
    lines.append("nothing was changed (--dry-run); leave items with --keep KIND:ID")
    return "\n".join(lines)


# -- corrections and brief ----------------------------------------------------------------------

def cmd_correct(args: argparse.Namespace) -> int:
    with _open(args) as memory:
        out = memory.correct(withdrawn=args.withdrawn, replacement=args.replacement,
                             note=args.note, subject=args.subject,
                             supersedes=args.supersedes)
    state = "binding" if out["binding"] else "not enforceable (no withdrawn terms)"
    emit(args, out, f"correction {out['id']} recorded at journal row {out['journal_seq']}: {state}")
    return 0


def cmd_corrections(args: argparse.Namespace) -> int:
    with _open(args, read_only=True) as memory:
        items = memory.corrections()
    emit(args, [c.to_dict() for c in items],
         "\n".join(Memory.correction_line(c) for c in items) or "no corrections")
    return 0


def cmd_brief(args: argparse.Namespace) -> int:
    with _open(args, read_only=True) as memory:
        out = memory.brief(args.budget, now=args.now, domains=args.domains)
    emit(args, out, out["text"])
    return 0


# -- check, lint, guard --------------------------------------------------------------------------

def _verdict_line(verdict: str, name: str) -> str:
    return f"  {verdict:<12}{name}"


def cmd_check(args: argparse.Namespace) -> int:
    text = read_input(args.file)
    with _open(args, read_only=True) as memory:
        ctx = memory.guard_context()
        out = memory.check_text(text, None if args.file == "-" else args.file, context=ctx)
    out.update(input=args.file, binding_corrections=len(ctx.corrections),
               journal_ok=not ctx.broken)
    human = _verdict_line(out["verdict"], "stdin" if args.file == "-" else args.file)
    if out["reason"]:
        human += f"\n    • {out['reason']}"
    emit(args, out, human)
    if out["verdict"] == "BLOCKED":
        return 2
    if args.ci and (not text.strip() or not ctx.corrections):
        print("pulse: check --ci: nothing was checked (empty input or no binding corrections)",
              file=sys.stderr)
        return 1
    return 0


def cmd_lint(args: argparse.Namespace) -> int:
    paths = args.paths or Memory.default_lint_paths()
    with _open(args, read_only=True) as memory:
        ctx = memory.guard_context()
        out = memory.lint(paths, context=ctx)
    lines = []
    for r in out["files"]:
        lines.append(_verdict_line(r["verdict"], r["path"]))
        if r["reason"]:
            lines.append(f"    • {r['reason']}")
    c = out["counts"]
    lines.append(f"lint: {out['checked']} file(s) — {c['BLOCKED']} blocked, {c['verified']} "
                 f"verified, {c['no-evidence']} no evidence"
                 + (f" · {len(out['skipped'])} skipped (binary or unreadable)"
                    if out["skipped"] else "")
                 + (f" · {len(out['not_enforceable'])} correction(s) without withdrawn terms "
                    "(not enforceable)" if out["not_enforceable"] else ""))
    emit(args, out, "\n".join(lines))
    if c["BLOCKED"]:
        return 2
    if args.ci and (out["checked"] == 0 or not ctx.corrections):
        print("pulse: lint --ci: nothing was checked (no files or no binding corrections)",
              file=sys.stderr)
        return 1
    return 0


def cmd_guard(args: argparse.Namespace) -> int:
    """The hook: never fails loudly on input it cannot read (exit 0), blocks with exit 2."""
    try:
        raw = sys.stdin.read()
    except (OSError, UnicodeDecodeError):
        return 0
    if not Memory.is_guard_hook(raw):
        return 0
    try:
        memory = _open(args, read_only=True)
    except PulseError:
        return 0  # no memory here: nothing to enforce
    try:
        status, message = memory.guard_hook(raw)
    finally:
        memory.close()
    if message:
        print(message, file=sys.stderr)
    return status


def cmd_guard_allow(args: argparse.Namespace) -> int:
    with _open(args) as memory:
        out = memory.guard_allow(args.term, args.path, args.reason)
    emit(args, out, f"override {out['id']}: {out['term']!r} allowed under {out['path_prefix']} "
                    f"(journal row {out['journal_seq']})")
    return 0


# -- ledger and mcp ----------------------------------------------------------------------------

def cmd_ledger_import(args: argparse.Namespace) -> int:
    with _open(args) as memory:
        out = memory.import_ledger(args.path)
    emit(args, out, f"ledger: {out['imported']} rows imported ({out['corrections']} corrections),"
                    f" {out['already_present']} already present")
    return 0


def cmd_ledger_export(args: argparse.Namespace) -> int:
    with _open(args, read_only=True) as memory:
        out = memory.export_ledger(args.path)
    emit(args, out, f"ledger: {out['rows']} rows written to {out['out']} "
                    f"({out['added']} new from Pulse)")
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from core.mcp_server import serve

    serve(args.db, args.extractor)
    return 0
