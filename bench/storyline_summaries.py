"""Offline storyline summaries against hand-written references: ROUGE-L F1 (and ROUGE-1 F1).

    .venv/bin/python bench/storyline_summaries.py [--split tune|report|both] [--sweep] [--quick]

The references (bench/storylines/reference_summaries.json) were written before the summariser,
one per chain of the demo memory, and split in halves before any tuning: the weights of
core/storylines/summarise.py were chosen on the `tune` half (`--sweep` prints the grid); the
figures to quote are the `report` half's. Each summary is made the way `pulse storylines` makes
it (Memory.storylines on a fresh demo memory). Two baselines in the same run: `lead` (the first
sentence of each of the first three events) and `titles` (the events' titles joined).
ROUGE: lower-cased word tokens (letters and digits), no stemming, no stopword removal.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import CACHE  # noqa: E402

REFERENCES = ROOT / "bench" / "storylines" / "reference_summaries.json"
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def toks(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def lcs(a: list[str], b: list[str]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def f1(p: float, r: float) -> float:
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def rouge_l(candidate: str, reference: str) -> float:
    c, r = toks(candidate), toks(reference)
    if not c or not r:
        return 0.0
    n = lcs(c, r)
    return f1(n / len(c), n / len(r))


def rouge_1(candidate: str, reference: str) -> float:
    from collections import Counter

    c, r = Counter(toks(candidate)), Counter(toks(reference))
    overlap = sum((c & r).values())
    if not c or not r:
        return 0.0
    return f1(overlap / sum(c.values()), overlap / sum(r.values()))


def demo_memory():
    from core.memory import Memory, demo_corpus_path

    CACHE.mkdir(parents=True, exist_ok=True)
    built = CACHE / "storylines-demo.db"
    if not built.exists():
        tmp = CACHE / "storylines-demo.tmp.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{tmp}{suffix}").unlink(missing_ok=True)
        with Memory.open(tmp, create=True) as mem:
            mem.import_corpus(demo_corpus_path())
            mem.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        tmp.rename(built)
    work = CACHE / "storylines-demo.work.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{work}{suffix}").unlink(missing_ok=True)
    shutil.copy(built, work)
    return Memory.open(work)


def chains(memory, refs):
    """[(reference entry, storyline key)], checking each storyline has the reference's members."""
    graph = memory.storyline_graph()
    ids = {r[0]: int(r[1]) for r in memory.conn.execute("SELECT key, id FROM events")}
    out = []
    for entry in refs["chains"]:
        members = {ids[k] for k in entry["members"]}
        key = graph.of_event[ids[entry["members"][0]]]
        if set(graph.storylines[key].members) != members:
            raise SystemExit(f"{entry['members']}: the memory's storyline differs "
                             f"({graph.storylines[key].members})")
        out.append((entry, key))
    return out


def baselines(memory, key):
    from core.ingest.offline import sentences

    line = memory.storyline_graph().storylines[key]
    rows = {r["id"]: r for r in memory.conn.execute(
        f"SELECT id, title, description FROM events WHERE id IN "
        f"({','.join('?' * len(line.members))})", line.members)}
    lead = " ".join((sentences(rows[i]["description"]) or [rows[i]["title"]])[0]
                    for i in line.members[:3])
    titles = ". ".join(rows[i]["title"] for i in line.members) + "."
    return {"lead": lead, "titles": titles}


def score(pairs, summaries):
    out = {}
    for method in summaries:
        rl = [rouge_l(summaries[method][key], entry["reference"]) for entry, key in pairs]
        r1 = [rouge_1(summaries[method][key], entry["reference"]) for entry, key in pairs]
        out[method] = {"rouge_l": sum(rl) / len(rl), "rouge_1": sum(r1) / len(r1), "n": len(rl)}
    return out


def sweep(memory, pairs):
    """Grid over the summariser's weights on the given (tuning) pairs."""
    from core.storylines.store import offline_summary
    from core.storylines.summarise import Weights

    graph, index = memory.storyline_graph(), memory.scorer.index()
    grid = {"event": (0.0, 0.35), "first": (0.0, 0.15), "title": (0.0, 0.25),
            "length": (0.0, 0.15), "clauses": (True, False), "headlines": (False, True),
            "units": (4, 5), "chars": (320, 400, 480)}
    results = []
    for values in itertools.product(*grid.values()):
        weights = Weights(**dict(zip(grid, values)))
        text = {key: offline_summary(memory.conn, graph, index, graph.storylines[key],
                                     weights=weights).text for _, key in pairs}
        rl = sum(rouge_l(text[key], e["reference"]) for e, key in pairs) / len(pairs)
        results.append((rl, dict(zip(grid, values))))
    results.sort(key=lambda r: -r[0])
    for rl, weights in results[:10]:
        print(f"  ROUGE-L {rl:.4f}  {weights}")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "report", "both"), default="both")
    parser.add_argument("--sweep", action="store_true", help="grid over the weights (tune half)")
    parser.add_argument("--quick", action="store_true", help="the report half only")
    parser.add_argument("--show", action="store_true", help="print every summary")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    refs = json.loads(REFERENCES.read_text(encoding="utf-8"))
    memory = demo_memory()
    try:
        all_pairs = chains(memory, refs)
        splits = ["report"] if args.quick else (["tune", "report"] if args.split == "both"
                                               else [args.split])
        if args.sweep:
            print("sweep on the tune half:")
            sweep(memory, [p for p in all_pairs if p[0]["split"] == "tune"])
        cpu, wall = time.process_time(), time.perf_counter()
        made = {s["key"]: s for s in memory.storylines([key for _, key in all_pairs])}
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        summaries = {"pulse": {k: v["summary"] for k, v in made.items()},
                     "lead": {}, "titles": {}}
        for _, key in all_pairs:
            for name, text in baselines(memory, key).items():
                summaries[name][key] = text
        report = {"summarised": len(made), "cpu_s": round(cpu, 3), "wall_s": round(wall, 3)}
        for split in splits:
            pairs = [p for p in all_pairs if p[0]["split"] == split]
            report[split] = score(pairs, summaries)
        if args.show:
            for entry, key in all_pairs:
                print(f"\n[{entry['split']}] {key} {made[key]['title']}\n  pulse: "
                      f"{made[key]['summary']}\n  ref:   {entry['reference']}")
        if args.json:
            print(json.dumps(report, indent=1))
            return
        print(f"{report['summarised']} storylines summarised in {report['wall_s']} s wall, "
              f"{report['cpu_s']} s CPU")
        for split in splits:
            print(f"{split} half ({report[split]['pulse']['n']} chains):")
            for method, m in report[split].items():
                print(f"  {method:<7} ROUGE-L F1 {m['rouge_l']:.4f}   ROUGE-1 F1 {m['rouge_1']:.4f}")
    finally:
        memory.close()


if __name__ == "__main__":
    main()
