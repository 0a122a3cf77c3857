"""Monotone mechanisms: what a knob must (and must never) do to throughput and costs."""

import pytest
from qrep_test_helpers import SCENARIOS, with_setting

from engine.perf.qrep import predict


def rate(settings):
    return predict(settings).metrics["apply_rows_per_s"]


CASES = [
    "rp-t2-4-baseline",
    "rp-t3-3-txn-50",
    "rp-t4-3-tbs-1",
    "rp-t4-5-commit-500",
    "dw-zos-max",
    "dw-unidirectional",
    "dw-bidirectional",
    "dw-peer-to-peer",
    "dw-zos-apply-16-agents",
]


@pytest.mark.parametrize("sid", CASES)
@pytest.mark.parametrize(
    "path", ["hardware.source_lpar_cps", "hardware.capture_lpar_cps", "hardware.apply_lpar_cps"]
)
def test_more_cps_never_lower_throughput(sid, path):
    s = SCENARIOS[sid]
    rates = [rate(with_setting(s, path, n)) for n in (1, 2, 3, 4, 6, 9, 16, 32)]
    assert all(b >= a * (1 - 1e-9) for a, b in zip(rates, rates[1:])), rates


@pytest.mark.parametrize("sid", CASES)
def test_more_unique_indexes_never_raise_throughput(sid):
    s = SCENARIOS[sid]
    rates = [rate(with_setting(s, "table.unique_indexes", n)) for n in (0, 1, 2, 3, 5, 8, 12)]
    assert all(b <= a * (1 + 1e-9) for a, b in zip(rates, rates[1:])), rates


def test_trans_batch_sz_grows_messages_and_throughput(baseline):
    preds = [predict(with_setting(baseline, "qcapture.trans_batch_sz", n)).metrics for n in (1, 3, 5)]
    assert [p["rows_per_msg"] for p in preds] == [5, 15, 25]
    assert preds[0]["msg_size_kb"] < preds[1]["msg_size_kb"] < preds[2]["msg_size_kb"]
    assert preds[0]["apply_rows_per_s"] < preds[1]["apply_rows_per_s"] < preds[2]["apply_rows_per_s"]
    assert (
        preds[0]["apply_cpu_us_per_row"] > preds[1]["apply_cpu_us_per_row"] > preds[2]["apply_cpu_us_per_row"]
    )


def test_column_suppression_needs_a_conflict_action_other_than_force(baseline):
    off = predict(baseline).metrics["msg_size_kb"]
    forced = predict(with_setting(baseline, "qcapture.changed_cols_only", True)).metrics["msg_size_kb"]
    on = with_setting(
        with_setting(baseline, "qcapture.changed_cols_only", True), "qapply.conflict_action", "I"
    )
    assert forced == pytest.approx(off)  # F needs every column
    assert predict(on).metrics["msg_size_kb"] < 0.7 * off


def test_non_persistent_messages_log_nothing_on_the_apply_side(baseline):
    np_ = predict(with_setting(baseline, "qcapture.msg_persistence", False)).metrics
    p = predict(baseline).metrics
    assert np_["apply_mq_log_mb_per_s"] == 0.0
    assert np_["capture_mq_log_mb_per_s"] < 0.1 * p["capture_mq_log_mb_per_s"]
    assert np_["capture_mqput_us"] < p["capture_mqput_us"]
    assert np_["apply_rows_per_s"] >= p["apply_rows_per_s"]


def test_trace_doubles_mq_api_time_and_costs_cpu(baseline):
    on = with_setting(with_setting(baseline, "mq.global_trace", True), "mq.chinit_trace", True)
    a, b = predict(baseline).metrics, predict(on).metrics
    assert b["capture_mqput_us"] > a["capture_mqput_us"] and b["apply_mqget_us"] > a["apply_mqget_us"]
    assert b["capture_lpar_busy_pct"] > a["capture_lpar_busy_pct"]


