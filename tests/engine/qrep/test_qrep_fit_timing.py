"""``qrtune fit`` with the 10.2.1+ timing columns (DBMS_TIME, MQGET_TIME, MQPUT_TIME, MQCMIT_TIME).

Monitor exports made by the engine with known coefficients (the MQ API's per-call costs and
the Db2 commit wait off their calibrated values) plus 2 % noise are imported as a user's CSV
exports; the fit must recover the coefficients and the held-out error on the timing columns
must be smaller than that of the same fit without them.
"""

from __future__ import annotations

import numpy as np
import pytest
from qrep_test_helpers import BASELINE_PROJECT

from engine import cli, projectfile
from engine.calibrate.fit import engine_fit_model, synthesize_intervals
from engine.monitor.importer import import_files, write_exports
from engine.monitor.timing import TIMING_METRICS, timing_label
from engine.perf.qrep import TIMING_FIT_PARAMETERS, predict
from engine.scenario import project_to_scenario
from engine.store import Store

#: Multiples of the calibrated coefficients that generate the "observed" intervals.
PERTURB = {"class2_commit_ms": 1.5, "mq_get_us": 1.8, "mq_put_us": 0.6, "mq_commit_us": 2.0}
MQ_METRICS = ("apply_mqget_us", "capture_mqput_us", "capture_mqcommit_us")


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """The project, the true coefficients, the fit's stored report and what ``qrtune fit`` printed."""
    tmp = tmp_path_factory.mktemp("timing")
    project = projectfile.load(BASELINE_PROJECT)
    settings = project_to_scenario(project)
    model = engine_fit_model(settings, timing=True)
    assert set(model.timing) == set(TIMING_FIT_PARAMETERS)
    true = {n: model.parameters[n][0] * k for n, k in PERTURB.items()}
    capacity = predict(settings, true).metrics["apply_rows_per_s"]
    offered = capacity * np.linspace(0.15, 0.9, 16)
    rows = synthesize_intervals(
        model, settings, true, offered, 60.0, np.random.default_rng(7), noise=0.02, timing=True
    )
    db = tmp / "runs.duckdb"
    with Store.open(db) as s:
        import_files(s, write_exports(rows, tmp), project.name)
    only = ",".join(PERTURB)
    out = tmp / "out.txt"
    with open(out, "w") as f:
        import contextlib

        with contextlib.redirect_stdout(f):
            status = cli.main(
                ["fit", str(BASELINE_PROJECT), "--db", str(db), "--holdout-every", "2", "--only", only]
            )
    assert status == 0
    with Store.open(db, read_only=True) as s:
        report = s.latest_fit(project.name)["report"]
    return project, true, report, out.read_text()


@pytest.mark.slow
def test_the_fit_with_the_timing_columns_recovers_the_coefficients_they_pin(fitted):
    _, true, report, _ = fitted
    for name, value in true.items():
        assert report["base"][name] != pytest.approx(value, rel=0.2), name  # the start is really off
    for name in ("class2_commit_ms", "mq_get_us", "mq_put_us"):
        assert report["fitted"][name] == pytest.approx(true[name], rel=0.1), name
    # MQCMIT_TIME is mostly the log force: a doubled API cost moves it by about 5 %
    assert report["fitted"]["mq_commit_us"] == pytest.approx(true["mq_commit_us"], rel=0.35)
    without = report["without_timing"]["fitted"]
    assert all(without[n] == report["base"][n] for n in TIMING_FIT_PARAMETERS)  # not pinned without them


@pytest.mark.slow
def test_the_held_out_error_on_the_timing_columns_is_smaller_with_them(fitted):
    _, _, report, _ = fitted
    before = report["holdout_error_before"]["by_metric"]
    with_them = report["holdout_error_after"]["by_metric"]
    without = report["without_timing"]["holdout_error_after"]["by_metric"]
    assert set(TIMING_METRICS) <= set(with_them) and set(TIMING_METRICS) <= set(without)
    for metric in MQ_METRICS:
        assert with_them[metric] < without[metric], metric
    assert np.mean([with_them[m] for m in TIMING_METRICS]) < np.mean([without[m] for m in TIMING_METRICS])
    assert with_them["apply_db2_class2_ms"] < before["apply_db2_class2_ms"]  # DBMS_TIME: pinned either way


@pytest.mark.slow
def test_qrtune_fit_prints_each_timing_column_under_ibm_names(fitted):
    _, _, report, text = fitted
    assert "fit without them" in text and "fit with them" in text
    for metric in TIMING_METRICS:
        label = timing_label(metric)
        line = next(line for line in text.splitlines() if line.strip().startswith(label))
        assert f"{report['holdout_error_after']['by_metric'][metric]:.1f}%" in line, line
    assert "WORKQ_WAIT_TIME" in text and "apply_mqget_us" not in text
