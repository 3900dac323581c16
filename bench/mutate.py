"""A small AST mutation check over core/scoring: do the tests catch a wrong formula?

    nice -n 15 .venv/bin/python bench/mutate.py --list            # the mutants, no test run
    nice -n 15 .venv/bin/python bench/mutate.py --workers 2 --demo-db var/demo.db --sample 10 \
        --json var/mutate/sample.json                             # every 10th: the speed
    nice -n 15 .venv/bin/python bench/mutate.py --workers 2 --demo-db var/demo.db \
        --json var/mutate/full.json                               # every mutant (the measure)
    nice -n 15 .venv/bin/python bench/mutate.py --workers 2 --demo-db var/demo.db \
        --survivors-of var/mutate/full.json --json var/mutate/final.json   # after adding tests
    nice -n 15 .venv/bin/python bench/mutate.py --only scorer.py:183   # the mutants of one line
    nice -n 15 .venv/bin/python bench/mutate.py --file signature.py    # the mutants of one file

The mutants are bench/mutants.py's. The tests (TESTS) decide: a mutant is killed when one of
them fails or when it outlives its time budget (a hang; its `killer` is then "timeout": CPU
seconds, three times its tests' baseline plus a floor, so a busy or paused machine does not
kill it), and survives when they all pass.

What makes a full run affordable on a small shared machine:
- one pytest session collects the tests once; then a traced run (in a forked child) of the
  unmutated tests records which core/scoring lines each test executes, and how long it takes;
- each mutant runs in a child forked from that session: numpy, onnxruntime, Qt, hypothesis, the
  embedding model, the project and the collected tests are already loaded. A mutant inside a
  function body (most of them) is applied by swapping that function's code object in place
  (compiled from the mutated tree with the file's line numbers; every reference to the function
  sees it) and the child runs the chosen tests' items directly (pytest's runtestprotocol). A
  mutant that runs at import time (module level, class bodies, default values) cannot be
  swapped: its child serves the mutated module from memory, forgets the project modules that
  depend on core/scoring and runs a fresh pytest on the chosen tests;
- a child runs only the tests that execute the mutated statement (every test for import-time
  code), and stops at the first failure. The order: first the tests that killed mutants of the
  same function, then of the same file (in this run, and in the --prior runs' json), then the
  fastest. A killed mutant usually needs one test (`ran` in the json);
- the demo memory the tests use is built once (--demo-db / PULSE_TEST_DEMO_DB).
`--survivors-of` re-runs a full run's survivors after tests were added (adding tests cannot
revive a killed mutant) and counts the whole. The survivors, with why each is harmless, are
listed in docs/scoring.md.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from mutants import (
    ROOT,
    TARGET,
    Mutant,
    module_name,
    mutants_of,
    mutated_tree,
    outer_function,
    site_of,
    statement_span,
    tainted_modules,
)

TESTS = ("tests/test_scoring_chain.py", "tests/test_scoring_formula.py", "tests/test_scorer.py",
         "tests/test_scoring_state.py", "tests/test_scoring_edges.py",
         "tests/test_index_in_place.py", "tests/test_postings.py",
         "tests/test_quantised_index.py", "tests/test_index_edges.py",
         "tests/test_scoring_borrow_chain.py", "tests/test_state_flags.py",
         "tests/test_index_snapshot.py", "tests/test_scoring_gaps.py",
         "tests/test_settle_exact.py", "tests/test_lexical_hits.py", "tests/test_term_counts.py",
         "tests/test_index_refresh_edges.py", "tests/test_postings_edges.py",
         "tests/test_snapshot_boundaries.py", "tests/test_state_and_change_log_edges.py",
         "tests/test_scoring_neighbours_and_seeds.py", "tests/test_scoring_lazy_parts.py",
         "tests/test_query_evidence_edges.py", "tests/test_request_limits.py",
         "tests/test_index_freed_rows.py", "tests/test_held_index_edges.py",
         "tests/test_scoring_next_turn.py", "tests/test_user_state_value.py",
         "tests/test_snapshot_write_size.py", "tests/test_term_counts_after_erasure.py",
         "tests/test_quantised_default_parts.py", "tests/test_snapshot_format.py",
         "tests/test_snapshot_thresholds.py", "tests/test_state_flags_thresholds.py",
         "tests/test_term_counts_limit.py", "tests/test_quantised_wide_vectors.py",
         "tests/test_index_size_thresholds.py", "tests/test_index_work_counters.py",
         "tests/test_index_reload_thresholds.py", "tests/test_postings_growth.py",
         "tests/test_chain_work.py", "tests/test_chain_cycles.py", "tests/test_hrv_span.py",
         "tests/test_query_word_limit.py", "tests/test_chain_order.py")
# the test files written for a file's code: until kills say otherwise, their tests count as
# ten times likelier killers of its mutants than the others that execute the statement
FOCUS = {"index": ("test_index_",), "changelog": ("test_index_",),
         "dense": ("test_quantised", "test_index_edges", "test_settle_exact"),
         "quantised": ("test_quantised", "test_index_edges", "test_settle_exact"),
         "postings": ("test_postings", "test_index_edges"), "chain": ("test_scoring_chain",),
         "state": ("test_scoring_state",),
         "signature": ("test_scoring_state", "test_scoring_borrow_chain"),
         "snapshot": ("test_index_snapshot", "test_snapshot_"),
         "lexical_hits": ("test_lexical_hits",), "state_flags": ("test_state_flags",),
         "breakdown": ("test_scorer",)}
# a child gets this many times its tests' baseline seconds (traced, so already above an
# untraced run's), plus the floor, before it is killed
TIMEOUT_FACTOR = 3
# a child's budget is CPU seconds: on a shared machine (or one whose jobs are paused for a quiet
# measurement) its wall time says how busy the machine was, not whether it hangs. Wall time
# still ends a child that sleeps forever, at a far larger multiple.
WALL_FACTOR, WALL_FLOOR_S = 10, 600
TIMEOUT_FLOOR_S = {"code": 15, "import": 40}


# -- applying a mutant in a child ------------------------------------------------------------------

class _MutantFinder:
    """Serves one module's mutated tree (meta path hook, installed in the child only)."""

    def __init__(self, name: str, path: Path, code) -> None:
        self.name, self.path, self.code = name, path, code

    def find_spec(self, fullname, path=None, target=None):
        import importlib.util

        if fullname != self.name:
            return None
        return importlib.util.spec_from_loader(fullname, self, origin=str(self.path))

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        module.__file__ = str(self.path)
        exec(self.code, module.__dict__)


