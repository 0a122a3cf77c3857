"""Two identical sweeps at once: the second one's summary counts the points the first recorded."""

from __future__ import annotations

import numpy as np
from store_fakes import FAKE

from engine.store import Store
from engine.studies.sweep import parse_axes, run_sweep


def test_points_recorded_meanwhile_by_another_run_count_as_already_stored(db, baseline, monkeypatch):
    axes = parse_axes(["qapply.num_apply_agents=1..6"], baseline)
    with Store.open(db) as s:
        first = run_sweep(
            baseline, axes, s, workers=0, predictor=FAKE, progress=False, release_between_writes=True
        )
        assert (first.n_run, first.n_skipped) == (6, 0)
        # the second run looked before the first had written anything (the race of two identical commands)
        monkeypatch.setattr(s, "done_point_mask", lambda sweep_id, n_points: np.zeros(n_points, dtype=bool))
        second = run_sweep(
            baseline, axes, s, workers=0, predictor=FAKE, progress=False, release_between_writes=True
        )
        assert (second.n_run, second.n_skipped, second.n_failed) == (0, 6, 0)
        assert len(s.list_runs(sweep_id=second.sweep_id)) == 6  # nothing written twice
