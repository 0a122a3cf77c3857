"""The window and the PDF draw a line chart from the same description (engine.report.line_charts)."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from engine.report.charts import Axis
from engine.report.line_charts import Band, LineChartSpec, LineSeries, RefLine, XAxis

CHART = LineChartSpec(
    "Throughput: ROWS_APPLIED (rows/s)",
    XAxis.of([1, 2, 3], "NUM_APPLY_AGENTS", "agents"),
    Axis("throughput", "rows/s"),
    (
        LineSeries("TRANS_BATCH_SZ=1", ((1, 800.0), (2, 1600.0), (3, None))),
        LineSeries("TRANS_BATCH_SZ=2", ((1, 800.0), (2, 1600.0), (3, 2400.0))),
    ),
    (RefLine(2400.0, "target 2,400 rows/s", "target"), RefLine(3, "pick: 3", "good", vertical=True)),
    ((3, 2400.0),),
    (Band(1.5, 2.5, "MQ channel stop"),),
)


def test_the_window_draws_every_curve_line_ring_and_band_of_the_description(qtbot):
    from app.charts import SpecLineChart

    chart = SpecLineChart()
    qtbot.addWidget(chart)
    chart.show_chart(CHART)
    assert list(chart.curves) == ["TRANS_BATCH_SZ=1", "TRANS_BATCH_SZ=2"] and chart.legend.isVisible()
    x, y = chart.curves["TRANS_BATCH_SZ=1"].getData()
    assert list(x) == [1.0, 2.0, 3.0] and list(y[:2]) == [800.0, 1600.0]  # None: a gap
    assert "ROWS_APPLIED" in chart.plotItem.titleLabel.text
    assert chart.getAxis("bottom").labelText == "NUM_APPLY_AGENTS (agents)"
    assert [line.value() for line in chart.lines] == [2400.0]
    assert chart.vline.isVisible() and chart.vline.value() == 3.0
    assert [tuple(p) for p in zip(*chart.rings.getData())] == [(3.0, 2400.0)]
    assert chart.bands[0].isVisible() and chart.bands[0].getRegion() == (1.5, 2.5)
    chart.show_chart(None)  # emptied: nothing stale
    assert not chart.curves and not chart.vline.isVisible() and not chart.bands[0].isVisible()


def test_the_pdf_draws_every_curve_and_key_of_the_description(qapp, monkeypatch):
    from app.report import line_charts
    from app.report.layout import Context

    drawn, keyed = [], []
    draw_curve, legend_rows = line_charts._draw_curve, line_charts.legend_rows
    monkeypatch.setattr(
        line_charts,
        "_draw_curve",
        lambda p, plot, ctx, pts, colour: drawn.append(pts) or draw_curve(p, plot, ctx, pts, colour),
    )
    monkeypatch.setattr(
        line_charts,
        "legend_rows",
        lambda p, r, items, ctx, title="": keyed.extend(items) or legend_rows(p, r, items, ctx, title),
    )
    image = QImage(1200, 600, QImage.Format_RGB32)
    image.fill(0xFFFFFF)
    painter = QPainter(image)
    try:
        line_charts.draw_line_chart(painter, QRectF(0, 0, 1200, 600), Context(image, 150.0), CHART)
    finally:
        painter.end()
    assert drawn == [s.points for s in CHART.series]
    assert [name for name, _ in keyed] == ["TRANS_BATCH_SZ=1", "TRANS_BATCH_SZ=2"]
    assert line_charts.panel_mm(CHART) == line_charts.PANEL_MM
