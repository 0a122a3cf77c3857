"""``qrtune fit`` on the Q Replication engine: its fit contract, and recovery from simulated monitor rows.

The Q Replication engine exposes ``fit_parameters(settings)`` and ``predict(settings,
coefficients)`` (the contract in the docstring of :mod:`engine.calibrate.fit`); its own tests
(tests/engine/qrep/test_qrep_fit_contract.py) fit rows the steady-state engine made. Here
the rows come from the time-domain simulator run on a prediction with known coefficients,
as the issue asks, imported from CSV like a user's exports.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from engine.calibrate.fit import (
    check_engine_contract,
    engine_fit_model,
    fit_coefficients,
    intervals_from_monitor,
)
from engine.monitor.importer import load_monitor_rows, parse_file, write_parsed
from engine.perf import qrep
from engine.scenario import project_to_scenario
from engine.store import Store

#: Offered rates as fractions of the predicted maximum, one simulated stretch each.
LOAD_LEVELS = (0.3, 0.5, 0.7, 0.9)

#: Simulated seconds per load level (20 monitor intervals of 10 s).
STRETCH_S = 200.0


def test_qrep_follows_the_fit_contract(baseline):
    """fit_parameters bounds hold the values, predict(settings, base) is the plain prediction, each moves it."""
    params = check_engine_contract(qrep, project_to_scenario(baseline))
    assert params  # every offered coefficient has valid bounds and moves some metric


def _true_coefficients(model) -> dict:
    """Every fittable coefficient moved 25 % (alternately up and down), kept inside its bounds."""
    out = {}
    for k, (name, (value, low, high, _)) in enumerate(sorted(model.parameters.items())):
        out[name] = min(high, max(low, value * (1.25 if k % 2 == 0 else 0.8)))
    return out


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    """Monitor rows of simulations at 30..90 % load from perturbed coefficients, imported from CSV."""
    from store_fakes import ROOT

    from engine import projectfile
    from engine.sim import simulate_settings

    baseline = projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json")
    tmp = tmp_path_factory.mktemp("simfit")
    settings = project_to_scenario(baseline)
    model = engine_fit_model(settings)
    true = _true_coefficients(model)
    top = qrep.predict(settings, true).metrics["apply_rows_per_s"]
    files = []
    start = datetime(2024, 1, 1)
    for k, level in enumerate(LOAD_LEVELS):
        s = dict(settings, workload=dict(settings["workload"], offered_rows_per_s=level * top))
        res = simulate_settings(s, STRETCH_S, coefficients=true, seed=k, start_time=start)
        start += timedelta(seconds=STRETCH_S)
        for table in ("IBMQREP_APPLYMON", "IBMQREP_CAPQMON"):
            f = tmp / f"{table}_{k}.csv"
            f.write_text(res.monitor_csv(table))
            files.append(f)
    with Store.open(tmp / "runs.duckdb") as store:
        write_parsed(store, [parse_file(f) for f in files], baseline.name)
        intervals = intervals_from_monitor(load_monitor_rows(store, baseline.name))
    assert len(intervals) >= 19 * len(LOAD_LEVELS)
    return true, fit_coefficients(model, settings, intervals)


@pytest.mark.slow
def test_fit_to_simulated_rows_recovers_the_coefficients_the_simulator_reproduces(simulated):
    """The simulation follows the coefficients it is given (engine.sim.config.qrep_delays and the
    prediction); where its monitor figures agree with the steady-state engine's, the fit finds them."""
    true, result = simulated
    # CAPTURE_LATENCY's merged-log read delay and the message header are recovered
    assert result.fitted["log_merge_delay_ms"] == pytest.approx(true["log_merge_delay_ms"], rel=0.05)
    assert result.fitted["msg_header_bytes"] == pytest.approx(true["msg_header_bytes"], rel=0.15)
    assert result.after["mean_metric_pct"] < result.before["mean_metric_pct"]
    assert (
        result.after["by_metric"]["capture_latency_ms"]
        < 2.0
        < result.before["by_metric"]["capture_latency_ms"]
    )


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason=(
        "the simulator and the steady-state engine split Q Apply's and the channel's time differently (within the "
        "tolerances tests/engine/sim/test_sim_agrees_with_qrep.py states), so the fit to simulated rows does not "
        "recover every coefficient: class2_commit_ms comes out 0.08 ms for 0.65 (APPLY_LATENCY) and ch_batch_us "
        "8,672 us for 5,305 (QLATENCY), while log_merge_delay_ms, maxtrans_per_commit and msg_header_bytes are "
        "within 8 %"
    ),
)
def test_fit_to_simulated_rows_recovers_every_coefficient(simulated):
    true, result = simulated
    for name, value in true.items():
        assert result.fitted[name] == pytest.approx(value, rel=0.15), name
