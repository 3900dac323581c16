"""Every scorer constant in one object (ENGINE §3): the playground changes it per query, the CLI
reads it from a file. Defaults are the contract's."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from core.beliefs import ANCHOR_DECAY_PER_DAY, DECAY_PER_DAY
from core.errors import ValidationError


@dataclass(frozen=True)
class ScorerSettings:
    alpha: float = 0.5                 # share of relevance that time cannot take away
    beta_emotion: float = 0.15
    gamma_state: float = 0.15
    delta_anchor: float = 0.05
    delta_date: float = 0.25
    decay_per_day: dict[str, float] = field(default_factory=lambda: dict(DECAY_PER_DAY))
    anchor_decay_per_day: float = ANCHOR_DECAY_PER_DAY
    emotion_gate: float = 0.5          # a mood or query emotion this strong opens the gate
    hint_gate: float = 0.5             # the mood's dominant emotion this strong adds a hint
    anchor_top: int = 8                # anchors get their boost among the top 8 by base
    candidates_min: int = 50           # N = max(candidates_min, candidates_per_k × top_k)
    candidates_per_k: int = 10
    normalise_min_events: int = 20     # below this, relevance is plain max(cos, 0)
    median_exact_limit: int = 50_000   # above this, the median comes from a fixed sample
    median_sample: int = 4096
    hybrid_dense_weight: float = 0.45  # linear fusion weight of the dense channel
    chain_depth: int = 4
    chain_widen_min: int = 9
    state_fit_entity: float = 0.7      # fit when a recent life event names a linked entity

    def with_overrides(self, overrides: dict[str, Any] | None) -> ScorerSettings:
        if not overrides:
            return self
        known = {f.name for f in fields(self)}
        unknown = set(overrides) - known
        if unknown:
            raise ValidationError(f"scorer settings: unknown keys {sorted(unknown)}")
        clean: dict[str, Any] = {}
        for name, value in overrides.items():
            default = getattr(self, name)
            if isinstance(default, dict):
                if not isinstance(value, dict) or set(value) - set(default):
                    raise ValidationError(f"scorer settings: {name} must map {sorted(default)}")
                clean[name] = {**default, **{k: float(v) for k, v in value.items()}}
            elif isinstance(default, int) and not isinstance(default, bool):
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    raise ValidationError(f"scorer settings: {name} must be a whole number ≥ 0")
                clean[name] = value
            else:
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    raise ValidationError(f"scorer settings: {name} must be a number")
                clean[name] = float(value)
        if not 0.0 <= clean.get("alpha", self.alpha) <= 1.0:
            raise ValidationError("scorer settings: alpha must be in 0..1")
        return replace(self, **clean)

    @classmethod
    def from_file(cls, path: str | Path) -> ScorerSettings:
        from core.store.locks import refuse_if_held

        refuse_if_held(path)
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ValidationError(f"{path}: cannot read settings ({exc.strerror})") from None
        except ValueError as exc:
            raise ValidationError(f"{path}: not valid JSON ({exc})") from None
        if not isinstance(data, dict):
            raise ValidationError(f"{path}: settings must be a JSON object")
        return cls().with_overrides(data)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


DEFAULT_SETTINGS = ScorerSettings()
