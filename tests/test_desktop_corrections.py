"""Corrections tab: list newest first, add, supersede, a live brief with a budget, lint files."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from conftest import NOW  # noqa: E402


@pytest.fixture
def view(qtbot, session):
    from pulse_desktop.corrections_view import CorrectionsView

    v = CorrectionsView(session)
    qtbot.addWidget(v)
    v.now = NOW
    return v


def add(qtbot, view, note, withdrawn="", replacement="", supersedes=""):
    view.note_edit.setText(note)
    view.withdrawn_edit.setPlainText(withdrawn)
    view.replacement_edit.setPlainText(replacement)
    view.supersedes_edit.setText(supersedes)
    with qtbot.waitSignal(view.correctionAdded, timeout=5000) as blocker:
        view.add_correction()
    return blocker.args[0]


def column(view, name):
    from pulse_desktop.corrections_view import COLUMNS

    col = COLUMNS.index(name)
    return [view.table.item(r, col).text() for r in range(view.table.rowCount())]


def test_add_list_supersede(qtbot, view, session):
    first = add(qtbot, view, "measured willingness to pay is $29", "$49", "$29")
    assert first["binding"] and first["withdrawn"] == ["$49"]
    assert view.table.rowCount() == 1
    assert view.note_edit.text() == ""            # the form is cleared
    second = add(qtbot, view, "just a remark")    # no withdrawn terms
    assert view.table.rowCount() == 2
    assert column(view, "note") == ["just a remark", "measured willingness to pay is $29"]
    assert column(view, "status") == ["not enforceable", "binding"]
    # supersede the first: select it, press Supersede selected, add the new one
    view.table.selectRow(1)
    view.supersede_selected()
    assert view.supersedes_edit.text() == str(first["journal_seq"])
    third = add(qtbot, view, "price changed again", "$29", "$39",
                view.supersedes_edit.text())
    assert third["supersedes"] == [first["journal_seq"]]
    assert column(view, "note")[0] == "price changed again"
    status = dict(zip(column(view, "note"), column(view, "status")))
    assert status["measured willingness to pay is $29"] == f"superseded by {third['journal_seq']}"
    assert status["price changed again"] == "binding"
    assert second["enforceable"] is False


def test_invalid_input_is_a_message(qtbot, view, session):
    got = []
    session.message.connect(got.append)
    view.note_edit.setText("")
    with qtbot.waitSignal(view.failed, timeout=2000):
        view.add_correction()
    assert "needs a note" in got[-1]
    view.note_edit.setText("x")
    view.supersedes_edit.setText("abc")
    with qtbot.waitSignal(view.failed, timeout=2000):
        view.add_correction()
    assert "journal seq" in got[-1]
    view.supersedes_edit.setText("999")
    with qtbot.waitSignal(view.failed, timeout=2000):
        view.add_correction()
    assert "999" in got[-1]
    view.supersede_selected()
    assert "select" in got[-1].lower()
    assert view.table.rowCount() == 0


def test_brief_preview_follows_budget(qtbot, view, session, demo_db, tmp_path):
    import shutil

    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    session.open(path)
    add(qtbot, view, "Nadia's sister is called Vera, not Irina", "Irina", "Vera")
    with qtbot.waitSignal(view.briefReady, timeout=60_000) as blocker:
        view.set_budget(300)
        view.refresh_brief()
    small = blocker.args[0]
    assert small["budget"] == 300 and small["chars"] <= 300 * 3.8 + 1
    assert view.brief_text.toPlainText() == small["text"]
    assert "tier" in view.brief_info.text()
    from core.memory import Memory

    with Memory.open(path, read_only=True) as mem:
        assert mem.brief(300, now=NOW)["text"] == small["text"]
    with qtbot.waitSignal(view.briefReady, timeout=60_000) as blocker:
        view.set_budget(8000)        # the slider's debounce timer fires the refresh
    big = blocker.args[0]
    assert big["budget"] == 8000 and len(big["text"]) > len(small["text"])
    assert "CORRECTIONS" in big["text"] and "Irina" in big["text"]


def test_lint_verdicts(qtbot, view, session, tmp_path):
    add(qtbot, view, "price", "$49", "$29")
    blocked = tmp_path / "pricing.md"
    blocked.write_text("Our plan costs $49 a month.\n", encoding="utf-8")
    verified = tmp_path / "ok.md"
    verified.write_text("Our plan costs $29 a month.\n", encoding="utf-8")
    neither = tmp_path / "other.md"
    neither.write_text("Nothing about prices ($490 is not $49).\n".replace(" ($490 is not $49)",
                                                                         " $490"),
                       encoding="utf-8")
    with qtbot.waitSignal(view.linted, timeout=30_000) as blocker:
        view.lint([blocked, verified, neither])
    out = blocker.args[0]
    verdicts = {view.lint_table.item(r, 0).text(): view.lint_table.item(r, 1).text()
                for r in range(view.lint_table.rowCount())}
    assert verdicts == {str(blocked): "BLOCKED", str(verified): "verified",
                        str(neither): "no-evidence"}
    assert out["counts"] == {"BLOCKED": 1, "verified": 1, "no-evidence": 1}
    assert "1 BLOCKED" in view.lint_summary.text()


def test_lint_missing_file_is_a_message(qtbot, view, session, tmp_path):
    with qtbot.waitSignal(view.failed, timeout=30_000) as blocker:
        view.lint([tmp_path / "nope.md"])
    assert "no such file" in blocker.args[0]
