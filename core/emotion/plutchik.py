"""The ten emotions Pulse tracks (Plutchik's eight plus shame and guilt) and vector helpers."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

EMOTIONS: tuple[str, ...] = (
    "joy", "sadness", "anger", "fear", "trust",
    "disgust", "anticipation", "surprise", "shame", "guilt",
)
EMOTION_INDEX = {name: i for i, name in enumerate(EMOTIONS)}


def to_vector(values: Mapping[str, float] | None) -> np.ndarray:
    """A mapping {emotion: 0..1} as a float64 vector in EMOTIONS order (missing → 0)."""
    vec = np.zeros(len(EMOTIONS), dtype=np.float64)
    for name, value in (values or {}).items():
        vec[EMOTION_INDEX[name]] = float(value)
    return vec


def to_mapping(vec) -> dict[str, float]:
    return {name: float(vec[i]) for i, name in enumerate(EMOTIONS)}


def cos10(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine between two emotion vectors; 0 when either is all zeros."""
    na = float(np.linalg.norm(a))
    nb = float(np.linalg.norm(b))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(np.dot(a, b) / (na * nb))
