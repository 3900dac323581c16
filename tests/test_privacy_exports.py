"""Exports that really redact (issue 13 §3): every level of the viewer export, from Memory and
from the CLI, searched byte by byte for every string it must not hold; the journal export of a
memory with policies holds no redacted name and still verifies and replays."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.memory import Memory

ROOT = Path(__file__).resolve().parent.parent
CORPUS = {"format": "pulse-corpus/1",
          "entities": [{"key": "me", "name": "Nadia", "kind": "person"},
                       {"key": "tom", "name": "Tomasz Reyes", "kind": "person",
                        "aliases": ["Tomasz", "Tomek"]},
                       {"key": "lena", "name": "Lena Frost", "kind": "person"},
                       {"key": "dad", "name": "Papa's death", "kind": "safety_boundary",
                        "do_not_probe": True, "aliases": ["how Papa died at the dacha"]}],
          "events": [
              {"key": "e1", "title": "Tomasz left in the night",
               "description": "Tomek packed the blue suitcase while everyone slept.",
               "ts": "2026-01-10T09:00:00Z", "entities": ["me", "tom"]},
              {"key": "e2", "title": "Lunch with Lena Frost",
               "description": "Lena Frost ordered soup and cried about her divorce.",
               "ts": "2026-02-10T09:00:00Z", "entities": ["me", "lena"]},
              {"key": "e3", "title": "The call from the hospital",
               "description": "Heart attack at sixty-one, the nurse said.",
               "ts": "2026-03-10T09:00:00Z", "entities": ["me", "dad"]},
              {"key": "e4", "title": "Morning swim at the lido",
               "description": "Cold water, then a long breakfast with the swim club.",
               "ts": "2026-04-10T09:00:00Z", "entities": ["me"]}],
          "facts": [{"entity": "me", "text": "Nadia keeps a dream diary by the bed."},
                    {"entity": "tom", "text": "Tomasz Reyes moved to Gdansk."},
                    {"entity": "dad", "text": "Pavel collapsed in the dacha's garden."}]}

NAMES = ["Tomasz", "Tomek", "Tomasz Reyes", "Lena Frost", "Lena"]
# what a boundary withholds: its events, and what its own entity says of the topic beyond its
# name (the brief shows only the name too)
BEHIND = ["The call from the hospital", "Heart attack at sixty-one", "how Papa died at the dacha",
          "collapsed in the dacha's garden"]
EVENT_TEXT = ["ordered soup", "blue suitcase", "long breakfast with the swim club"]
FACT_TEXT = ["dream diary"]


@pytest.fixture(scope="module")
def memory_path(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("exports") / "m.db"
    with Memory.open(db, create=True) as memory:
        memory.import_corpus(CORPUS)
        memory.set_policy("tom", "redact", label="[ex-partner]")
        memory.set_policy("lena", "no_capture")
    return db


def _forms(text: str) -> list[bytes]:
    return [text.encode(), json.dumps(text)[1:-1].encode(),
            json.dumps(text, ensure_ascii=False)[1:-1].encode(),
            text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode()]


def _absent(raw: bytes, texts: list[str], where: str) -> None:
    for text in texts:
        for form in _forms(text):
            assert form not in raw, f"{text!r} is in {where}"


def _present(raw: bytes, texts: list[str], where: str) -> None:
    for text in texts:
        assert any(form in raw for form in _forms(text)), f"{text!r} missing from {where}"


@pytest.mark.parametrize("level", ["names", "no-event-text", "titles-only"])
def test_each_level_leaves_out_what_it_says(tmp_path: Path, memory_path: Path, level) -> None:
    out = tmp_path / f"{level}.html"
    with Memory.open(memory_path, read_only=True) as memory:
        summary = memory.export_html(out, redact=level)
    raw = out.read_bytes()
    assert summary["redaction"] == level
    assert summary["withheld"]["events_behind_boundaries"] == 1
    _absent(raw, NAMES + BEHIND, level)
    _present(raw, ["[ex-partner]", "Morning swim at the lido", "Papa's death"], level)
    # the redacted person's key ("tom") is a handle on the name: searching "tom" would find them
    assert b'"key":"tom"' not in raw
    if level == "names":
        _present(raw, ["long breakfast with the swim club", "dream diary"], level)
    else:
        _absent(raw, EVENT_TEXT, level)
    if level == "titles-only":
        _absent(raw, FACT_TEXT, level)
    else:
        _present(raw, FACT_TEXT, level)


def test_the_cli_flags_match(tmp_path: Path, memory_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PULSE_VIEWER_PASSPHRASE": "phone me"}
    for args, expect in ((["--redact"], "no-event-text"),
                         (["--redact", "titles-only", "--lock"], "titles-only"),
                         ([], "names")):
        out = tmp_path / "v.html"
        run = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(memory_path),
                              "--json", "export-html", "--out", str(out), *args],
                             capture_output=True, text=True, env=env, cwd=ROOT, timeout=180,
                             stdin=subprocess.DEVNULL)
        assert run.returncode == 0, run.stderr
        summary = json.loads(run.stdout)
        assert summary["redaction"] == expect and summary["locked"] == ("--lock" in args)
        _absent(out.read_bytes(), NAMES + BEHIND, expect)
        if "--lock" in args:
            _absent(out.read_bytes(), ["[ex-partner]", "Morning swim at the lido"], "locked")
    bad = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(memory_path),
                          "export-html", "--out", str(tmp_path / "x.html"), "--redact", "most"],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=180)
    assert bad.returncode == 1 and "unknown redaction level" in bad.stderr
    assert not (tmp_path / "x.html").exists()


def test_the_journal_export_holds_no_redacted_name_and_replays(tmp_path: Path,
                                                               memory_path: Path) -> None:
    out = tmp_path / "journal.jsonl"
    with Memory.open(memory_path, read_only=True) as memory:
        memory.export_journal(out)
        assert memory.verify() == []
    raw = out.read_bytes()
    _absent(raw, NAMES + ["ordered soup", "her divorce"], "the journal export")
    assert b"[ex-partner]" in raw
    copy = tmp_path / "copy.db"
    Memory.replay(out, copy)
    with Memory.open(copy) as replayed:
        assert replayed.verify() == []
        assert replayed.policy("tom")["name"] == "[ex-partner]"
        assert replayed.policy("tom")["policy"] == "redact"


def test_no_export_holds_the_source_text_of_an_event_behind_a_boundary(tmp_path: Path) -> None:
    """One journal entry becomes several events and entities: an event behind a boundary
    leaves out its source text, so that text must not come back as the observation of an
    event or an entity cut from the same entry (it did, in the default export)."""
    journal = tmp_path / "journal.txt"
    journal.write_text("2026-02-03\n\nMama called at six. Papa died last night in Yekaterinburg, "
                       "a heart attack at the dacha, and Aunt Olga found him on the kitchen "
                       "floor.\n\n2026-02-10\n\nCoffee with Dana Whitfield at Juniper and Grind. "
                       "We laughed about the espresso machine.\n", encoding="utf-8")
    with Memory.open(tmp_path / "m.db", create=True) as memory:
        memory.import_files(journal, fmt="text", me="Nadia")
        memory.set_policy("Yekaterinburg", do_not_probe=True)
        for level in ("names", "no-event-text", "titles-only"):
            out = tmp_path / f"{level}.html"
            summary = memory.export_html(out, redact=level)
            assert summary["withheld"]["events_behind_boundaries"] >= 1
            raw = out.read_bytes()
            _absent(raw, ["a heart attack at the dacha", "found him on the kitchen floor"], level)
            if level == "names":
                _present(raw, ["We laughed about the espresso machine."], level)
