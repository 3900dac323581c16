"""The Recalls tab reads a companion's `why` as what it was: what led to which event, the event
then its causes with how many links back each stands, and the timeline mark's words."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from core.mcp_server import PulseTools  # noqa: E402
from pulse_desktop.recalls_view import RecallsView  # noqa: E402
from pulse_desktop.session import MemorySession  # noqa: E402
from pulse_desktop.timeline_recalls import RecallMark  # noqa: E402


@pytest.fixture
def view(qtbot, demo_db: Path, tmp_path: Path):
    copy = tmp_path / "demo.db"
    shutil.copy(demo_db, copy)
    session = MemorySession()
    session.open(copy)
    PulseTools(session.memory).call("why", {"event": "e042"}, client="companion")
    widget = RecallsView(session)
    qtbot.addWidget(widget)
    widget.reload()
    yield widget
    session.close()


def test_a_why_moment_names_the_event_and_its_causes_links_back(view) -> None:
    moments = view.moments
    assert moments.rowCount() == 1
    assert moments.index(0, 2).data() == "what led to event e042"
    view.select_row(0)
    assert "what led to it (why) by companion" in view.heading.text()
    results = view.results
    assert results.columns()[:3] == ["#", "Event", "Links back"]
    rows = [[results.index(r, c).data() for c in range(3)] for r in range(results.rowCount())]
    assert [(rank, event[:6], back) for rank, event, back in rows] == [
        ("1", "[e042]", "asked about"), ("2", "[e031]", "3"), ("3", "[e035]", "2"),
        ("4", "[e041]", "1")]


def test_a_why_mark_on_the_timeline_says_what_was_asked() -> None:
    mark = RecallMark(id=1, t=0.0, ts="2026-12-02T10:00:00Z", tool="why", client="companion",
                      query="", count=4)
    assert "companion recalled what led to an event" in mark.tip()
