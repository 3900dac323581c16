"""The empathic benchmark: recall@3 per category for every scorer, on one half of the labelled
queries (bench/empathic/queries.json, labelled before any tuning; see bench/empathic/README.md).

    .venv/bin/python bench/empathic_bench.py                  # the test half (what is reported)
    .venv/bin/python bench/empathic_bench.py --half tune      # the half used for tuning
    .venv/bin/python bench/empathic_bench.py --half tune --detail --scorers pulse

Each memory is imported once through Memory.import_corpus (real embeddings with the default
model) and cached under /tmp/pulse-bench-cache/. Every query runs through the real scorer with
its state, domains and chain flag, `now` = the memory's `now`, top_k 5 (the MCP default).

Figures:
- recall@3: the share of the query's ideal events among the first three results;
- domain leaks: results (any rank) outside the query's `domains`, over the domain-filtered
  queries; the target is zero;
- chain order kept: chain queries whose results never put an event after one of its own
  descendants (event_chains); the target is all of them;
- abstained: own-memory queries that got "nothing relevant" (each one is a miss).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CACHE, ROOT, CachingEmbedder, scorer_with  # noqa: E402

QUERIES = ROOT / "bench" / "empathic" / "queries.json"
CATEGORIES = ("core_wound", "belief", "mood_body", "chain", "date", "domain", "multi_signal")
TOP_K = 5
DEFAULT_SCORERS = ("cosine", "bm25", "v2", "dense", "pulse")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def load_queries(path: Path = QUERIES) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def bench_memory(name: str, corpus: Path):
    """The memory of `corpus`, imported once and cached by content and embedding model."""
    from core.embedding.registry import get_embedder
    from core.memory import Memory

    data = corpus.read_bytes()
    digest = hashlib.sha256(data + get_embedder().name.encode()).hexdigest()[:12]
    path = CACHE / f"empathic-{name}-{digest}.db"
    done = path.with_suffix(".ok")
    if path.exists() and done.exists():
        return Memory.open(path)
    CACHE.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    start = time.perf_counter()
    memory = Memory.open(path, create=True)
    memory.import_corpus(json.loads(data))
    memory.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    done.write_text("ok")
    log(f"  imported {name} in {time.perf_counter() - start:.0f} s")
    return memory


class EmpathicBench:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.memories: dict[str, Any] = {}
        self.engines: dict[str, Any] = {}
        self.embedders: dict[str, CachingEmbedder] = {}
        self.ancestors: dict[str, dict[str, set[str]]] = {}
        for name, spec in doc["memories"].items():
            memory = bench_memory(name, ROOT / spec["corpus"])
            embedder = CachingEmbedder(memory.embedder(), disk=CACHE / f"empathic-queries-{name}.npy")
            self.memories[name], self.embedders[name] = memory, embedder
            self.engines[name] = scorer_with(memory, embedder)
            self.ancestors[name] = _ancestors(memory.conn)

    def run(self, query: dict[str, Any], scorer: str, settings: dict[str, Any] | None = None,
            abstain: bool = True, top_k: int = TOP_K) -> dict[str, Any]:
        from core.memory import Memory

        spec = self.doc["memories"][query["memory"]]
        options: dict[str, Any] = {"top_k": top_k, "scorer": scorer, "now": spec["now"],
                                   "state": query.get("state"), "domains": query.get("domains"),
                                   "chain": bool(query.get("chain")), "settings": settings}
        if not abstain:
            options["abstain"] = False
        return self.engines[query["memory"]].retrieve(Memory.request(query["query"], **options))

    def evaluate(self, queries: list[dict[str, Any]], scorer: str,
                 settings: dict[str, Any] | None = None, abstain: bool = True) -> list[dict]:
        rows = []
        for q in queries:
            out = self.run(q, scorer, settings, abstain)
            keys = [r["key"] for r in out["results"]]
            domains = q.get("domains")
            leaks = sum(1 for r in out["results"] if domains and r["domain"] not in domains)
            rows.append({
                "id": q["id"], "category": q["category"], "keys": keys,
                "recall3": sum(k in keys[:3] for k in q["ideal"]) / len(q["ideal"]),
                "leaks": leaks, "abstained": bool(out.get("abstained")),
                "chain_ok": _order_kept(keys, self.ancestors[q["memory"]]) if q.get("chain") else None,
            })
        for embedder in self.embedders.values():
            embedder.save()
        return rows

    def close(self) -> None:
        for memory in self.memories.values():
            memory.close()


def _ancestors(conn) -> dict[str, set[str]]:
    """Every event key → the keys of all its ancestors through event_chains."""
    key_of = dict(conn.execute("SELECT id, key FROM events"))
    parents: dict[int, set[int]] = defaultdict(set)
    for parent, child in conn.execute("SELECT parent_id, child_id FROM event_chains"):
        parents[child].add(parent)
    out: dict[str, set[str]] = {}
    for event_id, key in key_of.items():
        seen, stack = set(), list(parents.get(event_id, ()))
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(parents.get(node, ()))
        out[key] = {key_of[a] for a in seen}
    return out


def _order_kept(keys: list[str], ancestors: dict[str, set[str]]) -> bool:
    """No result is listed after one of its own descendants."""
    for i, key in enumerate(keys):
        if any(later in ancestors.get(key, ()) for later in keys[i + 1:]):
            return False
    return True


def summarise(rows: list[dict]) -> dict[str, Any]:
    by: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by[r["category"]].append(r)
    out: dict[str, Any] = {c: {"n": len(by[c]), "recall3": float(np.mean([r["recall3"] for r in by[c]]))}
                           for c in CATEGORIES if by[c]}
    out["all"] = {"n": len(rows), "recall3": float(np.mean([r["recall3"] for r in rows]))}
    out["domain_leaks"] = sum(r["leaks"] for r in rows)
    chain = [r["chain_ok"] for r in rows if r["chain_ok"] is not None]
    out["chain_order_kept"] = f"{sum(chain)}/{len(chain)}"
    out["abstained"] = sum(r["abstained"] for r in rows)
    return out


def print_table(results: dict[str, dict[str, Any]], half: str) -> None:
    first = next(iter(results.values()))
    cats = [c for c in CATEGORIES if c in first]
    print(f"\nrecall@3 on the {half} half (top_k {TOP_K}):\n")
    print("| scorer | " + " | ".join(f"{c} (n={first[c]['n']})" for c in cats)
          + f" | all (n={first['all']['n']}) | domain leaks | chain order kept | abstained |")
    print("|---|" + "---|" * (len(cats) + 4))
    for label, s in results.items():
        print(f"| {label} | " + " | ".join(f"{s[c]['recall3']:.2f}" for c in cats)
              + f" | **{s['all']['recall3']:.3f}** | {s['domain_leaks']} | {s['chain_order_kept']}"
              f" | {s['abstained']} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("test", "tune", "all"), default="test")
    parser.add_argument("--scorers", default=",".join(DEFAULT_SCORERS))
    parser.add_argument("--settings", help="JSON object of scorer-setting overrides (tuning)")
    parser.add_argument("--no-abstain", action="store_true")
    parser.add_argument("--detail", action="store_true", help="per-query keys and recall")
    parser.add_argument("--json", action="store_true", help="print the summaries as JSON")
    args = parser.parse_args(argv)

    doc = load_queries()
    queries = [q for q in doc["queries"] if args.half == "all" or q["half"] == args.half]
    settings = json.loads(args.settings) if args.settings else None
    bench = EmpathicBench(doc)
    results = {}
    for scorer in args.scorers.split(","):
        rows = bench.evaluate(queries, scorer, settings, abstain=not args.no_abstain)
        results[scorer] = summarise(rows)
        if args.detail:
            qs = {q["id"]: q for q in queries}
            for r in rows:
                mark = "ABST " if r["abstained"] else ""
                print(f"{scorer:7} {r['recall3']:.2f} {mark}{r['id']:28} {' '.join(r['keys'])}"
                      f"   ideal {' '.join(qs[r['id']]['ideal'])}")
    bench.close()
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print_table(results, args.half)
    return 0


if __name__ == "__main__":
    sys.exit(main())
