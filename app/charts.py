"""pyqtgraph charts of the workbench; each builds its items once and then only sets data.

* :class:`SpecBarChart` - a chart the PDF report draws too (:mod:`engine.report.charts`); its
  :class:`LatencyBreakdownChart` (stacked CAPTURE_LATENCY / QLATENCY / APPLY_LATENCY, one bar per
  run or flow) and :class:`StageChart` (utilisation of every stage, the bottleneck in red).
* :class:`BarChart` - named values (CPU per row on each side, metric deltas).
* :class:`HBarChart` - named values as horizontal bars (long names stay readable).
* :class:`SpanChart` - one bar per row from a start to an end, its own colour and a text at its
  end, with labelled reference lines (a limit, a size now).
* :class:`LineChart` - series against time or a swept knob, several curves overlaid; its
  :class:`SpecLineChart` draws a line chart the PDF report draws too
  (:mod:`engine.report.line_charts`: the sweep curves, the simulation's time series).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QTextOption

from app import style
from engine.report.charts import BarChartSpec, latency_breakdown, stage_utilisation
from engine.report.line_charts import LineChartSpec

pg.setConfigOptions(antialias=True, background="w", foreground=style.CHART_FOREGROUND)


class WrappingTitle(pg.LabelItem):
    """A plot title that wraps, centred, to the width its layout gives it.

    pyqtgraph's title asks for its one-line width as a minimum; in a narrow column (1280x800,
    150%) the plot then outgrows its widget and its right part is cut off. This one asks only
    for the height of its wrapped lines and sets its layout row to that height.
    """

    #: pyqtgraph's title row: 30 px, one line.
    min_row_px = 30.0

    def __init__(self, plot: pg.PlotItem):
        self.plot = plot  # read by updateMin, which pyqtgraph's constructor already calls
        super().__init__("", size="11pt", parent=plot)
        self.item.document().setDefaultTextOption(QTextOption(Qt.AlignmentFlag.AlignHCenter))

    def resizeEvent(self, ev) -> None:  # noqa: N802 - Qt's name
        if self.width() > 0:
            self.item.setTextWidth(self.width())
        super().resizeEvent(ev)

    def updateMin(self) -> None:  # noqa: N802 - pyqtgraph's name
        height_px = self.itemRect().height()
        natural_px = self.item.document().idealWidth()
        self.setMinimumWidth(0)
        self.setMinimumHeight(height_px)
        self._sizeHint = {
            Qt.SizeHint.MinimumSize: (0, height_px),
            Qt.SizeHint.PreferredSize: (natural_px, height_px),
            Qt.SizeHint.MaximumSize: (-1, -1),
            Qt.SizeHint.MinimumDescent: (0, 0),
        }
        if self.isVisible():
            row_px = max(height_px, self.min_row_px)
            self.setMaximumHeight(row_px)
            self.plot.layout.setRowFixedHeight(0, row_px)
        self.updateGeometry()


class Chart(pg.PlotWidget):
    """A plot with a :class:`WrappingTitle`: a long title or colour key never widens the plot."""

    def __init__(self, parent=None, **kwargs):
        super().__init__(parent, **kwargs)
        plot = self.plotItem
        old = plot.titleLabel
        plot.layout.removeItem(old)
        old.setParentItem(None)
        if old.scene() is not None:
            old.scene().removeItem(old)
        plot.titleLabel = WrappingTitle(plot)
        plot.layout.addItem(plot.titleLabel, 0, 1)
        plot.setTitle(None)


def _frame(
    chart: pg.PlotWidget,
    title: str,
    min_height: int = 110,
    grid_x: bool = False,
    grid_y: bool = False,
    grid_alpha: float = 0.25,
) -> None:
    """The look every chart shares: its title, no context menu, a minimum height (px), optional grid lines."""
    chart.setTitle(title, size=style.CHART_TITLE_SIZE)
    chart.setMenuEnabled(False)
    chart.setMinimumHeight(min_height)
    if grid_x or grid_y:
        chart.showGrid(x=grid_x, y=grid_y, alpha=grid_alpha)


def _legend(chart: pg.PlotWidget):
    """A legend in the top right corner on a translucent white box."""
    return chart.addLegend(
        offset=(-5, 5),
        labelTextSize=style.CHART_LEGEND_SIZE,
        brush=pg.mkBrush(255, 255, 255, 215),
        pen=pg.mkPen(style.CHART_RULE),
    )


class SpecBarChart(Chart):
    """Draws a :class:`engine.report.charts.BarChartSpec` (the charts the PDF draws too): horizontal bars,
    categories top to bottom, stacked or side by side, the colour key on its own title line.

    A stacked bar writes each part's value in its segment; one too narrow for it writes it after
    the bar (the last part) or under its segment (the others). Side-by-side bars write their value
    after the bar. Items are built once and then only given data.
    """

    #: Room (px) a value label leaves inside its segment.
    label_padding_px = 6.0

    def __init__(self, parent=None):
        super().__init__(parent)
        _frame(self, "", grid_x=True)
        self.chart: BarChartSpec | None = None
        self.bars: list[pg.BarGraphItem] = []
        self.texts: list[pg.TextItem] = []
        self.lines: list[pg.InfiniteLine] = []
        self.labels: list[str] = []
        self.values = np.zeros((0, 0))
        # the view narrows when the category labels widen the axis: what fits is measured again
        self.getViewBox().sigResized.connect(self._layout)

    def show_chart(self, chart: BarChartSpec, title: str | None = None) -> None:
        """Draw ``chart``; ``title`` replaces its title (a view's own wording)."""
        self.chart = chart
        self.labels = list(chart.categories)
        n = len(chart.categories)
        self.values = np.array(
            [[chart.value(i, j) for j in range(len(chart.series))] for i in range(n)], dtype=float
        ).reshape(n, len(chart.series))
        unit = f" ({chart.axis.unit})" if chart.axis.unit else ""
        self.set_title(f"{chart.title}{unit}" if title is None else title, key=bool(n))
        while len(self.bars) < len(chart.series):
            bar = pg.BarGraphItem(x0=[0], y=[0], height=0.6, width=[0], pen=pg.mkPen("w"))
            self.addItem(bar)
            self.bars.append(bar)
        for j, bar in enumerate(self.bars):
            bar.setVisible(j < len(chart.series))
            if j < len(chart.series):
                bar.setOpts(**self._bar_opts(j))
        self._show_lines()
        self.getAxis("left").setTicks([[(self._row_y(i), c) for i, c in enumerate(chart.categories)]])
        self._layout()

    def _row_y(self, i: int) -> float:
        """The y of category ``i``: the first at the top."""
        return float(len(self.labels) - 1 - i)

    def _bar_opts(self, j: int) -> dict:
        """Where series ``j``'s bars go and their colours (the bottleneck red: filled, or outlined
        when there are several series)."""
        chart, n = self.chart, len(self.labels)
        y = np.array([self._row_y(i) for i in range(n)])
        colour = style.role_colour(chart.series[j].role)
        red = [(i, j) in chart.highlighted for i in range(n)]
        multi = len(chart.series) > 1
        if chart.stacked or not n:  # pyqtgraph takes no empty list of pens
            left = self.values[:, :j].sum(axis=1)
            return {"x0": left, "y": y, "width": self.values[:, j], "height": 0.6, "brush": colour}
        height = 0.74 / len(chart.series)
        return {
            "x0": np.zeros(n),
            "y": y + 0.37 - height * (j + 0.5),
            "width": np.minimum(self.values[:, j], chart.top()),
            "height": height * 0.9,
            "brushes": [pg.mkBrush(style.BOTTLENECK if r and not multi else colour) for r in red],
            "pens": [pg.mkPen(style.BOTTLENECK, width=2) if r and multi else pg.mkPen("w") for r in red],
        }

    def _show_lines(self) -> None:
        """The chart's dashed reference lines."""
        for line in self.lines:
            self.removeItem(line)
        self.lines = []
        for value, label, role in self.chart.lines:
            colour = style.role_colour(role)
            line = pg.InfiniteLine(
                pos=value, angle=90, pen=pg.mkPen(colour, style=Qt.DashLine), label=label or None
            )
            self.addItem(line)
            self.lines.append(line)

    def set_title(self, text: str, key: bool = True) -> None:
        """Title with the colour key on a line of its own (a legend box would cover the bars; on the title's
        line the key made the chart wider than a narrow column and its last bars were cut off)."""
        keys = self.chart.keys if key and self.chart is not None else ()
        line = " &nbsp;".join(  # a key's square and name never part
            f"<span style='color:{style.role_colour(r)}'>\u25a0</span>&nbsp;{n}" for n, r in keys
        )
        self.setTitle(f"{text}<br>{line}" if line else text, size=style.CHART_TITLE_SIZE)

    def _px_per_unit(self, span: float) -> float:
        """Pixels per axis unit when the x axis spans ``span``."""
        return self.getViewBox().width() / max(span, 1e-9)

    def _text_item(self, text: str, colour: str, anchor: tuple, pos: tuple) -> None:
        item = pg.TextItem(text, color=colour, anchor=anchor)
        item.setPos(*pos)
        self.addItem(item)
        self.texts.append(item)

    def _layout(self, *_) -> None:
        """The x range and the value labels for the current data and width: a label written after
        a bar gets room for it in the range."""
        for item in self.texts:
            self.removeItem(item)
        self.texts = []
        chart = self.chart
        if chart is None or not self.labels:
            return
        texts = [[s.texts[i] for s in chart.series] for i in range(len(self.labels))]
        widths_px = np.array([[pg.TextItem(t).boundingRect().width() for t in row] for row in texts])
        ends = np.array([min(chart.extent(i), chart.top()) for i in range(len(self.labels))])
        span = max(chart.top(), 1e-3) * 1.08
        width_px = max(self.getViewBox().width(), 1.0)
        inside = self._inside(widths_px, span) if chart.stacked else np.zeros(widths_px.shape, dtype=bool)
        after_px = widths_px[:, -1] if chart.stacked else widths_px.max(axis=1)
        outside = ~inside[:, -1] if chart.stacked else np.ones(len(ends), dtype=bool)
        for end, label_px in zip(ends[outside], after_px[outside]):
            share = min((label_px + 2 * self.label_padding_px) / width_px, 0.6)  # room after the bar
            span = max(span, float(end) / (1.0 - share))
        self.setXRange(0, span, padding=0)
        self.setYRange(-0.6, len(self.labels) - 0.4, padding=0)
        if chart.stacked:
            self._label_segments(texts, widths_px, span)
        else:
            self._label_ends(texts)

    def _inside(self, widths_px: np.ndarray, span: float) -> np.ndarray:
        """Which parts' values (labels ``widths_px`` wide) fit in their segment when the axis spans ``span``."""
        return (self.values > 0) & (
            self.values * self._px_per_unit(span) >= widths_px + self.label_padding_px
        )

    def _label_segments(self, texts: list, widths_px: np.ndarray, span: float) -> None:
        """Each part's value in its segment, or after the bar (the last part) or under its segment;
        a label under a segment starts after the one under the segment before it, and one that
        would still cover another label or the axis's numbers is left out (the value is in the
        results table)."""
        last, unit_px = len(self.chart.series) - 1, self._px_per_unit(span)
        row_px = self.getViewBox().height() / max(len(self.labels), 1)  # the y range is one unit a row
        height_px = pg.TextItem("0").boundingRect().height()
        inside, under, boxes = self._inside(widths_px, span), [], []
        for i, (row, row_texts, fits) in enumerate(zip(self.values, texts, inside)):
            y_row, left, free_px = self._row_y(i), 0.0, 0.0
            for c, (value, label, fit) in enumerate(zip(row, row_texts, fits)):
                if value > 0 and (fit or c == last):
                    x, anchor = (left + value / 2, (0.5, 0.5)) if fit else (left + value, (0.0, 0.5))
                    self._text_item(label, "w" if fit else "#333", anchor, (x, y_row))
                    boxes.append(_box_px(x * unit_px, -y_row * row_px, widths_px[i, c], height_px, anchor))
                elif value > 0:
                    start_px = max((left + value / 2) * unit_px - widths_px[i, c] / 2, free_px)
                    free_px = start_px + widths_px[i, c] + self.label_padding_px
                    box = _box_px(start_px, -(y_row - 0.32) * row_px, widths_px[i, c], height_px, (0.0, 0.0))
                    under.append((label, (start_px / unit_px, y_row - 0.32), box))
                left += float(value)
        floor_px = 0.6 * row_px  # the bottom of the view (y -0.6): below it are the axis's numbers
        for label, pos, box in under:
            if box.bottom() <= floor_px and not any(box.intersects(b) for b in boxes):
                self._text_item(label, "#333", (0.0, 0.0), pos)
                boxes.append(box)

    def _label_ends(self, texts: list) -> None:
        """Each side-by-side bar's value after its end."""
        top = self.chart.top()
        for j in range(len(self.chart.series)):
            ys = self._bar_opts(j)["y"]
            for i, row in enumerate(texts):
                if row[j]:
                    self._text_item(
                        row[j], style.CHART_FOREGROUND, (0.0, 0.5), (min(self.values[i, j], top), ys[i])
                    )


def _box_px(x_px: float, y_px: float, width_px: float, height_px: float, anchor: tuple) -> QRectF:
    """The rectangle (px, y down) of a label ``width_px`` x ``height_px`` anchored at ``(x_px, y_px)``."""
    return QRectF(x_px - anchor[0] * width_px, y_px - anchor[1] * height_px, width_px, height_px)


class LatencyBreakdownChart(SpecBarChart):
    """CAPTURE_LATENCY, QLATENCY and APPLY_LATENCY stacked (ms), one bar per label
    (:func:`engine.report.charts.latency_breakdown`)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.show_chart(latency_breakdown([], []))

    def set_data(self, labels: Sequence[str], metrics: Sequence[dict]) -> None:
        """One stacked bar per ``labels[i]`` from ``metrics[i]`` (missing parts have no segment)."""
        self.show_chart(latency_breakdown(labels, metrics))


class StageChart(SpecBarChart):
    """Utilisation (%) per stage (:func:`engine.report.charts.stage_utilisation`): names on the left,
    pipeline order from the top, the bottleneck in red, the saturation line dashed."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.names: list[str] = []
        self.utilisation_pct = np.zeros(0)
        self.set_data([], [], None)

    def set_data(self, names: Sequence[str], utilisation: Sequence[float], bottleneck: str | None) -> None:
        """``utilisation`` in 0..1 per stage ``names`` (shown by their labels); ``bottleneck`` is drawn red."""
        self.names = list(names)
        self.utilisation_pct = np.asarray(utilisation, dtype=float) * 100.0
        self.show_chart(stage_utilisation(self.names, [("", dict(zip(self.names, utilisation)), bottleneck)]))


class _Bars(Chart):
    """Named values as bars, several series side by side: what vertical and horizontal bars share.

    Subclasses make a bar item (:meth:`_new_item`), place one series' bars (:meth:`_place`) and
    label the category axis (:meth:`_label_categories`).
    """

    #: Index in ``style.PALETTE`` of the first series' colour.
    first_colour = 0
    #: Between the title and the colour key of the series.
    key_separator = "<br>"

    def __init__(self, title: str, unit: str, unit_axis: str, grid_x: bool = False, parent=None):
        super().__init__(parent)
        _frame(self, title, grid_x=grid_x)
        if unit:
            self.setLabel(unit_axis, unit)
        self.legend = _legend(self)
        self.items: list[pg.BarGraphItem] = []
        self.categories: list[str] = []
        self.series: dict[str, np.ndarray] = {}

    def _colour(self, index: int) -> str:
        return style.PALETTE[(index + self.first_colour) % len(style.PALETTE)]

    def set_data(
        self, categories: Sequence[str], series: dict[str, Sequence[float]], key_title: str = ""
    ) -> None:
        """Bars for each category (in the given order), one colour per series name.

        With ``key_title`` the title is that text followed by the colour key of the series, in
        place of the legend box (which would cover bars).
        """
        self.categories = list(categories)
        self.series = {k: np.asarray(v, dtype=float) for k, v in series.items()}
        thickness = 0.8 / max(len(series), 1)
        while len(self.items) < len(series):
            item = self._new_item(thickness, self._colour(len(self.items)))
            self.addItem(item)
            self.items.append(item)
        self.legend.clear()
        legend = len(series) > 1 and not key_title
        self.legend.setVisible(legend)  # one series needs no key (an empty box otherwise)
        if key_title:
            keys = " ".join(
                f"<span style='color:{self._colour(i)}'>\u25a0</span> {name}" for i, name in enumerate(series)
            )
            self.setTitle(f"{key_title}{self.key_separator}{keys}", size=style.CHART_TITLE_SIZE)
        names = list(series)
        for i, item in enumerate(self.items):
            item.setVisible(i < len(names))
            if i < len(names):
                self._place(item, i, thickness, np.nan_to_num(self.series[names[i]]))
                if legend:
                    self.legend.addItem(item, names[i])
        self._label_categories()

    def _new_item(self, thickness: float, colour: str) -> pg.BarGraphItem:
        raise NotImplementedError

    def _place(self, item: pg.BarGraphItem, index: int, thickness: float, values: np.ndarray) -> None:
        raise NotImplementedError

    def _label_categories(self) -> None:
        raise NotImplementedError


class BarChart(_Bars):
    """Named values as vertical bars (several series side by side)."""

    def __init__(self, title: str, unit: str = "", parent=None):
        super().__init__(title, unit, "left", parent=parent)

    def _new_item(self, thickness: float, colour: str) -> pg.BarGraphItem:
        return pg.BarGraphItem(x=[0], height=[0], width=thickness, brush=colour)

    def _place(self, item: pg.BarGraphItem, index: int, thickness: float, values: np.ndarray) -> None:
        x = np.arange(len(self.categories), dtype=float)
        item.setOpts(x=x - 0.4 + thickness * (index + 0.5), height=values, width=thickness)

    def _label_categories(self) -> None:
        self.getAxis("bottom").setTicks([list(enumerate(self.categories))])
        self.setXRange(-0.6, max(len(self.categories) - 0.4, 0.4), padding=0)


class HBarChart(_Bars):
    """Horizontal bars: one row per category (readable long names), one colour per series."""

    first_colour = 1
    key_separator = " &nbsp; "

    def __init__(self, title: str, unit: str = "", parent=None):
        super().__init__(title, unit, "bottom", grid_x=True, parent=parent)
        self.zero = pg.InfiniteLine(pos=0, angle=90, pen=pg.mkPen(style.REFERENCE_LINE))
        self.addItem(self.zero)

    def _new_item(self, thickness: float, colour: str) -> pg.BarGraphItem:
        return pg.BarGraphItem(x0=[0], y=[0], width=[0], height=thickness, brush=colour)

    def _place(self, item: pg.BarGraphItem, index: int, thickness: float, values: np.ndarray) -> None:
        y = -np.arange(len(self.categories), dtype=float)
        item.setOpts(
            x0=np.minimum(values, 0),
            width=np.abs(values),
            y=y + 0.4 - thickness * (index + 0.5),
            height=thickness,
        )

    def _label_categories(self) -> None:
        """Categories top to bottom in the given order."""
        self.getAxis("left").setTicks([[(float(-i), c) for i, c in enumerate(self.categories)]])
        self.setYRange(-len(self.categories) + 0.4, 0.6, padding=0)
        self.enableAutoRange(axis="x")


class CommaAxis(pg.AxisItem):
    """An axis whose whole-number ticks read ``200,000`` rather than ``2e+05``."""

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        if spacing * scale >= 1:
            return [f"{v * scale:,.0f}" for v in values]
        return super().tickStrings(values, scale, spacing)


class CompactAxis(pg.AxisItem):
    """An axis whose large ticks read ``2.5M`` and ``500k`` rather than ``2.5e+06`` (queue depths, rows/s)."""

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        top = max((abs(v * scale) for v in values), default=0.0)
        for from_value, divisor, suffix in ((1e6, 1e6, "M"), (1e4, 1e3, "k")):
            if top >= from_value:
                return [
                    f"{v * scale / divisor:,.6g}{suffix}" if abs(v) > 1e-9 * spacing else "0" for v in values
                ]
        return super().tickStrings(values, scale, spacing)


class SpanChart(Chart):
    """One horizontal bar per row from a start to an end, each its own colour with a text at its end,
    and labelled vertical reference lines (a limit, the size now).

    Items are pooled: texts and lines are created when more are needed and hidden when fewer are.
    """

    def __init__(self, title: str = "", unit: str = "", parent=None):
        super().__init__(parent, axisItems={"bottom": CommaAxis("bottom")})
        _frame(self, title, grid_x=True)
        self.getAxis("bottom").enableAutoSIPrefix(False)
        self.bar = pg.BarGraphItem(
            x0=[0], y=[0], width=[0], height=0.6, brush=style.PALETTE[0], pen=pg.mkPen("w")
        )
        self.addItem(self.bar)
        self.texts: list[pg.TextItem] = []
        self.lines: list[pg.InfiniteLine] = []
        self.labels: list[str] = []
        self.starts = np.zeros(0)
        self.ends = np.zeros(0)
        self.notes: list[str] = []
        self.line_labels: list[str] = []
        self._line_xs: list[float] = []
        self.unit = ""
        self.set_unit(unit)

    def set_unit(self, unit: str) -> None:
        """The unit under the axis (plain text, never scaled)."""
        self.unit = unit
        self.setLabel("bottom", unit)

    def set_data(self, rows: Sequence[tuple], lines: Sequence[tuple] = ()) -> None:
        """Show ``rows`` top to bottom and the reference ``lines``.

        Parameters
        ----------
        rows : sequence of (label, start, end, colour, note)
            One bar from ``start`` to ``end`` (axis units) with ``note`` written after its end.
        lines : sequence of (x, label, colour)
            A dashed vertical line at ``x`` with ``label`` at its top.
        """
        self.labels = [str(r[0]) for r in rows]
        self.starts = np.array([float(r[1]) for r in rows])
        self.ends = np.array([float(r[2]) for r in rows])
        self.notes = [str(r[4]) for r in rows]
        n = len(rows)
        y = -np.arange(n, dtype=float)
        lo, hi = np.minimum(self.starts, self.ends), np.maximum(self.starts, self.ends)
        self.bar.setOpts(x0=lo, width=hi - lo, y=y, height=0.6, brushes=[pg.mkBrush(r[3]) for r in rows])
        while len(self.texts) < n:
            t = pg.TextItem(color=style.CHART_FOREGROUND, anchor=(0, 0.5))
            self.addItem(t)
            self.texts.append(t)
        for i, t in enumerate(self.texts):
            t.setVisible(i < n)
            if i < n:
                t.setText(self.notes[i])
                t.setPos(float(hi[i]), float(y[i]))
        while len(self.lines) < len(lines):
            line = pg.InfiniteLine(
                angle=90,
                movable=False,
                label="",
                labelOpts={"position": 0.95, "color": style.CHART_FOREGROUND, "anchors": [(0, 0), (0, 0)]},
            )
            self.addItem(line)
            self.lines.append(line)
        self.line_labels = [str(x[1]) for x in lines]
        for i, line in enumerate(self.lines):
            line.setVisible(i < len(lines))
            if i < len(lines):
                x, label, colour = lines[i]
                line.setPos(float(x))
                line.setPen(pg.mkPen(colour, width=1.5, style=pg.QtCore.Qt.DashLine))
                line.label.setFormat(f" {label}")
                line.label.setColor(colour)
        self.getAxis("left").setTicks([[(float(-i), label) for i, label in enumerate(self.labels)]])
        self._line_xs = [float(x[0]) for x in lines]
        self._fit_x()
        self.setYRange(-max(n, 1) + 0.45, 0.55 + (0.5 if lines else 0.0), padding=0)

    def _fit_x(self) -> None:
        """An x range that shows every bar, line and the whole note after each bar at the current width."""
        n = len(self.labels)
        ends = np.maximum(self.starts, self.ends)
        low = min([float(np.minimum(self.starts, self.ends).min()) if n else 0.0, *self._line_xs, 0.0])
        top = max([float(ends.max()) if n else 0.0, *self._line_xs, 1e-9])
        width_px = self.plotItem.vb.width() if self.plotItem.vb.width() > 50 else 400.0
        right = top
        ats = [(float(ends[i]), self.texts[i]) for i in range(n)]
        ats += [(x, self.lines[i].label) for i, x in enumerate(self._line_xs)]
        for at, text in ats:
            share = min(0.7, (text.textItem.boundingRect().width() + 8) / width_px)
            right = max(right, low + (at - low) / (1.0 - share))
        right = max(right, top * 1.05)
        self.setXRange(low - 0.02 * (right - low), right, padding=0)

    def resizeEvent(self, ev):  # noqa: N802 - Qt's name
        super().resizeEvent(ev)
        if getattr(self, "labels", None):
            self._fit_x()


class LineChart(Chart):
    """Series against an x axis (time, or a knob); curves are created once and reused.

    The legend sits in its own row under the x axis, never over the data. ``set_lines``
    draws labelled horizontal reference lines (a target rate, a CPU limit). A series in a
    time or size unit is shown in the unit that suits its magnitude (``set_series(unit=...)``).
    """

    def __init__(self, title: str, x_label: str = "", y_label: str = "", parent=None):
        super().__init__(parent, axisItems={"left": CompactAxis("left")})
        _frame(self, title, min_height=120, grid_x=True, grid_y=True, grid_alpha=0.2)
        if x_label:
            self.setLabel("bottom", x_label)
        self.y_label = y_label
        if y_label:
            self.setLabel("left", y_label)
        self.legend = pg.LegendItem(labelTextSize=style.CHART_LEGEND_SIZE, colCount=2)  # never over the data:
        self.getPlotItem().layout.addItem(self.legend, 4, 1)  # in its own row under the x axis
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.lines: list = []
        # invisible points above the reference lines: the auto-fitted y range leaves their labels room
        self.line_room = pg.PlotDataItem([], [], pen=pg.mkPen(0, 0, 0, 0))
        self.addItem(self.line_room)
        self.getViewBox().sigResized.connect(self._wrap_line_labels)
        self.scale = 1.0

    def set_series(
        self,
        series: dict[str, tuple[Sequence[float], Sequence[float]]],
        symbols: bool = False,
        unit: str | None = None,
        colours: dict[str, str] | None = None,
    ) -> None:
        """Show exactly ``series`` (name -> (x, y)); other curves are hidden.

        ``unit`` (the y values' unit) rescales times and sizes to the unit of their magnitude
        (:func:`engine.metrics.catalog.display_scale`) and labels the y axis with it. ``colours``
        (name -> colour) colours the curves; without it a new curve takes the next of the palette.
        """
        self.scale = 1.0
        if unit is not None:
            from engine.metrics.catalog import display_scale

            peak = max(
                (
                    float(np.nanmax(np.abs(y)))
                    for _, y in series.values()
                    if len(y) and np.isfinite(np.asarray(y, dtype=float)).any()
                ),
                default=0.0,
            )
            self.scale, shown = display_scale(peak, unit)
            self.setLabel("left", shown)
        for name, (x, y) in series.items():
            curve = self.curves.get(name)
            if curve is None:
                colour = QColor(style.PALETTE[len(self.curves) % len(style.PALETTE)])
                curve = self.plot(
                    [],
                    [],
                    pen=pg.mkPen(colour, width=2),
                    connect="finite",
                    symbol="o" if symbols else None,
                    symbolSize=5,
                    symbolBrush=colour,
                )
                self.curves[name] = curve
                self.legend.addItem(curve, name)
            elif (curve.opts["symbol"] is not None) != symbols:
                curve.setSymbol("o" if symbols else None)
            if colours and name in colours:
                curve.setPen(pg.mkPen(colours[name], width=2))
                curve.setSymbolBrush(colours[name])
            curve.setData(np.asarray(x, dtype=float), np.asarray(y, dtype=float) * self.scale)
            curve.setVisible(True)
        for name in [n for n in self.curves if n not in series]:  # gone from the plot and the legend
            curve = self.curves.pop(name)
            self.removeItem(curve)
            self.legend.removeItem(curve)
        self.legend.setVisible(len(self.curves) > 1)
        self._fit_legend()
        self._room_for_line_labels()
        self.enableAutoRange()

    def resizeEvent(self, ev):  # noqa: N802 - Qt's name
        super().resizeEvent(ev)
        self._fit_legend()

    #: Width (px) of a legend entry's colour sample and the gap after the entry.
    legend_entry_extra_px = 40.0

    def _fit_legend(self) -> None:
        """As many legend columns (1 to 3) as the widest entry allows in the chart's width, so the
        entries never widen the plot past its view ('Offered rows per second=20000' twice did)."""
        legend = getattr(self, "legend", None)  # pyqtgraph resizes once before __init__ has made it
        if legend is None:
            return
        widest_px = max((label.item.boundingRect().width() for _, label in legend.items), default=0.0)
        columns = max(1, min(3, int(self.width() // (widest_px + self.legend_entry_extra_px))))
        if columns != legend.columnCount:
            legend.setColumnCount(columns)

    def set_lines(self, lines: Sequence[tuple[float, str, str]]) -> None:
        """Horizontal reference lines: (y in the series' unit, label, colour); replaces the previous ones."""
        for line in self.lines:
            self.removeItem(line)
        self.lines = []
        for y, text, colour in lines:
            line = pg.InfiniteLine(
                pos=y * self.scale,
                angle=0,
                pen=pg.mkPen(colour, width=1.5, style=Qt.DashLine),
                label=text,
                labelOpts={"position": 0.02, "color": colour, "anchors": [(0, 1), (0, 1)]},
            )
            self.addItem(line)
            self.lines.append(line)
        self._wrap_line_labels()
        self._room_for_line_labels()

    def _wrap_line_labels(self, *_) -> None:
        """Wrap each reference line's label to the plot's width, so a long one is never cut at its edge."""
        width_px = max(60.0, 0.96 * self.getViewBox().width())
        for line in self.lines:
            line.label.setTextWidth(width_px)
        if _:  # a resize: a label may now wrap onto more lines and need more room above its line
            self._room_for_line_labels()

    #: Least headroom above a reference line for its label, as a share of the line's height.
    line_label_room = 0.12

    def _label_room(self, line) -> float:
        """Headroom above ``line`` (share of its height) for its label as wrapped now: the label's
        height over the plot's, at most half of it."""
        share = min(0.5, line.label.boundingRect().height() / max(self.getViewBox().height(), 1.0))
        return max(self.line_label_room, 1.0 / (1.0 - share) - 1.0)

    def _room_for_line_labels(self) -> None:
        """Place the invisible points that keep every line's label inside the auto-fitted range."""
        finite = [c.xData[np.isfinite(c.xData)] for c in self.curves.values() if c.xData is not None]
        xs = [float(x.min()) for x in finite if len(x)]
        ys = [line.value() * (1.0 + self._label_room(line)) for line in self.lines]
        if not xs or not ys:
            self.line_room.setData([], [])
            return
        self.line_room.setData([min(xs)] * len(ys), ys)

    def set_x_label(self, text: str) -> None:
        self.setLabel("bottom", text)


class SpecLineChart(LineChart):
    """Draws a :class:`engine.report.line_charts.LineChartSpec` (a chart the PDF draws too): its curves
    in their colours, the dashed reference lines, the pick (a dashed vertical line and a ring on each
    curve) and shaded bands (an outage), the x ticks at the knob's values when they are categories or
    on a log scale. Items are built once and then only given data.
    """

    #: Point markers are drawn up to this many points; thousands only slow the drawing.
    max_symbols = 300
    #: Opacity (0..255) of a band's shade.
    band_alpha = 40

    def __init__(self, title: str = "", parent=None):
        super().__init__(title, "", "", parent)
        self.chart: LineChartSpec | None = None
        self.vline = pg.InfiniteLine(
            angle=90,
            movable=False,
            pen=pg.mkPen(style.GOOD, width=1.5, style=Qt.DashLine),
            label="",
            labelOpts={"position": 0.06, "color": style.GOOD, "anchors": [(0, 1), (0, 1)]},
        )
        self.vline.setVisible(False)
        self.addItem(self.vline)
        self.rings = pg.ScatterPlotItem(size=13, symbol="o", pen=pg.mkPen(style.GOOD, width=2), brush=None)
        self.addItem(self.rings)
        self.bands: list[pg.LinearRegionItem] = []
        self.band_labels: list[pg.InfLineLabel] = []

    def show_chart(self, chart: LineChartSpec | None) -> None:
        """Draw ``chart``; None empties the chart."""
        self.chart = chart
        if chart is None:
            self.set_series({})
            self.set_lines([])
            self.vline.setVisible(False)
            self.rings.setData([], [])
            self._show_bands(())
            return
        self._title(chart)
        self.set_x_label(chart.x.text)
        self.setLabel("left", chart.y.unit)
        x = chart.x
        custom = not x.numeric or x.log
        self.getAxis("bottom").setTicks([x.ticks()] if custom else None)
        names = [f"{chart.legend_title} {s.name}" if chart.legend_title else s.name for s in chart.series]
        n_points = sum(len(s.points) for s in chart.series)
        self.set_series(
            {
                name: ([x.position(v) for v in s.xs], [np.nan if y is None else y for y in s.ys])
                for name, s in zip(names, chart.series)
            },
            symbols=n_points <= self.max_symbols,
            colours={
                name: style.line_colour(s.role, i, len(chart.series))
                for i, (name, s) in enumerate(zip(names, chart.series))
            },
        )
        self.legend.setVisible(chart.legend)
        self.set_lines([(float(line.at), line.label, style.role_colour(line.role)) for line in chart.hlines])
        self._show_pick(chart)
        self._show_bands(chart.bands)

    def _title(self, chart: LineChartSpec) -> None:
        note = f" <span style='color:{style.NOTE_TEXT}'>{chart.note}</span>" if chart.note else ""
        self.setTitle(chart.title + note, size=style.CHART_TITLE_SIZE)

    def _show_pick(self, chart: LineChartSpec) -> None:
        """The dashed vertical line at the pick and a ring on each curve's pick."""
        vline = chart.vline
        self.vline.setVisible(vline is not None)
        if vline is not None:
            self.vline.setPos(chart.x.position(vline.at))
            self.vline.label.setFormat(f" {vline.label}")
        marks = chart.markers
        self.rings.setData([chart.x.position(v) for v, _ in marks], [float(y) for _, y in marks])

    def _show_bands(self, bands) -> None:
        """A shaded region per band, its label at the top; regions are reused."""
        while len(self.bands) < len(bands):
            region = pg.LinearRegionItem(movable=False)
            region.setZValue(-10)
            label = pg.InfLineLabel(
                region.lines[0], "", position=0.92, color=style.TEXT, anchors=[(0, 0), (0, 0)]
            )
            self.addItem(region)
            self.bands.append(region)
            self.band_labels.append(label)
        for i, region in enumerate(self.bands):
            region.setVisible(i < len(bands))
            if i < len(bands):
                band = bands[i]
                colour = QColor(style.role_colour(band.role))
                colour.setAlpha(self.band_alpha)
                region.setBrush(pg.mkBrush(colour))
                for line in region.lines:
                    line.setPen(pg.mkPen(colour.darker(110), width=1))
                region.setRegion((band.start, band.end))
                self.band_labels[i].setFormat(f" {band.label}")
