"""Every scorer constant in one object (ENGINE §3): the playground changes it per query, the CLI
reads it from a file. Defaults are the contract's."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from core.beliefs import ANCHOR_DECAY_PER_DAY, DECAY_PER_DAY
from core.errors import ValidationError

# Temporal phrases (whole words) → the reference age in days (ENGINE §3, date factor).
DATE_PHRASE_DAYS: dict[str, float] = {
    "today": 0, "yesterday": 1, "this week": 3, "recently": 3, "last few days": 3,
    "past few days": 3, "last week": 10, "this month": 15, "last month": 40,
    "сегодня": 0, "вчера": 1, "на этой неделе": 3, "недавно": 3,
    "последние несколько дней": 3, "последние дни": 3, "на прошлой неделе": 10,
    "в этом месяце": 15, "в прошлом месяце": 40,
}


@dataclass(frozen=True)
class ScorerSettings:
    alpha: float = 0.75                # share of relevance that time cannot take away
    beta_emotion: float = 0.15
    gamma_state: float = 0.15
    delta_anchor: float = 0.05
    delta_date: float = 2.0
    decay_per_day: dict[str, float] = field(default_factory=lambda: dict(DECAY_PER_DAY))
    anchor_decay_per_day: float = ANCHOR_DECAY_PER_DAY
    emotion_gate: float = 0.5          # a mood or query emotion this strong opens the gate
    hint_gate: float = 0.5             # the mood's dominant emotion this strong adds a hint …
    mood_hint: bool = False            # … when the hint is on (off by default: docs/scoring.md)
    anchor_top: int = 8                # anchors get their boost among the top 8 by base
    candidates_min: int = 50           # N = max(candidates_min, candidates_per_k × top_k)
    candidates_per_k: int = 10
    normalise_min_events: int = 20     # below this, relevance is plain max(cos, 0)
    median_exact_limit: int = 50_000   # above this, the median comes from a fixed sample
    median_sample: int = 4096
    hybrid_dense_weight: float = 0.6   # linear fusion weight of the dense channel (pulse)
    # conversation context (pulse): an event gains this share of the fused relevance of the
    # message said just before or after it (same source, within the window), fused with its own
    # dense weight: a neighbour's words say more than its meaning
    context_weight: float = 0.5
    context_window_minutes: float = 60.0
    context_dense_weight: float = 0.3
    # chain context (pulse): an event gains this share of the own relevance (fused + state
    # channel) of its best direct chain parent or child
    chain_context_weight: float = 0.3
    # the state channel (pulse, core/scoring/signature.py): an event gains state_weight × its
    # body similarity × mood similarity to the person's state; the best state_candidates
    # matches join the candidates
    state_weight: float = 1.0
    state_candidates: int = 5
    body_tolerance: float = 0.15
    body_min_features: int = 2
    body_hrv_low: float = 30.0
    body_hrv_high: float = 90.0
    # an event without biometrics lived in the body of the nearest day that has them, within
    # body_borrow_days; its body similarity counts × body_borrow_weight
    body_borrow_days: float = 7.0
    body_borrow_weight: float = 0.75
    chain_depth: int = 4
    chain_widen_min: int = 9
    chain_anchor_top: int = 3          # the story is anchored at one of the first 3 ranked
    # abstention: "nothing relevant" when the best raw cosine AND the query's term coverage
    # are both below these (calibrated on LoCoMo's tuning conversations, bench/abstention.py)
    abstain_cosine: float = 0.82
    abstain_coverage: float = 0.85
    abstain_state: float = 0.5         # … unless an event matches the state's body and mood this
    # well (pulse's state channel; set a priori, LoCoMo carries no state to calibrate it on)
    abstain_model: str = "onnx/multilingual-e5-small-q4"   # cosines differ between models:
    # the thresholds hold for this one; a memory of another model does not abstain
    state_fit_entity: float = 0.7      # fit when a recent life event names a linked entity
    # the person's body: stressed …
    stressed_stress_min: float = 0.6
    stressed_sleep_max: float = 0.4
    stressed_hrv_below: float = 55.0
    # … or restored (stress this low, and sleep unknown or this good)
    restored_stress_max: float = 0.3
    restored_sleep_min: float = 0.7
    # an event's biometrics: a depletion day …
    depletion_hrv_below: float = 60.0
    depletion_sleep_max: float = 0.4
    depletion_stress_min: float = 0.6
    # … or a restoration day (hrv this high, or this much sleep with stress this low)
    restoration_hrv_min: float = 70.0
    restoration_sleep_min: float = 0.7
    restoration_stress_max: float = 0.3
    # date proximity: a gap of ≤ date_gap_exact days scores 1, ≤ near date_weight_near,
    # ≤ far date_weight_far, else 0
    date_gap_exact: float = 1.0
    date_gap_near: float = 3.0
    date_gap_far: float = 7.0
    date_weight_near: float = 0.7
    date_weight_far: float = 0.3
    date_phrase_days: dict[str, float] = field(default_factory=lambda: dict(DATE_PHRASE_DAYS))

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
            if isinstance(default, str):
                if not isinstance(value, str):
                    raise ValidationError(f"scorer settings: {name} must be a string")
                clean[name] = value
            elif isinstance(default, bool):
                if not isinstance(value, bool):
                    raise ValidationError(f"scorer settings: {name} must be true or false")
                clean[name] = value
            elif isinstance(default, dict):
                if not isinstance(value, dict) or set(value) - set(default):
                    raise ValidationError(f"scorer settings: {name} must map {sorted(default)}")
                if not all(_non_negative(v) for v in value.values()):
                    raise ValidationError(f"scorer settings: {name} values must be numbers ≥ 0")
                clean[name] = {**default, **{k: float(v) for k, v in value.items()}}
            elif isinstance(default, int) and not isinstance(default, bool):
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    raise ValidationError(f"scorer settings: {name} must be a whole number ≥ 0")
                clean[name] = value
            else:
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    raise ValidationError(f"scorer settings: {name} must be a number")
                if name in SIGNED_SETTINGS:
                    if not math.isfinite(value):
                        raise ValidationError(f"scorer settings: {name} must be a finite number")
                elif not _non_negative(value):
                    # a negative weight turns a boost into a penalty, NaN or ∞ poisons every
                    # score: refused here rather than found in a ranking
                    raise ValidationError(f"scorer settings: {name} must be a number ≥ 0")
                clean[name] = float(value)
        if clean.get("body_tolerance", self.body_tolerance) <= 0:
            raise ValidationError("scorer settings: body_tolerance must be above 0 (a body's "
                                  "distance is divided by it)")
        if not 0.0 <= clean.get("alpha", self.alpha) <= 1.0:
            raise ValidationError("scorer settings: alpha must be in 0..1")
        if not max(clean.get("candidates_min", self.candidates_min),
                   clean.get("candidates_per_k", self.candidates_per_k)):
            # N = max(candidates_min, candidates_per_k × top_k) would be 0: nothing to rank
            raise ValidationError("scorer settings: candidates_min and candidates_per_k cannot"
                                  " both be 0 (no event would be a candidate)")
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


# float settings checked only for being finite here: a raw-cosine threshold may be negative
# (cosines are in −1..1), and alpha's range (0..1) is checked with its own message
SIGNED_SETTINGS = frozenset({"abstain_cosine", "alpha"})


def _non_negative(value: Any) -> bool:
    """A finite number ≥ 0 (not a bool)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value >= 0)


DEFAULT_SETTINGS = ScorerSettings()
