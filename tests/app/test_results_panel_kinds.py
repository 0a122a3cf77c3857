"""The results panel shows Q Replication's CAPTURE/Q/APPLY breakdown, else the time spent in each stage."""

from app.panels.results import ResultsPanel
from engine.perf.result import Prediction, StageResult


def test_engines_without_a_breakdown_show_time_per_stage(qtbot, fake_engine):
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    stages = (
        StageResult("cpu", 530.0, 0.32, "txn/s", 8.07),
        StageResult("mirror_link", float("inf"), 0.0, "txn/s", 0.16),
        StageResult("idle", 100.0, 0.0, "txn/s", 0.0),
    )
    mirror = Prediction(
        "db2mirror", {"tps": 168.4, "response_time_ms": 23.8}, {"tps": "txn/s"}, stages, "cpu", (), "m-1"
    )
    panel.show_prediction(mirror)
    assert panel.latency_stack.currentWidget() is panel.stage_time_chart
    names = [panel.table.item(r, 0).text() for r in range(panel.table.rowCount())]
    assert "Transactions" in names and "TRANS_PUBLISHED" not in names  # a Db2 Mirror pair's, not Q Capture's
    assert panel.stage_time_chart.categories == ["CPU", "Db2 Mirror RoCE link"]  # stages that take time
    assert list(panel.stage_time_chart.series["ms"]) == [8.07, 0.16]
    assert "Time per txn by stage" in panel.stage_time_chart.plotItem.titleLabel.text
    qrep = fake_engine({"qapply": {"num_apply_agents": 4}, "qcapture": {"trans_batch_sz": 1}})
    panel.show_prediction(qrep)
    assert panel.latency_stack.currentWidget() is panel.latency_chart
    assert panel.latency_chart.labels == ["END2END"]
    panel.show_message("incomplete")
    assert panel.latency_stack.currentWidget() is panel.latency_chart and panel.latency_chart.labels == []


def test_engines_without_stages_show_their_main_metrics(qtbot):
    from app.panels.results import main_unit_metrics

    panel = ResultsPanel()
    qtbot.addWidget(panel)
    metrics = {
        "v8_total_mb": 361.6,
        "v7_total_mb": 908.0,
        "relief_mb": 546.4,
        "edm_mb": 118.0,
        "cpu_pct": 40.0,
        "catalog_migration_min": 12.0,
    }
    units = {k: "MB" for k in metrics if k.endswith("_mb")} | {"cpu_pct": "%", "catalog_migration_min": "min"}
    assert main_unit_metrics(metrics, units) == ("MB", ["v7_total_mb", "relief_mb", "v8_total_mb", "edm_mb"])
    # an engine without stages and without a layout of its own (DB2 V8 and the mover have theirs)
    panel.show_prediction(Prediction("some-sizing-engine", metrics, units, (), None, (), "v8-1"))
    assert panel.latency_stack.currentWidget() is panel.stage_time_chart
    # the catalogue label of v7_total_mb
    assert panel.stage_time_chart.categories[0] == "V7 DBM1 storage below the bar"
    assert main_unit_metrics({"a": 1.0, "b": 2.0}, {"a": "MB", "b": "MB"}) == ("", [])


def test_overloaded_qrep_keeps_the_breakdown_chart_and_says_why_it_is_empty(qtbot, fake_engine):
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    p = fake_engine({"qapply": {"num_apply_agents": 1}, "qcapture": {"trans_batch_sz": 1}})
    metrics = {k: v for k, v in p.metrics.items() if not k.endswith("latency_ms")}
    panel.show_prediction(Prediction("qrep", metrics, p.units, p.stages, p.bottleneck, (), "f"))
    assert panel.latency_stack.currentWidget() is panel.latency_chart
    assert "above what the pipeline sustains" in panel.latency_chart.plotItem.titleLabel.text
