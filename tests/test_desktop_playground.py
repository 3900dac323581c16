"""Playground: the table shows exactly what `pulse retrieve --json` prints for the same inputs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from conftest import NOW, NOW_ISO, ROOT  # noqa: E402

STATE = {"mood_vector": {"shame": 0.8, "sadness": 0.55}, "stress_proxy": 0.7,
         "sleep_quality": 0.3, "sleep_hours": 5.5, "hrv": 48.0, "hr_trend": "elevated_3d",
         "hrv_trend": "declining_3d", "recent_life_events_7d": ["argument with Dana"],
         "snapshot_days_ago": 2.0}


@pytest.fixture
def session(qtbot, demo_db, tmp_path):
    from pulse_desktop.session import MemorySession

    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    s = MemorySession()
    s.open(path)
    yield s
    s.close()


@pytest.fixture
def view(qtbot, session):
    from pulse_desktop.playground_view import PlaygroundView

    v = PlaygroundView(session)
    qtbot.addWidget(v)
    v.set_now(NOW)
    return v


def cli_retrieve(path: Path, query: str, *args: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(path), "retrieve", query,
                           "--json", "--now", NOW_ISO, *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def run(qtbot, view, timeout=120_000) -> dict:
    with qtbot.waitSignal(view.resultsReady, timeout=timeout) as blocker:
        view.run_query()
    return blocker.args[0]


def table_rows(model) -> list[dict]:
    from pulse_desktop.playground_view import RAW_ROLE

    cols = model.columns()
    rows = []
    for r in range(model.rowCount()):
        rows.append({c: model.index(r, i).data(RAW_ROLE) for i, c in enumerate(cols)})
    return rows


def test_unset_controls_send_nothing(view):
    assert view.state_dict() is None
    assert view.settings_overrides() is None
    assert view.domains() is None
    opts = view.request_options()
    assert "state" not in opts and "settings" not in opts
    assert opts["now"] == NOW_ISO
    view.mood["joy"].set_value(0.6)
    view.hrv.setValue(50)
    assert view.state_dict() == {"mood_vector": {"joy": 0.6}, "hrv": 50.0}
    view.clear_state()
    assert view.state_dict() is None


def test_table_equals_cli_exactly(qtbot, view, session, tmp_path):
    statefile = tmp_path / "state.json"
    statefile.write_text(json.dumps(STATE))
    view.query_edit.setText("my father left")
    view.scorer_combo.setCurrentText("dense")
    assert view.scorer_combo.currentText() == "dense"
    view.top_k.setValue(5)
    view.set_state(STATE)
    assert view.state_dict() == STATE
    out = run(qtbot, view)
    expected = cli_retrieve(session.path, "my father left", "--scorer", "dense", "--top-k", "5",
                            "--state", str(statefile))
    assert out == expected                      # the output the view holds, to the float
    rows = table_rows(view.model)
    assert [r["id"] for r in rows] == [r["id"] for r in expected["results"]]
    assert len(rows) == 5
    for row, res in zip(rows, expected["results"]):
        assert row["key"] == res["key"] and row["score"] == res["score"]
        for term, value in res["terms"].items():
            assert row[term] == value, term     # every term of the breakdown, exactly
    assert expected["gates"]["emotion"] is True and expected["gates"]["state"] == "stressed"
    assert "effective query" in view.gates_label.text()
    assert expected["effective_query"] in view.gates_label.text()
    # copy as JSON = exactly the retrieve output
    view.copy_json()
    from PySide6.QtGui import QGuiApplication

    assert json.loads(QGuiApplication.clipboard().text()) == expected
    # v2 side by side, with rank changes
    assert view.compare_output is not None and view.compare_output["scorer"] == "v2"
    v2 = cli_retrieve(session.path, "my father left", "--scorer", "v2", "--top-k", "5",
                      "--state", str(statefile))
    assert view.compare_output == v2
    v2_rank = {r["id"]: i + 1 for i, r in enumerate(v2["results"])}
    for i, r in enumerate(expected["results"]):
        text, delta = view.model.rank_change(i)
        if r["id"] in v2_rank:
            assert delta == v2_rank[r["id"]] - (i + 1)
        else:
            assert text == "new"


def test_abstention_is_shown_plainly(qtbot, view, session):
    view.query_edit.setText("xqzv blorf quantum lasagna")
    assert view.scorer_combo.currentText() == "pulse"          # the default
    out = run(qtbot, view)
    assert out == cli_retrieve(session.path, "xqzv blorf quantum lasagna")
    assert out["abstained"] is True and out["results"] == []
    assert view.abstain_label.isVisibleTo(view)
    assert view.abstain_label.text().startswith("Nothing relevant — the closest event's cosine")
    assert view.main_caption.text() == "pulse — nothing relevant"
    assert view.model.rowCount() == 0
    view.abstain_check.setChecked(False)                       # rank anyway
    out = run(qtbot, view)
    assert out == cli_retrieve(session.path, "xqzv blorf quantum lasagna", "--no-abstain")
    assert out["abstained"] is False and view.model.rowCount() == len(out["results"]) == 10
    assert not view.abstain_label.isVisibleTo(view)
    assert "10 results" in view.main_caption.text()


def test_v2_without_state_and_alpha_override(qtbot, view, session, tmp_path):
    view.query_edit.setText("coffee with a friend")
    view.scorer_combo.setCurrentText("v2")
    view.top_k.setValue(5)
    view.alpha_slider.setValue(30)
    assert view.settings_overrides() == {"alpha": 0.3}
    out = run(qtbot, view)
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"alpha": 0.3}))
    expected = cli_retrieve(session.path, "coffee with a friend", "--scorer", "v2", "--top-k",
                            "5", "--settings", str(settings))
    assert out == expected
    assert all(r["terms"]["alpha"] == 0.3 for r in out["results"])
    rows = table_rows(view.model)
    assert [r["score"] for r in rows] == [r["score"] for r in expected["results"]]


def test_domains_and_explain_unranked(qtbot, view, session):
    view.query_edit.setText("coffee")
    view.top_k.setValue(3)
    view.domain_checks["fiction_content"].setChecked(False)
    assert view.domains() == ["real", "fiction_meta", "meta_authorial"]
    out = run(qtbot, view)
    ranked = {r["id"] for r in out["results"]}
    assert all(r["domain"] != "fiction_content" for r in out["results"])
    outside = next(i for i in range(1, 200) if i not in ranked)
    view.explain_edit.setText(str(outside))
    with qtbot.waitSignal(view.explained, timeout=60_000) as blocker:
        view.explain_event()
    result = blocker.args[0]["result"]
    assert result["id"] == outside
    assert f"#{outside}" in view.explain_text.toPlainText()
    from core.memory import Memory

    with Memory.open(session.path, read_only=True) as mem:
        direct = mem.explain(outside, "coffee", **view.request_options())
    assert direct == blocker.args[0]


def test_factor_segments_add_up_to_score(qtbot, view):
    from pulse_desktop.playground_view import factor_segments

    view.query_edit.setText("the day papa left")
    view.set_state({"mood_vector": {"shame": 0.9}})
    out = run(qtbot, view)
    for r in out["results"]:
        pieces = dict(factor_segments(r))
        total = sum(v for k, v in pieces.items() if k != "recency_factor")
        assert abs(total - r["score"]) < 1e-9
    view.table.viewport().repaint()   # the delegate paints without error
    view.copy_json()


def test_messages_instead_of_silence(qtbot, view, session):
    got = []
    session.message.connect(got.append)
    view.query_edit.setText("")
    view.run_query()
    assert got and "query" in got[-1].lower()
    view.copy_button.setEnabled(True)
    view.copy_json()
    assert "nothing to copy" in got[-1].lower()
    view.query_edit.setText("coffee")
    view.explain_edit.setText("no-such-key")
    with qtbot.waitSignal(view.failed, timeout=60_000):
        view.explain_event()
    for box in view.domain_checks.values():
        box.setChecked(False)
    view.run_query()
    assert "domain" in got[-1].lower()


def test_shortcut_runs_query(qtbot, view):
    from PySide6.QtCore import Qt

    view.show()
    qtbot.waitExposed(view)
    view.query_edit.setText("coffee")
    view.query_edit.setFocus()
    with qtbot.waitSignal(view.resultsReady, timeout=120_000):
        qtbot.keyClick(view.query_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)


def test_no_memory_open(qtbot):
    from pulse_desktop.playground_view import PlaygroundView
    from pulse_desktop.session import MemorySession

    s = MemorySession()
    v = PlaygroundView(s)
    qtbot.addWidget(v)
    assert not v.run_button.isEnabled()
    v.query_edit.setText("x")
    with qtbot.waitSignal(v.failed, timeout=1000):
        v.run_query()
