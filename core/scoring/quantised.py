"""int8 vectors for the first pass of a large index, with a bound on each row's error.

A row v is stored as codes c (int8, |c| ≤ 127) and a scale s (s = max|v| / 127), so
v = s·c + e. The query q is quantised the same way: q = t·k + f. Then exactly

    v·q = s·t·(c·k) + s·c·f + e·q,   so   |v·q − s·t·(c·k)| ≤ ‖s·c‖·‖f‖ + ‖e‖·‖q‖

(Cauchy–Schwarz on each term; the query is quantised in two parts, so f is what both leave). ‖s·c‖ and ‖e‖ are kept per row, so every approximate cosine
comes with a bound that provably holds; c·k is an exact integer product. The scorer then
computes the exact float32 cosine only for rows whose interval could matter (core/scoring/
dense.py).

The codes are kept transposed in blocks of BLOCK rows (dim × BLOCK each): onnxruntime's
MatMulInteger packs its right operand quickly, so q (1 × dim) times a block costs ~3 ms per
100,000 rows here, against ~20 ms for the float32 product (bench/speed.py). Without
onnxruntime the product falls back to numpy in float32 (slower; exact up to ~1,040 dims).
"""

from __future__ import annotations

import numpy as np

BLOCK = 16_384
_SLACK = 1e-4      # relative: covers float32 rounding of the exact product and of the norms


