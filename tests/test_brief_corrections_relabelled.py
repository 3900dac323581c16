"""The brief and a companion's recall show a redacted person only by their role label, but a
correction was shown as stored: one recorded after `policy p_tom --set redact` ("Tom Reyes moved
out in 2022"), or the withdrawn term of an earlier one, put "Tom Reyes" in the companion's
brief. Corrections now pass through the same outside view as events. Real files, real
processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from mcp_client import McpProcess  # noqa: E402

CORPUS = {
    "format": "pulse-corpus/1",
    "entities": [{"key": "p_tom", "name": "Tom Reyes", "kind": "person", "aliases": ["Tom"]}],
    "events": [{"key": "e1", "title": "Moving day", "description": "Tom Reyes moved out in "
                "2021 and took the blue sofa.", "ts": "2022-03-01T10:00:00Z",
                "belief_class": "axiom", "confidence_floor": 0.8, "entities": ["p_tom"]}],
}


def pulse(db: Path, *args: str) -> dict:
    result = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(db), "--json", *args],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_corrections_show_the_role_label(tmp_path: Path) -> None:
    db, corpus = tmp_path / "m.db", tmp_path / "c.json"
    corpus.write_text(json.dumps(CORPUS), encoding="utf-8")
    pulse(db, "import", str(corpus))
    pulse(db, "correct", "--withdrawn", "Tom Reyes", "--replacement", "Tom",
          "--note", "he goes by his first name")
    pulse(db, "policy", "p_tom", "--set", "redact", "--label", "[ex-partner]")
    pulse(db, "correct", "--withdrawn", "2021", "--replacement", "2022",
          "--note", "Tom Reyes moved out in 2022, not 2021", "--subject", "event:e1")
    text = pulse(db, "brief", "--now", "2026-01-01T00:00:00Z")["text"]
    assert "[ex-partner] moved out in 2022" in text
    assert "Tom" not in text
    client = McpProcess(db, "qa-companion")
    try:
        error, recall = client.call("recall", {"query": "moving day sofa", "top_k": 1})
        assert not error, recall
        assert recall["results"][0]["corrections"], recall
        assert "Tom" not in json.dumps(recall)
        error, event = client.call("get_event", {"id": "e1"})
        assert not error and "Tom" not in json.dumps(event), event
    finally:
        assert client.close() == 0
