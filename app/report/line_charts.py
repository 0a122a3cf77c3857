"""Line charts of PDF reports, drawn with QPainter from a :class:`engine.report.line_charts.LineChartSpec`
(the chart the window's :class:`app.charts.SpecLineChart` draws too).

:func:`draw_line_chart` draws the title, the colour key (wrapped onto as many rows as it needs),
the axes with their ticks and units, shaded bands, dashed reference lines, the curves (a gap
where a value is missing, a dot on each point when there are few) and the ringed picks.
:func:`chart_block` wraps one as a layout block as high as its colour key needs.
Charts are vectors; text stays text (pdftotext extracts it).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPainterPath, QPen

from app import style
from app.report.layout import Context, Drawing, report_font
from engine.report.line_charts import LineChartSpec, XAxis, tick_text

#: Height of one chart panel with a colour key of at most one row, mm.
PANEL_MM = 52.0
#: Height a further row of the colour key adds, mm.
LEGEND_ROW_MM = 3.6
#: Height a note under the title adds (when it does not fit after the title), mm.
NOTE_ROW_MM = 3.6
#: Point markers are drawn on curves with at most this many points.
MAX_MARKERS = 60
#: Type sizes of a chart's title, its colour key and its axes' ticks, labels and reference lines, pt.
TITLE_PT = 8.5
LEGEND_PT = 7.5
AXIS_PT = 7.5
#: Width of the text on an A4 page with the report's margins, mm.
TEXT_WIDTH_MM = 178.0
#: Opacity (0..255) of a band's shade.
BAND_ALPHA = 40


@dataclass
class _Plot:
    """Where a chart's plot area is and how values map onto it (device pixels)."""

    area: QRectF
    x: XAxis
    y_ticks: list
    log_y: bool

    def finite(self, y) -> bool:
        """``y`` can be drawn: a finite number (and positive on a log axis)."""
        return y is not None and math.isfinite(y) and (not self.log_y or y > 0)

    def px_pos(self, pos: float) -> float:
        """Device x of an axis position (the log of the value on a log axis)."""
        x_lo, x_hi = self.x.span()
        return self.area.left() + self.area.width() * (pos - x_lo) / (x_hi - x_lo)

    def px(self, value) -> float:
        """Device x of an x value."""
        return self.px_pos(self.x.position(value))

    def py(self, v: float) -> float:
        """Device y of a value (clamped to the lowest tick on a log axis)."""
        t_lo, t_hi = self.y_ticks[0], self.y_ticks[-1]
        if self.log_y:
            v = max(v, t_lo)
            f = (math.log10(v) - math.log10(t_lo)) / (math.log10(t_hi) - math.log10(t_lo))
        else:
            f = (v - t_lo) / (t_hi - t_lo) if t_hi > t_lo else 0.0
        return self.area.bottom() - self.area.height() * f


def colours(chart: LineChartSpec) -> list[str]:
    """The colour of each curve of ``chart`` (its role's, or its position's)."""
    n = len(chart.series)
    return [style.line_colour(s.role, i, n) for i, s in enumerate(chart.series)]


