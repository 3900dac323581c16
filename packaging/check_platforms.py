"""Resolve Pulse's locked runtime dependencies for every platform it ships to, from Linux.

    python packaging/check_platforms.py                 # the table, on stdout
    python packaging/check_platforms.py --check-docs    # ... and fail if docs/install.md differs
    python packaging/check_platforms.py --write-docs    # ... and put it in docs/install.md

For each target (win_amd64, macosx_11_0_arm64, macosx_10_15_x86_64, manylinux2014_x86_64,
manylinux2014_aarch64) and Python (3.11, 3.12, 3.13), `pip download --only-binary=:all:`
resolves pyproject's runtime dependencies (and the `fallback` extra) with requirements.lock as
constraints: only wheels, as a user's pip would install them there. Where a locked wheel needs
a newer OS than the target's baseline tag, the target is resolved at the oldest OS release its
locked wheels support (FLOOR below, documented in docs/install.md) and the table names the
wheels that set it.

Pip evaluates environment markers (`platform_system == 'Windows'`) against the machine it runs
on, even with --platform. Here pip runs with its marker environment replaced by the target's,
so Windows-only dependencies (colorama, pywin32) are resolved where they apply and must be
pinned in requirements.lock like every other (the script fails on any that is not).

The index here serves no separate metadata files (PEP 658), so resolving means downloading the
wheels (~1 GB a platform, PySide6 most of it): each platform's wheels are downloaded once, into
a temporary wheelhouse that its other Python versions reuse (--find-links).

Exit status: 0 when every target and Python resolves (at its baseline or a documented floor)
with every package pinned in the lock; 1 otherwise (the table says what failed).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
DOCS = ROOT / "docs" / "install.md"
BEGIN, END = "<!-- check_platforms:begin -->", "<!-- check_platforms:end -->"
PYTHONS = ("3.11", "3.12", "3.13")
EXTRAS = ("fallback",)


@dataclass(frozen=True)
class Target:
    tag: str                      # the platform as issue 18 names it (the OS baseline)
    label: str
    markers: dict[str, str]       # the marker environment of that platform
    floor: str                    # the oldest OS the locked wheels install on (its tag)


TARGETS = (
    Target("win_amd64", "Windows x64",
           {"sys_platform": "win32", "platform_system": "Windows", "os_name": "nt",
            "platform_machine": "AMD64"}, "win_amd64"),
    Target("macosx_11_0_arm64", "macOS, Apple silicon",
           {"sys_platform": "darwin", "platform_system": "Darwin", "os_name": "posix",
            "platform_machine": "arm64"}, "macosx_13_0_arm64"),
    Target("macosx_10_15_x86_64", "macOS, Intel",
           {"sys_platform": "darwin", "platform_system": "Darwin", "os_name": "posix",
            "platform_machine": "x86_64"}, "macosx_13_0_x86_64"),
    Target("manylinux2014_x86_64", "Linux x86_64",
           {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix",
            "platform_machine": "x86_64"}, "manylinux_2_34_x86_64"),
    Target("manylinux2014_aarch64", "Linux ARM64",
           {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix",
            "platform_machine": "aarch64"}, "manylinux_2_39_aarch64"),
)

# pip, in-process, with the target's marker environment (argv: environment JSON, pip args)
_PIP_WITH_MARKERS = """
import json, sys
import pip._vendor.packaging.markers as markers
env = markers.default_environment()
env.update(json.loads(sys.argv[1]))
markers.default_environment = lambda: dict(env)
from pip._internal.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def platform_tags(tag: str) -> list[str]:
    """What a machine at this OS release accepts. pip widens a macOS tag to older releases and
    manylinux2014 to manylinux1/2010 itself, but takes manylinux_2_NN literally: widen those."""
    m = re.fullmatch(r"manylinux_2_(\d+)_(\w+)", tag)
    if not m:
        return [tag]
    glibc, arch = int(m.group(1)), m.group(2)
    return [f"manylinux_2_{v}_{arch}" for v in range(glibc, 16, -1)] + [f"manylinux2014_{arch}"]


