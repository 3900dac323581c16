"""Abstention ("nothing relevant"): calibrate its thresholds on LoCoMo's tuning half and measure
them on the report half.

    nice .venv/bin/python bench/abstention.py            # calibrate on 0-4, report on 5-9
    nice .venv/bin/python bench/abstention.py --swap     # calibrate on 5-9, report on 0-4
    nice .venv/bin/python bench/abstention.py --quick    # two conversations per half

Own questions: each conversation's questions against its own memory (they should answer).
Foreign questions: each conversation's questions against every other memory of the same half
(nothing should answer: different people, different lives). For every pair the real scorer
(`pulse`, abstention off) returns the evidence it decides on — the best raw cosine and the
query's term coverage — and, for own questions, recall@5.

A rule abstains when max_cosine < τ_cos AND term_coverage < τ_cov. On the tuning half the grid
picks the rule that abstains on the most foreign questions while own recall@5 drops by at most
--budget (0.01, half the target's 0.02); the report half then measures that rule. The empathic
benchmark's own queries are checked too (each abstention there is a miss).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import event_key, load_locomo, locomo_now  # noqa: E402
from locomo_quality import Bench, half_of  # noqa: E402

TAU_COS = tuple(round(0.78 + 0.005 * i, 3) for i in range(31))        # 0.78 … 0.93
TAU_COV = tuple(round(0.05 * i, 2) for i in range(21))                 # 0 … 1


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def collect(convs: list[dict]) -> tuple[list[dict], list[dict]]:
    """(own rows, foreign rows): evidence per question and memory; recall@5 for own."""
    from core.memory import Memory

    bench = Bench(convs)
    own, foreign = [], []
    for conv, _memory, engine in bench.items:
        now = locomo_now(conv)
        for source in convs:
            for q in source["questions"]:
                out = engine.retrieve(Memory.request(q["question"], top_k=5, now=now,
                                                     abstain=False))
                ev = out["evidence"]
                row = {"cos": ev["max_cosine"], "cov": ev["term_coverage"], "words": ev["words"]}
                if source is conv:
                    wanted = [event_key(conv["sample_id"], e) for e in q["evidence"]]
                    keys = [r["key"] for r in out["results"]]
                    row["r5"] = sum(w in keys for w in wanted) / len(wanted)
                    own.append(row)
                else:
                    foreign.append(row)
        log(f"  {conv['sample_id']}: done")
    bench.close()
    return own, foreign


def rule_abstains(r: dict, tau_cos: float, tau_cov: float) -> bool:
    """The rule of core/scoring/evidence.py (a query of function words only never abstains)."""
    return r["cos"] < tau_cos and r["words"] > 0 and r["cov"] < tau_cov


def measure(own: list[dict], foreign: list[dict], tau_cos: float, tau_cov: float
            ) -> tuple[float, float, float]:
    """(foreign abstention rate, own abstention rate, own recall@5 lost)."""
    def abstains(r: dict) -> bool:
        return rule_abstains(r, tau_cos, tau_cov)

    lost = sum(r["r5"] for r in own if abstains(r)) / len(own)
    return (float(np.mean([abstains(r) for r in foreign])),
            float(np.mean([abstains(r) for r in own])), lost)


def calibrate(own: list[dict], foreign: list[dict], empathic: list[dict], budget: float,
              empathic_budget: int) -> tuple[float, float, tuple[float, float, float]]:
    best = None
    for tc in TAU_COS:
        for tv in TAU_COV:
            f, o, lost = measure(own, foreign, tc, tv)
            if lost > budget or sum(rule_abstains(r, tc, tv) for r in empathic) > empathic_budget:
                continue
            key = (f, -lost, -tc, -tv)   # most foreign abstentions, then least lost, then lowest
            if best is None or key > best[0]:
                best = (key, tc, tv, (f, o, lost))
    assert best is not None
    return best[1], best[2], best[3]


OFF_TOPIC = ("xqzv blorf quantum lasagna", "what is the capital of Australia",
             "how do I fix a leaking carburettor", "recipe for banana bread",
             "latest stock price of the shipping company")


def empathic_evidence() -> tuple[dict[str, list[dict]], list[tuple[str, dict]]]:
    """Evidence of the empathic queries against their own memory, by half; and of a few
    off-topic queries against Nadia (illustration only, not calibrated on)."""
    from empathic_bench import EmpathicBench, load_queries

    from core.memory import Memory

    doc = load_queries()
    bench = EmpathicBench(doc)
    halves: dict[str, list[dict]] = {"tune": [], "test": []}
    for q in doc["queries"]:
        ev = bench.run(q, "pulse", None, abstain=False)["evidence"]
        halves[q["half"]].append({"cos": ev["max_cosine"], "cov": ev["term_coverage"],
                                  "words": ev["words"], "id": q["id"]})
    off = []
    for text in OFF_TOPIC:
        ev = bench.engines["nadia"].retrieve(Memory.request(
            text, now=doc["memories"]["nadia"]["now"], abstain=False))["evidence"]
        off.append((text, {"cos": ev["max_cosine"], "cov": ev["term_coverage"],
                           "words": ev["words"]}))
    bench.close()
    return halves, off


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swap", action="store_true", help="calibrate on 5-9, report on 0-4")
    parser.add_argument("--quick", action="store_true", help="two conversations per half")
    parser.add_argument("--budget", type=float, default=0.01,
                        help="own recall@5 the calibration may lose on the tuning half")
    parser.add_argument("--empathic-budget", type=int, default=0,
                        help="empathic tuning-half queries allowed to abstain (each is a miss)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    conversations = load_locomo()
    halves = {h: half_of(conversations, h, args.swap) for h in ("tune", "report")}
    if args.quick:
        halves = {h: c[:2] for h, c in halves.items()}
    data = {h: collect(c) for h, c in halves.items()}
    empathic, off_topic = empathic_evidence()

    tc, tv, (f, o, lost) = calibrate(*data["tune"], empathic["tune"], args.budget,
                                     args.empathic_budget)
    print(f"Abstention on LoCoMo ({'swapped: ' if args.swap else ''}calibrated on "
          f"{', '.join(c['sample_id'] for c in halves['tune'])}; reported on "
          f"{', '.join(c['sample_id'] for c in halves['report'])}); rule: max_cosine < τ_cos "
          f"and term_coverage < τ_cov.\n")
    print(f"Calibrated (tuning half; own recall@5 may drop by ≤ {args.budget}, ≤ "
          f"{args.empathic_budget} empathic tuning queries may abstain): τ_cos = {tc}, "
          f"τ_cov = {tv}\n")
    print("| half | own questions | foreign questions | foreign abstained | own abstained | "
          "own recall@5 without / with abstention | drop |")
    print("|---|---|---|---|---|---|---|")
    for half in ("tune", "report"):
        own, foreign = data[half]
        f, o, lost = measure(own, foreign, tc, tv)
        base = float(np.mean([r["r5"] for r in own]))
        print(f"| {half} | {len(own)} | {len(foreign)} | {f:.1%} | {o:.1%} | "
              f"{base:.3f} / {base - lost:.3f} | {lost:.3f} |")
    for half in ("tune", "report"):
        own, foreign = data[half]
        for name, rows in (("own", own), ("foreign", foreign)):
            cos = np.array([r["cos"] for r in rows])
            cov = np.array([r["cov"] for r in rows])
            print(f"\n{half} {name}: max_cosine p10/p50/p90 {np.percentile(cos, 10):.3f}/"
                  f"{np.median(cos):.3f}/{np.percentile(cos, 90):.3f}; term_coverage p10/p50/p90 "
                  f"{np.percentile(cov, 10):.2f}/{np.median(cov):.2f}/{np.percentile(cov, 90):.2f}")
    for half in ("tune", "test"):
        hit = [r["id"] for r in empathic[half] if rule_abstains(r, tc, tv)]
        print(f"\nEmpathic benchmark, {half} half (own memory): {len(hit)} of "
              f"{len(empathic[half])} abstain {hit if hit else ''}")
    print("\nOff-topic queries against Nadia (illustration):\n")
    for text, r in off_topic:
        print(f"- {text!r}: max_cosine {r['cos']:.3f}, coverage {r['cov']:.2f} → "
              f"{'abstains' if rule_abstains(r, tc, tv) else 'answers'}")
    print(f"[{time.perf_counter() - start:.0f} s]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
