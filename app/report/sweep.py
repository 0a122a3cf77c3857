"""The pages of a sweep report: a :class:`engine.report.sweep.SweepSection` as layout blocks.

Title block (project, date, engine and coefficient versions, the axes), the pick,
three line charts against the swept knob (throughput with the target rate,
APPLY_LATENCY, CPU busy of every LPAR with the 90% limit; one curve per value of a
second knob), a table of every point (pick rows highlighted, CPU over the limit
in red) and the base project's settings with the swept knobs marked.
:func:`app.report.compose.compose` puts these first when a report has a sweep.
Charts are vectors drawn with QPainter; text stays text (pdftotext extracts it).
"""

from __future__ import annotations

import functools
import html
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPainterPath, QPen, QTextDocument

from app import style
from app.report.charts import nice_ticks
from app.report.layout import BASE_PT, STYLE, Block, Context, Drawing, Html, Table, report_font
from engine.metrics.catalog import format_setting, format_value
from engine.report.model import Report
from engine.report.sweep import SweepSection
from engine.studies.sweep_pick import CPU_LIMIT_PCT, REACH_FRACTION

#: Height of one chart panel, mm.
PANEL_MM = 52.0
#: Point markers are drawn on curves with at most this many points.
MAX_MARKERS = 60
#: Points table: font size (pt) and the CPU busy columns shown one by one up to this many (else the busiest).
TABLE_PT = 7.5
MAX_CPU_COLUMNS = 3
#: Type size of chart legends, pt.
LEGEND_PT = 7.5
#: Type sizes of a chart panel's title and of its axes' ticks, labels and reference lines, pt.
TITLE_PT = 8.5
AXIS_PT = 7.5
#: The y axis turns logarithmic when its positive values span more than this ratio (highest / lowest).
LOG_Y_RATIO = 300
#: Width of the text on an A4 page with the report's margins, mm.
TEXT_WIDTH_MM = 178.0


def esc(text) -> str:
    return html.escape(str(text))


def _unit_text(unit: str) -> str:
    return f" ({unit})" if unit else ""


# -- text blocks -----------------------------------------------------------------------------------
def title_block(report: Report) -> Html:
    s: SweepSection = report.sweep
    axes = "<br>".join(
        f"<b>{esc(a.label)}</b>{esc(_unit_text(a.unit))} = {esc(a.values_text)} "
        f"<span class='muted'>({len(a.values)} values; {esc(a.name)}"
        f"{' on ' + esc(', '.join(a.nodes)) if a.nodes else ''})</span>"
        for a in s.axes
    )
    engines = ", ".join(s.engine_versions) or "not recorded"
    target = (
        f"{format_value(s.target_rate)} rows/s (OFFERED_ROWS_PER_S of the base project)"
        if s.target_rate
        else "none set: the pick aims at the best throughput of the sweep"
    )
    rows = [
        ("Project", esc(s.project_name)),
        ("Date", report.created.strftime("%Y-%m-%d %H:%M")),
        ("Engine", f"qrtune {esc(report.engine_version)}; points predicted by qrtune {esc(engines)}"),
        ("Coefficients", esc(", ".join(report.coefficient_versions) or "none reported")),
        (
            "Sweep",
            f"#{s.sweep_id} in {esc(s.store)}"
            + (f", started {s.started:%Y-%m-%d %H:%M} UTC" if s.started else "")
            + f"; {s.n_done} of {s.n_points} points recorded"
            + (f", {s.n_failed} failed" if s.n_failed else ""),
        ),
        ("Swept" if len(s.axes) == 1 else "Axes", axes),
        ("Target rate", esc(target)),
    ]
    if report.runs:
        rows.append(("Also reported", "<br>".join(esc(r.origin) for r in report.runs)))
    table = "".join(f'<tr><td width="17%" class="muted">{k}</td><td>{v}</td></tr>' for k, v in rows)
    return Html(
        f'<p class="muted small">qrtune - Q Replication Tuning Workbench sweep report</p><h1>{esc(report.title)}</h1>'
        f'<table width="100%" cellspacing="0" cellpadding="1.5" style="margin-top:4px">{table}</table>',
        space_after_mm=3.0,
    )


