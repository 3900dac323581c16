"""Settings: data folder, model aliases (a validated models.json editor), embedding model
(switching re-embeds with progress, off the UI thread), and API keys — which are never stored:
the dialog only shows which environment variable each alias needs and whether it is set.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor, QFont, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from pulse_desktop import app_settings
from pulse_desktop.query_thread import run_job

MODELS_TEMPLATE = """{
  "models": {
    "fast": {
      "provider": "anthropic",
      "model": "claude-haiku-4-5",
      "api_key_env": "ANTHROPIC_API_KEY",
      "max_tokens": 2048,
      "temperature": 0
    }
  }
}
"""


def _line_of(text: str, message: str) -> int | None:
    """Best-effort line of a validation message: the item it names, searched after the alias
    it names ("alias 'fast': unknown key 'api_key'" → the api_key line of "fast")."""
    lines = text.splitlines()
    alias = re.search(r"alias '([^']+)'", message)
    start = 0
    if alias:
        for i, line in enumerate(lines):
            if f'"{alias.group(1)}"' in line:
                start = i
                break
    quoted = [n for n in re.findall(r"'([^']+)'", message)
              if not alias or n != alias.group(1)]
    from core.memory import Memory

    fields = Memory.model_fields()
    known = (*fields["required"], *fields["optional"], *fields["top"])
    fields_named = [k for k in known if re.search(rf"(?<![\w']){re.escape(k)}(?![\w'])",
                                                   message)]
    for name in (*reversed(quoted), *fields_named):
        for i in range(start, len(lines)):
            if f'"{name}"' in lines[i]:
                return i + 1
    return start + 1 if alias else None


def validate_models(text: str) -> tuple[Any, str | None, int | None]:
    """(router, None, None) when valid, else (None, "line N: message", N)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"line {exc.lineno}, column {exc.colno}: not valid JSON ({exc.msg})", \
            exc.lineno
    from core.memory import Memory

    try:
        router = Memory.parse_models(data, "models.json")
    except Exception as exc:  # noqa: BLE001 - ValidationError: one line naming the item
        message = str(exc)
        line = _line_of(text, message)
        return None, (f"line {line}: {message}" if line else message), line
    return router, None, None


def validate_models_text(text: str) -> tuple[list[str], str | None]:
    router, error, _ = validate_models(text)
    return (sorted(router.models) if router is not None else []), error


def key_status(router: Any) -> list[tuple[str, str, str, bool]]:
    """(alias, provider/model, env var, is it set) — never the key itself."""
    return [(alias, f"{cfg.provider} / {cfg.model}", cfg.api_key_env,
             bool(os.environ.get(cfg.api_key_env)))
            for alias, cfg in sorted(router.models.items())]


