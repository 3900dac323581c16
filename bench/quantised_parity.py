"""LoCoMo ranked over int8 codes with the exact re-score (core/scoring/dense.py, what an index
above 50,000 rows uses) beside the float32 matrix, in the same run: the top 10 must be the same
events in the same order.

    PULSE_BENCH_CACHE=var/bench-cache nice .venv/bin/python bench/quantised_parity.py [--half all]

The LoCoMo memories are small (≈ 300–700 events each), so the int8 path is forced here
(QUANTISE_ROWS = 0), once with the float32 vectors in memory for the re-score and once reading
them from the memory file (as above 250,000 rows). Memories and query embeddings as
bench/locomo_quality.py (cached). Per question and scorer (pulse, dense), the top 10 ids are
compared; recall@5 / recall@10 / MRR of each run are printed side by side, and the scores'
largest difference.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import load_locomo  # noqa: E402
from locomo_quality import Bench, half_of, score_keys, summary  # noqa: E402

RUNS = {"float32 matrix": (10**12, 10**12), "int8 + exact re-score, vectors in memory": (0, 10**12),
        "int8 + exact re-score, vectors read from the file": (0, 0)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", default="all", choices=("all", "tune", "report"))
    args = ap.parse_args(argv)
    from core.scoring import index as index_module

    bench = Bench(half_of(load_locomo(), args.half))
    saved = index_module.QUANTISE_ROWS, index_module.FLOAT_ROWS
    runs: dict[str, dict[str, list]] = {}
    for label, (quantise_rows, float_rows) in RUNS.items():
        index_module.QUANTISE_ROWS, index_module.FLOAT_ROWS = quantise_rows, float_rows
        for _conv, _memory, engine in bench.items:
            engine._indexes.clear()
        runs[label] = {scorer: bench.results(scorer) for scorer in ("pulse", "dense")}
        for _conv, _memory, engine in bench.items:
            assert (engine.index().codes is not None) == (quantise_rows == 0)
    index_module.QUANTISE_ROWS, index_module.FLOAT_ROWS = saved
    base = runs["float32 matrix"]
    n = len(base["pulse"])
    print(f"LoCoMo ({args.half}), {n} questions, top 10.\n")
    print("| vectors | scorer | recall@5 | recall@10 | MRR | top 10 identical (ids, order) |"
          " largest score difference |\n|---|---|---|---|---|---|---|")
    failed = False
    for label, by_scorer in runs.items():
        for scorer, rows in by_scorer.items():
            s = summary([score_keys(q, [r["key"] for r in res]) for q, res in rows])["all"]
            same = sum([r["id"] for r in a] == [r["id"] for r in b]
                       for (_, a), (_, b) in zip(rows, base[scorer]))
            diff = max((abs(x["score"] - y["score"]) for (_, a), (_, b) in zip(rows, base[scorer])
                        for x, y in zip(a, b)), default=0.0)
            failed |= same != n
            print(f"| {label} | {scorer} | {s['r5']:.4f} | {s['r10']:.4f} | {s['rr']:.4f} |"
                  f" {same} of {n} | {diff:.1e} |")
    bench.close()
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
