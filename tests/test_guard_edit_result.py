"""The guard judges what an Edit leaves in the file, not only the `new_string`: replacing
"breed" by "mix" in "Biscuit is a terrier breed" writes the withdrawn "terrier mix" though
neither string holds it, and it was allowed. A withdrawn term that was already in the file and
that the edit does not add is not the edit's doing (it is still blocked in the edit's own text).
Real files, the real `pulse guard` process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.memory import Memory
from core.trust.corrections import correct


@pytest.fixture
def corrected(db_path: Path) -> Path:
    with Memory.open(db_path, create=True) as memory:
        correct(memory, withdrawn=["terrier mix"], replacement=["beagle"], note="Biscuit")
    return db_path


def guard(db: Path, hook: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), "guard"],
                          input=json.dumps(hook), capture_output=True, text=True, timeout=60)


def test_an_edit_that_completes_a_withdrawn_term_is_blocked(corrected: Path, tmp_path: Path
                                                            ) -> None:
    notes = tmp_path / "NOTES.md"
    notes.write_text("# Biscuit\n\nBiscuit is a terrier breed, one ear up.\n", encoding="utf-8")
    result = guard(corrected, {"tool_name": "Edit", "tool_input": {
        "file_path": str(notes), "old_string": "breed", "new_string": "mix"}})
    assert result.returncode == 2, result.stderr
    assert "terrier mix" in result.stderr and "line 3" in result.stderr


def test_a_multiedit_is_judged_on_the_file_it_leaves(corrected: Path, tmp_path: Path) -> None:
    notes = tmp_path / "NOTES.md"
    notes.write_text("Biscuit is a terrier.\nShe is a good dog.\n", encoding="utf-8")
    result = guard(corrected, {"tool_name": "MultiEdit", "tool_input": {
        "file_path": str(notes), "edits": [
            {"old_string": "terrier.", "new_string": "terrier"},
            {"old_string": "She is", "new_string": "mix. She is"}]}})
    assert result.returncode == 2, result.stderr


def test_an_edit_elsewhere_in_a_file_that_already_holds_the_term_is_allowed(
        corrected: Path, tmp_path: Path) -> None:
    notes = tmp_path / "NOTES.md"
    notes.write_text("Old note: a terrier mix.\n\nWalks: twice a day.\n", encoding="utf-8")
    result = guard(corrected, {"tool_name": "Edit", "tool_input": {
        "file_path": str(notes), "old_string": "twice", "new_string": "three times"}})
    assert result.returncode == 0, result.stderr
    result = guard(corrected, {"tool_name": "Edit", "tool_input": {
        "file_path": str(notes), "old_string": "twice", "new_string": "twice (a terrier mix)"}})
    assert result.returncode == 2


def test_an_edit_of_a_file_that_is_not_there_is_judged_on_its_text(corrected: Path,
                                                                    tmp_path: Path) -> None:
    hook = {"tool_name": "Edit", "tool_input": {"file_path": str(tmp_path / "gone.md"),
                                                "old_string": "x", "new_string": "mix"}}
    assert guard(corrected, hook).returncode == 0