def pick_blocks(s: SweepSection) -> list[Block]:
    knob = s.axes[0].label
    rule = (
        f"The fewest {esc(knob)} whose throughput reaches {REACH_FRACTION:.0%} of "
        + ("the project's target rate" if s.target_rate else "the best throughput of the sweep")
        + f" with the CPU of every LPAR under {CPU_LIMIT_PCT:g}% busy (the rule of the workbench's Sweep view"
        + (", for each value of " + esc(" and ".join(a.label for a in s.axes[1:])) if len(s.axes) > 1 else "")
        + ")."
    )
    applicable = [(series, p) for series, p in s.picks if p is not None]
    if not applicable:
        return [
            Html(
                f"<h2>Pick</h2><p>No pick: {esc(knob)} takes values that are not numbers, or no point has a "
                "throughput.</p>"
            )
        ]
    if len(s.axes) == 1:
        p = applicable[0][1]
        colour = style.GOOD if p.point is not None else style.BOTTLENECK
        return [
            Html(
                f"<h2>Pick</h2><p style='font-size:10.5pt; color:{colour}'><b>{esc(p.describe(format_value))}"
                f"</b></p><p class='muted small'>{rule}</p>"
            )
        ]
    rows = []
    for series, p in applicable:
        cells = [
            esc(s.series_label(series)),
            f"<b>{esc(format_setting(p.value))}</b>" if p.point is not None else _no_pick_reason(p),
            format_value(p.point.metrics[p.rate_metric]) if p.point is not None else "-",
            format_value(p.goal),
            f"{p.busiest_cpu_pct:.1f}%" if p.busiest_cpu_pct is not None else "-",
        ]
        rows.append(
            "<tr>"
            + "".join(f"<td{' class=num' if i >= 2 else ''}>{c}</td>" for i, c in enumerate(cells))
            + "</tr>"
        )
    unit = next((p.unit for _, p in applicable if p.unit), "")
    knob_w = round(max(18.0, _word_pct(knob, BASE_PT, True)), 1)
    return [
        Html(f"<h2>Pick</h2><p class='muted small'>{rule}</p>", keep_with_next=True, space_after_mm=1),
        Table(
            [
                "Curve",
                f"Fewest<br>{esc(knob)}",
                f"Throughput<br>{esc(unit)}",
                f"Goal<br>{esc(unit)}",
                "Busiest<br>CPU",
            ],
            rows,
            [100 - 3 * 15 - knob_w, knob_w, 15, 15, 15],
            right={2, 3, 4},
        ),
    ]


def _no_pick_reason(p) -> str:
    if p.best < p.reach * p.goal:
        return f"none: the best is {format_value(p.best)}"
    return f"none: CPU {CPU_LIMIT_PCT:g}% or more"


class SmallHtml(Html):
    """HTML in :data:`TABLE_PT` type (a table of many rows)."""

    def doc(self, width: float, ctx: Context) -> QTextDocument:
        if self._doc is None or self._doc[0] != width:
            doc = QTextDocument()
            doc.documentLayout().setPaintDevice(ctx.device)
            doc.setDefaultFont(report_font(TABLE_PT))
            doc.setDefaultStyleSheet(STYLE)
            doc.setDocumentMargin(0)
            doc.setHtml(self.html)
            doc.setTextWidth(width)
            self._doc = (width, doc)
        return self._doc[1]


class PointsTable(Table):
    """The table of points: splits between rows from a measured row height, so a page costs about two
    text layouts and thousands of points stay fast (the base class searches by halving, laying out the
    whole rest of the table first)."""

    html_block = SmallHtml
    row_h: float | None = None  # device pixels per row at ``_row_width``, measured once and handed on
    _row_width: float | None = None

    def _row_height(self, width: float, ctx: Context) -> float:
        if self.row_h is None or self._row_width != width:
            probe = min(len(self.rows), 40)
            head = self._part(0, width, ctx).height(width, ctx)
            self.row_h = max((self._part(probe, width, ctx).height(width, ctx) - head) / max(probe, 1), 1.0)
            self._row_width = width
        return self.row_h

    def _piece(self, rows: list, continued: bool, width: float) -> PointsTable:
        t = PointsTable(self.headers, rows, self.widths, self.right, self.caption, continued)
        t.row_h, t._row_width = self.row_h, width
        return t

    def height(self, width: float, ctx: Context) -> float:
        n = len(self.rows)
        if n <= 80:
            return super().height(width, ctx)
        # a long table is split anyway: the header and the measured row height will do
        return self._part(0, width, ctx).height(width, ctx) + n * self._row_height(width, ctx)

    def split(self, width: float, avail: float, ctx: Context):
        n = len(self.rows)
        if n == 0:
            return super().split(width, avail, ctx)

        def fits(k: int) -> bool:
            return self._part(k, width, ctx).height(width, ctx) <= avail

        head = self._part(0, width, ctx).height(width, ctx)
        k = min(n, max(int((avail - head) / self._row_height(width, ctx)), 0))
        # from the estimate, bracket the largest k that fits by doubling steps, then halve (rows of uneven
        # height, a failed point's message, cost a few more layouts; even rows cost two)
        if fits(k):
            lo, step = k, 1
            while lo < n and fits(min(n, lo + step)):
                lo, step = min(n, lo + step), step * 2
            hi = min(n, lo + step) - 1 if lo < n else n
        else:
            bad, step = k, 1
            while True:
                cand = max(0, k - step)
                if cand == 0 or fits(cand):
                    lo = cand
                    break
                bad, step = cand, step * 2
            hi = bad - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fits(mid):
                lo = mid
            else:
                hi = mid - 1
        k = lo
        if k >= n:
            return self, None
        if k < 3:  # a header with one or two rows looks orphaned: move the table on
            return None, self
        first = self._piece(self.rows[:k], self.continued, width)
        first._cache[(width, k)] = self._cache[(width, k)]  # laid out already: drawn as measured
        return first, self._piece(self.rows[k:], True, width)