def _code_named(code, name: str, first: int):
    """The code object of function `name` starting at line `first`, inside `code`."""
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            if const.co_name == name and const.co_firstlineno == first:
                return const
            found = _code_named(const, name, first)
            if found is not None:
                return found
    return None


def _live_functions(module) -> list:
    """Every function object the module defines (module level and in its classes, unwrapped
    from staticmethod, classmethod, property and functools wrappers)."""
    out, seen = [], set()

    def add(obj, depth: int = 0) -> None:
        if id(obj) in seen or depth > 4:
            return
        seen.add(id(obj))
        if isinstance(obj, (staticmethod, classmethod)):
            add(obj.__func__, depth + 1)
        elif isinstance(obj, property):
            for f in (obj.fget, obj.fset, obj.fdel):
                if f is not None:
                    add(f, depth + 1)
        elif isinstance(obj, type) and obj.__module__ == module.__name__:
            for value in vars(obj).values():
                add(value, depth + 1)
        elif hasattr(obj, "__code__"):
            out.append(obj)
            if hasattr(obj, "__wrapped__"):
                add(obj.__wrapped__, depth + 1)
        elif hasattr(obj, "func") and hasattr(obj.func, "__code__"):   # cached_property
            add(obj.func, depth + 1)

    for value in vars(module).values():
        add(value)
    return out


