"""Embedding beside writing (an import's batch in two halves): while the importing thread
writes the first half of a batch (one core), another thread embeds the second half.

Why it is exact: the whole batch is extracted first (extraction reads what earlier batches
wrote), and a text's vector does not depend on what it is embedded with (e5_onnx_embedder.py),
so the halves get the same vectors and the same things are written in the same order. The
second thread never touches the memory file: Writer.finish only tokenises, embeds and tags.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.ingest import formats
    from core.ingest.pipeline import Prepared, Writer

OVERLAP_MIN = 16            # a batch is split in two for the overlap from this many messages


class Overlap:
    """The thread that embeds a batch's second half, and the embedder it uses (resolved on
    the importing thread, at the first batch that is split)."""

    def __init__(self, memory: Any) -> None:
        self.memory = memory
        self.embedder: Any = None
        self.pool: ThreadPoolExecutor | None = None

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        if self.pool is None:
            self.embedder = self.memory.embedder()
            self.pool = ThreadPoolExecutor(1, thread_name_prefix="pulse-prep")
        return self.pool.submit(fn, *args, embedder=self.embedder)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


def embed_beside_writing(memory: Any) -> Overlap | None:
    """Embedding beside writing, when the import may use every core: while the first half of
    a batch is written (one core), the second half is embedded on another thread. Off where
    PULSE_EMBED_THREADS keeps a core free (the desktop app's UI thread)."""
    if os.environ.get("PULSE_EMBED_THREADS") or (os.cpu_count() or 1) < 2:
        return None
    return Overlap(memory)


def prepared_parts(writer: Writer, items: list[tuple[formats.Message, int]],
                   overlap: Overlap | None) -> Iterator[list[Prepared]]:
    """The batch's Prepared items, in order, in one part or two. With two, the second half's
    vectors and emotions are computed on the overlap's thread while the caller writes the first
    half. The vectors are the same bits either way (a text's vector does not depend on what it
    is embedded with), and the extraction ran for the whole batch first, so what is written
    does not change; only the padded batches of the two halves differ (≈ 1-2 % more CPU in
    the embedding)."""
    extractions = writer.extract_offline(items)
    if overlap is None or len(items) < OVERLAP_MIN:
        yield writer.finish(items, extractions)
        return
    mid = len(items) // 2
    first = writer.finish(items[:mid], extractions[:mid])
    second = overlap.submit(writer.finish, items[mid:], extractions[mid:])
    try:
        yield first
    finally:
        rest = second.result()      # also when the caller stopped: never leave it running
    yield rest
