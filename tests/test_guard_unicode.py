"""check on text as people type it: an accent written as a combining mark, a thousands
separator that is a (narrow) no-break space. Each was reported no-evidence: the stale fact went
through as if unchecked."""

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
        correct(memory, withdrawn=["Café Lumen"], replacement=["Bean Street"], note="moved")
        correct(memory, withdrawn=["1,000 users"], replacement=["800 users"], note="measured")
    return db_path


def check(db: Path, text: str) -> tuple[int, dict]:
    result = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), "--json",
                             "check", "-"], input=text, capture_output=True, text=True,
                            timeout=60)
    assert result.stderr == ""
    return result.returncode, json.loads(result.stdout)


@pytest.mark.parametrize("text", [
    "We meet at Cafe\u0301 Lumen on Fridays.",        # e + combining acute (macOS, some editors)
    "We meet at CAFE\u0301 LUMEN on Fridays.",
    "We have 1\u202f000 users.",                       # narrow no-break space (French style)
    "We have 1\u00a0000 users.",                       # no-break space
])
def test_unicode_spellings_of_a_withdrawn_term_are_blocked(corrected: Path, text: str) -> None:
    code, out = check(corrected, text)
    assert code == 2 and out["verdict"] == "BLOCKED", out
