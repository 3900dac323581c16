"""Bad memory files (issue 7 §3) through the command line and the desktop app.

Each bad file — a truncated memory, random bytes named `.db`, another program's SQLite file, a
memory from a newer Pulse, and unreadable paths — must give exit 1 with exactly ONE stderr line
naming the file, leave the file's bytes identical, and create no -wal/-shm beside it.

"Unreadable" as root: chmod 000 does not stop root, so the unreadable paths are a folder named
`.db`, a path under a regular file (`plain.txt/memory.db`), and a path inside /proc (a
read-only kernel file system nobody can create files in).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from core.cli import main as cli_main
from core.memory import Memory

ROOT = Path(__file__).resolve().parent.parent

CORPUS = {"format": "pulse-corpus/1", "events": [
    {"key": f"e{i}", "title": f"Event number {i}", "description": f"A day with detail {i}.",
     "ts": f"2026-0{1 + i % 9}-1{i % 10}T00:00:00Z"} for i in range(40)]}


# -- the bad files -------------------------------------------------------------------------------

def _good_memory(path: Path) -> None:
    with Memory.open(path, create=True) as memory:
        memory.import_corpus(CORPUS)
        memory.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def make_truncated(d: Path) -> Path:
    good = d / "good.db"
    _good_memory(good)
    data = good.read_bytes()
    path = d / "truncated.db"
    path.write_bytes(data[: len(data) // 2])
    return path


def make_random(d: Path) -> Path:
    import random

    path = d / "random.db"
    path.write_bytes(random.Random(7).randbytes(64 * 1024))
    return path


def make_random_with_header(d: Path) -> Path:
    """SQLite's magic header followed by noise: sqlite itself must refuse it, not crash."""
    import random

    path = d / "header_noise.db"
    path.write_bytes(b"SQLite format 3\x00" + random.Random(8).randbytes(8 * 4096 - 16))
    return path


def make_foreign(d: Path) -> Path:
    path = d / "other_program.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
    conn.executemany("INSERT INTO moz_places (url) VALUES (?)",
                     [(f"https://example.org/{i}",) for i in range(200)])
    conn.commit()
    conn.close()
    return path


def make_newer(d: Path) -> Path:
    path = d / "newer.db"
    _good_memory(path)
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_version (version, name, applied_at) "
                 "VALUES (999, '999_future.sql', '2030-01-01T00:00:00Z')")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def make_folder(d: Path) -> Path:
    path = d / "folder.db"
    path.mkdir()
    (path / "keep.txt").write_text("a file inside the folder")
    return path


def make_under_file(d: Path) -> Path:
    blocker = d / "plain.txt"
    blocker.write_text("not a folder")
    return blocker / "memory.db"


def make_proc(d: Path) -> Path:
    return Path("/proc/self/pulse-cannot-live-here/memory.db")


BAD_FILES: dict[str, Callable[[Path], Path]] = {
    "truncated": make_truncated, "random": make_random, "header_noise": make_random_with_header,
    "foreign": make_foreign, "newer": make_newer, "folder": make_folder,
    "under_file": make_under_file, "proc": make_proc,
}

# what the one stderr line must say (besides the file's name)
EXPECT = {"truncated": "truncated", "random": "encrypted, or not a Pulse memory",
          "header_noise": "", "foreign": "another program", "newer": "newer Pulse",
          "folder": "folder", "under_file": "", "proc": ""}


def snapshot(path: Path) -> dict[str, str]:
    """Every file at and around `path` (the file, -wal, -shm, backups, the folder's contents,
    the blocker file of a path under a file) → sha256."""
    out: dict[str, str] = {}
    roots = {path.parent}
    if path.parent.is_file():  # a path under a regular file
        roots = {path.parent.parent}
    for root in roots:
        if not root.exists() or str(root).startswith("/proc"):
            continue
        for p in sorted(root.rglob("*")):
            if p.is_file():
                out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture(params=sorted(BAD_FILES))
def bad(request, tmp_path: Path) -> tuple[str, Path]:
    d = tmp_path / "bad"
    d.mkdir()
    return request.param, BAD_FILES[request.param](d)


# The commands a person may point at a file. Each writes, reads, or creates; none may touch it.
def commands(tmp: Path) -> list[list[str]]:
    corpus = tmp / "corpus.json"
    corpus.write_text(json.dumps(CORPUS))
    chat = tmp / "chat.jsonl"
    chat.write_text(json.dumps({"speaker": "Ann", "text": "I miss my sister a lot."}) + "\n")
    return [
        ["stats"], ["verify"], ["digest"], ["init"],
        ["retrieve", "a day", "--now", "2026-11-01T12:00:00Z"],
        ["explain", "e1", "--query", "a day"],
        ["set", "e1", "--floor", "0.3"], ["pin", "e1"], ["embed"],
        ["import", str(corpus)], ["import", str(chat), "--format", "chat"],
        ["brief"], ["correct", "--withdrawn", "x", "--note", "n"], ["undo"],
        ["journal", "export", str(tmp / "journal.jsonl")],
        ["export-html", "--out", str(tmp / "viewer.html")],
    ]