def draw_line_chart(painter: QPainter, rect: QRectF, ctx: Context, chart: LineChartSpec) -> None:
    """Draw ``chart`` in ``rect``: title, colour key, axes, bands, reference lines, curves, picks."""
    painter.setRenderHint(QPainter.Antialiasing)
    y0 = _draw_heading(painter, rect, ctx, chart)
    painter.setFont(report_font(AXIS_PT))
    fm = QFontMetricsF(painter.font(), painter.device())
    ticks, log_y = chart.y_ticks(), chart.y_log()
    tick_texts = [tick_text(t) for t in ticks]
    unit_w = fm.height() + ctx.mm(1) if chart.y.unit else 0.0  # the unit, written up the y axis
    y_label_w = unit_w + max(fm.horizontalAdvance(t) for t in tick_texts) + ctx.mm(1.5)
    plot = _Plot(
        QRectF(
            rect.left() + y_label_w,
            y0 + fm.height() * 0.6,
            rect.width() - y_label_w - ctx.mm(2),
            rect.bottom() - y0 - fm.height() * 0.6 - 2.4 * fm.height() - ctx.mm(1.5),
        ),
        chart.x,
        ticks,
        log_y,
    )
    _draw_bands(painter, plot, ctx, fm, chart)
    _draw_y_axis(
        painter, plot, QRectF(rect.left(), 0, y_label_w - ctx.mm(1), 0), ctx, fm, tick_texts, chart.y.unit
    )
    _draw_x_axis(painter, plot, ctx, fm)
    painter.save()
    painter.setClipRect(plot.area.adjusted(-ctx.mm(1.5), -ctx.mm(1.5), ctx.mm(1.5), ctx.mm(0.5)))
    _draw_reference_lines(painter, plot, ctx, fm, chart)
    for s, colour in zip(chart.series, colours(chart)):
        _draw_curve(painter, plot, ctx, s.points, colour)
    painter.setPen(QPen(QColor(style.GOOD), ctx.pt(1.4)))
    painter.setBrush(Qt.NoBrush)
    for v, y in chart.markers:
        if plot.finite(y):
            painter.drawEllipse(QPointF(plot.px(v), plot.py(y)), ctx.mm(1.3), ctx.mm(1.3))
    painter.restore()


def _draw_heading(painter: QPainter, rect: QRectF, ctx: Context, chart: LineChartSpec) -> float:
    """The chart's title, its note (after it, or in the title's line's room left), and with several
    curves their colour keys; returns the device y below them."""
    painter.setFont(report_font(TITLE_PT, bold=True))
    fm_title = QFontMetricsF(painter.font(), painter.device())
    painter.setPen(QColor(style.TEXT))
    painter.drawText(QPointF(rect.left(), rect.top() + fm_title.ascent()), chart.title)
    y0 = rect.top() + fm_title.height() + ctx.mm(1)
    if chart.note:
        painter.setFont(report_font(LEGEND_PT))
        fm = QFontMetricsF(painter.font(), painter.device())
        painter.setPen(QColor(style.NOTE_TEXT))
        after = rect.left() + fm_title.horizontalAdvance(chart.title) + ctx.mm(2)
        if after + fm.horizontalAdvance(chart.note) <= rect.right():
            painter.drawText(QPointF(after, rect.top() + fm_title.ascent()), chart.note)
        else:  # too long for the title's line: under it
            painter.drawText(QPointF(rect.left(), y0 - ctx.mm(0.6) + fm.ascent()), chart.note)
            y0 += fm.height()
    if chart.legend:
        y0 += legend_rows(
            painter,
            QRectF(rect.left() + ctx.mm(1), y0, rect.width() - ctx.mm(2), 0),
            [(s.name, c) for s, c in zip(chart.series, colours(chart))],
            ctx,
            chart.legend_title,
        )
        y0 += ctx.mm(1)
    return y0


def _draw_bands(
    painter: QPainter, plot: _Plot, ctx: Context, fm: QFontMetricsF, chart: LineChartSpec
) -> None:
    """Each band shaded across the plot's height, its label at its top left."""
    area = plot.area
    for band in chart.bands:
        left = max(area.left(), plot.px(band.start))
        right = min(area.right(), plot.px(band.end))
        if right <= left:
            continue
        colour = QColor(style.role_colour(band.role))
        shade = QColor(colour)
        shade.setAlpha(BAND_ALPHA)
        painter.fillRect(QRectF(left, area.top(), right - left, area.height()), shade)
        painter.setFont(report_font(AXIS_PT))
        painter.setPen(QColor(style.TEXT))
        painter.drawText(QPointF(left + ctx.mm(0.8), area.top() + fm.ascent() + ctx.mm(0.5)), band.label)


