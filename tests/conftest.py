"""Shared fixtures: real memory files in a temp folder, a fixed `now`, no network."""

from __future__ import annotations

import os
import shutil
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

# the fake LLM server fixture (fake_llm) for every test module that asks for it
pytest_plugins = ["tests.fakes.llm_server"]

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if hasattr(os, "geteuid") and os.geteuid() == 0:
    os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
NOW_ISO = "2026-11-01T12:00:00Z"


@pytest.fixture
def now() -> datetime:
    return NOW


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def memory(db_path: Path):
    from core.memory import Memory

    mem = Memory.open(db_path, create=True)
    yield mem
    mem.close()


@pytest.fixture
def app_style(qapp):
    """The app's own style sheet, as pulse-desktop sets it: its paddings and fonts are what a
    person sees, so widths are measured with it (use it with pytest.mark.usefixtures)."""
    from pulse_desktop.style import QSS

    before = qapp.styleSheet()
    qapp.setStyleSheet(QSS)
    yield
    qapp.setStyleSheet(before)


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo memory built once per session; copy it before writing to it."""
    from core.memory import Memory, demo_corpus_path

    path = tmp_path_factory.mktemp("demo") / "demo.db"
    prebuilt = os.environ.get("PULSE_TEST_DEMO_DB")  # bench/mutate.py builds it once per run
    if prebuilt and Path(prebuilt).is_file():
        import shutil

        shutil.copy(prebuilt, path)
        return path
    with Memory.open(path, create=True) as mem:
        mem.import_corpus(demo_corpus_path())
    return path


class _Dialogs(list):
    """Message boxes shown during a test: (kind, title, text)."""


@pytest.fixture
def demo_copy(demo_db: Path, tmp_path: Path) -> Path:
    """A copy of the session's demo memory that a test may change."""
    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    return path


@pytest.fixture(autouse=True)
def dialogs(monkeypatch: pytest.MonkeyPatch) -> _Dialogs:
    """A modal QMessageBox would wait forever offscreen: record it and answer at once instead.
    Tests that care about a message assert on this list."""
    shown = _Dialogs()
    try:
        from PySide6.QtWidgets import QMessageBox
    except ImportError:  # the engine's tests run without Qt too
        return shown

    def recorder(kind: str, answer):
        def show(parent, title, text, *args, **kwargs):
            shown.append((kind, title, text))
            return answer
        return staticmethod(show)

    for kind, answer in (("warning", QMessageBox.StandardButton.Ok),
                         ("critical", QMessageBox.StandardButton.Ok),
                         ("information", QMessageBox.StandardButton.Ok),
                         ("question", QMessageBox.StandardButton.Yes)):
        monkeypatch.setattr(QMessageBox, kind, recorder(kind, answer))
    return shown


@pytest.fixture
def session(qtbot, db_path):
    """A MemorySession on a new, empty memory file; desktop test files that need another
    memory define their own `session`."""
    from core.memory import Memory
    from pulse_desktop.session import MemorySession

    Memory.open(db_path, create=True).close()
    session = MemorySession()
    session.open(db_path)
    yield session
    session.close()


@pytest.fixture
def demo_session(qtbot, demo_db, tmp_path):
    """A MemorySession on a copy of the demo memory."""
    import shutil

    from pulse_desktop.session import MemorySession

    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    session = MemorySession()
    session.open(path)
    yield session
    session.close()
