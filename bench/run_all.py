"""Run every benchmark in bench/ at its small `--quick` size: a quick check that they all work.

    .venv/bin/python bench/run_all.py [--list] [--only NAME ...] [--full]

Discovery, so new scripts join without editing this file: every bench/*.py (except this file and
common.py) whose source defines a top-level `main()` and offers a `--quick` option is run as
`python bench/NAME.py --quick`, niced, one after another (the machine has 2 cores). Scripts with
a main() but no --quick are listed as skipped. With --full the scripts run at their default
sizes instead (slow: minutes to an hour). Exit status 1 if any script failed.
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
NOT_BENCHES = {"run_all.py", "common.py", "__init__.py"}


def discover() -> tuple[list[Path], list[Path]]:
    """(runnable with --quick, has main() but no --quick)."""
    runnable, skipped = [], []
    for path in sorted(BENCH.glob("*.py")):
        if path.name in NOT_BENCHES or path.name.startswith("_"):
            continue
        source = path.read_text(encoding="utf-8")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            skipped.append(path)
            continue
        has_main = any(isinstance(node, ast.FunctionDef) and node.name == "main"
                       for node in tree.body)
        if not has_main:
            continue
        quick = any(isinstance(node, ast.Constant) and node.value == "--quick"
                    for node in ast.walk(tree))
        (runnable if quick else skipped).append(path)
    return runnable, skipped


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list what would run and exit")
    parser.add_argument("--only", nargs="*", help="run only these scripts (names, .py optional)")
    parser.add_argument("--full", action="store_true", help="default sizes instead of --quick")
    args = parser.parse_args(argv)

    runnable, skipped = discover()
    if args.only:
        wanted = {n if n.endswith(".py") else f"{n}.py" for n in args.only}
        runnable = [p for p in runnable if p.name in wanted]
    if args.list:
        for p in runnable:
            print(f"run   {p.name}")
        for p in skipped:
            print(f"skip  {p.name} (no --quick option)")
        return

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(BENCH.parent), os.environ.get("PYTHONPATH", "")]))}
    nice = ["nice", "-n", "10"] if sys.platform != "win32" else []
    failed, summary = [], []
    for path in runnable:
        cmd = [*nice, sys.executable, str(path), *([] if args.full else ["--quick"])]
        print(f"\n=== {path.name} {'(full)' if args.full else '--quick'} ===", flush=True)
        start = time.perf_counter()
        code = subprocess.call(cmd, cwd=BENCH.parent, env=env)
        seconds = time.perf_counter() - start
        summary.append((path.name, code, seconds))
        if code != 0:
            failed.append(path.name)
    print("\n=== summary ===")
    for name, code, seconds in summary:
        print(f"{'ok  ' if code == 0 else 'FAIL'} {name:<28} {seconds:7.1f} s")
    for p in skipped:
        print(f"skip {p.name:<28} (defines main() but has no --quick option)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
