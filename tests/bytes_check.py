"""Search the bytes of files Pulse wrote, from another process: a plain file handle on a file
SQLite holds in this process would drop this process's locks (POSIX locks are per process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# Tom Reyes, the demo's ex-husband, and the marker of a chat line about him
NAMES = (rb"Tom Reyes", rb"\bTom\b", rb"ex-husband", rb"TOMSECRET")
CHAT = [
    {"id": "c1", "speaker": "Nadia", "ts": "2026-10-20T09:00:00Z",
     "text": "Tom called again last night about the TOMSECRET boxes. I felt sick for hours."},
    {"id": "c2", "speaker": "Nadia", "ts": "2026-10-21T09:00:00Z",
     "text": "Dana took me for a long HARBOURWALK and I laughed for the first time."},
]


def hits_in_files(paths: list[Path], patterns: tuple[bytes, ...] = NAMES) -> dict[str, int]:
    """Count matches of each pattern in the files, read by a separate process (a plain file
    handle here would drop this process's SQLite locks)."""
    code = ("import json, re, sys\n"
            "pats = [p.encode('latin-1') for p in json.loads(sys.argv[1])]\n"
            "out = {}\n"
            "for name in sys.argv[2:]:\n"
            "    try:\n        data = open(name, 'rb').read()\n"
            "    except FileNotFoundError:\n        continue\n"
            "    for p in pats:\n"
            "        n = len(re.findall(p, data))\n"
            "        if n: out[name + ' ' + p.decode('latin-1')] = n\n"
            "print(json.dumps(out))\n")
    result = subprocess.run([sys.executable, "-c", code,
                             json.dumps([p.decode("latin-1") for p in patterns]),
                             *map(str, paths)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def sqlite_files(path: Path) -> list[Path]:
    return [Path(str(path) + s) for s in ("", "-wal", "-shm")]
