"""What a user sees at 1280x800: a chart's plot stays within its widget, and no spare dock tab bar
shows through the central area."""

from PySide6.QtWidgets import QTabBar

from app.charts import BarChart

CATEGORIES = ["#22 Db2 A", "#22 Db2 B", "#23 Db2 A", "#23 Db2 B"]
SERIES = {
    "all work": [60.0, 60.0, 93.0, 93.0],
    "replication": [45.0, 45.0, 77.0, 77.0],
    "triggers": [0.0, 0.0, 32.0, 32.0],
    "recursion avoidance": [15.0, 15.0, 15.0, 15.0],
}


def test_a_long_title_wraps_instead_of_widening_the_plot_past_its_widget(qtbot):
    chart = BarChart("CPU per row", "us/row")
    qtbot.addWidget(chart)
    chart.resize(365, 390)
    chart.show()
    chart.set_data(
        CATEGORIES, SERIES, key_title="CPU per row captured or applied, by run and system (us/row)"
    )
    qtbot.wait(50)
    plot = chart.plotItem
    assert plot.geometry().width() <= chart.width() + 0.5  # every category's bars are in view
    title = plot.titleLabel
    assert title.item.boundingRect().height() > 2.5 * 15  # wrapped onto several lines
    assert title.geometry().height() >= title.item.boundingRect().height() - 0.5  # none cut off


def test_a_short_title_keeps_one_line(qtbot):
    chart = BarChart("CPU (us/row)", "us/row")
    qtbot.addWidget(chart)
    chart.resize(365, 390)
    chart.show()
    chart.set_data(["apply", "capture"], {"us/row": [44.0, 15.0]})
    qtbot.wait(50)
    assert chart.plotItem.titleLabel.geometry().height() == 30.0


def _over_central(window) -> list:
    central = window.centralWidget().geometry()
    return [
        [bar.tabText(i) for i in range(bar.count())]
        for bar in window.findChildren(QTabBar)
        if bar.parent() is window and bar.isVisible() and bar.geometry().intersects(central)
    ]


def test_a_spare_dock_tab_bar_over_the_central_area_is_hidden(window, qtbot):
    """Qt 6 leaves a duplicate Inspector / Advisor tab bar where the second pair of docks was
    tabified; the window hides any dock tab bar lying over its central area once shown."""
    window.show()
    qtbot.wait(50)
    spare = QTabBar(window)
    spare.addTab("Inspector")
    spare.addTab("Advisor")
    spare.setGeometry(window.centralWidget().geometry().center().x(), 200, 180, 26)
    spare.show()
    assert _over_central(window) == [["Inspector", "Advisor"]]
    window._hide_stray_dock_tab_bars()
    assert _over_central(window) == []
    docks = [bar for bar in window.findChildren(QTabBar) if bar.parent() is window and bar.isVisible()]
    assert len(docks) == 2  # the palette / runs and inspector / advisor tabs stay


def test_a_value_too_wide_for_its_segment_is_written_beside_it_in_view(qtbot):
    from app.charts import LatencyBreakdownChart

    chart = LatencyBreakdownChart()
    qtbot.addWidget(chart)
    chart.resize(290, 330)
    chart.show()
    parts = {"capture_latency_ms": 580.7, "qlatency_ms": 39.6, "apply_latency_ms": 147.0}
    chart.set_data(["END2END"], [parts])
    qtbot.wait(50)
    texts = {t.toPlainText(): t for t in chart.texts}
    assert texts["580.7 ms"].anchor.x() == 0.5  # wide enough: in its segment
    assert texts["147.0 ms"].pos().x() == 580.7 + 39.6 + 147.0  # after the bar
    assert texts["39.6 ms"].pos().y() < -0.3  # under its segment, clear of the APPLY value
    x_max = chart.getViewBox().viewRange()[0][1]
    label_ms = texts["147.0 ms"].boundingRect().width() * x_max / chart.getViewBox().width()
    assert texts["147.0 ms"].pos().x() + label_ms <= x_max  # the whole value is in view
    chart.resize(900, 330)
    qtbot.wait(50)
    assert {t.toPlainText(): t.anchor.x() for t in chart.texts}["147.0 ms"] == 0.5  # wide: back inside


def _line_chart(qtbot, title: str, series: dict, lines: list):
    """A 360 x 260 line chart, shown, with ``series`` and reference ``lines``."""
    from app.charts import LineChart

    chart = LineChart(title, "x", "y")
    qtbot.addWidget(chart)
    chart.resize(360, 260)
    chart.show()
    chart.set_series(series)
    chart.set_lines(lines)
    qtbot.wait(50)
    return chart


def test_a_reference_line_near_the_top_keeps_its_label_in_view(qtbot):
    chart = _line_chart(
        qtbot,
        "CPU busy (%)",
        {"Apply LPAR busy": ([1, 2, 3], [40.0, 80.0, 88.0])},
        [(90.0, "90% CPU", "#c0202a")],
    )
    assert chart.getViewBox().viewRange()[1][1] >= 90.0 * 1.12  # room above the line for its label
    chart.set_lines([])
    qtbot.wait(50)
    assert chart.getViewBox().viewRange()[1][1] < 95.0  # without a line the range hugs the data


