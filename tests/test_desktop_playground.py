"""Playground: the list shows exactly what `pulse retrieve --json` prints for the same inputs;
one list with a toggle and ▲▼ rank changes, factor bars on one log scale that add up to the
score, plain names, 2–3 significant digits, and an Explain that says why (or why not) in one
sentence and follows every question."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from conftest import NOW, NOW_ISO, ROOT  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from pulse_desktop.numbers import sig  # noqa: E402
from pulse_desktop.term_help import term_name  # noqa: E402

STATE = {"mood_vector": {"shame": 0.8, "sadness": 0.55}, "stress_proxy": 0.7,
         "sleep_quality": 0.3, "sleep_hours": 5.5, "hrv": 48.0, "hr_trend": "elevated_3d",
         "hrv_trend": "declining_3d", "recent_life_events_7d": ["argument with Dana"],
         "snapshot_days_ago": 2.0}


@pytest.fixture
def session(demo_session):
    return demo_session


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
        row = {c: model.index(r, i).data(RAW_ROLE) for i, c in enumerate(cols)}
        row["id"] = model.results[r]["id"]
        rows.append(row)
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
    view.set_scorer("dense")
    assert view.scorer() == "dense" and view.scorer_combo.currentText() == "Meaning only (dense)"
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
        assert row["event"] == res["key"] and row["score"] == res["score"]
        for term, value in res["terms"].items():
            assert row[term] == value, term     # every term of the breakdown, exactly
    assert expected["gates"]["emotion"] is True and expected["gates"]["state"] == "stressed"
    assert "effective query" in view.gates_label.text()
    assert expected["effective_query"] in view.gates_label.text()
    # copy as JSON = exactly the retrieve output
    view.copy_json()
    from PySide6.QtGui import QGuiApplication

    assert json.loads(QGuiApplication.clipboard().text()) == expected
    # compared with v2: rank changes, and the toggle shows v2's own list
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
    view.show_list("other")
    assert [r["id"] for r in table_rows(view.model)] == [r["id"] for r in v2["results"]]
    assert view.show_other.isChecked() and view.show_other.text().startswith("Older")
    assert view.main_caption.text() == f"{len(v2['results'])} results"
    dense_rank = {r["id"]: i + 1 for i, r in enumerate(expected["results"])}
    for i, r in enumerate(v2["results"]):
        text, delta = view.model.rank_change(i)
        assert text == "new" if r["id"] not in dense_rank else \
            delta == dense_rank[r["id"]] - (i + 1)
    view.show_list("main")
    assert [r["id"] for r in table_rows(view.model)] == [r["id"] for r in expected["results"]]

def test_abstention_is_shown_plainly(qtbot, view, session):
    view.query_edit.setText("xqzv blorf quantum lasagna")
    assert view.scorer() == "pulse"                            # the default
    out = run(qtbot, view)
    assert out == cli_retrieve(session.path, "xqzv blorf quantum lasagna")
    assert out["abstained"] is True and out["results"] == []
    assert view.abstain_label.isVisibleTo(view)
    assert view.abstain_label.text().startswith("Nothing relevant — the closest event's cosine")
    assert view.main_caption.text() == "Nothing relevant"
    assert view.model.rowCount() == 0
    view.abstain_check.setChecked(False)                       # rank anyway
    out = run(qtbot, view)
    assert out == cli_retrieve(session.path, "xqzv blorf quantum lasagna", "--no-abstain")
    assert out["abstained"] is False and view.model.rowCount() == len(out["results"]) == 10
    assert not view.abstain_label.isVisibleTo(view)
    assert "10 results" in view.main_caption.text()


def test_v2_without_state_and_alpha_override(qtbot, view, session, tmp_path):
    view.query_edit.setText("coffee with a friend")
    view.set_scorer("v2")
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
    sentence = view.explain.sentence.text()
    assert sentence.startswith(str(result["key"] or outside))
    assert "ranks" in sentence or "not ranked" in sentence or "left out" in sentence
    from core.memory import Memory

    with Memory.open(session.path, read_only=True) as mem:
        direct = mem.explain(outside, "coffee", **view.request_options())
    assert direct == blocker.args[0]


def test_factor_bars_add_up_to_the_score_on_one_log_scale(qtbot, view):
    import math

    from pulse_desktop.playground_results import (
        CHANNEL_NAMES,
        LOG_FLOOR,
        factor_pieces,
        relevance_channels,
    )

    view.query_edit.setText("the day papa left")
    view.set_state({"mood_vector": {"shame": 0.9}})
    out = run(qtbot, view)
    assert out["results"]
    for r in out["results"]:
        pieces = factor_pieces(r)
        t = r["terms"]
        # relevance runs from the floor of the shared axis, split into the parts that add
        # up to it (meaning, words, beside, linked, mood + body)
        channels = [p for p in pieces if p.name in CHANNEL_NAMES]
        assert channels and channels[0].start == math.log10(LOG_FLOOR)
        assert channels[-1].end == pytest.approx(math.log10(t["relevance"]))
        assert sum(v for _n, v in relevance_channels(t)) == pytest.approx(t["relevance"])
        # each factor moves the end by its log: the signed lengths add up to log(score)
        rest = [p for p in pieces if p not in channels]
        total = math.log10(t["relevance"]) + sum(p.end - p.start for p in rest)
        assert total == pytest.approx(math.log10(r["score"]))
        assert pieces[-1].end == pytest.approx(math.log10(r["score"]))
        # time only takes away; neutral factors add no piece
        assert all(p.lost for p in rest if p.name == "time")
        assert {p.name for p in rest} == {n for n, f in (("time", "recency_factor"),
                                                        ("emotion", "emotion"),
                                                        ("state", "state"), ("anchor", "anchor"),
                                                        ("date", "date"))
                                          if abs(t[f] - 1.0) > 1e-12}
    view.table.viewport().repaint()   # the delegate paints without error


def test_plain_names_and_short_numbers(qtbot, view):
    import re

    view.query_edit.setText("feeling abandoned")
    out = run(qtbot, view)
    model = view.model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert not any("_" in h for h in headers), headers
    assert {"Relevance", "Recency", "Emotion", "Body day", "Anchor", "Date"} <= set(headers)
    tips = {h: model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
            for c, h in enumerate(headers)}
    assert "α" in tips["Recency"] and "λ" in tips["Fades per day"]
    for row in range(model.rowCount()):
        for col in range(model.columnCount()):
            text = model.index(row, col).data()
            if text and re.fullmatch(r"[-\d.,]+", text):
                digits = text.replace(",", "").replace("-", "").replace(".", "").lstrip("0")
                assert len(digits) <= 3 or "." not in text, (headers[col], text)
    # the exact values are one hover away, and in Copy as JSON
    col = model.column_of("relevance")
    assert model.index(0, col).data(Qt.ItemDataRole.ToolTipRole).endswith(
        repr(out["results"][0]["terms"]["relevance"]))
    # neutral factors are faded
    state_col = model.column_of("state")
    assert model.index(0, state_col).data(Qt.ItemDataRole.ForegroundRole) is not None
    labels = [view.domain_checks[d].text() for d in ("real", "fiction_content",
                                                      "fiction_meta", "meta_authorial")]
    assert labels == ["Real life", "Fiction · content", "Fiction · meta", "Authorial"]


def test_explain_follows_every_question_and_says_why_not_first(qtbot, view):
    view.top_k.setValue(5)
    view.query_edit.setText("coffee with Dana")
    view.explain_edit.setText("e057")
    with qtbot.waitSignal(view.explained, timeout=120_000) as first:
        run(qtbot, view)
    assert first.args[0]["query"] == "coffee with Dana"
    sentence = view.explain.sentence.text()
    assert sentence.startswith("e057 ranks ") and ":" in sentence
    rank = first.args[0]["result"]["rank"]
    if rank > 5:
        assert "below the top 5's" in sentence or "below the 5th's" in sentence
    # a new question: Explain refreshes by itself, with the new question
    view.query_edit.setText("Tom asks for a separation")
    with qtbot.waitSignal(view.explained, timeout=120_000) as second:
        run(qtbot, view)
    assert second.args[0]["query"] == "Tom asks for a separation"
    assert view.explain.sentence.text() != sentence
    assert view.explain.sentence.text().startswith("e057 ranks 1st of 5")
    # under the bar, the factors multiplied out, the ones that change nothing in grey
    r = second.args[0]["result"]
    formula = view.explain.formula.text()
    assert formula.endswith(f"= <b>{sig(r['score'])}</b>")
    assert formula.count(" × ") == 5
    for f in ("emotion", "state", "anchor", "date"):
        if r["terms"][f] == 1.0:
            assert f"color:#9aa4b1'>{term_name(f).lower()}&nbsp;1</span>" in formula


def test_why_sentence_names_the_factor_that_keeps_it_out():
    from pulse_desktop.playground_explain import why_sentence

    top = {"results": [{"id": i, "score": 0.9 - i / 100, "terms": {
        "relevance": 0.52 + i / 100, "recency_factor": 0.9, "emotion": 1.0, "state": 1.0,
        "anchor": 1.0, "date": 1.0}} for i in range(10)]}
    explained = {"result": {"id": 57, "key": "e057", "rank": 14, "score": 0.28,
                            "terms": {"relevance": 0.31, "recency_factor": 0.91, "emotion": 1.0,
                                      "state": 1.0, "anchor": 1.0, "date": 1.0}}}
    assert why_sentence(explained, top) == "e057 ranks 14th: relevance 0.31, below the top " \
                                           "10's 0.52."
    explained["result"]["allowed_by_domain"] = False
    explained["result"]["domain"] = "fiction_content"
    assert "Fiction · content is not allowed" in why_sentence(explained, top)


def test_via_chain_results_are_marked(qtbot, view):
    view.query_edit.setText("feeling abandoned")
    view.chain_check.setChecked(True)
    out = run(qtbot, view)
    via = [i for i, r in enumerate(out["results"]) if r.get("via_chain")]
    assert via, "chain mode brought no cause on the demo"
    event_col = view.model.column_of("event")
    for i in via:
        assert view.model.index(i, event_col).data().startswith("↳ via chain")
        assert "came with the story" in view.model.index(i, event_col).data(
            Qt.ItemDataRole.ToolTipRole)


def test_clicking_a_slider_track_jumps_there(qtbot, view):
    from PySide6.QtCore import QPoint

    view.resize(1000, 900)
    view.show()
    qtbot.waitExposed(view)
    level = view.mood["joy"]
    level.check.setChecked(True)
    slider = level.slider
    slider.setValue(0)
    qtbot.mouseClick(slider, Qt.MouseButton.LeftButton,
                     pos=QPoint(int(slider.width() * 0.8), slider.height() // 2))
    assert slider.value() >= 65         # not one page (10) step
    assert view.state_dict()["mood_vector"]["joy"] == slider.value() / 100


def test_mood_and_body_sliders_line_up(qtbot, view):
    """A longer name ("anticipation") must not push its slider out of the column, even
    in a narrow window."""
    view.resize(640, 700)
    view.show()
    qtbot.waitExposed(view)
    panel = view.context
    for group in (list(panel.mood.values()), [panel.stress, panel.sleep_quality]):
        lefts = {level.slider.mapTo(view, level.slider.rect().topLeft()).x() for level in group}
        widths = {level.slider.width() for level in group}
        assert len(lefts) == 1 and len(widths) == 1, (lefts, widths)


def test_messages_instead_of_silence(qtbot, view, session):
    got = []
    session.message.connect(got.append)
    view.query_edit.setText("")
    view.run_query()
    assert got and "question" in got[-1].lower()
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


def engine_results(session, query: str, options: dict) -> dict[int, dict]:
    """The engine's own ranking for the same question and options (a separate Memory)."""
    from core.memory import Memory

    memory = Memory.open(session.path, read_only=True)
    try:
        out = memory.retrieve(query, **options)
    finally:
        memory.close()
    return {int(r["id"]): r for r in out["results"]}


