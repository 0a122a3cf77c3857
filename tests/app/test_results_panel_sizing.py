"""Journey 9 in the results panel: the DB2 V8 migration and the MQ mover get their own headline and charts."""

from pathlib import Path

import pytest

from app.panels.results import ResultsPanel
from engine import projectfile
from engine.perf import db2v8
from engine.perf.mq_bufferpool import buffers_mb
from engine.predict import predict_project

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def _v8():
    project = projectfile.load(SAMPLES / "db2-v8-migration.json")
    return project, project.nodes_of("db2_v8_migration")[0].id


def _mover():
    project = projectfile.load(SAMPLES / "mq-buffer-pool-mover.json")
    return project, project.nodes_of("queue_manager")[0].id


@pytest.fixture
def panel(qtbot):
    """A results panel, closed with the test."""
    widget = ResultsPanel()
    qtbot.addWidget(widget)
    return widget


def _pipeline_hidden(panel) -> bool:
    return panel.latency_stack.isHidden() and panel.stage_chart.isHidden() and panel.cpu_chart.isHidden()


def test_v8_headline_answers_the_migration_question(panel):
    project, _ = _v8()
    p = predict_project(project)
    panel.show_prediction(p, project)
    text = panel.headline.text()
    # the seed's Customer 1: 908 MB in V7, about 362 MB in V8, well under the 2 GB bar
    assert "V7 <b>908</b> MB" in text and "V8 <b>362</b> MB" in text
    assert "relief <b>546</b> MB (60%)" in text
    assert (
        "fits" in text
        and "2 GB bar" in text
        and f"<b>{db2v8.BAR_MB - p.metrics['v8_estimated_total_mb']:,.0f}</b>" in text
    )
    assert "(online)" in text and "\u22125% .. +15%" in text  # the online CPU band
    assert "about <b>56</b> min" in text and "10 GB of catalog" in text


def test_v8_shows_storage_charts_in_mb_and_hides_the_pipeline_charts(panel):
    project, _ = _v8()
    p = predict_project(project)
    panel.show_prediction(p, project)
    assert _pipeline_hidden(panel)
    assert (
        not panel.storage_chart.isHidden()
        and not panel.sizing_chart.isHidden()
        and panel.task_chart.isHidden()
    )
    assert panel.storage_chart.getAxis("bottom").labelText == "MB"
    assert panel.storage_chart.getAxis("bottom").labelString().count("(") == 0  # no "(x0.001)" scaling
    # every part with storage, by name, largest first; V7 as entered, V8 as the engine estimates
    cats = panel.storage_chart.categories
    assert cats[0] == "Compression dictionary" and "Virtual pool" not in cats  # 0 MB in both
    v7 = dict(zip(cats, panel.storage_chart.series["V7"]))
    v8 = dict(zip(cats, panel.storage_chart.series["V8 (none: moved above)"]))
    assert v7["Compression dictionary"] == 340 and v8["Compression dictionary"] == 0
    assert v8["Stack storage"] == pytest.approx(p.metrics["v8_stack_storage_mb"]) == pytest.approx(2 * 49)
    assert v7["EDM pool"] == v8["EDM pool"] == 118
    # the totals against the 2 GB bar
    assert panel.sizing_chart.unit == "MB" and panel.sizing_chart.line_labels == ["2 GB bar"]
    assert panel.sizing_chart.labels == ["V7 measured", "V8 estimated"]
    assert list(panel.sizing_chart.ends) == pytest.approx([908.0, p.metrics["v8_estimated_total_mb"]])
    assert "1,686 MB headroom" in panel.sizing_chart.notes[1]


