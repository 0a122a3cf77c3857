"""GUI sweeps through engine.studies.sweep.run_sweep: several knobs, resume after Cancel, the pick of the fewest."""

import pytest

from app.panels.sweep import pick_smallest
from app.tasks import SweepPoint

APPLY, BATCH = 800.0, 3000.0  # the fake engine: min(800 * agents, 3000 * trans_batch_sz) rows/s


def run_sweep_in(window, qtbot, axis_text: str):
    """Run ``axis_text`` through the window's Sweep view and wait; returns the SweepOutcome."""
    with qtbot.waitSignal(window.tasks.finished, timeout=30000) as done:
        assert window.sweep(axis_text)
    return done.args[0]


def test_two_knobs_give_one_curve_per_value_of_the_second_and_every_point_is_a_run(
    fake_engine, window, qtbot
):
    view = window.view_widget("Sweep")
    view.set_axis("qapply", "num_apply_agents", "1..6", by=("qcapture", "trans_batch_sz", "1,2"))
    assert view.axis_text() == "qapply.num_apply_agents=1..6 ; qcapture.trans_batch_sz=1,2"
    outcome = run_sweep_in(window, qtbot, view.axis_text())
    assert outcome.axis_names == ("qapply.num_apply_agents", "qcapture.trans_batch_sz")
    assert len(view.points) == 12 and {p.series for p in view.points} == {(1,), (2,)}
    for batch in (1, 2):
        x, y = view.rate_chart.curves[f"TRANS_BATCH_SZ={batch}"].getData()  # IBM names in the legend
        assert list(x) == [1, 2, 3, 4, 5, 6]
        assert list(y) == [min(APPLY * a, BATCH * batch) for a in range(1, 7)]
    assert len(view.rate_chart.curves) == 2  # the headline metric per value, nothing stale
    assert "ROWS_APPLIED" in view.rate_chart.plotItem.titleLabel.text
    assert view.table.item(0, 1).text() == "1" and not view.table.isColumnHidden(1)
    assert view.table.horizontalHeaderItem(1).text() == "TRANS_BATCH_SZ"
    assert view.table.horizontalHeaderItem(0).text() == "NUM_APPLY_AGENTS"
    last = view.table.columnCount() - 1
    bottleneck = view.table.item(0, last)  # its whole text on one line (the table scrolls), and as a tooltip
    assert bottleneck.text() and bottleneck.toolTip() == bottleneck.text() and not view.table.wordWrap()
    assert view.table.horizontalHeader().sectionSize(last) >= view.table.sizeHintForColumn(last)
    runs = window.history.list_runs()
    assert len(runs) == 12 and len({r.sweep_id for r in runs}) == 1
    assert "qapply.num_apply_agents=3 qcapture.trans_batch_sz=2" in {r.label for r in runs}
    # one pick per curve, as the sweep's PDF: 3,000 rows/s need 4 agents, 4,800 of 1..6 need 6
    picks = view.pick_label.text().splitlines()
    assert len(picks) == 2 and view.pick is None
    assert (
        picks[0].startswith("TRANS_BATCH_SZ=1: Fewest NUM_APPLY_AGENTS") and ": 4 (3,000 rows/s" in picks[0]
    )
    assert (
        picks[1].startswith("TRANS_BATCH_SZ=2: Fewest NUM_APPLY_AGENTS") and ": 6 (4,800 rows/s" in picks[1]
    )
    # back to one knob: the old curves leave the charts and their legends
    view.set_axis("qapply", "num_apply_agents", "1..3")
    run_sweep_in(window, qtbot, view.axis_text())
    assert set(view.rate_chart.curves) == {"ROWS_APPLIED", "ROWS_PROCESSED"}
    assert len(view.rate_chart.legend.items) == 2


