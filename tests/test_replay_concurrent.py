"""Two replays of one journal into the same new memory at once (a restore script run twice, or
from two terminals): the second read "nothing here yet" before it waited for the write lock,
then re-applied every row after the first had committed them and failed with "journal row 1
(entity.add): cannot apply its changes (UNIQUE constraint failed: entities.id)". It must see
what the first wrote and add nothing. Real processes; the first holds its transaction open
until the second is waiting for the lock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from core.memory import Memory

ROOT = Path(__file__).resolve().parent.parent
LOCK_WAIT_S = 4
CORPUS = {"format": "pulse-corpus/1", "events": [
    {"key": f"e{i}", "title": f"Day {i} at the studio", "ts": f"2026-10-{10 + i}T09:00:00Z"}
    for i in range(1, 4)]}

HOLDER = """
import sys
from core.store import db
from core.trust import replay

class HoldingAtCommit:
    def __init__(self, conn):
        self._conn = conn
    def __getattr__(self, name):
        return getattr(self._conn, name)
    def execute(self, sql, *args):
        if sql == "COMMIT":
            print("holding", flush=True)
            sys.stdin.readline()
        return self._conn.execute(sql, *args)

conn = db.connect(sys.argv[2], create=True)
replay._replay_rows(HoldingAtCommit(conn), replay.read_export(sys.argv[1]), sys.argv[2])
conn.close()
"""


def env() -> dict[str, str]:
    out = {**os.environ, "PYTHONPATH": str(ROOT)}
    out.pop("PULSE_DB", None)
    return out


def test_a_second_replay_waits_and_adds_nothing(tmp_path: Path) -> None:
    source, target, out = tmp_path / "m.db", tmp_path / "copy.db", tmp_path / "j.jsonl"
    with Memory.open(source, create=True) as memory:
        memory.import_corpus(CORPUS)
        memory.export_journal(out)
        rows, digest = memory.stats()["journal_head"], memory.digest()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(out), str(target)], env=env(),
                              cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "holding", holder.stderr.read()
    second = subprocess.Popen([sys.executable, "-m", "core.cli", "--json", "replay", str(out),
                               "--db", str(target)], env=env(), cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(LOCK_WAIT_S)
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.wait(timeout=60) == 0, holder.stderr.read()
        answer, err = second.communicate(timeout=120)
    finally:
        for proc in (holder, second):
            if proc.poll() is None:
                proc.kill()
    assert second.returncode == 0, err
    summary = json.loads(answer)
    assert (summary["applied"], summary["already_present"]) == (0, rows)
    with Memory.open(target) as memory:
        assert memory.verify() == [] and memory.digest() == digest
