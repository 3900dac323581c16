"""A correction whose withdrawn term can never be matched was recorded as binding, counted in the
brief's "1 binding correction (1 withdrawn term)", and blocked nothing: a term holding a control
character (an MCP client's "a\\u0000b"), or one that the guard's matching makes the same as its
replacement ("1,000" withdrawn, "1000" the replacement: every sentence naming it is a
"comparison"). Both are refused with a line naming the term; nothing is recorded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import ValidationError
from core.memory import Memory
from core.trust.corrections import correct


@pytest.mark.parametrize(("withdrawn", "replacement", "says"), [
    (["a\x00b"], ["c"], "control character"),
    (["price\x1b[31m"], ["c"], "control character"),
    (["1,000 users"], ["1000 users"], "both withdrawn and its own replacement"),
    (["Cafe\u0301"], ["CAFÉ"], "both withdrawn and its own replacement"),
])
def test_unmatchable_terms_are_refused(memory: Memory, withdrawn, replacement, says) -> None:
    with pytest.raises(ValidationError, match=says):
        correct(memory, withdrawn=withdrawn, replacement=replacement, note="n")
    assert memory.corrections() == []
    assert memory.verify() == [] and memory.stats()["journal_head"] == 0


def test_the_cli_names_the_term(db_path: Path) -> None:
    Memory.open(db_path, create=True).close()
    result = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db_path), "correct",
                             "--withdrawn", "tab\x07bell", "--replacement", "x", "--note", "n"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "control character" in result.stderr