def test_cancelled_sweep_resumes_without_repeating_points(fake_engine, window, qtbot):
    view = window.view_widget("Sweep")
    cancel_once = [True]

    def cancel(fraction, text):
        if cancel_once:
            cancel_once.clear()
            window.tasks.cancel()

    window.tasks.progress.connect(cancel)  # Cancel as soon as the first batch is reported
    with qtbot.waitSignal(window.tasks.cancelled, timeout=20000):
        window.sweep("qapply.num_apply_agents=1..128")
    kept = len(window.history.list_runs())
    assert 1 <= kept < 128 and len(view.points) == kept  # the window shows every kept point
    outcome = run_sweep_in(window, qtbot, "qapply.num_apply_agents=1..128")
    assert outcome.n_reused == kept
    assert [p.value for p in outcome.points] == list(range(1, 129))
    runs = window.history.list_runs()
    assert len(runs) == 128 and sorted(r.point_index for r in runs) == list(range(128))


def test_pick_names_the_fewest_agents_holding_the_best_throughput(fake_engine, window, qtbot):
    view = window.view_widget("Sweep")
    run_sweep_in(window, qtbot, "qapply.num_apply_agents=1..10")
    # 800 * 4 = 3200 > the channel's 3000 rows/s: four agents are the fewest that hold it; CPU 30 + 4 %
    assert view.pick.value == 4
    assert (
        "Fewest NUM_APPLY_AGENTS" in view.pick_label.text() and ": 4 (3,000 rows/s" in view.pick_label.text()
    )


def test_a_target_rate_is_named_alike_by_the_tab_its_pdf_and_qrtune_report(
    fake_engine, window, qtbot, tmp_path
):
    """Journey 2: the sweep runs at the target typed in the tab; the PDF and the command read the same record."""
    from test_report_pdf import pdf_text

    from qrtune.cli import main

    view = window.view_widget("Sweep")
    assert window.document.project.nodes_of("source_db2")[0].params.get("offered_rows_per_s") is None
    view.target_rate.setValue(2400)
    run_sweep_in(window, qtbot, "qapply.num_apply_agents=1..6")
    # 2,400 rows/s: three agents hold it (800 each), four are needed for the best (3,000)
    said = (
        "Fewest NUM_APPLY_AGENTS reaching 99% of the target rate (2,400 rows/s) with every CPU under 90%: 3"
    )
    assert said in view.pick_label.text() and view.pick.value == 3
    assert view.section.target_rate == 2400.0 and [line.value() for line in view.rate_chart.lines] == [2400.0]
    # the project is not changed; the swept one (stored with the sweep) offers the target
    assert window.document.project.nodes_of("source_db2")[0].params.get("offered_rows_per_s") is None
    window_pdf, cli_pdf = tmp_path / "tab.pdf", tmp_path / "cli.pdf"
    with qtbot.waitSignal(window.tasks.finished, timeout=60000):
        assert window.export_sweep_report(path=str(window_pdf))
    assert (
        main(
            [
                "report",
                "--sweep",
                str(view.sweep_id),
                "--db",
                str(window.history.db_path),
                "--out",
                str(cli_pdf),
                "--no-validation",
            ]
        )
        == 0
    )
    for pdf in (window_pdf, cli_pdf):
        text = " ".join(pdf_text(pdf).split())
        assert "Target rate 2,400 rows/s" in text and said in text, pdf
    # a new target applies to the next sweep, never silently to the one shown
    view.target_rate.setValue(3000)
    assert said in view.pick_label.text() and "press Run sweep" in view.status.text()


def test_pick_skips_values_whose_cpu_is_over_the_limit():
    def point(value, rate, cpu):
        return SweepPoint(
            value - 1, value, f"x={value}", {"rows_per_s": rate, "apply_cpu_pct": cpu}, {}, None
        )

    points = [
        point(1, 500, 40),
        point(2, 990, 95),
        point(3, 1000, 92),
        point(4, 1000, 80),
        point(5, 1000, 70),
    ]
    assert pick_smallest(points, "rows_per_s", ["apply_cpu_pct"]).value == 4
    assert pick_smallest(points, "rows_per_s", []).value == 2  # 990 is within 1% of 1000
    assert pick_smallest([point(1, 100, 99)], "rows_per_s", ["apply_cpu_pct"]) is None


