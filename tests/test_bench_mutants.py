"""bench/mutants.py's site_of: an earlier run's mutant is matched to later code by its place,
not by its line number."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from mutants import mutants_of, site_of  # noqa: E402

CODE = '''\
LIMIT = 3


def clipped(x, low=0):
    if x > LIMIT:
        return LIMIT
    return max(x, low) + 1
'''


def _sites(path: Path) -> list[str]:
    return [site_of(path, m) for m in mutants_of(path)]


def test_a_site_survives_lines_added_above_it(tmp_path):
    before = tmp_path / "before.py"
    before.write_text(CODE)
    after = tmp_path / "after.py"
    after.write_text("import os\n\n\ndef unrelated():\n    return os.sep\n\n\n" + CODE)
    old, new = _sites(before), _sites(after)
    assert len(set(old)) == len(old)            # every mutant of the file has its own site
    assert set(old) <= set(new)
    moved = {site_of(after, m): m.line for m in mutants_of(after)}
    assert all(moved[s] == m.line + 7 for s, m in zip(old, mutants_of(before)))


def test_a_changed_statement_is_a_new_site(tmp_path):
    before = tmp_path / "before.py"
    before.write_text(CODE)
    after = tmp_path / "after.py"
    after.write_text(CODE.replace("max(x, low) + 1", "max(x, low) + 2"))
    old, new = set(_sites(before)), set(_sites(after))
    changed = [s for s in old - new]
    assert changed and all(s.startswith("clipped|") for s in changed)
    # the other statements keep their sites
    assert {s for s in old if "|" in s} - set(changed) <= new


def test_import_time_code_is_named_as_such(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(CODE)
    sites = _sites(path)
    assert any(s.startswith("<import>|") for s in sites)   # LIMIT = 3 and the default low=0
    assert any(s.startswith("clipped|") for s in sites)


# -- the runner's time budget: CPU seconds, so a busy or paused machine kills no mutant ---------

def test_a_child_that_waits_uses_no_cpu_budget_and_one_that_loops_does():
    import subprocess
    import time

    from mutate import cpu_seconds, over_budget

    waiting = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    looping = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        started = time.monotonic()
        while (cpu_seconds(looping.pid) or 0.0) <= 1.0 and time.monotonic() - started < 30:
            time.sleep(0.1)      # the machine may be busy: wait for the loop's CPU second
        wall = time.monotonic() - started
        waited, looped = cpu_seconds(waiting.pid), cpu_seconds(looping.pid)
        assert waited is not None and looped is not None
        assert waited < 0.5 and looped > 1.0
        # a budget of 1 s: the loop is over it; the wait, as long on the wall clock, is not
        assert over_budget(looped, wall, 1.0)
        assert not over_budget(waited, wall, 1.0)
    finally:
        for p in (waiting, looping):
            p.kill()
            p.wait()
    assert cpu_seconds(looping.pid) is None         # gone: nothing to tell


def test_the_wall_clock_still_ends_a_child_that_sleeps_forever():
    from mutate import WALL_FACTOR, WALL_FLOOR_S, over_budget

    budget = 20.0
    limit = WALL_FACTOR * budget + WALL_FLOOR_S
    assert not over_budget(0.1, limit, budget)
    assert over_budget(0.1, limit + 1, budget)
    assert over_budget(None, budget + 1, budget)     # no /proc: wall time is all there is
    assert not over_budget(None, budget, budget)


def test_combining_runs_keeps_only_todays_mutants_and_the_later_verdict(tmp_path, capsys):
    from dataclasses import asdict

    from mutants import ROOT, TARGET
    from mutate_combine import main as combine

    today = mutants_of(ROOT / TARGET / "evidence.py")[:3]
    rows = [asdict(m) for m in today]
    for row in rows:
        row["status"] = "survived"
    moved = dict(rows[0], line=rows[0]["line"] + 1000)       # a mutant of older code
    later = [dict(rows[1], status="killed", killer="tests/x.py::t")]
    undecided = [dict(rows[2], status="undecided")]
    first, second, out = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    first.write_text(json.dumps(rows[:2] + [moved]))
    second.write_text(json.dumps(later + undecided))
    assert combine([str(out), str(first), str(second)]) == 0
    got = {(r["line"], r["index"]): r["status"] for r in json.loads(out.read_text())}
    assert got == {(rows[0]["line"], rows[0]["index"]): "survived",
                   (rows[1]["line"], rows[1]["index"]): "killed"}
    table = capsys.readouterr().out
    assert "| evidence.py | 1 | 2 |" in table
