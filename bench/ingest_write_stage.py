"""The import's stages other than embedding, side by side: all of LoCoMo through `pulse import`'s
pipeline with the embedder replaced by a lookup of vectors the real embedder computed once (the
same vectors, so the same memory is written), for this tree's code and other trees' (`--code`,
e.g. an export of main), alternating, each in its own process. CPU seconds of the whole import
and of Writer.write (resolve, link, pool, journal, index); the machine is shared, so CPU is the
figure to compare, and rounds alternate so that drifts in load hit every side alike.

    nice .venv/bin/python bench/locomo_to_chat.py --out var/locomo-chat
    PULSE_BENCH_CACHE=var/bench-cache nice .venv/bin/python bench/ingest_write_stage.py \\
        --chat var/locomo-chat --code ../main-export --rounds 2

The first run embeds every text once (a full import's embedding) into
$PULSE_BENCH_CACHE/locomo-import-vectors.pkl. `--stdlib-sqlite` also runs this tree on Python's
own sqlite3 instead of SQLCipher's (what the library costs; Pulse itself always uses SQLCipher).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]


def child(args: argparse.Namespace) -> None:
    """One import with cached vectors, run with the code on sys.path[0] (this tree or --code)."""
    if args.stdlib_sqlite:
        import sqlite3

        shim = type(sys)("sqlcipher3")
        shim.dbapi2 = sqlite3
        sys.modules["sqlcipher3"], sys.modules["sqlcipher3.dbapi2"] = shim, sqlite3
    import numpy as np

    from core.ingest import ingest_files, pipeline
    from core.memory import Memory
    from core.store import records

    cache_path = Path(args.vectors)
    cache: dict[str, tuple[str, np.ndarray]] = (
        pickle.loads(cache_path.read_bytes()) if cache_path.exists() else {})
    db = Path(args.db)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    memory = Memory.open(db, create=True)
    real = memory.embed_texts

    def embed(texts, progress=None, **kw):
        missing = [t for t in texts if t not in cache]
        if missing:
            for text, vec in zip(missing, real(missing, **kw)):
                cache[text] = (vec.model, vec.values)
        return [records.Vector(*cache[t]) for t in texts]

    memory.embed_texts = embed
    write_cpu = [0.0]
    write = pipeline.Writer.write

    def timed_write(self, *a, **k):
        t = time.process_time()
        try:
            return write(self, *a, **k)
        finally:
            write_cpu[0] += time.process_time() - t

    pipeline.Writer.write = timed_write
    files = sorted(Path(args.chat).glob("*.jsonl"))
    load0 = os.getloadavg()[0]
    cpu0, wall0 = time.process_time(), time.perf_counter()
    summary = ingest_files(memory, files)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    counts = memory.stats()["counts"]
    memory.close()
    if not cache_path.exists():
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        cache_path.write_bytes(pickle.dumps(cache))
    print(json.dumps({"cpu_s": round(cpu, 2), "write_cpu_s": round(write_cpu[0], 2),
                      "wall_s": round(wall, 2), "load_before": round(load0, 1),
                      "events": summary["total"]["events"], "counts": counts}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chat", default="var/locomo-chat")
    ap.add_argument("--code", action="append", default=[],
                    help="another tree's root to run side by side (repeatable)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--stdlib-sqlite", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--db", help=argparse.SUPPRESS)
    ap.add_argument("--vectors", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    cache = Path(os.environ.get("PULSE_BENCH_CACHE", "/tmp/pulse-bench-cache"))
    vectors = cache / "locomo-import-vectors.pkl"
    sides = [("this tree", str(ROOT), False)] + [(code, str(Path(code).resolve()), False)
                                               for code in args.code]
    if args.stdlib_sqlite:
        sides.append(("this tree, stdlib sqlite3", str(ROOT), True))
    results: dict[str, list[dict]] = {name: [] for name, _, _ in sides}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            for name, code, stdlib in sides:
                cmd = [sys.executable, str(HERE), "--child", "--chat", args.chat,
                       "--db", f"{tmp}/m.db", "--vectors", str(vectors)]
                if stdlib:
                    cmd.append("--stdlib-sqlite")
                env = {**os.environ, "PYTHONPATH": code, "PULSE_EMBED_THREADS": "2"}
                out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
                row = json.loads(out.stdout.strip().splitlines()[-1])
                results[name].append(row)
                print(f"{name}: cpu {row['cpu_s']} s, write {row['write_cpu_s']} s, "
                      f"wall {row['wall_s']} s (load {row['load_before']})", flush=True)
    first = {json.dumps(r[0]["counts"], sort_keys=True) for r in results.values()}
    print("same counts on every side:", len(first) == 1)
    for name, rows in results.items():
        print(f"| {name} | {' / '.join(str(r['cpu_s']) for r in rows)} | "
              f"{' / '.join(str(r['write_cpu_s']) for r in rows)} |")


if __name__ == "__main__":
    main()