class SettingsDialog(QDialog):
    """Settings. Signals: saved(object) with the AppSettings written; reembedded(dict) with
    Memory.embed's summary; failed(str)."""

    saved = Signal(object)
    reembedded = Signal(dict)
    failed = Signal(str)

    def __init__(self, session, parent: QWidget | None = None, *,
                 settings_path: str | Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Pulse settings")
        self.session = session
        self.settings_path = Path(settings_path) if settings_path else None
        self.settings = app_settings.load(self.settings_path)
        self.embed_job = None
        self._models_loaded_text = ""
        self._build()
        self._load_models_file()
        self._fill_embedding()

    # -- building ----------------------------------------------------------------------

    def _build(self) -> None:
        lay = QVBoxLayout(self)
        tabs = QTabWidget()
        lay.addWidget(tabs)

        # data folder
        general = QWidget()
        gf = QFormLayout(general)
        row = QHBoxLayout()
        self.data_edit = QLineEdit(self.settings.data_folder)
        self.data_edit.setPlaceholderText(str(app_settings.default_data_dir()))
        self.data_edit.setToolTip("where new memories are created; empty = the platform's "
                                  "user data folder")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse_data)
        default = QPushButton("Default")
        default.clicked.connect(lambda: self.data_edit.setText(""))
        row.addWidget(self.data_edit, 1)
        row.addWidget(browse)
        row.addWidget(default)
        gf.addRow("Data folder", row)
        gf.addRow("", QLabel(f"Settings file: {self.settings_path or app_settings.config_path()}"
                             "\nAPI keys are never stored here or in a memory."))
        tabs.addTab(general, "General")

        # models.json
        models = QWidget()
        ml = QVBoxLayout(models)
        prow = QHBoxLayout()
        self.models_path_edit = QLineEdit(self.settings.models_path)
        self.models_path_edit.setPlaceholderText(str(self._default_models_file()))
        self.models_path_edit.setToolTip("models.json of the model router (aliases → provider, "
                                         "model, the NAME of the key's environment variable)")
        self.models_path_edit.editingFinished.connect(self._load_models_file)
        mbrowse = QPushButton("Browse…")
        mbrowse.clicked.connect(self._browse_models)
        prow.addWidget(QLabel("models.json"))
        prow.addWidget(self.models_path_edit, 1)
        prow.addWidget(mbrowse)
        ml.addLayout(prow)
        self.models_edit = QPlainTextEdit()
        font = QFont("monospace")
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.models_edit.setFont(font)
        self.models_edit.textChanged.connect(self._models_edited)
        ml.addWidget(self.models_edit, 1)
        vrow = QHBoxLayout()
        self.validate_button = QPushButton("Validate")
        self.validate_button.clicked.connect(self.validate)
        self.save_models_button = QPushButton("Save models.json")
        self.save_models_button.clicked.connect(self.save_models)
        self.models_status = QLabel("")
        self.models_status.setWordWrap(True)
        vrow.addWidget(self.validate_button)
        vrow.addWidget(self.save_models_button)
        vrow.addWidget(self.models_status, 1)
        ml.addLayout(vrow)
        keys_box = QGroupBox("API keys (from the environment only; never stored)")
        kl = QVBoxLayout(keys_box)
        self.keys_table = QTableWidget(0, 4)
        self.keys_table.setHorizontalHeaderLabels(["alias", "provider / model",
                                                   "environment variable", "set?"])
        self.keys_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.keys_table.verticalHeader().setVisible(False)
        # the names and the variable whole; the model (the longest) takes the rest, and its
        # tooltip holds it when it is cut
        header = self.keys_table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        kl.addWidget(self.keys_table)
        kl.addWidget(QLabel("Set a key in the environment before starting Pulse, e.g. "
                            "export ANTHROPIC_API_KEY=…"))
        ml.addWidget(keys_box)
        tabs.addTab(models, "Model aliases")

        # embedding model
        emb = QWidget()
        ef = QFormLayout(emb)
        self.embedding_combo = QComboBox()
        self.embedding_combo.setToolTip("models usable on this machine; a memory never mixes "
                                        "models in one query")
        ef.addRow("Embedding model", self.embedding_combo)
        self.active_label = QLabel("")
        ef.addRow("Active in this memory", self.active_label)
        erow = QHBoxLayout()
        self.reembed_button = QPushButton("Switch and re-embed")
        self.reembed_button.setToolTip("embed every event with the chosen model and make it "
                                       "active (runs in the background; the old vectors stay)")
        self.reembed_button.clicked.connect(self.reembed)
        self.embed_progress = QProgressBar()
        self.embed_progress.setRange(0, 1)
        self.embed_progress.setValue(0)
        erow.addWidget(self.reembed_button)
        erow.addWidget(self.embed_progress, 1)
        ef.addRow(erow)
        self.embed_status = QLabel("")
        self.embed_status.setWordWrap(True)
        ef.addRow(self.embed_status)
        tabs.addTab(emb, "Embedding")

        # privacy: which memories keep their passphrase in the OS keyring (docs/privacy.md)
        privacy = QWidget()
        pl = QVBoxLayout(privacy)
        intro = QLabel("An encrypted memory's passphrase is kept only while the app runs, "
                       "unless you chose “Remember in the OS keyring” when opening it. These "
                       "memories have their passphrase in the OS keyring (the passphrase "
                       "itself is never in this settings file):")
        intro.setWordWrap(True)
        pl.addWidget(intro)
        self.keyring_list = QListWidget()
        self.keyring_list.addItems(self.settings.keyring_memories)
        pl.addWidget(self.keyring_list, 1)
        forget_row = QHBoxLayout()
        self.forget_key_button = QPushButton("Forget the saved passphrase")
        self.forget_key_button.setToolTip("remove it from the OS keyring: the app asks again "
                                          "next time")
        self.forget_key_button.clicked.connect(self.forget_saved_passphrase)
        self.forget_key_button.setEnabled(self.keyring_list.count() > 0)
        forget_row.addWidget(self.forget_key_button)
        forget_row.addStretch(1)
        pl.addLayout(forget_row)
        tabs.addTab(privacy, "Privacy")
        self.tabs = tabs

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self.resize(720, 560)

    # -- general -----------------------------------------------------------------------

    def _browse_data(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Data folder",
                                                  self.data_edit.text() or "")
        if folder:
            self.data_edit.setText(folder)

    def _browse_models(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "models.json", "", "JSON (*.json)")
        if name:
            self.models_path_edit.setText(name)
            self._load_models_file()

    def _say(self, text: str) -> None:
        self.session.message.emit(text)

    # -- models.json -------------------------------------------------------------------

    def _default_models_file(self) -> Path:
        return app_settings.AppSettings(models_path="").models_file

    def models_file(self) -> Path:
        text = self.models_path_edit.text().strip()
        return Path(text) if text else self._default_models_file()

    def _load_models_file(self) -> None:
        path = self.models_file()
        try:
            text = path.read_text(encoding="utf-8") if path.exists() else ""
        except OSError as exc:
            self.models_status.setText(f"⚠ cannot read {path}: {exc.strerror}")
            text = ""
        self._models_loaded_text = text
        self.models_edit.blockSignals(True)
        self.models_edit.setPlainText(text or MODELS_TEMPLATE)
        self.models_edit.blockSignals(False)
        if not text:
            self.models_status.setText(f"No models.json at {path} yet: a template is shown "
                                       "(Save to create it). Offline extraction needs none.")
        self.validate(quiet=True)

    def _models_edited(self) -> None:
        self.models_edit.setExtraSelections([])
        self.models_status.setText("edited — Validate or Save")

    def validate(self, quiet: bool = False) -> bool:
        text = self.models_edit.toPlainText()
        router, error, line = validate_models(text)
        self.models_edit.setExtraSelections([])
        if error:
            self.models_status.setText(f"⚠ {error}")
            self.models_status.setStyleSheet("color: #c62828")
            if line:
                self._mark_line(line)
            self._fill_keys(None)
            if not quiet:
                self._say(f"models.json: {error}")
            return False
        n = len(router.models)
        self.models_status.setText(f"✓ valid: {n} alias{'es' if n != 1 else ''}"
                                   f" ({', '.join(sorted(router.models)) or 'none'})")
        self.models_status.setStyleSheet("color: #2e7d32")
        self._fill_keys(router)
        return True

    def _mark_line(self, line: int) -> None:
        block = self.models_edit.document().findBlockByLineNumber(line - 1)
        if not block.isValid():
            return
        sel = QTextEdit.ExtraSelection()
        sel.format.setBackground(QColor("#ffd6d6"))
        sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
        cursor = QTextCursor(block)
        sel.cursor = cursor
        self.models_edit.setExtraSelections([sel])
        self.models_edit.setTextCursor(cursor)

    def _fill_keys(self, router: Any) -> None:
        self.keys_table.setRowCount(0)
        if router is None:
            return
        for alias, what, env, is_set in key_status(router):
            row = self.keys_table.rowCount()
            self.keys_table.insertRow(row)
            for col, value in enumerate((alias, what, env, "set" if is_set else "not set")):
                item = QTableWidgetItem(value)
                item.setToolTip(value)
                if col == 3:
                    item.setForeground(QColor("#2e7d32" if is_set else "#c62828"))
                    item.setToolTip(f"{value}: the key is read from this variable at call "
                                    "time; Pulse never stores it")
                self.keys_table.setItem(row, col, item)

    def save_models(self) -> bool:
        if not self.validate():
            QMessageBox.warning(self, "models.json", self.models_status.text())
            return False
        path = self.models_file()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(self.models_edit.toPlainText(), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            text = f"cannot write {path}: {exc.strerror}"
            self.models_status.setText(f"⚠ {text}")
            self.failed.emit(text)
            return False
        self._models_loaded_text = self.models_edit.toPlainText()
        self.models_status.setText(f"✓ saved {path}")
        self._say(f"Saved {path}")
        return True

    # -- embedding ---------------------------------------------------------------------

    def _fill_embedding(self) -> None:
        try:
            from core.memory import Memory

            names = Memory.embedding_models()
        except Exception as exc:  # noqa: BLE001
            names = []
            self.embed_status.setText(f"⚠ cannot list embedding models: {exc}")
        memory = self.session.memory
        active = memory.embedding_model if memory is not None else None
        self.embedding_combo.clear()
        for name in names:
            self.embedding_combo.addItem(name)
        if active and active not in names:
            self.embedding_combo.addItem(active)
        preferred = active or self.settings.embedding_model
        if preferred:
            self.embedding_combo.setCurrentText(preferred)
        self.active_label.setText(active or "no memory open")
        self.reembed_button.setEnabled(memory is not None and not self.session.read_only
                                       and bool(names))
        if not names:
            self.embed_status.setText("No embedding model is installed on this machine.")
        else:
            notice = Memory.embedding_notice(active)
            if notice:
                self.embed_status.setText(f"⚠ {notice}")

    def reembed(self) -> None:
        path = self.session.path
        if path is None:
            self.embed_status.setText("Open a memory first.")
            return
        if self.session.read_only:
            self.embed_status.setText(self.session.read_only_reason or "read-only memory")
            return
        if self.embed_job is not None:
            return
        model = self.embedding_combo.currentText()
        if not model:
            return

        def work(progress, cancel):
            from core.memory import Memory
            from pulse_desktop.ingest_view import throttled

            memory = Memory.open(path)
            try:
                return memory.embed(model, progress=throttled(progress))
            finally:
                memory.close()

        self.embed_progress.setRange(0, 0)
        self.reembed_button.setEnabled(False)
        self.embed_status.setText(f"Embedding with {model}… (the dialog can stay open; the app "
                                  "keeps working)")
        self.embed_job = run_job(work, self._embed_done, self._embed_failed, self._embed_progress)

    def _embed_progress(self, done: int, total: int) -> None:
        self.embed_progress.setRange(0, max(total, 1))
        self.embed_progress.setValue(done)

    def _embed_done(self, out: dict[str, Any]) -> None:
        self.embed_job = None
        self.embed_progress.setRange(0, 1)
        self.embed_progress.setValue(1)
        self.embed_status.setText(f"✓ {out.get('embedded', 0)} of {out.get('events', 0)} events "
                                  f"embedded; active model: {out.get('model')}")
        self.settings.embedding_model = str(out.get("model") or "")
        self.session.notify("all")
        self._fill_embedding()
        self._say(f"Embedding model is now {out.get('model')}")
        self.reembedded.emit(out)

    def _embed_failed(self, text: str) -> None:
        self.embed_job = None
        self.embed_progress.setRange(0, 1)
        self.embed_progress.setValue(0)
        self.embed_status.setText(f"⚠ {text}")
        self._fill_embedding()
        self._say(f"Re-embedding failed: {text}")
        self.failed.emit(text)

    # -- saving ------------------------------------------------------------------------

    def collect(self) -> app_settings.AppSettings:
        s = app_settings.AppSettings(**self.settings.to_dict())
        s.data_folder = self.data_edit.text().strip()
        s.models_path = self.models_path_edit.text().strip()
        if self.embedding_combo.currentText():
            s.embedding_model = self.embedding_combo.currentText()
        return s

    def forget_saved_passphrase(self) -> None:
        from core.memory import Memory

        item = self.keyring_list.currentItem()
        if item is None:
            return
        path = item.text()
        Memory.keep_passphrase_in_keyring(path, None)
        saved = app_settings.load(self.settings_path)
        saved.keyring_memories = [p for p in saved.keyring_memories if p != path]
        self.settings.keyring_memories = list(saved.keyring_memories)
        try:
            app_settings.save(saved, self.settings_path)
        except OSError as exc:
            self.failed.emit(f"cannot write the settings: {exc.strerror}")
        self.keyring_list.takeItem(self.keyring_list.row(item))
        self.forget_key_button.setEnabled(self.keyring_list.count() > 0)
        self._say(f"The passphrase of {path} is no longer kept in the OS keyring")

    def save(self) -> bool:
        s = self.collect()
        if s.data_folder:
            try:
                Path(s.data_folder).mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                text = f"data folder {s.data_folder}: {exc.strerror}"
                QMessageBox.warning(self, "Settings", text)
                self.failed.emit(text)
                return False
        if self.models_edit.toPlainText() != (self._models_loaded_text or MODELS_TEMPLATE):
            if not self.save_models():
                self.tabs.setCurrentIndex(1)
                return False
        try:
            app_settings.save(s, self.settings_path)
        except OSError as exc:
            text = f"cannot save settings: {exc.strerror}"
            QMessageBox.warning(self, "Settings", text)
            self.failed.emit(text)
            return False
        app_settings.apply_to_environment(s)
        self.settings = s
        self._say("Settings saved")
        self.saved.emit(s)
        return True

    def accept(self) -> None:
        if self.save():
            super().accept()