def points_table(s: SweepSection) -> Table:
    """The table of every point: the swept values, throughput, latencies, CPU busy and the bottleneck."""
    head_pt = TABLE_PT - 0.7
    pairs, widths, cpu_cols = _points_columns(s, head_pt)
    headers = ["<br>".join(esc(t) for t in pair if t) for pair in pairs] + ["Bottleneck"]
    right = set(range(len(headers) - 1))
    picked = s.picked_indexes
    rows = []
    for p in s.points:
        cells = [esc(format_setting(v)) for v in p.values] + _point_cells(
            s, p, cpu_cols, len(headers) - len(s.axes) - 1, picked
        )
        bg = f' bgcolor="{style.PICKED_BACKGROUND}"' if p.index in picked else ""
        rows.append(
            f"<tr{bg}>"
            + "".join(f"<td{' class=num' if i in right else ''}>{c}</td>" for i, c in enumerate(cells))
            + "</tr>"
        )
    headers = [f'<span style="font-size:{head_pt}pt">{h}</span>' for h in headers]
    caption = (
        f"Every point ({s.n_done} of {s.n_points}; CPU busy at or over {CPU_LIMIT_PCT:g}% in red, "
        "the pick highlighted)"
    )
    more = f"qrtune export --sweep {s.sweep_id} --out FILE writes every point"
    return PointsTable(headers, rows, widths, right=right, caption=caption, more=more)


#: The one CPU column of a points table too narrow for a column per LPAR: the busiest LPAR's.
BUSIEST_CPU_COLUMN = ("", "busiest LPAR")


def _points_columns(s: SweepSection, head_pt: float) -> tuple:
    """The points table's column titles (pairs of name and unit), widths (% of the page) and CPU columns.

    Every column is as wide as its longest word (IBM names do not wrap) and the bottleneck takes
    the rest. Each LPAR's CPU busy has a column when they fit the page, else one column holds
    the busiest LPAR's (as the two-knob chart); a CPU column is ``(metric, label)``, metric ""
    for the busiest (:data:`BUSIEST_CPU_COLUMN`).
    """
    texts = [[a.label, a.unit] for a in s.axes]
    if s.rate_metric:
        texts.append(
            [f"{s.labels.get(s.rate_metric, s.rate_metric)} throughput", s.units.get(s.rate_metric, "")]
        )
    texts += [[s.labels.get(m, m), "ms"] for m in s.latency_metrics]
    bottleneck_words = {w for p in s.points for w in (p.bottleneck or "").split()} | {"Bottleneck"}
    bottleneck_pct = max(_word_pct(w, TABLE_PT, False) for w in bottleneck_words)

    def columns(cpu_cols):
        pairs = texts + [[f"{label} CPU", "% busy"] for _, label in cpu_cols]
        widths = [
            max(9.0, max(_word_pct(w, head_pt, True) for t in pair for w in t.split())) for pair in pairs
        ]
        return pairs, widths + [bottleneck_pct]

    cpu_cols = [(m, s.labels.get(m, m).replace(" busy", "")) for m in s.cpu_metrics]
    pairs, widths = columns(cpu_cols)
    if len(cpu_cols) > MAX_CPU_COLUMNS or sum(widths) > 100.0:
        cpu_cols = [BUSIEST_CPU_COLUMN]
        pairs, widths = columns(cpu_cols)
    total_pct = sum(widths)
    widths[-1] += max(0.0, 100.0 - total_pct)
    return pairs, [round(w * min(1.0, 100.0 / total_pct), 1) for w in widths], cpu_cols


