"""A correction outranks what it corrects wherever the memory reaches a companion, not only in
the brief: `retrieve`, MCP `recall` and `get_event` served "a scruffy terrier mix" after the
person had said "Biscuit is a beagle" (withdrawn "terrier mix"), with nothing to say so. Each
result that states a binding correction's withdrawn term, or is its subject, now carries it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from mcp_client import McpProcess  # noqa: E402

CORPUS = {
    "format": "pulse-corpus/1",
    "events": [
        {"key": "e1", "title": "Adopted Biscuit", "description": "Her first dog: a scruffy "
         "terrier mix from the shelter.", "ts": "2026-03-11T11:00:00Z"},
        {"key": "e2", "title": "Dawn run with Biscuit", "description": "Seven kilometres on "
         "the trail, Biscuit leading.", "ts": "2026-04-22T06:30:00Z"},
        {"key": "e3", "title": "Pricing call", "description": "We settled on $49 a month.",
         "ts": "2026-05-01T10:00:00Z"},
    ],
}
NOW = "2026-06-01T00:00:00Z"


def pulse(db: Path, *args: str) -> dict:
    result = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), "--json", *args],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def corrected(db_path: Path, tmp_path: Path) -> Path:
    corpus = tmp_path / "c.json"
    corpus.write_text(json.dumps(CORPUS), encoding="utf-8")
    pulse(db_path, "import", str(corpus))
    pulse(db_path, "correct", "--withdrawn", "terrier mix", "--replacement", "beagle",
          "--note", "Biscuit is a beagle, the shelter got it wrong")
    first = pulse(db_path, "correct", "--withdrawn", "$49", "--replacement", "$39",
                  "--note", "discount", "--subject", "event:e3")
    pulse(db_path, "correct", "--withdrawn", "$39", "--replacement", "$29", "--note",
          "measured", "--supersedes", str(first["journal_seq"]))
    return db_path


def _by_key(results: list[dict]) -> dict[str, dict]:
    return {r["key"]: r for r in results}


def test_retrieve_carries_the_corrections_of_each_result(corrected: Path) -> None:
    out = pulse(corrected, "retrieve", "Biscuit the dog", "--now", NOW, "--no-abstain")
    results = _by_key(out["results"])
    [correction] = results["e1"]["corrections"]
    assert correction["withdrawn"] == ["terrier mix"]
    assert correction["replacement"] == ["beagle"]
    recorded = {c["id"]: c["journal_seq"] for c in pulse(corrected, "corrections")}
    assert correction["binding"] is True
    assert correction["journal_seq"] == recorded[correction["id"]]
    assert "corrections" not in results["e2"]       # nothing bears on it


def test_a_superseded_correction_still_shows_on_its_subject_as_superseded(corrected: Path
                                                                           ) -> None:
    out = pulse(corrected, "retrieve", "pricing call", "--now", NOW, "--no-abstain")
    e3 = _by_key(out["results"])["e3"]
    assert [(c["withdrawn"], c["binding"]) for c in e3["corrections"]] == [(["$49"], False)]


def test_mcp_recall_and_get_event_carry_them_framed(corrected: Path) -> None:
    client = McpProcess(corrected, "qa-companion")
    try:
        error, recall = client.call("recall", {"query": "Biscuit adopted dog", "top_k": 3})
        assert not error, recall
        e1 = _by_key(recall["results"])["e1"]
        [correction] = e1["corrections"]
        assert correction["note"] == ("<memory_data>Biscuit is a beagle, the shelter got it "
                                      "wrong</memory_data>")
        error, event = client.call("get_event", {"id": "e1"})
        assert not error, event
        assert [c["withdrawn"] for c in event["corrections"]] == [["terrier mix"]]
    finally:
        assert client.close() == 0
    # the recall log keeps no memory text: not the correction's note either
    records = pulse(corrected, "recalls")["records"]
    for record in records:
        shown = pulse(corrected, "recalls", "show", str(record["id"]))
        assert "shelter got it wrong" not in json.dumps(shown)


def test_why_carries_them_too(corrected: Path) -> None:
    """`why` shows events' text as well: the event asked about and its causes."""
    out = pulse(corrected, "why", "e1")
    assert [c["withdrawn"] for c in out["event"]["corrections"]] == [["terrier mix"]]
    client = McpProcess(corrected, "qa-companion")
    try:
        error, why = client.call("why", {"event": "e1"})
        assert not error, why
        [correction] = why["event"]["corrections"]
        assert correction["note"].startswith("<memory_data>")
    finally:
        assert client.close() == 0


STORY = {
    "format": "pulse-corpus/1",
    "events": [
        {"key": "s1", "title": "Met Biscuit at the shelter", "description": "A scruffy terrier "
         "mix with one ear up waited by the gate.", "ts": "2026-03-01T10:00:00Z"},
        {"key": "s2", "title": "Brought Biscuit home", "description": "Biscuit slept on the "
         "sofa the whole first night.", "ts": "2026-03-11T10:00:00Z", "parents": ["s1"]},
    ],
}


def test_a_storyline_whose_summary_states_a_withdrawn_term_carries_the_correction(
        db_path: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "story.json"
    corpus.write_text(json.dumps(STORY), encoding="utf-8")
    pulse(db_path, "import", str(corpus))
    pulse(db_path, "correct", "--withdrawn", "terrier mix", "--replacement", "beagle",
          "--note", "Biscuit is a beagle")
    out = pulse(db_path, "retrieve", "Biscuit sofa first night", "--storylines", "--now", NOW,
                "--no-abstain")
    [chain] = [s for s in out["storylines"] if s["kind"] == "chain"]
    assert "terrier mix" in chain["summary"]
    assert [c["withdrawn"] for c in chain["corrections"]] == [["terrier mix"]]


def test_the_human_retrieve_says_so_under_the_result(corrected: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(corrected),
                             "retrieve", "Biscuit the dog", "--now", NOW, "--no-abstain"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "[e1]" in line)
    assert lines[at + 1].strip().startswith("corrected: withdrawn \"terrier mix\" → use "
                                            "\"beagle\" (journal row")
