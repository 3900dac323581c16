"""Where a passphrase comes from: the environment, a terminal prompt, or — only when the user
opted in — the OS keyring. Never from a file Pulse writes (docs/privacy.md).

Fronts reach this through `Memory` (passphrase_from_env_or_prompt, keyring_*), never directly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from core.errors import PulseError

ENV = "PULSE_PASSPHRASE"              # the memory's passphrase (CLI, `pulse mcp`)
NEW_ENV = "PULSE_NEW_PASSPHRASE"      # the new one, for `pulse rekey`
VIEWER_ENV = "PULSE_VIEWER_PASSPHRASE"  # a locked viewer's (`pulse export-html --lock`)
KEYRING_SERVICE = "pulse-memory"


def _tty_prompt(prompt: str) -> str | None:
    """Read a line without echo from the controlling terminal (not stdin: `pulse mcp` speaks
    JSON-RPC there). None when the process has no terminal."""
    if os.name == "nt":
        if not sys.stdin or not sys.stdin.isatty():
            return None
        import getpass

        return getpass.getpass(prompt)
    try:
        tty = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return None
    import termios

    with open(tty, "r+", encoding="utf-8", closefd=True) as stream:
        old = termios.tcgetattr(stream)
        new = termios.tcgetattr(stream)
        new[3] &= ~termios.ECHO
        try:
            stream.write(prompt)
            stream.flush()
            termios.tcsetattr(stream, termios.TCSAFLUSH, new)
            line = stream.readline()
        finally:
            termios.tcsetattr(stream, termios.TCSAFLUSH, old)
            stream.write("\n")
            stream.flush()
    return line.rstrip("\r\n")


def from_env_or_prompt(path: str | Path, *, env: str = ENV, confirm: bool = False,
                       what: str = "passphrase") -> Callable[[], str]:
    """A callable (asked only when needed) giving $env, else what is typed at the terminal;
    with no variable and no terminal it raises one clear line. `confirm` asks twice (a new
    passphrase)."""

    def ask() -> str:
        value = os.environ.get(env)
        if value:
            return value
        typed = _tty_prompt(f"{what} for {path}: ")
        if typed is None:
            raise PulseError(f"{path}: a {what} is needed{_looks_encrypted(path)}; set {env} "
                             "or run from a terminal")
        if not typed:
            raise PulseError(f"{path}: the {what} is empty; nothing was changed")
        if confirm:
            again = _tty_prompt(f"the same {what} again: ")
            if again != typed:
                raise PulseError(f"{path}: the two {what}s differ; nothing was changed")
        return typed

    return ask


# -- the OS keyring: only for memories the user opted in (the app's settings list them) --------

def _account(path: str | Path) -> str:
    return str(Path(path).expanduser().resolve())


def keyring_get(path: str | Path) -> str | None:
    try:
        import keyring

        return keyring.get_password(KEYRING_SERVICE, _account(path))
    except Exception:  # noqa: BLE001 - no keyring backend here: the user is asked instead
        return None


def keyring_set(path: str | Path, passphrase: str) -> None:
    try:
        import keyring

        keyring.set_password(KEYRING_SERVICE, _account(path), passphrase)
    except Exception as exc:  # noqa: BLE001 - any backend failure is one line
        raise PulseError(f"the OS keyring refused the passphrase ({exc}); it was not saved"
                         ) from None


def keyring_delete(path: str | Path) -> None:
    try:
        import keyring

        keyring.delete_password(KEYRING_SERVICE, _account(path))
    except Exception:  # noqa: BLE001 - nothing stored is the same as deleted
        return


def _looks_encrypted(path: str | Path) -> str:
    """Random bytes cannot be told from an encrypted memory: the line says so."""
    from core.store import cipher

    try:
        return " (it is encrypted, or not a Pulse memory)" if cipher.is_encrypted(path) else ""
    except OSError:
        return ""