def _draw_y_axis(
    painter: QPainter,
    plot: _Plot,
    labels: QRectF,
    ctx: Context,
    fm: QFontMetricsF,
    tick_texts: list[str],
    y_unit: str,
) -> None:
    """Grid lines and tick labels (right-aligned in ``labels``' columns), the unit written up the axis."""
    area = plot.area
    for t, text in zip(plot.y_ticks, tick_texts):
        y = plot.py(t)
        painter.setPen(QPen(QColor(style.GRID), ctx.pt(0.4)))
        painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
        painter.setPen(QColor(style.MUTED))
        painter.drawText(
            QRectF(labels.left(), y - fm.height() / 2, labels.width(), fm.height()),
            Qt.AlignRight | Qt.AlignVCenter,
            text,
        )
    if y_unit:
        painter.save()
        painter.translate(labels.left(), area.center().y())
        painter.rotate(-90)
        painter.setPen(QColor(style.TEXT))
        painter.drawText(QRectF(-area.height() / 2, 0, area.height(), fm.height()), Qt.AlignCenter, y_unit)
        painter.restore()


def _draw_x_axis(painter: QPainter, plot: _Plot, ctx: Context, fm: QFontMetricsF) -> None:
    """Grid lines and tick labels (overlapping labels left out), the axis' title, both axis lines."""
    area = plot.area
    last_right = -math.inf
    for pos, text in plot.x.ticks():
        xx = plot.px_pos(pos)
        w = fm.horizontalAdvance(text)
        painter.setPen(QPen(QColor(style.GRID), ctx.pt(0.4)))
        painter.drawLine(QPointF(xx, area.top()), QPointF(xx, area.bottom()))
        if xx - w / 2 > last_right + ctx.mm(0.8):
            painter.setPen(QColor(style.MUTED))
            painter.drawText(QPointF(xx - w / 2, area.bottom() + fm.ascent() + ctx.mm(0.8)), text)
            last_right = xx + w / 2
    painter.setPen(QColor(style.TEXT))
    painter.drawText(
        QRectF(area.left(), area.bottom() + fm.height() + ctx.mm(1), area.width(), fm.height() * 1.3),
        Qt.AlignHCenter | Qt.AlignVCenter,
        plot.x.text,
    )
    painter.setPen(QPen(QColor(style.MUTED), ctx.pt(0.7)))
    painter.drawLine(QPointF(area.left(), area.bottom()), QPointF(area.right(), area.bottom()))
    painter.drawLine(QPointF(area.left(), area.top()), QPointF(area.left(), area.bottom()))


def _draw_reference_lines(
    painter: QPainter, plot: _Plot, ctx: Context, fm: QFontMetricsF, chart: LineChartSpec
) -> None:
    """Dashed horizontal lines with their labels above them; the dashed pick line with its label,
    at the foot of the plot unless a ringed point on the line sits there (then at its top)."""
    area = plot.area
    for line in chart.hlines:
        y = plot.py(float(line.at))
        colour = style.role_colour(line.role)
        painter.setPen(QPen(QColor(colour), ctx.pt(1.0), Qt.DashLine))
        painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
        painter.setFont(report_font(AXIS_PT, bold=True))
        painter.setPen(QColor(colour))
        painter.drawText(
            QRectF(
                area.left() + ctx.mm(1), y - fm.height() - ctx.mm(0.3), area.width() - ctx.mm(2), fm.height()
            ),
            Qt.AlignLeft | Qt.AlignBottom,
            line.label,
        )
    vline = chart.vline
    if vline is None:
        return
    xx = plot.px(vline.at)
    colour = style.role_colour(vline.role)
    painter.setPen(QPen(QColor(colour), ctx.pt(1.0), Qt.DashLine))
    painter.drawLine(QPointF(xx, area.top()), QPointF(xx, area.bottom()))
    if vline.label:
        painter.setFont(report_font(AXIS_PT, bold=True))
        painter.setPen(QColor(colour))
        w = QFontMetricsF(painter.font(), painter.device()).horizontalAdvance(vline.label)
        left = xx + ctx.mm(1) if xx + ctx.mm(1) + w < area.right() else xx - ctx.mm(1) - w
        foot = area.bottom() - area.height() / 3.0
        mark_low = any(v == vline.at and plot.py(y) > foot for v, y in chart.markers)
        baseline = area.top() + fm.ascent() + ctx.mm(1.2) if mark_low else area.bottom() - ctx.mm(1.2)
        painter.drawText(QPointF(left, baseline), vline.label)


