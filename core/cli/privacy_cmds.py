"""Privacy commands (docs/privacy.md): encrypt, decrypt, rekey a memory file; a person's
sensitivity policy."""

from __future__ import annotations

import argparse

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
    return f"; {n} backup{'s' if n != 1 else ''} converted too" if n else ""
