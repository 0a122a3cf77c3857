"""The ``qrtune`` console script: the command's status, and no final cycle collection at exit."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

from qrtune import cli

ROOT = Path(__file__).resolve().parents[2]


def test_exit_with_ends_with_the_status_and_freezes_the_collector():
    try:
        with pytest.raises(SystemExit) as ended:
            cli.exit_with(2)
        assert ended.value.code == 2
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


@pytest.mark.slow
def test_a_run_recorded_by_the_console_script_is_in_the_store_after_it_exits(tmp_path):
    """Skipping the collection at exit loses nothing: the store the command wrote opens with its run."""
    db = tmp_path / "runs.duckdb"
    sample = ROOT / "sample_runs" / "redpaper-baseline.json"
    for command in (["predict"], ["simulate", "--duration", "30s", "--quiet"]):
        out = subprocess.run(
            [sys.executable, "-m", "qrtune", *command, str(sample), "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 0, out.stderr
    listed = subprocess.run(
        [sys.executable, "-m", "qrtune", "runs", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.count('"kind": "predict"') == 1 and listed.stdout.count('"kind": "simulate"') == 1
