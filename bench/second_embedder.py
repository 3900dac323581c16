"""Round 7 of pulse's state channel, on the empathic TUNING half only: would a second small
embedder bring the vague, stateful queries nearer to their moments?

    PULSE_BENCH_CACHE=… nice .venv/bin/python bench/second_embedder.py

The misses of the mood + body queries are moments far in meaning from the query's sentence
("I did the thing that scared me" against swimming into the quarry lake). The only other model
that installs here without a download is the fallback, all-MiniLM-L6-v2 (int8). Two measures:

- **raw ranks**: where the ideal events of the stateful queries (mood + body, multi-signal)
  stand by plain cosine under e5, under MiniLM, and under the sum of both cosines each
  normalised as pulse normalises relevance (median → 0, best → 1);
- **the real scorer under MiniLM**: pulse on the tuning half with each memory re-embedded by
  MiniLM (in a copy; the bench cache is untouched), against e5 in the same run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CachingEmbedder, scorer_with  # noqa: E402
from empathic_bench import EmpathicBench, load_queries, summarise  # noqa: E402

STATEFUL = ("mood_body", "multi_signal")


def normalised(scores: np.ndarray) -> np.ndarray:
    """pulse's per-query relevance: the median maps to 0, the best to 1, below the median 0."""
    median, best = float(np.median(scores)), float(scores.max())
    if best <= median:
        return np.zeros_like(scores)
    return np.clip((scores - median) / (best - median), 0.0, None)


def ideal_ranks(scores: np.ndarray, keys: list[str], ideal: list[str]) -> list[int]:
    """1-based rank of each ideal event present (ties go to the earlier event, as argsort's
    stable order does)."""
    order = np.argsort(-scores, kind="stable")
    rank_of = {keys[i]: r + 1 for r, i in enumerate(order)}
    return [rank_of[k] for k in ideal if k in rank_of]


def print_ranks(ranks: dict[str, list[int]]) -> None:
    for label, found in ranks.items():
        r = np.asarray(found)
        print(f"  {label:<22} top-3 {int((r <= 3).sum()):>3}  top-10 {int((r <= 10).sum()):>3}"
              f"  of {len(r)}  median rank {float(np.median(r)):.1f}")


def _event_texts(memory) -> tuple[list[str], list[str]]:
    from core.store import records

    rows = memory.conn.execute(
        "SELECT key, title, description FROM events WHERE absorbed_into IS NULL ORDER BY id"
    ).fetchall()
    return [r[0] for r in rows], [records.embedding_text(r[1], r[2]) for r in rows]


def raw_ranks(bench: EmpathicBench, queries: list[dict[str, Any]], second) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {"e5": [], "second": [], "both": []}
    for name, memory in bench.memories.items():
        mine = [q for q in queries if q["memory"] == name]
        if not mine:
            continue
        keys, texts = _event_texts(memory)
        first = memory.embedder()
        first_docs, second_docs = first.embed_passages(texts), second.embed_passages(texts)
        for q in mine:
            a = first_docs @ first.embed_query(q["query"])
            b = second_docs @ second.embed_query(q["query"])
            for label, scores in (("e5", a), ("second", b),
                                  ("both", normalised(a) + normalised(b))):
                out[label].extend(ideal_ranks(scores, keys, q["ideal"]))
    return out


class Concatenated:
    """Two embedders as one: each unit vector scaled by 1/√2 and joined, so the cosine of two
    joined vectors is the mean of the two models' cosines."""

    def __init__(self, first, second) -> None:
        self.parts = (first, second)
        self.name, self.dim = f"{first.name}+{second.name}", first.dim + second.dim

    def embed_passages(self, texts, progress=None) -> np.ndarray:
        return np.hstack([p.embed_passages(texts) for p in self.parts]) / np.sqrt(2.0)

    def embed_query(self, text: str) -> np.ndarray:
        return np.concatenate([p.embed_query(text) for p in self.parts]) / np.sqrt(2.0)


def second_model_bench(bench: EmpathicBench, embedder_of, folder: Path) -> EmpathicBench:
    """The same bench with every memory copied into `folder` and re-embedded by the embedder
    that `embedder_of(memory)` returns (stored under its own model name and made active)."""
    from core.memory import Memory
    from core.store import records

    for name, memory in list(bench.memories.items()):
        copy = folder / f"{name}.db"
        memory.conn.execute("VACUUM INTO ?", (str(copy),))   # through SQLite, never a plain copy
        inner = embedder_of(memory)
        memory.close()
        other = Memory.open(copy)
        ids, texts = zip(*[(r[0], records.embedding_text(r[1], r[2])) for r in other.conn.execute(
            "SELECT id, title, description FROM events ORDER BY id")])
        for event_id, vector in zip(ids, inner.embed_passages(list(texts))):
            records.set_embedding(other.conn, event_id, records.Vector(inner.name, vector))
        other.set_meta("embedding_model", inner.name)
        embedder = CachingEmbedder(inner)
        bench.memories[name], bench.embedders[name] = other, embedder
        bench.engines[name] = scorer_with(other, embedder)
    return bench


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="minilm-l6-int8", help="the second embedder")
    parser.add_argument("--dense-weights", default="0.6,0.75,0.9",
                        help="hybrid_dense_weight values tried with the second model")
    args = parser.parse_args(argv)
    from core.embedding.registry import get_embedder

    doc = load_queries()
    queries = [q for q in doc["queries"] if q["half"] == "tune"]
    stateful = [q for q in queries if q["category"] in STATEFUL]
    bench = EmpathicBench(doc)
    print(f"raw ranks of the ideal events of {len(stateful)} stateful tuning queries")
    print_ranks(raw_ranks(bench, stateful, get_embedder(args.model)))

    def line(name: str, summary: dict[str, Any]) -> None:
        print(f"  {name:<22} all {summary['all']['recall3']:.3f}  mood+body "
              f"{summary['mood_body']['recall3']:.3f}  multi-signal "
              f"{summary['multi_signal']['recall3']:.3f}  leaks {summary['domain_leaks']}  abstained "
              f"{summary['abstained']}")

    print("pulse on the tuning half")
    line("e5 (shipped)", summarise(bench.evaluate(queries, "pulse")))
    second = get_embedder(args.model)
    for label, embedder_of in ((args.model, lambda memory: second),
                               ("both", lambda memory: Concatenated(memory.embedder(), second))):
        with tempfile.TemporaryDirectory() as folder:
            variant = second_model_bench(EmpathicBench(doc), embedder_of, Path(folder))
            for weight in (float(w) for w in args.dense_weights.split(",")):
                settings = {"hybrid_dense_weight": weight}
                line(f"{label} w={weight}", summarise(variant.evaluate(queries, "pulse", settings)))
            variant.close()
    bench.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
