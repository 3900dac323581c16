"""Probes for pulse's state channel on the empathic TUNING half only, by re-fusion of the
breakdowns of every scored event (no scorer change): does a term lift the mood + body queries'
missed ideal events without costing the ones found?

    PULSE_BENCH_CACHE=… nice .venv/bin/python bench/state_probes.py

Queries: the tuning half's queries whose state carries a body (≥ 2 signals): the 8 mood + body
queries and 5 multi-signal ones. Each runs once through the real scorer at the defaults with
top_k 400 (every scored event and its terms); a probe re-scores them as
score × (relevance + term) / relevance (or swaps a factor), then recall@3. Candidates and
anchors are those of the default ranking, so a probe that would bring new candidates is
measured without them (the missed ideal events are all scored already: see --misses).

Probes (issue 14, round 3 of the state channel; docs/scoring.md):
- echo: + ε × the normalised cosine to the mean vector of the first m results ("what belongs
  with the moment the state found");
- people: + ε × the IDF-weighted share of an event's people and places (not the self) that the
  first m results name ("who 'her' is");
- profile: the same with the people of the P best state matches, each weighted by its match;
- borrowed gate: ENGINE's γ gate reads a borrowed body too (as the channel does);
- shape: body^a × mood^p instead of body × mood.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from empathic_bench import EmpathicBench, load_queries  # noqa: E402

BODY_KEYS = ("stress_proxy", "sleep_quality", "hrv", "hr_trend", "hrv_trend")


def _col(results: list[dict], name: str, default: float = 0.0) -> np.ndarray:
    return np.array([r["terms"].get(name, default) for r in results])


def _recall(results: list[dict], score: np.ndarray, ideal: list[str]) -> float:
    order = np.lexsort((np.arange(len(results)), -score))
    top = [results[i]["key"] for i in order[:3]]
    return sum(k in top for k in ideal) / len(ideal)


class Probes:
    def __init__(self, bench: EmpathicBench, queries: list[dict]) -> None:
        from core.scoring.settings import DEFAULT_SETTINGS
        from core.scoring.signature import _days, borrowed_bodies

        self.queries = queries
        self.out = {q["id"]: bench.run(q, "pulse", None, top_k=400)["results"] for q in queries}
        self.vectors, self.people, self.idf, self.lent = {}, {}, {}, {}
        for name, memory in bench.memories.items():
            conn = memory.conn
            self.vectors[name] = {k: np.frombuffer(v, dtype=np.float32) for k, v in conn.execute(
                "SELECT e.key, v.vector FROM events e JOIN event_embeddings v ON v.event_id = e.id"
                " WHERE v.model = ?", (memory.embedder().name,))}
            people: dict[str, set[int]] = defaultdict(set)
            for key, entity in conn.execute(
                    "SELECT e.key, ee.entity_id FROM event_entities ee JOIN events e ON e.id ="
                    " ee.event_id JOIN entities n ON n.id = ee.entity_id WHERE n.is_self = 0"):
                people[key].add(entity)
            count: dict[int, int] = defaultdict(int)
            for found in people.values():
                for entity in found:
                    count[entity] += 1
            n = conn.execute("SELECT count(*) FROM events").fetchone()[0]
            self.people[name] = people
            self.idf[name] = {e: math.log(n / c) for e, c in count.items()}
            rows = conn.execute("SELECT key, ts, biometrics, sentiment_label FROM events"
                                " ORDER BY id").fetchall()
            days = _days([r[1] for r in rows])
            own = [i for i, r in enumerate(rows) if r[2] not in (None, "", "{}", "null")]
            bare = [i for i, r in enumerate(rows) if r[2] in (None, "", "{}", "null")]
            lender = borrowed_bodies(days[own], days[bare], DEFAULT_SETTINGS)
            self.lent[name] = {rows[bare[j]][0]: (json.loads(rows[own[i]][2]), rows[bare[j]][3])
                               for j, i in enumerate(lender.tolist()) if i >= 0}

    def run(self, rescore) -> dict[str, float]:
        """recall@3 per query after rescore(query, results) → new scores."""
        return {q["id"]: _recall(self.out[q["id"]], rescore(q, self.out[q["id"]]), q["ideal"])
                for q in self.queries}

    @staticmethod
    def added(results: list[dict], term: np.ndarray) -> np.ndarray:
        score, relevance = np.array([r["score"] for r in results]), _col(results, "relevance")
        return score * (relevance + term) / relevance

    def echo(self, eps: float, m: int):
        def rescore(q, results):
            vectors = np.array([self.vectors[q["memory"]][r["key"]] for r in results])
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            anchor = vectors[:m].mean(axis=0)
            cos = vectors @ (anchor / np.linalg.norm(anchor))
            median = np.median(cos)
            echo = np.clip((cos - median) / max(cos.max() - median, 1e-12), 0.0, 1.0)
            return self.added(results, eps * echo)
        return rescore

    def _share(self, q, results, weights: dict[int, float]) -> np.ndarray:
        people, idf = self.people[q["memory"]], self.idf[q["memory"]]
        out = []
        for r in results:
            mine = people.get(r["key"], set())
            total = sum(idf[e] for e in mine)
            out.append(sum(idf[e] * weights.get(e, 0.0) for e in mine) / total if total else 0.0)
        return np.array(out)

    def named(self, eps: float, m: int):
        def rescore(q, results):
            term = np.zeros(len(results))
            for anchor in results[:m]:
                weights = dict.fromkeys(self.people[q["memory"]].get(anchor["key"], ()), 1.0)
                term = np.maximum(term, self._share(q, results, weights))
            return self.added(results, eps * term)
        return rescore

    def profile(self, eps: float, top: int):
        def rescore(q, results):
            match = _col(results, "state_relevance")
            best = np.argsort(-match, kind="stable")[:top]
            weights: dict[int, float] = defaultdict(float)
            total = match[best].sum()
            for j in best:
                for e in self.people[q["memory"]].get(results[j]["key"], ()):
                    weights[e] += match[j] / total if total else 0.0
            return self.added(results, eps * self._share(q, results, weights))
        return rescore

    def borrowed_gate(self):
        from core.scoring import gates
        from core.scoring.settings import DEFAULT_SETTINGS as S
        from core.scoring.state import parse_state

        def rescore(q, results):
            body = gates.body_state(parse_state(q["state"]), S)
            state = _col(results, "state", 1.0)
            new = state.copy()
            for i, r in enumerate(results):
                if body and state[i] == 1.0 and r["key"] in self.lent[q["memory"]]:
                    bio, label = self.lent[q["memory"]][r["key"]]
                    new[i] = 1.0 + S.gamma_state * gates.state_fit(body, bio, label, False, S)
            return np.array([r["score"] for r in results]) / state * new
        return rescore

    def shape(self, a: float, p: float):
        def rescore(q, results):
            body, mood = _col(results, "body_similarity"), _col(results, "mood_similarity", 1.0)
            weight = results[0]["terms"].get("state_weight", 1.0)
            return self.added(results, weight * (body ** a * mood ** p - body * mood))
        return rescore


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true",
                        help="the rank and terms of every missed ideal event at the defaults")
    args = parser.parse_args(argv)
    doc = load_queries()
    queries = [q for q in doc["queries"] if q["half"] == "tune" and q.get("state")
               and sum(k in q["state"] for k in BODY_KEYS) >= 2]
    bench = EmpathicBench(doc)
    probes = Probes(bench, queries)
    bench.close()
    if args.misses:
        for q in queries:
            results = probes.out[q["id"]]
            keys = [r["key"] for r in results]
            for key in q["ideal"]:
                rank = keys.index(key) + 1 if key in keys else None
                if rank is None or rank > 3:
                    t = results[rank - 1]["terms"] if rank else {}
                    print(f"{q['id']:24} {key:22} rank {rank}  dense "
                          f"{t.get('dense_relevance', 0):.2f} bm25 {t.get('bm25_norm', 0):.2f}"
                          f" chain {t.get('chain_context', 0):.2f} body "
                          f"{t.get('body_similarity', 0):.2f} mood {t.get('mood_similarity', 0):.2f}")
        return 0
    variants = [("defaults", lambda q, r: np.array([x["score"] for x in r]))]
    variants += [(f"echo ε {e} m {m}", probes.echo(e, m)) for m in (1, 2) for e in (0.2, 0.3, 0.5)]
    variants += [(f"people ε {e} m {m}", probes.named(e, m)) for m in (1, 2)
                 for e in (0.2, 0.3, 0.5)]
    variants += [(f"profile ε {e} P {p}", probes.profile(e, p)) for p in (5, 10)
                 for e in (0.1, 0.2, 0.3)]
    variants += [("borrowed gate γ 0.15", probes.borrowed_gate())]
    variants += [(f"shape body^{a} mood^{p}", probes.shape(a, p))
                 for a, p in ((0.5, 1), (2, 1), (1, 0.5), (1, 2))]
    ids = [q["id"] for q in queries]
    mood = [i for i in ids if "mood-body" in i]
    multi = [i for i in ids if "multi-signal" in i]
    print(f"State probes on the empathic TUNING half ({len(mood)} mood + body, {len(multi)} "
          f"multi-signal queries with a body): recall@3 by re-fusion\n")
    print("| probe | mood + body | multi-signal (body) | " + " | ".join(ids) + " |")
    print("|---|---|---|" + "---|" * len(ids))
    for label, rescore in variants:
        got = probes.run(rescore)
        print(f"| {label} | {np.mean([got[i] for i in mood]):.3f} | "
              f"{np.mean([got[i] for i in multi]):.3f} | "
              + " | ".join(f"{got[i]:.2f}" for i in ids) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