def _point_cells(s: SweepSection, p, cpu_cols: list, n_metric_cells: int, picked: set) -> list:
    """The cells of point ``p`` after its swept values: its figures and bottleneck, or why it failed."""
    if p.error:
        return ["-"] * n_metric_cells + [
            f"<span style='color:{style.BOTTLENECK}'>failed: {esc(p.error)}</span>"
        ]
    cells = [_num(p.metrics.get(s.rate_metric))] if s.rate_metric else []
    cells += [_num(p.metrics.get(m)) for m in s.latency_metrics]
    cpu_values = (
        [s.busiest_cpu(p)] if cpu_cols == [BUSIEST_CPU_COLUMN] else [p.metrics.get(m) for m, _ in cpu_cols]
    )
    cells += [_cpu(v) for v in cpu_values]
    pick = f" <b style='color:{style.GOOD}'>PICK</b>" if p.index in picked else ""
    return cells + [esc(p.bottleneck or "") + pick]


@functools.lru_cache(maxsize=512)
def _word_pct(word: str, pt: float, bold: bool) -> float:
    """Width of ``word`` at ``pt`` points in percent of the page's text width (with the cell's padding)."""
    from PySide6.QtGui import QImage

    image = QImage(1, 1, QImage.Format_RGB32)
    image.setDotsPerMeterX(round(300 / 0.0254))
    image.setDotsPerMeterY(round(300 / 0.0254))
    width_mm = QFontMetricsF(report_font(pt, bold), image).horizontalAdvance(word) * 25.4 / 300
    return 100.0 * (width_mm + 2.4) / TEXT_WIDTH_MM


def _num(v) -> str:
    return format_value(float(v)) if isinstance(v, (int, float)) and math.isfinite(v) else "-"


def _cpu(v) -> str:
    if not isinstance(v, (int, float)) or not math.isfinite(v):
        return "-"
    text = f"{v:.1f}"
    return f"<span style='color:{style.BOTTLENECK}'><b>{text}</b></span>" if v >= CPU_LIMIT_PCT else text


