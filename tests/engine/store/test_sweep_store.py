"""Sweeps with a fake predictor: axis parsing, the cartesian product, failed points, resume."""

from __future__ import annotations

import pytest
from store_fakes import FAKE

from engine.errors import FieldError, UnsupportedKindError
from engine.store import Store
from engine.studies.sweep import (
    n_points,
    parse_axes,
    parse_axis,
    point_changes,
    point_label,
    point_values,
    run_sweep,
)


def test_kind_axis_addresses_every_node_of_that_kind(bidirectional):
    a = parse_axis("qapply.num_apply_agents=1,4,8", bidirectional)
    assert a.node_ids == ("ab-5-qapply", "ba-5-qapply") and a.values == (1, 4, 8)
    one = parse_axis("ba-5-qapply.num_apply_agents=2", bidirectional)
    assert one.node_ids == ("ba-5-qapply",)


def test_ranges_steps_and_types(baseline):
    assert parse_axis("qapply.num_apply_agents=1..4,8", baseline).values == (1, 2, 3, 4, 8)
    assert parse_axis("qapply.num_apply_agents=1..9:4", baseline).values == (1, 5, 9)
    assert parse_axis("channel.network_latency_ms=0,0.5,2", baseline).values == (0.0, 0.5, 2.0)
    assert parse_axis("queue_manager.read_ahead=true,off", baseline).values == (True, False)
    assert parse_axis("qapply.conflict_action=I,F", baseline).values == ("I", "F")
    assert parse_axis("source_db2.offered_rows_per_s=null,1000", baseline).values == (None, 1000.0)


def test_repeated_values_are_kept_once_in_first_order(baseline):
    assert parse_axis("qapply.num_apply_agents=4,2,4.0,1..3,2", baseline).values == (4, 2, 1, 3)
    assert parse_axis("channel.network_latency_ms=2,0.5,2.0,0", baseline).values == (2.0, 0.5, 0.0)
    assert parse_axis("queue_manager.read_ahead=on,false,true,no", baseline).values == (True, False)
    assert parse_axis("source_db2.offered_rows_per_s=null,1000,none,1e3", baseline).values == (None, 1000.0)


def test_dedupe_is_linear_in_the_number_of_values(baseline, monkeypatch):
    """Long value lists: no value is compared with every earlier one (was a list scan, n^2 / 2)."""
    from engine.registry.params import ParamSpec

    calls = [0]

    class Counted(int):
        def __eq__(self, other):
            calls[0] += 1
            return int.__eq__(self, other)

        __hash__ = int.__hash__

    check = ParamSpec.check
    monkeypatch.setattr(ParamSpec, "check", lambda self, value, path: Counted(check(self, value, path)))
    n = 3000
    axis = parse_axis(f"queue_manager.buffpool_pages=1000..{999 + n},1000", baseline)
    assert len(axis.values) == n and axis.values[0] == 1000 and axis.values[-1] == 999 + n
    assert calls[0] <= 2 * n  # the list scan made about n^2 / 2 = 4.5 million


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("qapply.num_apply_agents=0..3", "0 is not allowed; expected an integer from 1 to 128"),
        ("qapply.num_apply_agentz=1", "a knob of qapply"),
        ("nosuch.num_apply_agents=1", "a node kind (channel"),
        ("db2_mirror_node.cores=1", "a node kind present in the project"),
        ("qapply.num_apply_agents", "TARGET.PARAM=VALUES"),
        ("qapply.num_apply_agents=4..1", "LOW <= HIGH"),
        ("qapply.num_apply_agents=a..b", "a range of integers"),
        ("qapply.num_apply_agents=1,,2", "without empty items"),
        ("queue_manager.read_ahead=maybe", "true or false"),
        ("source_db2.columns=1", "single values"),
    ],
)
def test_bad_axes_name_field_value_and_allowed(baseline, text, fragment):
    with pytest.raises(FieldError) as e:
        parse_axis(text, baseline)
    assert fragment in str(e.value) and "--set" in str(e.value)


