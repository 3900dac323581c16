"""`pulse`: the command line, a thin front over core.memory.Memory (CLI.md).

Exit status: 0 success; 1 error (one clear line on stderr, no traceback unless --debug);
2 a negative verdict (verify found a break; check, lint or guard blocked).
"""

from __future__ import annotations

import argparse
import sys
import traceback
from importlib import import_module
from typing import NoReturn

from core.errors import PulseError, busy_message, is_busy

# Each module adds its subcommands with `register(subparsers)`; handlers take (args) → int.
COMMAND_MODULES = [
    "core.cli.engine_cmds",   # init, demo, retrieve, explain, why, set, pin, embed, verify, digest,
                              # stats
    "core.cli.ingest_cmds",   # import, models check
    "core.cli.trust_cmds",    # journal export, replay, undo, forget, correct, brief, check, lint,
                              # guard, ledger, mcp
    "core.cli.export_cmds",   # export-html
    "core.cli.curate_cmds",   # merges list/approve/reject, glossary list/add/apply
    "core.cli.edit_cmds",     # emotions, retext, entity, merge, split, link
    "core.cli.recall_cmds",   # recalls [show ID | settings]: the recall log
    "core.cli.privacy_cmds",  # encrypt, decrypt, rekey, policy
    "core.cli.upkeep_cmds",   # storylines, upkeep, upkeep-settings, questions, gaps, review,
                              # restore
]


class _Parser(argparse.ArgumentParser):
    """A usage error is one line on stderr (CLI.md), not the usage block; subcommands' parsers
    are of this class too (argparse makes them with the parent's class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="pulse", description="Pulse: an empathic memory engine.")
    parser.add_argument("--db", help="memory file (default: $PULSE_DB, else pulse.db in the "
                                     "user data folder)")
    parser.add_argument("--json", action="store_true", help="print data as JSON")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # global flags are accepted after the subcommand too (`pulse retrieve q --json`)
    hoisted = [a for a in argv if a in ("--json", "--debug")]
    rest = [a for a in argv if a not in ("--json", "--debug")]
    try:
        args = parser.parse_args(hoisted + rest)
    except SystemExit as exc:
        return int(exc.code or 0) if exc.code in (0, None) else 1
    try:
        return int(args.handler(args) or 0)
    except PulseError as exc:
        print(f"pulse: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("pulse: interrupted", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: still one line unless asked for the traceback
        if is_busy(exc) and not args.debug:
            # every write already waited and retried (core/store/db.py): say so in one line
            print(f"pulse: {busy_message(args.db or 'the memory')}", file=sys.stderr)
            return 1
        if args.debug:
            traceback.print_exc()
        else:
            print(f"pulse: unexpected error: {type(exc).__name__}: {exc} (rerun with --debug)",
                  file=sys.stderr)
        return 1


def run() -> None:
    sys.exit(main())
