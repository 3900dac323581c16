"""Reading a person's file: the text, or one clear error that names the file (never a traceback).

Every importer and command reads through here, so a missing file, a directory or a binary
file says the same thing wherever it is given."""

from __future__ import annotations

import codecs
import sys
from pathlib import Path

from core.errors import ValidationError
from core.store.locks import refuse_if_held


def read_text(path: str | Path, *, what: str = "") -> str:
    """UTF-8 text of `path` (or UTF-16 with its byte-order mark). `what` names the file's
    role in the message ("state").

    A memory file open in this process is refused rather than read: closing a plain handle on
    it would drop this process's SQLite locks (core/store/locks.py)."""
    role = f" the {what} file" if what else ""
    refuse_if_held(path)
    try:
        data = Path(path).read_bytes()
        text = data.decode(_encoding(data))
        return text.replace("\r\n", "\n").replace("\r", "\n")  # as text mode reads it
    except OSError as exc:
        raise ValidationError(f"{path}: cannot read{role} ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        subject = f"the {what} file is not" if what else "not"
        raise ValidationError(f"{path}: {subject} UTF-8 text (byte {exc.start})") from None


def _encoding(data: bytes) -> str:
    """UTF-8, or what a byte-order mark says: Windows tools (Notepad, PowerShell) write one,
    and a BOM left in the text hid a JSON export's first brace (it was imported as a note)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    return "utf-8-sig"


def read_bytes(path: str | Path, *, what: str = "") -> bytes:
    """The bytes of `path` (a sealed file), refused like read_text for a memory held here."""
    role = f" the {what} file" if what else ""
    refuse_if_held(path)
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise ValidationError(f"{path}: cannot read{role} ({exc.strerror})") from None


def read_input(name: str, *, what: str = "") -> str:
    """Like read_text, with "-" meaning standard input."""
    return sys.stdin.read() if name == "-" else read_text(name, what=what)
