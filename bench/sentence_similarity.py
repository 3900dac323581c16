"""Round 8 of pulse's state channel, on the empathic TUNING half only: does an event's best
sentence find a vague query's moment where the whole event's vector does not?

    PULSE_BENCH_CACHE=… nice .venv/bin/python bench/sentence_similarity.py

An event's text is one mean-pooled vector; a feeling said in one sentence of three ("Nadia
laughed and cried a little") is diluted by the rest. Here every sentence of every event is
embedded by the memory's own model (e5), and the dense channel's cosine becomes
(1 − λ) · the event's cosine + λ · its best sentence's cosine. Two measures:

- raw ranks of the stateful tuning queries' ideal events (mood + body, multi-signal) by the
  event's cosine, by the best sentence's, and by the two normalised and summed;
- pulse on the whole tuning half at each λ. The mix is put in place of the scorer's cosine
  product for this run only (the scorer's `_cosines`; the memories hold < 50k events, so every
  cosine comes from that exact product).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from empathic_bench import EmpathicBench, load_queries, summarise  # noqa: E402
from second_embedder import STATEFUL, ideal_ranks, normalised, print_ranks  # noqa: E402

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def sentence_table(memory) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(event ids, event vectors, sentence owners as row numbers, sentence vectors)."""
    from core.store import records

    rows = memory.conn.execute("SELECT id, title, description FROM events "
                               "WHERE absorbed_into IS NULL ORDER BY id").fetchall()
    texts = [records.embedding_text(r[1], r[2]) for r in rows]
    sentences, owners = [], []
    for row, text in enumerate(texts):
        for s in _SENTENCE_END.split(text):
            if len(s.strip()) > 3:
                sentences.append(s.strip())
                owners.append(row)
    embedder = memory.embedder()
    return (np.array([r[0] for r in rows]), embedder.embed_passages(texts),
            np.array(owners), embedder.embed_passages(sentences).astype(np.float32))


def best_sentence(owners: np.ndarray, sentences: np.ndarray, query: np.ndarray, n: int) -> np.ndarray:
    best = np.full(n, -np.inf)
    np.maximum.at(best, owners, sentences @ query)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mix", default="0,0.3,0.5,0.7", help="λ values for the whole scorer")
    args = parser.parse_args(argv)
    import core.scoring.scorer as scorer_module

    doc = load_queries()
    queries = [q for q in doc["queries"] if q["half"] == "tune"]
    bench = EmpathicBench(doc)
    tables = {name: sentence_table(memory) for name, memory in bench.memories.items()}

    ranks: dict[str, list[int]] = {"event": [], "best sentence": [], "both": []}
    for name, memory in bench.memories.items():
        ids, events, owners, sentences = tables[name]
        keys = [k for (k,) in memory.conn.execute(
            "SELECT key FROM events WHERE absorbed_into IS NULL ORDER BY id")]
        for q in queries:
            if q["memory"] != name or q["category"] not in STATEFUL:
                continue
            qv = memory.embedder().embed_query(q["query"])
            a, m = events @ qv, best_sentence(owners, sentences, qv, len(ids))
            for label, scores in (("event", a), ("best sentence", m),
                                  ("both", normalised(a) + normalised(m))):
                ranks[label].extend(ideal_ranks(scores, keys, q["ideal"]))
    print("raw ranks of the ideal events of the stateful tuning queries (e5)")
    print_ranks(ranks)

    exact_product = scorer_module._cosines
    current: dict[str, object] = {}

    def mixed(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
        values = exact_product(matrix, query)
        ids, _, owners, sentences = tables[current["memory"]]
        index_ids = current["index_ids"]
        best = best_sentence(owners, sentences, query, len(ids))
        per_row = dict(zip(ids.tolist(), best.tolist()))
        lam = current["mix"]
        # an event with no sentence of its own (a text of a few letters) keeps its own cosine
        sent = np.array([v if per_row.get(i, -np.inf) == -np.inf else per_row[i]
                         for i, v in zip(index_ids.tolist(), values.tolist())])
        return ((1 - lam) * values + lam * sent).astype(values.dtype)

    run = bench.run

    def run_mixed(q, scorer, settings=None, *rest, **kw):
        engine = bench.engines[q["memory"]]
        current["memory"] = q["memory"]
        current["index_ids"] = engine._indexes.get(engine.conn, engine.model).ids
        return run(q, scorer, settings, *rest, **kw)

    bench.run = run_mixed
    scorer_module._cosines = mixed
    try:
        print("pulse on the tuning half")
        for lam in (float(x) for x in args.mix.split(",")):
            current["mix"] = lam
            s = summarise(bench.evaluate(queries, "pulse"))
            print(f"  λ {lam:<4} all {s['all']['recall3']:.3f}  mood+body {s['mood_body']['recall3']:.3f}"
                  f"  multi-signal {s['multi_signal']['recall3']:.3f}  core wound "
                  f"{s['core_wound']['recall3']:.3f}  leaks {s['domain_leaks']}  abstained {s['abstained']}")
    finally:
        scorer_module._cosines = exact_product
        bench.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
