"""``pulse-desktop --screenshots DIR``: a PNG of every tab with real content (docs/screenshots).

Each tab gets a selection that shows it off: the graph focuses an entity, the timeline brushes
a year, the beliefs table selects an axiom. A tab may offer ``prepare_screenshot()`` to fill
itself (the playground runs a query, for example); it is called when present. Every picture is
taken at 1280×800 and at 1920×1080, the width in its name (``app-playground-1280.png``). Then
two curation pictures at 1280: an event's edit dialog (``app-edit-1280.png``) and, with the
navigator searching the person, the preview of erasing everything about them
(``app-erase-1280.png``).
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QPoint
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QApplication, QWidget

from pulse_desktop.main_window import TABS, MainWindow

SIZES = ((1280, 800), (1920, 1080))     # a common laptop, and a common desktop screen


def settle(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        QApplication.processEvents()
        time.sleep(0.02)


def _wait(predicate, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        QApplication.processEvents()
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def _event_id(window: MainWindow, key: str) -> int | None:
    row = window.session.require().conn.execute("SELECT id FROM events WHERE key = ?",
                                                (key,)).fetchone()
    return int(row[0]) if row else None


def _entity_id(window: MainWindow, name: str) -> int | None:
    row = window.session.require().conn.execute(
        "SELECT id FROM entities WHERE canonical_name LIKE ? ORDER BY salience DESC LIMIT 1",
        (f"%{name}%",)).fetchone()
    return int(row[0]) if row else None


def _first_event(window: MainWindow, *preferred: str) -> int | None:
    for key in preferred:
        found = _event_id(window, key)
        if found is not None:
            return found
    row = window.session.require().conn.execute(
        "SELECT id FROM events ORDER BY user_flag DESC, emotional_weight DESC LIMIT 1").fetchone()
    return int(row[0]) if row else None


def prepare_tab(name: str, view) -> None:
    """Fill a tab as a person would before looking at it (the playground asks a question)."""
    if name == "Playground":
        _prepare(view)


def _prepare(view) -> None:
    """Fill a tab for its picture: its own prepare_screenshot() if it has one; else, for the
    playground, one of the demo memory's example queries."""
    prepare = getattr(view, "prepare_screenshot", None)
    if callable(prepare):
        import inspect

        # a tab that works in the background takes the wait function; others fill at once
        if inspect.signature(prepare).parameters:
            prepare(_wait)
        else:
            prepare()
        return
    run = getattr(view, "run_query", None)
    edit = getattr(view, "query_edit", None)
    ready = getattr(view, "resultsReady", None)
    if callable(run) and edit is not None and ready is not None:
        got: list = []
        ready.connect(lambda out: got.append(out))
        edit.setText("feeling abandoned")
        if hasattr(view, "set_now"):
            view.set_now("2026-11-01T12:00:00Z")
        run()
        _wait(lambda: bool(got), 60)


def take_screenshots(window: MainWindow, out_dir: Path, *, graph_timeout: float = 90.0,
                     sizes=SIZES) -> list[Path]:
    """At each window size, show every tab in turn and save ``app-<tab>-<width>.png`` into
    out_dir (the edit and erase pictures at the first size only); returns the files."""
    written: list[Path] = []
    for i, size in enumerate(sizes):
        written += _shots_at(window, out_dir, size, graph_timeout, curation=i == 0)
    return written


def _shots_at(window: MainWindow, out_dir: Path, size: tuple[int, int], graph_timeout: float,
              *, curation: bool) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    window.resize(*size)
    window.show()
    settle(0.3)
    window.fit_panels()        # the side panels as this window size gives them
    settle(0.3)
    session = window.session
    written: list[Path] = []
    width = size[0]

    def save(name: str) -> None:
        settle(0.4)
        path = out_dir / f"app-{name.lower()}-{width}.png"
        if not window.grab().save(str(path)):
            raise RuntimeError(f"could not write {path}")
        written.append(path)

    for name in TABS:
        window.show_tab(name)
        view = window.tab(name)
        if name == "Graph":
            _wait(lambda: window.graph.ready, graph_timeout)
            settle(0.8)
            target = _entity_id(window, "Dana") or _entity_id(window, "")
            if target is not None:
                session.select("entity", target)
            settle(1.2)        # the page animates the focus
        elif name == "Timeline":
            session.set_brush("2024-01-01T00:00:00Z", "2024-12-31T23:59:59Z")
            target = _first_event(window, "e112")
            if target is not None:
                session.select("event", target)
        elif name == "Beliefs":
            target = _first_event(window, "e004")
            if target is not None:
                session.select("event", target)
                window.beliefs.select_event(target)
        else:
            try:
                _prepare(view)
            except Exception as exc:  # a screenshot helper must not stop the others
                session.message.emit(f"{name}: {exc}")
            settle(1.0)
        save(name)
        if name == "Timeline":
            session.set_brush(None, None)
    if curation:
        written += _curation_shots(window, out_dir, graph_timeout, width)
    return written


def _save_with_dialog(window: MainWindow, dialog: QWidget, path: Path) -> Path:
    """The window with a dialog drawn where it sits over it (they are separate windows)."""
    settle(0.6)
    picture = window.grab()
    at = dialog.mapToGlobal(QPoint(0, 0)) - window.mapToGlobal(QPoint(0, 0))
    if not picture.rect().contains(at):
        at = QPoint((picture.width() - dialog.width()) // 2,
                    (picture.height() - dialog.height()) // 2)
    painter = QPainter(picture)
    painter.fillRect(picture.rect(), QColor(20, 28, 40, 70))    # the window behind, dimmed
    face = dialog.grab()
    painter.setPen(QPen(QColor("#7d8aa3"), 2))
    painter.drawRect(at.x() - 1, at.y() - 1, face.width() + 1, face.height() + 1)
    painter.drawPixmap(at, face)
    painter.end()
    if not picture.save(str(path)):
        raise RuntimeError(f"could not write {path}")
    return path


def _curation_shots(window: MainWindow, out_dir: Path, graph_timeout: float, width: int
                    ) -> list[Path]:
    from pulse_desktop.curation import curator

    session = window.session
    written: list[Path] = []
    conn = session.require().conn
    event = _first_event(window, "e057")
    person = conn.execute("SELECT id, canonical_name FROM entities WHERE key = 'p_tom'"
                          ).fetchone() or conn.execute(
        "SELECT id, canonical_name FROM entities WHERE kind = 'person' ORDER BY salience"
        " LIMIT 1").fetchone()
    window.show_tab("Graph")
    _wait(lambda: window.graph.ready, graph_timeout)
    if event is not None:
        session.select("event", event)
        dialog = curator(session).edit_event(event, window)
        written.append(_save_with_dialog(window, dialog, out_dir / f"app-edit-{width}.png"))
        dialog.reject()
    if person is not None:
        window.navigator.search.setText(person[1])
        window.navigator.refresh()
        session.select("entity", int(person[0]))
        settle(1.5)            # the page fits what the search shows
        dialog = curator(session).erase([f"entity:{person[0]}"], person[1], cascade=True,
                                        parent=window)
        written.append(_save_with_dialog(window, dialog, out_dir / f"app-erase-{width}.png"))
        dialog.reject()
        window.navigator.search.clear()
        window.navigator.refresh()
    return written
