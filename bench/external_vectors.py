"""Round 8 of pulse's state channel, on the empathic TUNING half only: would a stronger
sentence model than the ones the project ships bring the vague, stateful queries nearer to
their moments? The model runs outside the project (its own venv, e.g. torch), so this script
works on vectors computed elsewhere:

    .venv/bin/python bench/external_vectors.py export /tmp/texts.json
    OTHER_VENV/bin/python bench/encode_sentence_model.py /tmp/texts.json MODEL_DIR /tmp/vectors.npz
    PULSE_BENCH_CACHE=… nice .venv/bin/python bench/external_vectors.py measure /tmp/vectors.npz

`export` writes every event's embedded text of both bench memories and the tuning half's query
texts (never the test half's). `measure` prints, for the stateful tuning queries (mood + body,
multi-signal), where their ideal events stand by plain cosine under e5, under the other model
and under both (each normalised as pulse normalises relevance, summed); then pulse itself on the
whole tuning half with each memory re-embedded (in a copy) by the other model, or by both
joined, at a few dense weights.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from empathic_bench import EmpathicBench, load_queries, summarise  # noqa: E402
from second_embedder import (  # noqa: E402
    STATEFUL,
    Concatenated,
    _event_texts,
    print_ranks,
    raw_ranks,
    second_model_bench,
)


class LookupEmbedder:
    """Vectors computed by another program, found by their text (an unknown text is an error,
    never a silent zero)."""

    def __init__(self, path: Path) -> None:
        data = np.load(path, allow_pickle=False)
        texts = json.loads(str(data["texts"]))
        self.name = str(data["model"])
        self._passages = dict(zip(texts["passages"], data["passages"]))
        self._queries = dict(zip(texts["queries"], data["queries"]))
        self.dim = int(data["passages"].shape[1])

    def embed_passages(self, texts, progress=None) -> np.ndarray:
        missing = [t for t in texts if t not in self._passages]
        if missing:
            raise SystemExit(f"{len(missing)} event texts have no vector; re-run export: "
                             f"{missing[0][:60]!r}")
        return np.stack([self._passages[t] for t in texts]).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self._queries:
            raise SystemExit(f"the query {text!r} has no vector; re-run export")
        return self._queries[text].astype(np.float32)


def export(out: Path) -> None:
    doc = load_queries()
    bench = EmpathicBench(doc)
    passages: list[str] = []
    for memory in bench.memories.values():
        passages.extend(_event_texts(memory)[1])
    bench.close()
    queries = [q["query"] for q in doc["queries"] if q["half"] == "tune"]
    out.write_text(json.dumps({"passages": sorted(set(passages)), "queries": sorted(set(queries))},
                              ensure_ascii=False), encoding="utf-8")
    print(f"{len(set(passages))} event texts, {len(set(queries))} tuning queries → {out}")


def measure(path: Path, weights: list[float]) -> None:
    other = LookupEmbedder(path)
    doc = load_queries()
    queries = [q for q in doc["queries"] if q["half"] == "tune"]
    stateful = [q for q in queries if q["category"] in STATEFUL]
    bench = EmpathicBench(doc)
    ranks = raw_ranks(bench, stateful, other)
    ranks[other.name] = ranks.pop("second")
    print(f"raw ranks of the ideal events of {len(stateful)} stateful tuning queries")
    print_ranks({label: ranks[label] for label in ("e5", other.name, "both")})

    def line(label: str, s: dict) -> None:
        print(f"  {label:<28} all {s['all']['recall3']:.3f}  mood+body {s['mood_body']['recall3']:.3f}"
              f"  multi-signal {s['multi_signal']['recall3']:.3f}  leaks {s['domain_leaks']}"
              f"  abstained {s['abstained']}")

    print("pulse on the tuning half")
    line("e5 (shipped)", summarise(bench.evaluate(queries, "pulse")))
    bench.close()
    for label, embedder_of in ((other.name, lambda memory: other),
                               ("both", lambda memory: Concatenated(memory.embedder(), other))):
        with tempfile.TemporaryDirectory() as folder:
            variant = second_model_bench(EmpathicBench(doc), embedder_of, Path(folder))
            for w in weights:
                # another model's memory never abstains: the thresholds are e5's (abstain_model)
                line(f"{label} w={w}", summarise(variant.evaluate(
                    queries, "pulse", {"hybrid_dense_weight": w})))
            variant.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("export").add_argument("out", type=Path)
    m = sub.add_parser("measure")
    m.add_argument("vectors", type=Path)
    m.add_argument("--dense-weights", default="0.6,0.75,0.9")
    args = parser.parse_args(argv)
    if args.command == "export":
        export(args.out)
    else:
        measure(args.vectors, [float(w) for w in args.dense_weights.split(",")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
