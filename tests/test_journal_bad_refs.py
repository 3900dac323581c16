"""Bad references to the journal commands, as typed: an id of 23 digits, a superscript digit,
a name pasted 100,000 characters long. `forget event:99999999999999999999999` and `correct
--supersedes 99999999999999999999999` ended in "unexpected error: OverflowError", `forget
event:²` in a ValueError; a long name was echoed whole. Each is one clear line now, nothing
written. Real processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.memory import Memory

HUGE = "9" * 23


def pulse(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), *args],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("args", [
    ("forget", f"event:{HUGE}"),
    ("forget", f"fact:{HUGE}"),
    ("forget", "event:²"),
    ("forget", "entity:" + "x" * 100_000),
    ("forget", "y" * 100_000),
    ("correct", "--withdrawn", "a1", "--replacement", "b1", "--note", "n", "--supersedes", HUGE),
])
def test_a_bad_reference_is_one_clear_line(db_path: Path, args: tuple[str, ...]) -> None:
    with Memory.open(db_path, create=True) as memory:
        memory.correct(withdrawn=["x1"], replacement=["y1"], note="first")
    result = pulse(db_path, *args)
    assert result.returncode == 1
    assert result.stderr.startswith("pulse: ") and result.stderr.count("\n") == 1
    assert "unexpected error" not in result.stderr and len(result.stderr) < 400
    with Memory.open(db_path) as memory:
        assert memory.stats()["journal_head"] == 1 and memory.verify() == []


def test_recalls_show_of_an_id_past_sqlites_integers(db_path: Path) -> None:
    Memory.open(db_path, create=True).close()
    result = pulse(db_path, "recalls", "show", HUGE)
    assert result.returncode == 1 and result.stderr == f"pulse: no recall record {HUGE}\n"
