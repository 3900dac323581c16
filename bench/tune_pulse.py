"""Tune the pulse scorer's constants on the tuning halves only, jointly for facts and feelings:
LoCoMo conversations 0-4 (recall@5) and the tuning half of the empathic benchmark (recall@3,
the queries without chain mode).

    nice .venv/bin/python bench/tune_pulse.py            # the grid, best first
    nice .venv/bin/python bench/tune_pulse.py --top 30

Each query's full candidate breakdown is retrieved once through the real scorer (every candidate
returned), then the scorer's formula is re-applied for each point of the grid:
    relevance = w·dense_relevance + (1−w)·bm25_norm            (dropped when ≤ 0)
    score     = relevance · (α + (1−α)·recency_eff) · (1 + β·emotion_sim) · (1 + γ·state_fit)
                · anchor · (1 + δ·date_proximity)
with the anchor boost re-decided among the top 8 by base. The mood hint changes the query's
embedding, so the empathic queries are retrieved twice (hint on, hint off). The objective is
the mean of the two recalls; the winner is then checked with the real scorer by
bench/empathic_bench.py and bench/locomo_quality.py (the re-fusion reproduces the scorer at the
settings it was dumped with: checked below).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import event_key, load_locomo, locomo_now  # noqa: E402
from empathic_bench import EmpathicBench, load_queries  # noqa: E402
from locomo_quality import Bench, half_of  # noqa: E402

B0, G0, D0, ANCHOR, W0, A0 = 0.15, 0.15, 0.25, 0.05, 0.45, 0.5  # the dumps' own constants
# every candidate of a top_k 10 query, scored with fixed reference constants (the re-fusion
# divides them back out), without conversation context (tuned after, by real runs)
DUMP = {"candidates_min": 100, "candidates_per_k": 0, "beta_emotion": B0, "gamma_state": G0,
        "delta_date": D0, "delta_anchor": ANCHOR, "hybrid_dense_weight": W0, "alpha": A0,
        "mood_hint": True, "hint_gate": 0.5, "anchor_top": 8, "context_weight": 0.0}
HINT_OFF = {"mood_hint": False}
GRID = {
    "w": (0.3, 0.45, 0.6, 0.75),
    "alpha": (0.5, 0.75, 1.0),
    "beta": (0.15, 0.5, 1.0),
    "gamma": (0.15, 0.5, 1.0),
    "delta": (0.25, 1.0, 2.0),
    "hint": (True, False),
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def arrays(results: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    t = [r["terms"] for r in results]
    return {
        "keys": np.array([r["key"] for r in results], dtype=object),
        "ids": np.array([r["id"] for r in results], dtype=np.int64),
        "dense": np.array([x["dense_relevance"] for x in t]),
        "lex": np.array([x["bm25_norm"] for x in t]),
        "rec": np.array([x["recency_eff"] for x in t]),
        "emo": np.array([(x["emotion"] - 1) / B0 for x in t]),
        "fit": np.array([(x["state"] - 1) / G0 for x in t]),
        "date": np.array([(x["date"] - 1) / D0 for x in t]),
        "flag": np.array([r["user_flag"] for r in results], dtype=bool),
    }


def rank(a: dict[str, np.ndarray], w: float, alpha: float, beta: float, gamma: float,
         delta: float, k: int) -> list[str]:
    rel = w * a["dense"] + (1 - w) * a["lex"]
    keep = rel > 0
    if not keep.any():
        return []
    rel, ids, keys = rel[keep], a["ids"][keep], a["keys"][keep]
    base = rel * (alpha + (1 - alpha) * a["rec"][keep])
    anchor = np.ones_like(base)
    flag = a["flag"][keep]
    if flag.any():
        top = np.lexsort((ids, -base))[:8]
        anchor[top] = np.where(flag[top], 1 + ANCHOR, 1.0)
    score = (base * (1 + beta * a["emo"][keep]) * (1 + gamma * a["fit"][keep]) * anchor
             * (1 + delta * a["date"][keep]))
    order = np.lexsort((ids, -score))[:k]
    return list(keys[order])


def empathic_dumps() -> dict[bool, list[tuple[dict, dict]]]:
    doc = load_queries()
    queries = [q for q in doc["queries"] if q["half"] == "tune" and not q.get("chain")]
    bench = EmpathicBench(doc)
    out: dict[bool, list] = {}
    for hint in (True, False):
        settings = DUMP if hint else DUMP | HINT_OFF
        rows = []
        for q in queries:
            res = bench.run(q, "pulse", settings, abstain=False, top_k=1000)
            rows.append((q, arrays(res["results"])))
        out[hint] = rows
    bench.close()
    return out


def locomo_dump(swap: bool) -> list[tuple[dict, dict]]:
    from core.memory import Memory

    bench = Bench(half_of(load_locomo(), "tune", swap))
    rows = []
    for conv, _memory, engine in bench.items:
        now = locomo_now(conv)
        for q in conv["questions"]:
            res = engine.retrieve(Memory.request(q["question"], top_k=1000, scorer="pulse",
                                                 now=now, settings=DUMP, abstain=False))
            wanted = [event_key(conv["sample_id"], e) for e in q["evidence"]]
            rows.append((wanted, arrays(res["results"])))
    bench.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--swap", action="store_true",
                        help="tune on LoCoMo conversations 5-9 instead (the reverse check)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    emp = empathic_dumps()
    loc = locomo_dump(args.swap)
    log(f"  dumped {len(emp[True])} empathic and {len(loc)} LoCoMo queries "
        f"({time.perf_counter() - start:.0f} s)")

    # the re-fusion reproduces the dumps' own ranking at the dumps' constants
    for _, a in emp[True] + emp[False] + loc:
        assert rank(a, W0, A0, B0, G0, D0, 10) == list(a["keys"][:10]), \
            "the re-fusion does not reproduce the scorer"

    rows = []
    names = list(GRID)
    locomo: dict[tuple, float] = {}
    for point in itertools.product(*GRID.values()):
        p = dict(zip(names, point))
        args5 = (p["w"], p["alpha"], p["beta"], p["gamma"], p["delta"])
        e = float(np.mean([sum(k in rank(a, *args5, 3) for k in q["ideal"]) / len(q["ideal"])
                           for q, a in emp[p["hint"]]]))
        if args5 not in locomo:  # LoCoMo has no mood: the hint never opens there
            locomo[args5] = float(np.mean([sum(k in rank(a, *args5, 5) for k in wanted)
                                           / len(wanted) for wanted, a in loc]))
        lo = locomo[args5]
        rows.append(((e + lo) / 2, e, lo, p))
    rows.sort(key=lambda r: (-r[0], -r[1]))
    print(f"Grid on the tuning halves ({len(emp[True])} empathic queries without chain mode, "
          f"{len(loc)} LoCoMo questions of conversations {'5-9' if args.swap else '0-4'}); "
          f"objective = mean of the two.\n")
    print("| rank | objective | empathic recall@3 | LoCoMo recall@5 | w | α | β | γ | δ_date | hint |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for i, (obj, e, lo, p) in enumerate(rows[: args.top], start=1):
        print(f"| {i} | {obj:.4f} | {e:.3f} | {lo:.3f} | {p['w']} | {p['alpha']} | {p['beta']} | "
              f"{p['gamma']} | {p['delta']} | {'on' if p['hint'] else 'off'} |")
    current = next(r for r in rows if r[3] == {"w": W0, "alpha": A0, "beta": B0, "gamma": G0,
                                               "delta": D0, "hint": True})
    print(f"\nENGINE.md's constants (w {W0}, α {A0}, β {B0}, γ {G0}, δ {D0}, hint on): objective {current[0]:.4f} (empathic {current[1]:.3f}, "
          f"LoCoMo {current[2]:.3f}), rank {rows.index(current) + 1} of {len(rows)}")
    print(f"[{time.perf_counter() - start:.0f} s]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