def settings_table(s: SweepSection) -> Table:
    rows = []
    for r in s.setting_rows:
        row = r.setting
        mark = "swept" if r.swept else ("changed" if row.changed else "")
        cls = (
            f' bgcolor="{style.PICKED_BACKGROUND}"'
            if r.swept
            else (' class="changed"' if row.changed else "")
        )
        cells = [
            esc(row.node),
            f"<b>{esc(row.name)}</b>" if (row.changed or r.swept) else esc(row.name),
            esc(row.value),
            f"<b>{esc(r.swept)}</b>" if r.swept else "",
            esc(row.unit),
            esc(row.default),
            f'<span style="color:{style.CHANGED_MARK}"><b>{mark}</b></span>' if mark else "",
        ]
        rows.append(f"<tr{cls}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    n_changed = sum(1 for r in s.setting_rows if r.setting.changed)
    n_swept = sum(1 for r in s.setting_rows if r.swept)
    caption = (
        f"Base project settings ({len(s.setting_rows)} knobs: {n_swept} swept, {n_changed} changed from the "
        "product defaults)"
    )
    name_w = min(27.0, max([_word_pct(r.setting.name, BASE_PT, True) for r in s.setting_rows] + [20.0]))
    rest = [15, 15, 9, 10, 15, 10]  # node, base value, swept over, unit, default, mark
    scale = (100.0 - name_w) / sum(rest)
    widths = [round(w * scale, 1) for w in rest]
    return Table(
        ["Node", "Parameter", "Base value", "Swept over", "Unit", "Default", "Mark"],
        rows,
        [widths[0], round(name_w, 1), *widths[1:]],
        caption=caption,
    )


# -- charts ----------------------------------------------------------------------------------------
@dataclass
class XScale:
    """The swept knob's axis: numbers (linear or log) or categories (booleans, choices)."""

    values: list
    label: str
    numeric: bool
    log: bool = False

    @classmethod
    def of(cls, values: Sequence, label: str) -> XScale:
        vals = list(dict.fromkeys(values))
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals)
        log = False
        if numeric and len(vals) >= 3 and min(vals) > 0:
            ordered = sorted(vals)
            ratios = sorted(b / a for a, b in itertools.pairwise(ordered))
            log = ratios[len(ratios) // 2] >= 1.5 and ordered[-1] / ordered[0] >= 20
        return cls(vals, label, numeric, log)

    def position(self, value) -> float:
        if not self.numeric:
            return float(self.values.index(value))
        return math.log10(value) if self.log else float(value)

    def span(self) -> tuple[float, float]:
        if not self.numeric:
            return -0.5, len(self.values) - 0.5
        lo, hi = min(self.position(v) for v in self.values), max(self.position(v) for v in self.values)
        if hi == lo:
            return lo - 1, hi + 1
        pad = (hi - lo) * 0.03
        return lo - pad, hi + pad

    def ticks(self) -> list[tuple[float, str]]:
        """(position, text) of the tick labels."""
        if not self.numeric:
            return [(float(i), format_setting(v)) for i, v in enumerate(self.values)]
        vals = sorted(self.values)
        if self.log:
            if len(vals) <= 12:
                return [(math.log10(v), format_setting(v)) for v in vals]
            lo, hi = math.floor(math.log10(vals[0])), math.ceil(math.log10(vals[-1]))
            return [(float(e), _tick(10.0**e)) for e in range(lo, hi + 1) if vals[0] <= 10.0**e <= vals[-1]]
        if len(vals) <= 17 and all(float(v).is_integer() for v in vals):
            return [(float(v), format_setting(v)) for v in vals]
        lo, hi = vals[0], vals[-1]
        step_ticks = nice_ticks(hi - lo, 6) if hi > lo else [0.0]
        step = step_ticks[1] if len(step_ticks) > 1 else 1.0
        start = math.ceil(lo / step) * step
        out, t = [], start
        while t <= hi + 1e-9 * abs(hi):
            out.append((t, _tick(t)))
            t += step
        if not out or out[0][0] - lo > 0.08 * (hi - lo):  # the first value too (1 on a 1 .. 2048 axis)
            out.insert(0, (float(lo), format_setting(vals[0])))
        return out


def _tick(v: float) -> str:
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e6:
        return f"{v / 1e6:g}M"
    if a >= 1e4:
        return f"{v / 1e3:g}k"
    if a >= 10:
        return f"{v:,.0f}"
    return f"{v:g}"


@dataclass
class Curve:
    """One line: label, colour, points (x value, y), dashed."""

    label: str
    colour: str
    xy: list
    dashed: bool = False


def _y_ticks(top: float, log: bool, bottom: float) -> list[float]:
    if log:
        lo, hi = math.floor(math.log10(bottom)), math.ceil(math.log10(top))
        return [10.0**e for e in range(lo, hi + 1)]
    return nice_ticks(top, 5)


@dataclass
class _Plot:
    """Where a panel's plot area is and how values map onto it (device pixels)."""

    area: QRectF
    x: XScale
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
        """Device x of a knob value."""
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


def draw_panel(
    painter: QPainter,
    rect: QRectF,
    ctx: Context,
    title: str,
    x: XScale,
    curves: Sequence[Curve],
    y_unit: str,
    hlines: Sequence[tuple[float, str, str]] = (),
    vline: tuple | None = None,
    marks: Sequence[tuple] = (),
    y_top_min: float = 0.0,
    legend: bool = True,
    legend_title: str = "",
) -> None:
    """A line chart: ``curves`` against the knob ``x``.

    Parameters
    ----------
    title : str
        Printed above the plot (metric and unit).
    y_unit : str
        Unit of the y axis, written at the top of the y ticks.
    hlines : [(y, label, colour)]
        Dashed horizontal lines (the 90% CPU limit, the target rate).
    vline : (x value, label) or None
        A dashed vertical line (the pick).
    marks : [(x value, y, colour)]
        Ringed points (the pick on each curve).
    y_top_min : float
        The y axis reaches at least this (100 for CPU busy %).
    legend, legend_title : bool, str
        Draw the colour keys of the curves (after ``legend_title``).
    """
    painter.setRenderHint(QPainter.Antialiasing)
    y0 = _draw_heading(painter, rect, ctx, title, curves if legend else (), legend_title)
    painter.setFont(report_font(AXIS_PT))
    fm = QFontMetricsF(painter.font(), painter.device())
    ticks, log_y = _y_scale(curves, hlines, y_top_min)
    tick_texts = [_tick(t) for t in ticks]
    unit_w = fm.height() + ctx.mm(1) if y_unit else 0.0  # the unit, written up the y axis
    y_label_w = unit_w + max(fm.horizontalAdvance(t) for t in tick_texts) + ctx.mm(1.5)
    plot = _Plot(
        QRectF(
            rect.left() + y_label_w,
            y0 + fm.height() * 0.6,
            rect.width() - y_label_w - ctx.mm(2),
            rect.bottom() - y0 - fm.height() * 0.6 - 2.4 * fm.height() - ctx.mm(1.5),
        ),
        x,
        ticks,
        log_y,
    )
    _draw_y_axis(painter, plot, QRectF(rect.left(), 0, y_label_w - ctx.mm(1), 0), ctx, fm, tick_texts, y_unit)
    _draw_x_axis(painter, plot, ctx, fm)
    painter.save()
    painter.setClipRect(plot.area.adjusted(-ctx.mm(1.5), -ctx.mm(1.5), ctx.mm(1.5), ctx.mm(0.5)))
    _draw_reference_lines(painter, plot, ctx, fm, hlines, vline, marks)
    for c in curves:
        _draw_curve(painter, plot, ctx, c)
    painter.setPen(QPen(QColor(style.GOOD), ctx.pt(1.4)))
    painter.setBrush(Qt.NoBrush)
    for v, y, _ in marks:
        if y is not None and math.isfinite(y):
            painter.drawEllipse(QPointF(plot.px(v), plot.py(y)), ctx.mm(1.3), ctx.mm(1.3))
    painter.restore()


def _draw_heading(
    painter: QPainter, rect: QRectF, ctx: Context, title: str, curves: Sequence[Curve], legend_title: str
) -> float:
    """The panel's title and the colour keys of ``curves``; returns the device y below them."""
    painter.setFont(report_font(TITLE_PT, bold=True))
    fm_title = QFontMetricsF(painter.font(), painter.device())
    painter.setPen(QColor(style.TEXT))
    painter.drawText(QPointF(rect.left(), rect.top() + fm_title.ascent()), title)
    y0 = rect.top() + fm_title.height() + ctx.mm(1)
    if curves:
        y0 += legend_rows(
            painter,
            QRectF(rect.left() + ctx.mm(1), y0, rect.width() - ctx.mm(2), 0),
            [(c.label, c.colour) for c in curves],
            ctx,
            legend_title,
        )
        y0 += ctx.mm(1)
    return y0


def _y_scale(curves: Sequence[Curve], hlines: Sequence[tuple], y_top_min: float) -> tuple[list[float], bool]:
    """The y ticks and whether the axis is logarithmic (positive values spanning more than 300x)."""
    ys = [y for c in curves for _, y in c.xy if y is not None and math.isfinite(y)]
    ys += [h[0] for h in hlines]
    positive = [y for y in ys if y > 0]
    log_y = bool(positive) and min(ys) > 0 and max(positive) / min(positive) > LOG_Y_RATIO
    top = max(ys + [0.0]) or 1.0
    top = y_top_min if y_top_min >= top else top * (1.0 if log_y else 1.04)  # headroom over the highest point
    return _y_ticks(top, log_y, min(positive) if positive else 1.0), log_y


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
    """Grid lines and tick labels of the knob (overlapping labels left out), its name, both axis lines."""
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
    label = plot.x.label + (" (log scale)" if plot.x.log else "")
    painter.drawText(
        QRectF(area.left(), area.bottom() + fm.height() + ctx.mm(1), area.width(), fm.height() * 1.3),
        Qt.AlignHCenter | Qt.AlignVCenter,
        label,
    )
    painter.setPen(QPen(QColor(style.MUTED), ctx.pt(0.7)))
    painter.drawLine(QPointF(area.left(), area.bottom()), QPointF(area.right(), area.bottom()))
    painter.drawLine(QPointF(area.left(), area.top()), QPointF(area.left(), area.bottom()))


def _draw_reference_lines(
    painter: QPainter,
    plot: _Plot,
    ctx: Context,
    fm: QFontMetricsF,
    hlines: Sequence[tuple[float, str, str]],
    vline: tuple | None,
    marks: Sequence[tuple] = (),
) -> None:
    """Dashed horizontal lines with their labels above them; the dashed pick line with its label,
    at the foot of the plot unless a marked point on the line sits there (then at its top)."""
    area = plot.area
    for value, text, colour in hlines:
        y = plot.py(value)
        painter.setPen(QPen(QColor(colour), ctx.pt(1.0), Qt.DashLine))
        painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
        painter.setFont(report_font(AXIS_PT, bold=True))
        painter.setPen(QColor(colour))
        painter.drawText(
            QRectF(
                area.left() + ctx.mm(1), y - fm.height() - ctx.mm(0.3), area.width() - ctx.mm(2), fm.height()
            ),
            Qt.AlignLeft | Qt.AlignBottom,
            text,
        )
    if vline is None:
        return
    xx = plot.px(vline[0])
    painter.setPen(QPen(QColor(style.GOOD), ctx.pt(1.0), Qt.DashLine))
    painter.drawLine(QPointF(xx, area.top()), QPointF(xx, area.bottom()))
    if vline[1]:
        painter.setFont(report_font(AXIS_PT, bold=True))
        painter.setPen(QColor(style.GOOD))
        w = QFontMetricsF(painter.font(), painter.device()).horizontalAdvance(vline[1])
        left = xx + ctx.mm(1) if xx + ctx.mm(1) + w < area.right() else xx - ctx.mm(1) - w
        foot = area.bottom() - area.height() / 3.0
        mark_low = any(v == vline[0] and plot.py(y) > foot for v, y, _ in marks)
        baseline = area.top() + fm.ascent() + ctx.mm(1.2) if mark_low else area.bottom() - ctx.mm(1.2)
        painter.drawText(QPointF(left, baseline), vline[1])


def _draw_curve(painter: QPainter, plot: _Plot, ctx: Context, c: Curve) -> None:
    """One curve: a gap where a value is missing (segments only between consecutive drawable points),
    and a dot on each point when there are few."""
    pen = QPen(QColor(c.colour), ctx.pt(1.4), Qt.DashLine if c.dashed else Qt.SolidLine)
    pen.setJoinStyle(Qt.RoundJoin)
    painter.setPen(pen)
    painter.setBrush(Qt.NoBrush)
    path = QPainterPath()
    started = False
    for v, y in c.xy:
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
    if len(c.xy) <= MAX_MARKERS:
        painter.setPen(Qt.NoPen)
        painter.setBrush(QColor(c.colour))
        r = ctx.mm(0.55)
        for v, y in c.xy:
            if plot.finite(y):
                painter.drawEllipse(QPointF(plot.px(v), plot.py(y)), r, r)


def _colour(i: int, n: int = 1) -> str:
    """Colour of curve ``i`` of ``n``: the report's run colours, or for more curves than those a
    sequential palette (neighbouring values of the second knob get neighbouring colours)."""
    if n <= len(style.RUN_COLOURS):
        return style.RUN_COLOURS[i % len(style.RUN_COLOURS)]
    f = i / (n - 1) * (len(style.SEQUENTIAL) - 1)
    k = min(int(f), len(style.SEQUENTIAL) - 2)
    a, b, t = QColor(style.SEQUENTIAL[k]), QColor(style.SEQUENTIAL[k + 1]), f - k
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    ).name()


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


