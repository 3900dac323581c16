"""The tagger interface: text in, ten emotion intensities (EMOTIONS order, 0..1) out."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import numpy as np


class EmotionTagger(Protocol):
    #: Recorded as the derivation of every tag it produces, with `version`.
    name: str
    version: str

    def tag(self, text: str) -> np.ndarray:
        """(10,) floats in 0..1, EMOTIONS order; all zeros when the text carries no emotion."""
        ...

    def tag_many(self, texts: Iterable[str]) -> np.ndarray:
        """(n, 10) floats in 0..1."""
        ...
