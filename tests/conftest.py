"""Shared fixtures: paths to the repository's data."""

import sys
import types
from pathlib import Path

import pytest

from engine.perf import ENGINE_MODULES

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture
def calibration() -> dict:
    import json

    return json.loads((ROOT / "assets" / "validation" / "calibration.json").read_text())


@pytest.fixture
def route_engine(monkeypatch):
    """``route_engine(kind, predict)``: for this test, scenarios of ``kind`` go to the stand-in ``predict``."""

    def route(kind: str, predict) -> None:
        name = "qrtune_tests_fake_" + kind.replace("-", "_")
        module = types.ModuleType(name)
        module.predict = predict
        monkeypatch.setitem(sys.modules, name, module)
        monkeypatch.setitem(ENGINE_MODULES, kind, name)

    return route


@pytest.fixture
def full_disk(tmp_path, monkeypatch):
    """A folder on a full disk (:mod:`fulldisk`): a real 3 MB tmpfs when it can be mounted, else simulated."""
    from fulldisk import full_disk_folder

    yield from full_disk_folder(tmp_path, monkeypatch)