def swap_in_place(m: Mutant) -> bool:
    """Put the mutant into the loaded module by swapping its outermost function's code object;
    False when that is not possible (import-time code, or the function was not found)."""
    path = ROOT / m.file
    where = outer_function(path, m)
    if where is None:
        return False
    name, first = where
    module = importlib.import_module(module_name(path))
    new = _code_named(compile(mutated_tree(path, m), str(path), "exec"), name, first)
    olds = [f for f in _live_functions(module)
            if f.__code__.co_name == name and f.__code__.co_firstlineno == first
            and f.__code__.co_filename == str(path)]
    if new is None or not olds or any(f.__code__.co_freevars != new.co_freevars for f in olds):
        return False
    for f in olds:
        f.__code__ = new
    return True


# -- the session that runs everything --------------------------------------------------------------

class _LineRecorder:
    """The baseline: which core/scoring lines each test executes, and its seconds."""

    def __init__(self) -> None:
        self.current = "<collect>"
        self.lines: dict[str, set[str]] = {}
        self.target = str(ROOT / TARGET) + os.sep

    def trace(self, frame, event, arg):
        if not frame.f_code.co_filename.startswith(self.target):
            return None
        hits = self.lines.setdefault(self.current, set())
        name = os.path.basename(frame.f_code.co_filename)

        def local(frame, event, arg):
            if event == "line":
                hits.add(f"{name}:{frame.f_lineno}")
            return local
        hits.add(f"{name}:{frame.f_lineno}")
        return local


def _run_items(items: list, on_start=None) -> tuple[str, int]:
    """Run pytest items in this process in order; (the first failing nodeid or "", how many
    ran)."""
    from _pytest.runner import runtestprotocol

    for i, item in enumerate(items):
        if on_start is not None:
            on_start(item)
        reports = runtestprotocol(item, log=False,
                                  nextitem=items[i + 1] if i + 1 < len(items) else None)
        if any(r.failed for r in reports):
            return item.nodeid, i + 1
    return "", len(items)


def _fewer_examples(items: list, most: int) -> None:
    """Property tests run at most `most` generated examples (their explicit @example cases
    still all run): --max-examples, to fit a full run on a small machine."""
    from hypothesis import settings

    for item in items:
        fn = getattr(item, "obj", None)
        current = getattr(fn, "_hypothesis_internal_use_settings", None)
        if current is not None and current.max_examples > most:
            fn._hypothesis_internal_use_settings = settings(current, max_examples=most)


def _quiet() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)


