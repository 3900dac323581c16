"""Erasing everything about a person (`forget entity:X --cascade`, and the no_capture policy,
which erases through it) took the events naming them but left the facts of other people that
name them ("Katya's daughter Zoya started school." stayed on Katya), so the name was still in
the file's bytes, its index and the journal, against "his names are then in no byte of the
file". A fact naming them now goes like an event naming them. Real files, real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from safe_bytes import memory_bytes

CORPUS = {
    "format": "pulse-corpus/1",
    "entities": [{"key": "katya", "name": "Katya Lind", "kind": "person", "aliases": ["Katya"]},
                 {"key": "zoya", "name": "Zoya Lind", "kind": "person", "aliases": ["Zoya"]}],
    "events": [{"key": "e1", "title": "Sunday lunch at Katya's", "ts": "2026-10-01T12:00:00Z",
                "entities": ["katya"]}],
    "facts": [{"entity": "katya", "text": "Katya's daughter Zoya started school in September."},
              {"entity": "katya", "text": "Katya works nights at the hospital."},
              {"entity": "zoya", "text": "She loves dinosaurs."}],
}


def pulse(db: Path, *args: str) -> dict:
    result = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), "--json", *args],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_fact_of_someone_else_naming_the_person_is_erased_too(tmp_path: Path) -> None:
    db, corpus = tmp_path / "m.db", tmp_path / "c.json"
    corpus.write_text(json.dumps(CORPUS), encoding="utf-8")
    pulse(db, "import", str(corpus))
    preview = pulse(db, "forget", "entity:zoya", "--cascade", "--dry-run")
    assert preview["counts"]["fact"] == 2 and preview["kept_mentions"] == []
    assert any(i["kind"] == "fact" and "names Zoya" in i["reason"] for i in preview["items"])
    pulse(db, "forget", "entity:zoya", "--cascade")
    assert b"Zoya" not in memory_bytes(db)
    assert pulse(db, "stats")["counts"]["facts"] == 1          # Katya's other fact stays
    assert pulse(db, "verify")["ok"] is True
