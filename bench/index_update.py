"""The first query after a write, with the index updated in place (the change log, migration
010) and, side by side in the same run, with the full reload every write used to cost.

    PULSE_BENCH_CACHE=var/bench-cache nice .venv/bin/python bench/index_update.py \
        [--events 100000] [--pins 30] [--reloads 5]

On a working copy of the synthetic memory (bench/common.py; the cached file is not changed):
  after a pin     — Memory.pin on a different event each time, then one query: the refresh
                    (read the log, re-read one row) and the query, timed together;
  after an import — 100 LoCoMo turns imported through Memory.import_corpus (real embedding, not
                    timed), then the first query (re-read 100 rows, append them, relink the
                    conversational neighbours);
  full reload     — the same first query after dropping the cached index (what any write cost
                    before: every vector read again).
Queries are timed with the dense and the default (pulse) scorer; the query vector is
precomputed (bench/common.py's FixedQueryEmbedder), so the query embedding is not in the time.
Also reported: the query alone with the index current, so what the update adds is visible.
Wall and CPU time (ms) of this process; p50 and p95.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402
    SYNTH_NOW,
    VOCABULARY,
    FixedQueryEmbedder,
    latency_summary,
    load_locomo,
    locomo_corpus,
    peak_rss_mb,
    percentile,
    scorer_with,
    synthetic_memory,
    synthetic_queries,
    timed_both,
)

TARGETS_MS = {"pin": 50.0, "import": 150.0}        # at 100k (issue 16)
TARGETS_1M_MS = {"pin": None, "import": 300.0}      # at 1M: the import only


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def summary(pairs: list[tuple[float, float]]) -> dict[str, float]:
    s = latency_summary([w for w, _ in pairs])
    s.update(cpu_p50=percentile([c for _, c in pairs], 50),
             cpu_p95=percentile([c for _, c in pairs], 95))
    return s


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--pins", type=int, default=30, help="pins timed per scorer")
    ap.add_argument("--imports", type=int, default=3, help="imports of 100 events timed")
    ap.add_argument("--reloads", type=int, default=5, help="full reloads timed per scorer")
    args = ap.parse_args(argv)
    from core.memory import Memory

    source = synthetic_memory(args.events, log=log)
    work = Path(tempfile.mkdtemp(prefix="pulse-index-update-")) / "memory.db"
    shutil.copy(source, work)         # no connection to either file is open here yet
    memory = Memory.open(work)
    queries = synthetic_queries(400, seed=5)
    scorer = scorer_with(memory, FixedQueryEmbedder(memory.embedding_model, texts=queries))
    cache = scorer._indexes
    cache.snapshots = False        # the reloads below are full loads (bench/index_snapshot.py)
    turns = [t for conv in load_locomo() for t in locomo_corpus(conv)["events"]]
    memory.embedder().embed_query("load the model")     # model load is not import time
    q = iter(queries)

    def query(name: str) -> None:
        scorer.retrieve(Memory.request(next(q), scorer=name, top_k=10, now=SYNTH_NOW))

    rng_ids = [r[0] for r in memory.conn.execute(
        "SELECT id FROM events WHERE belief_class = 'operational' ORDER BY id")]
    pick = iter(rng_ids[:: max(1, len(rng_ids) // (4 * args.pins + 10))])
    out: dict = {"events": args.events}
    t, c, _ = timed_both(lambda: query("dense"))
    out["cold_load"] = {"wall": t, "cpu": c}
    for name in ("dense", "pulse"):
        # warm up, every word of the vocabulary asked once (the lexical side keeps a word's
        # postings after its first query: bench/speed.py reports cold words separately)
        scorer.retrieve(Memory.request(" ".join(VOCABULARY), scorer=name, now=SYNTH_NOW))
        for _ in range(3):
            query(name)
        out[f"query_{name}"] = summary([timed_both(lambda name=name: query(name))[:2] for _ in range(30)])
        pins = []
        for _ in range(args.pins):
            memory.pin(next(pick))
            pins.append(timed_both(lambda name=name: query(name))[:2])
        out[f"pin_{name}"] = summary(pins)
        reloads = []
        for _ in range(args.reloads):
            memory.pin(next(pick))
            cache.clear()                                 # what every write cost before
            reloads.append(timed_both(lambda name=name: query(name))[:2])
        out[f"reload_{name}"] = summary(reloads)
        log(f"  {name}: after a pin p50 {out[f'pin_{name}']['p50']:.1f} ms, full reload "
            f"p50 {out[f'reload_{name}']['p50']:.0f} ms")
    loads_before = cache.full_loads
    for name in ("dense", "pulse"):
        imports = []
        for i in range(args.imports):
            chunk = turns[:100]
            turns = turns[100:]
            memory.import_corpus({"format": "pulse-corpus/1", "events": [
                dict(e, key=f"{e['key']}:{name}{i}") for e in chunk]})
            imports.append(timed_both(lambda name=name: query(name))[:2])
        out[f"import_{name}"] = summary(imports)
        log(f"  {name}: after importing 100 events p50 {out[f'import_{name}']['p50']:.1f} ms")
    out["import_full_loads"] = cache.full_loads - loads_before
    out["peak_rss_mb"] = peak_rss_mb()
    memory.close()
    shutil.rmtree(work.parent, ignore_errors=True)

    print(f"{args.events:,} synthetic events (dim 384); top_k 10; query vector precomputed; ms.")
    print("\n| first query after … | scorer | wall p50 | wall p95 | CPU p50 | CPU p95 | n |"
          " target |\n|---|---|---|---|---|---|---|---|")
    targets = TARGETS_MS if args.events < 1_000_000 else TARGETS_1M_MS
    for name in ("dense", "pulse"):
        for label, key, target in (
                ("nothing (query alone)", f"query_{name}", None),
                ("a pin, in place", f"pin_{name}", targets["pin"]),
                ("a pin, full reload (before)", f"reload_{name}", None),
                ("importing 100 events, in place", f"import_{name}", targets["import"])):
            s = out[key]
            mark = "" if target is None else (
                f"≤ {target:g}: wall {'✓' if s['p50'] <= target else '✗'},"
                f" CPU {'✓' if s['cpu_p50'] <= target else '✗'}")
            print(f"| {label} | {name} | {s['p50']:.1f} | {s['p95']:.1f} | {s['cpu_p50']:.1f} |"
                  f" {s['cpu_p95']:.1f} | {s['n']} | {mark} |")
    ratio = out["reload_dense"]["cpu_p50"] / out["pin_dense"]["cpu_p50"]
    print(f"\nAfter a pin, in place vs full reload (dense, CPU p50): {ratio:.0f}× less. Full "
          f"reloads during the imports: {out['import_full_loads']}. Cold load (first query): "
          f"{out['cold_load']['wall']:.0f} ms wall, {out['cold_load']['cpu']:.0f} ms CPU. "
          f"Peak RSS {out['peak_rss_mb']:.0f} MB.")
    print("\n(raw JSON)\n" + json.dumps(out))


if __name__ == "__main__":
    main()