def test_a_long_reference_line_label_wraps_inside_the_plot(qtbot):
    """The simulation's queue-depth chart at 1280x800: 'buffer pool holds 120,000 messages; beyond
    it the page set' was cut at the plot's right edge ('...; beyond')."""
    text = "buffer pool holds 120,000 messages; beyond it the page set"
    chart = _line_chart(
        qtbot,
        "Queue depth",
        {"transmit queue": ([0, 20, 50], [0.0, 2.4e6, 6e5])},
        [(120_000.0, text, "#c0202a")],
    )
    label = chart.lines[0].label
    view = chart.getViewBox()
    assert label.boundingRect().width() <= view.width() + 0.5
    assert label.boundingRect().height() > 1.5 * label.textItem.document().defaultFont().pointSizeF()
    chart.resize(900, 260)  # wider: the label follows the plot's width
    qtbot.wait(50)
    assert label.textItem.textWidth() >= 0.9 * view.width()


def test_long_legend_entries_take_fewer_columns_instead_of_widening_the_plot(qtbot):
    """The two-knob sweep at 1280x800: three curves named 'Offered rows per second=10000' in two
    columns made the plot wider than its pane, cutting the x axis at 10 of 12 agents."""
    names = [f"Offered rows per second={rate}" for rate in (10000, 20000, 30000)]
    x = list(range(1, 13))
    chart = _line_chart(qtbot, "Throughput: ROWS_APPLIED", {n: (x, [float(v) for v in x]) for n in names}, [])
    chart.resize(390, 300)
    qtbot.wait(50)
    assert chart.legend.columnCount == 1
    assert chart.plotItem.geometry().width() <= chart.width() + 0.5
    short = {f"#{i}": (x, [float(v) for v in x]) for i in range(3)}
    chart.set_series(short)  # short names: side by side again
    qtbot.wait(50)
    assert chart.legend.columnCount >= 2


def test_a_deep_queue_reads_in_millions_and_thousands_not_in_exponents(qtbot):
    from app.charts import LineChart

    chart = LineChart("Queue depth", "time (s)", "messages")
    qtbot.addWidget(chart)
    chart.resize(400, 300)
    chart.show()
    chart.set_series({"transmit queue": ([0.0, 600.0, 1200.0], [0.0, 2.4e6, 4.5e5])})
    qtbot.wait(50)
    axis = chart.getAxis("left")
    assert axis.tickStrings([0.0, 1e6, 2.5e6], 1.0, 5e5) == ["0", "1M", "2.5M"]
    assert axis.tickStrings([1e-12, 20000.0, 60000.0], 1.0, 20000.0) == [
        "0",
        "20k",
        "60k",
    ]  # a rounding 0 too
    assert axis.tickStrings([0.0, 500.0, 1000.0], 1.0, 500.0) == ["0", "500", "1000"]
    shown = [text for _, level in axis.tickValues(*axis.range, axis.height()) for text in level]
    assert shown and not any("e+" in s for s in axis.tickStrings(shown, 1.0, 5e5))


def test_latency_labels_under_their_segments_never_overlap(qtbot):
    """Four runs in a narrow Compare column: CAPTURE_LATENCY's and QLATENCY's values do not fit in
    their segments, so both go under the bar, one after the other."""
    from app.charts import LatencyBreakdownChart

    chart = LatencyBreakdownChart()
    qtbot.addWidget(chart)
    chart.resize(220, 250)
    chart.show()
    metrics = [
        {"capture_latency_ms": 580.1, "qlatency_ms": q, "apply_latency_ms": a}
        for q, a in ((42.0, 44.6), (40.8, 48.2), (10.2, 31.9), (467.0, 139.7))
    ]
    chart.set_data(["#24", "#25", "#26", "#27"], metrics)
    qtbot.wait(50)
    boxes = [t.mapRectToScene(t.boundingRect()) for t in chart.texts]
    shown = {t.textItem.toPlainText() for t in chart.texts}
    assert {"44.6 ms", "48.2 ms", "31.9 ms", "139.7 ms"} <= shown  # every bar keeps its end value
    assert len(shown) > 4  # and values under the bars where they fit
    clashes = [
        (chart.texts[i].textItem.toPlainText(), chart.texts[j].textItem.toPlainText())
        for i in range(len(boxes))
        for j in range(i + 1, len(boxes))
        if boxes[i].intersects(boxes[j])
    ]
    assert not clashes, clashes


def test_a_wrapped_reference_line_label_above_the_data_stays_in_view(qtbot):
    """The simulation's queue depth at 150% with a quiet profile: the line is the top of the chart
    and its two-line label was cut at the plot's top edge."""
    text = "buffer pool holds 102,000 messages; beyond it the page set"
    chart = _line_chart(
        qtbot,
        "Queue depth",
        {"transmit queue": ([0, 90, 180], [0.0, 40.0, 10.0])},
        [(102_000.0, text, "#c0202a")],
    )
    label, view = chart.lines[0].label, chart.getViewBox()
    top = view.mapViewToScene(pg_point(0.0, view.viewRange()[1][1])).y()
    assert label.mapRectToScene(label.boundingRect()).top() >= top - 0.5  # the whole label in view


def pg_point(x: float, y: float):
    from PySide6.QtCore import QPointF

    return QPointF(x, y)
