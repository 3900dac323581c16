"""One scorer's query latency on the synthetic memory, this checkout beside another (today's
code), in one run: the two alternate, a process each, so both see the same machine.

    PULSE_BENCH_CACHE=var/bench-cache nice .venv/bin/python bench/query_ab.py \
        --baseline /work/main [--events 100000] [--scorers dense,pulse] [--rounds 2] \
        [--baseline-cache <a copy of var/bench-cache, when this checkout's schema is newer>]

Each process opens the cached synthetic memory (bench/common.py), loads the index with one
query, warms up with 5 queries, then times 60 (bench/common.py's latency_pair: CPU and wall)
twice in a row — the first pass meets words the lexical side has not read yet, the second
mostly words it has. Both checkouts run with OPENBLAS_NUM_THREADS=1 (what the fronts ship: an
older bench/common.py loaded numpy before core could set it). The query vector is precomputed
(FixedQueryEmbedder), so only the scorer is timed; `--scorers e2e` times Memory.retrieve with
the real query embedding instead (a fresh Memory: pass 1 meets words new to it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1] + "/bench"); sys.path.insert(0, sys.argv[1])
import core  # noqa: F401  (sets the thread pools before numpy)
from common import (SYNTH_NOW, FixedQueryEmbedder, latency_pair, scorer_with,
                    synthetic_memory, synthetic_queries)
from core.memory import Memory
n, name = int(sys.argv[2]), sys.argv[3]
memory = Memory.open(synthetic_memory(n))
queries = synthetic_queries(65)
stub = FixedQueryEmbedder(memory.embedding_model)
drawn = {q: stub.embed_query(q) for q in ["load the index", *queries]}   # untimed, any tree
stub.embed_query = drawn.__getitem__
scorer = scorer_with(memory, stub)
one = lambda q: scorer.retrieve(Memory.request(q, scorer=name, top_k=10, now=SYNTH_NOW))
one("load the index")
for q in queries[:5]:
    one(q)
print(json.dumps([latency_pair(one, queries[5:]) for _ in range(2)]))
"""

# --e2e: Memory.retrieve with the real query embedding (the default scorer), as a front calls it
CHILD_E2E = """
import json, sys
sys.path.insert(0, sys.argv[1] + "/bench"); sys.path.insert(0, sys.argv[1])
import core  # noqa: F401  (sets the thread pools before numpy)
from common import SYNTH_NOW, latency_pair, synthetic_memory, synthetic_queries
from core.memory import Memory
n = int(sys.argv[2])
memory = Memory.open(synthetic_memory(n))
queries = synthetic_queries(65)
one = lambda q: memory.retrieve(q, now=SYNTH_NOW)
one("load the index and the model")
for q in queries[:5]:
    one(q)
passes = [latency_pair(one, queries[5:]) for _ in range(2)]
embed = memory.embedder().embed_query
print(json.dumps(passes + [latency_pair(embed, queries[5:])]))
"""


def run(tree: Path, events: int, scorer: str, cache: Path | None = None) -> list[dict]:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE")
    if cache is not None:                 # a copy of its own: an older schema
        env["PULSE_BENCH_CACHE"] = str(cache.resolve())
    elif "PULSE_BENCH_CACHE" in env:      # both read this checkout's cache (cwd differs)
        env["PULSE_BENCH_CACHE"] = str(Path(env["PULSE_BENCH_CACHE"]).resolve())
    child = CHILD_E2E if scorer == "e2e" else CHILD
    out = subprocess.run([sys.executable, "-c", child, str(tree), str(events), scorer],
                         env=env, cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="another checkout (today's code)")
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--scorers", default="dense,pulse",
                    help="scorers to time alone; e2e: Memory.retrieve with the query embedding"
                         " (the embedding alone is printed after)")
    ap.add_argument("--rounds", type=int, default=2, help="alternations per scorer")
    ap.add_argument("--baseline-cache", type=Path, default=None,
                    help="the baseline's own PULSE_BENCH_CACHE (a copy of the fixtures): this "
                         "checkout migrates a memory it opens, after which older code whose "
                         "schema is behind refuses it")
    args = ap.parse_args(argv)
    trees = {"baseline": Path(args.baseline).resolve(), "this": HERE}
    print(f"{args.events:,} synthetic events; CPU / wall p50 ms over 60 queries, two passes "
          f"per process (first: words new to the lexical side); {args.rounds} alternations.\n")
    print("| scorer | code | pass 1 CPU p50 | pass 2 CPU p50 | pass 2 wall p50 |")
    print("|---|---|---|---|---|")
    for scorer in args.scorers.split(","):
        got: dict[str, list[list[dict]]] = {k: [] for k in trees}
        for _ in range(args.rounds):
            for label, tree in trees.items():
                got[label].append(run(tree, args.events, scorer,
                                      args.baseline_cache if label == "baseline" else None))
        for label in trees:
            for r in got[label]:
                print(f"| {scorer} | {label} | {r[0]['cpu_p50']:.1f} | {r[1]['cpu_p50']:.1f} |"
                      f" {r[1]['p50']:.1f} |")
                if len(r) > 2:
                    print(f"| {scorer}: query embedding alone | {label} | | {r[2]['cpu_p50']:.1f}"
                          f" | {r[2]['p50']:.1f} |")
        mean = {k: sum(r[1]["cpu_p50"] for r in v) / len(v) for k, v in got.items()}
        print(f"| {scorer} | baseline / this (pass 2 CPU) | | {mean['baseline'] / mean['this']:.2f}×"
              f" | |")


if __name__ == "__main__":
    main()
