"""The decided mutants of today's code, from several runs' json (bench/mutate.py --json).

    .venv/bin/python bench/mutate_combine.py var/mutate/combined.json RUN.json [RUN.json …]

A row counts when its key (file, site, change, line) is a mutant of today's core/scoring:
where code moved since a run, its mutants there ran again in a later one. Later files win.
Writes the rows to the first path (for `bench/mutate.py --survivors-of … --partial`) and
prints the per-file table of killed / decided / mutants."""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mutants import ROOT, TARGET, mutants_of  # noqa: E402


def key(row: dict) -> tuple:
    return row["file"], row["index"], row["kind"], row["before"], row["after"], row["line"]


def main(argv: list[str]) -> int:
    out, runs = Path(argv[0]), argv[1:]
    current = {key(m.__dict__) for f in sorted((ROOT / TARGET).glob("*.py"))
               for m in mutants_of(f)}
    rows: dict[tuple, dict] = {}
    for path in runs:
        for row in json.loads(Path(path).read_text()):
            if row["status"] in ("killed", "survived") and key(row) in current:
                rows[key(row)] = row
    out.write_text(json.dumps(list(rows.values())))
    per: dict[str, Counter] = defaultdict(Counter)
    for k in current:
        per[Path(k[0]).name]["mutants"] += 1
    for k, row in rows.items():
        per[Path(k[0]).name][row["status"]] += 1
    total: Counter = Counter()
    print("| file | killed | decided | mutants |\n|---|---|---|---|")
    for name in sorted(per):
        c = per[name]
        total.update(c)
        print(f"| {name} | {c['killed']} | {c['killed'] + c['survived']} | {c['mutants']} |")
    print(f"| all | {total['killed']} | {total['killed'] + total['survived']} | "
          f"{total['mutants']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
