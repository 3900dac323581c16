"""A ranking's per-term breakdown (ENGINE §3: every result's factors multiply to its score),
kept as the score's columns and turned into a dict only for the events a caller reads."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import numpy as np


class Breakdown(MutableMapping):
    """{event id: {"score", "terms"}} of every scored event, built from the score's columns
    only for the events asked for (a query returns top_k of its ~100-300 candidates; a dict of
    22 floats per candidate was most of the ranking's own time). An entry, once built, is
    kept, so a caller may mark it (chain mode's via_chain); entries may be added."""

    def __init__(self, ids: np.ndarray, score: np.ndarray,
                 columns: dict[str, np.ndarray | float]) -> None:
        self._at = {event_id: i for i, event_id in enumerate(ids.tolist())}
        self._score, self._columns = score, columns
        self._lists: tuple[list[float], list[tuple[str, list | None, float | None]]] | None = None
        self._built: dict[int, dict[str, Any]] = {}

    def __getitem__(self, event_id: int) -> dict[str, Any]:
        built = self._built.get(event_id)
        if built is None:
            i = self._at[event_id]           # KeyError: not scored
            if self._lists is None:          # Python floats and bools, as float() / bool()
                self._lists = self._score.tolist(), [
                    (name, value.tolist(), None) if isinstance(value, np.ndarray)
                    else (name, None, float(value)) for name, value in self._columns.items()]
            score, columns = self._lists
            terms = {name: constant if values is None else values[i]
                     for name, values, constant in columns}
            built = self._built[event_id] = {"score": score[i], "terms": terms}
        return built

    def __setitem__(self, event_id: int, value: dict[str, Any]) -> None:
        self._built[event_id] = value

    def __delitem__(self, event_id: int) -> None:
        raise TypeError("a breakdown keeps every scored event")

    def __contains__(self, event_id: object) -> bool:
        return event_id in self._at or event_id in self._built

    def __iter__(self):
        return iter(dict.fromkeys([*self._at, *self._built]))

    def __len__(self) -> int:
        return len(dict.fromkeys([*self._at, *self._built]))
