"""The import's embedding, side by side in one run: the way before 2026-12-01 (float graph, one
batch at a time with its operators split across the cores), float with one batch per core, and
the shipped way (int8 passage graph, one batch per core). CPU and wall seconds, and what the
vectors lose.

    PULSE_BENCH_CACHE=var/bench-cache nice .venv/bin/python bench/embed_throughput.py [--texts N]
    ... bench/embed_throughput.py --run-sizes --rounds 3     # int8: runs of 512 vs 256 tokens

Texts: every LoCoMo turn as the offline import embeds it (records.embedding_text of the turn's
title and description, 5,882 texts), in calls of 145 texts (what the pipeline's batches of 128
messages hand over). Per configuration: CPU and wall seconds, texts/s, the largest absolute
difference and the smallest / mean cosine to the first configuration's vectors, whether 60 texts embedded one by
one equal their vectors from the batched calls (batch-mates must not matter), and pure-cosine
recall@5 over LoCoMo's 1,536 questions of categories 1-4 (each question against its own
conversation's turns; query vectors are the float graph's, cached as bench/locomo_quality.py
caches them). The machine is shared: CPU seconds are the fairer figure, wall is reported too.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CACHE, LOCOMO, CachingEmbedder, load_locomo  # noqa: E402

CALL = 145      # texts per embed call in an import of LoCoMo (≈ 1.14 segments per message)
K = 5


def import_texts(conversations: list[dict]) -> tuple[list[str], list[tuple[str, str]]]:
    from core.ingest.pipeline import event_texts
    from core.store.records import embedding_text

    texts, owners = [], []
    for conv in conversations:
        for turn in conv["turns"]:
            texts.append(embedding_text(*event_texts(turn["speaker"], turn["text"])))
            owners.append((conv["sample_id"], turn["dia_id"]))
    return texts, owners


def configurations(threads: int, run_sizes: bool = False) -> dict:
    from core.embedding.e5_onnx_embedder import E5OnnxEmbedder

    wide = E5OnnxEmbedder(threads=threads)
    wide.tokens_per_run = 512                               # runs before 2026-12-02 (#16.6)
    wide.embed_passages(["warm"])
    shipped = E5OnnxEmbedder(threads=threads)
    shipped.embed_passages(["warm"])                        # builds its int8 session
    if run_sizes:
        return {"int8, runs of 512 padded tokens": wide,
                f"shipped: int8, runs of {shipped.tokens_per_run}": shipped}
    before = E5OnnxEmbedder(threads=threads, int8_passages=False)
    before._passages = before._new_session(False, threads)   # the way before 2026-12-01:
    before._workers = 1                                     # operators split, one batch at once
    per_core = E5OnnxEmbedder(threads=threads, int8_passages=False)
    return {"before: float, operators split across cores": before,
            "float, one batch per core": per_core,
            "int8, one batch per core, runs of 512 padded tokens": wide,
            f"shipped: int8, one batch per core, runs of {shipped.tokens_per_run}": shipped}


def embed(embedder, texts: list[str]) -> tuple[np.ndarray, float, float]:
    out = np.empty((len(texts), 384), np.float32)
    cpu, wall = time.process_time(), time.perf_counter()
    for start in range(0, len(texts), CALL):
        out[start:start + CALL] = embedder.embed_passages(texts[start:start + CALL])
    return out, time.process_time() - cpu, time.perf_counter() - wall


def recall_at_5(vectors: np.ndarray, owners, conversations, queries) -> float:
    scores = []
    for conv in conversations:
        rows = [i for i, (sid, _) in enumerate(owners) if sid == conv["sample_id"]]
        ids = [owners[i][1] for i in rows]
        passages = vectors[rows]
        for q in conv["questions"]:
            top = np.argsort(-(passages @ queries[q["question"]]), kind="stable")[:K]
            found = {ids[i] for i in top}
            scores.append(sum(e in found for e in q["evidence"]) / len(q["evidence"]))
    return float(np.mean(scores))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--texts", type=int, default=0, help="only the first N texts (no recall)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--run-sizes", action="store_true",
                    help="only the int8 graph, runs of 512 padded tokens against the shipped size")
    ap.add_argument("--rounds", type=int, default=1,
                    help="embed the texts this many times per configuration, alternating")
    args = ap.parse_args()
    conversations = load_locomo(LOCOMO)
    texts, owners = import_texts(conversations)
    if args.texts:
        texts, owners = texts[:args.texts], owners[:args.texts]
    configs = configurations(args.threads, args.run_sizes)
    queries = {}
    if not args.texts:
        first = next(iter(configs.values()))
        for conv in conversations:
            cached = CachingEmbedder(first, disk=CACHE / f"queries-{conv['sample_id']}.npy")
            queries.update({q["question"]: cached.embed_query(q["question"])
                            for q in conv["questions"]})
            cached.save()
    sample = texts[::max(1, len(texts) // 60)][:60]
    base = None
    result = {"texts": len(texts), "threads": args.threads, "load_avg_before": os.getloadavg()[0],
              "configurations": {}}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in configs}
    out: dict[str, np.ndarray] = {}
    for _ in range(args.rounds):           # alternating: a drift in load hits every side alike
        for name, embedder in configs.items():
            out[name], cpu, wall = embed(embedder, texts)
            times[name].append((cpu, wall))
    for name, embedder in configs.items():
        vectors = out[name]
        cpu, wall = (sum(t[i] for t in times[name]) for i in (0, 1))
        base = vectors if base is None else base
        cos = (vectors * base).sum(axis=1)
        index = {t: i for i, t in enumerate(texts)}
        alone = np.stack([embedder.embed_passages([t])[0] for t in sample])
        row = {"cpu_s": round(cpu, 1), "wall_s": round(wall, 1),
               "cpu_s_per_round": [round(t[0], 1) for t in times[name]],
               "wall_s_per_round": [round(t[1], 1) for t in times[name]],
               "texts_per_cpu_s": round(len(texts) * args.rounds / cpu, 1),
               "texts_per_s": round(len(texts) * args.rounds / wall, 1),
               "max_abs_diff_to_before": float(np.abs(vectors - base).max()),
               "cos_to_before_min": round(float(cos.min()), 5),
               "cos_to_before_mean": round(float(cos.mean()), 5),
               "alone_equals_batched": bool(np.array_equal(
                   alone, vectors[[index[t] for t in sample]]))}
        if queries:
            row["cosine_recall_at_5"] = round(recall_at_5(vectors, owners, conversations,
                                                          queries), 4)
        result["configurations"][name] = row
        print(f"{name}: {json.dumps(row)}", file=sys.stderr, flush=True)
    first = next(iter(result["configurations"].values()))
    for row in result["configurations"].values():
        row["cpu_ratio_to_before"] = round(first["cpu_s"] / row["cpu_s"], 2)
        row["wall_ratio_to_before"] = round(first["wall_s"] / row["wall_s"], 2)
    result["load_avg_after"] = os.getloadavg()[0]
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
