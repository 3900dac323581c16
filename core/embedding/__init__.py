"""Embedding models behind one small interface (base.Embedder); pick one with get_embedder()."""

from core.embedding.base import Embedder
from core.embedding.registry import DEFAULT_MODEL, available_models, get_embedder

__all__ = ["DEFAULT_MODEL", "Embedder", "available_models", "get_embedder"]
