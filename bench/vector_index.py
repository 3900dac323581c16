"""Vector search back ends at 100,000 × 384: numpy brute force vs sqlite-vec vec0 (exact, float32)
and vec0 int8-quantised, with recall@50 against the exact result. Justifies core/scoring/index.py.

    nice .venv/bin/python bench/vector_index.py [--n 100000] [--queries 50] [--quick]

Data: random unit vectors (seeded); each query is a stored vector plus noise, re-normalised, so
it has genuine near neighbours. numpy: float32 matrix @ q, top-50 by argpartition then sort —
timed both with OpenBLAS's default thread pool and with one thread (a child process started with
OPENBLAS_NUM_THREADS=1). sqlite-vec is loaded through apsw (the stdlib sqlite3 here cannot load
extensions); vec0 tables live in a file under /tmp/pulse-bench-cache/, page cache warm.
Times are wall and CPU p50 (ms) over the queries, after a warm-up.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CACHE, DIM, latency_pair, random_unit  # noqa: E402

K = 50


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def dataset(n: int, n_queries: int, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    matrix = random_unit(rng, n)
    picks = rng.choice(n, size=n_queries, replace=False)
    queries = matrix[picks] + 0.08 * rng.standard_normal((n_queries, DIM), dtype=np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    return matrix, queries


def numpy_top(matrix: np.ndarray, q: np.ndarray, k: int = K) -> np.ndarray:
    scores = matrix @ q
    top = np.argpartition(-scores, k)[:k]
    return top[np.argsort(-scores[top], kind="stable")]


def measure_numpy(n: int, n_queries: int) -> dict:
    matrix, queries = dataset(n, n_queries)
    for q in queries[:5]:
        numpy_top(matrix, q)
    return latency_pair(lambda q: numpy_top(matrix, q), queries)


def vec_connection(path: Path):
    import apsw
    import sqlite_vec

    conn = apsw.Connection(str(path))
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    return conn


def build_vec(path: Path, matrix: np.ndarray) -> None:
    path.unlink(missing_ok=True)
    conn = vec_connection(path)
    conn.execute(f"CREATE VIRTUAL TABLE vf USING vec0(embedding float[{DIM}] distance_metric=cosine)")
    conn.execute(f"CREATE VIRTUAL TABLE vi USING vec0(embedding int8[{DIM}])")
    with conn:
        conn.executemany("INSERT INTO vf(rowid, embedding) VALUES (?, ?)",
                         ((i, matrix[i].tobytes()) for i in range(matrix.shape[0])))
        conn.executemany("INSERT INTO vi(rowid, embedding) VALUES (?, vec_quantize_int8(?, 'unit'))",
                         ((i, matrix[i].tobytes()) for i in range(matrix.shape[0])))
    conn.close()


def recall(found: list[np.ndarray], exact: list[np.ndarray]) -> float:
    return float(np.mean([len(set(f.tolist()) & set(e.tolist())) / len(e)
                          for f, e in zip(found, exact)]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="20,000 vectors")
    parser.add_argument("--numpy-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    n = 20_000 if args.quick else args.n

    if args.numpy_only:  # child: numpy timing under this process's BLAS thread setting
        print(json.dumps(measure_numpy(n, args.queries)))
        return

    matrix, queries = dataset(n, args.queries)
    exact = [numpy_top(matrix, q) for q in queries]
    results: dict[str, dict] = {}
    results["numpy brute force (float32 @, argpartition) — default BLAS threads"] = \
        measure_numpy(n, args.queries)
    child = subprocess.run([sys.executable, __file__, "--numpy-only", "--n", str(n),
                            "--queries", str(args.queries)], stdout=subprocess.PIPE, text=True,
                           check=True, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    results["numpy brute force — OPENBLAS_NUM_THREADS=1"] = json.loads(child.stdout)
    recalls = {k: 1.0 for k in results}

    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"vec0-{n}.db"
    if not path.exists():
        log(f"building vec0 tables for {n:,} vectors …")
        build_vec(path, matrix)
    conn = vec_connection(path)

    def vf(q):
        return np.array([r[0] for r in conn.execute(
            "SELECT rowid FROM vf WHERE embedding MATCH ? AND k = ?", (q.tobytes(), K))])

    def vi(q):
        return np.array([r[0] for r in conn.execute(
            "SELECT rowid FROM vi WHERE embedding MATCH vec_quantize_int8(?, 'unit') AND k = ?",
            (q.tobytes(), K))])

    def vi_rescored(q):
        # int8 first pass widened 4×, then exact float32 re-scoring of those rows
        cand = np.array([r[0] for r in conn.execute(
            "SELECT rowid FROM vi WHERE embedding MATCH vec_quantize_int8(?, 'unit') AND k = ?",
            (q.tobytes(), 4 * K))])
        scores = matrix[cand] @ q
        return cand[np.argsort(-scores, kind="stable")[:K]]

    for label, fn in (("sqlite-vec vec0 exact float32 (cosine)", vf),
                      ("sqlite-vec vec0 int8 (vec_quantize_int8 'unit')", vi),
                      ("sqlite-vec vec0 int8, top-200 re-scored in float32", vi_rescored)):
        for q in queries[:3]:
            fn(q)
        results[label] = latency_pair(fn, queries)
        recalls[label] = recall([fn(q) for q in queries], exact)
        log(f"  {label}: p50 {results[label]['p50']:.1f} ms")
    conn.close()

    base = results["numpy brute force (float32 @, argpartition) — default BLAS threads"]
    print(f"{n:,} vectors × {DIM} (float32, unit), top-{K}, {args.queries} queries; ms")
    print("\n| back end | wall p50 | wall p95 | CPU p50 | × numpy (wall) | × numpy (CPU) |"
          f" recall@{K} vs exact |\n|---|---|---|---|---|---|---|")
    for label, s in results.items():
        print(f"| {label} | {s['p50']:.2f} | {s['p95']:.2f} | {s['cpu_p50']:.2f} |"
              f" {s['p50'] / base['p50']:.1f} | {s['cpu_p50'] / base['cpu_p50']:.1f} |"
              f" {recalls[label]:.3f} |")
    print("\n(raw JSON)\n" + json.dumps({"n": n, "results": results, "recall": recalls}))


if __name__ == "__main__":
    main()
