"""Sweeps and validation run in the background worker with progress and Cancel; runs reach the store."""

import json
import threading

import pytest
from PySide6.QtCore import Qt

from app.panels.validation import published_text
from app.worker import Cancelled, TaskRunner


def test_task_runner_progress_partial_result_and_cancel(qtbot):
    runner = TaskRunner()
    seen, parts = [], []
    runner.progress.connect(lambda f, t: seen.append(f))
    runner.partial.connect(parts.append)

    def work(progress, cancelled, partial):
        for i in range(4):
            progress((i + 1) / 4, f"step {i}")
            partial(i)
        return threading.current_thread() is not threading.main_thread()

    with qtbot.waitSignal(runner.finished, timeout=5000) as done:
        assert runner.start("work", work)
    assert done.args == [True]  # ran off the GUI thread
    assert seen == [0.25, 0.5, 0.75, 1.0] and parts == [0, 1, 2, 3]
    assert not runner.busy()

    gate = threading.Event()

    def slow(progress, cancelled, partial):
        gate.set()
        while not cancelled():
            pass
        raise Cancelled()

    with qtbot.waitSignal(runner.cancelled, timeout=5000):
        runner.start("slow", slow)
        assert not runner.start("again", slow)  # one task at a time
        gate.wait(2)
        runner.cancel()

    with qtbot.waitSignal(runner.failed, timeout=5000) as failed:
        runner.start("bad", lambda p, c, s: 1 / 0)
    assert failed.args[0].startswith("ZeroDivisionError")


def test_sweep_with_progress_streams_points_and_records_every_run(fake_engine, window, qtbot):
    window.view_widget("Sweep").set_axis("qapply", "num_apply_agents", "1..8")
    progress = []
    window.tasks.progress.connect(lambda f, t: progress.append(f))
    with qtbot.waitSignal(window.tasks.finished, timeout=20000):
        assert window.sweep(window.view_widget("Sweep").axis_text())
        assert not window.progress.isHidden() and not window.cancel_button.isHidden()
    view = window.view_widget("Sweep")
    assert window.progress.isHidden()
    assert progress[-1] == 1.0 and len(progress) >= 1
    assert [p.value for p in view.points] == list(range(1, 9))
    # fake engine: min(800 * agents, 3000) rows/s
    curve = view.rate_chart.curves["ROWS_APPLIED"]  # the catalogue label
    x, y = curve.getData()
    assert list(x) == list(range(1, 9)) and list(y) == [min(800.0 * a, 3000.0) for a in range(1, 9)]
    runs = window.history.list_runs()
    assert len(runs) == 8 and {r.kind for r in runs} == {"sweep"}
    assert {r.label for r in runs} == {f"qapply.num_apply_agents={a}" for a in range(1, 9)}


def test_sweep_cancel_keeps_finished_points(fake_engine, window, qtbot, monkeypatch):
    window.view_widget("Sweep")
    window.tasks.partial.connect(lambda points: window.tasks.cancel())  # Cancel after the first batch
    with qtbot.waitSignal(window.tasks.cancelled, timeout=20000):
        window.sweep("qapply.num_apply_agents=1..128")
    view = window.view_widget("Sweep")
    assert "Cancelled after" in view.status.text()
    kept = window.history.list_runs()
    assert 16 <= len(kept) == len(view.points) < 128


def test_bad_sweep_axis_is_reported_without_starting(fake_engine, window):
    assert not window.sweep("qapply.num_apply_agents=0..4")
    assert "not allowed" in window.view_widget("Sweep").status.text()
    assert not window.tasks.busy()


