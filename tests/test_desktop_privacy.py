"""Privacy in the app, through real widgets (offscreen): the passphrase asked when an encrypted
memory opens (a wrong one says so and touches nothing; the OS keyring only when ticked, and
settings say which), the export dialog (levels, lock, remembered folder, Open), and the entity
editor's privacy section (a boundary that Ctrl+Z undoes, a redact applied backwards)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

import keyring  # noqa: E402
import PySide6.QtWebEngineWidgets  # noqa: E402,F401  (must load before the QApplication)
from keyring.backend import KeyringBackend  # noqa: E402
from PySide6.QtCore import Qt, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from core.memory import Memory  # noqa: E402
from pulse_desktop import app_settings  # noqa: E402
from pulse_desktop.curation import curator  # noqa: E402
from pulse_desktop.main_window import MainWindow  # noqa: E402

PASSPHRASE = "tea at the harbour"


class MemoryKeyring(KeyringBackend):
    """A real keyring backend (the `keyring` API), kept in this process: the machine's own
    Secret Service is not there in CI."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.store.get((service, username))

    def set_password(self, service, username, password):
        self.store[(service, username)] = password

    def delete_password(self, service, username):
        self.store.pop((service, username), None)


@pytest.fixture
def ring(monkeypatch, tmp_path):
    monkeypatch.setenv("PULSE_CONFIG_DIR", str(tmp_path / "config"))
    before = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(before)


@pytest.fixture
def encrypted_demo(demo_db: Path, tmp_path: Path) -> Path:
    path = tmp_path / "private.db"
    shutil.copy(demo_db, path)
    Memory.encrypt_file(path, PASSPHRASE)
    return path


def _window(qtbot) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    return win


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_opening_an_encrypted_memory_asks_for_its_passphrase(qtbot, ring, encrypted_demo,
                                                             dialogs) -> None:
    win = _window(qtbot)
    before = _digest(encrypted_demo)
    seen: dict[str, object] = {}

    def answer() -> None:
        dialog = win.passphrase_dialog
        seen["title"] = dialog.windowTitle()
        dialog.edit.setText("not it")
        QTest.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
        seen["wrong"] = dialog.error.text() if dialog.isVisible() else None
        seen["untouched"] = _digest(encrypted_demo) == before
        dialog.edit.setText(PASSPHRASE)
        dialog.remember.setChecked(True)
        QTest.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)

    QTimer.singleShot(300, answer)
    assert win.open_path(encrypted_demo)
    assert seen["title"] == "Encrypted memory"
    assert str(seen["wrong"]).startswith("Wrong passphrase") and seen["untouched"]
    assert win.session.memory.encrypted and win.session.memory.stats()["counts"]["events"] == 197
    # the app's workers and views read it without asking again
    qtbot.waitUntil(lambda: len(win.navigator.shown_event_ids()) > 100, timeout=60_000)
    account = str(encrypted_demo.resolve())
    assert ring.store[("pulse-memory", account)] == PASSPHRASE
    assert app_settings.load().keyring_memories == [account]
    assert PASSPHRASE.encode() not in (Path(app_settings.config_path())).read_bytes()
    win.close_memory()
    # next time: from the keyring, no dialog
    QTimer.singleShot(5000, lambda: win.passphrase_dialog and win.passphrase_dialog.reject())
    assert win.open_path(encrypted_demo)
    assert win.passphrase_dialog is None and win.session.memory.encrypted
    assert dialogs == []
    win.close()


def test_cancel_leaves_nothing_open_and_no_keyring_without_the_tick(qtbot, ring,
                                                                   encrypted_demo) -> None:
    win = _window(qtbot)
    QTimer.singleShot(300, lambda: win.passphrase_dialog.reject())
    assert not win.open_path(encrypted_demo)
    assert win.session.memory is None
    QTimer.singleShot(300, lambda: (win.passphrase_dialog.edit.setText(PASSPHRASE),
                                    win.passphrase_dialog.accept()))
    assert win.open_path(encrypted_demo)
    assert ring.store == {} and app_settings.load().keyring_memories == []
    win.close()


def test_the_export_dialog(qtbot, ring, demo_copy, tmp_path) -> None:
    win = _window(qtbot)
    assert win.open_path(demo_copy)
    win.export_html_action.trigger()
    dialog = win.export_dialog
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    folder = tmp_path / "outbox"
    folder.mkdir()
    out = folder / "for-helen.html"
    dialog.path_edit.setText(str(out))
    dialog.level_buttons["titles-only"].setChecked(True)
    dialog.lock_box.setChecked(True)
    dialog.pass1.setText("phone passphrase")
    dialog.pass2.setText("another one")
    QTest.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    assert dialog.error.isVisible() and "differ" in dialog.error.text()
    assert not out.exists()
    dialog.pass2.setText("phone passphrase")
    QTest.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.open_button.isVisible(), timeout=120_000)
    assert dialog.result.text().startswith(f"Written: {out}") and "locked" in dialog.result.text()
    raw = out.read_bytes()
    assert b"pulse-sealed/1" in raw
    for plain in (b"Nadia Volkova", b"The day Papa left", b"Biscuit"):
        assert plain not in raw
    assert app_settings.load().last_export_folder == str(folder)
    dialog.close()
    # next time the dialog starts in that folder, and a plain names-level export keeps names
    win.export_html_action.trigger()
    again = win.export_dialog
    assert again.path_edit.text().startswith(str(folder))
    again.domain_boxes["fiction_content"].setChecked(False)
    QTest.mouseClick(again.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: again.open_button.isVisible(), timeout=120_000)
    written = Path(again.written).read_text(encoding="utf-8")
    assert "Nadia Volkova" in written and "Ilse Marrow" not in written
    assert "Don't probe the details" not in written        # behind the demo's boundary
    again.close()
    win.close()


