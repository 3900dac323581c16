"""The Review tab: everything that waits for a person's decision (docs/upkeep.md) — entity and
event merges, open questions past their time, archival of old faint memories, knowledge gaps,
fictional names an import found — one list, grouped, each item with Accept (A), Reject (R) and
Later (L). "Run upkeep" looks for new proposals in a worker (nothing changes until you accept);
"Preview" is the same as a dry run.

Engine side: Memory.review_queue / review / upkeep / upkeep_settings (core.memory). A decision
is one journaled change set; it goes onto the app's undo stack as a JournalCommand (Ctrl+Z
inverts that journal row, Ctrl+Shift+Z inverts the inversion).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.errors import PulseError
from core.memory import Memory
from pulse_desktop import workers
from pulse_desktop.pane_fit import HeightForWidth
from pulse_desktop.session import MemorySession
from pulse_desktop.undo_commands import JournalCommand

EMPTY = ("Nothing is waiting for a decision.\n\nRun upkeep to look for events said twice, old "
         "faint memories and open questions past their time. It only proposes: nothing changes "
         "until you accept.")


def review_count(session: MemorySession, view: QWidget | None = None) -> int | None:
    """Items due now, for the status bar (None when no memory is open or it cannot tell);
    `view` (the Review tab, once built) lends its clock."""
    memory = session.memory
    if memory is None:
        return None
    return due_count(memory, getattr(view, "now", None))


def due_count(memory: Memory, now: str | None) -> int | None:
    """review_count on any thread's Memory (the reader thread's for a large memory)."""
    try:
        return memory.review_count(now=now)
    except Exception:  # noqa: BLE001 - an older memory, a locked file: no count, no crash
        return None


class ReviewView(QWidget):
    """Signals: decided(dict) after a decision, upkeepDone(dict) after Run upkeep / Preview,
    failed(str)."""

    decided = Signal(dict)
    upkeepDone = Signal(dict)
    failed = Signal(str)

    def __init__(self, session: MemorySession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.items: list[dict[str, Any]] = []
        self.jobs: set[workers.Job] = set()
        self.later_days = 7.0
        self.now: str | None = None        # a fixed "now" (tests); None: the clock

        title = QLabel("Review")
        title.setStyleSheet("font-size: 13pt; font-weight: 600; color: #1f2733;")
        self.count_label = QLabel()
        self.count_label.setStyleSheet("color: #5b6678;")
        self.run_button = QPushButton("Run upkeep")
        self.run_button.setObjectName("primary")
        self.run_button.setToolTip("Look for events said twice, old faint memories and open "
                                   "questions past their time. Nothing changes until you "
                                   "accept a proposal.")
        self.run_button.clicked.connect(lambda: self.run_upkeep(dry_run=False))
        self.preview_button = QPushButton("Preview")
        self.preview_button.setToolTip("What upkeep would propose, without writing anything")
        self.preview_button.clicked.connect(lambda: self.run_upkeep(dry_run=True))
        head = QHBoxLayout()
        head.addWidget(title)
        head.addWidget(self.count_label, 1)
        head.addWidget(self.preview_button)
        head.addWidget(self.run_button)

        self.ttl = QSpinBox()
        self.ttl.setRange(1, 3650)
        self.ttl.setMinimumWidth(110)
        self.ttl.setSuffix(" days")
        self.ttl.setToolTip("A hypothesis open this long is proposed for dismissal (never "
                            "dismissed on its own)")
        self.ttl.editingFinished.connect(self._save_ttl)
        ttl_row = QHBoxLayout()
        ttl_row.addWidget(QLabel("Open questions expire after"))
        ttl_row.addWidget(self.ttl)
        ttl_row.addStretch(1)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #5b6678;")

        self.tree = QTreeWidget()
        self.tree.setAccessibleName("Waiting for your decision")
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(False)
        self.tree.setIndentation(10)
        self.tree.setUniformRowHeights(True)
        self.tree.currentItemChanged.connect(lambda *_: self._show_current())

        self.item_title = QLabel()
        self.item_title.setWordWrap(True)
        self.item_title.setStyleSheet("font-size: 11pt; font-weight: 600; color: #1f2733;")
        self.item_detail = QLabel()
        self.item_detail.setWordWrap(True)
        self.item_detail.setTextFormat(Qt.TextFormat.PlainText)
        self.item_detail.setStyleSheet("color: #2d3645;")
        self.item_choices = QLabel()
        self.item_choices.setWordWrap(True)
        self.item_choices.setStyleSheet("color: #5b6678;")
        self.accept_button = QPushButton("Accept  (A)")
        self.accept_button.setObjectName("primary")
        self.reject_button = QPushButton("Reject  (R)")
        self.later_button = QPushButton("Later  (L)")
        self.later_button.setToolTip("Hide it for now; it comes back after the upkeep "
                                     "setting's number of days")
        for button, action in ((self.accept_button, "accept"), (self.reject_button, "reject"),
                               (self.later_button, "later")):
            button.clicked.connect(lambda _c=False, a=action: self.decide(a))
        buttons = QHBoxLayout()
        buttons.addWidget(self.accept_button)
        buttons.addWidget(self.reject_button)
        buttons.addWidget(self.later_button)
        buttons.addStretch(1)
        self.card = QFrame()
        self.card.setObjectName("reviewCard")
        self.card.setStyleSheet("QFrame#reviewCard { background: #ffffff; border: 1px solid "
                                "#dfe3ec; border-radius: 6px; }")
        card = QVBoxLayout(self.card)
        card.addWidget(self.item_title)
        card.addWidget(self.item_detail)
        card.addWidget(self.item_choices)
        card.addSpacing(4)
        card.addLayout(buttons)
        card.addStretch(1)
        self.empty = QLabel(EMPTY)
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setStyleSheet("color: #6b7585; padding: 24px;")

        self.card_fit = HeightForWidth(self.card)      # its wrapped lines, at 1024 px too
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.tree)
        split.addWidget(self.card)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        self.split = split

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.addLayout(head)
        layout.addLayout(ttl_row)
        layout.addWidget(self.note)
        layout.addWidget(self.empty)
        layout.addWidget(split, 1)

        context = Qt.ShortcutContext.WidgetWithChildrenShortcut
        self.shortcuts = {}
        for key, action in (("A", "accept"), ("R", "reject"), ("L", "later")):
            shortcut = QShortcut(QKeySequence(key), self, context=context)
            shortcut.activated.connect(lambda a=action: self.decide(a))
            self.shortcuts[action] = shortcut

        session.opened.connect(self._opened)
        session.changed.connect(self._changed)
        self.refresh()

    def focus_target(self):
        """Ctrl+8 puts the keyboard on the queue, where A, R and L decide."""
        return self.tree

    # -- reading -----------------------------------------------------------------------------
    def _opened(self) -> None:
        self.note.setText("")       # the last upkeep's counts were another memory's
        self.refresh()

    def _changed(self, what: str) -> None:
        if what in ("all", "events", "entities", "beliefs", "journal", "review"):
            self.refresh()

    def refresh(self, *_args) -> None:
        memory = self.session.memory
        keep = self.current_ref()
        self.items = []
        if memory is not None:
            try:
                self.items = memory.review_queue(now=self.now)
                settings = memory.upkeep_settings()
                self.later_days = float(settings["later_days"])
                self.ttl.blockSignals(True)
                self.ttl.setValue(int(settings["question_ttl_days"]))
                self.ttl.blockSignals(False)
            except PulseError as exc:
                self.note.setText(str(exc))
        writable = memory is not None and not self.session.read_only
        for w in (self.run_button, self.ttl, self.accept_button, self.reject_button,
                  self.later_button):
            w.setEnabled(writable)
        self.preview_button.setEnabled(memory is not None)
        self._fill(keep)

    def _fill(self, keep: str | None) -> None:
        self.tree.blockSignals(True)
        self.tree.clear()
        groups: dict[str, QTreeWidgetItem] = {}
        select = None
        bold = QFont()
        bold.setBold(True)
        for item in self.items:
            group = groups.get(item["kind"])
            if group is None:
                group = QTreeWidgetItem([item["group"]])
                group.setFlags(Qt.ItemFlag.ItemIsEnabled)
                group.setFont(0, bold)
                group.setForeground(0, Qt.GlobalColor.darkGray)
                self.tree.addTopLevelItem(group)
                groups[item["kind"]] = group
            row = QTreeWidgetItem([item["title"]])
            row.setData(0, Qt.ItemDataRole.UserRole, item["ref"])
            row.setToolTip(0, item["detail"])
            group.addChild(row)
            if item["ref"] == keep:
                select = row
        for group in groups.values():
            group.setText(0, f"{group.text(0)}  ({group.childCount()})")
        self.tree.expandAll()
        self.tree.blockSignals(False)
        n = len(self.items)
        self.count_label.setText(f"· {n} waiting" if n else "· nothing waiting")
        self.empty.setVisible(n == 0 and self.session.memory is not None)
        self.split.setVisible(n > 0)
        if select is None and groups:
            first = next(iter(groups.values()))
            select = first.child(0)
        if select is not None:
            self.tree.setCurrentItem(select)
        self._show_current()

    def current_ref(self) -> str | None:
        row = self.tree.currentItem()
        return row.data(0, Qt.ItemDataRole.UserRole) if row is not None else None

    def current(self) -> dict[str, Any] | None:
        ref = self.current_ref()
        return next((i for i in self.items if i["ref"] == ref), None)

    def _show_current(self) -> None:
        item = self.current()
        has = item is not None
        self.card.setVisible(has)
        if not has:
            return
        self.item_title.setText(item["title"])
        self.item_detail.setText(item["detail"])
        days = self.later_days
        self.item_choices.setText(f"Accept: {item['accept']}  ·  Reject: {item['reject']}  ·  "
                                  f"Later: hide it for {days:g} day{'s' if days != 1 else ''}")
        if item["events"]:
            self.session.select("event", item["events"][-1])
        elif item["entities"]:
            self.session.select("entity", item["entities"][-1])

    # -- deciding ----------------------------------------------------------------------------
    def decide(self, action: str) -> dict[str, Any] | None:
        item = self.current()
        memory = self.session.memory
        if item is None or memory is None or self.session.read_only:
            return None
        after = self._next_ref(item["ref"])
        try:
            out = memory.review(item["ref"], action, now=self.now)
        except PulseError as exc:
            self.failed.emit(str(exc))
            self.session.message.emit(f"Review: {exc}")
            self.refresh()
            return None
        verb = {"accept": "Accepted", "reject": "Rejected", "later": "Later"}[action]
        if out.get("seq") is not None:   # pushing refreshes every view (JournalCommand)
            self.session.undo_stack.push(JournalCommand(self.session, out["seq"],
                                                        f"{verb}: {item['title']}", "all"))
        else:
            self.session.notify("all")
        row = self._row(after)
        if row is not None:
            self.tree.setCurrentItem(row)
        self.session.message.emit(f"{verb}: {item['title']}"
                                  + (" — Ctrl+Z undoes it" if out.get("seq") else ""))
        self.decided.emit(out)
        return out

    def _next_ref(self, ref: str) -> str | None:
        """The item to go on with once `ref` is decided: the next one, else the one before."""
        refs = [i["ref"] for i in self.items]
        if ref not in refs:
            return None
        i = refs.index(ref)
        return refs[i + 1] if i + 1 < len(refs) else (refs[i - 1] if i else None)

    def _row(self, ref: str | None) -> QTreeWidgetItem | None:
        for g in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(g)
            for c in range(group.childCount()):
                if group.child(c).data(0, Qt.ItemDataRole.UserRole) == ref:
                    return group.child(c)
        return None

    def _save_ttl(self) -> None:
        memory = self.session.memory
        if memory is None or self.session.read_only:
            return
        days = self.ttl.value()
        if memory.upkeep_settings()["question_ttl_days"] == days:
            return
        try:
            out = memory.set_upkeep_settings(question_ttl_days=days)
        except PulseError as exc:
            self.failed.emit(str(exc))
            return
        if out["journal_seq"] is not None:
            self.session.undo_stack.push(JournalCommand(
                self.session, out["journal_seq"], f"Open questions expire after {days} days",
                "all"))
        self.refresh()
        self.session.message.emit(f"Open questions now expire after {days} days (upkeep "
                                  "proposes their dismissal; nothing is dismissed on its own).")

    def prepare_screenshot(self) -> None:
        """For `--screenshots`: upkeep on the demo memory as of its "now" (proposals only,
        journaled), the first item selected."""
        memory = self.session.memory
        if memory is None or self.session.read_only:
            return
        self.now = "2026-11-01T12:00:00Z"
        if not memory.upkeep_proposals(None):
            memory.upkeep(now=self.now)
            self.session.notify("all")
        self.refresh()
        if self.items:
            self.tree.setCurrentItem(self._row(self.items[0]["ref"]))

    # -- upkeep ------------------------------------------------------------------------------
    def run_upkeep(self, *, dry_run: bool) -> workers.Job | None:
        memory = self.session.memory
        if memory is None:
            return None
        path, now = Path(memory.path), self.now

        def work(_progress, _cancel):
            with Memory.open(path, read_only=dry_run) as m:
                return m.upkeep(dry_run=dry_run, now=now)

        job = workers.Job(work)
        self.jobs.add(job)
        job.signals.done.connect(lambda out: self._upkeep_done(job, out))
        job.signals.failed.connect(lambda text: self._upkeep_failed(job, text))
        self.run_button.setEnabled(False)
        self.preview_button.setEnabled(False)
        self.note.setText("Looking through the memory…")
        if not dry_run:
            self.session.own_work["upkeep"] = "upkeep is adding proposals to this memory"
        return workers.start(job)

    def _upkeep_done(self, job: workers.Job, out: dict[str, Any]) -> None:
        self.jobs.discard(job)
        self.session.own_work.pop("upkeep", None)    # one job at a time: the buttons wait
        p = out["proposed"]
        found = (f"{len(p['event_merge'])} events said twice, {len(p['archive'])} old faint "
                 f"memories, {len(p['dismiss'])} open questions past their time")
        if out["dry_run"]:
            self.note.setText(f"Preview: upkeep would propose {found}. Nothing was written.")
        else:
            retitled = len(out["patterns_retitled"])
            self.note.setText(f"Upkeep proposed {found}"
                              + (f"; {retitled} patterns got readable titles" if retitled else "")
                              + ". Nothing changes until you accept.")
            self.session.notify("all")
        self.refresh()
        self.tree.setFocus()          # A / R / L act on the list again
        self.upkeepDone.emit(out)

    def _upkeep_failed(self, job: workers.Job, text: str) -> None:
        self.jobs.discard(job)
        self.session.own_work.pop("upkeep", None)
        self.note.setText(f"Upkeep failed: {text}")
        self.failed.emit(text)
        self.refresh()