def test_more_agents_help_until_another_stage_limits():
    s = with_setting(SCENARIOS["rp-t4-5-commit-500"], "qapply.num_apply_agents", 1)
    counts = (1, 2, 4, 6, 8, 12, 16, 32)
    preds = [predict(with_setting(s, "qapply.num_apply_agents", n)) for n in counts]
    rates = [p.metrics["apply_rows_per_s"] for p in preds]
    assert rates[2] > 3.5 * rates[0]  # nearly linear while the agents limit
    limited = [p.bottleneck == "qapply_agents" for p in preds]
    for i in range(1, len(counts)):
        if limited[i]:
            assert rates[i] > rates[i - 1]
    assert not limited[-1]
    # past the agents, extra agents only add CPU: throughput stays within a few percent of its peak
    assert rates[-1] >= 0.95 * max(rates)
    cpu = [p.metrics["apply_cpu_us_per_row"] for p in preds]
    assert all(b >= a for a, b in zip(cpu, cpu[1:]))  # more agents cost slightly more CPU per row


def test_read_ahead_speeds_a_drain_from_the_page_set():
    s = SCENARIOS["dw-zos-apply-16-agents"]
    off = predict(with_setting(s, "mq.read_ahead", False))
    on = predict(with_setting(s, "mq.read_ahead", True))
    assert on.metrics["apply_rows_per_s"] >= off.metrics["apply_rows_per_s"]
    assert on.metrics["apply_mqget_us"] < off.metrics["apply_mqget_us"]
    big_pool = predict(with_setting(s, "mq.buffpool_pages", 50_000_000))
    assert big_pool.metrics["apply_rows_per_s"] >= off.metrics["apply_rows_per_s"]


def test_bidirectional_and_peer_to_peer_cost_more_per_row():
    uni, bi, p2p = (
        predict(SCENARIOS[k]).metrics for k in ("dw-unidirectional", "dw-bidirectional", "dw-peer-to-peer")
    )
    assert uni["total_cpu_us_per_row"] < bi["total_cpu_us_per_row"] < p2p["total_cpu_us_per_row"]
    assert p2p["apply_rows_per_s"] < bi["apply_rows_per_s"]
    assert p2p["source_response_time_ms"] > bi["source_response_time_ms"]


def test_offered_rate_below_capacity_is_carried_and_above_is_overload(baseline):
    cap = rate(baseline)
    low = predict(with_setting(baseline, "workload.offered_rows_per_s", 0.5 * cap))
    assert low.metrics["apply_rows_per_s"] == pytest.approx(0.5 * cap)
    assert low.bottleneck is None  # the offered rate is carried: no resource limits it
    high = predict(with_setting(baseline, "workload.offered_rows_per_s", 3 * cap))
    assert "end2end_latency_ms" not in high.metrics and high.metrics["backlog_growth_rows_per_s"] > 0
    assert high.metrics["apply_rows_per_s"] <= cap / 0.95 * 1.0001


def test_page_locking_with_many_agents_costs_class2_time(baseline):
    row = predict(baseline).metrics["apply_db2_class2_ms"]
    page = predict(with_setting(baseline, "target_db2.locking", "page")).metrics["apply_db2_class2_ms"]
    assert page > row


def test_network_delay_adds_to_qlatency_only(baseline):
    # 5 ms one way: the channel's batch round trips (BATCHSZ 200) still leave it below the
    # bottleneck, so the rate and the capture side do not change
    offered = with_setting(baseline, "workload.offered_rows_per_s", 20_000)
    near = predict(offered).metrics
    far = predict(with_setting(offered, "hardware.network_latency_ms", 5.0)).metrics
    assert far["apply_rows_per_s"] == pytest.approx(near["apply_rows_per_s"], rel=1e-6)
    assert far["qlatency_ms"] >= near["qlatency_ms"] + 5.0
    assert far["capture_latency_ms"] == pytest.approx(near["capture_latency_ms"], rel=1e-6)


def test_long_network_delay_makes_the_channel_the_bottleneck(baseline):
    # 20 ms one way: a 40 ms round trip per 200-message batch adds 200 us to every message
    far = predict(with_setting(baseline, "hardware.network_latency_ms", 20.0))
    assert far.bottleneck == "mq_channel"
    assert far.metrics["apply_rows_per_s"] < predict(baseline).metrics["apply_rows_per_s"]
