"""File → Export viewer…: what goes into a standalone viewer someone else will open.

Domains, how much text (names per each person's policy / no event text / titles only — the
same levels as `pulse export-html --redact`), an optional passphrase lock (the page then holds
only ciphertext), and where to save it (the last folder is remembered). After the export the
written file is shown with an Open button. Policies and boundaries always apply to an export
(docs/privacy.md); the dialog says so. The export itself runs on a worker (`calls["export"]`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from core.beliefs import DOMAINS
from pulse_desktop.dialog_fit import grow_to_fit
from pulse_desktop.style import DOMAIN_NAMES

LEVELS = (("names", "Names per each person's policy",
           "Event descriptions, facts and the source text stay."),
          ("no-event-text", "No event text",
           "Titles, names and facts only: no event description, no source text."),
          ("titles-only", "Titles only",
           "Only names and event titles: no description, fact, alias or source text."))
MIN_PASSPHRASE = 8


class ExportDialog(QDialog):
    def __init__(self, memory_name: str, folder: str | Path,
                 export: Callable[[dict[str, Any]], None], parent: QWidget | None = None
                 ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export viewer")
        self.calls = {"export": export}      # never an attribute (see edit_dialogs.py)
        self.written: str | None = None
        stem = Path(memory_name).stem

        note = QLabel("A viewer is one HTML file that works offline and makes no request. It "
                      "leaves your own view, so people set to <i>no capture</i> are left out, "
                      "redacted people show as their role label, and nothing behind a "
                      "<i>do not probe</i> boundary is included.")
        note.setObjectName("invariant")
        note.setWordWrap(True)

        domains = QGroupBox("Domains")
        row = QHBoxLayout(domains)
        self.domain_boxes: dict[str, QCheckBox] = {}
        for domain in DOMAINS:
            box = QCheckBox(DOMAIN_NAMES.get(domain, domain))
            box.setChecked(True)
            self.domain_boxes[domain] = box
            row.addWidget(box)
        self.events_box = QCheckBox("Events as nodes")
        self.events_box.setChecked(True)
        row.addStretch(1)
        row.addWidget(self.events_box)

        levels = QGroupBox("Redaction")
        column = QVBoxLayout(levels)
        self.level_group = QButtonGroup(self)
        self.level_buttons: dict[str, QRadioButton] = {}
        for i, (value, label, hint) in enumerate(LEVELS):
            button = QRadioButton(f"{label} — {hint}")
            button.setChecked(i == 0)
            self.level_group.addButton(button, i)
            self.level_buttons[value] = button
            column.addWidget(button)

        lock = QGroupBox("Lock")
        lock_form = QFormLayout(lock)
        self.lock_box = QCheckBox("Lock with a passphrase: the file holds only ciphertext and "
                                  "asks for it in the browser")
        self.pass1 = QLineEdit()
        self.pass2 = QLineEdit()
        for edit, name in ((self.pass1, "Passphrase"), (self.pass2, "Passphrase again")):
            edit.setEchoMode(QLineEdit.EchoMode.Password)
            edit.setAccessibleName(name)
            edit.setEnabled(False)
        self.lock_box.toggled.connect(self.pass1.setEnabled)
        self.lock_box.toggled.connect(self.pass2.setEnabled)
        lock_hint = QLabel("Give the passphrase another way than the file (a phone call).")
        lock_hint.setObjectName("hint")
        lock_form.addRow(self.lock_box)
        lock_form.addRow("Passphrase", self.pass1)
        lock_form.addRow("Again", self.pass2)
        lock_form.addRow(lock_hint)

        where = QHBoxLayout()
        self.path_edit = QLineEdit(str(Path(folder) / f"{stem}-viewer.html"))
        self.path_edit.setAccessibleName("Save to")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        where.addWidget(QLabel("Save to"))
        where.addWidget(self.path_edit, 1)
        where.addWidget(browse)

        self.error = QLabel()
        self.error.setObjectName("dialogError")
        self.error.setWordWrap(True)
        self.error.hide()
        self.result = QLabel()
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton("Open")
        self.open_button.setToolTip("Open the written file in your browser")
        self.open_button.clicked.connect(self._open_written)
        self.open_button.hide()
        done_row = QHBoxLayout()
        done_row.addWidget(self.result, 1)
        done_row.addWidget(self.open_button)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.export_button = self.buttons.addButton("Export",
                                                    QDialogButtonBox.ButtonRole.AcceptRole)
        self.export_button.setDefault(True)
        self.buttons.accepted.connect(self.start)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(domains)
        layout.addWidget(levels)
        layout.addWidget(lock)
        layout.addLayout(where)
        layout.addWidget(self.error)
        layout.addLayout(done_row)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(640)

    # -- values ---------------------------------------------------------------------------------

    def level(self) -> str:
        return next(v for v, b in self.level_buttons.items() if b.isChecked())

    def values(self) -> dict[str, Any]:
        """What to export; ValueError with the line to show when something is missing."""
        domains = [d for d, box in self.domain_boxes.items() if box.isChecked()]
        if not domains:
            raise ValueError("Choose at least one domain.")
        out = Path(self.path_edit.text().strip()).expanduser()
        if not self.path_edit.text().strip():
            raise ValueError("Choose where to save the viewer.")
        if out.suffix.lower() not in (".html", ".htm"):
            out = out.with_suffix(".html")
        lock = None
        if self.lock_box.isChecked():
            lock = self.pass1.text()
            if len(lock) < MIN_PASSPHRASE:
                raise ValueError(f"The passphrase needs at least {MIN_PASSPHRASE} characters.")
            if lock != self.pass2.text():
                raise ValueError("The two passphrases differ.")
        return {"out": str(out), "domains": domains, "redact": self.level(),
                "include_events": self.events_box.isChecked(), "lock": lock}

    # -- actions --------------------------------------------------------------------------------

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save the viewer as", self.path_edit.text(),
                                              "HTML page (*.html)")
        if path:
            self.path_edit.setText(path)

    def start(self) -> None:
        try:
            values = self.values()
        except ValueError as exc:
            self.fail(str(exc))
            return
        self.error.hide()
        self.result.setText("Exporting…")
        self.open_button.hide()
        self.export_button.setEnabled(False)
        self.calls["export"](values)

    def finished(self, summary: dict[str, Any]) -> None:
        self.export_button.setEnabled(True)
        self.pass1.clear()
        self.pass2.clear()
        self.written = summary["path"]
        extra = []
        if summary.get("locked"):
            extra.append("locked")
        withheld = (summary.get("withheld") or {}).get("events_behind_boundaries")
        if withheld:
            extra.append(f"{withheld} event{'s' if withheld != 1 else ''} behind a boundary "
                         "left out")
        self.result.setText(f"Written: {summary['path']} — {summary['nodes']} nodes, "
                            f"{summary['bytes'] // 1024:,} KB"
                            + (f" ({', '.join(extra)})" if extra else ""))
        self.open_button.show()
        grow_to_fit(self)      # room for the line (pulse_desktop/dialog_fit.py)

    def fail(self, text: str) -> None:
        self.export_button.setEnabled(True)
        self.result.setText("")
        self.error.setText(text)
        self.error.show()
        grow_to_fit(self)      # room for the line (pulse_desktop/dialog_fit.py)

    def _open_written(self) -> None:
        if self.written:
            QDesktopServices.openUrl(QUrl.fromLocalFile(self.written))