class Runner:
    """A pytest plugin: takes over the run loop once the tests are collected."""

    def __init__(self, mutants: list[Mutant], workers: int, tmp: Path, prior: list[dict],
                 progress, first_pass_s: float, max_examples: int | None) -> None:
        self.mutants, self.workers, self.tmp, self.progress = mutants, workers, tmp, progress
        self.tainted = tainted_modules()
        self.info: dict[int, tuple] = {}
        self.first_pass_s = first_pass_s
        self.max_examples = max_examples
        self.tests = TESTS
        self.skip: set[str] = set()     # tests every mutant here is known to pass
        self.undecided: list[Mutant] = []   # passed their first pass, wait for the second
        self.coverage: dict[str, Any] = {}
        self.baseline_ok = False
        self.by_function: dict[tuple, Counter] = {}
        self.by_file: dict[str, Counter] = {}
        self.killer_of_site: dict[str, str] = {}   # an earlier run's killer of the same mutant
        for row in prior:
            if row.get("killer") and row["killer"] not in ("timeout", "error"):
                if row.get("site"):
                    self.killer_of_site[row["site"]] = row["killer"]
                if row.get("current", True):    # line numbers of this code
                    self._learn(Mutant(**{k: v for k, v in row.items() if k != "current"}))
                else:
                    for killer in {row["killer"], row["killer"].split("[")[0]}:
                        self.by_file.setdefault(row["file"], Counter())[killer] += 1

    def _where(self, m: Mutant) -> tuple:
        """(first line, last line, import time, outer function) of the mutant, parsed once."""
        if id(m) not in self.info:
            first, last, import_time = statement_span(ROOT / m.file, m)
            self.info[id(m)] = (first, last, import_time, outer_function(ROOT / m.file, m))
        return self.info[id(m)]

    def _function_key(self, m: Mutant) -> tuple:
        first, _, _, where = self._where(m)
        return (m.file, where or first)

    def _learn(self, m: Mutant) -> None:
        for killer in {m.killer, m.killer.split("[")[0]}:
            self.by_function.setdefault(self._function_key(m), Counter())[killer] += 1
            self.by_file.setdefault(m.file, Counter())[killer] += 1

    def select(self, m: Mutant) -> list[str]:
        """The tests that execute the mutant's statement (every test for import-time code),
        likeliest killers first, then fastest."""
        first, last, import_time, _ = self._where(m)
        if import_time:
            chosen = list(self.coverage)
        else:
            name = Path(m.file).name
            wanted = {f"{name}:{n}" for n in range(first, last + 1)}
            chosen = [t for t, info in self.coverage.items() if wanted & set(info["lines"])]
        here = self.by_function.get(self._function_key(m), Counter())
        there = self.by_file.get(m.file, Counter())
        # expected cost per kill: a test's seconds over how often it killed here (the same
        # function counts most), so a cheap likely killer runs first and a slow property test
        # that killed once nearby does not run before every cheap one
        focus = FOCUS.get(Path(m.file).stem, ())

        def cost(t: str) -> float:
            base = t.split("[")[0]    # kills by other parameters of the same test count too
            aimed = 10 if any(f"/{name}" in t for name in focus) else 1
            return self.coverage[t]["seconds"] / (aimed + 10 * here[t] + 3 * there[t]
                                                  + 3 * here[base] + there[base])

        if not m.site:
            m.site = site_of(ROOT / m.file, m)
        known = self.killer_of_site.get(m.site)
        return sorted(chosen, key=lambda t: (t != known, cost(t), t))

    # pytest hooks

    def pytest_runtestloop(self, session) -> bool:
        import gc

        items = {item.nodeid: item for item in session.items}
        if self.max_examples:
            _fewer_examples(session.items, self.max_examples)
        gc.freeze()   # what is loaded now is never collected in a child: cheaper, shared pages
        self._baseline(list(items.values()))
        if self.baseline_ok:
            self._run(items)
        return True

    def _baseline(self, items: list) -> None:
        out = baseline_cache(self.max_examples, self.tests)
        if not out.exists():
            self._trace_baseline(items, out)
        result = json.loads(out.read_text()) if out.exists() else {"failed": "?", "tests": {}}
        self.coverage = {t: c for t, c in result["tests"].items() if t not in self.skip}
        self.baseline_ok = not result["failed"] and bool(self.coverage)
        print(f"unmutated tests: {'pass' if self.baseline_ok else 'FAIL ' + result['failed']} "
              f"({len(self.coverage)} tests, "
              f"{sum(c['seconds'] for c in self.coverage.values()):.0f} s traced; {out}); "
              f"{len(self.mutants)} mutants, {self.workers} worker(s)", flush=True)
        if not self.baseline_ok:
            out.unlink(missing_ok=True)

    def _trace_baseline(self, items: list, out: Path) -> None:
        import signal

        pid = os.fork()
        if pid:     # a run stopped during its baseline leaves no child behind
            signal.signal(signal.SIGTERM, lambda signum, frame: (os.kill(pid, 9),
                                                                 sys.exit(1)))
        if pid == 0:
            code = 1
            try:
                _quiet()
                recorder = _LineRecorder()
                seconds: dict[str, float] = {}
                started = [0.0, ""]

                def on_start(item) -> None:
                    if started[1]:
                        seconds[started[1]] = time.perf_counter() - started[0]
                    recorder.current = item.nodeid
                    started[:] = [time.perf_counter(), item.nodeid]

                import threading

                sys.settrace(recorder.trace)
                threading.settrace(recorder.trace)
                failed, _ = _run_items(items, on_start)
                sys.settrace(None)
                seconds[started[1]] = time.perf_counter() - started[0]
                out.write_text(json.dumps({
                    "failed": failed,
                    "tests": {t: {"lines": sorted(recorder.lines.get(t, ())), "seconds": s}
                              for t, s in seconds.items()}}))
                code = 0
            finally:
                os._exit(code)
        os.waitpid(pid, 0)

    def _start(self, m: Mutant, tests: list[str], items: dict, report: Path) -> int:
        pid = os.fork()
        if pid:
            return pid
        code = 3
        try:
            _quiet()
            if swap_in_place(m):
                failed, ran = _run_items([items[t] for t in tests])
            else:
                failed, ran = self._reimported(m, tests)
            report.write_text(json.dumps({"killer": failed, "ran": ran}))
            code = 1 if failed else 0
        except BaseException:  # noqa: BLE001 - a mutant that cannot even load is killed
            code = 3
        finally:
            os._exit(code)

    def _reimported(self, m: Mutant, tests: list[str]) -> tuple[str, int]:
        """Import-time code: a fresh pytest over the mutated module, served from memory."""
        import pytest

        path = ROOT / m.file
        code = compile(mutated_tree(path, m), str(path), "exec")
        for name in list(sys.modules):
            if name in self.tainted or name == "conftest" or name.startswith(("tests.", "test_")):
                del sys.modules[name]
        sys.meta_path.insert(0, _MutantFinder(module_name(path), path, code))

        most = self.max_examples

        class Watch:
            failed, ran = "", 0

            def pytest_collection_modifyitems(self, items) -> None:
                if most:
                    _fewer_examples(items, most)

            def pytest_runtest_logreport(self, report) -> None:
                if report.when == "call" or report.failed:
                    Watch.ran += report.when == "call"
                if report.failed and not Watch.failed:
                    Watch.failed = report.nodeid

        exit_code = int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", "--rootdir",
                                     str(ROOT), *tests], plugins=[Watch()]))
        if exit_code != 0 and not Watch.failed:
            Watch.failed = "error"    # collection failed: the mutated module does not load
        return Watch.failed, Watch.ran

    def _run(self, items: dict) -> None:
        """Two passes: first each mutant meets its likeliest killers, up to FIRST_PASS_S of
        their baseline seconds; then the mutants no test has killed yet meet the rest of
        their tests (the slow ones, property tests above all), so every kill that comes
        cheap is counted before the expensive survivors are decided."""
        import signal

        queue: list[tuple[Mutant, list[str] | None]] = [(m, None) for m in self.mutants]
        rest: dict[int, list[str]] = {}     # the second pass's tests of each mutant
        running: dict[int, tuple[Mutant, float, float, Path]] = {}

        def stop(signum, frame):   # a stopped run leaves no child behind
            for pid in running:
                os.kill(pid, 9)
            raise SystemExit(1)

        signal.signal(signal.SIGTERM, stop)
        second_pass: list[tuple[Mutant, list[str]]] = []
        serial = 0
        while queue or running or second_pass:
            if not queue and not running:
                print(f"-- first pass done: {len(second_pass)} mutants not killed yet meet the "
                      f"rest of their tests", flush=True)
                # the cheapest to decide first: a stopped run has decided the most
                queue = sorted(second_pass, key=lambda mt: sum(self.coverage[t]["seconds"]
                                                               for t in mt[1]))
                second_pass = []
            while queue and len(running) < self.workers:
                m, tests = queue.pop(0)
                if tests is None:     # first pass: chosen now, so earlier kills inform it
                    tests = [t for t in self.select(m) if t in items]
                    m.tests, m.status = len(tests), "undecided"
                    if not tests:
                        m.status = "survived"
                        self.progress(m)
                        continue
                    cut, spent = 1, self.coverage[tests[0]]["seconds"]
                    while cut < len(tests) and \
                            spent + self.coverage[tests[cut]]["seconds"] <= self.first_pass_s:
                        spent += self.coverage[tests[cut]]["seconds"]
                        cut += 1
                    tests, rest[id(m)] = tests[:cut], tests[cut:]
                m.how = "code" if self.info[id(m)][3] else "import"
                budget = TIMEOUT_FACTOR * sum(self.coverage[t]["seconds"] for t in tests) \
                    + TIMEOUT_FLOOR_S[m.how]
                serial += 1
                report = self.tmp / f"mutant-{serial}.json"
                running[self._start(m, tests, items, report)] = (
                    m, time.perf_counter(), budget, report)
            time.sleep(0.02)
            for pid, (m, started, budget, report) in list(running.items()):
                done, status = os.waitpid(pid, os.WNOHANG)
                elapsed = time.perf_counter() - started
                if done == 0 and over_budget(cpu_seconds(pid), elapsed, budget):
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                    m.status, m.killer = "killed", "timeout"   # it hung: a kill
                elif done == 0:
                    continue
                else:
                    code = os.waitstatus_to_exitcode(status)
                    result = json.loads(report.read_text()) if report.exists() else {}
                    m.ran += result.get("ran", 0)
                    if code != 0:
                        m.status, m.killer = "killed", result.get("killer") or "error"
                        if m.killer != "error":
                            self._learn(m)
                    elif rest.get(id(m)):
                        second_pass.append((m, rest.pop(id(m))))
                        self.undecided.append(m)
                    else:
                        m.status = "survived"
                m.seconds += elapsed
                del running[pid]
                if m.status != "undecided":
                    self.progress(m)


