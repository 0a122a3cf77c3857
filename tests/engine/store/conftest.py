"""Fixtures for the store tests: sample projects, a fresh store file, the fake predictor on sys.path."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
# Test modules import ROOT and FAKE from store_fakes, never from conftest: several conftest
# modules share that name in one pytest session (rootdir-relative imports).


@pytest.fixture
def baseline():
    from engine import projectfile

    return projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json")


@pytest.fixture
def bidirectional():
    from engine import projectfile

    return projectfile.load(ROOT / "sample_runs" / "redpaper-bidirectional.json")


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "runs.duckdb"


@pytest.fixture
def env_with_fakes():
    """Environment for child processes that must import store_fakes."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env
