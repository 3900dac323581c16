"""Calibrate the near-duplicate cosine on hand-labelled pairs; report on the held-out half.

    .venv/bin/python bench/near_duplicates.py [--models NAME,NAME] [--quick] [--json]

bench/storylines/near_duplicate_pairs.json holds 67 labelled pairs (duplicate / distinct),
split before any calibration into a `calibrate` half and a `report` half. Each item is embedded
the way an event is (records.embedding_text of its title and description; a chat turn gets the
importer's title and description). The rule is upkeep's own (core/upkeep/duplicates.py): cosine
≥ t, shared content words ≥ o, the same people, at most `duplicate_window_days` apart. (t, o)
maximise F1 on the calibration half (ties: the higher thresholds, fewer proposals); precision,
recall and F1 are then measured on the report half. Beside it, in the same run and calibrated
the same way: the rule without the word overlap (o = 0), and cosine alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PAIRS = ROOT / "bench" / "storylines" / "near_duplicate_pairs.json"


def item_fields(item: dict) -> tuple[str, str]:
    from core.ingest.pipeline import event_texts

    if "speaker" in item:
        return event_texts(item["speaker"], item["text"])
    return item["title"], item["description"]


def item_text(item: dict) -> str:
    from core.store.records import embedding_text

    return embedding_text(*item_fields(item))


def shared_words(pair: dict) -> float:
    from core.upkeep.duplicates import content_words, overlap

    return overlap(content_words(*item_fields(pair["a"])), content_words(*item_fields(pair["b"])))


def scores(pairs: list[dict], model: str) -> list[float]:
    import numpy as np

    from core.embedding.registry import get_embedder

    embedder = get_embedder(model)
    texts = [item_text(p[side]) for p in pairs for side in ("a", "b")]
    matrix = np.asarray(embedder.embed_passages(texts), dtype=np.float64)
    return [float(matrix[2 * i] @ matrix[2 * i + 1]) for i in range(len(pairs))]


def predict(pair: dict, cosine: float, t: float, o: float, window: float, rules: bool) -> bool:
    from core.upkeep.duplicates import days_between, is_duplicate

    if not rules:
        return cosine >= t
    a, b = pair["a"], pair["b"]
    return is_duplicate(cosine, pair["_shared"], frozenset(a["people"]), frozenset(b["people"]),
                        days_between(a["ts"], b["ts"]), t, o, window)


def prf(pairs: list[dict], cos: list[float], t: float, o: float, window: float,
        rules: bool) -> dict:
    tp = fp = fn = 0
    for pair, c in zip(pairs, cos):
        guess, truth = predict(pair, c, t, o, window, rules), pair["label"] == "duplicate"
        tp += guess and truth
        fp += guess and not truth
        fn += truth and not guess
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return {"precision": round(p, 4), "recall": round(r, 4),
            "f1": round(0.0 if p + r == 0 else 2 * p * r / (p + r), 4), "tp": tp, "fp": fp,
            "fn": fn, "n": len(pairs)}


def calibrate(pairs: list[dict], cos: list[float], window: float, rules: bool,
              words: bool) -> tuple[float, float]:
    cosines = [round(0.5 + 0.005 * i, 3) for i in range(101)]
    overlaps = [round(0.05 * i, 2) for i in range(17)] if words else [0.0]
    grid = [(t, o) for t in cosines for o in overlaps]
    return max(grid, key=lambda to: (prf(pairs, cos, to[0], to[1], window, rules)["f1"],
                                     to[0], to[1]))


def main() -> None:
    from core.embedding.registry import available_models
    from core.upkeep.settings import UpkeepSettings

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated embedding models (default: the "
                                         "local ones available)")
    parser.add_argument("--quick", action="store_true", help="the default model only")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    data = json.loads(PAIRS.read_text(encoding="utf-8"))
    pairs = data["pairs"]
    for pair in pairs:
        pair["_shared"] = shared_words(pair)
    local = [m for m in available_models() if not m.startswith("openai:")]
    models = args.models.split(",") if args.models else local[:1] if args.quick else local
    window = UpkeepSettings().duplicate_window_days
    report = {"pairs": len(pairs), "window_days": window, "models": {}}
    for model in models:
        cpu, wall = time.process_time(), time.perf_counter()
        cos = scores(pairs, model)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        cal = [(p, c) for p, c in zip(pairs, cos) if p["split"] == "calibrate"]
        rep = [(p, c) for p, c in zip(pairs, cos) if p["split"] == "report"]
        out = {"embed_wall_s": round(wall, 2), "embed_cpu_s": round(cpu, 2)}
        for name, rules, words in (("rule", True, True), ("no_overlap", True, False),
                                   ("cosine_only", False, False)):
            t, o = calibrate([p for p, _ in cal], [c for _, c in cal], window, rules, words)
            out[name] = {"threshold": t, "overlap": o,
                         "calibrate": prf([p for p, _ in cal], [c for _, c in cal], t, o,
                                          window, rules),
                         "report": prf([p for p, _ in rep], [c for _, c in rep], t, o, window,
                                       rules)}
        dup = sorted(c for p, c in cal if p["label"] == "duplicate")
        dis = sorted(c for p, c in cal if p["label"] == "distinct")
        out["calibrate_cosines"] = {"duplicate_min": round(dup[0], 4),
                                    "duplicate_median": round(dup[len(dup) // 2], 4),
                                    "distinct_median": round(dis[len(dis) // 2], 4),
                                    "distinct_max": round(dis[-1], 4)}
        report["models"][model] = out
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{len(pairs)} labelled pairs, window {window:g} days")
    for model, out in report["models"].items():
        print(f"\n{model}  (embedding {out['embed_wall_s']} s wall, {out['embed_cpu_s']} s CPU)")
        print(f"  calibration cosines: {out['calibrate_cosines']}")
        for name in ("rule", "no_overlap", "cosine_only"):
            r = out[name]
            print(f"  {name:<12} t={r['threshold']:.3f} o={r['overlap']:.2f}  calibrate F1 "
                  f"{r['calibrate']['f1']:.3f}"
                  f"  | report P {r['report']['precision']:.3f} R {r['report']['recall']:.3f}"
                  f" F1 {r['report']['f1']:.3f} (tp {r['report']['tp']}, fp {r['report']['fp']},"
                  f" fn {r['report']['fn']}, n {r['report']['n']})")


if __name__ == "__main__":
    main()
