"""check, lint and guard (JOURNAL §4): three verdicts, token-boundary matching, comparisons,
hook input, journaled overrides, and a broken journal that blocks everything."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.memory import Memory
from core.trust.corrections import correct
from core.trust.guard import (
    BLOCKED,
    NO_EVIDENCE,
    VERIFIED,
    allow,
    check_text,
    contains,
    guard_hook,
    load_context,
)


@pytest.fixture
def mem(memory: Memory) -> Memory:
    correct(memory, withdrawn=["$49"], replacement=["$29"], note="measured willingness to pay")
    correct(memory, withdrawn=["1,000 users"], replacement=["800 users"], note="we measured")
    correct(memory, withdrawn=["PostgreSQL"], replacement=["SQLite"], note="storage")
    return memory


def verdict(memory: Memory, text: str, path: str | None = None) -> str:
    return check_text(load_context(memory), text, path)["verdict"]


def test_token_boundaries_and_numbers() -> None:
    assert contains("The price is $49.", "$49")
    assert not contains("The price is $490.", "$49")
    assert not contains("The price is $49.50 now", "$49")
    assert not contains("It costs 1$49", "$49")
    assert contains("we have 1000 users", "1,000 users")
    assert contains("we have 1,000 users", "1000 users")
    assert not contains("we have 11,000 users", "1,000 users")
    assert contains("we use POSTGRESQL", "PostgreSQL")
    assert not contains("we use PostgreSQLite", "PostgreSQL")


def test_three_verdicts(mem: Memory) -> None:
    assert verdict(mem, "The plan costs $49 a month.") == BLOCKED
    assert verdict(mem, "The plan costs $490 a month.") == NO_EVIDENCE
    assert verdict(mem, "The plan costs $29 a month.") == VERIFIED
    assert verdict(mem, "We had 1000 users.") == BLOCKED
    assert verdict(mem, "we store it in postgresql") == BLOCKED
    assert verdict(mem, "nothing relevant here") == NO_EVIDENCE


def test_comparison_sentence_passes_but_not_elsewhere(mem: Memory) -> None:
    assert verdict(mem, "The price was $49, now it is $29.") == VERIFIED
    text = "The price is $49.\nLater in the file: the new price is $29."
    result = check_text(load_context(mem), text)
    assert result["verdict"] == BLOCKED
    assert result["hits"][0]["line"] == 1 and "journal row" in result["reason"]


def test_superseded_correction_stops_binding(memory: Memory) -> None:
    a = correct(memory, withdrawn=["$49"], replacement=["$29"])
    assert verdict(memory, "costs $49") == BLOCKED
    correct(memory, withdrawn=["$29"], replacement=["$49"], supersedes=[a["journal_seq"]])
    assert verdict(memory, "costs $49") == VERIFIED
    assert verdict(memory, "costs $29") == BLOCKED


def hook(tool: str, path: str, **tool_input) -> str:
    return json.dumps({"tool_name": tool, "tool_input": {"file_path": path, **tool_input}})


def test_guard_hook(mem: Memory) -> None:
    ctx = load_context(mem)
    status, message = guard_hook(ctx, hook("Write", "/x/README.md", content="Price: $49"))
    assert status == 2 and "$49" in message and "journal row" in message
    assert guard_hook(ctx, hook("Edit", "/x/a.md", new_string="Price: $29"))[0] == 0
    edits = [{"old_string": "a", "new_string": "fine"}, {"old_string": "b", "new_string": "$49!"}]
    assert guard_hook(ctx, hook("MultiEdit", "/x/a.md", edits=edits))[0] == 2
    assert guard_hook(ctx, hook("Edit", "/x/a.md", new_string="was $49, now $29"))[0] == 0
    for raw in ("", "not json", "[]", '{"tool_name": "Bash", "tool_input": {"command": "$49"}}',
                '{"tool_name": "Edit"}', '{"tool_name": "Edit", "tool_input": 5}'):
        assert guard_hook(ctx, raw) == (0, "")


def test_overrides_are_journaled(mem: Memory, tmp_path: Path) -> None:
    head = mem.stats()["journal_head"]
    out = allow(mem, "$49", str(tmp_path / "docs"), "historical changelog")
    assert out["journal_seq"] == head + 1
    row = mem.conn.execute("SELECT op FROM journal WHERE seq = ?", (head + 1,)).fetchone()
    assert row["op"] == "guard.allow"
    ctx = load_context(mem)
    inside = str(tmp_path / "docs" / "CHANGELOG.md")
    assert guard_hook(ctx, hook("Write", inside, content="v1 cost $49"))[0] == 0
    outside = str(tmp_path / "src" / "pricing.md")
    assert guard_hook(ctx, hook("Write", outside, content="v1 cost $49"))[0] == 2
    assert guard_hook(ctx, hook("Write", str(tmp_path / "docsx" / "a.md"),
                                content="$49"))[0] == 2


def test_broken_journal_blocks_everything(mem: Memory) -> None:
    mem.conn.execute("UPDATE journal SET actor = 'mallory' WHERE seq = 1")
    ctx = load_context(mem)
    assert check_text(ctx, "nothing relevant")["verdict"] == BLOCKED
    assert check_text(ctx, "costs $29")["verdict"] == BLOCKED
    status, message = guard_hook(ctx, hook("Write", "/a.md", content="harmless"))
    assert status == 2 and "does not verify" in message


def pulse(db: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), *args],
                          capture_output=True, text=True, input=stdin, timeout=120)


def test_cli_check_lint_guard(mem: Memory, db_path: Path, tmp_path: Path) -> None:
    mem.close()
    bad, good, none = tmp_path / "CLAUDE.md", tmp_path / "AGENTS.md", tmp_path / "style.md"
    bad.write_text("Our price is $49.\n", encoding="utf-8")
    good.write_text("Our price is $29.\n", encoding="utf-8")
    none.write_text("Use tabs.\n", encoding="utf-8")
    result = pulse(db_path, "check", str(bad))
    assert result.returncode == 2 and "BLOCKED" in result.stdout
    result = pulse(db_path, "check", "-", stdin="price $29")
    assert result.returncode == 0 and "verified" in result.stdout
    result = pulse(db_path, "check", "--json", stdin="hello")
    assert result.returncode == 0 and json.loads(result.stdout)["verdict"] == "no-evidence"
    result = pulse(db_path, "lint", str(bad), str(good), str(none), "--json")
    assert result.returncode == 2
    out = json.loads(result.stdout)
    assert out["counts"] == {"BLOCKED": 1, "verified": 1, "no-evidence": 1}
    empty = tmp_path / "empty"
    empty.mkdir()
    assert pulse(db_path, "lint", str(empty)).returncode == 0
    assert pulse(db_path, "lint", str(empty), "--ci").returncode == 1
    assert pulse(db_path, "lint", str(good), "--ci").returncode == 0
    missing = pulse(db_path, "lint", str(tmp_path / "nope.md"))
    assert missing.returncode == 1 and "no such file" in missing.stderr
    blocked = pulse(db_path, "guard", stdin=hook("Write", str(bad), content="$49 again"))
    assert blocked.returncode == 2 and "$49" in blocked.stderr
    assert pulse(db_path, "guard", stdin="{garbage").returncode == 0
    assert pulse(db_path, "guard", stdin="{garbage").stderr == ""
    allowed = pulse(db_path, "guard", "allow", "$49", "--path", str(tmp_path), "--reason", "ok")
    assert allowed.returncode == 0, allowed.stderr
    assert pulse(db_path, "guard", stdin=hook("Write", str(bad), content="$49")).returncode == 0
    # no memory at all: the hook stays out of the way
    assert pulse(tmp_path / "none.db", "guard",
                 stdin=hook("Write", str(bad), content="$49")).returncode == 0