def test_same_knob_twice_is_an_error(bidirectional):
    with pytest.raises(FieldError, match="already swept"):
        parse_axes(["qapply.num_apply_agents=1", "ab-5-qapply.num_apply_agents=2"], bidirectional)


def test_cartesian_product_order(baseline):
    axes = parse_axes(["qapply.num_apply_agents=1,4", "qcapture.trans_batch_sz=1..3"], baseline)
    assert n_points(axes) == 6
    assert [point_values(axes, i) for i in range(6)] == [(1, 1), (1, 2), (1, 3), (4, 1), (4, 2), (4, 3)]
    assert point_changes(axes, 4) == [
        ("ab-5-qapply", "num_apply_agents", 4),
        ("ab-1-qcapture", "trans_batch_sz", 2),
    ]
    assert point_label(axes, 4) == "qapply.num_apply_agents=4 qcapture.trans_batch_sz=2"


def _check_sweep_contents(store, sweep_id, axes):
    runs = store.list_runs(sweep_id=sweep_id)
    assert sorted(r.point_index for r in runs) == list(range(n_points(axes)))
    metrics = store.metrics_of([r.id for r in runs])
    for r in runs:
        agents, batch = point_values(axes, r.point_index)
        s = r.settings_json
        assert f'"num_apply_agents":{agents}' in s and f'"trans_batch_sz":{batch}' in s
        capture = 4000 * batch / (1 + 0.2 * batch)
        assert metrics[r.id]["apply_rows_per_s"][0] == pytest.approx(min(capture, 900 * agents))


def test_in_process_sweep_and_resume_is_a_no_op(db, baseline):
    axes = parse_axes(["qapply.num_apply_agents=1..4", "qcapture.trans_batch_sz=1,5"], baseline)
    with Store.open(db) as s:
        r1 = run_sweep(baseline, axes, s, workers=0, predictor=FAKE, progress=False)
        assert (r1.n_points, r1.n_run, r1.n_skipped, r1.n_failed) == (8, 8, 0, 0)
        _check_sweep_contents(s, r1.sweep_id, axes)
        r2 = run_sweep(baseline, axes, s, workers=0, predictor=FAKE, progress=False)
        assert (r2.sweep_id, r2.n_run, r2.n_skipped) == (r1.sweep_id, 0, 8)
        assert s.count_runs() == 8


def test_local_pool_sweep_streams_all_points(db, bidirectional):
    axes = parse_axes(["qapply.num_apply_agents=1..16", "qcapture.trans_batch_sz=1..5"], bidirectional)
    with Store.open(db) as s:
        r = run_sweep(bidirectional, axes, s, workers=2, batch_size=7, predictor=FAKE, progress=False)
        assert r.n_run == 80 and r.n_failed == 0
        _check_sweep_contents(s, r.sweep_id, axes)


def test_failed_points_are_recorded_not_fatal(db, baseline):
    axes = parse_axes(["qapply.num_apply_agents=8,16"], baseline)
    with Store.open(db) as s:
        r = run_sweep(baseline, axes, s, workers=0, predictor="store_fakes:predict_reject_16", progress=False)
        runs = {x.point_index: x for x in s.list_runs(sweep_id=r.sweep_id)}
    assert r.n_failed == 1 and runs[0].status == "ok"
    assert runs[1].status == "failed" and "at most 15" in runs[1].error


def test_sweep_points_give_each_point_once_with_values_units_and_why_it_failed(db, baseline):
    axes = parse_axes(["qapply.num_apply_agents=8,16"], baseline)
    with Store.open(db) as s:
        r = run_sweep(baseline, axes, s, workers=0, predictor="store_fakes:predict_reject_16", progress=False)
        points = {p.run.point_index: p for p in s.sweep_points(r.sweep_id)}
        metrics = s.metrics_of([points[0].run.id])[points[0].run.id]
    assert sorted(points) == [0, 1]
    ok, failed = points[0], points[1]
    assert ok.run.failure == "" and ok.metrics == {k: v for k, (v, _) in metrics.items()}
    assert ok.units["apply_rows_per_s"] == "rows/s" and ok.metrics["apply_rows_per_s"] > 0
    assert "at most 15" in failed.run.failure and failed.metrics == {} and failed.units == {}


