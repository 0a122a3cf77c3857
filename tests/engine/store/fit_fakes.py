"""A small coefficient-parameterised steady-state model that follows the fit contract of engine.calibrate.fit.

Stages and their service demands with physical meaning:

* Q Capture: ``capture_ms_per_txn`` to read and build one transaction (one thread, M/M/1) plus
  half a SLEEP_INTERVAL of polling;
* MQ transport: ``mq_ms_per_msg`` per message (TRANS_BATCH_SZ transactions per message), M/M/1;
* Q Apply: ``apply_ms_per_txn`` per transaction on each of NUM_APPLY_AGENTS agents, M/M/c
  (Erlang C).

The Q Replication engine has its own ``fit_parameters`` now (tested against the contract in
tests/engine/store/test_fit_qrep_contract.py and tests/engine/qrep/test_qrep_fit_contract.py).
This model stays for the fit machinery's own tests (tests/engine/store/test_monitor_fit.py):
three coefficients with closed-form queueing predictions, so a fit to rows made with
:data:`TRUE` can be checked to recover :data:`TRUE` exactly, fast, and independently of
changes to the real engine's costs.
"""

from __future__ import annotations

from fake_figures import pipeline_metrics

from engine.perf.result import Prediction, StageResult

TRUE = {"capture_ms_per_txn": 1.6, "mq_ms_per_msg": 3.0, "apply_ms_per_txn": 12.0}
BASE = {"capture_ms_per_txn": 1.0, "mq_ms_per_msg": 5.0, "apply_ms_per_txn": 8.0}


def fit_parameters(settings: dict) -> dict:
    return {
        "capture_ms_per_txn": (BASE["capture_ms_per_txn"], 0.01, 100.0, "ms/txn"),
        "mq_ms_per_msg": (BASE["mq_ms_per_msg"], 0.05, 100.0, "ms/msg"),
        "apply_ms_per_txn": (BASE["apply_ms_per_txn"], 0.1, 1000.0, "ms/txn"),
    }


def _erlang_c(c: int, a: float) -> float:
    term, total = 1.0, 1.0
    for k in range(1, c):
        term *= a / k
        total += term
    last = term * a / c / (1 - a / c)
    return last / (total + last)


def _mm1_ms(service_ms: float, rho: float) -> float:
    return service_ms / (1.0 - rho)


def predict(settings: dict, coefficients: dict | None = None) -> Prediction:
    c = dict(BASE)
    c.update(coefficients or {})
    rows_per_txn = settings["workload"]["rows_per_txn"]
    batch = settings["qcapture"]["trans_batch_sz"]
    agents = settings["qapply"]["num_apply_agents"]
    sleep_ms = settings["qcapture"]["sleep_interval_ms"]
    capture_cap = 1000.0 / c["capture_ms_per_txn"] * rows_per_txn
    mq_cap = 1000.0 / c["mq_ms_per_msg"] * batch * rows_per_txn
    apply_cap = agents * 1000.0 / c["apply_ms_per_txn"] * rows_per_txn
    offered = settings["workload"].get("offered_rows_per_s") or 0.999 * min(capture_cap, mq_cap, apply_cap)
    rate = min(offered, 0.999 * min(capture_cap, mq_cap, apply_cap))
    rho_c = rate / capture_cap
    capture_ms = sleep_ms / 2 + _mm1_ms(c["capture_ms_per_txn"], rho_c)
    q_ms = _mm1_ms(c["mq_ms_per_msg"], rate / mq_cap)
    a = rate / rows_per_txn * c["apply_ms_per_txn"] / 1000.0
    wait_ms = _erlang_c(agents, a) * c["apply_ms_per_txn"] / (agents - a)
    apply_ms = c["apply_ms_per_txn"] + wait_ms
    stages = (
        StageResult("qcapture", capture_cap, rho_c, "rows/s", capture_ms),
        StageResult("mq_channel", mq_cap, rate / mq_cap, "rows/s", q_ms),
        StageResult("qapply_agents", apply_cap, rate / apply_cap, "rows/s", apply_ms),
    )
    metrics = {
        **pipeline_metrics(rate, capture_ms, q_ms, apply_ms),
        "msg_size_kb": batch * rows_per_txn * settings["table"]["row_bytes"] / 1024.0,
    }
    units = {k: ("rows/s" if k.endswith("per_s") else "KB" if k.endswith("kb") else "ms") for k in metrics}
    bottleneck = min(stages, key=lambda s: s.capacity).name
    return Prediction("qrep", metrics, units, stages, bottleneck, (), "fitfake-1")
