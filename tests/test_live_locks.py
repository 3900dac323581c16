"""The lock bug of issue 11, with real processes: a process that holds a memory open must
keep its SQLite locks when it opens and closes a second Memory on the same file (as every app
worker does), so another process closing its connection never takes itself for the last one,
checkpoints and deletes the -wal/-shm under the first process's feet.

1. process A opens a Memory on m.db and keeps it open (the app's session);
2. in A, a second Memory.open(m.db) is opened and closed (an app worker);
3. another process runs `pulse --db m.db stats`;
4. m.db-wal and m.db-shm must still exist, and what A writes next must be seen by others.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.memory import Memory
from core.store.sqlite import sqlite3  # SQLCipher: opens a plain or an encrypted memory

# every test runs on a plain and on an encrypted memory (issue 13: the same guarantees)
KINDS = pytest.mark.parametrize("secret", [None, "locks passphrase"], indirect=True,
                                ids=["plain", "encrypted"])

ROOT = Path(__file__).resolve().parent.parent

CORPUS = {"format": "pulse-corpus/1", "events": [
    {"key": f"e{i}", "title": f"Ordinary day {i}", "description": f"Work, groceries, call {i}.",
     "ts": f"2026-0{1 + i % 9}-1{i % 10}T09:00:00Z"} for i in range(1, 6)]}

# Process A: the app's pattern — one Memory held for the whole session, workers opening and
# closing their own. Commands on stdin, one JSON answer per line on stdout.
HOLDER = r"""
import json, os, sys
from core.memory import Memory
path = sys.argv[1]
held = Memory.open(path, passphrase=os.environ.get("PULSE_PASSPHRASE"))
held.stats()
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == "worker":
        with Memory.open(path) as worker:   # held here: no passphrase asked again
            worker.stats()
        print(json.dumps({"ok": True}), flush=True)
    elif cmd[0] == "set":
        seq = held.set_belief(cmd[1], confidence_floor=float(cmd[2]))
        print(json.dumps({"seq": seq}), flush=True)
    elif cmd[0] == "quit":
        break
held.close()
print(json.dumps({"closed": True}), flush=True)
"""


SECRET: dict[str, str | None] = {"value": None}   # the memory's passphrase in this test


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PULSE_DB", None)
    env.pop("PULSE_PASSPHRASE", None)
    if SECRET["value"]:
        env["PULSE_PASSPHRASE"] = SECRET["value"]
    return env


@pytest.fixture
def secret(request):
    SECRET["value"] = request.param
    yield request.param
    SECRET["value"] = None


def connect(db: Path):
    conn = sqlite3.connect(str(db))
    if SECRET["value"]:
        conn.execute(f"PRAGMA key = '{SECRET['value']}'")
    return conn


def create(db: Path) -> None:
    with Memory.open(db, create=True, encrypt=bool(SECRET["value"]),
                     passphrase=SECRET["value"]) as memory:
        memory.import_corpus(CORPUS)
        assert memory.encrypted is bool(SECRET["value"])


def pulse(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), "--json", *args],
                          capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=120)


class Holder:
    def __init__(self, db: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=_env(), cwd=ROOT)
        assert self.answer() == {"ready": True}

    def answer(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"process A died: {self.proc.stderr.read()}")
        return json.loads(line)

    def ask(self, command: str) -> dict:
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self.answer()

    def quit(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=60)


@KINDS
def test_a_worker_open_close_keeps_the_sessions_locks(tmp_path: Path, secret) -> None:
    db = tmp_path / "m.db"
    create(db)
    wal, shm = Path(f"{db}-wal"), Path(f"{db}-shm")
    holder = Holder(db)                                    # 1. A holds the memory open
    try:
        assert wal.exists() and shm.exists()
        assert holder.ask("worker") == {"ok": True}        # 2. a worker in A opens and closes
        stats = pulse(db, "stats")                         # 3. another process runs stats
        assert stats.returncode == 0, stats.stderr
        assert wal.exists(), "m.db-wal was deleted while process A still uses it"   # 4.
        assert shm.exists(), "m.db-shm was deleted while process A still uses it"
        # what A writes now lands in the one WAL every process reads
        seq = holder.ask("set e3 0.45")["seq"]
        assert seq
        seen = pulse(db, "retrieve", "ordinary day 3", "--top-k", "5")
        assert seen.returncode == 0, seen.stderr
        floors = {r["key"]: r["terms"]["confidence_floor"] for r in json.loads(seen.stdout)["results"]}
        assert floors.get("e3") == 0.45, floors
    finally:
        holder.quit()
    conn = connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT confidence_floor FROM events WHERE key='e3'").fetchone()[0] == 0.45
    finally:
        conn.close()
    verify = pulse(db, "verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr


WRITER = r"""
import os, sys
from core.memory import Memory
with Memory.open(sys.argv[1], passphrase=os.environ.get("PULSE_PASSPHRASE")) as memory:
    for i in range(int(sys.argv[2])):
        memory.set_belief(f"e{1 + i % 5}", confidence_floor=round((i % 50) / 100, 2))
"""


@KINDS
def test_verify_reads_one_snapshot_while_another_process_writes(tmp_path: Path, secret) -> None:
    """Found by the soak: verify read the journal rows and the recorded head in two statements,
    so a write committed between them was reported as "rows removed at the end" (exit 2)."""
    db = tmp_path / "m.db"
    create(db)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db), "400"], env=_env(),
                              cwd=ROOT, stderr=subprocess.PIPE, text=True)
    checks = 0
    with Memory.open(db, passphrase=secret) as memory:
        while writer.poll() is None or checks < 20:
            assert memory.verify() == []
            checks += 1
    assert writer.returncode == 0, writer.stderr.read()
    assert checks >= 20


@KINDS
def test_a_memory_open_here_is_never_read_or_overwritten_as_a_plain_file(tmp_path: Path,
                                                                         secret) -> None:
    """`pulse --db m.db import m.db` would open the memory with a plain handle while the same
    process holds it (dropping its locks); an export onto it would replace it. Both refused."""
    db = tmp_path / "m.db"
    create(db)
    with Memory.open(db, passphrase=secret) as memory:
        head = memory.stats()["journal_head"]
    for args in (("import", str(db)), ("import", f"{db}-wal"), ("journal", "export", str(db)),
                 ("export-html", "--out", str(db)), ("retrieve", "day", "--state", str(db))):
        out = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), *args],
                             capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=180)
        lines = out.stderr.strip().splitlines()
        assert out.returncode == 1 and len(lines) == 1, (args, out.stderr)
        assert "open in this program" in lines[0], (args, lines[0])
    with Memory.open(db, passphrase=secret) as memory:
        assert memory.verify() == [] and memory.stats()["journal_head"] == head
    conn = connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
