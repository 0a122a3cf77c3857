"""Shared fixtures: paths to the repository's data."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture
def calibration() -> dict:
    import json

    return json.loads((ROOT / "assets" / "validation" / "calibration.json").read_text())
