"""The project documents itself: every `pulse` command is in docs/cli.md, and the README and
docs link only to files inside the repository (its users don't have the spec folder)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from core.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
CLI_DOC = ROOT / "docs" / "cli.md"


def _commands(parser: argparse.ArgumentParser, prefix: str = "pulse") -> list[str]:
    """Every command path, e.g. 'pulse merges approve', from the real parser."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                path = f"{prefix} {name}"
                found.append(path)
                found.extend(_commands(sub, path))
    return found


def test_every_pulse_command_is_in_the_cli_reference():
    text = CLI_DOC.read_text(encoding="utf-8")
    commands = _commands(build_parser())
    assert len(commands) > 20  # the walk really found the tree
    missing = [c for c in commands if not re.search(re.escape(c) + r"(?![\w-])", text)]
    assert missing == [], f"not documented in docs/cli.md: {missing}"


def test_readme_and_docs_link_only_inside_the_repository():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    outside = []
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"^[a-z]+://|^#|^mailto:", target):
                continue
            resolved = (page.parent / target.split("#")[0]).resolve()
            if not resolved.is_relative_to(ROOT) or not resolved.exists():
                outside.append(f"{page.name}: {target}")
        if "../shared" in page.read_text(encoding="utf-8"):
            outside.append(f"{page.name}: mentions ../shared")
    assert outside == [], outside


def test_the_cli_reference_has_exit_codes_json_shapes_and_formats():
    """docs/cli.md replaces the spec a user of Pulse does not have: exit codes, JSON shapes and
    the two import formats of their own (pulse-corpus/1 and chat) are there."""
    text = CLI_DOC.read_text(encoding="utf-8")
    exits = dict(re.findall(r"^\| ([0-2]) \| ([^|]+) \|$", text, re.M))
    assert set(exits) == {"0", "1", "2"} and "success" in exits["0"]
    assert "### `pulse-corpus/1`" in text and "### `chat`" in text
    assert '"format": "pulse-corpus/1"' in text
    # the JSON shape of an import and of a retrieval are written out
    assert '"observations": {"new": n' in text
    assert re.search(r'"results": \[', text)
