"""How far could choosing among the scorers go? On the empathic TUNING half only, each mood +
body query's recall@3 under pulse, pulse without its state channel (κ 0), dense and cosine,
and the per-query best of the four: an oracle that knows the labels and picks the scorer after
the fact. No real selection rule can beat that ceiling with these signals.

    PULSE_BENCH_CACHE=… nice .venv/bin/python bench/state_ceiling.py [--category mood_body]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from empathic_bench import EmpathicBench, load_queries  # noqa: E402

VARIANTS = (("pulse", "pulse", None), ("κ 0", "pulse", {"state_weight": 0.0}),
            ("dense", "dense", None), ("cosine", "cosine", None))


def recall3(out: dict, ideal: list[str]) -> float:
    top = [r["key"] for r in out["results"][:3]]
    return sum(k in top for k in ideal) / len(ideal)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--category", default="mood_body")
    args = parser.parse_args(argv)
    doc = load_queries()
    queries = [q for q in doc["queries"] if q["half"] == "tune" and q["category"] == args.category]
    bench = EmpathicBench(doc)
    table = np.array([[recall3(bench.run(q, scorer, settings), q["ideal"])
                       for _, scorer, settings in VARIANTS] for q in queries])
    bench.close()
    names = [label for label, _, _ in VARIANTS] + ["best of the four"]
    print(f"{'query':<24}" + "".join(f"{n:>18}" for n in names))
    for q, row in zip(queries, table):
        print(f"{q['id']:<24}" + "".join(f"{v:>18.2f}" for v in [*row, row.max()]))
    print(f"{f'mean (n={len(queries)})':<24}"
          + "".join(f"{v:>18.3f}" for v in [*table.mean(axis=0), table.max(axis=1).mean()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