def chart_blocks(s: SweepSection) -> list[Block]:
    """The charts of sweep ``s`` against its first knob: throughput, latency and CPU busy, with a heading."""
    if not s.ok_points:
        return [Html("<p>Every point failed: nothing to chart (the table below says why).</p>")]
    charts = _SweepCharts(s)
    blocks = [charts.heading()]
    if s.rate_metric:
        blocks.append(charts.rate_panel())
    if s.latency_metric:
        blocks.append(charts.latency_panel())
    if s.cpu_metrics:
        blocks.append(charts.cpu_panel())
    return blocks


class _SweepCharts:
    """What the chart panels of one sweep share: the x scale, the curves (one per value of the other
    knobs), the legend and the picks."""

    def __init__(self, s: SweepSection):
        self.s, self.ok = s, s.ok_points
        axis0 = s.axes[0]
        self.x = XScale.of([p.value for p in s.points], f"{axis0.label}{_unit_text(axis0.unit)}")
        self.series = s.series
        self.two = self.series != [()]
        self.picks = {ser: p for ser, p in s.picks if p is not None and p.point is not None}
        # many curves of one second knob: its name once, then its values (TRANS_BATCH_SZ: 1 2 3 ...)
        self.compact = self.two and len(self.series) > 8 and len(s.axes) == 2
        self.legend_title = f"{s.axes[1].label}{_unit_text(s.axes[1].unit)}:" if self.compact else ""
        pick = self.picks.get(()) if not self.two else None
        self.vline = (pick.point.value, f"pick: {format_setting(pick.point.value)}") if pick else None
        self.series_mm = self.panel_mm([self.label_of(ser) for ser in self.series]) if self.two else PANEL_MM

    def label_of(self, ser: tuple) -> str:
        return format_setting(ser[0]) if self.compact else self.s.series_label(ser)

    def per_series(self, metric_of) -> list[Curve]:
        """One curve of ``metric_of(point)`` per value of the other knobs."""
        out = []
        for i, ser in enumerate(self.series):
            pts = [(p.value, metric_of(p)) for p in self.ok if p.series == ser]
            out.append(Curve(self.label_of(ser), _colour(i, len(self.series)), pts))
        return out

    def curves_of(self, m: str, colour: str) -> list[Curve]:
        """Metric ``m``: one curve per value of the other knobs, or one curve in ``colour``."""
        if self.two:
            return self.per_series(lambda p: p.metrics.get(m))
        return [Curve(self.s.labels.get(m, m), colour, [(p.value, p.metrics.get(m)) for p in self.ok])]

    def panel_mm(self, labels: Sequence[str]) -> float:
        """Taller panels for legends of several rows (the plot keeps its height), mm."""
        width_pct = sum(_word_pct(lab, LEGEND_PT, False) + 3.5 for lab in labels)
        width_pct += _word_pct(self.legend_title, LEGEND_PT, False) if self.legend_title else 0.0
        return PANEL_MM + 3.6 * max(math.ceil(width_pct / 97.0) - 1, 0)

    def pick_marks(self, metric_of) -> list[tuple]:
        return [(p.point.value, metric_of(p.point), "") for p in self.picks.values()]

    def panel(
        self, height_mm: float, title: str, curves: list, unit: str, hlines, marks, **options
    ) -> Drawing:
        """A drawn chart panel (:func:`draw_panel`) ``height_mm`` high."""
        x, vline, legend_title = self.x, self.vline, self.legend_title
        return Drawing(
            height_mm,
            lambda p, r, c: draw_panel(
                p, r, c, title, x, curves, unit, hlines, vline, marks, legend_title=legend_title, **options
            ),
        )

    def heading(self) -> Html:
        s = self.s
        parts = [
            part
            for part in (
                "throughput",
                s.latency_metric and s.labels.get(s.latency_metric),
                s.cpu_metrics and "CPU busy",
            )
            if part
        ]
        heading = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
        note = (
            f"<p class='muted small'>One curve per value of {esc(' and '.join(a.label for a in s.axes[1:]))}"
            "; the pick of each curve ringed in green.</p>"
            if self.two
            else "<p class='muted small'>The pick marked by the green dashed line.</p>"
        )
        return Html(
            f"<h2>{esc(heading[0].upper() + heading[1:])} against {esc(s.axes[0].label)}</h2>" + note,
            keep_with_next=True,
            space_after_mm=1,
        )

    def rate_panel(self) -> Drawing:
        s, m = self.s, self.s.rate_metric
        unit = s.units.get(m, "")
        hlines = (
            [(s.target_rate, f"target {format_value(s.target_rate)} {unit}", style.TARGET_LINE)]
            if s.target_rate
            else []
        )
        title = f"Throughput: {s.labels.get(m, m)}{_unit_text(unit)}"
        marks = self.pick_marks(lambda q: q.metrics.get(m))
        return self.panel(
            self.series_mm, title, self.curves_of(m, _colour(0)), unit, hlines, marks, legend=self.two
        )

    def latency_panel(self) -> Drawing:
        s, m = self.s, self.s.latency_metric
        title = f"{s.labels.get(m, m)} (ms) {s.rate_note}"
        if any(m not in p.metrics for p in self.ok):
            title += "   (none where throughput falls short of the offered rate: the backlog grows)"
        marks = self.pick_marks(lambda q: q.metrics.get(m))
        return self.panel(
            self.series_mm, title, self.curves_of(m, style.APPLY), "ms", (), marks, legend=self.two
        )

    def cpu_panel(self) -> Drawing:
        s = self.s
        limit = [(CPU_LIMIT_PCT, f"{CPU_LIMIT_PCT:g}% limit", style.BOTTLENECK)]
        if self.two:
            curves, title = self.per_series(s.busiest_cpu), "CPU busy of the busiest LPAR (%)"
        else:
            curves = [
                Curve(s.labels.get(m, m), _colour(i), [(p.value, p.metrics.get(m)) for p in self.ok])
                for i, m in enumerate(s.cpu_metrics)
            ]
            title = "CPU busy (%)"
        marks = self.pick_marks(s.busiest_cpu)
        return self.panel(
            self.panel_mm([c.label for c in curves]), title, curves, "% busy", limit, marks, y_top_min=100.0
        )


def sweep_blocks(report: Report) -> list[Block]:
    """Every block of the sweep part of ``report`` (the title block first)."""
    s: SweepSection = report.sweep
    blocks: list[Block] = [title_block(report)]
    blocks += pick_blocks(s)
    blocks += chart_blocks(s)
    blocks.append(points_table(s))
    if s.setting_rows:
        blocks.append(settings_table(s))
    return blocks


__all__ = ["PointsTable", "XScale", "chart_blocks", "draw_panel", "sweep_blocks"]