def test_a_bad_second_axis_is_reported_without_starting(fake_engine, window):
    view = window.view_widget("Sweep")
    assert not window.sweep("qapply.num_apply_agents=1..4 ; qcapture.trans_batch_sz=0,2")
    assert "trans_batch_sz" in view.status.text() and "not allowed" in view.status.text()
    assert not window.sweep("qapply.num_apply_agents=1..4 ; qapply.num_apply_agents=5")
    assert "already swept" in view.status.text()
    assert not window.tasks.busy() and window.history.list_runs() == []


def test_big_sweeps_send_points_a_few_times_a_second_but_always_the_last(monkeypatch):
    """The window redraws every batch it is sent; a flood of batches would freeze it."""
    from app import tasks
    from engine.store import MetricRow, RunBundle, utc_now
    from engine.store.point_columns import PointColumns
    from engine.store.records import RunRecord
    from engine.studies.sweep import Axis

    class FakeStore:
        next_id = 1

        def record_point_columns(self, points):
            ids = list(range(self.next_id, self.next_id + points.n))
            self.next_id += points.n
            return ids

    clock = [0.0]
    monkeypatch.setattr(tasks.time, "monotonic", lambda: clock[0])
    axis = Axis("qapply", "num_apply_agents", ("n1",), tuple(range(1, 1001)))
    sent, progress = [], []
    cancel = [False]
    rs = tasks._ReportingStore(
        FakeStore(), [axis], 1000, lambda f, t: progress.append(f), lambda: cancel[0], sent.append
    )

    def batch(start):
        return PointColumns.from_bundles(
            [
                RunBundle(
                    RunRecord(
                        id=0,
                        project_name="p",
                        project_hash="h",
                        settings_json="{}",
                        engine_version="v",
                        coefficients_version="",
                        seed=None,
                        kind="sweep",
                        started=utc_now(),
                        status="ok",
                        scenario_kind="qrep",
                        sweep_id=1,
                        point_index=i,
                        label="",
                    ),
                    [MetricRow(0, "x", 1.0, "")],
                )
                for i in range(start, start + 100)
            ]
        )

    for k in range(9):  # nine batches within half a second: one redraw, nine progress reports
        clock[0] = 0.05 * k
        rs.record_point_columns(batch(100 * k))
    assert len(sent) == 1 and len(progress) == 9
    clock[0] = 2.0
    rs.record_point_columns(batch(900))  # the last batch always goes out
    assert len(sent) == 2 and len(sent[-1]) == 1000 and progress[-1] == 1.0

    cancel[0] = True  # Cancel: the next write raises; run_sweep writes the batch again and re-raises
    rs2 = tasks._ReportingStore(FakeStore(), [axis], 1000, lambda f, t: None, lambda: cancel[0], sent.append)
    from app.worker import Cancelled

    with pytest.raises(Cancelled):
        rs2.record_point_columns(batch(0))
    assert rs2.points == {}
    rs2.record_point_columns(batch(0))
    assert len(rs2.points) == 100 and len(sent[-1]) == 100  # what was kept is shown at once


def test_the_table_shows_each_column_title_whole(fake_engine, window, qtbot):
    view = window.view_widget("Sweep")
    view.set_axis("qapply", "num_apply_agents", "1..3", by=("qcapture", "trans_batch_sz", "1,2"))
    run_sweep_in(window, qtbot, view.axis_text())
    header = view.table.horizontalHeader()
    metrics = header.fontMetrics()
    for c in range(view.table.columnCount()):  # NUM_APPLY_AGENTS was cut to APPLY_AG in a narrow pane
        title = view.table.horizontalHeaderItem(c).text()
        widest = max(metrics.horizontalAdvance(line) for line in title.split("\n"))
        assert header.sectionSize(c) >= widest, title  # END2END_LATENCY ms was cut
    assert (
        view.rate_chart.getAxis("bottom").labelText == "NUM_APPLY_AGENTS (agents)"
    )  # not qapply.num_apply_agents
