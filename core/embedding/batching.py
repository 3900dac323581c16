"""Shared helpers: embed in fixed-size batches with a progress callback, and L2-normalise."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

ProgressFn = Callable[[int, int], None]


def l2_normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length as float32; an all-zero row stays zero (no NaN)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return (matrix / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


def embed_in_batches(
    encode: Callable[[list[str]], np.ndarray],
    texts: Sequence[str],
    dim: int,
    batch_size: int,
    progress: ProgressFn | None = None,
) -> np.ndarray:
    """Run `encode` over `texts` batch by batch into one (n, dim) float32 matrix.

    Batching bounds memory and lets a UI show progress while a memory is (re-)embedded;
    progress(done, total) is called after every batch (and once with (0, 0) for no texts).
    """
    texts = list(texts)
    total = len(texts)
    out = np.empty((total, dim), dtype=np.float32)
    if total == 0:
        if progress:
            progress(0, 0)
        return out
    for start in range(0, total, batch_size):
        chunk = texts[start : start + batch_size]
        out[start : start + len(chunk)] = l2_normalise(encode(chunk))
        if progress:
            progress(start + len(chunk), total)
    return out
