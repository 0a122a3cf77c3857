"""The Q Replication engine's fit contract (engine.calibrate.fit / ``qrtune fit``) and registry wiring.

``qrtune fit`` must recover known coefficients from monitor rows that the real engine
produced with perturbed coefficients (plus 2 % noise), imported like a user's CSV exports.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from cli_run import python, qrtune
from qrep_test_helpers import BASELINE_PROJECT, ROOT

from engine import projectfile
from engine.calibrate.fit import engine_fit_model, synthesize_intervals
from engine.monitor.importer import parse_file, write_exports, write_parsed
from engine.perf.qrep import FIT_PARAMETERS, fit_parameters, predict
from engine.perf.qrep.coefficients import CoefficientsError, load
from engine.scenario import project_to_scenario
from engine.store import Store

#: Multiples of the calibrated coefficients that generate the "observed" intervals.
PERTURB = {
    "log_merge_delay_ms": 0.6,
    "ch_batch_us": 1.8,
    "maxtrans_per_commit": 2.5,
    "class2_commit_ms": 1.5,
    "msg_header_bytes": 1.4,
}


def test_fit_parameters_offer_positive_bounds_around_the_current_values(baseline):
    params = fit_parameters(baseline)
    assert set(params) == set(FIT_PARAMETERS) == set(PERTURB)
    c = load()
    for name, (value, low, high, unit) in params.items():
        assert value == c.values[name]
        assert 0 < low < value < high, name
        assert isinstance(unit, str)


def test_predict_with_a_mapping_overrides_only_the_named_coefficients(baseline):
    base = predict(baseline)
    c = load()
    changed = predict(baseline, {"log_merge_delay_ms": c.log_merge_delay_ms + 100.0})
    assert changed.metrics["capture_latency_ms"] == pytest.approx(base.metrics["capture_latency_ms"] + 100.0)
    assert changed.metrics["apply_rows_per_s"] == base.metrics["apply_rows_per_s"]
    same = predict(baseline, c.with_values(log_merge_delay_ms=c.log_merge_delay_ms + 100.0))
    assert same.metrics == changed.metrics
    with pytest.raises(CoefficientsError, match="unknown name.*no_such_coefficient"):
        predict(baseline, {"no_such_coefficient": 1.0})


@pytest.fixture
def imported_monitor_rows(tmp_path):
    project = projectfile.load(BASELINE_PROJECT)
    settings = project_to_scenario(project)
    model = engine_fit_model(settings)
    assert model.name == "engine.perf.qrep"
    true = {n: v[0] * PERTURB[n] for n, v in model.parameters.items()}
    capacity = predict(settings, true).metrics["apply_rows_per_s"]
    offered = capacity * np.concatenate([np.linspace(0.15, 0.9, 20), np.linspace(0.9, 0.15, 20)])
    rows = synthesize_intervals(model, settings, true, offered, 10.0, np.random.default_rng(11), noise=0.02)
    db = tmp_path / "runs.duckdb"
    with Store.open(db) as s:
        write_parsed(s, [parse_file(f) for f in write_exports(rows, tmp_path)], project.name)
    return db, true, model


@pytest.mark.slow
def test_qrtune_fit_recovers_coefficients_from_engine_generated_rows(imported_monitor_rows):
    db, true, _ = imported_monitor_rows
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = qrtune("fit", BASELINE_PROJECT, "--db", db, "--json", env=env, timeout_s=300)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["model"] == "engine.perf.qrep"
    for name, value in true.items():
        assert doc["base"][name] != pytest.approx(value, rel=0.2), name  # the start is really off
        assert doc["fitted"][name] == pytest.approx(value, rel=0.1), name
    assert doc["holdout_error_after"]["median_pct"] < 5.0 < doc["holdout_error_before"]["median_pct"]


def test_registry_knobs_reach_the_engine_from_project_files():
    project = projectfile.load(BASELINE_PROJECT)
    qapply = next(n for n in project.nodes if n.kind == "qapply")
    channel = next(n for n in project.nodes if n.kind == "channel")
    base = project_to_scenario(project)
    assert base["qapply"]["commit_count"] == qapply.params["commit_count"]
    assert base["qapply"]["maxagents_correlid"] == qapply.params["maxagents_correlid"]
    assert base["hardware"]["network_mbps"] == channel.params["network_mbps"]

    # COMMIT_COUNT: bigger target transactions, longer class 2 elapsed per commit
    grouped = project_to_scenario(project.with_param(qapply.id, "commit_count", 4))
    assert (
        predict(grouped).metrics["apply_db2_class2_ms"] > 1.8 * predict(base).metrics["apply_db2_class2_ms"]
    )

    # network bandwidth: a thin link limits the channel
    thin = project_to_scenario(project.with_param(channel.id, "network_mbps", 10.0))
    p_thin = predict(thin)
    assert p_thin.bottleneck == "mq_channel"
    assert p_thin.metrics["channel_mb_per_s"] * 8.0 <= 10.0 * 1.0001
    assert "hardware.network_mbps" not in p_thin.ignored

    # MAXAGENTS_CORRELID: ignored (and said so) with an offered rate, limits agents for a closed workload
    limited = project_to_scenario(project.with_param(qapply.id, "maxagents_correlid", 1))
    assert "qapply.maxagents_correlid" in predict(limited).ignored
    closed = {
        **limited,
        "workload": {**limited["workload"], "offered_rows_per_s": None, "jobs": 2, "think_time_ms": 0.0},
    }
    unlimited = {**closed, "qapply": {**closed["qapply"], "maxagents_correlid": 0}}
    p_lim, p_free = predict(closed), predict(unlimited)
    assert "qapply.maxagents_correlid" not in p_lim.ignored
    agents = {p.name: p for p in p_lim.stages}["qapply_agents"]
    assert agents.servers == 2  # 1 agent per correlation id x 2 jobs
    assert {p.name: p for p in p_free.stages}["qapply_agents"].servers == qapply.params["num_apply_agents"]


def test_predict_does_not_import_scipy():
    code = (
        "import json, sys; from engine.perf.qrep import predict; "
        "doc = json.load(open('assets/validation/calibration.json')); "
        "predict(next(s for s in doc['scenarios'] if s['kind'] == 'qrep')); "
        "print(any(m == 'scipy' or m.startswith('scipy.') for m in sys.modules))"
    )
    out = python("-c", code, timeout_s=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
