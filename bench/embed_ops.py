"""Where the passage graph's time goes, per operator type, robust to a shared machine: the runs
of one import call (145 LoCoMo turn texts, laid out as the embedder lays them out) repeated on
one thread with onnxruntime's profiler, and for every node of every run the **minimum** kernel
time over the repeats (other jobs' preemption only ever adds time), summed per operator type.

    nice .venv/bin/python bench/embed_ops.py [--runs 512,256] [--repeats 6] [--float]

Prints, per run size: the padded tokens, the summed minimum kernel milliseconds and the share of
each operator type.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import LOCOMO, load_locomo  # noqa: E402


def call_texts(n: int = 145) -> list[str]:
    """The first n LoCoMo turns as the offline import embeds them."""
    from embed_throughput import import_texts

    return import_texts(load_locomo(LOCOMO))[0][:n]


def profile(texts: list[str], run_tokens: int, repeats: int, int8: bool = True) -> dict:
    from core.embedding.e5_onnx_embedder import E5OnnxEmbedder, _batches

    embedder = E5OnnxEmbedder(threads=1, int8_passages=False)
    ort = embedder._ort
    with tempfile.TemporaryDirectory() as tmp:
        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.enable_profiling = True
        options.profile_file_prefix = str(Path(tmp) / "ops")
        graph, external = embedder._build(embedder._weights, int8=int8)
        values = [ort.OrtValue.ortvalue_from_numpy(a) for a in external.values()]
        options.add_external_initializers(list(external), values)
        session = ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
        windows = sorted(((i, embedder._tokenizer.content_ids("passage: " + t)[:embedder._window])
                          for i, t in enumerate(texts)), key=lambda w: len(w[1]))
        runs = [[ids for _, ids in run] for run in _batches(windows, run_tokens)]
        for _ in range(repeats):
            for run in runs:
                embedder._run(session, run)
        events = json.loads(Path(session.end_profiling()).read_text())
    seen: dict[str, int] = defaultdict(int)
    times: dict[tuple[str, int], list[float]] = defaultdict(list)
    kinds: dict[str, str] = {}
    for event in events:
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            node = event["name"]
            times[(node, seen[node] % len(runs))].append(event["dur"])   # this node, this run
            seen[node] += 1
            kinds[node] = event["args"]["op_name"]
    per_op: dict[str, float] = defaultdict(float)
    for (node, _), durations in times.items():
        per_op[kinds[node]] += min(durations) / 1000
    total = sum(per_op.values())
    return {"runs": len(runs),
            "padded_tokens": sum(len(r) * (max(map(len, r)) + 2) for r in runs),
            "kernel_ms": round(total, 1),
            "ops": {k: {"ms": round(v, 1), "share": round(v / total, 3)}
                    for k, v in sorted(per_op.items(), key=lambda kv: -kv[1])}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", default="512,256", help="padded tokens per run to compare")
    ap.add_argument("--repeats", type=int, default=6)
    ap.add_argument("--float", action="store_true", help="the float graph instead of int8")
    args = ap.parse_args()
    texts = call_texts()
    result = {"texts": len(texts), "graph": "float" if args.float else "int8",
              "load_avg_before": os.getloadavg()[0], "run_tokens": {}}
    for size in (int(s) for s in args.runs.split(",")):
        result["run_tokens"][size] = profile(texts, size, args.repeats, int8=not args.float)
    result["load_avg_after"] = os.getloadavg()[0]
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