def os_version(tag: str) -> tuple[int, ...] | None:
    """The OS release a platform tag asks for: (11, 0) for macOS 11, (2, 17) for glibc 2.17."""
    if m := re.fullmatch(r"macosx_(\d+)_(\d+)_\w+", tag):
        return int(m.group(1)), int(m.group(2))
    if m := re.fullmatch(r"manylinux_(\d+)_(\d+)_\w+", tag):
        return int(m.group(1)), int(m.group(2))
    legacy = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
    return legacy.get(tag.split("_", 1)[0])


def os_name(tag: str) -> str:
    version = os_version(tag)
    if version is None:
        return tag
    if tag.startswith("macosx"):
        return f"macOS {version[0]}" + (f".{version[1]}" if version[0] == 10 else "")
    return f"glibc {version[0]}.{version[1]}"


def wheel_needs(filename: str) -> tuple[int, ...] | None:
    """The oldest OS release a wheel installs on (None: any, e.g. py3-none-any or win_amd64)."""
    versions = [os_version(t) for t in filename[:-4].split("-")[-1].split(".")]
    versions = [v for v in versions if v is not None]
    return min(versions) if versions else None


def runtime_requirements() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = list(project["dependencies"])
    for extra in EXTRAS:
        reqs += project["optional-dependencies"][extra]
    return reqs


def locked_names() -> set[str]:
    names = set()
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.add(normalise(re.split(r"[=<>!~;\s\[]", line, maxsplit=1)[0]))
    return names


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class Result:
    target: Target
    python: str
    packages: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (ver, wheel)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def download(target: Target, python: str, requirements: list[str], dest: Path,
             wheelhouse: Path | None) -> Result:
    """pip download the target's wheels into dest (reusing wheelhouse's files when given)."""
    env = dict(target.markers, python_version=python, python_full_version=f"{python}.0",
               implementation_name="cpython", platform_python_implementation="CPython")
    args = ["download", "--quiet", "--disable-pip-version-check", "--only-binary=:all:",
            "--python-version", python, "--implementation", "cp", "-c", str(LOCK),
            "--dest", str(dest)]
    for platform_tag in platform_tags(target.floor):
        args += ["--platform", platform_tag]
    if wheelhouse is not None:
        args += ["--find-links", str(wheelhouse)]
    proc = subprocess.run([sys.executable, "-c", _PIP_WITH_MARKERS, json.dumps(env), *args,
                           *requirements], capture_output=True, text=True)
    if proc.returncode != 0:
        return Result(target, python, error=pip_reason(proc.stderr + proc.stdout))
    packages = {}
    for wheel in sorted(dest.glob("*.whl")):
        name, version = wheel.name.split("-")[:2]
        packages[normalise(name)] = (version, wheel.name)
    return Result(target, python, packages)


def pip_reason(output: str) -> str:
    for pattern in (r"No matching distribution found for (\S+)", r"Cannot install (\S+?)[,\s]",
                    r"conflict is caused by:\s+(\S+)"):
        if m := re.search(pattern, output):
            return "no wheel: " + re.split(r"[=<>!~;\[]", m.group(1))[0]
    lines = [x for x in output.splitlines() if x.strip() and not x.startswith("WARNING")]
    return lines[-1].strip() if lines else "pip failed"


def check_target(target: Target, requirements: list[str], keep: Path | None) -> list[Result]:
    """Every Python for one target; the first one's wheels serve the others (abi3, any)."""
    with tempfile.TemporaryDirectory(prefix=f"pulse-{target.tag}-") as tmp:
        base = keep / target.tag if keep else Path(tmp)
        results, wheelhouse = [], None
        for python in PYTHONS:
            dest = base / f"py{python}"
            dest.mkdir(parents=True, exist_ok=True)
            results.append(download(target, python, requirements, dest, wheelhouse))
            wheelhouse = wheelhouse or (dest if results[-1].ok else None)
    return results


