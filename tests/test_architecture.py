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
