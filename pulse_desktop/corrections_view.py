"""Corrections tab (JOURNAL §2–4): the list (newest first), add, supersede, a live brief preview
with a budget slider, and lint a file (BLOCKED / verified / no-evidence per file).

Engine side: Memory.corrections / correct / brief / lint (core.memory).
The brief and lint read the whole journal (verify), so they run off the UI thread on the query
thread's own read-only Memory; adding a correction is one small journaled write on the UI
thread's Memory.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSlider,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from pulse_desktop.query_thread import run_query
from pulse_desktop.style import notice_banner
from pulse_desktop.table_fit import FitOnResize

try:
    from pulse_desktop.term_help import TERM_HELP
except Exception:  # noqa: BLE001
    TERM_HELP = {}

COLUMNS = ("seq", "created", "note", "withdrawn", "replacement", "subject", "supersedes",
           "status")
# two-line headers: the table then fits beside the brief on a 1024 px screen
HEADER_TEXT = {"seq": "#", "created": "Created", "note": "Note", "withdrawn": "No longer\ntrue",
               "replacement": "True\ninstead", "subject": "About", "supersedes": "Replaces",
               "status": "Status"}
# budget slider: positions → tokens on a log-like scale (the four tiers are 1.8k…120k chars)
BUDGETS = (100, 200, 300, 400, 500, 750, 1000, 1250, 1500, 1750, 2000, 2500, 3000, 4000, 5000,
           6000, 8000, 10000, 15000, 20000, 25000, 31600, 40000)
DEFAULT_BUDGET = 2000
VERDICT_COLOURS = {"BLOCKED": "#c62828", "verified": "#2e7d32", "no-evidence": "#8a6d00"}


def split_terms(text: str) -> list[str]:
    """One term per line (a term may contain commas: "1,000")."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def status_text(c: Any) -> str:
    if c.superseded_by:
        return "superseded by " + ", ".join(str(s) for s in c.superseded_by)
    if not c.enforceable:
        return "not enforceable"
    return "binding"


class CorrectionsView(QWidget):
    """The Corrections tab. Signals: correctionAdded(dict) (the stored correction),
    briefReady(dict) (core.trust.brief's output), linted(dict) (lint_paths' output),
    failed(str)."""

    correctionAdded = Signal(dict)
    briefReady = Signal(dict)
    linted = Signal(dict)
    failed = Signal(str)

    def __init__(self, session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.corrections: list[Any] = []
        self.last_brief: dict[str, Any] | None = None
        self.last_lint: dict[str, Any] | None = None
        self.now: datetime | str | None = None     # the brief's "now" (None: the clock)
        self._brief_generation = 0
        self._brief_timer = QTimer(self)
        self._brief_timer.setSingleShot(True)
        self._brief_timer.setInterval(150)
        self._brief_timer.timeout.connect(self.refresh_brief)
        self._build()
        session.opened.connect(self.reload)
        session.changed.connect(self._memory_changed)
        self.reload()

    # -- building ----------------------------------------------------------------------

    def _build(self) -> None:
        lay = QVBoxLayout(self)
        self.banner = notice_banner()
        lay.addWidget(self.banner)

        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setAccessibleName("Corrections")
        self.table.setHorizontalHeaderLabels([HEADER_TEXT[c] for c in COLUMNS])
        for i, name in enumerate(COLUMNS):
            tip = TERM_HELP.get(name) if isinstance(TERM_HELP, dict) else None
            tip = tip or {
                "withdrawn": "exact values that are no longer true (the guard blocks them)",
                "replacement": "what is true instead",
                "supersedes": "earlier corrections (journal seq) whose terms stop binding",
                "status": "binding = has withdrawn terms and is not superseded; without "
                          "withdrawn terms a correction is shown but not enforceable",
                "seq": "the journal row that recorded it (how the brief and guard cite it)",
            }.get(name)
            if tip:
                self.table.horizontalHeaderItem(i).setToolTip(tip)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        self.table_fit = FitOnResize(self.table, COLUMNS.index("note"), minimum=110,
                                     optional=[COLUMNS.index(c) for c in
                                               ("subject", "supersedes", "created")],
                                     caps={3: 150, 4: 150})
        self.table.itemSelectionChanged.connect(self._selection_changed)
        intro = QLabel("Corrections, newest first: they outrank everything and never fade.")
        intro.setWordWrap(True)
        ll.addWidget(intro)
        ll.addWidget(self.table, 2)

        form_box = QGroupBox("Add a correction")
        ff = QFormLayout(form_box)
        self.note_edit = QLineEdit()
        self.note_edit.setPlaceholderText("what changed, in a sentence")
        ff.addRow("Note", self.note_edit)
        self.withdrawn_edit = QPlainTextEdit()
        self.withdrawn_edit.setPlaceholderText("one per line, e.g. $49")
        self.withdrawn_edit.setFixedHeight(60)
        ff.addRow("No longer true", self.withdrawn_edit)
        self.replacement_edit = QPlainTextEdit()
        self.replacement_edit.setPlaceholderText("one per line, e.g. $29")
        self.replacement_edit.setFixedHeight(60)
        ff.addRow("True instead", self.replacement_edit)
        self.subject_edit = QLineEdit()
        self.subject_edit.setPlaceholderText("optional, e.g. event:e001")
        self.subject_edit.setToolTip("What the correction is about (optional): event:e001, "
                                     "fact:12 or entity:3")
        ff.addRow("About", self.subject_edit)
        self.supersedes_edit = QLineEdit()
        self.supersedes_edit.setPlaceholderText("e.g. 12, 15")
        self.supersedes_edit.setToolTip("The numbers (#) of earlier corrections this one "
                                        "replaces; or select them above and press Supersede "
                                        "selected")
        ff.addRow("Replaces", self.supersedes_edit)
        buttons = QHBoxLayout()
        self.add_button = QPushButton("Add correction")
        self.add_button.setToolTip("record it in the journal (Ctrl+Return)")
        self.add_button.clicked.connect(self.add_correction)
        self.supersede_button = QPushButton("Supersede selected")
        self.supersede_button.setToolTip("fill Supersedes with the selected corrections")
        self.supersede_button.clicked.connect(self.supersede_selected)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.supersede_button)
        buttons.addStretch(1)
        ff.addRow(buttons)
        ll.addWidget(form_box)

        lint_box = QGroupBox("Lint a file against the corrections")
        lb = QVBoxLayout(lint_box)
        lrow = QHBoxLayout()
        self.lint_button = QPushButton("Lint files…")
        self.lint_button.setToolTip("BLOCKED: states a withdrawn term · verified: states a "
                                    "replacement · no-evidence: neither (never a pass)")
        self.lint_button.clicked.connect(self.pick_and_lint)
        self.lint_summary = QLabel("")
        lrow.addWidget(self.lint_button)
        lrow.addWidget(self.lint_summary, 1)
        lb.addLayout(lrow)
        self.lint_table = QTableWidget(0, 3)
        self.lint_table.setAccessibleName("Lint verdicts")
        self.lint_table.setHorizontalHeaderLabels(["File", "Verdict", "Why"])
        self.lint_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.lint_table.verticalHeader().setVisible(False)
        self.lint_fit = FitOnResize(self.lint_table, 2, minimum=100, caps={0: 160})
        lb.addWidget(self.lint_table)
        ll.addWidget(lint_box, 1)

        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        # the budget's name and value above its slider: the brief's half stays narrow
        brow = QHBoxLayout()
        brow.addWidget(QLabel("Brief budget"))
        self.budget_slider = QSlider(Qt.Orientation.Horizontal)
        self.budget_slider.setRange(0, len(BUDGETS) - 1)
        self.budget_slider.setValue(BUDGETS.index(DEFAULT_BUDGET))
        self.budget_slider.setToolTip("tokens ≈ chars / 3.8; the richest tier that fits is used "
                                      "(index 1,800 chars · brief 6,000 · notes 20,000 · full "
                                      "120,000)")
        self.budget_slider.valueChanged.connect(self._budget_moved)
        self.budget_label = QLabel(f"{DEFAULT_BUDGET:,} tokens")
        self.budget_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.budget_label.setMinimumWidth(90)
        self.budget_slider.setMinimumWidth(100)      # a slider squeezed to a stub is not usable
        right.setMinimumWidth(190)                    # the brief is this tab's other half
        brow.addStretch(1)
        brow.addWidget(self.budget_label)
        rl.addLayout(brow)
        rl.addWidget(self.budget_slider)
        self.brief_info = QLabel("")
        self.brief_info.setWordWrap(True)
        rl.addWidget(self.brief_info)
        self.brief_text = QPlainTextEdit()
        self.brief_text.setReadOnly(True)
        self.brief_text.setPlaceholderText("The session brief a companion would load appears "
                                           "here.")
        rl.addWidget(self.brief_text, 1)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)     # a drag never hides a panel whole
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        lay.addWidget(split, 1)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)

        ctx = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for keys, slot in (("Ctrl+Return", self.add_correction), ("Ctrl+L", self.pick_and_lint)):
            sc = QShortcut(QKeySequence(keys), self)
            sc.setContext(ctx)
            sc.activated.connect(slot)

    def focus_target(self):
        return self.table

    # -- helpers -----------------------------------------------------------------------

    def _say(self, text: str) -> None:
        self.status.setText(text)
        self.session.message.emit(text)

    def _fail(self, text: str) -> None:
        self._say(f"⚠ {text}")
        self.failed.emit(text)

    def budget(self) -> int:
        return BUDGETS[self.budget_slider.value()]

    def set_budget(self, tokens: int) -> None:
        """Move the slider to the nearest budget at or below `tokens`."""
        pos = max([i for i, b in enumerate(BUDGETS) if b <= tokens] or [0])
        self.budget_slider.setValue(pos)

    def _budget_moved(self) -> None:
        self.budget_label.setText(f"{self.budget():,} tokens")
        self._brief_timer.start()

    # -- list --------------------------------------------------------------------------

    def reload(self) -> None:
        memory = self.session.memory
        reason = "Open a memory to see and add corrections." if memory is None else None
        self.banner.setText(reason or "")
        self.banner.setVisible(reason is not None)
        writable = reason is None and not self.session.read_only
        self.add_button.setEnabled(writable)
        self.supersede_button.setEnabled(writable)
        self.lint_button.setEnabled(reason is None)
        if self.session.read_only and memory is not None:
            self.status.setText(self.session.read_only_reason or "Open read-only: corrections "
                                "cannot be added.")
        self.table.setRowCount(0)
        self.corrections = []
        if reason is not None:
            self.brief_text.clear()
            return
        try:
            self.corrections = memory.corrections()
        except Exception as exc:  # noqa: BLE001
            self._fail(f"cannot list corrections: {exc}")
            return
        for c in self.corrections:
            row = self.table.rowCount()
            self.table.insertRow(row)
            values = [c.journal_seq, c.created_at, c.note, "\n".join(c.withdrawn),
                      "\n".join(c.replacement), c.subject or "",
                      ", ".join(str(s) for s in c.supersedes), status_text(c)]
            for col, value in enumerate(values):
                item = QTableWidgetItem("" if value is None else str(value))
                item.setData(Qt.ItemDataRole.UserRole, c.journal_seq)
                if value not in (None, ""):
                    item.setToolTip(str(value))
                if col == 7:
                    colour = "#2e7d32" if c.binding else "#777777"
                    item.setForeground(QBrush(QColor(colour)))
                self.table.setItem(row, col, item)
        self.table_fit.fit()
        self.table.resizeRowsToContents()
        self._brief_timer.start()

    def _memory_changed(self, what: str) -> None:
        if what in ("all", "corrections", "journal"):
            self.reload()
        elif what in ("events", "beliefs", "entities"):
            self._brief_timer.start()

    def selected_seqs(self) -> list[int]:
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        return [self.corrections[r].journal_seq for r in rows
                if r < len(self.corrections) and self.corrections[r].journal_seq is not None]

    def _selection_changed(self) -> None:
        seqs = self.selected_seqs()
        if len(seqs) == 1:
            c = next(c for c in self.corrections if c.journal_seq == seqs[0])
            if c.subject and ":" in c.subject:
                kind, _, ref = c.subject.partition(":")
                if ref.isdigit():
                    self.session.select(kind, int(ref))

    def supersede_selected(self) -> None:
        seqs = self.selected_seqs()
        if not seqs:
            self._say("Select the earlier corrections this one replaces first.")
            return
        self.supersedes_edit.setText(", ".join(str(s) for s in seqs))
        self._say(f"The new correction will supersede {', '.join(str(s) for s in seqs)}: "
                  "fill in what is true now and Add.")
        self.withdrawn_edit.setFocus()

    def add_correction(self) -> None:
        memory = self.session.memory
        if memory is None:
            self._fail("Open a memory first.")
            return
        if self.session.read_only:
            self._fail(self.session.read_only_reason or "This memory is open read-only.")
            return
        supersedes: list[int] = []
        for part in self.supersedes_edit.text().replace(";", ",").split(","):
            part = part.strip()
            if not part:
                continue
            if not part.isdigit():
                self._fail(f"Supersedes: {part!r} is not a journal seq (a whole number).")
                return
            supersedes.append(int(part))
        try:
            stored = memory.correct(
                withdrawn=split_terms(self.withdrawn_edit.toPlainText()),
                replacement=split_terms(self.replacement_edit.toPlainText()),
                note=self.note_edit.text(), subject=self.subject_edit.text().strip() or None,
                supersedes=supersedes)
        except Exception as exc:  # noqa: BLE001 - ValidationError names the field
            self._fail(str(exc))
            return
        for w in (self.note_edit, self.subject_edit, self.supersedes_edit):
            w.clear()
        self.withdrawn_edit.clear()
        self.replacement_edit.clear()
        note = "" if stored.get("enforceable", True) else " (not enforceable: no withdrawn " \
                                                          "terms)"
        self._say(f"Correction recorded at journal row {stored.get('journal_seq')}{note}.")
        self.session.notify("corrections")   # reloads this list too
        self.correctionAdded.emit(stored)

    # -- brief -------------------------------------------------------------------------

    def refresh_brief(self) -> None:
        path = self.session.path
        if path is None:
            return
        budget = self.budget()
        now = self.now
        self._brief_generation += 1
        generation = self._brief_generation

        def done(out: dict[str, Any]) -> None:
            if generation != self._brief_generation:
                return
            self.last_brief = out
            self.brief_text.setPlainText(out.get("text", ""))
            cut = {k: v for k, v in (out.get("cut") or {}).items() if v}
            self.brief_info.setText(
                f"tier {out.get('tier')} · {out.get('chars', 0):,} chars ≈ "
                f"{out.get('tokens', 0):,} tokens of {budget:,}"
                + (f" · left out: {', '.join(f'{v} {k.lower()}' for k, v in cut.items())}"
                   if cut else "")
                + ("" if out.get("journal_ok", True) else " · ⚠ journal does not verify"))
            self.briefReady.emit(out)

        def failed(text: str) -> None:
            if generation == self._brief_generation:
                self.brief_text.setPlainText(f"⚠ {text}")
                self._fail(f"brief: {text}")

        run_query(path, lambda memory: memory.brief(budget, now=now), done, failed)

    # -- lint --------------------------------------------------------------------------

    def pick_and_lint(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(self, "Lint files against the corrections")
        if names:
            self.lint(names)

    def lint(self, paths: list[str | Path]) -> None:
        path = self.session.path
        if path is None:
            self._fail("Open a memory first.")
            return
        names = [str(p) for p in paths]
        self.lint_summary.setText("Checking…")

        def work(memory):
            return memory.lint(names)

        def done(out: dict[str, Any]) -> None:
            self.last_lint = out
            self.lint_table.setRowCount(0)
            for f in out.get("files", []):
                row = self.lint_table.rowCount()
                self.lint_table.insertRow(row)
                verdict = f.get("verdict", "?")
                why = f.get("reason") or (
                    "states " + ", ".join(f.get("replacements", [])) if verdict == "verified"
                    else "names no withdrawn or replacement term (not a pass)")
                for col, value in enumerate((f.get("path", ""), verdict, why)):
                    item = QTableWidgetItem(str(value))
                    item.setToolTip(str(value))
                    if col == 1:
                        item.setForeground(QBrush(QColor(VERDICT_COLOURS.get(verdict, "#000"))))
                    self.lint_table.setItem(row, col, item)
            for skipped in out.get("skipped", []):
                row = self.lint_table.rowCount()
                self.lint_table.insertRow(row)
                for col, value in enumerate((skipped, "skipped", "binary, too large or not "
                                             "UTF-8 text")):
                    self.lint_table.setItem(row, col, QTableWidgetItem(value))
            counts = out.get("counts", {})
            text = " · ".join(f"{v} {k}" for k, v in counts.items())
            if not out.get("binding_corrections"):
                text += " · no binding correction: nothing can be BLOCKED"
            if not out.get("journal_ok", True):
                text += " · ⚠ the journal does not verify: everything is BLOCKED"
            self.lint_summary.setText(text or "nothing checked")
            self._say(f"Lint: {text or 'nothing checked'}")
            self.linted.emit(out)

        def failed(text: str) -> None:
            self.lint_summary.setText(f"⚠ {text}")
            self._fail(f"lint: {text}")

        run_query(path, work, done, failed)
