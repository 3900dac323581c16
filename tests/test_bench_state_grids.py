"""bench/tune_state.py's grids name real scorer settings with values the settings accept, and the
shipped defaults are a point of the grid that chose them (its round 2 once failed on a setting
removed after the grid ran)."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from core.errors import ValidationError
from core.scoring.settings import DEFAULT_SETTINGS, ScorerSettings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import tune_state  # noqa: E402


@pytest.mark.parametrize("grid", [tune_state.GRID, tune_state.GRID_2], ids=["round 1", "round 2"])
def test_every_grid_point_is_a_valid_setting(grid: dict) -> None:
    for values in itertools.product(*grid.values()):
        point = dict(zip(grid, values))
        settings = DEFAULT_SETTINGS.with_overrides(point)
        assert all(getattr(settings, name) == value for name, value in point.items())


def test_a_removed_setting_is_refused_by_name() -> None:
    with pytest.raises(ValidationError, match="body_unknown_similarity"):
        ScorerSettings().with_overrides({"body_unknown_similarity": 0.2})


def test_the_defaults_are_a_point_of_round_two() -> None:
    for name, values in tune_state.GRID_2.items():
        assert getattr(DEFAULT_SETTINGS, name) in values, name
