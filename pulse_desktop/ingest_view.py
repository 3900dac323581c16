"""Ingest tab: drop or pick files, format auto-detected, extractor offline or a model alias;
the import runs in a workers.Job with its own Memory (progress bar, Cancel); a summary at the
end; merge proposals to approve or reject. After an import every view is told (notify "all").

The engine side is `core.ingest` (ingest_files / detect_format / list_merge_proposals /
resolve_merge_proposal); if it cannot be imported the tab says so instead of failing.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.memory import Memory
from pulse_desktop import ingest_summary
from pulse_desktop.query_thread import run_job
from pulse_desktop.style import notice_banner

FORMATS = ("auto", "chat", "chatgpt", "claude", "text", "obsidian", "corpus")
PROGRESS_INTERVAL = 0.05   # seconds between progress signals from the worker (UI stays calm)


def model_aliases(models_file: Path | None = None) -> tuple[list[str], str | None]:
    """Aliases of the validated models.json, and why there are none (or None)."""
    try:
        from pulse_desktop.app_settings import load

        path = models_file or load().models_file
    except Exception as exc:  # noqa: BLE001
        return [], f"settings unreadable: {exc}"
    if not path.exists():
        return [], f"no models.json at {path} (Settings → Model aliases)"
    try:
        from pulse_desktop.settings_dialog import validate_models

        router, error, _ = validate_models(path.read_text(encoding="utf-8"))
    except Exception as exc:  # noqa: BLE001
        return [], f"models.json unreadable: {exc}"
    if error:
        return [], f"models.json is not valid: {error}"
    aliases = sorted(router.models)
    if "extract" in (router.ingest or {}):   # the triage → extract pair of models.json
        aliases.insert(0, "llm")
    return aliases, None


def throttled(progress, interval: float = PROGRESS_INTERVAL):
    """A progress callback that forwards at most every `interval` seconds (and the last)."""
    last = [0.0]

    def call(done: int, total: int) -> None:
        now = time.monotonic()
        if done >= total or now - last[0] >= interval:
            last[0] = now
            progress(done, total)
    return call


def throttled_share(report, interval: float = PROGRESS_INTERVAL):
    """A `preparing(share)` callback that forwards at most every `interval` seconds."""
    last = [0.0]

    def call(share: float) -> None:
        now = time.monotonic()
        if now - last[0] >= interval:
            last[0] = now
            report(float(share))
    return call


class _DropList(QListWidget):
    def __init__(self, view: IngestView) -> None:
        super().__init__()
        self.view = view
        self.setAcceptDrops(True)

    def dragEnterEvent(self, event) -> None:  # noqa: N802
        self.view.dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802
        self.view.dropEvent(event)


class IngestView(QWidget):
    """The Ingest tab. Signals: importFinished(dict) with ingest_files' summary (also after a
    cancel: summary["cancelled"] is True), importFailed(str), proposalResolved(dict)."""

    importFinished = Signal(dict)
    importFailed = Signal(str)
    proposalResolved = Signal(dict)
    progressed = Signal(int, int)
    # how far the batch being prepared is (0..1), from the worker: one long message takes
    # seconds before its count arrives
    preparingShare = Signal(float)

    def __init__(self, session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.paths: list[Path] = []
        self.job = None
        self.last_summary: dict[str, Any] | None = None
        self._counted = False           # a count of messages arrived in this import
        self.setAcceptDrops(True)
        self._build()
        self.preparingShare.connect(self._preparing)
        session.opened.connect(self._opened)
        session.changed.connect(self._memory_changed)
        self._refresh_state()

    # -- building ----------------------------------------------------------------------

    def _build(self) -> None:
        lay = QVBoxLayout(self)
        self.banner = notice_banner()
        lay.addWidget(self.banner)

        files_box = QGroupBox("Files (drop them here, or pick)")
        fl = QVBoxLayout(files_box)
        self.file_list = _DropList(self)
        self.file_list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.file_list.setToolTip("Drop chat exports, text or Markdown files, an Obsidian folder, "
                                  "or a pulse-corpus file. The format is detected from content.")
        fl.addWidget(self.file_list)
        row = QHBoxLayout()
        self.add_button = QPushButton("Add files…")
        self.add_button.setToolTip("Ctrl+Shift+O")
        self.add_button.clicked.connect(self.pick_files)
        self.add_folder_button = QPushButton("Add folder…")
        self.add_folder_button.setToolTip("an Obsidian-style folder of notes")
        self.add_folder_button.clicked.connect(self.pick_folder)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_selected)
        self.clear_button = QPushButton("Clear")
        self.clear_button.clicked.connect(self.clear_files)
        for b in (self.add_button, self.add_folder_button, self.remove_button, self.clear_button):
            row.addWidget(b)
        row.addStretch(1)
        fl.addLayout(row)
        form = QFormLayout()
        self.format_combo = QComboBox()
        self.format_combo.addItems(FORMATS)
        self.format_combo.setToolTip("auto: detected from each file's content")
        form.addRow("Format", self.format_combo)
        self.extractor_combo = QComboBox()
        self.extractor_combo.setToolTip("offline: deterministic heuristics, no network. A model "
                                        "alias (Settings → Model aliases) uses that model.")
        form.addRow("Extractor", self.extractor_combo)
        self.me_edit = QLineEdit()
        self.me_edit.setPlaceholderText("optional: the person's name in these chats")
        self.me_edit.setToolTip("Whose memory this is. Their chat turns are the user's; an AI "
                                "assistant's turns are kept as context only, never events or "
                                "an entity. Exports (ChatGPT, Claude) already say who is who.")
        form.addRow("Me", self.me_edit)
        fl.addLayout(form)
        actions = QHBoxLayout()
        self.import_button = QPushButton("Import")
        self.import_button.setToolTip("Ctrl+Return")
        self.import_button.clicked.connect(self.start_import)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.setToolTip("stop after the current message; what was written stays "
                                      "consistent, and importing again finishes the rest (Esc)")
        self.cancel_button.clicked.connect(self.cancel_import)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setFormat("%v / %m messages")
        self.progress.setTextVisible(False)
        actions.addWidget(self.import_button)
        actions.addWidget(self.cancel_button)
        actions.addWidget(self.progress, 1)
        fl.addLayout(actions)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        fl.addWidget(self.status)

        self.summary = QPlainTextEdit()
        self.summary.setReadOnly(True)
        self.summary.setPlaceholderText("The summary of the last import appears here.")

        merge_box = QGroupBox("Merge proposals (same person under two names?)")
        ml = QVBoxLayout(merge_box)
        self.proposals = QTableWidget(0, 5)
        self.proposals.setHorizontalHeaderLabels(["id", "keep", "merge into it", "kind",
                                                  "similarity"])
        self.proposals.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.proposals.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.proposals.verticalHeader().setVisible(False)
        self.proposals.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        ml.addWidget(self.proposals)
        mrow = QHBoxLayout()
        self.approve_button = QPushButton("Approve (merge)")
        self.approve_button.clicked.connect(lambda: self.resolve_selected(True))
        self.reject_button = QPushButton("Reject")
        self.reject_button.clicked.connect(lambda: self.resolve_selected(False))
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh_proposals)
        for b in (self.approve_button, self.reject_button, self.refresh_button):
            mrow.addWidget(b)
        mrow.addStretch(1)
        ml.addLayout(mrow)

        split = QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)     # a drag never hides a panel whole
        split.addWidget(files_box)
        split.addWidget(self.summary)
        split.addWidget(merge_box)
        lay.addWidget(split, 1)

        ctx = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for keys, slot in (("Ctrl+Shift+O", self.pick_files), ("Ctrl+Return", self.start_import),
                           ("Escape", self.cancel_import), ("Delete", self.remove_selected)):
            sc = QShortcut(QKeySequence(keys), self)
            sc.setContext(ctx)
            sc.activated.connect(slot)

    def focus_target(self):
        return self.file_list

    # -- state -------------------------------------------------------------------------

    def _say(self, text: str) -> None:
        self.status.setText(text)
        self.session.message.emit(text)

    def reload_extractors(self) -> None:
        current = self.extractor_combo.currentText()
        self.extractor_combo.clear()
        self.extractor_combo.addItem("offline")
        aliases, why = model_aliases()
        for alias in aliases:
            self.extractor_combo.addItem(alias)
        if why:
            self.extractor_combo.setItemData(0, f"offline only: {why}",
                                             Qt.ItemDataRole.ToolTipRole)
        if current:
            self.extractor_combo.setCurrentText(current)

    def _opened(self) -> None:
        if self.job is None:            # the last import's summary was another memory's
            self.summary.clear()
            self.summary.setToolTip("")
            self.last_summary = None
            self.progress.reset()
        self._refresh_state()

    def _refresh_state(self) -> None:
        busy = self.job is not None
        memory = self.session.memory
        reason = None
        if memory is None:
            reason = "Open or create a memory first (File menu)."
        elif self.session.read_only:
            reason = self.session.read_only_reason or "This memory is open read-only."
        self.banner.setText(reason or "")
        self.banner.setVisible(reason is not None)
        ok = reason is None
        self.import_button.setEnabled(ok and not busy)
        for b in (self.add_button, self.add_folder_button, self.remove_button,
                  self.clear_button):
            b.setEnabled(not busy)
        self.format_combo.setEnabled(not busy)
        self.extractor_combo.setEnabled(not busy)
        self.me_edit.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)
        self.approve_button.setEnabled(ok and not busy)
        self.reject_button.setEnabled(ok and not busy)
        if not busy:
            self.reload_extractors()
            self.refresh_proposals()

    def _memory_changed(self, what: str) -> None:
        if self.job is None and what in ("all", "entities"):
            self.refresh_proposals()

    # -- files -------------------------------------------------------------------------

    def detect(self, path: Path) -> str:
        try:
            return Memory.detect_format(path)
        except Exception as exc:  # noqa: BLE001 - shown next to the file, not raised
            return f"unrecognised: {exc}"

    def add_paths(self, paths: list[str | Path]) -> None:
        added = 0
        for p in paths:
            path = Path(p)
            if path in self.paths:
                continue
            if not path.exists():
                self._say(f"{path}: no such file or folder")
                continue
            self.paths.append(path)
            kind = self.detect(path)
            item = QListWidgetItem(f"{path.name}  —  {kind}")
            item.setToolTip(str(path))
            item.setData(Qt.ItemDataRole.UserRole, str(path))
            self.file_list.addItem(item)
            added += 1
        if added:
            self._say(f"{len(self.paths)} file{'s' if len(self.paths) != 1 else ''} ready to "
                      "import")

    def pick_files(self) -> None:
        if self.job is not None:
            return
        names, _ = QFileDialog.getOpenFileNames(
            self, "Import files", "",
            "Chats, notes and corpora (*.json *.jsonl *.txt *.md *.markdown);;All files (*)")
        self.add_paths(names)

    def pick_folder(self) -> None:
        if self.job is not None:
            return
        folder = QFileDialog.getExistingDirectory(self, "Import a folder of notes")
        if folder:
            self.add_paths([folder])

    def remove_selected(self) -> None:
        if self.job is not None:
            return
        for item in self.file_list.selectedItems():
            path = Path(item.data(Qt.ItemDataRole.UserRole))
            if path in self.paths:
                self.paths.remove(path)
            self.file_list.takeItem(self.file_list.row(item))

    def clear_files(self) -> None:
        if self.job is not None:
            return
        self.paths.clear()
        self.file_list.clear()

    def dragEnterEvent(self, event) -> None:  # noqa: N802
        if event.mimeData().hasUrls() and self.job is None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:  # noqa: N802
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if not urls:
            self._say("Only local files can be imported.")
            event.ignore()
            return
        self.add_paths([u.toLocalFile() for u in urls])
        event.acceptProposedAction()

    # -- import ------------------------------------------------------------------------

    def start_import(self) -> None:
        if self.job is not None:
            self._say("An import is already running.")
            return
        path = self.session.path
        if path is None:
            self._say("Open or create a memory first.")
            self.importFailed.emit("no memory open")
            return
        if self.session.read_only:
            self._say(self.session.read_only_reason or "This memory is open read-only.")
            self.importFailed.emit("read-only")
            return
        if not self.paths:
            self._say("Add files to import first (drop them here or Add files…).")
            self.importFailed.emit("no files")
            return
        fmt = self.format_combo.currentText()
        extractor = self.extractor_combo.currentText() or "offline"
        me = self.me_edit.text().strip() or None
        paths = [str(p) for p in self.paths]
        def work(progress, cancel: threading.Event) -> dict[str, Any]:
            memory = Memory.open(path)
            try:
                return memory.import_files(paths, fmt=fmt, extractor=extractor, me=me,
                                           progress=throttled(progress), cancel=cancel,
                                           preparing=throttled_share(share))
            finally:
                memory.close()

        share = self.preparingShare.emit
        self._counted = False
        self.progress.setRange(0, 0)   # busy until the first count arrives
        self.progress.setFormat("%v / %m messages")
        self.progress.setTextVisible(True)
        self.summary.clear()
        self._say(f"Importing {len(paths)} file{'s' if len(paths) != 1 else ''} "
                  f"({extractor})…")
        self.session.own_work["import"] = "the import is adding to this memory"
        self.job = run_job(work, self._done, self._failed, self._progress)
        self._refresh_state()

    def cancel_import(self) -> None:
        if self.job is None:
            return
        self.job.cancel.set()
        self.cancel_button.setEnabled(False)
        self._say("Cancelling…")

    def _progress(self, done: int, total: int) -> None:
        if self.job is None:
            return
        self._counted = True
        self.progress.setFormat("%v / %m messages")
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progressed.emit(done, total)

    def _preparing(self, share: float) -> None:
        """Movement while a batch is prepared (one long message is seconds of it): the share
        beside the count, or the bar itself before the first count."""
        if self.job is None:
            return
        percent = min(99, int(100 * share))
        if self._counted:
            self.progress.setFormat(f"%v / %m messages · preparing {percent} %")
        else:
            self.progress.setRange(0, 100)
            self.progress.setValue(percent)
            self.progress.setFormat("preparing the first messages: %p %")

    def _done(self, summary: dict[str, Any]) -> None:
        self.job = None
        self.session.own_work.pop("import", None)
        self.last_summary = summary
        total = summary.get("total") or {}
        self.summary.setPlainText(self.summary_text(summary))
        self.summary.setToolTip("The counters, as pulse ingest --json prints them:\n"
                                + json.dumps(total, indent=1)[:1500])
        self.progress.setFormat("%v / %m messages")
        if not self._counted:          # busy, or the share of a first batch: no count yet
            self.progress.setRange(0, 1)
            self.progress.setValue(0)
        if summary.get("cancelled"):
            # the counts sent are throttled: the last may be behind what was read
            read = min(ingest_summary.messages_read(total), self.progress.maximum())
            self.progress.setValue(max(self.progress.value(), read))
            self._say("Import cancelled: what was written is consistent; import again to "
                      "finish the rest.")
        else:
            self.progress.setValue(self.progress.maximum())
            obs = total.get("observations", {})
            self._say(f"Import finished: {obs.get('new', 0)} new, "
                      f"{obs.get('duplicate', 0)} already there.")
        self._refresh_state()
        self.session.notify("all")
        self.importFinished.emit(summary)

    def _failed(self, text: str) -> None:
        self.job = None
        self.session.own_work.pop("import", None)
        self.progress.setFormat("%v / %m messages")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self._refresh_state()
        self.summary.setPlainText(f"Import failed: {text}\n\nNothing of a failing file is "
                                  "half-written.")
        self._say(f"Import failed: {text}")
        self.session.notify("all")   # earlier files of the batch may have been written
        self.importFailed.emit(text)

    @staticmethod
    def summary_text(summary: dict[str, Any]) -> str:
        return ingest_summary.summary_text(summary)

    # -- merge proposals ---------------------------------------------------------------

    def refresh_proposals(self) -> None:
        self.proposals.setRowCount(0)
        memory = self.session.memory
        if memory is None:
            return
        try:
            rows = memory.merge_proposals()
        except Exception as exc:  # noqa: BLE001 - e.g. an older schema without the table
            self.status.setText(f"Merge proposals unavailable: {exc}")
            return
        for r in rows:
            i = self.proposals.rowCount()
            self.proposals.insertRow(i)
            sim = r.get("similarity", r.get("score"))
            values = [r.get("id"), r.get("keep_name") or r.get("keep_entity"),
                      r.get("merge_name") or r.get("merge_entity"),
                      r.get("keep_kind") or "", f"{sim:.3f}" if isinstance(sim, float) else
                      ("" if sim is None else str(sim))]
            for j, v in enumerate(values):
                item = QTableWidgetItem("" if v is None else str(v))
                item.setData(Qt.ItemDataRole.UserRole, r.get("id"))
                if r.get("reason"):
                    item.setToolTip(str(r["reason"]))
                self.proposals.setItem(i, j, item)

    def resolve_selected(self, approve: bool) -> None:
        rows = sorted({i.row() for i in self.proposals.selectedIndexes()})
        if not rows:
            self._say("Select a merge proposal first.")
            return
        if self.job is not None:
            self._say("Wait for the import to finish.")
            return
        memory = self.session.memory
        if memory is None:
            return
        from pulse_desktop.undo_commands import push_journaled

        done = []
        verb = "Approve" if approve else "Reject"
        for row in rows:
            pid = int(self.proposals.item(row, 0).data(Qt.ItemDataRole.UserRole))
            try:   # one undoable step each (Ctrl+Z puts the two entities back)
                result = push_journaled(self.session, f"{verb} merge proposal {pid}",
                                        lambda p=pid: memory.resolve_merge(p, approve),
                                        what="entities")
            except Exception as exc:  # noqa: BLE001 - refused (kinds differ, fiction…)
                QMessageBox.warning(self, "Merge proposal", str(exc))
                self._say(str(exc))
                continue
            done.append(result)
            self.proposalResolved.emit(result)
        if done:
            self._say(f"{len(done)} proposal{'s' if len(done) != 1 else ''} "
                      f"{'approved' if approve else 'rejected'}.")
        self.refresh_proposals()
