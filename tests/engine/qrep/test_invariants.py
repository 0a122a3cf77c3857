"""Invariants of the steady-state solution on every published scenario."""

import math

import pytest
from qrep_test_helpers import SCENARIOS

from engine.limit import limit_of
from engine.perf.qrep import predict, solve_settings

IDS = sorted(SCENARIOS)
WITH_END2END = [sid for sid in IDS if "end2end_latency_ms" in predict(SCENARIOS[sid]).metrics]


def test_most_scenarios_report_an_end_to_end_latency():
    # drain and overload scenarios have none; steady-state ones all do
    assert len(WITH_END2END) >= len(IDS) - 5


@pytest.mark.parametrize("sid", WITH_END2END)
def test_end2end_is_exactly_the_sum_of_its_parts(sid):
    m = predict(SCENARIOS[sid]).metrics
    parts = m["capture_latency_ms"] + m["qlatency_ms"] + m["apply_latency_ms"]
    assert m["end2end_latency_ms"] == pytest.approx(parts, rel=1e-12)


@pytest.mark.parametrize("sid", IDS)
def test_throughput_never_above_any_stage_capacity(sid):
    sol = solve_settings(SCENARIOS[sid])
    for st in sol.stages:
        if st.name == "mq_pageset" and sol.inputs.mode != "drain":
            continue
        assert sol.rows_per_s <= st.capacity_rows_per_s * (1 + 1e-9), st.name
        assert 0.0 <= st.utilisation <= 1.0


@pytest.mark.parametrize("sid", IDS)
def test_rows_and_messages_are_conserved(sid):
    p = predict(SCENARIOS[sid])
    m = p.metrics
    if "capture_rows_per_s" in m:
        assert m["capture_rows_per_s"] == pytest.approx(m["apply_rows_per_s"], rel=1e-12)
        assert m["channel_msgs_per_s"] * m["rows_per_msg"] == pytest.approx(m["apply_rows_per_s"], rel=1e-12)
        assert m["channel_mb_per_s"] == pytest.approx(
            m["channel_msgs_per_s"] * m["msg_size_kb"] / 1000, rel=1e-12
        )
    for st in p.stages:
        assert st.capacity == pytest.approx(st.capacity_msgs_per_s * m["rows_per_msg"], rel=1e-12)


@pytest.mark.parametrize("sid", IDS)
def test_metrics_finite_and_bottleneck_named(sid):
    p = predict(SCENARIOS[sid])
    assert all(math.isfinite(v) and v >= 0 for v in p.metrics.values())
    # the busiest stage by its own name (or the cause: target_db2, mq_pageset); none when the
    # workload's rate is carried (a closed workload or an offered rate below capacity)
    if p.bottleneck is None:
        assert limit_of(p).holds_offered
    else:
        assert p.bottleneck in {st.name for st in p.stages} | {"target_db2", "mq_pageset"}
    assert p.coefficients_version.startswith("qrep-")


def test_bottleneck_is_the_smallest_capacity(baseline):
    sol = solve_settings(baseline)
    smallest = min((s for s in sol.stages if s.name != "mq_pageset"), key=lambda s: s.capacity_rows_per_s)
    assert sol.bottleneck == smallest.name == sol.limiting_stage
    busiest = max((s for s in sol.stages if s.name != "mq_pageset"), key=lambda s: s.utilisation)
    assert busiest.name == smallest.name
    # driven to the maximum: the bottleneck runs at the sustained share of its capacity
    assert smallest.utilisation == pytest.approx(0.95, abs=1e-6)


def test_ignored_lists_settings_the_engine_does_not_use(scenarios):
    p = predict(scenarios["dw-unidirectional"])
    assert "software.db2" in p.ignored and "hardware.network_note" in p.ignored
    assert "qcapture.trans_batch_sz" not in p.ignored
    # the colocation of Q Apply only matters when both directions share LPARs
    assert "hardware.apply_colocated_with_target" in p.ignored
    assert "hardware.apply_colocated_with_target" not in predict(scenarios["dw-bidirectional"]).ignored
    drain = predict(scenarios["dw-zos-apply-16-agents"])
    assert "mq.batchsz" in drain.ignored and "qapply.num_apply_agents" not in drain.ignored
