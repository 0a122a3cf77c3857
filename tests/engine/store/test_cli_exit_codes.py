"""Exit codes scripts can tell apart: a sweep with failed points exits 4 (EXIT_PARTIAL), not 0."""

from __future__ import annotations

import json

from cli_run import agents_sweep_argv, run

from engine.cli.exitcodes import EXIT_OK, EXIT_PARTIAL


def _sweep(root, env, db, values):
    argv = agents_sweep_argv(
        db, values, "--no-progress", "--json", "--predictor", "store_fakes:predict_reject_16"
    )
    return run(argv, cwd=root, env=env, timeout_s=300)


def test_sweep_with_failed_points_exits_partial_and_says_how_many(root, env_with_fakes, db):
    out = _sweep(root, env_with_fakes, db, "14..16")
    assert out.returncode == EXIT_PARTIAL, out.stderr
    assert json.loads(out.stdout)["failed"] == 1
    again = _sweep(root, env_with_fakes, db, "14..16")  # resumed: the failed point is still part of the sweep
    assert again.returncode == EXIT_PARTIAL


def test_sweep_without_failures_exits_ok(root, env_with_fakes, db):
    assert _sweep(root, env_with_fakes, db, "1..3").returncode == EXIT_OK