def _draw_curve(painter: QPainter, plot: _Plot, ctx: Context, points: Sequence, colour: str) -> None:
    """One curve: a gap where a value is missing (segments only between consecutive drawable points),
    and a dot on each point when there are few."""
    pen = QPen(QColor(colour), ctx.pt(1.4), Qt.SolidLine)
    pen.setJoinStyle(Qt.RoundJoin)
    painter.setPen(pen)
    painter.setBrush(Qt.NoBrush)
    path = QPainterPath()
    started = False
    for v, y in points:
        if not plot.finite(y):
            started = False
            continue
        pt = QPointF(plot.px(v), plot.py(y))
        if started:
            path.lineTo(pt)
        else:
            path.moveTo(pt)
            started = True
    painter.drawPath(path)
    if len(points) <= MAX_MARKERS:
        painter.setPen(Qt.NoPen)
        painter.setBrush(QColor(colour))
        r = ctx.mm(0.55)
        for v, y in points:
            if plot.finite(y):
                painter.drawEllipse(QPointF(plot.px(v), plot.py(y)), r, r)


def legend_rows(
    painter: QPainter, rect: QRectF, items: Sequence[tuple[str, str]], ctx: Context, title: str = ""
) -> float:
    """Colour keys (after ``title``) from the top left of ``rect``, wrapped onto as many rows as its
    width needs; returns the height used."""
    painter.setFont(report_font(LEGEND_PT))
    fm = QFontMetricsF(painter.font(), painter.device())
    box, gap = ctx.mm(2.6), ctx.mm(3.5)
    x, y = rect.left(), rect.top()
    if title:
        painter.setPen(QColor(style.TEXT))
        painter.drawText(QPointF(x, y + fm.ascent()), title)
        x += fm.horizontalAdvance(title) + ctx.mm(2)
    for name, colour in items:
        w = box + ctx.mm(1) + fm.horizontalAdvance(name)
        if x > rect.left() and x + w > rect.right():
            x, y = rect.left(), y + fm.height()
        painter.setPen(Qt.NoPen)
        painter.setBrush(QColor(colour))
        painter.drawRect(QRectF(x, y + (fm.height() - box) / 2, box, box))
        painter.setPen(QColor(style.TEXT))
        painter.drawText(QPointF(x + box + ctx.mm(1), y + fm.ascent()), name)
        x += w + gap
    return y + fm.height() - rect.top()


@functools.lru_cache(maxsize=512)
def word_pct(word: str, pt: float, bold: bool) -> float:
    """Width of ``word`` at ``pt`` points in percent of the page's text width (with a table cell's padding)."""
    from PySide6.QtGui import QImage

    image = QImage(1, 1, QImage.Format_RGB32)
    image.setDotsPerMeterX(round(300 / 0.0254))
    image.setDotsPerMeterY(round(300 / 0.0254))
    width_mm = QFontMetricsF(report_font(pt, bold), image).horizontalAdvance(word) * 25.4 / 300
    return 100.0 * (width_mm + 2.4) / TEXT_WIDTH_MM


def panel_mm(chart: LineChartSpec) -> float:
    """The height of ``chart``'s panel: taller for a note under its title or a colour key of several
    rows (the plot keeps its height), mm."""
    note_mm = NOTE_ROW_MM if chart.note else 0.0
    if not chart.legend:
        return PANEL_MM + note_mm
    width_pct = sum(word_pct(s.name, LEGEND_PT, False) + 3.5 for s in chart.series)
    width_pct += word_pct(chart.legend_title, LEGEND_PT, False) if chart.legend_title else 0.0
    return PANEL_MM + note_mm + LEGEND_ROW_MM * max(math.ceil(width_pct / 97.0) - 1, 0)


def chart_block(chart: LineChartSpec) -> Drawing:
    """``chart`` as a layout block (:func:`draw_line_chart`), as high as its colour key needs."""
    return Drawing(panel_mm(chart), lambda p, r, c: draw_line_chart(p, r, c, chart))


__all__ = ["chart_block", "colours", "draw_line_chart", "legend_rows", "panel_mm", "word_pct"]