def test_v8_over_the_extended_region_says_so(panel):
    project, node = _v8()
    project = project.with_param(node, "extended_region_mb", 300.0).with_param(
        node, "v7_db2_cpu_ms_per_txn", 2.0
    )
    p = predict_project(project)
    panel.show_prediction(p, project)
    text = panel.headline.text()
    over = p.metrics["v8_estimated_total_mb"] - 300.0
    assert (
        "does not fit" in text and "300 MB extended region" in text and f"<b>{over:.1f}</b> MB over" in text
    )
    assert "2 ms \u2192 <b>1.90 .. 2.30</b> ms per transaction" in text  # online: -5% .. +15% of 2 ms
    assert panel.sizing_chart.line_labels == ["2 GB bar", "extended region"]


def test_v8_without_its_project_shows_the_v8_parts(panel):
    project, _ = _v8()
    panel.show_prediction(predict_project(project))
    assert list(panel.storage_chart.series) == ["V8 estimated"]
    assert panel.storage_chart.categories[0] == "EDM pool"
    assert "V8 <b>362</b> MB" in panel.headline.text()


def test_mover_headline_gives_rate_bottleneck_and_buffer_pool_size(panel):
    project, _ = _mover()
    p = predict_project(project)
    panel.show_prediction(p, project)
    text = panel.headline.text()
    need = p.metrics["buffers_to_hold_backlog"]
    assert f"<b>{p.metrics['transfer_mb_per_s']:.2f}</b> MiB/s" in text and "MQ page set" in text
    assert f"{p.metrics['pageset_get_fraction'] * 100:.0f}% of gets from the page set" in text
    assert f"BUFFPOOL <b>{need:,.0f}</b> buffers ({buffers_mb(need):,.0f} MB), now 200,000" in text
    assert "per connection <b>14</b> KB (+2.43 KB CSA)" in text and "per channel <b>107</b> KB" in text


def test_mover_charts_fit_the_mover(panel, fake_engine):
    project, _ = _mover()
    p = predict_project(project)
    panel.show_prediction(p, project)
    assert panel.stage_chart.isHidden() and panel.cpu_chart.isHidden() and panel.storage_chart.isHidden()
    assert not panel.sizing_chart.isHidden() and not panel.task_chart.isHidden()
    # time per message in us, not "ms (x0.001)"
    assert panel.latency_stack.currentWidget() is panel.stage_time_chart
    assert panel.stage_time_chart.getAxis("bottom").labelText == "us"
    assert list(panel.stage_time_chart.series["us"]) == pytest.approx([s.latency_ms * 1000 for s in p.stages])
    assert panel.sizing_chart.unit == "4 KB buffers"
    assert list(panel.sizing_chart.ends) == pytest.approx(
        [200_000, p.metrics["buffers_to_hold_backlog"], p.metrics["buffers_to_hold_all_msgs"]]
    )
    assert panel.task_chart.categories == ["putter", "DWP", "adaptor", "dispatcher"]
    assert list(panel.task_chart.series["elapsed"])[2] == pytest.approx(
        p.metrics["adaptor_elapsed_us_per_msg"]
    )
    # back to a Q Replication project: its charts as before, the sizing ones gone
    panel.show_prediction(fake_engine({"qapply": {"num_apply_agents": 4}, "qcapture": {"trans_batch_sz": 1}}))
    assert not panel.stage_chart.isHidden() and not panel.cpu_chart.isHidden()
    assert panel.sizing_chart.isHidden() and panel.task_chart.isHidden() and panel.storage_chart.isHidden()
    assert panel.latency_stack.currentWidget() is panel.latency_chart
    assert panel.stage_time_chart.getAxis("bottom").labelText == "ms"


def test_mover_with_a_pool_big_enough_says_it_holds_the_backlog(panel):
    project, qm = _mover()
    need = int(predict_project(project).metrics["buffers_to_hold_backlog"])
    p = predict_project(project.with_param(qm, "buffpool_pages", need))
    panel.show_prediction(p, project)
    assert f"BUFFPOOL {need:,} buffers <b style='color:#2a7a3a'>holds</b>" in panel.headline.text()
    assert "mq_pageset" not in panel.headline.text()