def test_where_equal_filters_only_on_the_values_given():
    from engine.store.base import where_equal

    assert where_equal({"project_name": None, "kind": None}) == ("", [])
    assert where_equal({"s.project_name": "P", "kind": None, "sweep_id": 0}) == (
        " WHERE s.project_name = ? AND sweep_id = ?",
        ["P", 0],
    )


def test_missing_engine_stops_before_any_point(db, baseline):
    axes = parse_axes(["qapply.num_apply_agents=1,2"], baseline)
    with Store.open(db) as s, pytest.raises(UnsupportedKindError):
        run_sweep(baseline, axes, s, workers=2, predictor="store_fakes:predict_unsupported", progress=False)
    with Store.open(db, read_only=True) as s:
        assert s.count_runs() == 0


# Interrupted sweeps (SIGKILL, Ctrl-C) and the Dask path are tested with the real engine in
# test_sweep_real_engine.py.


def test_a_scenario_section_as_target_points_to_the_node_kind_that_owns_the_knob(baseline):
    """``--set hardware.network_mbps=100`` names the section of a scenario file; the message says
    ``channel.network_mbps`` is what to write. A knob no node has gets no guess."""
    with pytest.raises(
        FieldError, match=r"network_mbps is a knob of channel: --set channel\.network_mbps=100$"
    ):
        parse_axis("hardware.network_mbps=100", baseline)
    with pytest.raises(FieldError) as e:
        parse_axis("hardware.no_such_knob=1", baseline)
    assert "is a knob of" not in str(e.value)


def test_runs_are_read_in_chunks_in_the_listing_order(db, baseline):
    axes = parse_axes(["qapply.num_apply_agents=1..4", "qcapture.trans_batch_sz=1,5"], baseline)
    with Store.open(db) as s:
        r = run_sweep(baseline, axes, s, workers=0, predictor=FAKE, progress=False)
        for select in ({"sweep_id": r.sweep_id}, {}, {"sweep_id": r.sweep_id, "limit": 5}):
            chunks = list(s.iter_runs(**select, chunk_rows=3))
            assert [len(c) for c in chunks[:-1]] == [3] * (len(chunks) - 1) and 0 < len(chunks[-1]) <= 3
            assert [run for chunk in chunks for run in chunk] == s.list_runs(**select)
        units = s.metric_units(sweep_id=r.sweep_id)
        assert units["apply_rows_per_s"] == "rows/s" and list(units)[0] in units
        assert s.metric_units(sweep_id=r.sweep_id + 1) == {}


def test_a_listing_in_chunks_prints_one_heading_and_every_run(db, baseline, capsys):
    from engine.cli.runs import _print_tables

    axes = parse_axes(["qapply.num_apply_agents=1..5"], baseline)
    with Store.open(db) as s:
        r = run_sweep(baseline, axes, s, workers=0, predictor=FAKE, progress=False)
        columns = ["apply_rows_per_s"]
        chunks = [
            (c, s.metrics_of([x.id for x in c])) for c in s.iter_runs(sweep_id=r.sweep_id, chunk_rows=2)
        ]
        shown = _print_tables(chunks, columns, s.metric_units(sweep_id=r.sweep_id))
    lines = capsys.readouterr().out.splitlines()
    assert shown == 5 and len(lines) == 6
    assert "ROWS_APPLIED (rows/s)" in lines[0] and sum("ROWS_APPLIED" in line for line in lines) == 1
    assert [line.split()[0] for line in lines[1:]] == [
        str(x.id) for x in chunks[0][0] + chunks[1][0] + chunks[2][0]
    ]
