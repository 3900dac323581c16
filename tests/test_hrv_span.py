"""The HRV feature on a narrow configured span (core/scoring/signature.py): `body_hrv_low` and
`body_hrv_high` may be set as close as a user likes (settings only require numbers ≥ 0), and a
span of a beat or less makes HRV a near-threshold signal — it must still be read, not taken as
unknown. Only a span of 0 (or below) leaves HRV unknown: there is nothing to rescale by."""

from __future__ import annotations

import numpy as np
import pytest

from core.scoring.settings import DEFAULT_SETTINGS
from core.scoring.signature import FEATURES, body_similarity, features

HRV = FEATURES.index("hrv")
NARROW = DEFAULT_SETTINGS.with_overrides({"body_hrv_low": 60, "body_hrv_high": 60.5})


def test_a_half_beat_span_reads_hrv_as_below_between_or_above() -> None:
    assert (NARROW.body_hrv_low, NARROW.body_hrv_high) == (60.0, 60.5)
    assert features({"hrv": 59}, NARROW)[HRV] == 0.0
    assert features({"hrv": 60.25}, NARROW)[HRV] == pytest.approx(0.5, abs=1e-12)
    assert features({"hrv": 75}, NARROW)[HRV] == 1.0
    # a span of exactly one beat is read as well
    one = DEFAULT_SETTINGS.with_overrides({"body_hrv_low": 60, "body_hrv_high": 61})
    assert features({"hrv": 60.25}, one)[HRV] == pytest.approx(0.25, abs=1e-12)
    # no span: HRV unknown (never a division by zero)
    flat = DEFAULT_SETTINGS.with_overrides({"body_hrv_low": 60, "body_hrv_high": 60})
    assert np.isnan(features({"hrv": 75}, flat)[HRV])


def test_on_a_narrow_span_hrv_tells_two_otherwise_equal_days_apart() -> None:
    """The same stress and sleep; HRV 62 against 58 is 1 against 0 on the half-beat span, so
    the bodies are far apart (mean difference 1/3, well past the tolerance)."""
    state = features({"stress_proxy": 0.5, "sleep_quality": 0.5, "hrv": 62}, NARROW)
    days = np.array([features({"stress_proxy": 0.5, "sleep_quality": 0.5, "hrv": hrv}, NARROW)
                     for hrv in (58, 64)])
    assert body_similarity(state, days, NARROW).tolist() == [0.0, 1.0]
