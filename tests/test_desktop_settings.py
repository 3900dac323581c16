"""Settings: app settings saved as JSON (never a key), the models.json editor validates through
the router and points at the bad line, key status from the environment, re-embedding in the
background with progress."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("pytestqt")

GOOD = """{
  "models": {
    "fast": {
      "provider": "anthropic",
      "model": "claude-haiku-4-5",
      "api_key_env": "PULSE_TEST_KEY_FAST",
      "max_tokens": 2048,
      "temperature": 0
    },
    "local": {
      "provider": "openai_compatible",
      "model": "qwen",
      "base_url": "http://127.0.0.1:1234/v1",
      "api_key_env": "PULSE_TEST_KEY_LOCAL",
      "max_tokens": 512,
      "temperature": 0.2
    }
  }
}
"""


@pytest.fixture(autouse=True)
def config_dir(tmp_path, monkeypatch):
    folder = tmp_path / "config"
    monkeypatch.setenv("PULSE_CONFIG_DIR", str(folder))
    monkeypatch.delenv("PULSE_MODELS_PATH", raising=False)
    monkeypatch.delenv("PULSE_TEST_KEY_FAST", raising=False)
    monkeypatch.delenv("PULSE_TEST_KEY_LOCAL", raising=False)
    return folder


@pytest.fixture
def session(qtbot):
    from pulse_desktop.session import MemorySession

    s = MemorySession()
    yield s
    s.close()


@pytest.fixture
def dialog(qtbot, session):
    from pulse_desktop.settings_dialog import SettingsDialog

    d = SettingsDialog(session)
    qtbot.addWidget(d)
    return d


def test_app_settings_roundtrip_never_keys(tmp_path, config_dir):
    from pulse_desktop import app_settings

    assert app_settings.load() == app_settings.AppSettings()     # missing file → defaults
    s = app_settings.AppSettings(data_folder=str(tmp_path / "data"), embedding_model="m")
    path = app_settings.save(s)
    assert path == config_dir / "desktop.json"
    assert app_settings.load() == s
    # a key pasted into the file by hand is dropped on load and never written back
    data = json.loads(path.read_text())
    data["api_key"] = "sk-secret"
    path.write_text(json.dumps(data))
    loaded = app_settings.load()
    app_settings.save(loaded)
    assert "sk-secret" not in path.read_text() and "api_key" not in path.read_text()
    path.write_text("{not json")
    assert app_settings.load() == app_settings.AppSettings()     # unreadable → defaults


def test_models_editor_validates_and_points_at_line(qtbot, dialog, monkeypatch, config_dir):
    assert "template" in dialog.models_status.text().lower() or "valid" in \
        dialog.models_status.text()
    dialog.models_edit.setPlainText('{\n  "models": {\n    "fast": {,\n  }\n}\n')
    assert dialog.validate() is False
    assert dialog.models_status.text().startswith("⚠ line 3")
    assert len(dialog.models_edit.extraSelections()) == 1
    assert dialog.models_edit.textCursor().blockNumber() == 2
    # a key where the variable's name belongs is refused, on its line
    bad = GOOD.replace('"PULSE_TEST_KEY_FAST"', '"sk-ant-0123456789abcdefghijklmnop"')
    dialog.models_edit.setPlainText(bad)
    assert dialog.validate() is False
    assert "line 6" in dialog.models_status.text() and "never a key" in \
        dialog.models_status.text()
    unknown = GOOD.replace('"temperature": 0\n', '"temperature": 0,\n      "api_key": "x"\n', 1)
    dialog.models_edit.setPlainText(unknown)
    assert dialog.validate() is False
    assert "line 9" in dialog.models_status.text() and "api_key" in dialog.models_status.text()
    # valid: the key table shows the variables and whether they are set, never a value
    monkeypatch.setenv("PULSE_TEST_KEY_FAST", "sk-should-never-be-shown")
    dialog.models_edit.setPlainText(GOOD)
    assert dialog.validate() is True
    rows = {dialog.keys_table.item(r, 0).text(): (dialog.keys_table.item(r, 2).text(),
                                                  dialog.keys_table.item(r, 3).text())
            for r in range(dialog.keys_table.rowCount())}
    assert rows == {"fast": ("PULSE_TEST_KEY_FAST", "set"),
                    "local": ("PULSE_TEST_KEY_LOCAL", "not set")}
    cells = [dialog.keys_table.item(r, c).text() for r in range(2) for c in range(4)]
    assert not any("sk-should" in c for c in cells)
    assert dialog.save_models() is True
    assert (config_dir / "models.json").read_text() == GOOD


def test_ok_saves_settings_and_models(qtbot, dialog, tmp_path, config_dir):
    from pulse_desktop import app_settings
    from pulse_desktop.ingest_view import model_aliases

    saved = []
    dialog.saved.connect(saved.append)
    data = tmp_path / "data"
    models = tmp_path / "elsewhere" / "models.json"
    dialog.data_edit.setText(str(data))
    dialog.models_path_edit.setText(str(models))
    dialog.models_edit.setPlainText(GOOD)
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    assert saved and dialog.result() == dialog.DialogCode.Accepted
    s = app_settings.load()
    assert s.data_folder == str(data) and s.models_path == str(models)
    assert data.is_dir() and models.read_text() == GOOD
    text = (config_dir / "desktop.json").read_text()
    assert "PULSE_TEST_KEY" not in text
    # the Ingest tab's extractor list reads the same validated file
    assert model_aliases(models) == (["fast", "local"], None)


def test_invalid_models_blocks_ok(qtbot, dialog, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    warned = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]))
    dialog.models_edit.setPlainText('{"models": {"x": {"provider": "nope"}}}')
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    assert warned and dialog.result() != dialog.DialogCode.Accepted


class HashEmbedder:
    def __init__(self, name, dim=32):
        self.name, self.dim = name, dim

    def _v(self, text):
        rng = np.random.default_rng(abs(hash(text)) % (2 ** 32))
        v = rng.standard_normal(self.dim).astype(np.float32)
        return v / np.linalg.norm(v)

    def embed_passages(self, texts, progress=None):
        out = np.stack([self._v(t) for t in texts])
        for i in range(len(texts)):
            if progress:
                progress(i + 1, len(texts))
        return out

    def embed_query(self, text):
        return self._v(text)


def test_reembed_in_background(qtbot, session, tmp_path, monkeypatch):
    from core.embedding import registry
    from core.memory import Memory
    from pulse_desktop.settings_dialog import SettingsDialog

    a, b = registry.DEFAULT_MODEL, registry.FALLBACK_MODEL
    monkeypatch.setitem(registry._cache, a, HashEmbedder(a))
    monkeypatch.setitem(registry._cache, b, HashEmbedder(b))
    monkeypatch.setattr(registry, "available_models", lambda: [a, b])
    path = tmp_path / "m.db"
    with Memory.open(path, create=True) as mem:
        mem.import_corpus({"format": "pulse-corpus/1", "events": [
            {"key": f"e{i}", "title": f"event {i}", "ts": f"2024-01-0{i + 1}T10:00:00Z"}
            for i in range(5)]})
    session.open(path)
    d = SettingsDialog(session)
    qtbot.addWidget(d)
    assert d.active_label.text() == a
    d.embedding_combo.setCurrentText(b)
    with qtbot.waitSignal(d.reembedded, timeout=60_000) as blocker:
        d.reembed()
        assert not d.reembed_button.isEnabled()
    out = blocker.args[0]
    assert out == {"model": b, "embedded": 5, "events": 5}
    assert session.memory.embedding_model == b
    assert d.active_label.text() == b
    assert d.embed_progress.value() == d.embed_progress.maximum()
    assert session.memory.stats()["embedding_models"] == {a: 5, b: 5}


def test_the_key_table_shows_every_header_and_cell_whole(qtbot, dialog, qapp):
    """The Model aliases tab at the dialog's size, with the app's style sheet: the key table's
    four columns were stretched equally, so at 1280×800 'environment variable' was cut on both
    sides, and 'anthropic / claude-haiku-4-5' ended in … with no tooltip to read it whole."""
    from pulse_desktop.style import QSS
    from pulse_desktop.ui_audit import clipped_texts

    before = qapp.styleSheet()
    qapp.setStyleSheet(QSS)
    try:
        dialog.tabs.setCurrentIndex(1)
        dialog.models_edit.setPlainText(GOOD)
        assert dialog.validate() is True
        dialog.show()
        qtbot.waitExposed(dialog)
        assert clipped_texts(dialog.keys_table) == []
        header = dialog.keys_table.horizontalHeader()
        assert header.sectionSize(2) >= header.sectionSizeHint(2)   # 'environment variable'
    finally:
        qapp.setStyleSheet(before)