def test_validation_view_scores_the_engine_against_measurements(
    fake_engine, window, qtbot, tmp_path, calibration
):
    scenarios = [s for s in calibration["scenarios"] if s["kind"] == "qrep"][:3]
    path = tmp_path / "scen.json"
    path.write_text(json.dumps({"format": "qrtune-scenarios/1", "scenarios": scenarios}))
    with qtbot.waitSignal(window.tasks.finished, timeout=20000):
        assert window.validate(str(path))
    view = window.view_widget("Validation")
    measured = sum(1 for s in scenarios for v in s["measured"].values() if isinstance(v, (int, float)))
    assert view.table.rowCount() == len(view.checks) == measured
    check = next(c for c in view.checks if c.metric == "apply_rows_per_s")
    assert check.predicted is not None
    assert check.error_pct == pytest.approx((check.predicted - check.measured) / check.measured * 100)
    assert "scenarios" in view.summary_label.text() and "coverage" in view.summary_label.text()


def test_validation_filters_by_document_and_table_worst_first_and_is_cached(
    window, qtbot, tmp_path, calibration
):
    scenarios = calibration["scenarios"][:12]
    path = tmp_path / "scen.json"
    path.write_text(json.dumps({"format": "qrtune-scenarios/1", "scenarios": scenarios}))
    with qtbot.waitSignal(window.tasks.finished, timeout=30000):
        assert window.validate(str(path))
    view = window.view_widget("Validation")
    errors = [view.table.item(r, 4).data(Qt.UserRole) for r in range(view.table.rowCount())]
    known = [e for e in errors if e is not None]
    assert known == sorted(known, reverse=True)  # worst misses first
    docs = [view.doc_filter.itemText(i) for i in range(1, view.doc_filter.count())]
    assert docs and not any(".txt" in d for d in docs)  # documents by title, never a file hash
    view.doc_filter.setCurrentIndex(1)
    tables = [view.table_filter.itemData(i) for i in range(1, view.table_filter.count())]
    assert tables and all(t.startswith(("Table", "Figure")) for t in tables)
    view.table_filter.setCurrentIndex(1)
    shown = view.filtered()
    assert 0 < len(shown) < len(view.checks) and view.table.rowCount() == len(shown)
    assert "90th percentile" in view.summary_label.text() and "median" in view.summary_label.text()
    view.table_filter.setCurrentIndex(0)
    view.doc_filter.setCurrentIndex(0)
    header = [view.table.horizontalHeaderItem(c).text() for c in range(view.table.columnCount())]
    assert header[5] == "Same settings published" and header[-1] == "Source"
    ranged = [c for c in view.checks if c.published_range is not None]
    assert ranged, "the first scenarios repeat the Redpaper baseline"
    texts = {view.table.item(r, 5).text() for r in range(view.table.rowCount())}
    assert published_text(ranged[0]) in texts and " .. " in published_text(ranged[0])
    from app.tasks import validation_task

    def run():
        return validation_task(str(path))(lambda *a: None, lambda: False, lambda d: None)

    first = run()
    assert first is run() and first[0] == view.checks  # a second look is the cached result, not a new run


def test_sweep_tab_refuses_a_scheduler_that_is_not_an_address(fake_engine, window):
    view = window.view_widget("Sweep")
    view.scheduler.setText("notaurl")
    assert not window.sweep("qapply.num_apply_agents=1..3")
    assert "Run on" in view.status.text() and "tcp://HOST:PORT" in view.status.text()
    assert window.history.list_runs() == []


def test_sweep_tab_runs_the_points_on_a_dask_scheduler(fake_engine, window, qtbot):
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
    # threads, not processes: never fork once a QApplication exists (the fake engine is patched in here)
    with distributed.LocalCluster(
        n_workers=1, processes=False, protocol="tcp", dashboard_address=None
    ) as cluster:
        view = window.view_widget("Sweep")
        view.scheduler.setText(cluster.scheduler_address)
        with qtbot.waitSignal(window.tasks.finished, timeout=60000):
            assert window.sweep("qapply.num_apply_agents=1..4")
        assert [p.value for p in view.points] == [1, 2, 3, 4]
        _, y = view.rate_chart.curves["ROWS_APPLIED"].getData()
        assert list(y) == [min(800.0 * a, 3000.0) for a in range(1, 5)]
        assert len(window.history.list_runs()) == 4
        assert cluster.scheduler.transition_counter > 0  # the points went through the cluster
