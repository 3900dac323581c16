"""A small AST mutation check over core/scoring: do the scorer tests catch a wrong formula?

    nice -n 15 .venv/bin/python bench/mutate.py --list            # the mutants, no test run
    nice -n 15 .venv/bin/python bench/mutate.py --workers 2 --demo-db var/demo.db \
        --json var/mutate/full.json                               # every mutant (the measure)
    nice -n 15 .venv/bin/python bench/mutate.py --workers 2 --demo-db var/demo.db \
        --survivors-of var/mutate/full.json --json var/mutate/final.json   # after adding tests
    nice -n 15 .venv/bin/python bench/mutate.py --only scorer.py:183   # the mutants of one line
    nice -n 15 .venv/bin/python bench/mutate.py --file signature.py    # the mutants of one file

Each mutant changes one thing in one file of core/scoring: an arithmetic operator (+ −, × ÷,
** → ×), a comparison (< ≤, > ≥, == !=, in / not in, is / is not), a boolean operator (and /
or), a unary minus or `not` dropped, a number (n → n + 1 for whole numbers; x → 2x for others,
0 → 1), True / False, or a reducer swapped (median → mean, max ↔ min, maximum ↔ minimum).
Strings, docstrings, annotations, imports and the arguments of `raise` are left alone
(messages are not formulas).

The tests (TESTS) decide: a mutant is killed when one of them fails (or it outlives its time
budget), survives when they all pass. To make a full run affordable on a small machine:
- no file is written: each mutant runs in a child forked from this process, which serves the
  mutated source from memory and re-imports only the project modules that depend on
  core/scoring (the rest, numpy, onnxruntime, Qt, hypothesis and the embedding model are loaded
  once, before the fork);
- one traced run of the unmutated tests records which core/scoring lines each test executes;
  a mutant runs only the tests that execute its statement (every test when the statement runs
  at import time: module level, class bodies, default values), fastest first, and stops at the
  first failure (-x);
- the demo memory the tests use is built once (--demo-db / PULSE_TEST_DEMO_DB).
`--survivors-of` re-runs a full run's survivors after tests were added (adding tests cannot
revive a killed mutant) and counts the whole. The survivors, with why each is harmless, are
listed in docs/scoring.md.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET = "core/scoring"
TESTS = ("tests/test_scoring_chain.py", "tests/test_scoring_formula.py", "tests/test_scorer.py",
         "tests/test_scoring_state.py", "tests/test_scoring_edges.py")
# a child gets this many times its tests' baseline seconds, plus the floor, before it is killed
# (the baseline was traced, so its seconds are already above an untraced run's)
TIMEOUT_FACTOR = 3
TIMEOUT_FLOOR_S = 30
# A first, short run of the tests that exercise a file (most mutants die there); only its
# survivors run the whole of TESTS, which decides.
FOCUS = {
    "chain.py": ["tests/test_scoring_chain.py", "tests/test_scorer.py", "-k", "chain or why or "
                 "ancestors or roots or anchor or depth or story or rest or ranking or cyclic"],
    "evidence.py": ["tests/test_scoring_chain.py", "tests/test_scorer.py", "-k",
                    "abstain or abstention or why"],
    "gates.py": ["tests/test_scoring_formula.py", "-k",
                 "state or date or body or depletion or emotion"],
    "index.py": ["tests/test_scoring_formula.py", "-k", "relevance or context or recency"],
    "lexical.py": ["tests/test_scoring_formula.py", "tests/test_scorer.py", "-k",
                   "coverage or pulse or abstain"],
    "results.py": ["tests/test_scorer.py", "-k", "chain or breakdown or alias"],
    "scorer.py": ["tests/test_scoring_formula.py"],
    "settings.py": ["tests/test_scoring_formula.py"],
    "state.py": ["tests/test_scorer.py", "tests/test_scoring_formula.py", "-k",
                 "bad_options or body or state"],
}

SWAP_BIN = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
            ast.Pow: ast.Mult, ast.FloorDiv: ast.Div}
SWAP_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
            ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
            ast.Is: ast.IsNot, ast.IsNot: ast.Is}
SWAP_BOOL = {ast.And: ast.Or, ast.Or: ast.And}
SWAP_NAME = {"median": "mean", "max": "min", "min": "max", "maximum": "minimum",
             "minimum": "maximum"}


@dataclass
class Mutant:
    file: str          # relative to the project
    line: int
    kind: str
    before: str
    after: str
    index: int         # which mutable site of the file (in walk order)
    status: str = "pending"
    seconds: float = 0.0
    tests: int = 0     # how many tests the mutant's statement is executed by


# -- generating ------------------------------------------------------------------------------------

def _skipped_nodes(tree: ast.AST) -> set[int]:
    """ids of nodes never mutated: docstrings, annotations, raise arguments, f-strings."""
    skip: set[int] = set()

    def all_of(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.Raise):
            all_of(node.exc)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            all_of(node.returns)
            for arg in [*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs,
                        node.args.vararg, node.args.kwarg]:
                if arg is not None:
                    all_of(arg.annotation)
        elif isinstance(node, ast.AnnAssign):
            all_of(node.annotation)
        elif isinstance(node, ast.JoinedStr):
            all_of(node)
        elif isinstance(node, ast.ImportFrom | ast.Import):
            all_of(node)
    return skip


def _sites(tree: ast.AST) -> list[tuple[ast.AST, str, str, str]]:
    """(node, kind, before, after) for every mutable site, in a deterministic order."""
    skip = _skipped_nodes(tree)
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.BinOp) and type(node.op) in SWAP_BIN:
            out.append((node, "binop", type(node.op).__name__, SWAP_BIN[type(node.op)].__name__))
        elif isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in SWAP_CMP:
                    out.append((node, f"compare:{i}", type(op).__name__,
                                SWAP_CMP[type(op)].__name__))
        elif isinstance(node, ast.BoolOp) and type(node.op) in SWAP_BOOL:
            out.append((node, "boolop", type(node.op).__name__, SWAP_BOOL[type(node.op)].__name__))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
            out.append((node, "unary", type(node.op).__name__, "dropped"))
        elif isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
            if isinstance(node.value, bool):
                out.append((node, "const", repr(node.value), repr(not node.value)))
            elif isinstance(node.value, int):
                out.append((node, "const", repr(node.value), repr(node.value + 1)))
            else:
                after = 1.0 if node.value == 0 else node.value * 2
                out.append((node, "const", repr(node.value), repr(after)))
        elif isinstance(node, ast.Attribute) and node.attr in SWAP_NAME \
                and isinstance(node.value, ast.Name) and node.value.id == "np":
            out.append((node, "reducer", f"np.{node.attr}", f"np.{SWAP_NAME[node.attr]}"))
        elif isinstance(node, ast.Name) and node.id in ("max", "min") \
                and isinstance(getattr(node, "ctx", None), ast.Load):
            out.append((node, "reducer", node.id, SWAP_NAME[node.id]))
    return out


def _apply(node: ast.AST, kind: str) -> None:
    if kind == "binop":
        node.op = SWAP_BIN[type(node.op)]()
    elif kind.startswith("compare:"):
        i = int(kind.split(":")[1])
        node.ops[i] = SWAP_CMP[type(node.ops[i])]()
    elif kind == "boolop":
        node.op = SWAP_BOOL[type(node.op)]()
    elif kind == "const":
        value = node.value
        if isinstance(value, bool):
            node.value = not value
        elif isinstance(value, int):
            node.value = value + 1
        else:
            node.value = 1.0 if value == 0 else value * 2
    elif kind == "reducer":
        if isinstance(node, ast.Attribute):
            node.attr = SWAP_NAME[node.attr]
        else:
            node.id = SWAP_NAME[node.id]


class _DropUnary(ast.NodeTransformer):
    def __init__(self, target: ast.AST) -> None:
        self.target = target

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        return node.operand if node is self.target else node


def mutants_of(path: Path) -> list[Mutant]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = str(path.relative_to(ROOT))
    return [Mutant(rel, getattr(node, "lineno", 0), kind, before, after, i)
            for i, (node, kind, before, after) in enumerate(_sites(tree))]


def mutated_source(path: Path, mutant: Mutant) -> str:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    node, kind, _, _ = _sites(tree)[mutant.index]
    if kind == "unary":
        tree = _DropUnary(node).visit(tree)
    else:
        _apply(node, kind)
    return ast.unparse(ast.fix_missing_locations(tree))


# -- running ---------------------------------------------------------------------------------------
#
# Each mutant runs in a child forked from this process, which has already imported pytest, numpy
# and every project module that does not import core/scoring. The child serves the mutated
# source from memory (an import hook; no file is written), forgets the project modules that
# depend on core/scoring, and runs pytest in-process on the tests that execute the mutated
# statement (per-test line coverage from one traced baseline run), fastest first, stopping at
# the first failure. A statement that runs at import time (module level, class bodies, default
# values) runs every test. The parent kills a child that outlives its time budget (a hang is a
# kill).

SCORING_PREFIX = TARGET.replace("/", ".") + "."


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _import_time_imports(tree: ast.Module) -> set[str]:
    """Modules a module imports when it is imported (not inside functions)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    out = set(found)
    for name in found:   # importing a.b.c runs a and a.b first
        parts = name.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return out


