"""Cold index load from the index snapshot beside the full load, in one run (issue 16, item 3).

    PULSE_BENCH_CACHE=var/bench-cache nice -n 15 .venv/bin/python bench/index_snapshot.py \
        --sizes 100000,1000000 [--changes 1000]

For each synthetic memory (bench/common.py; the file gets migration 011 and its snapshot), each
step in its own process, so every peak RSS is that step's:
  full      — load_index(): every row through SQLite and Python (what a cold start did before),
              then the snapshot is written from that index (its cost, the bytes it takes);
  snapshot  — a cold start: Scorer.index() reads the snapshot (nothing changed since);
  + log     — `--changes` events pinned after the snapshot (through Memory, so in the change
              log), then a cold start again: the snapshot plus those rows from the log;
and each step's arrays are hashed, so the report says whether the snapshot loads hold exactly
the rows of a full load of the same memory (the full load is repeated after the changes).
CPU time (all threads of the process) beside wall time; the page cache is warm (the machine is
shared; it is not dropped).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import peak_rss_mb, synthetic_memory, timed_both  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = {1_000_000: 5.0}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def digest(index) -> str:
    """A hash of every live row (ids, columns, codes, neighbours as ids): equal for two loads
    that hold the same rows. Hashed in place, a block at a time (no copy of the index)."""
    import numpy as np

    from core.scoring.quantised import BLOCK

    h = hashlib.sha256()
    n = len(index)
    for name in sorted(index._buf):
        if name in ("prev_row", "next_row"):
            rows = getattr(index, name)
            h.update(np.where(rows >= 0, index.ids[np.maximum(rows, 0)], -1))
        elif name != "live":
            h.update(np.ascontiguousarray(index._buf[name][:n]))
    if index.codes is not None:
        for b, lo in enumerate(range(0, n, BLOCK)):
            h.update(np.ascontiguousarray(index.codes.blocks[b][:, : min(BLOCK, n - lo)]))
    return h.hexdigest()


def step(path: Path, what: str, changes: int) -> dict:
    from core.memory import Memory
    from core.scoring.index import load_index

    out: dict = {"step": what}
    memory = Memory.open(path)
    if what in ("full", "full-only"):
        wall, cpu, index = timed_both(lambda: load_index(memory.conn, memory.embedding_model))
        out |= {"wall_s": wall / 1000, "cpu_s": cpu / 1000, "rss_mb": peak_rss_mb(),
                "rows": len(index)}
    if what == "full":
        memory.scorer._indexes._by_model[memory.embedding_model] = index
        wall, cpu, saved = timed_both(memory.save_index_snapshot)
        out |= {"write_wall_s": wall / 1000, "write_cpu_s": cpu / 1000,
                "snapshot_mb": saved["bytes"] / 2**20, "rss_after_write_mb": peak_rss_mb()}
    if what in ("full", "full-only"):
        out["digest"] = digest(index)
    elif what == "change":
        ids = [r[0] for r in memory.conn.execute(       # each pin a real change, every run
            "SELECT id FROM events WHERE user_flag = 0 ORDER BY id LIMIT ?", (changes,))]
        for event_id in ids:
            memory.pin(event_id)
        out["changed"] = len(ids)
    elif what == "snapshot":
        cache = memory.scorer._indexes
        wall, cpu, index = timed_both(memory.scorer.index)
        out |= {"wall_s": wall / 1000, "cpu_s": cpu / 1000, "rss_mb": peak_rss_mb(),
                "rows": len(index), "from_snapshot": cache.snapshot_loads == 1,
                "digest": digest(index)}
    memory.conn.close()            # not Memory.close(): no snapshot written behind our back
    return out


def run(path: Path, what: str, changes: int) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--one", str(path), "--step", what,
                           "--changes", str(changes)], stdout=subprocess.PIPE, text=True,
                          check=True, cwd=ROOT)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--changes", type=int, default=1000,
                        help="events changed after the snapshot for the '+ log' step")
    parser.add_argument("--quick", action="store_true", help="10,000 events (int8 forced off)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--step", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(step(Path(args.one), args.step, args.changes)))
        return
    sizes = [10_000] if args.quick else [int(s) for s in args.sizes.split(",") if s.strip()]
    results = []
    for n in sizes:
        path = synthetic_memory(n, log=log)
        log(f"size {n:,}: {path}")
        r = {"events": n, "full": run(path, "full", 0)}
        log(f"  full load {r['full']['cpu_s']:.1f} s CPU; snapshot written in"
            f" {r['full']['write_cpu_s']:.1f} s CPU ({r['full']['snapshot_mb']:.0f} MB)")
        r["snapshot"] = run(path, "snapshot", 0)
        log(f"  from the snapshot {r['snapshot']['cpu_s']:.2f} s CPU")
        run(path, "change", args.changes)
        r["log"] = run(path, "snapshot", 0)
        log(f"  snapshot + {args.changes} changes {r['log']['cpu_s']:.2f} s CPU")
        r["full_after"] = run(path, "full-only", 0)
        results.append(r)
    print("Cold index load (first Scorer.index() of a process), synthetic memories, warm page"
          " cache; each row its own process.\n")
    print("| events | load | CPU s | wall s | peak RSS MB | rows | same rows as a full load |"
          " target (CPU) |\n|---|---|---|---|---|---|---|---|")
    for r in results:
        full, snap, after, full_after = r["full"], r["snapshot"], r["log"], r["full_after"]
        target = TARGET_S.get(r["events"])
        print(f"| {r['events']:,} | full (every row through SQLite and Python) |"
              f" {full['cpu_s']:.2f} | {full['wall_s']:.2f} | {full['rss_mb']:.0f} |"
              f" {full['rows']:,} | — | |")
        for label, s in (("snapshot", snap), (f"snapshot + log of {args.changes} changed events",
                                              after)):
            mark = "" if target is None else f"≤ {target:g} s: {'✓' if s['cpu_s'] <= target else '✗'}"
            same = "✓" if s["digest"] == (full if s is snap else full_after)["digest"] else "✗"
            print(f"| {r['events']:,} | {label}{'' if s['from_snapshot'] else ' (NOT used)'} |"
                  f" {s['cpu_s']:.2f} | {s['wall_s']:.2f} | {s['rss_mb']:.0f} | {s['rows']:,} |"
                  f" {same} | {mark} |")
        print(f"| {r['events']:,} | full, after the changes |"
              f" {full_after['cpu_s']:.2f} | {full_after['wall_s']:.2f} |"
              f" {full_after['rss_mb']:.0f} | {full_after['rows']:,} | — | |")
    for r in results:
        full = r["full"]
        print(f"\n{r['events']:,}: writing the snapshot took {full['write_cpu_s']:.2f} s CPU"
              f" ({full['write_wall_s']:.2f} s wall) and {full['snapshot_mb']:.0f} MB in the file;"
              f" peak RSS of that process {full['rss_after_write_mb']:.0f} MB.")
    print("\n(raw JSON)")
    for r in results:
        print(json.dumps(r))


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    main()
