"""Journey 6 in the window: each system's figures for bidirectional and peer-to-peer, side by side in Compare.

Uses the calibrated engine (the figures per system come from its solution) on the samples.
"""

from pathlib import Path

import pytest

from app.panels.results import ResultsPanel
from engine import projectfile
from engine.perf.qrep.systems import FIGURES
from engine.predict import predict_project

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def _cell(table, row, col):
    item = table.item(row, col)
    return item.text() if item is not None else ""


def _row(table, label):
    return next(r for r in range(table.rowCount()) if _cell(table, r, 0) == label)


def test_results_panel_fills_the_systems_table_for_peer_to_peer_and_drops_it_for_unidirectional(qtbot):
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    p2p = projectfile.load(SAMPLES / "redpaper-peer-to-peer.json")
    pred = predict_project(p2p)
    panel.show_prediction(pred, p2p)
    assert (
        panel.tables.indexOf(panel.systems_page) == 1 and panel.tables.currentWidget() is panel.systems_page
    )
    t = panel.systems_table
    headers = [t.horizontalHeaderItem(c).text() for c in range(t.columnCount())]
    assert headers == ["Figure", "Db2 A", "Db2 B", "Unit"]
    assert t.rowCount() == len(FIGURES)
    trig = _row(t, "peer-to-peer triggers per changed row")
    value = pred.metrics["system1_trigger_cpu_us_per_row"]
    assert (
        value > 0
        and _cell(t, trig, 1) == _cell(t, trig, 2) == f"{value:.1f}"
        and _cell(t, trig, 3) == "us/row"
    )
    assert "set up alike" in panel.systems_note.text()
    # the metrics table and the CPU chart do not repeat the system figures as loose metrics
    names = [_cell(panel.table, r, 0) for r in range(panel.table.rowCount())]
    assert names and not any(n.startswith("system") for n in names)
    assert panel.cpu_chart.categories == ["Db2 A", "Db2 B"]
    assert list(panel.cpu_chart.series["triggers"]) == pytest.approx([value, value])
    assert "applied on each system" in panel.headline.text()

    uni = projectfile.load(SAMPLES / "redpaper-baseline.json")
    panel.show_prediction(predict_project(uni), uni)
    assert panel.tables.indexOf(panel.systems_page) == -1 and panel.tables.count() == 1
    assert panel.systems_table.rowCount() == 0 and panel.systems == ()
    assert "triggers" not in panel.cpu_chart.series and "apply" in panel.cpu_chart.categories

    panel.show_prediction(pred, p2p)
    panel.show_message("incomplete topology")
    assert panel.tables.indexOf(panel.systems_page) == -1


def test_a_second_flow_set_up_differently_is_flagged_in_the_results(qtbot):
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    p2p = projectfile.load(SAMPLES / "redpaper-peer-to-peer.json").with_param(
        "ba-5-qapply", "num_apply_agents", 12
    )
    panel.show_prediction(predict_project(p2p), p2p)
    assert "qapply.num_apply_agents (12 vs 6)" in panel.systems_note.text()
    assert "8a4a00" in panel.systems_note.styleSheet()


def test_compare_bidirectional_with_peer_to_peer_shows_what_the_triggers_cost(window):
    ids = []
    for name in ("redpaper-bidirectional", "redpaper-peer-to-peer"):
        assert window.open_project(str(SAMPLES / f"{name}.json"), ask=False)
        ids.append(window.predict_and_record())
    assert window.results.tables.currentWidget() is window.results.systems_page
    assert window.results.systems_table.horizontalHeaderItem(1).text() == "Db2 A"
    assert window.compare_runs(ids)
    view = window.view_widget("Compare")
    assert view.result_tabs.currentWidget() is view.systems_table
    t = view.systems_table
    headers = [t.horizontalHeaderItem(c).text() for c in range(t.columnCount())]
    assert headers == ["System", "Figure", "Unit", f"#{ids[0]}", f"#{ids[1]}", "\u0394", "\u0394 %"]
    assert t.rowCount() == 2 * len(FIGURES)
    trig = next(
        r
        for r in range(t.rowCount())
        if _cell(t, r, 0) == "Db2 B" and _cell(t, r, 1) == "peer-to-peer triggers per changed row"
    )
    cost = view.comparison.comparison.systems[trig].values[1]
    assert _cell(t, trig, 3) == "0" and _cell(t, trig, 5) == f"+{cost:.1f}" and _cell(t, trig, 6) == ""
    cpu = next(
        r
        for r in range(t.rowCount())
        if _cell(t, r, 0) == "Db2 A" and _cell(t, r, 1) == "CPU per row captured or applied"
    )
    # the triggers, and the agents' contention they add by lengthening a transaction (half the rows applied)
    from engine.perf.qrep import solve_settings
    from engine.perf.qrep.coefficients import load
    from engine.perf.qrep.systems import contention_cpu_us_per_row
    from engine.scenario import project_to_scenario

    c_bidir, c_p2p = (
        contention_cpu_us_per_row(
            solve_settings(project_to_scenario(projectfile.load(SAMPLES / f"{n}.json"))), load()
        )
        for n in ("redpaper-bidirectional", "redpaper-peer-to-peer")
    )
    assert _cell(t, cpu, 5) == f"+{cost + 0.5 * (c_p2p - c_bidir):.1f}"
    assert not any(
        _cell(view.metrics_table, r, 0).startswith("system") for r in range(view.metrics_table.rowCount())
    )
    assert "Redpaper baseline, peer-to-peer" in view.title.text()  # runs of two projects are named
    assert not view.systems_chart.isHidden() and view.latency_chart.isHidden()
    assert view.systems_chart.categories == [
        f"#{ids[0]} Db2 A",
        f"#{ids[0]} Db2 B",
        f"#{ids[1]} Db2 A",
        f"#{ids[1]} Db2 B",
    ]
    assert list(view.systems_chart.series["triggers"]) == pytest.approx([0, 0, cost, cost])


def test_compare_of_unidirectional_runs_has_no_systems(window):
    assert window.open_project(str(SAMPLES / "redpaper-baseline.json"), ask=False)
    qcap = window.document.project.nodes_of("qcapture")[0].id
    first = window.predict_and_record()
    window.document.set_param(qcap, "trans_batch_sz", 5)
    second = window.predict_and_record()
    assert window.compare_runs([first, second])
    view = window.view_widget("Compare")
    assert view.result_tabs.count() == 1 and view.systems_table.rowCount() == 0
    assert view.systems_chart.isHidden() and not view.latency_chart.isHidden()
    assert "different engines" not in view.title.text()


def test_compare_of_runs_from_two_engines_says_their_metrics_may_differ(window):
    """A Q Replication run beside a Db2 Mirror run: the title says a shared metric (tps) may not
    measure the same thing."""
    ids = []
    for name in ("redpaper-baseline", "mirror-active-active"):
        assert window.open_project(str(SAMPLES / f"{name}.json"), ask=False)
        ids.append(window.predict_and_record())
    assert window.compare_runs(ids)
    view = window.view_widget("Compare")
    assert "different engines (qrep, db2mirror)" in view.title.text()