def cpu_seconds(pid: int) -> float | None:
    """CPU seconds a live process has used (its threads and waited-for children), or None
    where /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # fields[0] is the state (stat's 3rd field): utime, stime, cutime, cstime are its 14th-17th
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def over_budget(cpu: float | None, wall: float, budget: float) -> bool:
    """Whether a mutant's child has outlived its budget: its CPU time past the budget (a
    loop), or its wall time past a far larger one (a sleep); wall alone where CPU is unknown."""
    if cpu is None:
        return wall > budget
    return cpu > budget or wall > WALL_FACTOR * budget + WALL_FLOOR_S


def baseline_cache(max_examples: int | None, tests: tuple[str, ...]) -> Path:
    """Where the traced baseline of this code and these tests is kept (var/mutate/): a second
    run over the same code and tests skips it."""
    import hashlib

    digest = hashlib.sha256(f"max_examples={max_examples}".encode())
    for path in [*sorted((ROOT / TARGET).glob("*.py")), *(ROOT / t for t in tests),
                 ROOT / "tests" / "conftest.py"]:
        digest.update(path.read_bytes())
    folder = ROOT / "var" / "mutate"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"baseline-{digest.hexdigest()[:16]}.json"


def build_demo(out: Path) -> None:
    code = ("import sys; sys.path.insert(0, '.'); from core.memory import Memory, "
            "demo_corpus_path\nwith Memory.open(sys.argv[1], create=True) as m: "
            "m.import_corpus(demo_corpus_path())")
    subprocess.run([sys.executable, "-c", code, str(out)], cwd=ROOT, check=True)


def warm() -> None:
    """Load once, before any fork, what every child would otherwise load itself."""
    from core.embedding.registry import get_embedder

    get_embedder()   # the model's weights
    for heavy in ("PySide6.QtWidgets", "hypothesis", "hypothesis.strategies",
                  "_hypothesis_pytestplugin", "anyio", "pytestqt.plugin"):
        try:
            importlib.import_module(heavy)
        except ImportError:
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the mutants only")
    parser.add_argument("--only", nargs="+", metavar="FILE:LINE",
                        help="the mutants of these lines (file name inside core/scoring)")
    parser.add_argument("--file", action="append",
                        help="only the mutants of this file of core/scoring (repeatable)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--sample", type=int, default=1,
                        help="run every Nth mutant only (deterministic: the Nth, 2Nth, … of the "
                             "full list), for a quicker estimate")
    parser.add_argument("--demo-db", type=Path,
                        help="a prebuilt demo memory (PULSE_TEST_DEMO_DB); built once otherwise")
    parser.add_argument("--first-pass-seconds", type=float, default=4.0,
                        help="the first pass gives each mutant its likeliest killers up to this "
                             "many baseline seconds; the rest of its tests run in the second")
    parser.add_argument("--max-examples", type=int,
                        help="property tests run at most this many generated examples (their "
                             "@example cases all run)")
    parser.add_argument("--tests", nargs="+", help="these test files instead of TESTS")
    parser.add_argument("--skip-tests-of", type=Path, metavar="BASELINE",
                        help="with --survivors-of: leave out the tests of that run's baseline "
                             "(var/mutate/baseline-*.json; every survivor passed them all), so "
                             "only the tests added since run")
    parser.add_argument("--json", type=Path, help="write every mutant's result here")
    parser.add_argument("--prior", type=Path, nargs="+", default=[],
                        help="earlier runs' --json: their killers are tried first")
    parser.add_argument("--prior-tree", type=Path, metavar="DIR",
                        help="the --prior runs were of the code in DIR (an export of that "
                             "commit): their mutants are matched to this code's by site "
                             "(site_of), so each one's earlier killer runs first")
    parser.add_argument("--survivors-of", type=Path, metavar="JSON", nargs="+",
                        help="a full run's --json (or runs over disjoint --file sets that "
                             "together cover every mutant): run only its survivors again "
                             "(tests added since; the code under test must not have changed) "
                             "and count the whole")
    parser.add_argument("--partial", action="store_true",
                        help="with --survivors-of: the runs did not decide every mutant; count "
                             "the decided ones (the table says how many per file)")
    parser.add_argument("--resume", type=Path, nargs="+", metavar="JSON",
                        help="a stopped run's --json: its decided mutants are kept and counted, "
                             "the rest run (same code and tests)")
    args = parser.parse_args(argv)

    files = sorted((ROOT / TARGET).glob("*.py"))
    mutants = [m for f in files for m in mutants_of(f)]
    if args.file:
        mutants = [m for m in mutants if Path(m.file).name in args.file]
    if args.sample > 1:
        mutants = mutants[args.sample - 1::args.sample]
    if args.only:
        lines = {(name, int(line)) for name, line in (x.split(":") for x in args.only)}
        mutants = [m for m in mutants if (Path(m.file).name, m.line) in lines]
    earlier: list[Mutant] = []
    prior = [row for path in args.prior for row in json.loads(path.read_text())]
    if args.prior_tree:
        for row in prior:     # their line numbers are not this code's: match them by site
            row["current"] = False
            if not row.get("site"):
                row["site"] = site_of(args.prior_tree / row["file"], Mutant(**{
                    k: v for k, v in row.items() if k != "current"}))
    if args.survivors_of:
        key = lambda m: (m.file, m.index, m.kind, m.before, m.after, m.line)  # noqa: E731
        decided: dict[tuple, Mutant] = {}
        for path in args.survivors_of:
            for row in json.loads(path.read_text()):
                if row["status"] not in ("killed", "survived"):
                    continue      # a stopped run's mutant still waiting for its second pass
                prior.append(row)
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
    if args.resume:
        key = lambda m: (m.file, m.index, m.kind, m.before, m.after, m.line)  # noqa: E731
        kept: dict[tuple, Mutant] = {}
        for path in args.resume:
            for row in json.loads(path.read_text()):
                if row["status"] in ("killed", "survived"):
                    kept[key(Mutant(**row))] = Mutant(**row)
        prior += [asdict(m) for m in kept.values()]
        earlier += [kept[key(m)] for m in mutants if key(m) in kept]
        mutants = [m for m in mutants if key(m) not in kept]
        print(f"{len(earlier)} decided in {' + '.join(map(str, args.resume))}; "
              f"{len(mutants)} to run", flush=True)
    if args.list:
        for m in mutants:
            print(f"{m.file}:{m.line} {m.kind} {m.before} → {m.after}")
        print(f"{len(mutants)} mutants")
        return 0
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    # bytecode caches on: an import-time mutant's child re-imports the modules that depend on
    # core/scoring and the tests (a mutant never leaves a .pyc behind: it is compiled from
    # memory)
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    started = time.perf_counter()
    cpu_started = time.process_time()
    done: list[Mutant] = []

    def progress(m: Mutant) -> None:
        done.append(m)
        mark = "." if m.status == "killed" else "S"
        how = f"{m.killer}" if m.status == "killed" else "all passed"
        print(f"{mark} [{len(done)}/{len(mutants)}] {m.file}:{m.line} {m.kind} {m.before} → "
              f"{m.after} ({m.how}; {m.ran} of {m.tests} tests, {m.seconds:.1f} s; {how})",
              flush=True)
        if args.json and len(done) % 5 == 0:
            waiting = [x for x in runner.undecided if x.status == "undecided"]
            args.json.write_text(json.dumps([asdict(x) for x in done + waiting], indent=1))

    with tempfile.TemporaryDirectory(prefix="pulse-mutate-") as tmp:
        tmp_path = Path(tmp)
        demo = args.demo_db
        if demo is None or not demo.is_file():
            demo = tmp_path / "demo.db"
            build_demo(demo)
        os.environ.update(PULSE_TEST_DEMO_DB=str(demo), QT_QPA_PLATFORM="offscreen")
        warm()
        runner = Runner(mutants, args.workers, tmp_path, prior, progress,
                        args.first_pass_seconds, args.max_examples)
        runner.tests = tuple(args.tests or TESTS)
        if args.skip_tests_of:
            if not args.survivors_of:
                parser.error("--skip-tests-of needs --survivors-of")
            runner.skip = set(json.loads(args.skip_tests_of.read_text())["tests"])
        import pytest

        pytest.main(["-q", "-s", "-p", "no:cacheprovider", "--rootdir", str(ROOT), *runner.tests],
                     plugins=[runner])
        if not runner.baseline_ok:
            return 1
    mutants = earlier + done
    if args.json:
        args.json.write_text(json.dumps([asdict(x) for x in mutants], indent=1))
    killed = [m for m in mutants if m.status == "killed"]
    timeouts = sum(m.killer == "timeout" for m in killed)
    wall = time.perf_counter() - started
    kids = os.times().children_user + os.times().children_system
    print(f"\n{len(killed)} of {len(mutants)} mutants killed "
          f"({len(killed) / max(len(mutants), 1):.1%}; {timeouts} of them by the time budget); "
          f"wall {wall:.0f} s, CPU of the parent {time.process_time() - cpu_started:.0f} s, CPU "
          f"of the children {kids:.0f} s")
    fresh = [m for m in done if m.status == "killed" and m.killer not in ("timeout", "error")]
    if fresh:
        print(f"killed by the first test tried: {sum(m.ran == 1 for m in fresh)} of "
              f"{len(fresh)}; mean seconds per mutant this run "
              f"{sum(m.seconds for m in done) / max(len(done), 1):.1f}")
    every = Counter(m.file for f in sorted((ROOT / TARGET).glob("*.py")) for m in mutants_of(f))
    by_file: dict[str, list[int]] = {f: [0, 0] for f in every}
    for m in mutants:
        by_file[m.file][0] += m.status == "killed"
        by_file[m.file][1] += 1
    print("\n| file | killed | decided | mutants |\n|---|---|---|---|")
    for f, (k, n) in sorted(by_file.items()):
        print(f"| {Path(f).name} | {k} | {n} | {every[f]} |")
    k, n = sum(v[0] for v in by_file.values()), sum(v[1] for v in by_file.values())
    print(f"| all | {k} | {n} | {sum(every.values())} |")
    survivors = [m for m in mutants if m.status == "survived"]
    if survivors:
        print("\nSurvivors:")
        for m in survivors:
            print(f"- {m.file}:{m.line} {m.kind} {m.before} → {m.after}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