def quantise(vectors: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """float32 rows → (codes int8, scale, ‖s·c‖, ‖e‖, Σc; the last four float64)."""
    v = np.asarray(vectors, dtype=np.float32)
    peak = np.abs(v).max(axis=1) if v.shape[1] else np.zeros(v.shape[0], np.float32)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    codes = np.rint(v / scale[:, None]).clip(-127, 127).astype(np.int8)
    approx = codes.astype(np.float32) * scale[:, None]
    vec_norm = np.linalg.norm(approx, axis=1).astype(np.float32)
    err_norm = np.linalg.norm(v - approx, axis=1).astype(np.float32)
    return (codes, scale.astype(np.float64), vec_norm.astype(np.float64),
            err_norm.astype(np.float64), codes.sum(axis=1, dtype=np.int64).astype(np.float64))


# The query gets 7 bits (|k| ≤ 63, sent as k + 64): x86 kernels without VNNI add pairs of
# uint8 × int8 products in int16 with saturation, and 2 × 127 × 127 still fits where
# 2 × 255 × 127 would not (the products must be exact for the bound to hold).
QUERY_LEVELS = 63
_OFFSET = 64


def quantise_query(query: np.ndarray, n_parts: int = 2
                   ) -> tuple[list[tuple[np.ndarray, float]], float, float]:
    """The query as 7-bit parts, q = t1·k1 + t2·k2 + f (each k as uint8 offset by 64): the
    second part carries the first's rounding, so ‖f‖ is ~126 times smaller and the bound is
    nearly all the rows' own error. Returns ([(k1, t1), (k2, t2)], ‖f‖, ‖q‖). With one part
    the first pass costs half and the bound is about twice as wide (more rows re-scored:
    cheap when the float32 vectors are in memory)."""
    q = np.asarray(query, dtype=np.float64)
    parts, rest = [], q
    for _ in range(n_parts):
        peak = float(np.abs(rest).max()) if rest.size else 0.0
        t = peak / QUERY_LEVELS if peak > 0 else 1.0
        k = np.rint(rest / t).clip(-QUERY_LEVELS, QUERY_LEVELS)
        rest = rest - t * k
        parts.append(((k + _OFFSET).astype(np.uint8), t))
    return parts, float(np.linalg.norm(rest)), float(np.linalg.norm(q))


class QuantisedRows:
    """int8 codes of rows 0..capacity-1, transposed in blocks. Row r is column r % BLOCK of
    block r // BLOCK."""

    def __init__(self, dim: int, capacity: int = 0) -> None:
        self.dim = dim
        self.blocks: list[np.ndarray] = []
        self.reserve(capacity)

    @property
    def capacity(self) -> int:
        return len(self.blocks) * BLOCK

    def reserve(self, rows: int) -> None:
        while self.capacity < rows:
            self.blocks.append(np.zeros((self.dim, BLOCK), dtype=np.int8))

    def read(self, rows: np.ndarray) -> np.ndarray:
        """Codes of rows (k × dim)."""
        rows = np.asarray(rows, dtype=np.int64)
        out = np.empty((rows.shape[0], self.dim), dtype=np.int8)
        which = rows // BLOCK
        for b in np.unique(which).tolist():
            sel = which == b
            out[sel] = self.blocks[b][:, rows[sel] - b * BLOCK].T
        return out

    def write(self, rows: np.ndarray, codes: np.ndarray) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        which = rows // BLOCK
        for b in np.unique(which).tolist():
            sel = which == b
            self.blocks[b][:, rows[sel] - b * BLOCK] = codes[sel].T

    def write_range(self, start: int, codes: np.ndarray) -> None:
        """Codes of rows start, start+1, … (contiguous, block by block)."""
        done, k = 0, codes.shape[0]
        while done < k:
            r = start + done
            b, col = divmod(r, BLOCK)
            m = min(BLOCK - col, k - done)
            self.blocks[b][:, col: col + m] = codes[done: done + m].T
            done += m

    def products(self, queries_u8: np.ndarray, n: int) -> np.ndarray:
        """(k + 64)·c for each query row k (m × dim, uint8) and rows 0..n-1: m × n int32.
        One call per query row: with one row MLAS runs its fast path (two rows at once took
        over twice as long here)."""
        m = queries_u8.shape[0]
        out = np.empty((m, len(self.blocks) * BLOCK), dtype=np.int32)
        session = _session(self.dim)
        for b in range((n + BLOCK - 1) // BLOCK):
            block = self.blocks[b]
            used = min(BLOCK, n - b * BLOCK)
            if used < BLOCK // 2:
                # the last block's unused columns would cost as much as used ones: a copy of
                # the used ones is cheaper (at 100k rows block 7 holds 1,696 of 16,384)
                block = np.ascontiguousarray(block[:, :used])
            if session is not None:
                part = [session.run(None, {"A": queries_u8[i: i + 1], "B": block})[0][0]
                        for i in range(m)]
            else:
                part = np.rint(queries_u8.astype(np.float32) @ block.astype(np.float32))
            out[:, b * BLOCK: b * BLOCK + block.shape[1]] = part
        return out[:, :n]


_SESSIONS: dict[int, object | None] = {}


def _session(dim: int):
    """An onnxruntime session computing A·B for A uint8 m×dim, B int8 dim×≤BLOCK (no zero
    point: with one, MLAS takes a path six times slower here; the offset is taken off after)."""
    if dim not in _SESSIONS:
        try:
            import onnxruntime as ort
            from onnx import TensorProto, helper
        except ImportError:      # pragma: no cover - onnxruntime is a dependency
            _SESSIONS[dim] = None
            return None
        graph = helper.make_graph(
            [helper.make_node("MatMulInteger", ["A", "B"], ["Y"])], "int8_first_pass",
            [helper.make_tensor_value_info("A", TensorProto.UINT8, [None, dim]),
             helper.make_tensor_value_info("B", TensorProto.INT8, [dim, None])],
            [helper.make_tensor_value_info("Y", TensorProto.INT32, [None, None])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        _SESSIONS[dim] = ort.InferenceSession(model.SerializeToString(), options,
                                              providers=["CPUExecutionProvider"])
    return _SESSIONS[dim]


def approximate(rows: QuantisedRows, scale: np.ndarray, vec_norm: np.ndarray,
                err_norm: np.ndarray, code_sum: np.ndarray, query: np.ndarray,
                n_parts: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """(approximate cosine, bound on its error) of every row for a query. The per-row columns
    are float64 (code_sum holds integers, exact in float64)."""
    parts, rest, q_norm = quantise_query(query, n_parts)
    products = rows.products(np.stack([k for k, _ in parts]), scale.shape[0])
    # Σ(k + 64)·c − 64·Σc is k·c, an exact integer in float64 (|value| < 2**31); then × t, × s
    offset_sum = _OFFSET * code_sum
    approx = np.subtract(products[0], offset_sum)
    approx *= parts[0][1]
    for i in range(1, len(parts)):      # every part the bound counts as taken off the query
        term = np.subtract(products[i], offset_sum)
        term *= parts[i][1]
        approx += term
    approx *= scale
    bound = np.multiply(vec_norm, rest + _SLACK * q_norm)
    bound += err_norm * (q_norm * (1 + _SLACK))
    bound += 1e-7
    return approx, bound
