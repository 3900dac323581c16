"""Offline ingest throughput: all 10 LoCoMo conversations (≈ 5,900 turns) through `pulse import`'s
pipeline end to end (parse, decompose, extract, embed, tag, index, journal) into one fresh
memory; turns per second, peak memory, and the time of each stage.

    nice .venv/bin/python bench/locomo_to_chat.py --out /tmp/locomo-chat
    nice .venv/bin/python bench/ingest_throughput.py --chat /tmp/locomo-chat --db /tmp/ingest-bench.db
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, peak_rss_mb  # noqa: E402,F401


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chat", default="/tmp/locomo-chat")
    ap.add_argument("--db", default="/tmp/pulse-ingest-bench.db")
    args = ap.parse_args()
    from core.embedding.registry import get_embedder
    from core.ingest import formats, ingest_files, offline, pipeline
    from core.memory import Memory

    files = sorted(Path(args.chat).glob("*.jsonl"))
    if not files:
        sys.exit(f"no chat files in {args.chat}: run bench/locomo_to_chat.py first")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{args.db}{suffix}").unlink(missing_ok=True)
    get_embedder()  # model load is not ingest time
    stages: dict[str, float] = defaultdict(float)

    def timed(name, fn):
        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                stages[name] += time.perf_counter() - t
        return wrapper

    memory = Memory.open(args.db, create=True)
    memory.embed_texts = timed("embed", memory.embed_texts)
    memory.tag_texts = timed("tag emotions", memory.tag_texts)
    formats.PARSERS["chat"] = timed("parse", formats.PARSERS["chat"])
    pipeline.offline.extract_offline = timed("decompose+extract", offline.extract_offline)
    pipeline.Writer.write = timed("write (resolve, link, pool, journal, index)",
                                  pipeline.Writer.write)
    start, cpu0 = time.perf_counter(), time.process_time()
    load0 = os.getloadavg()[0]
    summary = ingest_files(memory, files)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu0
    load1 = os.getloadavg()[0]
    turns = sum(f["observations"]["new"] for f in summary["files"])
    # write includes the promotions' own embed/tag calls: report them once
    result = {"files": len(files), "turns": turns, "seconds": round(wall, 1), "cpu_seconds": round(cpu, 1),
              "load_avg_before_after": [round(load0, 1), round(load1, 1)],
              "turns_per_s": round(turns / wall, 1), "peak_rss_mb": round(peak_rss_mb(), 1),
              "stages_s": {k: round(v, 1) for k, v in sorted(stages.items(), key=lambda kv: -kv[1])},
              "total": summary["total"], "verify_breaks": len(memory.verify()),
              "stats": memory.stats()["counts"]}
    memory.close()
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
