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

`--scorers boundary` times the topic-boundary gate (core/privacy/outside.py) on a copy of the
synthetic memory with a do_not_probe topic, "father funeral" (aliases "funeral hospital",
"папа умер"), linked to 100 events and to every event whose random words happen to name it
(149 of 100,000): so both checkouts withhold the same events, and the difference is the gate's
own cost (reading which events name the topic, and keeping that current). Each process works on a fresh copy (it re-words events) and reports: the gate's first read
(Memory.withheld_events, cold), the gate per question (60 queries), Memory.retrieve with the
gate (query vector precomputed, so the gate is a visible share), and the gate's first read
after an event is re-worded (20 edits, every other one naming the topic).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
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

# --boundary: the gate on a memory with a topic boundary (argv[4]: this run's working copy)
CHILD_BOUNDARY = """
import json, sys
sys.path.insert(0, sys.argv[1] + "/bench"); sys.path.insert(0, sys.argv[1])
import core  # noqa: F401  (sets the thread pools before numpy)
from common import (SYNTH_NOW, FixedQueryEmbedder, latency_pair, percentile, scorer_with,
                    synthetic_queries, timed_both)
from core.memory import Memory
memory = Memory.open(sys.argv[4])
queries = synthetic_queries(65)
stub = FixedQueryEmbedder(memory.embedding_model)
drawn = {q: stub.embed_query(q) for q in ["load the index", *queries]}   # untimed, any tree
stub.embed_query = drawn.__getitem__
memory._scorer = scorer_with(memory, stub)      # Memory.retrieve with the vector precomputed
wall, cpu, hidden = timed_both(lambda: memory.withheld_events(""))
cold = {"p50": wall, "cpu_p50": cpu, "withheld": len(hidden)}
gate = latency_pair(memory.withheld_events, queries[5:])
one = lambda q: memory.retrieve(q, now=SYNTH_NOW, top_k=10)
one("load the index")
for q in queries[:5]:
    one(q)
passes = [latency_pair(one, queries[5:]) for _ in range(2)]
edits = []
for i, (event_id,) in enumerate(memory.conn.execute(
        "SELECT id FROM events WHERE id % 97 = 3 ORDER BY id LIMIT 20").fetchall()):
    memory.edit_event_text(event_id, description=f"re-worded {i}" + (" father funeral" * (i % 2)))
    edits.append(timed_both(lambda: memory.withheld_events(""))[:2])
after = {"p50": percentile([w for w, _ in edits], 50),
         "cpu_p50": percentile([c for _, c in edits], 50)}
print(json.dumps([cold, gate, *passes, after]))
"""

BOUNDARY = {"key": "bench_topic", "name": "father funeral", "kind": "safety_boundary",
            "aliases": ["funeral hospital", "папа умер"], "do_not_probe": True}


def boundary_memory(events: int) -> Path:
    """The synthetic memory with the topic boundary (built once, cached beside it). Its links
    are written straight into event_entities, as the synthetic memory's own rows are
    (bench/common.py: a speed fixture, not a journaled memory)."""
    sys.path.insert(0, str(HERE / "bench"))
    from common import CACHE, synthetic_memory

    from core.memory import Memory
    from core.privacy.policy import Policies

    path = CACHE / f"synthetic-{events}-s0-topic.db"
    done = path.with_suffix(".ok")
    if not (path.exists() and done.exists()):
        shutil.copy(synthetic_memory(events), path)   # no connection to either file is open
        with Memory.open(path) as memory:
            memory.import_corpus({"format": "pulse-corpus/1", "entities": [BOUNDARY]})
            topic = memory.resolve_entity("bench_topic")
            step = max(1, events // 100)
            [person] = Policies.load(memory.conn, only=[topic]).people
            named = [(int(e), topic) for e, title, text in memory.conn.execute(
                "SELECT id, title, description FROM events")
                if person.named_in(title) or person.named_in(text)]
            memory.conn.execute(
                "INSERT INTO event_entities (event_id, entity_id, role) SELECT id, ?, ''"
                " FROM events WHERE id % ? = 7 LIMIT 100", (topic, step))
            memory.conn.executemany("INSERT OR IGNORE INTO event_entities (event_id, entity_id)"
                                    " VALUES (?, ?)", named)
        done.write_text("ok")
    return path


def run(tree: Path, events: int, scorer: str, cache: Path | None = None) -> list[dict]:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE")
    if cache is not None:                 # a copy of its own: an older schema
        env["PULSE_BENCH_CACHE"] = str(cache.resolve())
    elif "PULSE_BENCH_CACHE" in env:      # both read this checkout's cache (cwd differs)
        env["PULSE_BENCH_CACHE"] = str(Path(env["PULSE_BENCH_CACHE"]).resolve())
    child = {"e2e": CHILD_E2E, "boundary": CHILD_BOUNDARY}.get(scorer, CHILD)
    with tempfile.TemporaryDirectory(prefix="pulse-query-ab-") as work:
        copy = Path(work) / "memory.db"
        if scorer == "boundary":         # a fresh copy each run: the child re-words events
            shutil.copy(boundary_memory(events), copy)
        out = subprocess.run([sys.executable, "-c", child, str(tree), str(events), scorer,
                              str(copy)], env=env, cwd=tree, capture_output=True, text=True,
                             check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def print_boundary(got: dict[str, list[list[dict]]]) -> None:
    print("\n| boundary gate | code | wall p50 | CPU p50 |\n|---|---|---|---|")
    rows = (("gate, first read (cold)", 0), ("gate per question", 1),
            ("Memory.retrieve with the gate, pass 1", 2),
            ("Memory.retrieve with the gate, pass 2", 3),
            ("gate after an event is re-worded", 4))
    for label, at in rows:
        for code, runs in got.items():
            for r in runs:
                extra = f" ({r[0]['withheld']} events withheld)" if at == 0 else ""
                print(f"| {label}{extra} | {code} | {r[at]['p50']:.1f} | {r[at]['cpu_p50']:.1f} |")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="another checkout (today's code)")
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--scorers", default="dense,pulse",
                    help="scorers to time alone; e2e: Memory.retrieve with the query embedding"
                         " (the embedding alone is printed after); boundary: the topic-boundary"
                         " gate (see above)")
    ap.add_argument("--rounds", type=int, default=2, help="alternations per scorer")
    ap.add_argument("--baseline-cache", type=Path, default=None,
                    help="the baseline's own PULSE_BENCH_CACHE (a copy of the fixtures): this "
                         "checkout migrates a memory it opens, after which older code whose "
                         "schema is behind refuses it")
    args = ap.parse_args(argv)
    trees = {"baseline": Path(args.baseline).resolve(), "this": HERE}
    print(f"{args.events:,} synthetic events; CPU / wall p50 ms over 60 queries, two passes "
          f"per process (first: words new to the lexical side); {args.rounds} alternations.\n")
    if set(args.scorers.split(",")) - {"boundary"}:
        print("| scorer | code | pass 1 CPU p50 | pass 2 CPU p50 | pass 2 wall p50 |")
        print("|---|---|---|---|---|")
    for scorer in args.scorers.split(","):
        got: dict[str, list[list[dict]]] = {k: [] for k in trees}
        for _ in range(args.rounds):
            for label, tree in trees.items():
                got[label].append(run(tree, args.events, scorer,
                                      args.baseline_cache if label == "baseline" else None))
        if scorer == "boundary":
            print_boundary(got)
            continue
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
