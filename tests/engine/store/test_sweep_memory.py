"""A sweep's memory does not grow with its number of points: what it keeps is per batch, per gap or fixed."""

from __future__ import annotations

import tracemalloc

import numpy as np
from store_fakes import FAKE

from engine.store import Store
from engine.studies import sweep
from engine.studies.point_ranges import PointRanges
from engine.studies.sweep import parse_axes, run_sweep


def test_the_points_to_run_of_a_fresh_million_point_sweep_take_a_few_bytes():
    todo = PointRanges.not_done(np.zeros(1_000_000, dtype=bool))
    assert len(todo) == 1_000_000 and todo.first() == 0
    assert todo.nbytes < 100  # one range, where an array of the indexes takes 8 MB
    assert todo[999_998:].tolist() == [999_998, 999_999]


def test_the_points_to_run_of_a_resumed_sweep_are_every_gap_in_order():
    done = np.random.default_rng(7).random(5_000) < 0.7
    done[:3] = True
    todo = PointRanges.not_done(done)
    expected = np.flatnonzero(~done)
    assert len(todo) == len(expected) and todo.first() == expected[0]
    assert np.concatenate([todo[k : k + 7] for k in range(0, len(todo), 7)]).tolist() == expected.tolist()
    assert todo.without_first()[:].tolist() == expected[1:].tolist()
    assert todo[len(todo) :].size == 0 and len(PointRanges.not_done(np.ones(4, dtype=bool))) == 0


def test_finished_points_are_written_before_more_than_the_buffer_bound_wait(db, baseline, monkeypatch):
    monkeypatch.setattr(sweep, "MAX_BUFFERED_POINTS", 10)
    axes = parse_axes(["qapply.num_apply_agents=1..20", "qcapture.trans_batch_sz=1..3"], baseline)
    writes = []
    with Store.open(db) as s:
        record = s.record_point_columns
        s.record_point_columns = lambda points: writes.append(points.n) or record(points)
        # a write interval longer than the sweep: only the bound makes it write before the end
        r = run_sweep(
            baseline, axes, s, workers=0, batch_size=4, predictor=FAKE, progress=False, flush_interval_s=1e9
        )
        assert r.n_run == 60 and s.count_runs() == 60
    assert sum(writes) == 60 and len(writes) >= 5 and max(writes) <= 10 + 4


def _peak_traced_bytes(db, project, agents: int) -> int:
    axes = parse_axes([f"qapply.num_apply_agents=1..{agents}", "qcapture.trans_batch_sz=1..10"], project)
    with Store.open(db) as s:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        run_sweep(project, axes, s, workers=0, batch_size=50, predictor=FAKE, progress=False)
        return tracemalloc.get_traced_memory()[1] - before


def test_the_sweeps_python_memory_is_the_same_for_four_times_the_points(tmp_path, baseline):
    tracemalloc.start()
    try:
        _peak_traced_bytes(tmp_path / "warm.duckdb", baseline, 2)  # imports and caches of a first sweep
        small = _peak_traced_bytes(tmp_path / "small.duckdb", baseline, 10)  # 100 points
        large = _peak_traced_bytes(tmp_path / "large.duckdb", baseline, 40)  # 400 points
    finally:
        tracemalloc.stop()
    # the batches written are the same size (50 points); keeping each point's run, metrics and
    # stages once written (about 0.65 KB a point traced) would add ~200 KB here
    assert large - small < 80_000, (small, large)
