"""Privacy commands (docs/privacy.md): encrypt, decrypt, rekey a memory file; a person's
sensitivity policy."""

from __future__ import annotations

import argparse

from core.cli.engine_cmds import open_memory
from core.cli.output import emit
from core.memory import Memory, default_db_path

NEW_ENV = "PULSE_NEW_PASSPHRASE"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("encrypt", help="encrypt a plain memory and its backups in place "
                                       "(passphrase: $PULSE_PASSPHRASE, else asked twice)")
    p.set_defaults(handler=cmd_encrypt)
    p = sub.add_parser("decrypt", help="turn an encrypted memory (and its backups) back into "
                                       "plain SQLite")
    p.set_defaults(handler=cmd_decrypt)
    p = sub.add_parser("rekey", help="change an encrypted memory's passphrase (old: "
                                     f"$PULSE_PASSPHRASE, new: ${NEW_ENV}, else asked)")
    p.set_defaults(handler=cmd_rekey)

    p = sub.add_parser("policy", help="a person's sensitivity policy and topic boundary "
                                      "(no ENTITY: list them)")
    p.add_argument("entity", nargs="?", help="entity id, key or name")
    p.add_argument("--set", dest="policy", metavar="POLICY",
                   help="full | summary_only | redact | no_capture (a tightening applies "
                        "to what is already stored)")
    p.add_argument("--label", help="the role label shown instead of a redacted name, "
                                   "e.g. '[ex-partner]'")
    probe = p.add_mutually_exclusive_group()
    probe.add_argument("--do-not-probe", dest="probe", action="store_const", const=True,
                       help="mark a topic boundary: what is behind it is never surfaced unless "
                            "the question names it")
    probe.add_argument("--allow-probe", dest="probe", action="store_const", const=False,
                       help="lift the boundary")
    p.set_defaults(handler=cmd_policy)


def _path(args: argparse.Namespace) -> str:
    return str(args.db or default_db_path())


def cmd_encrypt(args: argparse.Namespace) -> int:
    path = _path(args)
    out = Memory.encrypt_file(path, Memory.passphrase_prompt(path, confirm=True))
    emit(args, out, f"{path}: encrypted" + _backups(out))
    return 0


def cmd_decrypt(args: argparse.Namespace) -> int:
    path = _path(args)
    out = Memory.decrypt_file(path, Memory.passphrase_prompt(path))
    emit(args, out, f"{path}: decrypted (plain SQLite now)" + _backups(out))
    return 0


def cmd_rekey(args: argparse.Namespace) -> int:
    path = _path(args)
    out = Memory.rekey_file(path, Memory.passphrase_prompt(path),
                            Memory.passphrase_prompt(path, env=NEW_ENV, confirm=True,
                                                     what="new passphrase"))
    emit(args, out, f"{path}: passphrase changed" + _backups(out))
    return 0


def _backups(out: dict) -> str:
    n = len(out.get("backups", []))
    line = f"; {n} backup{'s' if n != 1 else ''} converted too" if n else ""
    left = out.get("left_encrypted") or []
    if left:
        line += (f"\nwarning: {', '.join(left)}: under another passphrase, left as "
                 f"{'they were' if len(left) > 1 else 'it was'}")
    return line


def _line(row: dict) -> str:
    label = f" as {row['role_label']}" if row["role_label"] else ""
    probe = " · do not probe" if row["do_not_probe"] else ""
    skipped = f" · {row['skipped_segments']} segments left out" if row["skipped_segments"] else ""
    return f"{row['name']} (entity {row['id']}): {row['policy']}{label}{probe}{skipped}"


def cmd_policy(args: argparse.Namespace) -> int:
    changing = args.policy is not None or args.label is not None or args.probe is not None
    with open_memory(args, read_only=not changing) as memory:
        if not args.entity:
            if changing:
                from core.errors import PulseError

                raise PulseError("policy: name the entity to change")
            rows = memory.policies()
            emit(args, rows, "\n".join(_line(r) for r in rows) or "every entity: full")
            return 0
        if not changing:
            row = memory.policy(args.entity)
            emit(args, row, _line(row))
            return 0
        out = memory.set_policy(args.entity, args.policy, label=args.label,
                                do_not_probe=args.probe)
        row = memory.policy(args.entity)
    if not out["changed"]:
        text = f"{_line(row)} (unchanged)"
    else:
        text = _line(row)
        if out.get("applied_backwards"):
            erased = out.get("erased")
            rewritten = out.get("rewritten")
            if erased:
                text += "; erased: " + ", ".join(f"{n} {k}" for k, n in erased.items())
            if rewritten:
                text += f"; rewrote {rewritten['rows']} stored texts"
    emit(args, out, text)
    return 0
