"""Latency against offered load on every Q Replication sample, and the commit cycle's knobs.

Q Capture sends what it has at the end of each log-read pass (or at COMMIT_INTERVAL, or at
its transaction limit); it never waits for a group to fill, so every latency approaches a
floor as the load falls and grows only through queueing as the load rises.
"""

from __future__ import annotations

import copy
import json
import math
import re
from pathlib import Path

import pytest

from engine.errors import ValueRangeError
from engine.io.projectfile import load as load_project
from engine.perf.qrep import predict
from engine.scenario import project_to_scenario

ROOT = Path(__file__).resolve().parents[3]
#: Every Q Replication sample of sample_runs/ (a new sample is swept without editing this test).
QREP_SAMPLES = tuple(
    sorted(
        path.stem
        for path in (ROOT / "sample_runs").glob("*.json")
        if json.loads(path.read_text(encoding="utf-8")).get("topology")
        in ("unidirectional", "bidirectional", "peer-to-peer")
    )
)
LATENCIES = ("capture_latency_ms", "qlatency_ms", "apply_latency_ms", "end2end_latency_ms")
#: Offered load as a share of the sample's capacity, 0.1% .. 99%: neighbours differ by 20% in the
#: load and, near capacity, by 20% in the remaining headroom (where M/M/c waits grow as 1 / (1 - rho)).
LOAD_SHARES = tuple(
    sorted(
        {round(0.001 * 1.2**k, 6) for k in range(35) if 0.001 * 1.2**k <= 0.5}
        | {round(1.0 - 0.5 / 1.2**k, 6) for k in range(22) if 0.5 / 1.2**k >= 0.0099}
    )
)


def _scenario(name: str) -> dict:
    return project_to_scenario(load_project(ROOT / "sample_runs" / f"{name}.json"))


def _open(settings: dict, rows_per_s: float, **changes) -> dict:
    s = copy.deepcopy(settings)
    s["workload"]["offered_rows_per_s"] = rows_per_s
    s["workload"]["jobs"] = None
    for path, value in changes.items():
        group, key = path.split("__")
        s[group][key] = value
    return predict(s).metrics


def _capacity(settings: dict) -> float:
    """Rows/s at which an open workload is first reported as overloaded (bisection)."""
    lo, hi = 1.0, 1e7
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        if "backlog_growth_rows_per_s" in _open(settings, mid):
            hi = mid
        else:
            lo = mid
    return lo


@pytest.mark.parametrize("name", QREP_SAMPLES)
def test_latencies_finite_and_non_decreasing_from_light_load_to_capacity(name):
    settings = _scenario(name)
    capacity = _capacity(settings)
    previous = None
    for share in LOAD_SHARES:
        m = _open(settings, share * capacity)
        values = [m[k] for k in LATENCIES]
        assert all(math.isfinite(v) and v >= 0 for v in values), (name, share, values)
        if previous is not None:
            for key, before, now in zip(LATENCIES, previous, values):
                assert now >= before * (1 - 1e-9), (name, key, share, before, now)
                assert now <= before * 1.3 + 1.0, (name, key, share, before, now)  # no jump over 30%
        previous = values


def test_baseline_end2end_non_decreasing_from_1_to_30000_rows_per_s_and_under_1_5_s_at_1_row_per_s():
    settings = _scenario("redpaper-baseline")
    rates = (1, 3, 10, 30, 100, 300, 1000, 3000, 10_000, 20_000, 30_000)
    e2e = [_open(settings, r)["end2end_latency_ms"] for r in rates]
    assert e2e[0] < 1500.0
    assert all(b >= a * (1 - 1e-9) for a, b in zip(e2e, e2e[1:])), e2e


def test_commit_interval_changes_latency_where_a_log_pass_is_longer_than_it():
    """Big transactions (few per second, so the commit limit fills slowly) and a long
    SLEEP_INTERVAL: a pass over the accumulated log outlasts COMMIT_INTERVAL."""
    settings = copy.deepcopy(_scenario("redpaper-baseline"))
    settings["workload"].update(rows_per_txn=100, inserts_per_txn=20, updates_per_txn=60, deletes_per_txn=20)
    knobs = dict(qcapture__sleep_interval_ms=4000, qcapture__trans_batch_sz=1)
    e2e = [
        _open(settings, 20_000, qcapture__commit_interval_ms=ms, **knobs)["end2end_latency_ms"]
        for ms in (200, 500, 800)
    ]
    assert e2e[0] < e2e[1] < e2e[2]  # a shorter interval commits sooner
    assert e2e[2] > e2e[0] * 1.05


