"""Latency against offered load on every Q Replication sample, and the commit cycle's knobs.

Q Capture commits its messages at COMMIT_INTERVAL or when its transaction limit fills, whichever
comes first, and packs into a message only the transactions a log pass finds: every latency
approaches a floor as the load falls and grows only through queueing as the load rises, except
the wait for the MQ commit (half a commit period), which falls where the transaction limit
fills before COMMIT_INTERVAL (seed 000 Table 2-1: "at high throughput, the maxtrans limit is
reached much sooner and Capture commits much more frequently").
"""

from __future__ import annotations

import copy
import json
import math
import re
from pathlib import Path

import pytest

from engine.errors import ValueRangeError
from engine.perf.qrep import predict
from engine.perf.qrep.coefficients import load
from engine.projectfile import load as load_project
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


def _prediction(settings: dict, rows_per_s: float, **changes):
    s = copy.deepcopy(settings)
    s["workload"]["offered_rows_per_s"] = rows_per_s
    s["workload"]["jobs"] = None
    for path, value in changes.items():
        group, key = path.split("__")
        s[group][key] = value
    return predict(s)


def _open(settings: dict, rows_per_s: float, **changes) -> dict:
    return _prediction(settings, rows_per_s, **changes).metrics


def _queueing_latencies(settings: dict, rows_per_s: float) -> list[float]:
    """CAPTURE, Q, APPLY and END2END latency without the wait for Q Capture's MQ commit."""
    p = _prediction(settings, rows_per_s)
    # the channel's stage carries the wait; the client's gets when Q Apply reads the send queue (no channel)
    carrier = "mq_channel" if any(st.name.startswith("mq_channel") for st in p.stages) else "mq_client"
    commit_wait_ms = next(st.fixed_delay_ms for st in p.stages if st.name.startswith(carrier))
    m = p.metrics
    assert all(math.isfinite(m[k]) and m[k] >= 0 for k in LATENCIES), (rows_per_s, m)
    return [
        m["capture_latency_ms"],
        m["qlatency_ms"] - commit_wait_ms,
        m["apply_latency_ms"],
        m["end2end_latency_ms"] - commit_wait_ms,
    ]


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
    """Every latency, less the MQ commit wait (which may fall as the limit takes over), rises with
    load, by at most 30% between neighbouring loads except where the messages cross the size a
    coupling facility always offloads (63 KB: the mean message grows as a log pass finds more
    transactions to pack). Packing more transactions per message lowers Q Capture's per-row
    share of the message cost, which may take microseconds off CAPTURE_LATENCY."""
    settings = _scenario(name)
    capacity = _capacity(settings)
    previous = previous_offloaded = None
    for share in LOAD_SHARES:
        values = _queueing_latencies(settings, share * capacity)
        offloaded = _open(settings, share * capacity).get("offloaded_msgs_pct")
        if previous is not None:
            for key, before, now in zip(LATENCIES, previous, values):
                assert now >= before - 0.01, (name, key, share, before, now)
                if offloaded == previous_offloaded:
                    assert now <= before * 1.3 + 1.0, (name, key, share, before, now)  # no jump over 30%
        previous, previous_offloaded = values, offloaded


def test_the_commit_wait_is_half_the_shorter_of_commit_interval_and_the_limit_fill():
    settings = _scenario("redpaper-baseline")
    for rows_per_s in (1, 100, 1000, 3000, 10_000):
        p = _prediction(settings, rows_per_s)
        wait_ms = next(st.fixed_delay_ms for st in p.stages if st.name == "mq_channel")
        txns_per_s = rows_per_s / settings["workload"]["rows_per_txn"]
        fill_ms = load().maxtrans_per_commit / txns_per_s * 1000.0
        assert wait_ms == pytest.approx(min(settings["qcapture"]["commit_interval_ms"], fill_ms) / 2.0)


def test_baseline_end2end_under_1_5_s_at_1_row_per_s_and_falls_only_by_the_commit_wait():
    settings = _scenario("redpaper-baseline")
    rates = (1, 3, 10, 30, 100, 300, 1000, 3000, 10_000, 20_000, 30_000)
    assert _open(settings, 1)["end2end_latency_ms"] < 1500.0
    e2e = [_queueing_latencies(settings, r)[3] for r in rates]
    assert all(b >= a * (1 - 1e-9) for a, b in zip(e2e, e2e[1:])), e2e


def test_commit_interval_moves_end2end_where_it_commits_before_the_transaction_limit():
    """5-row transactions: at 1,000 rows/s the limit (~130 transactions) fills in ~650 ms, so
    COMMIT_INTERVAL 200 against 800 ms decides the commit; at 10,000 rows/s it fills in ~65 ms."""
    settings = _scenario("redpaper-baseline")

    def change(rows_per_s: float) -> float:
        short, long = (
            _open(settings, rows_per_s, qcapture__commit_interval_ms=ms)["end2end_latency_ms"]
            for ms in (200, 800)
        )
        return long / short - 1.0

    assert change(1000) >= 0.15
    assert abs(change(10_000)) <= 0.05


def test_messages_hold_only_the_transactions_one_log_pass_finds():
    """TRANS_BATCH_SZ 100 at 20 rows/s (4 transactions/s, a 50 ms sleep): a pass finds about one
    transaction, so a message holds about one, and Q Apply pays its per-message cost per row."""
    settings = _scenario("redpaper-baseline")
    light = _open(settings, 20, qcapture__trans_batch_sz=100)
    full = _open(settings, 30_000, qcapture__trans_batch_sz=100)
    assert light["rows_per_msg"] == pytest.approx(5.0, rel=0.15)
    assert full["rows_per_msg"] == pytest.approx(500.0)
    assert light["apply_cpu_us_per_row"] > 2.0 * full["apply_cpu_us_per_row"]


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
