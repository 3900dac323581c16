"""The fused (pulse) scorer on LoCoMo with its lexical side computed two ways in the same run:
FTS5's bm25() (how it ranked before issue 16) and the postings beside the index
(core/scoring/postings.py). Recall and every result list must be identical.

    PULSE_BENCH_CACHE=var/bench-cache nice .venv/bin/python bench/lexical_parity.py [--half all]

Memories and query embeddings as bench/locomo_quality.py (cached). Per question, both runs'
results (ids, scores and every term) are compared; recall@5 / recall@10 / MRR of both are
printed side by side, with the lexical channel's CPU time per question.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import load_locomo  # noqa: E402
from locomo_quality import Bench, half_of, score_keys, summary  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", default="all", choices=("all", "tune", "report"))
    args = ap.parse_args(argv)
    from core.scoring.postings import Postings

    bench = Bench(half_of(load_locomo(), args.half))
    original = Postings.search
    runs, cpu = {}, {}
    for label in ("FTS5 bm25()", "postings"):
        if label.startswith("FTS5"):
            Postings.search = lambda *a, **k: None          # the scorer falls back to FTS5
        else:
            Postings.search = original
        start = time.process_time()
        runs[label] = bench.results("pulse")
        cpu[label] = (time.process_time() - start) * 1000 / max(1, len(runs[label]))
    Postings.search = original
    a, b = runs["FTS5 bm25()"], runs["postings"]
    same = sum(ra == rb for (_, ra), (_, rb) in zip(a, b))
    print(f"LoCoMo ({args.half}), pulse scorer (the default), {len(a)} questions, top 10.\n")
    print("| lexical side | recall@5 | recall@10 | MRR | pulse CPU ms per question |"
          "\n|---|---|---|---|---|")
    for label, rows in runs.items():
        s = summary([score_keys(q, [r["key"] for r in res]) for q, res in rows])["all"]
        print(f"| {label} | {s['r5']:.4f} | {s['r10']:.4f} | {s['rr']:.4f} | {cpu[label]:.1f} |")
    print(f"\nIdentical result lists (ids, scores, every term): {same} of {len(a)}.")
    bench.close()
    if same != len(a):
        sys.exit(1)


if __name__ == "__main__":
    main()