def test_the_entity_editor_sets_privacy(qtbot, ring, demo_copy) -> None:
    win = _window(qtbot)
    assert win.open_path(demo_copy)
    memory = win.session.memory
    sam = int(memory.conn.execute("SELECT id FROM entities WHERE key = 'p_sam'").fetchone()[0])
    dialog = curator(win.session).edit_entity(sam, win)
    assert dialog.policy_box.currentData() == "full" and not dialog.label_edit.isEnabled()
    dialog.probe_box.setChecked(True)
    QTest.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    assert memory.policy(sam)["do_not_probe"] is True
    assert win.session.undo_stack.undoText() == "Privacy of Sam Adeyemi"
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=5000)
    QTest.keyClick(win, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert memory.policy(sam)["do_not_probe"] is False
    tom = int(memory.conn.execute("SELECT id FROM entities WHERE key = 'p_tom'").fetchone()[0])
    dialog = curator(win.session).edit_entity(tom, win)
    dialog.policy_box.setCurrentIndex(dialog.policy_box.findData("redact"))
    assert dialog.label_edit.isEnabled() and "cannot be undone" in dialog.policy_note.text()
    QTest.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and "role label" in dialog.error.text()     # refused, shown
    assert memory.policy(tom)["policy"] == "full"
    dialog.label_edit.setText("[ex-husband]")
    QTest.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=60_000)
    assert memory.policy(tom)["policy"] == "redact"
    titles = [r[0] for r in memory.conn.execute("SELECT title FROM events")]
    assert "[ex-husband] asks for a separation" in titles
    assert not any("Tom" in t.split() for t in titles)
    win.close()


@pytest.fixture
def app_style(qapp):
    """The app's own style sheet, as pulse-desktop sets it: its paddings are what a person
    sees, so the heights are measured with it."""
    from pulse_desktop.style import QSS

    before = qapp.styleSheet()
    qapp.setStyleSheet(QSS)
    yield
    qapp.setStyleSheet(before)


def test_the_export_dialog_grows_for_its_result_and_error_lines(qtbot, ring, demo_copy,
                                                                tmp_path, app_style) -> None:
    """After an export, a second try that fails adds a line under the result: the dialog grows
    for it rather than squeezing the passphrase fields (seen at 1280×800: the dots cut in half).
    QWidget.adjustSize() stops a window at 2/3 of the screen's height, and the offscreen screen
    is 800 px tall, so the check below is met only if the dialog grows past that."""
    win = _window(qtbot)
    assert win.open_path(demo_copy)
    win.export_html_action.trigger()
    dialog = win.export_dialog
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    dialog.path_edit.setText(str(tmp_path / "viewer.html"))
    QTest.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.open_button.isVisible(), timeout=120_000)
    dialog.lock_box.setChecked(True)
    dialog.pass1.setText("short")
    dialog.pass2.setText("short")
    QTest.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    assert dialog.error.isVisible() and "at least 8 characters" in dialog.error.text()
    qtbot.wait(50)
    needed = dialog.heightForWidth(dialog.width())
    assert needed > dialog.screen().availableGeometry().height() * 2 // 3   # the case above
    assert dialog.height() >= needed
    for field in (dialog.pass1, dialog.pass2, dialog.path_edit):
        assert field.height() >= field.sizeHint().height(), field.accessibleName()
    dialog.close()
    win.close()


def test_an_export_that_cannot_be_written_says_why_in_plain_words(qtbot, ring, demo_copy,
                                                                  tmp_path, capfd) -> None:
    """A folder that cannot be made (here a file stands where it should be) is the person's
    path, not a bug: the dialog names the path and the system's reason, with no 'unexpected
    error' and no traceback on stderr."""
    win = _window(qtbot)
    assert win.open_path(demo_copy)
    in_the_way = tmp_path / "notes.txt"
    in_the_way.write_text("a file, not a folder", encoding="utf-8")
    win.export_html_action.trigger()
    dialog = win.export_dialog
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    dialog.path_edit.setText(str(in_the_way / "viewer.html"))
    QTest.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(dialog.error.isVisible, timeout=120_000)
    text = dialog.error.text()
    assert text == f"{in_the_way}: File exists", text
    assert "unexpected" not in text and "Errno" not in text
    assert "Traceback" not in capfd.readouterr().err
    assert dialog.export_button.isEnabled()
    dialog.close()
    win.close()
