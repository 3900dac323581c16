"""Packaging (issue 7 §7): the PyInstaller one-folder bundle, its .desktop file and icon.

The cheap checks (the .desktop entry follows the freedesktop spec, the spec's inputs exist) run
in every `make test`. The bundle itself is ~700 MB and takes minutes to build, so the checks
that start it run only with PULSE_PACKAGE_TEST=1 (`.ci/run` builds it with `make package`, then
runs this file with the variable set): `dist/pulse/pulse-desktop --self-test` offscreen opens
the demo memory, renders the graph page, runs one retrieval and exits 0; the bundled `pulse`
verifies that memory and refuses a bad file in one line.
"""

from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
DIST = Path(os.environ.get("PULSE_DIST", ROOT / "dist" / "pulse"))
RUN_BUNDLE = os.environ.get("PULSE_PACKAGE_TEST") == "1"


def read_desktop(path: Path) -> dict[str, str]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("[Desktop Entry]\n"), "the first group must be [Desktop Entry]"
    parser = configparser.RawConfigParser(delimiters=("=",), interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive
    parser.read_string(text)
    return dict(parser["Desktop Entry"])


def test_desktop_entry_follows_the_freedesktop_spec() -> None:
    entry = read_desktop(PACKAGING / "pulse.desktop")
    for key in ("Type", "Name", "Exec", "Icon"):
        assert entry.get(key), f"{key} is required"
    assert entry["Type"] == "Application"
    assert entry["Version"] in ("1.0", "1.1", "1.2", "1.3", "1.4", "1.5")
    assert entry["Terminal"] in ("true", "false") and entry["StartupNotify"] in ("true", "false")
    for key in ("Categories", "Keywords"):
        assert entry[key].endswith(";"), f"{key} is a ;-terminated list"
    registered = {"AudioVideo", "Audio", "Video", "Development", "Education", "Game", "Graphics",
                  "Network", "Office", "Science", "Settings", "System", "Utility"}
    assert registered & set(entry["Categories"].rstrip(";").split(";"))
    assert entry["Exec"].split()[0] == "pulse-desktop" == entry["TryExec"]
    assert "/" not in entry["Icon"] and "." not in entry["Icon"], "Icon is a theme name"
    icons = ROOT / "resources" / "icons"
    assert (icons / f"{entry['Icon']}.png").is_file() and (icons / f"{entry['Icon']}.svg").is_file()


def test_spec_inputs_exist() -> None:
    spec = (PACKAGING / "pulse.spec").read_text(encoding="utf-8")
    for rel in ("packaging/entry_desktop.py", "packaging/entry_cli.py", "resources",
                "core/store/migrations"):
        assert (ROOT / rel).exists(), rel
        assert Path(rel).name in spec
    assert "from pulse_desktop.app import main" in (PACKAGING / "entry_desktop.py").read_text()
    assert "from core.cli import run" in (PACKAGING / "entry_cli.py").read_text()
    pins = (PACKAGING / "requirements.txt").read_text().split()
    assert any(p.startswith("pyinstaller==6.") for p in pins), "pyinstaller is pinned to 6.x"


# -- the built bundle ----------------------------------------------------------------------------

bundle = pytest.mark.skipif(not RUN_BUNDLE, reason="set PULSE_PACKAGE_TEST=1 (after `make "
                                                   "package`) to start the built bundle")


@pytest.fixture(scope="module")
def built() -> Path:
    if not (DIST / "pulse-desktop").exists():
        subprocess.run(["make", "package"], cwd=ROOT, check=True, timeout=3600)
    assert (DIST / "pulse-desktop").exists() and (DIST / "pulse").exists()
    return DIST


def clean_env(home: Path) -> dict[str, str]:
    """A fresh user: nothing from this checkout or its venv on any path."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PULSE_DB", "PYTHONHOME")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"),
               XDG_CONFIG_HOME=str(home / "config"), XDG_CACHE_HOME=str(home / "cache"),
               QT_QPA_PLATFORM="offscreen", PATH="/usr/bin:/bin")
    return env


@bundle
def test_bundle_self_test_opens_the_demo_renders_the_graph_and_retrieves(built: Path,
                                                                         tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    proc = subprocess.run([str(built / "pulse-desktop"), "--self-test"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["ok"] is True and report["graph_nodes"] and report["graph_nodes"] > 100
    assert report["retrieved"], report
    demo = Path(report["memory"])
    assert demo.is_relative_to(tmp_path), "the demo memory was built in the user's data folder"

    # the bundled command line, on the memory the app built
    pulse = str(built / "pulse")
    out = subprocess.run([pulse, "--db", str(demo), "verify"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0 and "chain intact" in out.stdout, out.stderr
    out = subprocess.run([pulse, "--db", str(demo), "--json", "retrieve", "feeling abandoned",
                          "--top-k", "3", "--now", "2026-11-01T12:00:00Z"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert [r["key"] for r in json.loads(out.stdout)["results"]] == report["retrieved"]

    # and a bad file through the bundle: one line, exit 1, untouched
    noise = tmp_path / "noise.db"
    noise.write_bytes(bytes(range(256)) * 64)
    before = noise.read_bytes()
    out = subprocess.run([pulse, "--db", str(noise), "stats"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 1 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "noise.db" in out.stderr and noise.read_bytes() == before


@bundle
def test_bundle_installs_its_desktop_entry(built: Path, tmp_path: Path) -> None:
    script = built / "install-desktop-entry.sh"
    if not script.exists():  # built without `make package` (bare pyinstaller)
        shutil.copy(PACKAGING / "install-desktop-entry.sh", script)
        shutil.copy(PACKAGING / "pulse.desktop", built / "pulse.desktop")
    env = clean_env(tmp_path)
    subprocess.run(["sh", str(script)], env=env, check=True, capture_output=True, timeout=60)
    entry = read_desktop(tmp_path / "data" / "applications" / "pulse.desktop")
    assert entry["Exec"] == f'"{built / "pulse-desktop"}"'
    assert Path(entry["TryExec"]) == built / "pulse-desktop"
    assert (tmp_path / "data" / "icons" / "hicolor" / "256x256" / "apps" / "pulse.png").is_file()
    subprocess.run(["sh", str(script), "--remove"], env=env, check=True, timeout=60)
    assert not (tmp_path / "data" / "applications" / "pulse.desktop").exists()