def shown_parts(view, row: int) -> tuple[dict[str, float], str]:
    """What the list shows for a row: its bar's relevance pieces (name → value) and its
    tooltip."""
    from pulse_desktop.playground_results import CHANNEL_NAMES, factor_pieces

    why = view.model.index(row, view.model.column_of("why"))
    result = why.data(Qt.ItemDataRole.UserRole + 2)
    pieces = {p.name: p.value for p in factor_pieces(result) if p.name in CHANNEL_NAMES}
    return pieces, why.data(Qt.ItemDataRole.ToolTipRole)


def test_breakdown_shows_the_mood_body_part_as_the_engine_has_it(qtbot, view, session):
    """A question asked in a mood and a body: every result's relevance is shown as the parts
    that add up to it, the mood + body part (κ × body match × mood match) among them, with the
    engine's own values; the factors still multiply to the score."""
    import math

    from pulse_desktop.playground_results import FACTORS, relevance_parts

    state = {k: v for k, v in STATE.items() if k != "recent_life_events_7d"}
    view.query_edit.setText("I can't sleep and my heart is racing")
    view.set_state(state)
    out = run(qtbot, view)
    options = view.request_options()
    engine = engine_results(session, "I can't sleep and my heart is racing", options)
    assert [r["id"] for r in out["results"]] == list(engine)
    with_state = 0
    for row, r in enumerate(out["results"]):
        t = engine[int(r["id"])]["terms"]
        assert r["terms"] == t                      # the view holds the engine's breakdown
        parts = dict(relevance_parts(r["terms"]))
        assert set(parts) == {"meaning", "words", "beside", "linked", "mood_body"}
        assert parts["mood_body"] == pytest.approx(
            t["state_weight"] * t["body_similarity"] * t["mood_similarity"], abs=1e-12)
        assert parts["mood_body"] == pytest.approx(t["state_weight"] * t["state_relevance"],
                                                   abs=1e-12)
        assert parts["linked"] == pytest.approx(
            t["chain_context_weight"] * t["chain_context"], abs=1e-12)
        # the parts add up to relevance, the factors multiply to the score
        assert sum(parts.values()) == pytest.approx(t["relevance"], abs=1e-9)
        assert math.prod(t[f] for f in FACTORS) == pytest.approx(r["score"], rel=1e-9)
        pieces, tip = shown_parts(view, row)
        if t["state_relevance"] > 0:
            with_state += 1
            assert pieces["mood_body"] == pytest.approx(t["state_weight"] * t["state_relevance"])
            assert f"mood + body now {sig(parts['mood_body'])}" in tip
            assert f"body match {sig(t['body_similarity'])}" in tip
            assert f"mood match {sig(t['mood_similarity'])}" in tip
        assert sum(pieces.values()) == pytest.approx(t["relevance"], abs=1e-9)
    assert with_state >= 5, "the state channel moved too few results on the demo"
    # Explain shows the same parts under the product
    first = out["results"][0]
    with qtbot.waitSignal(view.explained, timeout=120_000):
        view.explain_edit.setText(str(first["key"]))
        view.explain_event()
    parts_text = view.explain.parts.text()
    assert view.explain.parts.isVisibleTo(view)
    assert parts_text.startswith(f"relevance&nbsp;{sig(first['terms']['relevance'])} = ")
    assert f"mood + body now&nbsp;{sig(dict(relevance_parts(first['terms']))['mood_body'])}" \
        in parts_text
    names = [view.explain.terms.item(i, 0).text() for i in range(view.explain.terms.rowCount())]
    assert {"Mood + body match", "Body match", "Mood match", "Mood + body share",
            "Linked events", "Linked share"} <= set(names)


def test_breakdown_shows_the_chain_part_as_the_engine_has_it(qtbot, view, session):
    """In chain mode the linked part (μ × the best relevance of a directly linked event) is
    shown for every result that has a link, with the engine's values, and a cause brought by
    the chain is still shown with parts that add up to its relevance."""
    view.query_edit.setText("feeling abandoned")
    view.chain_check.setChecked(True)
    out = run(qtbot, view)
    engine = engine_results(session, "feeling abandoned", view.request_options())
    assert [r["id"] for r in out["results"]] == list(engine)
    linked = 0
    for row, r in enumerate(out["results"]):
        t = engine[int(r["id"])]["terms"]
        pieces, tip = shown_parts(view, row)
        if t["chain_context"] > 0:
            linked += 1
            part = t["chain_context_weight"] * t["chain_context"]
            assert pieces["linked"] == pytest.approx(part, abs=1e-12)
            assert f"linked (what led to it or came of it) {sig(part)}" in tip
            assert f"the best relevance of a linked event {sig(t['chain_context'])}" in tip
        else:
            assert "linked" not in pieces
        assert "mood_body" not in pieces          # no state given: no mood + body part
        if t["relevance"] > 0:
            assert sum(pieces.values()) == pytest.approx(t["relevance"], abs=1e-9)
    assert linked >= 5 and any(r.get("via_chain") for r in out["results"])
    header = view.model.headerData(view.model.column_of("why"), Qt.Orientation.Horizontal,
                                   Qt.ItemDataRole.ToolTipRole)
    assert "linked" in header and "mood + body" in header


def test_a_boundary_that_held_is_said(qtbot, view, session):
    """The demo's boundary "Papa's death" keeps its events out of what a companion gets; the
    Playground shows that list and says how many were left out, as the CLI counts them."""
    got = []
    session.message.connect(got.append)
    view.query_edit.setText("the day my father died")
    out = run(qtbot, view)
    assert out == cli_retrieve(session.path, "the day my father died")
    held = out["withheld"]["behind_boundary"]
    assert held >= 1
    assert view.gates_label.text().startswith(f"{held} event")
    assert "behind a boundary left out" in view.gates_label.text()
    assert f"{held} event" in got[-1] and "behind a boundary left out" in got[-1]
    view.query_edit.setText("coffee with Dana")              # nothing behind the boundary
    out = run(qtbot, view)
    assert "withheld" not in out
    assert view.gates_label.text().startswith("Boosts — ")
    assert "boundary" not in got[-1]
