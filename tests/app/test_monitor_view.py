"""Journey 8 in the window: import monitor exports, overlay measured and predicted, fit, held-out error."""

import numpy as np
import pytest

from engine import projectfile
from engine.calibrate.fit import engine_fit_model, synthesize_intervals
from engine.monitor.importer import write_exports
from engine.scenario import project_to_scenario

N = 32


@pytest.fixture
def exports(root, tmp_path):
    """CSV exports of a system whose coefficients are 30% off the published ones (3% noise)."""
    project = projectfile.load(root / "sample_runs" / "redpaper-baseline.json")
    settings = project_to_scenario(project)
    model = engine_fit_model(settings)
    true = {k: v[0] * 1.3 for k, v in model.parameters.items()}
    offered = np.concatenate([np.linspace(5000, 40000, N // 2), np.linspace(40000, 5000, N // 2)])
    rows = synthesize_intervals(model, settings, true, offered, 60.0, np.random.default_rng(3))
    return project, [str(f) for f in write_exports(rows, tmp_path)]


def run(view, qtbot, **kwargs):
    with qtbot.waitSignal(view.tasks.finished, timeout=60000):
        assert view.run(**kwargs)
    return view.outcome


@pytest.mark.slow
def test_import_overlay_and_fit_with_held_out_error(window, qtbot, exports):
    project, files = exports
    window.document.reset(project, None)
    view = window.view_widget("Monitor")
    assert window.tabs.tabText(6) == "Monitor"  # Results is now a tab beside Topology
    outcome = run(view, qtbot, files=files)
    assert outcome.imported_rows == 2 * N and len(outcome.intervals) == N and outcome.fit is None
    measured = view.charts["apply_rows_per_s"].curves["measured"].getData()[1]
    predicted = view.charts["apply_rows_per_s"].curves["predicted"].getData()[1]
    assert len(measured) == len(predicted) == N
    assert set(view.charts["end2end_latency_ms"].curves) == {"measured", "predicted"}
    assert "Fit to the intervals" in view.summary.text()

    outcome = run(view, qtbot, fit=True)  # the imported rows are kept: no second import needed
    fit = outcome.fit
    assert outcome.imported_rows == 0 and len(outcome.intervals) == N
    assert fit.n_holdout == N // 4 and sum(outcome.held_out) == N // 4
    assert fit.after["mean_metric_pct"] < fit.before["mean_metric_pct"]
    curves = view.charts["end2end_latency_ms"].curves
    assert set(curves) == {"measured", "predicted", "predicted, fitted", "measured, held out"}
    assert len(curves["measured, held out"].getData()[0]) == N // 4
    # the headline is engine.calibrate.fit's mean over metrics (as qrtune fit prints and stores), not the pooled median
    text = view.summary.text()
    assert f"{fit.before['mean_metric_pct']:.1f}%</b> with the published" in text
    assert f"{fit.after['mean_metric_pct']:.1f}%</b> fitted" in text and "mean over metrics" in text
    assert (
        f"{fit.after['median_pct']:.1f}%" != f"{fit.after['mean_metric_pct']:.1f}%"
    )  # the test can tell them apart
    assert view.coefficients.rowCount() == len(fit.base) and view.errors.rowCount() >= 2
    with window.history.open(read_only=True) as store:
        stored = store.latest_fit(project.name)
    assert stored["id"] == outcome.fit_id
    assert (stored["error_before_pct"], stored["error_after_pct"]) == pytest.approx(
        (fit.before["mean_metric_pct"], fit.after["mean_metric_pct"])
    )


def test_a_malformed_export_is_reported_and_nothing_imported(window, qtbot, tmp_path):
    bad = tmp_path / "IBMQREP_APPLYMON.csv"
    bad.write_text("MONITOR_TIME,RECVQ,ROWS_APPLIED\nnot a time,Q1,5\n")
    view = window.view_widget("Monitor")
    with qtbot.waitSignal(view.tasks.failed, timeout=30000):
        view.run(files=[str(bad)])
    assert "IBMQREP_APPLYMON.csv" in view.status.text() and view.import_button.isEnabled()
    outcome = run(view, qtbot)
    assert outcome.intervals == [] and "No monitor intervals" in view.status.text()


def test_fit_counts_explain_what_was_fitted_and_held_out():
    from types import SimpleNamespace

    from app.panels.monitor import fit_counts_text

    fit = SimpleNamespace(n_fit=300, n_holdout=252, n_fit_total=756, n_holdout_total=252)
    text = fit_counts_text(fit, 1008, 4)
    assert "<b>300</b> intervals, <b>252</b> held out, of 1,008" in text
    assert "every 4th interval (252)" in text and "of the other 756, 300 evenly spaced" in text
    small = SimpleNamespace(n_fit=24, n_holdout=8, n_fit_total=24, n_holdout_total=8)
    assert "evenly spaced" not in fit_counts_text(small, 32, 4)


def test_file_menu_opens_the_sample_monitor_exports(window, qtbot):
    assert window.act_monitor_sample in window.menuBar().actions()[0].menu().actions()
    view = window.view_widget("Monitor")
    assert window.open_monitor_sample(ask=False)
    qtbot.waitUntil(lambda: not view.tasks.busy(), timeout=60000)
    assert view.outcome is not None, view.status.text()
    assert window.document.project.name.startswith("Redpaper baseline")
    assert view.outcome.imported_rows == 3 * 432 and view.outcome.n_intervals == 431
    # (one interval of the channel outage applied no rows.) The overlay is the fit's sample: 300 of
    # the 324 intervals fitted and all 107 held out
    assert len(view.outcome.intervals) == 300 + 107 == len(view.outcome.predicted)
    status = view.status.text()
    assert "431 intervals from" in status and "407 evenly spaced in time shown" in status
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Monitor"
    # another project: the overlay and fit of this one leave the view
    assert window.new_from_template("unidirectional")
    assert view.outcome is None and not any(chart.curves for chart in view.charts.values())
    assert view.status.text().startswith("Import a week") and view.coefficients.rowCount() == 0


def test_fit_that_stopped_at_its_budget_says_so():
    from types import SimpleNamespace

    from app.panels.monitor import budget_text

    stopped = SimpleNamespace(stopped_at="15.1 s (the budget is 15 s)")
    assert "stopped at its budget</b> after 15.1 s (the budget is 15 s)" in budget_text(stopped)
    assert "best coefficients it found" in budget_text(stopped)
    assert budget_text(SimpleNamespace(stopped_at="")) == ""


def _fit_at_bound():
    from engine.calibrate.fit import FitResult

    return FitResult(
        base={"ch_batch_us": 6154.0, "maxtrans_per_commit": 129.7},
        fitted={"ch_batch_us": 20000.0, "maxtrans_per_commit": 130.7},
        units={"ch_batch_us": "us", "maxtrans_per_commit": "txns"},
        n_fit=300,
        n_holdout=107,
        before={"mean_metric_pct": 30.3, "by_metric": {"apply_rows_per_s": 0.0}},
        after={"mean_metric_pct": 11.0, "by_metric": {"apply_rows_per_s": 0.0}},
        train_after={},
        bounds={"ch_batch_us": (0.0, 20000.0), "maxtrans_per_commit": (1.0, 1000.0)},
    )


def test_a_coefficient_fitted_to_a_bound_is_marked_and_explained():
    """A fit that pushed ch_batch_us to the top of its range says so in the table, the summary,
    the command's output and the stored JSON; a coefficient inside its range is not marked."""
    from app.panels.monitor import bound_text

    fit = _fit_at_bound()
    assert fit.bound_hit("ch_batch_us") == "upper" and fit.bound_hit("maxtrans_per_commit") == ""
    assert fit.to_json()["at_bound"] == {"ch_batch_us": "upper"}
    text = bound_text(fit)
    assert "At a bound: <b>ch_batch_us</b>" in text and "Check the project's settings" in text
    assert bound_text(_fit_at_bound().__class__(**{**fit.__dict__, "fitted": dict(fit.base)})) == ""


def test_the_coefficients_table_marks_the_bound(window):
    from types import SimpleNamespace

    from app import style

    view = window.view_widget("Monitor")
    view.outcome = SimpleNamespace(n_intervals=431, fit_id=1)
    view._show_fit(_fit_at_bound())
    cells = [view.coefficients.item(0, c).text() for c in range(5)]
    assert cells == ["ch_batch_us", "us", "6,154", "20,000", "+225.0%"]
    assert view.coefficients.item(0, 4).foreground().color().name() == style.NOTE_TEXT
    assert view.coefficients.item(1, 4).foreground().color().name() != style.NOTE_TEXT
    tip = view.coefficients.item(0, 3).toolTip()
    assert "Fitted to the upper bound" in tip and "ranges from 0 to 20,000 us" in tip
    assert view.coefficients.item(1, 3).toolTip() == ""
    assert "At a bound" in view.summary.text()
