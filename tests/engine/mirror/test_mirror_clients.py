"""Db2 Mirror job streams (seed 002, 7.4): CPU utilisation change = CPU per unit x rate of work."""

import copy

import pytest

from engine.errors import FieldError
from engine.perf import mirror
from engine.perf.coeffload import load


def _cal(calibration, sid):
    return copy.deepcopy(next(s for s in calibration["scenarios"] if s["id"] == sid))


@pytest.mark.parametrize("sid", ["mir-client-interactive", "mir-client-batch-1", "mir-client-batch-2"])
def test_cpu_change_is_cpu_per_unit_times_rate(calibration, sid):
    coeffs = load("mirror")
    cfg, _ = mirror.parse_settings(_cal(calibration, sid))
    m, sol = mirror.evaluate(cfg, coeffs)
    base = mirror.solve(mirror.replace(cfg, mode="none"), coeffs)
    per_unit_ratio = (sol.source_cpu_busy / sol.txn_per_s) / (base.source_cpu_busy / base.txn_per_s)
    rate_ratio = 1.0 + m["throughput_change_pct"] / 100.0
    assert 1.0 + m["cpu_change_pct"] / 100.0 == pytest.approx(per_unit_ratio * rate_ratio)
    # mirroring always costs CPU per unit of work; the slower rate is what offsets it
    assert per_unit_ratio > 1.1
    assert rate_ratio < 1.0
    assert m["runtime_change_pct"] == pytest.approx(100.0 * (1.0 / rate_ratio - 1.0))


def test_read_for_update_waits_more_than_it_burns(calibration):
    # 7.4.3: read-for-update locks on both nodes; runtime grows far more than CPU utilisation
    s = _cal(calibration, "mir-client-batch-2")
    m = mirror.predict(s).metrics
    assert m["runtime_change_pct"] > 50
    assert abs(m["cpu_change_pct"]) < 10
    s["workload"]["reads_for_update"] = False
    no_rfu = mirror.predict(s).metrics
    assert no_rfu["runtime_change_pct"] < 0.5 * m["runtime_change_pct"]


def test_batch_trend_write_heavy_to_lock_heavy(calibration):
    b1 = mirror.predict(_cal(calibration, "mir-client-batch-1")).metrics
    b2 = mirror.predict(_cal(calibration, "mir-client-batch-2")).metrics
    assert b2["runtime_change_pct"] > b1["runtime_change_pct"]
    assert b2["cpu_change_pct"] < b1["cpu_change_pct"]


def test_preloading_the_target_removes_lock_reads(calibration):
    s = _cal(calibration, "mir-client-batch-2")
    cold = mirror.predict(s).metrics
    s["hardware"]["target_preload"] = True
    warm = mirror.predict(s)
    assert warm.metrics["runtime_change_pct"] < cold["runtime_change_pct"]
    assert warm.metrics["cpu_change_pct"] > cold["cpu_change_pct"]
    assert "hardware.target_preload" not in warm.ignored


def test_lock_flows_and_target_read_in_demands():
    coeffs = load("mirror")
    g = coeffs["global"]
    base = mirror.replace(
        mirror.parse_settings({})[0],
        write_frac=0.0,
        commitment_control=False,
        job_sets=1,
        target_pool_separate=False,
    )
    rfu = mirror.replace(base, reads_for_update=True)
    d0, d1 = mirror.demands(base, coeffs), mirror.demands(rfu, coeffs)
    locks = coeffs["profiles"]["native"]["ops_per_txn"] * g["rfu_share"]
    assert d0.link_s == 0.0
    assert d1.link_s == pytest.approx(2 * locks * g["rdma_rtt_ms"] / 1000.0)  # acquire and release
    read_s = g["lock_target_miss_frac"] * g["read_ms"]["SSD"] / 1000.0
    assert d1.target_io_s == pytest.approx(locks * read_s)


def test_flag_settings_must_be_booleans(calibration):
    s = _cal(calibration, "mir-client-batch-2")
    s["workload"]["reads_for_update"] = "yes"
    with pytest.raises(FieldError, match="workload.reads_for_update"):
        mirror.predict(s)


def test_more_job_sets_bring_case_study_2_back_to_baseline(calibration):
    # journey 7 / seed 7.2: 82 job sets lose throughput under the mirror; 104 restore about the baseline's
    base = mirror.predict(_cal(calibration, "mir-cs2-baseline")).metrics["tps"]
    tps82 = mirror.predict(_cal(calibration, "mir-cs2-mirror-82js")).metrics["tps"]
    tps104 = mirror.predict(_cal(calibration, "mir-cs2-mirror-104js")).metrics["tps"]
    assert tps82 < 0.9 * base
    assert tps104 > 1.1 * tps82
    assert tps104 > 0.97 * base
    # the baseline is not pinned to a saturated storage queue
    coeffs = load("mirror")
    cfg, _ = mirror.parse_settings(_cal(calibration, "mir-cs2-baseline"))
    assert mirror.solve(cfg, coeffs).utilisation["storage"] < 0.95
