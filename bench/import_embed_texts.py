"""What an offline import of LoCoMo hands the embedder: every text of every embed call, counted
(calls, texts, distinct texts, tokens) and laid out in runs as the e5 embedder pads them, for
several run sizes (padded tokens, runs).

The import runs with its embedder replaced by a recorder that returns a fixed unit vector per
text (a hash of the text seeds it), so this takes the import's other stages only (≈ 25 s); the
texts are those of a real import, since a text is decided before its vector exists.

    nice .venv/bin/python bench/import_embed_texts.py --chat var/locomo-chat [--runs 512,256]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT  # noqa: E402,F401  (puts this tree first on sys.path)


def recorded_calls(chat: Path) -> list[list[str]]:
    from core.embedding.e5_onnx_embedder import NAME
    from core.ingest import ingest_files
    from core.memory import Memory
    from core.store import records

    calls: list[list[str]] = []

    def record(texts, progress=None, **_):
        calls.append(list(texts))
        out = []
        for text in texts:
            seed = int(hashlib.sha256(text.encode()).hexdigest()[:12], 16)
            vector = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
            out.append(records.Vector(NAME, vector / np.linalg.norm(vector)))
        return out

    with tempfile.TemporaryDirectory() as tmp:
        memory = Memory.open(Path(tmp) / "texts.db", create=True)
        memory.embed_texts = record
        ingest_files(memory, sorted(chat.glob("*.jsonl")))
        memory.close()
    return calls


def layout(calls: list[list[str]], sizes: list[int]) -> dict:
    from core.embedding.e5_onnx_embedder import E5OnnxEmbedder, _batches

    embedder = E5OnnxEmbedder(threads=1)
    tokenizer, window = embedder._tokenizer, embedder._window
    texts = [t for call in calls for t in call]
    lengths = np.array([embedder.token_count(t) for t in texts])
    out = {"calls": len(calls), "texts": len(texts), "distinct_texts": len(set(texts)),
           "most_repeated": Counter(texts).most_common(3),
           "tokens": int(lengths.sum()), "tokens_mean": round(float(lengths.mean()), 1),
           "tokens_p90": float(np.percentile(lengths, 90)), "tokens_max": int(lengths.max()),
           "runs": {}}
    for size in sizes:
        padded = runs = 0
        for call in calls:                  # as _embed lays out one call
            windows = []
            for i, text in enumerate(call):
                ids = tokenizer.content_ids("passage: " + text)
                windows += [(i, ids[a:a + window]) for a in range(0, max(len(ids), 1), window)]
            windows.sort(key=lambda w: len(w[1]))
            for run in _batches(windows, size):
                padded += len(run) * (max(len(ids) for _, ids in run) + 2)
                runs += 1
        out["runs"][size] = {"runs": runs, "padded_tokens": padded,
                             "padding_share": round(padded / out["tokens"] - 1, 4)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chat", default="var/locomo-chat")
    ap.add_argument("--runs", default="512,256", help="padded tokens per run to lay out")
    args = ap.parse_args()
    calls = recorded_calls(Path(args.chat))
    print(json.dumps(layout(calls, [int(s) for s in args.runs.split(",")]), indent=1))


if __name__ == "__main__":
    main()
