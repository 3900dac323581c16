"""Sealed files: bytes encrypted with a passphrase, in one documented container (pulse-sealed/1).

Used for the journal export of an encrypted memory and, with the same parameters, for the
locked viewer page (whose browser side decrypts with WebCrypto). docs/privacy.md §Formats:

    line 1   a JSON header, UTF-8, then "\\n":
             {"format": "pulse-sealed/1", "content": "<what is inside>",
              "cipher": "AES-256-GCM", "kdf": "PBKDF2-HMAC-SHA256", "iterations": 600000,
              "salt": "<16 bytes, base64>", "nonce": "<12 bytes, base64>"}
    rest     AES-256-GCM ciphertext with its 16-byte tag appended, of the content's bytes;
             the header line (without its newline) is the associated data, so a changed
             header fails the tag as a changed byte of ciphertext would.

Key = PBKDF2-HMAC-SHA256(passphrase UTF-8, salt, iterations, 32 bytes). 600,000 iterations is
OWASP's 2023 floor for PBKDF2-SHA256; a file with fewer is refused.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from typing import Any

from core.errors import PulseError

FORMAT = "pulse-sealed/1"
ITERATIONS = 600_000
MAGIC = b'{"format": "pulse-sealed/1"'   # how a sealed file starts (canonical header order)


def derive_key(passphrase: str, salt: bytes, iterations: int = ITERATIONS) -> bytes:
    if not passphrase:
        raise PulseError("the passphrase is empty")
    return hashlib.pbkdf2_hmac("sha256", passphrase.encode("utf-8"), salt, iterations, 32)


def seal_parts(data: bytes, passphrase: str, content: str, *,
               iterations: int = ITERATIONS) -> tuple[dict[str, Any], bytes, bytes]:
    """(header, header line bytes, ciphertext+tag)."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    salt, nonce = os.urandom(16), os.urandom(12)
    header = {"format": FORMAT, "content": content, "cipher": "AES-256-GCM",
              "kdf": "PBKDF2-HMAC-SHA256", "iterations": iterations,
              "salt": base64.b64encode(salt).decode("ascii"),
              "nonce": base64.b64encode(nonce).decode("ascii")}
    line = json.dumps(header, ensure_ascii=True).encode("ascii")
    key = derive_key(passphrase, salt, iterations)
    return header, line, AESGCM(key).encrypt(nonce, data, line)


def seal(data: bytes, passphrase: str, content: str) -> bytes:
    """The whole sealed file."""
    _, line, body = seal_parts(data, passphrase, content)
    return line + b"\n" + body


def is_sealed(head: bytes) -> bool:
    return head.startswith(MAGIC)


def unseal(blob: bytes, passphrase: str, content: str, label: str) -> bytes:
    """The content's bytes; one clear line (PulseError) for a wrong passphrase, a damaged file,
    another content or weak parameters."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    line, sep, body = blob.partition(b"\n")
    try:
        header = json.loads(line.decode("ascii")) if sep else None
    except (UnicodeDecodeError, ValueError):
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise PulseError(f"{label}: not a sealed Pulse file ({FORMAT})")
    if header.get("content") != content:
        raise PulseError(f"{label}: holds {header.get('content')!r}, not {content!r}")
    try:
        iterations = int(header["iterations"])
        salt = base64.b64decode(header["salt"], validate=True)
        nonce = base64.b64decode(header["nonce"], validate=True)
    except (KeyError, TypeError, ValueError):
        raise PulseError(f"{label}: its header is damaged") from None
    if header.get("cipher") != "AES-256-GCM" or header.get("kdf") != "PBKDF2-HMAC-SHA256" \
            or iterations < ITERATIONS or len(salt) < 16 or len(nonce) != 12:
        raise PulseError(f"{label}: unsupported or weak sealing parameters")
    try:
        return AESGCM(derive_key(passphrase, salt, iterations)).decrypt(nonce, body, line)
    except InvalidTag:
        raise PulseError(f"{label}: wrong passphrase, or the file is damaged; nothing was "
                         "read") from None
