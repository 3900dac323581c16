"""check and lint on text as people type it. Each case was reported no-evidence, so the stale
fact went through as if unchecked:
- an accent written as a combining mark, a thousands separator that is a (narrow) no-break
  space;
- a withdrawn term broken over a wrapped line (rule files are Markdown, wrapped at 80 or 100
  columns)."""

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




def test_a_withdrawn_term_wrapped_over_two_lines_is_blocked(corrected: Path) -> None:
    code, out = check(corrected, "# Notes\n\nBiscuit, her dog, is a scruffy terrier\nmix from "
                                 "the Port Alder shelter.\n")
    assert code == 2 and out["verdict"] == "BLOCKED"
    assert out["hits"][0]["term"] == "terrier mix" and out["hits"][0]["line"] == 3


def test_a_wrapped_comparison_still_passes(corrected: Path) -> None:
    code, out = check(corrected, "The shelter said terrier\nmix; the vet says beagle.\n")
    assert code == 0 and out["verdict"] == "verified"


def test_list_items_are_not_one_sentence(corrected: Path) -> None:
    code, out = check(corrected, "- Biscuit is a terrier\n- Biscuit is a beagle\n")
    assert out["verdict"] == "verified"      # "terrier" alone is not the withdrawn term
    code, out = check(corrected, "- breed: terrier mix\n- vet: beagle\n")
    assert code == 2 and out["hits"][0]["line"] == 1


def test_lint_of_a_wrapped_rule_file_names_the_line(corrected: Path, tmp_path: Path) -> None:
    rules = tmp_path / "CLAUDE.md"
    rules.write_text("Context for the companion.\n\nShe walks Biscuit, a terrier\nmix, twice a "
                     "day.\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(corrected), "lint",
                             str(rules)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stdout
    assert "line 3" in result.stdout
