"""The short multi-process soak (issue 11 §2) that `make test` runs: the app's pattern (one
Memory held, workers opening and closing their own, a watcher polling), `pulse mcp` answering
recall/remember/brief/get_event from a scripted stdio client (reconnecting), CLI writers and
readers, and one writer SIGKILLed inside its transaction — all on one memory, real processes.

At least 12 s, and until every actor has done its part (a loaded machine only makes it longer,
never weaker); the 60 s / 2,000-operation run is `python bench/soak.py` (docs/reliability.md).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load_soak():
    spec = importlib.util.spec_from_file_location("soak", ROOT / "bench" / "soak.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("passphrase", [None, "soak passphrase"], ids=["plain", "encrypted"])
def test_short_soak_of_app_mcp_and_cli_on_one_memory(tmp_path: Path, passphrase) -> None:
    soak = load_soak()
    lines: list[str] = []
    report = soak.run(tmp_path / "work", seconds=12, min_ops=0, max_seconds=300, min_each=1,
                      log=lines.append, passphrase=passphrase)
    assert report["encrypted"] is bool(passphrase)
    shown = {k: v for k, v in report.items() if k != "missing_writes"}
    assert report["failures"] == [], shown
    assert report["busy_seen"] == [], "a user saw 'database is locked'"
    assert report["integrity_check"] == "ok"
    assert report["verify_exit"] == 0, report["verify"]
    assert report["wal_missing"] == 0, "the -wal/-shm vanished under the app's session"
    assert report["missing_writes"] == [], report["missing_writes"][:5]
    assert report["killed"]["signal"] == 9 and report["killed_edit_absent"], shown
    ops = report["ops_by_kind"]
    for kind in ("session_set", "session_worker", "mcp_recall", "mcp_remember"):
        assert ops.get(kind, 0) >= 1, (kind, ops)
    assert report["acknowledged_by_kind"].get("journal", 0) >= 2
    assert report["acknowledged_by_kind"].get("remember", 0) >= 1
    assert report["logged_mcp_recalls"] == report["mcp_recalls"] >= 1