def test_every_command_refuses_a_bad_file_in_one_line_and_touches_nothing(
        bad: tuple[str, Path], tmp_path: Path, capfd) -> None:
    kind, path = bad
    work = tmp_path / "work"
    work.mkdir()
    before = snapshot(path)
    checked = 0
    for argv in commands(work):
        code = cli_main(["--db", str(path), *argv])
        out, err = capfd.readouterr()
        lines = [line for line in err.splitlines() if line.strip()]
        assert code == 1, f"{kind} {argv}: exit {code}, stderr {err!r}"
        assert len(lines) == 1, f"{kind} {argv}: {len(lines)} stderr lines: {err!r}"
        assert lines[0].startswith("pulse: ") and "Traceback" not in err
        assert "unexpected error" not in lines[0], f"{kind} {argv}: {lines[0]}"
        name = path.name if kind not in ("under_file", "proc") else ""
        assert name in lines[0], f"{kind} {argv}: the message does not name the file: {lines[0]}"
        if kind == "under_file":
            assert "plain.txt" in lines[0], lines[0]
        if kind == "proc":
            assert "/proc/self/pulse-cannot-live-here" in lines[0], lines[0]
        assert EXPECT[kind] in lines[0], f"{kind} {argv}: {lines[0]}"
        assert snapshot(path) == before, f"{kind} {argv}: files changed on disk"
        assert not Path(f"{path}-wal").exists() and not Path(f"{path}-shm").exists()
        assert not list(path.parent.glob("*.bak-*")) if path.parent.is_dir() else True
        checked += 1
    assert checked == len(commands(work))
    # nothing was written for the commands' own outputs either
    assert not (work / "journal.jsonl").exists() and not (work / "viewer.html").exists()


@pytest.mark.parametrize("kind", ["truncated", "random", "foreign", "newer", "under_file"])
def test_the_real_pulse_process_refuses_a_bad_file(kind: str, tmp_path: Path) -> None:
    """The same through the installed entry point (a separate process, no test harness)."""
    path = BAD_FILES[kind](tmp_path)
    before = snapshot(path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for argv in (["stats"], ["set", "e1", "--floor", "0.3"]):
        proc = subprocess.run([sys.executable, "-m", "core.cli", "--db", str(path), *argv],
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
        assert proc.returncode == 1, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and (path.name in lines[0] or "plain.txt" in lines[0]), lines
        assert proc.stdout == ""
        assert snapshot(path) == before
        assert not Path(f"{path}-wal").exists() and not Path(f"{path}-shm").exists()


def test_a_good_memory_still_opens_after_the_refusals(tmp_path: Path) -> None:
    """Control: the same commands work on a good file, so the refusals above are about the file."""
    path = tmp_path / "good.db"
    _good_memory(path)
    assert cli_main(["--db", str(path), "verify"]) == 0
    assert cli_main(["--db", str(path), "set", "e1", "--floor", "0.3"]) == 0


# -- the desktop app -------------------------------------------------------------------------------

def test_the_app_shows_one_message_and_touches_nothing(bad: tuple[str, Path], qtbot,
                                                      dialogs) -> None:
    from core.errors import StoreError
    from pulse_desktop.session import MemorySession

    kind, path = bad
    before = snapshot(path)

    # the session (what every view uses) raises one clear StoreError …
    session = MemorySession()
    with pytest.raises(StoreError) as info:
        session.open(path)
    text = str(info.value)
    assert "\n" not in text and (path.name in text or "plain.txt" in text
                                 or "/proc/self" in text), text
    assert session.memory is None
    assert snapshot(path) == before

    # … and the main window shows it in one message box (recorded by conftest's `dialogs`,
    # since a modal box would wait forever offscreen) and stays up
    from pulse_desktop.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    if kind == "random":
        # random bytes cannot be told from an encrypted memory (SQLCipher's file is random from
        # its first byte): the app asks for the passphrase, says a wrong one did not open it,
        # and cancelling leaves everything as it was
        from PySide6.QtCore import Qt, QTimer
        from PySide6.QtTest import QTest

        asked: dict[str, str] = {}

        def answer() -> None:
            dialog = window.passphrase_dialog
            assert dialog is not None
            dialog.edit.setText("not it")
            QTest.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
            asked["error"] = dialog.error.text()
            dialog.reject()

        QTimer.singleShot(300, answer)
        assert window.open_path(path) is False
        assert asked["error"].startswith("Wrong passphrase (or not a Pulse memory)"), asked
        assert dialogs == []
    else:
        assert window.open_path(path) is False
        seen = [message for _kind, _title, message in dialogs]
        assert len(seen) == 1, seen
        assert "Traceback" not in seen[0] and (path.name in seen[0] or "plain.txt" in seen[0]
                                               or "/proc/self" in seen[0]), seen[0]
    assert window.session.memory is None
    assert snapshot(path) == before
    assert not Path(f"{path}-wal").exists() and not Path(f"{path}-shm").exists()
    window.close()
