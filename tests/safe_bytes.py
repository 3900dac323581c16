"""Reading a memory file's bytes from a test that holds it open.

POSIX locks belong to the process: a plain open()/close() of a memory file (or its -wal/-shm)
in a process that has a SQLite connection to it drops that connection's locks (issue 11).
A test that searches the bytes of a memory it holds open therefore reads them in a child
process, whose close drops nothing of ours."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_READ = "import sys; sys.stdout.buffer.write(open(sys.argv[1], 'rb').read())"


def read_bytes_elsewhere(path: str | Path) -> bytes:
    return subprocess.run([sys.executable, "-c", _READ, str(path)], capture_output=True,
                          check=True).stdout


def memory_bytes(path: str | Path) -> bytes:
    """The database, its -wal and its -shm, as one blob (what exists of them)."""
    data = b""
    for suffix in ("", "-wal", "-shm"):
        p = Path(f"{path}{suffix}")
        if p.exists():
            data += read_bytes_elsewhere(p)
    return data
