"""Asking for an encrypted memory's passphrase when the app opens it (docs/privacy.md).

The passphrase stays in this process's memory only, unless the user ticks "Remember in the OS
keyring" — then the OS keeps it (the `keyring` package) and the app's settings list that memory
(Settings → Privacy shows and forgets them). A wrong passphrase keeps the dialog open with one
clear line; the file is never touched.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from core.errors import PassphraseError


class PassphraseDialog(QDialog):
    """`try_open(passphrase)` is called on OK: it raises PassphraseError for a wrong one (the
    dialog stays open and says so) and returns normally when the memory opened."""

    def __init__(self, path: str | Path, try_open: Callable[[str], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Encrypted memory")
        self.calls = {"try_open": try_open}     # never an attribute (PySide6 6.11.3, see
        self.passphrase = ""                    # edit_dialogs.py)
        name = Path(path).name
        intro = QLabel(f"<b>{name}</b> is encrypted. Type its passphrase to open it.")
        intro.setWordWrap(True)
        note = QLabel("The passphrase is kept only while the app runs, unless you choose the "
                      "OS keyring below. Without it nobody — not Pulse either — can read this "
                      "memory.")
        note.setObjectName("invariant")
        note.setWordWrap(True)
        self.edit = QLineEdit()
        self.edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.edit.setPlaceholderText("Passphrase")
        self.edit.setAccessibleName("Passphrase")
        self.remember = QCheckBox("Remember in the OS keyring (anyone logged in as you can "
                                  "then open it)")
        self.error = QLabel()
        self.error.setObjectName("dialogError")
        self.error.setWordWrap(True)
        self.error.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Open")
        self.ok.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(note)
        layout.addWidget(self.edit)
        layout.addWidget(self.remember)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.setMinimumWidth(440)

    def accept(self) -> None:
        text = self.edit.text()
        if not text:
            self._fail("Type the passphrase first.")
            return
        try:
            self.calls["try_open"](text)
        except PassphraseError:
            # an encrypted file is random bytes from its first one: a damaged or foreign file
            # looks the same, so the message names both
            self._fail("Wrong passphrase (or not a Pulse memory): it did not open, and "
                       "nothing was changed.")
            self.edit.selectAll()
            self.edit.setFocus()
            return
        self.passphrase = text
        self.edit.clear()
        super().accept()

    def _fail(self, text: str) -> None:
        self.error.setText(text)
        self.error.show()
        self.adjustSize()        # room for the line: the wrapped note must not be squeezed
