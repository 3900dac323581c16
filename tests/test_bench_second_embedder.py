"""bench/second_embedder.py (round 7 of the state channel): its relevance normalisation is
pulse's, its ranks are 1-based with stable ties, and two joined embedders score the mean of
their cosines."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import second_embedder as probe  # noqa: E402


def test_the_median_maps_to_zero_the_best_to_one_and_below_the_median_is_cut() -> None:
    scores = np.array([0.2, 0.5, 0.8, 0.4, 0.6])
    out = probe.normalised(scores)
    assert out.tolist() == [0.0, 0.0, 1.0, 0.0, pytest.approx(0.1 / 0.3)]
    assert probe.normalised(np.full(4, 0.7)).tolist() == [0.0] * 4


def test_ranks_are_one_based_stable_on_ties_and_skip_missing_keys() -> None:
    scores = np.array([0.3, 0.9, 0.3, 0.1])
    keys = ["a", "b", "c", "d"]
    assert probe.ideal_ranks(scores, keys, ["b", "c", "a", "zz", "d"]) == [1, 3, 2, 4]


class _Fixed:
    def __init__(self, name: str, vectors: dict[str, list[float]]) -> None:
        self.name, self.dim = name, len(next(iter(vectors.values())))
        self.vectors = {k: np.asarray(v) / np.linalg.norm(v) for k, v in vectors.items()}

    def embed_passages(self, texts, progress=None):
        return np.vstack([self.vectors[t] for t in texts])

    def embed_query(self, text):
        return self.vectors[text]


def test_joined_vectors_score_the_mean_of_both_models_cosines() -> None:
    first = _Fixed("a", {"q": [1, 0, 0], "x": [1, 1, 0], "y": [0, 0, 1]})
    second = _Fixed("b", {"q": [0, 1], "x": [1, 0], "y": [1, 1]})
    joined = probe.Concatenated(first, second)
    assert (joined.name, joined.dim) == ("a+b", 5)
    docs = joined.embed_passages(["x", "y"])
    query = joined.embed_query("q")
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0)
    expected = [(first.vectors["q"] @ first.vectors[t] + second.vectors["q"] @ second.vectors[t]) / 2
                for t in ("x", "y")]
    assert np.allclose(docs @ query, expected)