def tainted_modules() -> set[str]:
    """Project modules whose import reaches core/scoring (they must be re-imported per mutant)."""
    graph: dict[str, set[str]] = {}
    for folder in ("core", "pulse_desktop"):
        for path in (ROOT / folder).rglob("*.py"):
            graph[module_name(path)] = _import_time_imports(
                ast.parse(path.read_text(encoding="utf-8")))
    tainted = {m for m in graph if m.startswith(SCORING_PREFIX) or m == TARGET.replace("/", ".")}
    changed = True
    while changed:
        changed = False
        for mod, deps in graph.items():
            if mod not in tainted and deps & tainted:
                tainted.add(mod)
                changed = True
    return tainted


def statement_span(path: Path, mutant: Mutant) -> tuple[int, int, bool]:
    """(first line, last line, runs at import time) of the smallest statement holding the
    mutant's node."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    node = _sites(tree)[mutant.index][0]
    best: tuple[int, int, bool] | None = None

    def visit(parent: ast.AST, in_function: bool) -> None:
        nonlocal best
        for child in ast.iter_child_nodes(parent):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                      ast.Lambda))
            if child is node or any(n is node for n in ast.walk(child)):
                if isinstance(child, ast.stmt):
                    # a def's decorators, defaults and annotations run at import time
                    body_only = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        any(n is node for stmt in child.body for n in ast.walk(stmt))
                    best = (child.lineno, child.end_lineno or child.lineno,
                            not (in_function or body_only))
                visit(child, inner)
                return

    visit(tree, False)
    return best if best is not None else (mutant.line, mutant.line, True)


class _MutantFinder:
    """Serves one module's mutated source (meta path hook, installed in the child only)."""

    def __init__(self, name: str, path: Path, source: str) -> None:
        self.name, self.path, self.source = name, path, source

    def find_spec(self, fullname, path=None, target=None):
        import importlib.util

        if fullname != self.name:
            return None
        return importlib.util.spec_from_loader(fullname, self, origin=str(self.path))

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        module.__file__ = str(self.path)
        exec(compile(self.source, str(self.path), "exec"), module.__dict__)


class _LineRecorder:
    """pytest plugin for the baseline run: which core/scoring lines each test executes."""

    def __init__(self) -> None:
        self.current = "<collect>"
        self.lines: dict[str, set[tuple[str, int]]] = {}
        self.seconds: dict[str, float] = {}
        self.target = str(ROOT / TARGET) + os.sep
        self._started = 0.0

    def _trace(self, frame, event, arg):
        if not frame.f_code.co_filename.startswith(self.target):
            return None
        hits = self.lines.setdefault(self.current, set())
        name = os.path.basename(frame.f_code.co_filename)

        def local(frame, event, arg):
            if event == "line":
                hits.add((name, frame.f_lineno))
            return local
        hits.add((name, frame.f_lineno))
        return local

    def pytest_runtest_logstart(self, nodeid, location):
        import threading

        self.current = nodeid
        self._started = time.perf_counter()
        sys.settrace(self._trace)
        threading.settrace(self._trace)

    def pytest_runtest_logfinish(self, nodeid, location):
        import threading

        sys.settrace(None)
        threading.settrace(None)
        self.seconds[nodeid] = time.perf_counter() - self._started


def _child_run(args: list[str], quiet: bool = True) -> int:
    """Run pytest in this (forked) process; its exit code."""
    import pytest

    if quiet:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
    return int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
                            *args]))


