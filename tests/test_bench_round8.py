"""Round 8 of the state channel's bench scripts: vectors computed by another program are found
by their exact text (an unknown text stops the run instead of scoring as zero), and an event's
best sentence is the maximum over its own sentences only."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import external_vectors  # noqa: E402
import sentence_similarity  # noqa: E402


def _vectors(path: Path) -> Path:
    texts = {"passages": ["she swam", "he sang"], "queries": ["did the scary thing"]}
    np.savez(path, passages=np.array([[1.0, 0.0], [0.0, 1.0]], np.float32),
             queries=np.array([[0.6, 0.8]], np.float32), texts=json.dumps(texts), model="other")
    return path


def test_external_vectors_are_found_by_text_in_any_order(tmp_path: Path) -> None:
    embedder = external_vectors.LookupEmbedder(_vectors(tmp_path / "v.npz"))
    assert (embedder.name, embedder.dim) == ("other", 2)
    assert embedder.embed_passages(["he sang", "she swam"]).tolist() == [[0.0, 1.0], [1.0, 0.0]]
    assert embedder.embed_query("did the scary thing") @ np.array([1.0, 0.0]) == pytest.approx(0.6)


def test_a_text_without_a_vector_stops_the_run(tmp_path: Path) -> None:
    embedder = external_vectors.LookupEmbedder(_vectors(tmp_path / "v.npz"))
    with pytest.raises(SystemExit, match="no vector"):
        embedder.embed_passages(["she swam", "a text exported after"])
    with pytest.raises(SystemExit, match="no vector"):
        embedder.embed_query("a query of the test half")


def test_best_sentence_is_each_events_own_maximum() -> None:
    owners = np.array([0, 0, 2, 2, 2])        # event 1 has no sentence of its own
    sentences = np.array([[1, 0], [0, 1], [0.6, 0.8], [-1, 0], [0, -1]], np.float32)
    best = sentence_similarity.best_sentence(owners, sentences, np.array([0.0, 1.0], np.float32), 3)
    assert best[0] == pytest.approx(1.0)
    assert best[1] == -np.inf
    assert best[2] == pytest.approx(0.8)
