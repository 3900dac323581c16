"""Does intensity gating lose what matters? LoCoMo imported with the OFFLINE extractor (segments,
θ routing, the pool and its promotions) against turn-per-event import (the engine issue's
baseline: one `operational` event per turn through pulse-corpus/1), both queried with
`--scorer hybrid` for every question (categories 1–4) that has evidence.

Metric: recall@10 of the evidence turns through `sources`: the top 10 results' sources, in
result order, distinct, counting at most the first 20 (so a large distilled event cannot
inflate it); per question the share of its evidence turns found; averaged over questions.

    nice .venv/bin/python bench/locomo_to_chat.py --out /tmp/locomo-chat
    nice .venv/bin/python bench/locomo_offline_recall.py --chat /tmp/locomo-chat
    nice .venv/bin/python bench/locomo_offline_recall.py --chat /tmp/locomo-chat --no-text-dates

Vectors of texts the baseline already embedded are reused (the default embedder is
batch-invariant, bit for bit, so this only saves time); query vectors are cached on disk
under /tmp.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CACHE, CachingEmbedder, load_locomo, locomo_memory, locomo_now, scorer_with  # noqa: E402

SOURCE_CAP = 20
CACHE_TAG = ""
TOP_K = 10


def recall_for(memory, questions, now, embedder, strip_prefix: str = "") -> tuple[float, list]:
    scorer = scorer_with(memory, embedder)
    per_q = []
    for q in questions:
        req = memory.request(q["question"], top_k=TOP_K, scorer="hybrid", now=now)
        out = scorer.retrieve(req)
        found: list[str] = []
        for r in out["results"]:
            for s in r["sources"]:
                sid = s["source_id"]
                if strip_prefix and sid.startswith(strip_prefix):
                    sid = sid[len(strip_prefix):]
                if sid not in found:
                    found.append(sid)
        found = found[:SOURCE_CAP]
        ev = q["evidence"]
        per_q.append(sum(1 for e in ev if e in found) / len(ev))
    return float(np.mean(per_q)) if per_q else float("nan"), per_q


def code_digest() -> str:
    """What the cached offline memories depend on: the ingest code, the embedded-text rule
    (core/store/records.py) and the default embedder."""
    from core.embedding.registry import get_embedder

    core = Path(__file__).resolve().parents[1] / "core"
    h = hashlib.sha256(get_embedder().name.encode())
    for p in [*sorted((core / "ingest").glob("*.py")), core / "store" / "records.py"]:
        h.update(p.read_bytes())
    return h.hexdigest()[:10]


def offline_memory(conv, chat_dir: Path, baseline, log) -> object:
    from core.ingest import ingest_files
    from core.memory import Memory
    from core.store import records

    path = CACHE / f"offline-{conv['sample_id']}-{code_digest()}{CACHE_TAG}.db"
    done = path.with_suffix(".ok")
    if path.exists() and done.exists():
        return Memory.open(path), json.loads(done.read_text())
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    # keyed by the embedded text itself: the same text gives the same vector, bit for bit
    known = {records.embedding_text(r[0], r[1]): np.frombuffer(r[2], dtype=np.float32).copy()
             for r in baseline.conn.execute(
                 "SELECT e.title, e.description, v.vector FROM events e"
                 " JOIN event_embeddings v ON v.event_id = e.id")}
    memory = Memory.open(path, create=True)
    real = memory.embed_texts
    hits = {"reused": 0, "embedded": 0}

    def cached_embed(texts, progress=None):
        out: list = [None] * len(texts)
        missing = []
        for i, t in enumerate(texts):
            vec = known.get(t)
            if vec is not None:
                out[i] = records.Vector(memory.embedding_model, vec)
            else:
                missing.append(i)
        if missing:
            for i, v in zip(missing, real([texts[i] for i in missing])):
                out[i] = v
        hits["reused"] += len(texts) - len(missing)
        hits["embedded"] += len(missing)
        return out

    memory.embed_texts = cached_embed
    start = time.perf_counter()
    summary = ingest_files(memory, [chat_dir / f"{conv['sample_id']}.jsonl"])
    info = {"seconds": round(time.perf_counter() - start, 1), **hits,
            "total": summary["total"]}
    memory.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    done.write_text(json.dumps(info))
    log(f"  offline import {conv['sample_id']}: {json.dumps(info['total']['events'])} "
        f"in {info['seconds']} s")
    return memory, info


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chat", default="/tmp/locomo-chat")
    ap.add_argument("--conversations", type=int, default=10)
    ap.add_argument("--no-text-dates", action="store_true",
                    help="date every event by its message (measures what dates from the text cost)")
    args = ap.parse_args()
    if args.no_text_dates:
        from core.ingest import dates

        dates.resolve = lambda text, anchor_ts: None
        global CACHE_TAG
        CACHE_TAG = "-no-text-dates"
    from core.embedding.registry import get_embedder

    def log(s: str) -> None:
        print(s, file=sys.stderr, flush=True)

    queries = CachingEmbedder(get_embedder(), disk=CACHE / "ingest-recall-queries.npy")
    rows, all_base, all_off = [], [], []
    for conv in load_locomo()[: args.conversations]:
        baseline = locomo_memory(conv, log=log)
        offline, info = offline_memory(conv, Path(args.chat), baseline, log)
        now = locomo_now(conv)
        b, bq = recall_for(baseline, conv["questions"], now, queries,
                           strip_prefix=f"{conv['sample_id']}:")
        o, oq = recall_for(offline, conv["questions"], now, queries)
        queries.save()
        all_base += bq
        all_off += oq
        ev = info["total"]["events"]
        rows.append({"conversation": conv["sample_id"], "questions": len(bq),
                     "turn_per_event": round(b, 4), "offline": round(o, 4),
                     "vivid": ev["vivid"], "pooled": ev["pooled"], "distilled": ev["distilled"],
                     "absorbed": ev["absorbed"]})
        log(json.dumps(rows[-1]))
        baseline.close()
        offline.close()
    result = {"metric": f"recall@{TOP_K} of evidence turns via sources (first {SOURCE_CAP} "
                        f"distinct), hybrid scorer, LoCoMo categories 1-4",
              "questions": len(all_base),
              "turn_per_event": round(float(np.mean(all_base)), 4),
              "offline": round(float(np.mean(all_off)), 4),
              "gap": round(float(np.mean(all_base) - np.mean(all_off)), 4),
              "conversations": rows}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
