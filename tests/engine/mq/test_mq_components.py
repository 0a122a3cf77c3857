"""The MQ component models against IBM's MQ component measurements (validation/components/)."""

from __future__ import annotations

import json
import math

import pytest

from engine.calibrate.mq_components import build, load_records
from engine.calibrate.mq_components.fit import group_errors
from engine.calibrate.mq_components.observations import GROUPS, UNEXPLAINED, observations
from engine.calibrate.mq_components.parameters import PARAMETERS
from engine.io.packagedata import asset_path
from engine.perf.mqtransport import LOG_PAGE_BYTES, coefficients, distributed_log, qm_cpu, tcp, zos

#: The issue's tolerances per mechanism group: median and 90th percentile of |pred/meas - 1|.
MEDIAN_TOLERANCE = 0.15
P90_TOLERANCE = 0.35


@pytest.fixture(scope="module")
def records():
    return load_records()


@pytest.fixture(scope="module")
def stored():
    with open(asset_path("coefficients", "mq_components.json"), encoding="utf-8") as f:
        return json.load(f)


def test_every_group_reproduces_its_records_within_tolerance(records):
    errs = {e.group: e for e in group_errors(observations(records), coefficients())}
    assert set(errs) == set(GROUPS)
    for e in errs.values():
        assert e.median <= MEDIAN_TOLERANCE, (e.group, e.median)
        assert e.p90 <= P90_TOLERANCE, (e.group, e.p90)


def test_stored_errors_are_the_ones_the_coefficients_give(records, stored):
    for e in group_errors(observations(records), coefficients()):
        assert stored["groups"][e.group]["median_error"] == pytest.approx(e.median, abs=1e-4)
        assert stored["groups"][e.group]["p90_error"] == pytest.approx(e.p90, abs=1e-4)


def test_refit_regenerates_the_stored_coefficients(records, stored):
    doc = build(records)
    for name, entry in stored["parameters"].items():
        assert doc["parameters"][name]["value"] == pytest.approx(entry["value"], rel=1e-3), name
    assert doc["not_represented"] == stored["not_represented"]


def test_a_coefficient_no_record_pins_keeps_its_prior(stored):
    # no record the fit represents depends on the POWER8 server's log speed (mp6t, archive/);
    # the fit's pull towards the prior keeps it there, on every scipy release
    prior = {p.name: p.value for p in PARAMETERS}["log_speed:power8_aix_v8"]
    assert stored["parameters"]["log_speed:power8_aix_v8"]["value"] == pytest.approx(prior, rel=1e-3)


def test_coefficients_lie_in_their_bounds_and_priors_keep_their_documented_value(stored):
    for p in PARAMETERS:
        entry = stored["parameters"][p.name]
        assert p.low <= entry["value"] <= p.high, p.name
        assert entry["unit"] == p.unit and entry["meaning"]
        if not p.fitted:
            assert entry["value"] == p.value and entry["source"], p.name


def test_every_record_is_represented_or_has_a_reason(records, stored):
    left_out = [i for ids in stored["not_represented"].values() for i in ids]
    assert stored["records"]["represented"] + len(left_out) == len(records) == 594
    assert UNEXPLAINED not in stored["not_represented"]


def test_log_writes_aggregate_concurrent_committers_up_to_the_log_buffer():
    k = coefficients()
    commit = 4096.0
    one = distributed_log.write_bytes(1, commit, 4096 * LOG_PAGE_BYTES, k)
    sixty = distributed_log.write_bytes(60, commit, 4096 * LOG_PAGE_BYTES, k)
    assert sixty == pytest.approx(one + k["log_aggregation"] * 59 * commit)
    small_buffer = 18 * LOG_PAGE_BYTES
    assert distributed_log.write_bytes(600, commit, small_buffer, k) == small_buffer
    # a bigger LogBufferPages carries more per write, so a busy log carries more MB/s
    big = distributed_log.mb_per_s(600, commit, 4096 * LOG_PAGE_BYTES, 300.0, 800.0, k)
    assert big > 1.5 * distributed_log.mb_per_s(600, commit, small_buffer, 300.0, 800.0, k)


def test_one_committer_waits_one_write_per_commit_and_delay_counts_twice():
    k = coefficients()
    w = distributed_log.write_bytes(1, 8192.0, 1e7, k)
    assert distributed_log.write_us(w, 100.0, 500.0, path_delay_us=250.0) == pytest.approx(
        100.0 + 500.0 + w / 500.0
    )


def test_persistent_and_client_calls_cost_more_cpu_than_bindings_non_persistent():
    k = coefficients()
    np_us = qm_cpu.call_us(2048, False, k)
    assert qm_cpu.call_us(2048, True, k) > np_us
    assert qm_cpu.client_call_us(2048, k) > 0.0
    assert qm_cpu.call_us(2 << 20, False, k) > 100 * np_us / 10  # grows with the message
    assert qm_cpu.server_speed(qm_cpu.REFERENCE_CORE_GHZ) == 1.0


def test_channel_rate_is_window_bound_over_distance_and_falls_with_loss():
    k = coefficients()
    lan = tcp.msgs_per_s(2048, 10, 1000.0, 0.0, 0.0, k)
    assert lan == pytest.approx(k["link_efficiency"] * 125e6 / (2048 + k["header_bytes"]))
    wan = tcp.msgs_per_s(2048, 10, 1000.0, 0.05, 0.0, k)
    window_bound = 10 * k["tcp_window_bytes"] / 0.05 / (2048 + k["header_bytes"])
    assert wan == pytest.approx(min(window_bound, 10 * tcp.DEFAULT_BATCHSZ / 0.05))
    assert tcp.msgs_per_s(2048, 10, 1000.0, 0.05, 0.001, k) < wan
    assert math.isinf(tcp.per_channel_bytes_per_s(0.0, 0.0, k))


def test_zos_channel_cost_splits_into_queue_manager_and_channel_initiator():
    k = coefficients()
    per_side = zos.message_us(2048, k) / 2.0
    assert zos.chinit_us(2048, k) + zos.qmgr_us(2048, k) == pytest.approx(per_side)
    assert zos.transaction_us(102400, k) > zos.transaction_us(2048, k)
    assert zos.message_us(2048, k, "TLS_AES_128_GCM_SHA256") > zos.message_us(2048, k)
    assert zos.log_mb_per_s(True, k) < zos.log_mb_per_s(False, k)
