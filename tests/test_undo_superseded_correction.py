"""Undoing a correction that a later one supersedes went through: the later correction then
said "supersedes row 1" of a row that recorded nothing any more, and the withdrawal it had
replaced was gone without the person seeing why. An undo that a later row still refers to is
refused, naming that row (docs/trust.md); undoing the later one first works."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def pulse(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), "--json", *args],
                          capture_output=True, text=True, timeout=60)


def test_a_superseded_correction_is_undone_only_after_what_supersedes_it(db_path: Path
                                                                           ) -> None:
    assert pulse(db_path, "init").returncode == 0
    first = json.loads(pulse(db_path, "correct", "--withdrawn", "$49", "--replacement", "$39",
                             "--note", "a").stdout)
    second = json.loads(pulse(db_path, "correct", "--withdrawn", "$39", "--replacement", "$29",
                              "--note", "b", "--supersedes", str(first["journal_seq"])).stdout)
    refused = pulse(db_path, "undo", "--seq", str(first["journal_seq"]))
    assert refused.returncode == 1
    assert f"journal row {second['journal_seq']}" in refused.stderr
    assert len(json.loads(pulse(db_path, "corrections").stdout)) == 2
    assert pulse(db_path, "undo").returncode == 0                       # the later one
    assert pulse(db_path, "undo", "--seq", str(first["journal_seq"])).returncode == 0
    assert json.loads(pulse(db_path, "corrections").stdout) == []
    assert json.loads(pulse(db_path, "verify").stdout)["ok"] is True
