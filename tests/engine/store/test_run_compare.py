"""Comparing runs: settings that differ, absolute and percent deltas, the three formats."""

from __future__ import annotations

import csv
import io
import json

import pytest
import store_fakes

from engine.compare import compare_runs, delta, flatten, format_csv, format_table
from engine.errors import QrtuneError
from engine.scenario import project_to_scenario
from engine.store import Store


def _record(store, project):
    return store.record_prediction(project, store_fakes.predict(project_to_scenario(project)))


@pytest.fixture
def three_runs(db, baseline):
    with Store.open(db) as s:
        a = _record(s, baseline)  # 6 agents, batch 3
        b = _record(s, baseline.with_param("ab-5-qapply", "num_apply_agents", 12))
        c = _record(s, baseline.with_param("ab-1-qcapture", "trans_batch_sz", 1))
    return db, (a, b, c)


def test_settings_that_differ_and_deltas(three_runs):
    db, (a, b, c) = three_runs
    with Store.open(db, read_only=True) as s:
        cmp = compare_runs(s, [a, b, c])
    assert [(d.path, d.values) for d in cmp.settings] == [
        ("qapply.num_apply_agents", (6, 12, 6)),
        ("qcapture.trans_batch_sz", (3, 3, 1)),
    ]
    lat = cmp.metric("apply_latency_ms")  # 5 + 100 / agents
    assert lat.values == pytest.approx((5 + 100 / 6, 5 + 100 / 12, 5 + 100 / 6))
    assert lat.abs_delta[1] == pytest.approx(100 / 12 - 100 / 6)
    assert lat.pct_delta[1] == pytest.approx(100 * (100 / 12 - 100 / 6) / (5 + 100 / 6))
    assert lat.abs_delta[0] == 0 and lat.pct_delta[2] == pytest.approx(0)
    rate = cmp.metric("apply_rows_per_s")
    capture_b3 = 4000 * 3 / 1.6
    assert rate.values[0] == pytest.approx(min(capture_b3, 5400)) and rate.unit == "rows/s"
    assert cmp.bottlenecks == ("qapply_agents", "qcapture", "qcapture")


def test_stage_utilisation_and_capacity_side_by_side(three_runs):
    db, (a, b, c) = three_runs
    with Store.open(db, read_only=True) as s:
        cmp = compare_runs(s, [a, b, c])
    names = [m.metric for m in cmp.stages]
    assert names == [
        "qcapture utilisation",
        "qcapture capacity",
        "qapply_agents utilisation",
        "qapply_agents capacity",
    ]
    agents = cmp.stages[3]  # capacity 900 rows/s per agent: 6, 12, 6 agents
    assert agents.unit == "rows/s" and agents.values == pytest.approx((5400, 10800, 5400))
    assert agents.pct_delta[1] == pytest.approx(100.0)
    util = cmp.stages[2]  # rate / capacity, in %
    rate = cmp.metric("apply_rows_per_s").values
    assert util.unit == "%" and util.values == pytest.approx(
        tuple(100 * r / cap for r, cap in zip(rate, agents.values))
    )
    table = format_table(cmp)
    assert "Stages" in table and "qapply_agents capacity" in table and "10,800" in table
    rows = list(csv.reader(io.StringIO(format_csv(cmp))))
    assert ["stage", "qapply_agents capacity", "rows/s", "5400.0", "10800.0", "5400.0"] == rows[-1][:6]
    assert json.loads(json.dumps(cmp.to_json()))["stages"][3]["values"] == [5400, 10800, 5400]


def test_zero_reference_and_missing_metric_give_no_percent(db, baseline):
    from engine.perf.result import Prediction

    with Store.open(db) as s:
        a = s.record_prediction(baseline, Prediction("qrep", {"x": 0.0, "only_a": 1.0}))
        b = s.record_prediction(baseline, Prediction("qrep", {"x": 2.0, "only_b": 3.0}))
        cmp = compare_runs(s, [a, b])
    x = cmp.metric("x")
    assert x.abs_delta == (0.0, 2.0) and x.pct_delta == (None, None)
    assert cmp.metric("only_a").values == (1.0, None) and cmp.metric("only_b").abs_delta == (None, None)
    assert cmp.settings == ()


def test_formats(three_runs):
    db, ids = three_runs
    with Store.open(db, read_only=True) as s:
        cmp = compare_runs(s, ids)
    table = format_table(cmp)
    assert (
        "qapply.num_apply_agents" in table and "d% 2" in table and "-50.0%" not in table.split("Metrics")[0]
    )
    rows = list(csv.reader(io.StringIO(format_csv(cmp))))
    assert rows[0][:6] == ["section", "name", "unit", "run_1", "run_2", "run_3"]
    lat = next(r for r in rows if r[1] == "apply_latency_ms")
    assert float(lat[5]) == pytest.approx(5 + 100 / 6)
    doc = json.loads(json.dumps(cmp.to_json()))
    assert [r["id"] for r in doc["runs"]] == list(ids)
    assert doc["settings_that_differ"][0]["path"] == "qapply.num_apply_agents"


def test_needs_two_runs(three_runs):
    db, (a, _, _) = three_runs
    with Store.open(db, read_only=True) as s, pytest.raises(QrtuneError, match="at least two"):
        compare_runs(s, [a])


def test_flatten_keeps_column_maps_whole():
    flat = flatten({"table": {"columns": {"INTEGER": 10}, "row_bytes": 315}, "qapply": {"n": 1}})
    assert flat == {"table.columns": {"INTEGER": 10}, "table.row_bytes": 315, "qapply.n": 1}


def test_a_value_computed_two_ways_is_no_change():
    """86.49 msgs against 86.49 msgs + 1.4e-14 is a change of 0, not 1.42e-14; a real change stays."""

    assert delta(86.49 + 1.4e-14, 86.49) == (0.0, 0.0)
    absolute, pct = delta(86.5, 86.49)
    assert absolute == pytest.approx(0.01) and pct == pytest.approx(100 * 0.01 / 86.49)
