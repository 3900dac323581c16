"""core/ is the engine: it never imports Qt or the app (napari-style layering, checked here)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "pulse_desktop")


def test_core_sources_never_import_qt() -> None:
    offenders = []
    for path in sorted((ROOT / "core").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in FORBIDDEN:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {name}")
    assert offenders == []


def test_importing_the_whole_engine_loads_no_qt() -> None:
    code = (
        "import sys, pkgutil, importlib, core\n"
        "for m in pkgutil.walk_packages(core.__path__, 'core.'):\n"
        "    if m.name.endswith('__main__'): continue\n"
        "    importlib.import_module(m.name)\n"
        f"bad = [n for n in sys.modules if n.split('.')[0] in {FORBIDDEN!r}]\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


# The fronts reach the engine only through Memory (and the error types and the vocabulary).
FRONT_ALLOWED = ("core.memory", "core.errors", "core.beliefs", "core.emotion.plutchik")


def _core_imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "core"]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "core":          # from core import beliefs → core.beliefs
                found += [(node.lineno, f"core.{a.name}") for a in node.names]
            elif node.module.split(".")[0] == "core":
                found.append((node.lineno, node.module))
    return found


def test_fronts_import_only_the_memory_api() -> None:
    fronts = sorted((ROOT / "pulse_desktop").rglob("*.py")) + [ROOT / "core" / "mcp_server.py"]
    offenders = [f"{path.relative_to(ROOT)}:{line} imports {name}"
                 for path in fronts for line, name in _core_imports(path)
                 if name not in FRONT_ALLOWED]
    assert offenders == []


def test_the_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "front.py"
    sample.write_text("from core.memory import Memory\nfrom core import beliefs\n"
                      "def f():\n    from core.trust.brief import brief\n    import core.ingest\n",
                      encoding="utf-8")
    names = [name for _, name in _core_imports(sample)]
    assert names == ["core.memory", "core.beliefs", "core.trust.brief", "core.ingest"]
    assert [n for n in names if n not in FRONT_ALLOWED] == ["core.trust.brief", "core.ingest"]


def test_memories_open_through_one_sqlite_library() -> None:
    """Two SQLite libraries in one process keep separate POSIX lock tables (closing a file in
    one drops the other's locks), and their exception classes differ: the engine and the app
    use only core/store/sqlite.py's SQLCipher module."""
    offenders = []
    for folder in ("core", "pulse_desktop"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == ROOT / "core" / "store" / "sqlite.py":
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    names = [node.module or ""]
                else:
                    continue
                if "sqlite3" in names:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []
