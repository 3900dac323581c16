"""A small AST mutation check over core/scoring: do the scorer tests catch a wrong formula?

    nice .venv/bin/python bench/mutate.py --list               # the mutants, no test run
    nice .venv/bin/python bench/mutate.py                      # every mutant (long: ~1-2 h)
    nice .venv/bin/python bench/mutate.py --workers 2 --json /tmp/mutants.json
    nice .venv/bin/python bench/mutate.py --only scorer.py:183  # the mutants of one line
    nice .venv/bin/python bench/mutate.py --sample 4 --workers 2  # every 4th mutant

Each mutant changes one thing in one file of a copy of the project (never the working tree):
an arithmetic operator (+ −, × ÷, ** → ×), a comparison (< ≤, > ≥, == !=, in / not in), a
boolean operator (and / or), a unary minus or `not` dropped, a number (n → n + 1 for whole
numbers; x → 2x for others, 0 → 1), True / False, or a reducer swapped (median → mean,
max ↔ min, maximum ↔ minimum). Strings, docstrings, annotations and the arguments of `raise`
are left alone (messages are not formulas). The copy's tests (tests/test_scoring_chain.py,
tests/test_scoring_formula.py and tests/test_scorer.py; -x, so the first failure ends a run) decide: a mutant is killed when they
fail (or time out), survives when they pass. The tests that exercise the mutated file run first
(FOCUS); only when they pass does the whole set run. The demo memory the tests use is built once
(PULSE_TEST_DEMO_DB). The survivors, with why each is harmless, are listed in docs/scoring.md.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = "core/scoring"
TESTS = ("tests/test_scoring_chain.py", "tests/test_scoring_formula.py", "tests/test_scorer.py")
TIMEOUT_S = 900
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

def make_copy(workdir: Path) -> Path:
    dst = workdir / "project"
    ignore = shutil.ignore_patterns(".venv", ".git", "var", "dist", "build", "__pycache__",
                                    ".pytest_cache", "*.db", "*.db-wal", "*.db-shm")
    shutil.copytree(ROOT, dst, ignore=ignore)
    return dst


def build_demo(copy_root: Path, out: Path) -> None:
    code = ("import sys; sys.path.insert(0, '.'); from core.memory import Memory, "
            "demo_corpus_path\nwith Memory.open(sys.argv[1], create=True) as m: "
            "m.import_corpus(demo_corpus_path())")
    subprocess.run([sys.executable, "-c", code, str(out)], cwd=copy_root, check=True)


def run_tests(copy_root: Path, env: dict[str, str], tests: list[str] | tuple[str, ...] = TESTS
              ) -> tuple[bool, float]:
    """(tests passed, seconds)."""
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                               *tests], cwd=copy_root, env=env, capture_output=True,
                              timeout=TIMEOUT_S)
        passed = proc.returncode == 0
    except subprocess.TimeoutExpired:
        passed = False   # a mutant that hangs is caught (by the timeout)
    return passed, time.perf_counter() - start


def worker(mutants: list[Mutant], workdir: Path, demo: Path, progress,
           focus_only: bool = False) -> None:
    copy_root = make_copy(workdir)
    env = {**os.environ, "PULSE_TEST_DEMO_DB": str(demo), "QT_QPA_PLATFORM": "offscreen",
           "PYTHONDONTWRITEBYTECODE": "1"}
    for m in mutants:
        target = copy_root / m.file
        original = target.read_text(encoding="utf-8")
        try:
            target.write_text(mutated_source(ROOT / m.file, m), encoding="utf-8")
            focus = FOCUS.get(Path(m.file).name)
            passed, m.seconds = run_tests(copy_root, env, focus) if focus else (True, 0.0)
            if passed and not (focus and focus_only):  # the whole set decides
                passed, more = run_tests(copy_root, env)
                m.seconds += more
            m.status = "survived" if passed else "killed"
        finally:
            target.write_text(original, encoding="utf-8")
        progress(m)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the mutants only")
    parser.add_argument("--only", help="FILE:LINE (file name inside core/scoring)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--focus-only", action="store_true",
                        help="decide on the focused tests alone (a survivor there is counted "
                             "as surviving: the kill rate is then a lower bound)")
    parser.add_argument("--sample", type=int, default=1,
                        help="run every Nth mutant only (deterministic: the Nth, 2Nth, … of the "
                             "full list), for a quicker estimate")
    parser.add_argument("--json", type=Path, help="write every mutant's result here")
    args = parser.parse_args(argv)

    files = sorted((ROOT / TARGET).glob("*.py"))
    mutants = [m for f in files for m in mutants_of(f)]
    if args.sample > 1:
        mutants = mutants[args.sample - 1::args.sample]
    if args.only:
        name, line = args.only.split(":")
        mutants = [m for m in mutants if m.file.endswith("/" + name) and m.line == int(line)]
    if args.list:
        for m in mutants:
            print(f"{m.file}:{m.line} {m.kind} {m.before} → {m.after}")
        print(f"{len(mutants)} mutants")
        return 0
    # the unmutated copy must pass, or every mutant would look killed
    with tempfile.TemporaryDirectory(prefix="pulse-mutate-") as tmp:
        tmp_path = Path(tmp)
        base = make_copy(tmp_path / "base")
        demo = tmp_path / "demo.db"
        build_demo(base, demo)
        env = {**os.environ, "PULSE_TEST_DEMO_DB": str(demo), "QT_QPA_PLATFORM": "offscreen"}
        ok, seconds = run_tests(base, env)
        print(f"unmutated tests: {'pass' if ok else 'FAIL'} ({seconds:.0f} s); "
              f"{len(mutants)} mutants, {args.workers} worker(s)", flush=True)
        if not ok:
            return 1
        done = []

        def progress(m: Mutant) -> None:
            done.append(m)
            mark = "." if m.status == "killed" else "S"
            print(f"{mark} [{len(done)}/{len(mutants)}] {m.file}:{m.line} {m.kind} {m.before} → "
                  f"{m.after} ({m.seconds:.0f} s)", flush=True)
            if args.json:
                args.json.write_text(json.dumps([asdict(x) for x in done], indent=1))

        shards = [mutants[i::args.workers] for i in range(args.workers)]
        with ThreadPoolExecutor(max_workers=args.workers) as pool:
            list(pool.map(lambda pair: worker(pair[1], tmp_path / f"w{pair[0]}", demo, progress,
                                              args.focus_only), enumerate(shards)))
    killed = sum(m.status == "killed" for m in mutants)
    print(f"\n{killed} of {len(mutants)} mutants killed ({killed / len(mutants):.1%})")
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