def test_commit_interval_does_not_bind_where_the_transaction_limit_commits_first():
    """Table 4-5 of seed 000: at the maximum rate 200/500/800 ms give the same 43 messages per
    commit (the per-commit transaction limit fills in ~12 ms), so END2END may not move."""
    settings = _scenario("redpaper-baseline")
    runs = [_open(settings, 40_000, qcapture__commit_interval_ms=ms) for ms in (200, 800)]
    assert runs[0]["msgs_per_mq_commit"] == pytest.approx(runs[1]["msgs_per_mq_commit"], rel=1e-6)
    assert runs[0]["end2end_latency_ms"] == pytest.approx(runs[1]["end2end_latency_ms"], rel=1e-6)


def test_sleep_interval_sets_the_light_load_capture_latency():
    settings = _scenario("redpaper-baseline")
    fast = _open(settings, 10, qcapture__sleep_interval_ms=50)["capture_latency_ms"]
    slow = _open(settings, 10, qcapture__sleep_interval_ms=2000)["capture_latency_ms"]
    assert slow - fast == pytest.approx((2000 - 50) / 2.0, rel=0.05)


def test_the_log_reader_wait_is_half_a_sleep_plus_its_queueing():
    """A reader that reads the log to its end and then sleeps is a queue with multiple vacations:
    a commit waits SLEEP_INTERVAL / 2 plus the reader's M/G/1 wait (Fuhrmann-Cooper), which stays
    small next to the sleep, so CAPTURE_LATENCY hardly grows with load. (Half the whole cycle,
    SLEEP_INTERVAL / (1 - busy), grew with the reader's busy share.)"""
    settings = _scenario("dw2005-zos-unidirectional")  # Q Capture on the source LPAR: no merge delay
    sleep_ms = settings["qcapture"]["sleep_interval_ms"]
    light = _open(settings, 1.0)["capture_latency_ms"]
    busy = _open(settings, 0.9 * _capacity(settings))["capture_latency_ms"]
    assert sleep_ms / 2.0 <= light < sleep_ms / 2.0 * 1.05
    assert light < busy < light * 1.08


def test_an_offered_rate_of_zero_gives_the_latency_floor():
    settings = _scenario("redpaper-baseline")
    zero = _open(settings, 0.0)
    light = _open(settings, 1.0)
    assert zero["end2end_latency_ms"] == pytest.approx(light["end2end_latency_ms"], rel=0.01)


def test_an_lpar_too_slow_for_its_base_load_is_an_error_naming_the_setting():
    settings = copy.deepcopy(_scenario("redpaper-baseline"))
    settings["hardware"]["mips_per_cp"] = 1.0
    with pytest.raises(ValueRangeError, match="hardware.source_lpar_cps") as refused:
        predict(settings)
    needed = int(re.search(r"at least (\d+) CPs of 1 MIPS \(hardware.mips_per_cp\)", str(refused.value))[1])
    settings["hardware"]["source_lpar_cps"] = needed - 1
    with pytest.raises(ValueRangeError, match="hardware.source_lpar_cps"):
        predict(settings)
    settings["hardware"]["source_lpar_cps"] = needed  # the source LPAR passes; the next one is named
    with pytest.raises(ValueRangeError, match="hardware.capture_lpar_cps"):
        predict(settings)


def test_agents_scale_sub_linearly_before_the_cpu_saturates():
    """Drain with a fast LPAR: doubling the agents gives less than double the rate."""
    settings = copy.deepcopy(_scenario("dw2005-zos-unidirectional"))
    settings["run"] = {"mode": "drain", "initial_receive_queue_depth": 100_000}
    settings["hardware"]["apply_lpar_cps"] = 64
    rates = []
    for agents in (2, 4, 8):
        settings["qapply"]["num_apply_agents"] = agents
        rates.append(predict(settings).metrics["apply_rows_per_s"])
    assert rates[0] < rates[1] < rates[2]
    assert rates[2] / rates[1] < rates[1] / rates[0] < 2.0
