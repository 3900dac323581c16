"""Opt-in embedder through the OpenAI embeddings API (or any server that speaks it).

Chosen by a model alias "openai:<model>", e.g. "openai:text-embedding-3-small". The key comes
only from the OPENAI_API_KEY environment variable, never from a settings file or the database;
OPENAI_BASE_URL points the SDK at a compatible server (a local one may need no key).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from core.embedding.batching import ProgressFn, embed_in_batches, l2_normalise
from core.errors import PulseError

PREFIX = "openai:"
# Known output sizes, so `dim` needs no network call; other models are probed once.
KNOWN_DIMS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
BATCH_SIZE = 256  # well under the API's 2,048 inputs per request


class OpenAIEmbedder:
    def __init__(self, model: str, batch_size: int = BATCH_SIZE) -> None:
        try:
            import openai
        except ImportError as exc:
            raise PulseError("the 'openai' package is not installed: pip install openai") from exc
        api_key = os.environ.get("OPENAI_API_KEY")
        base_url = os.environ.get("OPENAI_BASE_URL") or None
        if not api_key and not base_url:
            raise PulseError(f"{PREFIX}{model} needs the OPENAI_API_KEY environment variable")
        self.name = PREFIX + model
        self._model = model
        self._batch_size = batch_size
        self._errors = (openai.OpenAIError,)
        # A local compatible server (OPENAI_BASE_URL) may accept any key; the SDK insists on one.
        self._client = openai.OpenAI(api_key=api_key or "unused", base_url=base_url)
        self._dim = KNOWN_DIMS.get(model)

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._request(["dimension probe"]).shape[1])
        return self._dim

    def _request(self, texts: list[str]) -> np.ndarray:
        # The API rejects empty strings; a single space embeds as "nothing" just the same.
        inputs = [t if t.strip() else " " for t in texts]
        try:
            response = self._client.embeddings.create(
                model=self._model, input=inputs, encoding_format="float"
            )
        except self._errors as exc:
            first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise PulseError(f"{self.name}: embeddings request failed: {first_line}") from exc
        rows = sorted(response.data, key=lambda item: item.index)
        if len(rows) != len(inputs):
            raise PulseError(f"{self.name}: asked for {len(inputs)} vectors, got {len(rows)}")
        return l2_normalise(np.array([row.embedding for row in rows], dtype=np.float32))

    def embed_passages(
        self, texts: Sequence[str], progress: ProgressFn | None = None
    ) -> np.ndarray:
        return embed_in_batches(self._request, texts, self.dim, self._batch_size, progress)

    def embed_query(self, text: str) -> np.ndarray:
        return self._request([text])[0]