def above_baseline(target: Target, result: Result) -> list[str]:
    """The wheels that need a newer OS than the target's baseline tag, with what they need."""
    baseline = os_version(target.tag)
    out = []
    for name, (_version, wheel) in sorted(result.packages.items()):
        needs = wheel_needs(wheel)
        if baseline and needs and needs > baseline:
            out.append(f"{name} ({os_name(wheel[:-4].split('-')[-1].split('.')[0])})")
    return out


def summary_table(results: list[Result]) -> str:
    lines = ["| platform | baseline tag | installs from | set by | "
             + " | ".join(f"Python {p}" for p in PYTHONS) + " |",
             "|---|---|---|---|" + "---|" * len(PYTHONS)]
    for target in TARGETS:
        rows = [r for r in results if r.target == target]
        setters = sorted({s for r in rows for s in above_baseline(target, r)})
        cells = ["✓" if r.ok else f"✗ {r.error}" for r in rows]
        floor = "Windows 10" if target.floor.startswith("win") else os_name(target.floor)
        lines.append(f"| {target.label} | `{target.tag}` | {floor} | "
                     f"{', '.join(setters) or '—'} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def differences_table(results: list[Result]) -> str:
    """Packages whose version differs between platforms, or that only some platforms get."""
    by_name: dict[str, dict[str, set[str]]] = {}
    for r in results:
        for name, (version, _wheel) in r.packages.items():
            by_name.setdefault(name, {}).setdefault(r.target.tag, set()).add(version)
    rows = []
    for name in sorted(by_name):
        seen = by_name[name]
        if len(seen) == len(TARGETS) and len({v for vs in seen.values() for v in vs}) == 1:
            continue
        cells = [", ".join(sorted(seen.get(t.tag, set()))) or "—" for t in TARGETS]
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    head = ["| package | " + " | ".join(f"`{t.tag}`" for t in TARGETS) + " |",
            "|---|" + "---|" * len(TARGETS)]
    return "\n".join(head + rows)


def unpinned(results: list[Result]) -> dict[str, set[str]]:
    locked = locked_names()
    out: dict[str, set[str]] = {}
    for r in results:
        for name in r.packages:
            if name not in locked:
                out.setdefault(name, set()).add(r.target.tag)
    return out


def render(results: list[Result]) -> str:
    missing = unpinned(results)
    text = [summary_table(results), "",
            "Packages that differ by platform (version resolved; — not installed there):", "",
            differences_table(results)]
    if missing:
        text += ["", "Resolved but not pinned in requirements.lock: " + ", ".join(
            f"{name} ({', '.join(sorted(tags))})" for name, tags in sorted(missing.items()))]
    return "\n".join(text)


def docs_section(text: str) -> str:
    current = DOCS.read_text(encoding="utf-8")
    if BEGIN not in current or END not in current:
        raise SystemExit(f"{DOCS}: no {BEGIN} … {END} section to hold the table")
    head, rest = current.split(BEGIN, 1)
    return head + BEGIN + "\n" + text + "\n" + END + rest.split(END, 1)[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check-docs", action="store_true",
                        help=f"fail when {DOCS.relative_to(ROOT)} holds another table")
    parser.add_argument("--write-docs", action="store_true",
                        help=f"put the table in {DOCS.relative_to(ROOT)}")
    parser.add_argument("--keep", metavar="DIR", type=Path,
                        help="keep the downloaded wheels in DIR (~1 GB a platform)")
    parser.add_argument("--jobs", type=int, default=3, help="platforms resolved at once")
    args = parser.parse_args(argv)

    requirements = runtime_requirements()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        per_target = pool.map(lambda t: check_target(t, requirements, args.keep), TARGETS)
        results = [r for rs in per_target for r in rs]
    text = render(results)
    print(text)
    failed = [r for r in results if not r.ok]
    status = 1 if failed or unpinned(results) else 0
    if args.write_docs:
        DOCS.write_text(docs_section(text), encoding="utf-8")
    elif args.check_docs and docs_section(text) != DOCS.read_text(encoding="utf-8"):
        print(f"\n{DOCS.relative_to(ROOT)} holds another table: run "
              "`python packaging/check_platforms.py --write-docs` and commit it", file=sys.stderr)
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
