"""bench/mutants.py's site_of: an earlier run's mutant is matched to later code by its place,
not by its line number."""

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