def _forget(tainted: set[str]) -> None:
    for name in list(sys.modules):
        if name in tainted or name == "conftest" or name.startswith(("tests.", "test_")):
            del sys.modules[name]


def baseline(tests: tuple[str, ...], out: Path) -> tuple[bool, dict[str, Any]]:
    """Run the tests once, traced, in a child: (passed, {nodeid: {lines, seconds}})."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            recorder = _LineRecorder()
            import pytest

            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            code = int(pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
                                    *tests], plugins=[recorder]))
            out.write_text(json.dumps({
                node: {"lines": sorted(f"{f}:{n}" for f, n in recorder.lines.get(node, ())),
                       "seconds": secs} for node, secs in recorder.seconds.items()}))
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    ok = os.waitstatus_to_exitcode(status) == 0
    return ok, json.loads(out.read_text()) if out.exists() else {}


def select_tests(m: Mutant, coverage: dict[str, Any]) -> list[str]:
    """The tests that execute the mutant's statement (every test for import-time code), the
    focused files first, then fastest first."""
    first, last, import_time = statement_span(ROOT / m.file, m)
    name = Path(m.file).name
    if import_time:
        chosen = list(coverage)
    else:
        wanted = {f"{name}:{n}" for n in range(first, last + 1)}
        chosen = [node for node, info in coverage.items() if wanted & set(info["lines"])]
    focus_files = [a for a in FOCUS.get(name, []) if a.startswith("tests/")]
    return sorted(chosen, key=lambda n: (not any(n.startswith(f) for f in focus_files),
                                         coverage[n]["seconds"], n))


def start_child(m: Mutant, tests: list[str], tainted: set[str]) -> int:
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            source = mutated_source(ROOT / m.file, m)
            _forget(tainted)
            sys.meta_path.insert(0, _MutantFinder(module_name(ROOT / m.file), ROOT / m.file,
                                                  source))
            code = _child_run(tests)
        except BaseException:  # noqa: BLE001 - a mutant that cannot even import is killed
            code = 3
        finally:
            os._exit(code)
    return pid


def run_all(mutants: list[Mutant], coverage: dict[str, Any], workers: int, progress) -> None:
    tainted = tainted_modules()
    # warm this process once: every project module the mutants cannot change, and the heavy
    # libraries, are then already imported in each forked child
    import importlib

    for name in sorted(tainted_modules_complement(tainted)):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - an optional front (Qt) may be missing
            pass
    import pytest  # noqa: F401

    from core.embedding.registry import get_embedder

    get_embedder()   # the model's weights load once, here, not in every child
    for heavy in ("PySide6.QtWidgets", "hypothesis", "hypothesis.strategies",
                  "_hypothesis_pytestplugin", "anyio", "pytestqt.plugin"):
        try:   # the tests and pytest's plugins import these; once here, not in every child
            importlib.import_module(heavy)
        except ImportError:
            pass
    import gc

    gc.freeze()   # what is loaded now is never collected in a child: cheaper, and shared pages
    queue = list(mutants)
    running: dict[int, tuple[Mutant, float, float]] = {}

    def stop(signum, frame):   # a stopped run leaves no child behind
        for pid in running:
            os.kill(pid, 9)
        raise SystemExit(1)

    import signal

    signal.signal(signal.SIGTERM, stop)
    while queue or running:
        while queue and len(running) < workers:
            m = queue.pop(0)
            tests = select_tests(m, coverage)
            if not tests:
                m.status, m.tests = "survived", 0
                progress(m)
                continue
            m.tests = len(tests)
            budget = TIMEOUT_FACTOR * sum(coverage[t]["seconds"] for t in tests) + TIMEOUT_FLOOR_S
            running[start_child(m, tests, tainted)] = (m, time.perf_counter(), budget)
        time.sleep(0.05)
        for pid, (m, started, budget) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            elapsed = time.perf_counter() - started
            if done == 0 and elapsed > budget:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                m.status, m.seconds = "killed", elapsed   # it hung: caught by the time budget
            elif done == 0:
                continue
            else:
                code = os.waitstatus_to_exitcode(status)
                m.status, m.seconds = ("survived" if code == 0 else "killed"), elapsed
            del running[pid]
            progress(m)


def tainted_modules_complement(tainted: set[str]) -> set[str]:
    out = set()
    for folder in ("core",):
        for path in (ROOT / folder).rglob("*.py"):
            name = module_name(path)
            if name not in tainted and "__main__" not in name:
                out.add(name)
    return out


def build_demo(out: Path) -> None:
    code = ("import sys; sys.path.insert(0, '.'); from core.memory import Memory, "
            "demo_corpus_path\nwith Memory.open(sys.argv[1], create=True) as m: "
            "m.import_corpus(demo_corpus_path())")
    subprocess.run([sys.executable, "-c", code, str(out)], cwd=ROOT, check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the mutants only")
    parser.add_argument("--only", help="FILE:LINE (file name inside core/scoring)")
    parser.add_argument("--file", action="append",
                        help="only the mutants of this file of core/scoring (repeatable)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--sample", type=int, default=1,
                        help="run every Nth mutant only (deterministic: the Nth, 2Nth, … of the "
                             "full list), for a quicker estimate")
    parser.add_argument("--partial", action="store_true",
                        help="with --survivors-of: runs still going, re-run the survivors so far "
                             "(the count then covers only the mutants decided in those files)")
    parser.add_argument("--reverse", action="store_true",
                        help="run the list from its end (a second run over the same files meets "
                             "the first in the middle; --survivors-of takes both)")
    parser.add_argument("--demo-db", type=Path,
                        help="a prebuilt demo memory (PULSE_TEST_DEMO_DB); built once otherwise")
    parser.add_argument("--json", type=Path, help="write every mutant's result here")
    parser.add_argument("--survivors-of", type=Path, metavar="JSON", nargs="+",
                        help="a full run's --json (or the runs over disjoint --file sets that "
                             "together cover every mutant): run only its survivors again "
                             "(tests added since; the code under test must not have changed) "
                             "and count the whole")
    args = parser.parse_args(argv)

    files = sorted((ROOT / TARGET).glob("*.py"))
    mutants = [m for f in files for m in mutants_of(f)]
    if args.file:
        mutants = [m for m in mutants if Path(m.file).name in args.file]
    if args.sample > 1:
        mutants = mutants[args.sample - 1::args.sample]
    if args.reverse:
        mutants = mutants[::-1]
    if args.only:
        name, line = args.only.split(":")
        mutants = [m for m in mutants if m.file.endswith("/" + name) and m.line == int(line)]
    earlier: list[Mutant] = []
    if args.survivors_of:
        key = lambda m: (m.file, m.index, m.kind, m.before, m.after, m.line)  # noqa: E731
        decided: dict[tuple, Mutant] = {}
        for path in args.survivors_of:
            for row in json.loads(path.read_text()):
                m = Mutant(**row)
                if key(m) not in decided or m.status == "survived":
                    decided[key(m)] = m     # decided twice: the survivor is run again
        before = list(decided.values())
        if not args.partial and sorted(map(key, before)) != sorted(map(key, mutants)):
            print(f"{' + '.join(map(str, args.survivors_of))} do not cover this code's "
                  f"{len(mutants)} mutants exactly", file=sys.stderr)
            return 1
        again = {key(m) for m in before if m.status == "survived"}
        earlier = [m for m in before if m.status != "survived"]
        mutants = [m for m in mutants if key(m) in again]
        print(f"{len(earlier)} killed in {' + '.join(map(str, args.survivors_of))}; "
              f"{len(mutants)} survivors run again", flush=True)
    if args.list:
        for m in mutants:
            print(f"{m.file}:{m.line} {m.kind} {m.before} → {m.after}")
        print(f"{len(mutants)} mutants")
        return 0
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    # bytecode caches on: each child re-imports the modules that depend on core/scoring and the
    # tests, and compiling them from source every time cost more than most tests (a mutant never
    # leaves a .pyc behind: its module is compiled from memory by _MutantFinder)
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    started = time.perf_counter()
    cpu_started = time.process_time()
    with tempfile.TemporaryDirectory(prefix="pulse-mutate-") as tmp:
        tmp_path = Path(tmp)
        demo = args.demo_db
        if demo is None or not demo.is_file():
            demo = tmp_path / "demo.db"
            build_demo(demo)
        os.environ.update(PULSE_TEST_DEMO_DB=str(demo), QT_QPA_PLATFORM="offscreen")
        # the unmutated tests must pass (or every mutant would look killed); traced, they give
        # each test's lines
        ok, coverage = baseline(TESTS, tmp_path / "coverage.json")
        print(f"unmutated tests: {'pass' if ok else 'FAIL'} ({len(coverage)} tests, "
              f"{sum(c['seconds'] for c in coverage.values()):.0f} s traced); "
              f"{len(mutants)} mutants, {args.workers} worker(s)", flush=True)
        if not ok or not coverage:
            return 1
        done = []

        def progress(m: Mutant) -> None:
            done.append(m)
            mark = "." if m.status == "killed" else "S"
            print(f"{mark} [{len(done)}/{len(mutants)}] {m.file}:{m.line} {m.kind} {m.before} → "
                  f"{m.after} ({m.tests} tests, {m.seconds:.1f} s)", flush=True)
            if args.json:
                args.json.write_text(json.dumps([asdict(x) for x in done], indent=1))

        run_all(mutants, coverage, args.workers, progress)
    mutants = earlier + mutants
    if args.json and earlier:
        args.json.write_text(json.dumps([asdict(x) for x in mutants], indent=1))
    killed = sum(m.status == "killed" for m in mutants)
    print(f"\n{killed} of {len(mutants)} mutants killed ({killed / max(len(mutants), 1):.1%}); "
          f"wall {time.perf_counter() - started:.0f} s, CPU of the parent "
          f"{time.process_time() - cpu_started:.0f} s, CPU of the children "
          f"{os.times().children_user + os.times().children_system:.0f} s")
    by_file: dict[str, list[int]] = {}
    for m in mutants:
        k = by_file.setdefault(m.file, [0, 0])
        k[0] += m.status == "killed"
        k[1] += 1
    print("\n| file | killed | mutants |\n|---|---|---|")
    for f, (k, n) in by_file.items():
        print(f"| {f} | {k} | {n} |")
    survivors = [m for m in mutants if m.status == "survived"]
    if survivors:
        print("\nSurvivors:")
        for m in survivors:
            print(f"- {m.file}:{m.line} {m.kind} {m.before} → {m.after}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
