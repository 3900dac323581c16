"""The erase dialog: a preview of exactly what goes (grouped, counted, each item with why), the
user unticks what must stay, types a word to confirm, and one journaled erasure runs in a worker
(its own Memory), then the file is compacted. Irreversible, so the undo stack is cleared."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.errors import PulseError
from core.memory import Memory
from pulse_desktop import workers
from pulse_desktop.session import MemorySession

CONFIRM_WORD = "erase"
GROUPS = {"entity": "Entity", "fact": "Facts", "relation": "Relations", "event": "Events",
          "observation": "Conversations and notes", "glossary": "Glossary terms",
          "correction": "Corrections", "merge_proposal": "Merge proposals"}
NOUNS = {"entity": ("entity", "entities"), "fact": ("fact", "facts"),
         "relation": ("relation", "relations"), "event": ("event", "events"),
         "observation": ("conversation or note", "conversations and notes"),
         "glossary": ("glossary term", "glossary terms"),
         "correction": ("correction", "corrections"),
         "merge_proposal": ("merge proposal", "merge proposals")}


def counted(kind: str, n: int) -> str:
    one, many = NOUNS.get(kind, (kind, kind))
    return f"{n} {one if n == 1 else many}"
REF_ROLE = Qt.ItemDataRole.UserRole + 1


class EraseDialog(QDialog):
    erased = Signal(dict)        # the core's summary
    failed = Signal(str)

    def __init__(self, session: MemorySession, refs: list[str], title: str, *,
                 cascade: bool = False, can_cascade: bool = False,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.refs = list(refs)
        self.keep: set[str] = set()
        self.job: workers.Job | None = None
        self.preview: dict[str, Any] = {}
        self.setWindowTitle(f"Erase {title}")
        self.setMinimumSize(640, 620)

        heading = QLabel(f"<b>Erase {title}</b>")
        heading.setTextFormat(Qt.TextFormat.RichText)
        warning = QLabel("This cannot be undone. What is ticked below is removed from the memory "
                         "file, from its journal (the history keeps only that something was "
                         "erased, and when) and from every later export.")
        warning.setObjectName("danger")
        warning.setWordWrap(True)
        self.cascade_box = QCheckBox("Everything about them")
        self.cascade_box.setChecked(cascade)
        self.cascade_box.setVisible(can_cascade)
        self.cascade_note = QLabel("The events linked to them or naming them, the conversations "
                                   "and notes quoting them, their facts and relations, merge "
                                   "proposals, glossary terms and corrections. Untick what must "
                                   "stay.")
        self.cascade_note.setWordWrap(True)
        self.cascade_note.setStyleSheet("color: #5b6678;")
        self.cascade_note.setVisible(can_cascade)
        self.cascade_box.toggled.connect(self.cascade_note.setEnabled)
        self.cascade_box.toggled.connect(lambda _on: self._reset_keep())
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["What goes", "Why"])
        self.tree.setColumnWidth(0, 380)
        self.tree.itemChanged.connect(self._toggled)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.mentions = QLabel()
        self.mentions.setObjectName("banner")
        self.mentions.setWordWrap(True)
        self.mentions.hide()
        self.confirm = QLineEdit()
        self.confirm.setPlaceholderText(CONFIRM_WORD)
        self.confirm.textChanged.connect(self._update_button)
        confirm_row = QHBoxLayout()
        confirm_row.addWidget(QLabel(f"Type <b>{CONFIRM_WORD}</b> to confirm:"))
        confirm_row.addWidget(self.confirm, 1)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.hide()
        self.error = QLabel()
        self.error.setObjectName("dialogError")
        self.error.setWordWrap(True)
        self.error.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.erase_button = QPushButton("Erase")
        self.erase_button.setObjectName("destructive")
        self.buttons.addButton(self.erase_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.erase_button.clicked.connect(self.start)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for w in (heading, warning, self.cascade_box, self.cascade_note, self.tree, self.summary,
                  self.mentions):
            layout.addWidget(w, 1 if w is self.tree else 0)
        layout.addLayout(confirm_row)
        for w in (self.busy, self.error, self.buttons):
            layout.addWidget(w)
        self._reset_keep()

    # -- the preview --------------------------------------------------------------------------
    def _reset_keep(self) -> None:
        self.keep = set()
        self._fill_tree()

    def _plan(self, keep: set[str]) -> dict[str, Any]:
        return self.session.require().forget_preview(self.refs, cascade=self.cascade_box.isChecked(),
                                                     keep=sorted(keep))

    def _fill_tree(self) -> None:
        try:
            full = self._plan(set())
            self.preview = self._plan(self.keep) if self.keep else full
        except PulseError as exc:
            self._fail(str(exc))
            self.erase_button.setEnabled(False)
            return
        self.tree.blockSignals(True)
        self.tree.clear()
        by_kind: dict[str, list[dict[str, Any]]] = {}
        for item in full["items"]:
            by_kind.setdefault(item["kind"], []).append(item)
        for kind, items in by_kind.items():
            group = QTreeWidgetItem([f"{GROUPS.get(kind, kind)} ({len(items)})", ""])
            group.setFlags(group.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            self.tree.addTopLevelItem(group)
            for item in items:
                child = QTreeWidgetItem([item["label"], "asked for" if item["root"]
                                         else item["reason"]])
                child.setData(0, REF_ROLE, item["ref"])
                child.setToolTip(0, item["label"])
                flags = child.flags() | Qt.ItemFlag.ItemIsUserCheckable
                if item["root"]:       # what was asked for always goes
                    flags &= ~Qt.ItemFlag.ItemIsEnabled
                child.setFlags(flags)
                group.addChild(child)
            group.setExpanded(kind != "observation" or len(items) <= 6)
        self.tree.blockSignals(False)
        self._sync_checks()

    def _children(self):
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            for j in range(group.childCount()):
                yield group.child(j)

    def _sync_checks(self) -> None:
        """Ticks show exactly what the current plan erases; an item that stays only because
        something it supports is kept is shown unticked and greyed."""
        going = {i["ref"] for i in self.preview.get("items", [])}
        self.tree.blockSignals(True)
        for child in self._children():
            ref = child.data(0, REF_ROLE)
            child.setCheckState(0, Qt.CheckState.Checked if ref in going
                                else Qt.CheckState.Unchecked)
            forced = ref not in going and ref not in self.keep
            child.setDisabled(forced or not (child.flags() & Qt.ItemFlag.ItemIsEnabled))
            if forced:
                child.setToolTip(1, "Stays: it still supports something you keep")
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            n = sum(1 for j in range(group.childCount())
                    if group.child(j).checkState(0) == Qt.CheckState.Checked)
            label = group.text(0).rsplit(" (", 1)[0]
            group.setText(0, f"{label} ({n} of {group.childCount()})" if n != group.childCount()
                          else f"{label} ({n})")
        self.tree.blockSignals(False)
        counts = self.preview.get("counts", {})
        rows = sum(self.preview.get("rows", {}).values())
        recalls = int(self.preview.get("recall_records", 0) or 0)
        self.summary.setText("Will erase " + ", ".join(counted(k, n) for k, n in counts.items())
                             + f" — {rows} rows in all, with their vectors, emotions, links "
                             "and search index"
                             + (f", and clean {recalls} record{'s' if recalls != 1 else ''} of "
                                "the recall log" if recalls else "") + ".")
        mentions = self.preview.get("kept_mentions", [])
        if mentions and self.preview.get("names"):
            n = len(mentions)
            self.mentions.setText(f"{n} item{'s' if n != 1 else ''} you keep still "
                                  f"name{'s' if n == 1 else ''} {self.preview['names'][0]}; "
                                  f"{'its' if n == 1 else 'their'} text stays in the memory.")
        self.mentions.setVisible(bool(mentions))
        self._update_button()

    def _toggled(self, child: QTreeWidgetItem, _column: int) -> None:
        ref = child.data(0, REF_ROLE)
        if not ref:
            return
        if child.checkState(0) == Qt.CheckState.Checked:
            self.keep.discard(ref)
        else:
            self.keep.add(ref)
        try:
            self.preview = self._plan(self.keep)
        except PulseError as exc:
            self._fail(str(exc))
            return
        self._sync_checks()

    def _update_button(self, *_args) -> None:
        ok = (self.confirm.text().strip().lower() == CONFIRM_WORD and bool(self.preview)
              and self.job is None and not self.session.read_only)
        self.erase_button.setEnabled(ok)

    def _fail(self, text: str) -> None:
        self.error.setText(text)
        self.error.show()

    # -- the erasure ----------------------------------------------------------------------------
    def start(self) -> None:
        if not self.erase_button.isEnabled():
            return
        path = Path(self.session.require().path)
        refs, cascade, keep = list(self.refs), self.cascade_box.isChecked(), sorted(self.keep)

        def work(_progress, _cancel):
            with Memory.open(path) as memory:
                return memory.forget(refs, cascade=cascade, keep=keep)

        self.job = workers.Job(work)
        self.job.signals.done.connect(self._done)
        self.job.signals.failed.connect(self._failed)
        self.busy.show()
        self.error.hide()
        for w in (self.tree, self.confirm, self.cascade_box):
            w.setEnabled(False)
        self._update_button()
        self.session.own_work["erase"] = "the erasure is rewriting this memory"
        workers.start(self.job)

    def _done(self, out: dict[str, Any]) -> None:
        self.job = None
        self.busy.hide()
        self.session.own_work.pop("erase", None)
        # an erasure is final: nothing before it can be undone any more
        self.session.undo_stack.clear()
        if self.session.selection and f"{self.session.selection[0]}:{self.session.selection[1]}" \
                in {i["ref"] for i in self.preview.get("items", [])}:
            self.session.selection = None
        rows = sum(out["rows"].values())
        note = "" if out.get("wal_truncated", True) else (
            " Another program holds the memory open: close it and erase again to empty its "
            "-wal file.")
        self.session.message.emit(f"Erased {rows} rows; the memory file was compacted.{note}")
        self.session.notify("all")
        self.erased.emit(out)
        self.accept()

    def _failed(self, text: str) -> None:
        self.job = None
        self.busy.hide()
        self.session.own_work.pop("erase", None)
        for w in (self.tree, self.confirm, self.cascade_box):
            w.setEnabled(True)
        self._fail(f"Erase failed: {text}")
        self.failed.emit(text)
        self._update_button()
