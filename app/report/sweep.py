"""The pages of a sweep report: a :class:`engine.report.sweep.SweepSection` as layout blocks.

Title block (project, date, engine and coefficient versions, the axes), the pick,
three line charts against the swept knob (throughput with the target rate,
APPLY_LATENCY, CPU busy of every LPAR with the 90% limit; one curve per value of a
second knob: :func:`engine.report.sweep_charts.sweep_charts`, drawn as the window's Sweep view
draws them by :mod:`app.report.line_charts`), a table of every point (pick rows highlighted, CPU over the limit
in red) and the base project's settings with the swept knobs marked.
:func:`app.report.compose.compose` puts these first when a report has a sweep.
Charts are vectors drawn with QPainter; text stays text (pdftotext extracts it).
"""

from __future__ import annotations

import html
import math

from PySide6.QtGui import QTextDocument

from app import style
from app.report.layout import BASE_PT, STYLE, Block, Context, Html, Table, report_font
from app.report.line_charts import chart_block, word_pct
from engine.metrics.catalog import format_setting, format_value
from engine.report.model import Report
from engine.report.sweep import SweepSection
from engine.report.sweep_charts import sweep_charts
from engine.studies.sweep_pick import CPU_LIMIT_PCT, REACH_FRACTION

#: Points table: font size (pt) and the CPU busy columns shown one by one up to this many (else the busiest).
TABLE_PT = 7.5
MAX_CPU_COLUMNS = 3


def esc(text) -> str:
    return html.escape(str(text))


def _unit_text(unit: str) -> str:
    return f" ({unit})" if unit else ""


# -- text blocks -----------------------------------------------------------------------------------
def title_block(report: Report) -> Html:
    s: SweepSection = report.sweep
    axes = "<br>".join(
        f"<b>{esc(a.label)}</b>{esc(_unit_text(a.unit))} = {esc(a.values_text)} "
        f"<span class='muted'>({len(a.values)} values"
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
    knob_w = round(max(18.0, word_pct(knob, BASE_PT, True)), 1)
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
    bottleneck_pct = max(word_pct(w, TABLE_PT, False) for w in bottleneck_words)

    def columns(cpu_cols):
        pairs = texts + [[f"{label} CPU", "% busy"] for _, label in cpu_cols]
        widths = [
            max(9.0, max(word_pct(w, head_pt, True) for t in pair for w in t.split())) for pair in pairs
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
    name_w = min(27.0, max([word_pct(r.setting.name, BASE_PT, True) for r in s.setting_rows] + [20.0]))
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
def chart_blocks(s: SweepSection) -> list[Block]:
    """The charts of sweep ``s`` against its first knob (:func:`engine.report.sweep_charts.sweep_charts`:
    throughput, latency and CPU busy, as the window's Sweep view draws them), with a heading."""
    charts = sweep_charts(s)
    if not charts:
        return [Html("<p>Every point failed: nothing to chart (the table below says why).</p>")]
    return [chart_heading(s), *(chart_block(c) for c in charts)]


def chart_heading(s: SweepSection) -> Html:
    """``Throughput, APPLY_LATENCY and CPU busy against NUM_APPLY_AGENTS`` and how the picks are marked."""
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
        if s.series != [()]
        else "<p class='muted small'>The pick marked by the green dashed line.</p>"
    )
    return Html(
        f"<h2>{esc(heading[0].upper() + heading[1:])} against {esc(s.axes[0].label)}</h2>" + note,
        keep_with_next=True,
        space_after_mm=1,
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


__all__ = ["PointsTable", "chart_blocks", "sweep_blocks"]
