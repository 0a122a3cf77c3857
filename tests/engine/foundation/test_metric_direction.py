"""Which way each kind of metric gets better (colours the deltas of a comparison)."""

import pytest

from engine.metrics.catalog import delta_verdict
from engine.metrics.direction import better_direction


@pytest.mark.parametrize(
    "metric",
    [
        "apply_rows_per_s",
        "capture_rows_per_s",
        "channel_msgs_per_s",
        "channel_mb_per_s",
        "tps",
        "throughput",
        "throughput_change_pct",
        "system1_originated_rows_per_s",
        "mq_channel capacity",
    ],
)
def test_throughput_is_better_higher(metric):
    assert better_direction(metric) == 1


@pytest.mark.parametrize(
    "metric",
    [
        "end2end_latency_ms",
        "qlatency_ms",
        "apply_cpu_us_per_row",
        "system2_cpu_us_per_row",
        "apply_lpar_busy_pct",
        "source_cpu_pct",
        "response_time_ms",
        "response_time_change_pct",
        "cpu_change_pct",
        "runtime_change_pct",
        "backlog_growth_rows_per_s",
        "apply_db2_class2_ms",
        "capture_mqcommit_us",
        "elapsed_s",
    ],
)
def test_time_cpu_and_backlog_are_better_lower(metric):
    assert better_direction(metric) == -1


@pytest.mark.parametrize(
    "metric",
    [
        "msg_size_kb",
        "rows_per_msg",
        "msgs_per_mq_commit",
        "capture_mq_log_mb_per_s",
        "mq_channel utilisation",
    ],
)
def test_consequences_are_neutral(metric):
    assert better_direction(metric) == 0


def test_verdict_combines_direction_and_sign():
    assert delta_verdict("apply_rows_per_s", 12.0) == 1
    assert delta_verdict("apply_rows_per_s", -3.0) == -1
    assert delta_verdict("end2end_latency_ms", 12.0) == -1
    assert delta_verdict("end2end_latency_ms", -3.0) == 1
    assert delta_verdict("msg_size_kb", 50.0) == 0
    assert delta_verdict("apply_rows_per_s", 0.0) == 0
    assert delta_verdict("apply_rows_per_s", None) == 0
