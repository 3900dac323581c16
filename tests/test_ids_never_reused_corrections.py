"""Corrections and guard overrides are cited by their id too ("correction 5 (journal row 10)"
in every BLOCKED verdict, a therapist's note, a hook message): after the newest one's creation
was undone, the next one took its id and an old citation named another correction. Real files,
real CLI processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def pulse(db: Path, *args: str) -> dict:
    result = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), "--json", *args],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout) if result.stdout.strip() else {}


def test_an_undone_corrections_id_is_not_given_again(db_path: Path) -> None:
    pulse(db_path, "init")
    pulse(db_path, "correct", "--withdrawn", "$49", "--replacement", "$29", "--note", "price")
    second = pulse(db_path, "correct", "--withdrawn", "terrier", "--replacement", "beagle",
                   "--note", "breed")
    pulse(db_path, "undo")
    third = pulse(db_path, "correct", "--withdrawn", "Café Lumen", "--replacement",
                  "Bean Street", "--note", "moved")
    assert third["id"] > second["id"]
    assert sorted(c["id"] for c in pulse(db_path, "corrections")) == [1, third["id"]]


def test_an_undone_overrides_id_is_not_given_again(db_path: Path) -> None:
    pulse(db_path, "init")
    first = pulse(db_path, "guard", "allow", "$49", "--path", "docs/", "--reason", "history")
    pulse(db_path, "undo")
    second = pulse(db_path, "guard", "allow", "$49", "--path", "notes/", "--reason", "quotes")
    assert second["id"] > first["id"]
