"""Round 6 of pulse's state channel, on the empathic TUNING half only: does naming the
state's mood and body in the query's words help the queries that carry a state?

    PULSE_BENCH_CACHE=… nice .venv/bin/python bench/query_state_words.py

A vague query ("I miss her so much", sad and guilty, sleepless) is far in meaning from its
moments. The probe embeds it with its state spelled out ("I miss her so much (feeling sad,
grieving, guilty, stressed, sleepless, exhausted)"), through the real scorer: either in the
dense channel only (the words reach the query vector, not BM25) or in both channels. Each
variant is compared with the shipped point in the same run; the bench's query-vector cache on
disk is left untouched (a changed text under the original key would poison it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from empathic_bench import EmpathicBench, load_queries, summarise  # noqa: E402

# plain words for each Plutchik-10 emotion, as a person would say them
MOOD_WORDS = {"joy": "happy, joyful", "trust": "safe, loved, supported",
              "fear": "afraid, anxious, worried", "surprise": "surprised, shocked",
              "sadness": "sad, grieving", "disgust": "disgusted", "anger": "angry, furious",
              "anticipation": "anticipating, nervous", "shame": "ashamed", "guilt": "guilty"}


def body_words(state: dict[str, Any]) -> list[str]:
    """The body's far ends in words; a middling or unrecorded signal says nothing."""
    words = []
    stress, sleep = state.get("stress_proxy"), state.get("sleep_quality")
    if stress is not None and stress >= 0.65:
        words.append("stressed")
    if stress is not None and stress <= 0.3:
        words.append("relaxed")
    if sleep is not None and sleep <= 0.35:
        words.append("sleepless, exhausted")
    if sleep is not None and sleep >= 0.75:
        words.append("well rested")
    return words


def spelled_out(query: dict[str, Any], with_body: bool, cut: float) -> str:
    """The query's text with its state's strongest feelings (≥ cut) and, optionally, body."""
    state = query.get("state") or {}
    mood = state.get("mood_vector") or {}
    parts = [MOOD_WORDS[e] for e, v in sorted(mood.items(), key=lambda kv: -kv[1]) if v >= cut]
    if with_body:
        parts += body_words(state)
    return f"{query['query']} (feeling {', '.join(parts)})" if parts else query["query"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuts", default="0.4,0.6", help="mood weights kept, comma-separated")
    args = parser.parse_args(argv)
    doc = load_queries()
    queries = [q for q in doc["queries"] if q["half"] == "tune"]
    bench = EmpathicBench(doc)
    for embedder in bench.embedders.values():
        embedder._disk = None          # never save an augmented vector under a plain text

    def line(name: str, summary: dict[str, Any]) -> None:
        print(f"{name:<28} all {summary['all']['recall3']:.3f}  mood+body "
              f"{summary['mood_body']['recall3']:.3f}  multi-signal "
              f"{summary['multi_signal']['recall3']:.3f}  leaks {summary['domain_leaks']}")

    line("shipped point", summarise(bench.evaluate(queries, "pulse")))
    for with_body in (False, True):
        for cut in (float(c) for c in args.cuts.split(",")):
            for dense_only in (True, False):
                variant, plain = [], []
                for q in queries:
                    text = spelled_out(q, with_body, cut) if q.get("state") else q["query"]
                    if dense_only and text != q["query"]:
                        # the spelled-out vector under the plain text, for this run only
                        embedder = bench.embedders[q["memory"]]
                        plain.append((embedder, q["query"], embedder.embed_query(q["query"])))
                        embedder._mem[q["query"]] = embedder.inner.embed_query(text)
                        variant.append(q)
                    else:
                        variant.append({**q, "query": text})
                summary = summarise(bench.evaluate(variant, "pulse"))
                for embedder, text, vector in plain:
                    embedder._mem[text] = vector
                name = f"{'mood+body' if with_body else 'mood'} ≥{cut} {'dense' if dense_only else 'both'}"
                line(name, summary)
    bench.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
