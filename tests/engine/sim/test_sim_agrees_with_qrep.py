"""In steady state the simulation's monitor averages agree with the steady-state engine.

For every Q Replication project in ``sample_runs/``, the live steady-state prediction
(``engine.predict.predict_settings``, never pinned numbers: that engine is refitted from time to
time) is compared with the IBMQREP_APPLYMON averages of a simulation of the same project at
the same workload (its offered rate, or the predicted throughput when it drives the pipeline to
the maximum), after a warm-up, weighted by TRANS_APPLIED as a monitor reader would.

Stated tolerances (simulated - predicted):

* throughput: within 2% (the issue's check);
* CAPTURE_LATENCY: within 10% or 20 ms;
* QLATENCY: within 40% or 25 ms. The simulation commits Q Capture's MQ unit of work at the end
  of its log-read cycle (or after ``maxtrans_per_commit`` transactions), so at low rates a
  message waits up to a whole SLEEP_INTERVAL for its commit where the steady-state formula
  takes half a cycle;
* APPLY_LATENCY: within a factor of 2 (or 15 ms) for each project, and within 35% on average
  over the projects whose agents queue (predicted APPLY_LATENCY above 50 ms). At 95% agent
  utilisation the mean wait of one 5-minute run moves by about 30% from seed to seed (the
  published measurements of near-identical configurations range from 28 to 873 ms), so a
  single run cannot be held closer;
* END2END_LATENCY: within 15%.

The same samples with dependent transactions (``workload.dependent_txn_pct``) and with a
larger Q Apply COMMIT_COUNT, where the simulation has its own mechanisms (dependent target
transactions wait for the one before them; agents apply COMMIT_COUNT messages in one target
transaction): throughput within 2%, APPLY_LATENCY within a factor of 2 (or 15 ms) per project
and within 35% on average where the agents queue. Projects the steady-state engine finds
overloaded at their workload (no APPLY_LATENCY) are left out.
"""

from pathlib import Path

import numpy as np
import pytest

from engine import projectfile
from engine.scenario import project_to_scenario

ROOT = Path(__file__).resolve().parents[3]
DURATION_S = 300.0
WARM_UP_S = 60.0


def _qrep_samples() -> list[Path]:
    return [path for path in sorted((ROOT / "sample_runs").glob("*.json"))
            if project_to_scenario(projectfile.load(path)).get("kind") == "qrep"]


SAMPLES = _qrep_samples()


#: Settings changed for the runs with the simulation's dependency and COMMIT_COUNT mechanisms.
VARIANTS = {"dependent-30pct": {"workload": {"dependent_txn_pct": 30.0}},
            "commit-count-4": {"qapply": {"commit_count": 4}}}


def _compare(changes: dict | None = None) -> dict:
    """Per sample: (prediction metrics, simulated monitor averages) with ``changes`` to its settings."""
    from engine.predict import predict_settings
    from engine.sim import simulate_settings

    out = {}
    for path in SAMPLES:
        project = projectfile.load(path)
        settings = project_to_scenario(project)
        for section, values in (changes or {}).items():
            settings.setdefault(section, {}).update(values)
        pred = predict_settings(settings)
        if changes and "apply_latency_ms" not in pred.metrics:
            continue  # overloaded at this workload: no steady state to compare with
        res = simulate_settings(settings, DURATION_S, prediction=pred, project=project, seed=11)
        mon = res.monitor["IBMQREP_APPLYMON"]
        interval_s = res.config.apply_monitor_s
        keep = np.arange(len(mon["TRANS_APPLIED"])) * interval_s >= WARM_UP_S
        n = mon["TRANS_APPLIED"][keep].astype(float)
        avg = {col: float((mon[col][keep] * n).sum() / n.sum())
               for col in ("CAPTURE_LATENCY", "QLATENCY", "APPLY_LATENCY", "END2END_LATENCY")}
        avg["rows_per_s"] = float(mon["ROWS_APPLIED"][keep].sum()) / (keep.sum() * interval_s)
        avg["MEM_FULL_TIME"] = float(mon["MEM_FULL_TIME"].sum())
        out[path.name] = (pred.metrics, avg)
    return out


@pytest.fixture(scope="module")
def compared():
    """Per sample: (prediction metrics, simulated monitor averages), computed once."""
    return _compare()


def test_there_are_qrep_samples_to_compare():
    assert len(SAMPLES) >= 3


@pytest.mark.parametrize("name", [p.name for p in SAMPLES])
def test_monitor_averages_agree_with_the_steady_state_prediction(compared, name):
    pred, sim = compared[name]
    assert "apply_latency_ms" in pred, "the samples run below their capacity, so the engine predicts latencies"
    assert sim["rows_per_s"] == pytest.approx(pred["apply_rows_per_s"], rel=0.02)
    assert sim["CAPTURE_LATENCY"] == pytest.approx(pred["capture_latency_ms"], rel=0.10, abs=20.0)
    assert sim["QLATENCY"] == pytest.approx(pred["qlatency_ms"], rel=0.40, abs=25.0)
    ratio = sim["APPLY_LATENCY"] / pred["apply_latency_ms"]
    assert 0.5 <= ratio <= 2.0 or abs(sim["APPLY_LATENCY"] - pred["apply_latency_ms"]) <= 15.0, (
        f"APPLY_LATENCY {sim['APPLY_LATENCY']:.1f} ms simulated vs {pred['apply_latency_ms']:.1f} ms predicted")
    assert sim["END2END_LATENCY"] == pytest.approx(pred["end2end_latency_ms"], rel=0.15)
    assert sim["MEM_FULL_TIME"] < 1.0  # Q Apply's MEMORY_LIMIT is far from full at steady state
    # the monitor's parts add up, as in every interval
    parts = sim["CAPTURE_LATENCY"] + sim["QLATENCY"] + sim["APPLY_LATENCY"]
    assert sim["END2END_LATENCY"] == pytest.approx(parts, rel=1e-9)


def test_apply_latency_agrees_on_average_where_the_agents_queue(compared):
    ratios = [sim["APPLY_LATENCY"] / pred["apply_latency_ms"] for pred, sim in compared.values()
              if pred.get("apply_latency_ms", 0.0) > 50.0]
    assert ratios, "at least one sample must drive its agents hard"
    assert float(np.mean(ratios)) == pytest.approx(1.0, abs=0.35), ratios


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_apply_latency_agrees_with_dependencies_and_commit_count(variant):
    compared = _compare(VARIANTS[variant])
    assert len(compared) >= 4
    ratios = []
    for name, (pred, sim) in compared.items():
        assert sim["rows_per_s"] == pytest.approx(pred["apply_rows_per_s"], rel=0.02), name
        ratio = sim["APPLY_LATENCY"] / pred["apply_latency_ms"]
        assert 0.5 <= ratio <= 2.0 or abs(sim["APPLY_LATENCY"] - pred["apply_latency_ms"]) <= 15.0, (
            f"{name}: APPLY_LATENCY {sim['APPLY_LATENCY']:.1f} ms simulated vs {pred['apply_latency_ms']:.1f} ms predicted")
        parts = sim["CAPTURE_LATENCY"] + sim["QLATENCY"] + sim["APPLY_LATENCY"]
        assert sim["END2END_LATENCY"] == pytest.approx(parts, rel=1e-9)
        if pred["apply_latency_ms"] > 50.0:
            ratios.append(ratio)
    assert ratios, "at least one sample must drive its agents hard"
    assert float(np.mean(ratios)) == pytest.approx(1.0, abs=0.35), ratios
