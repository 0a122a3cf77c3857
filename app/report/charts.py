"""Vector charts for PDF reports, drawn with QPainter (sharp at any zoom, text extractable).

* :func:`draw_bars` - a chart the window draws too (:mod:`engine.report.charts`: the latency
  breakdown, stage utilisation), horizontal bars stacked or side by side.
* :func:`draw_metric_panels` - small multiples: one panel per metric, a bar per run, deltas against the first.

Colours match the workbench's charts (:mod:`app.charts`), which are not imported
here so a report does not load pyqtgraph.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen

from app import style
from app.report.layout import Context, report_font
from app.style import role_colour
from engine.report.charts import BarChartSpec
from engine.report.line_charts import nice_ticks
from engine.report.model import format_value


def _font(pt: float, bold: bool = False) -> QFont:
    return report_font(pt, bold)


def _tick_text(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 10 or v == 0 else f"{v:g}"


def _legend(painter: QPainter, x: float, y: float, items: Sequence[tuple[str, str]], ctx: Context) -> float:
    """Colour keys in a row from (x, y); returns the height used."""
    painter.setFont(_font(7.5))
    fm = QFontMetricsF(painter.font(), painter.device())
    box = ctx.mm(2.6)
    for name, colour in items:
        painter.setPen(Qt.NoPen)
        painter.setBrush(QColor(colour))
        painter.drawRect(QRectF(x, y + (fm.height() - box) / 2, box, box))
        painter.setPen(QColor(style.TEXT))
        painter.drawText(QPointF(x + box + ctx.mm(1), y + fm.ascent()), name)
        x += box + ctx.mm(1) + fm.horizontalAdvance(name) + ctx.mm(4)
    return fm.height()


def _x_axis(painter, plot: QRectF, ticks: list[float], unit: str, ctx: Context) -> None:
    painter.setFont(_font(7))
    fm = QFontMetricsF(painter.font(), painter.device())
    top = ticks[-1]
    for t in ticks:
        x = plot.left() + plot.width() * t / top
        painter.setPen(QPen(QColor(style.GRID), ctx.pt(0.4)))
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()))
        painter.setPen(QColor(style.MUTED))
        text = _tick_text(t)
        painter.drawText(
            QPointF(x - fm.horizontalAdvance(text) / 2, plot.bottom() + fm.ascent() + ctx.mm(0.8)), text
        )
    if unit:
        painter.drawText(
            QPointF(plot.right() - fm.horizontalAdvance(unit), plot.bottom() + 2 * fm.height() + ctx.mm(0.6)),
            unit,
        )
    painter.setPen(QPen(QColor(style.MUTED), ctx.pt(0.6)))
    painter.drawLine(QPointF(plot.left(), plot.top()), QPointF(plot.left(), plot.bottom()))


def _bar_plot_area(
    rect: QRectF, head: float, label_w: float, value_w: float, fm: QFontMetricsF, ctx: Context
) -> QRectF:
    """Where horizontal bars are drawn inside ``rect``.

    Below the legend (``head`` high), right of the row labels (``label_w`` wide), left of the
    values written after the bars (``value_w`` wide) and above the x axis' ticks and unit
    (two and a half lines of ``fm``); every length in device units.
    """
    return QRectF(
        rect.left() + label_w,
        rect.top() + head + ctx.mm(2),
        rect.width() - label_w - value_w,
        rect.height() - head - ctx.mm(2) - 2.4 * fm.height(),
    )


def draw_bars(painter: QPainter, rect: QRectF, ctx: Context, chart: BarChartSpec) -> None:
    """Draw ``chart`` (:class:`engine.report.charts.BarChartSpec`) in ``rect``: its colour key, the
    category labels, the bars with their values, reference lines and the value axis."""
    painter.setRenderHint(QPainter.Antialiasing)
    head = _legend(painter, rect.left(), rect.top(), [(n, role_colour(r)) for n, r in chart.keys], ctx)
    painter.setFont(_font(7.5, bold=True))  # bold labels and totals: measure as bold
    fm = QFontMetricsF(painter.font(), painter.device())
    label_w = max((fm.horizontalAdvance(c) for c in chart.categories), default=0) + ctx.mm(2)
    after = [*chart.totals] if chart.stacked else [t for s in chart.series for t in s.texts]
    value_w = max((fm.horizontalAdvance(t) for t in after), default=0) + ctx.mm(2)
    plot = _bar_plot_area(rect, head, label_w, value_w, fm, ctx)
    ticks = nice_ticks(chart.top())
    _x_axis(painter, plot, ticks, chart.axis.text, ctx)
    scale = plot.width() / ticks[-1]
    for value, _, role in chart.lines:
        x = plot.left() + value * scale
        painter.setPen(QPen(QColor(role_colour(role)), ctx.pt(0.7), Qt.DashLine))
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()))
    slot = plot.height() / max(len(chart.categories), 1)
    for i, category in enumerate(chart.categories):
        cy = plot.top() + slot * (i + 0.5)
        painter.setFont(_font(7.5, bold=i in chart.bold))
        painter.setPen(QColor(style.TEXT))
        painter.drawText(
            QRectF(rect.left(), cy - slot / 2, label_w - ctx.mm(1.5), slot),
            Qt.AlignRight | Qt.AlignVCenter,
            category,
        )
        if chart.stacked:
            _stacked_row(painter, plot, ctx, chart, i, (cy, min(slot * 0.62, ctx.mm(9)), scale, fm))
        else:
            _grouped_row(painter, plot, ctx, chart, i, (cy, slot, scale, ticks[-1]))


def _stacked_row(
    painter: QPainter, plot: QRectF, ctx: Context, chart: BarChartSpec, i: int, geometry
) -> None:
    """Category ``i``'s parts end to end (each value inside its segment where it fits), then its total;
    ``geometry`` is (centre y, bar height, device units per axis unit, font metrics)."""
    cy, bar_h, scale, fm = geometry
    x = plot.left()
    for j, s in enumerate(chart.series):
        w = chart.value(i, j) * scale
        if w <= 0:
            continue
        seg = QRectF(x, cy - bar_h / 2, w, bar_h)
        painter.setPen(QPen(QColor("white"), ctx.pt(0.6)))
        painter.setBrush(QColor(role_colour(s.role)))
        painter.drawRect(seg)
        painter.setFont(_font(7))
        if QFontMetricsF(painter.font(), painter.device()).horizontalAdvance(s.texts[i]) + ctx.mm(1.5) < w:
            painter.setPen(QColor("white"))
            painter.drawText(seg, Qt.AlignCenter, s.texts[i])
        x += w
    if i < len(chart.totals) and chart.totals[i]:
        painter.setPen(QColor(style.TEXT))
        painter.setFont(_font(7.5, bold=True))
        painter.drawText(QPointF(x + ctx.mm(1.2), cy + fm.ascent() / 2 - ctx.pt(1)), chart.totals[i])


def _grouped_row(
    painter: QPainter, plot: QRectF, ctx: Context, chart: BarChartSpec, i: int, geometry
) -> None:
    """Category ``i``'s bars side by side, each value after its bar, the bottleneck filled (one series)
    or outlined (several) red; ``geometry`` is (centre y, slot height, device units per axis unit,
    the axis' top)."""
    cy, slot, scale, top = geometry
    n = max(len(chart.series), 1)
    multi = n > 1
    group_h = min(slot * 0.74, ctx.mm(4.2) * n)
    bar_h = group_h / n
    for j, s in enumerate(chart.series):
        if s.values[i] is None:
            continue
        y = cy - group_h / 2 + j * bar_h
        w = min(chart.value(i, j), top) * scale
        red = (i, j) in chart.highlighted
        painter.setBrush(QColor(role_colour("bottleneck" if red and not multi else s.role)))
        painter.setPen(QPen(QColor(style.BOTTLENECK), ctx.pt(1.4)) if multi and red else Qt.NoPen)
        painter.drawRect(QRectF(plot.left(), y + bar_h * 0.08, w, bar_h * 0.84))
        painter.setFont(_font(6.8 if multi else 7.2))
        painter.setPen(QColor(style.TEXT))
        painter.drawText(
            QRectF(plot.left() + w + ctx.mm(0.8), y, ctx.mm(30), bar_h),
            Qt.AlignLeft | Qt.AlignVCenter,
            s.texts[i],
        )


def draw_metric_panels(
    painter: QPainter,
    rect: QRectF,
    ctx: Context,
    labels: Sequence[str],
    panels: Sequence[tuple[str, str, Sequence[float | None], Sequence[float | None]]],
    columns: int = 3,
) -> None:
    """Small multiples: ``panels`` is [(title, unit, value per run, percent delta per run)]."""
    painter.setRenderHint(QPainter.Antialiasing)
    head = _legend(
        painter,
        rect.left(),
        rect.top(),
        [(lab, style.RUN_COLOURS[i % len(style.RUN_COLOURS)]) for i, lab in enumerate(labels)],
        ctx,
    )
    rows = math.ceil(len(panels) / columns) or 1
    gap = ctx.mm(4)
    area = QRectF(rect.left(), rect.top() + head + ctx.mm(2), rect.width(), rect.height() - head - ctx.mm(2))
    pw = (area.width() - gap * (columns - 1)) / columns
    ph = (area.height() - gap * (rows - 1)) / rows
    for k, (title, unit, values, deltas) in enumerate(panels):
        r, c = divmod(k, columns)
        box = QRectF(area.left() + c * (pw + gap), area.top() + r * (ph + gap), pw, ph)
        painter.setPen(QPen(QColor(style.GRID), ctx.pt(0.5)))
        painter.setBrush(Qt.NoBrush)
        painter.drawRect(box)
        painter.setFont(_font(7.5, bold=True))
        fm = QFontMetricsF(painter.font(), painter.device())
        painter.setPen(QColor(style.TEXT))
        painter.drawText(
            QRectF(box.left() + ctx.mm(1.5), box.top() + ctx.mm(1), box.width() - ctx.mm(3), fm.height()),
            Qt.AlignLeft | Qt.AlignVCenter,
            f"{title} ({unit})" if unit else title,
        )
        finite = [v for v in values if v is not None and math.isfinite(v)]
        top = max([abs(v) for v in finite] + [1e-12])
        plot = QRectF(
            box.left() + ctx.mm(2),
            box.top() + fm.height() + ctx.mm(5),
            box.width() - ctx.mm(4),
            box.height() - fm.height() - ctx.mm(11),
        )
        n = max(len(values), 1)
        slot = plot.width() / n
        bw = min(slot * 0.6, ctx.mm(14))
        painter.setPen(QPen(QColor(style.MUTED), ctx.pt(0.6)))
        painter.drawLine(QPointF(plot.left(), plot.bottom()), QPointF(plot.right(), plot.bottom()))
        for i, v in enumerate(values):
            if v is None or not math.isfinite(v):
                continue
            h = plot.height() * max(v, 0.0) / top
            x = plot.left() + slot * (i + 0.5) - bw / 2
            painter.setPen(Qt.NoPen)
            painter.setBrush(QBrush(QColor(style.RUN_COLOURS[i % len(style.RUN_COLOURS)])))
            painter.drawRect(QRectF(x, plot.bottom() - h, bw, h))
            painter.setFont(_font(6.8))
            painter.setPen(QColor(style.TEXT))
            text = format_value(v)
            painter.drawText(
                QRectF(x - slot / 2, plot.bottom() - h - ctx.mm(4), bw + slot, ctx.mm(3.6)),
                Qt.AlignHCenter | Qt.AlignBottom,
                text,
            )
            d = deltas[i] if i < len(deltas) else None
            if i > 0 and d is not None and math.isfinite(d):
                painter.setPen(QColor(style.MUTED))
                painter.drawText(
                    QRectF(x - slot / 2, plot.bottom() + ctx.mm(0.6), bw + slot, ctx.mm(3.6)),
                    Qt.AlignHCenter | Qt.AlignTop,
                    f"{d:+.1f}%",
                )
