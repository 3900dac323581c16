"""The embedder interface: every model (offline default, fallback, OpenAI) sits behind it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np


class Embedder(Protocol):
    #: Recorded with every stored vector; a query only ever compares vectors of one name.
    name: str
    dim: int

    def embed_passages(
        self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None
    ) -> np.ndarray:
        """(len(texts), dim) float32, each row L2-normalised. Uses the model's passage convention."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """(dim,) float32, L2-normalised. Uses the model's query convention (e.g. e5 "query: ")."""
        ...
