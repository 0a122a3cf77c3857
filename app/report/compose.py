"""A :class:`engine.report.Report` as a list of layout blocks (title block, sections, tables, charts)."""

from __future__ import annotations

import html
import math

from app.comparison import setting_name
from app.report import charts
from app.report.diagram import draw_topology
from app.report.layout import Block, Drawing, Html, PageBreak, Table
from app.report.line_charts import chart_block
from app.report.sql_comparison import run_sql_comparison_blocks
from app.report.systems import comparison_systems_blocks, run_systems_blocks
from engine.compare import mixed_engines_note
from engine.metrics.bands import band_label
from engine.metrics.stages import stage_label
from engine.report import Report, ReportRun, describe, format_delta, format_setting, format_value
from engine.report.build import short_limit
from engine.report.charts import latency_breakdown, stage_utilisation
from engine.report.sim_charts import BUFFER_POOL_METRIC, simulation_charts

#: Metrics shown as small-multiple charts in a comparison, when the runs have them.
COMPARE_PANELS = (
    "apply_rows_per_s",
    "capture_rows_per_s",
    "throughput",
    "transfer_mb_per_s",
    "end2end_latency_ms",
    "response_time_ms",
    "apply_latency_ms",
    "total_cpu_us_per_row",
    "apply_cpu_us_per_row",
    "apply_lpar_busy_pct",
    "source_cpu_pct",
    "target_cpu_pct",
    "msg_size_kb",
    "peak_depth",
    "elapsed_s",
)

KIND_NAMES = {
    "qrep": "Q Replication",
    "db2mirror": "Db2 Mirror",
    "mq-mover": "MQ buffer pool and channel",
    "db2-v8-storage": "DB2 V8 storage",
}


def esc(text) -> str:
    return html.escape(str(text))


def _row(cells: list[str], cls: str = "", right: set | frozenset = frozenset()) -> str:
    tds = "".join(f"<td{' class=num' if i in right else ''}>{c}</td>" for i, c in enumerate(cells))
    return f'<tr class="{cls}">{tds}</tr>' if cls else f"<tr>{tds}</tr>"


def title_block(report: Report) -> Html:
    runs = report.runs
    projects = ", ".join(dict.fromkeys(esc(r.title) for r in runs))
    kinds = ", ".join(dict.fromkeys(KIND_NAMES.get(r.scenario_kind, r.scenario_kind) for r in runs))
    rows = [
        ("Project" + ("s" if len({r.title for r in runs}) > 1 else ""), projects),
        ("Date", report.created.strftime("%Y-%m-%d %H:%M")),
        ("Engine", f"qrtune {esc(report.engine_version)} ({esc(kinds)} steady-state model)"),
        ("Coefficients", esc(", ".join(report.coefficient_versions) or "none reported")),
        (
            "Runs",
            "<br>".join(
                f"{chr(65 + i) if len(runs) > 1 else ''}{': ' if len(runs) > 1 else ''}"
                f"{esc(r.origin)}" + (f", {r.started:%Y-%m-%d %H:%M} UTC" if r.started else "")
                for i, r in enumerate(runs)
            ),
        ),
    ]
    table = "".join(f'<tr><td width="17%" class="muted">{k}</td><td>{v}</td></tr>' for k, v in rows)
    return Html(
        f'<p class="muted small">qrtune - Q Replication Tuning Workbench report</p><h1>{esc(report.title)}</h1>'
        f'<table width="100%" cellspacing="0" cellpadding="1.5" style="margin-top:4px">{table}</table>',
        space_after_mm=3.0,
    )


def summary_block(report: Report) -> Html:
    """Headline numbers of every run in one small table."""
    rows = []
    for r in report.runs:
        tput = next(
            (
                (m, r.metrics[m])
                for m in ("apply_rows_per_s", "throughput", "transfer_mb_per_s", "tps")
                if m in r.metrics and math.isfinite(r.metrics[m])
            ),
            None,
        )
        lat = next(
            (
                (m, r.metrics[m])
                for m in ("end2end_latency_ms", "response_time_ms")
                if m in r.metrics and math.isfinite(r.metrics[m])
            ),
            None,
        )
        rows.append(
            _row(
                [
                    esc(r.label),
                    f"{format_value(tput[1])} {esc(r.units.get(tput[0], ''))}" if tput else "-",
                    (
                        ("END2END_LATENCY " if lat[0] == "end2end_latency_ms" else "response ")
                        + f"{format_value(lat[1])} ms"
                    )
                    if lat
                    else "-",
                    f"<b>{esc(r.bottleneck)}</b>" if r.bottleneck else esc(short_limit(r)),
                    str(len(r.changed_settings)),
                ]
            )
        )
    t = Table(
        ["Run", "Throughput", "Latency", "Bottleneck", "Settings changed"],
        rows,
        [24, 17, 31, 17, 11],
        caption="Summary",
    )
    return t


def results_table(run: ReportRun) -> Table:
    rows = []
    for group in run.groups:
        if len(run.groups) > 1:  # one group needs no heading under the table's own caption
            rows.append(f'<tr class="group"><td colspan="4">{esc(group.heading)}</td></tr>')
        for m in group.rows:
            band = f"{format_value(m.band[0])} .. {format_value(m.band[1])}" if m.band else ""
            label = f"<b>{esc(m.label)}</b>" if m.label.isupper() else esc(m.label)
            rows.append(_row([label, format_value(m.value), esc(m.unit), band], right={1, 3}))
    return Table(
        ["Result", "Value", "Unit", band_label()], rows, [46, 18, 14, 22], right={1, 3}, caption="Results"
    )


def stage_table(run: ReportRun) -> Table:
    rows = []
    for s in run.stages:
        marked = run.is_bottleneck(s)
        rows.append(
            _row(
                [
                    ("<b>" + esc(stage_label(s.name)) + "</b>") if marked else esc(stage_label(s.name)),
                    format_value(s.capacity),
                    esc(s.unit),
                    f"{s.utilisation * 100:.1f}%",
                    format_value(s.latency_ms),
                    "BOTTLENECK" if marked else "",
                ],
                cls="bott" if marked else "",
                right={1, 3, 4},
            )
        )
    return Table(
        ["Stage", "Capacity", "Unit", "Utilisation", "Latency ms", ""],
        rows,
        [28, 16, 14, 14, 14, 14],
        right={1, 3, 4},
        caption="Stages",
    )


def ignored_table(run: ReportRun) -> Table:
    """The knobs that cannot change this run's prediction, by node, with the engine's reason."""
    rows, previous = [], None
    for node, why, names in run.ignored:  # each node named on its first row
        rows.append(_row([esc(node) if node != previous else "", esc(", ".join(names)), esc(why)]))
        previous = node
    return Table(
        ["Node", "Knobs", "Why they have no effect here"],
        rows,
        [22, 30, 48],
        caption="Knobs with no effect on this prediction",
    )


def settings_table(run: ReportRun, changed_only: bool) -> Table:
    rows = []
    for s in run.setting_rows:
        if changed_only and not s.changed:
            continue
        rows.append(
            _row(
                [
                    esc(s.node),
                    f"<b>{esc(s.name)}</b>" if s.changed else esc(s.name),
                    esc(s.value),
                    esc(s.unit),
                    esc(s.default),
                    "changed" if s.changed else "",
                ],
                cls="changed" if s.changed else "",
            )
        )
    n = len(run.changed_settings)
    caption = (
        f"Settings changed from the product defaults ({n})"
        if changed_only
        else f"Settings ({len(run.setting_rows)} knobs, {n} changed from the product defaults)"
    )
    table = Table(
        ["Node", "Parameter", "Value", "Unit", "Default", "Changed"],
        rows,
        [15, 27, 19, 15, 14, 10],
        caption=caption,
    )
    for i in range(len(table.rows)):  # the mark column in its colour
        table.rows[i] = table.rows[i].replace("<td>changed</td>", '<td class="mark">changed</td>')
    return table


def run_blocks(run: ReportRun, index: int, n_runs: int) -> list[Block]:
    prefix = f"{chr(65 + index)}. " if n_runs > 1 else ""
    kind = KIND_NAMES.get(run.scenario_kind, run.scenario_kind)
    heading = f"{prefix}{esc(run.title)}" if n_runs > 1 else "Prediction"
    out: list[Block] = [
        Html(
            f"<h2>{heading}</h2><p class='muted'>{esc(kind)}; {esc(run.origin)}; "
            f"coefficients {esc(run.coefficients_version or 'n/a')}; bottleneck "
            f"<b>{esc(run.limit_text or short_limit(run))}</b></p>",
            keep_with_next=True,
        )
    ]
    if run.project is not None and run.project.nodes:
        out.append(
            Html(
                "<h3>Topology</h3><p class='muted small'>Nodes coloured by the utilisation of their stages; "
                "the bottleneck framed in red.</p>",
                keep_with_next=True,
                space_after_mm=1,
            )
        )
        rows = 1 + (max(n.y for n in run.project.nodes) - min(n.y for n in run.project.nodes)) / 110
        out.append(
            Drawing(
                min(24 + 24 * (rows - 1), 95),
                lambda p, rect, ctx, r=run: draw_topology(p, rect, ctx, r.project, r),
            )
        )
    out.append(results_table(run))
    out += run_systems_blocks(run)
    out += run_sql_comparison_blocks(run)
    if run.latency_breakdown():
        out.append(Html("<h3>Latency breakdown</h3>", keep_with_next=True, space_after_mm=1))
        latency = latency_breakdown(["predicted"], [run.metrics])
        out.append(Drawing(24, lambda p, rect, ctx, c=latency: charts.draw_bars(p, rect, ctx, c)))
    out += simulation_blocks(run)
    if run.stages:
        out.append(Html("<h3>Stage utilisation</h3>", keep_with_next=True, space_after_mm=1))
        names = [s.name for s in run.stages]
        utilisation = stage_utilisation(
            names, [("", {s.name: s.utilisation for s in run.stages}, run.bottleneck)]
        )
        out.append(
            Drawing(
                12 + 5.2 * len(names), lambda p, rect, ctx, c=utilisation: charts.draw_bars(p, rect, ctx, c)
            )
        )
        out.append(stage_table(run))
    if run.setting_rows:
        out.append(settings_table(run, changed_only=index > 0))
    if run.ignored:
        out.append(ignored_table(run))
    return out


def simulation_blocks(run: ReportRun) -> list[Block]:
    """A stored simulation's queue depths, latencies, row rates and page-set reads over time
    (:func:`engine.report.sim_charts.simulation_charts`, as the window's Simulation tab draws them)."""
    if not run.timeseries:
        return []
    pool = run.metrics.get(BUFFER_POOL_METRIC)
    charts = [c for c in simulation_charts(run.timeseries, run.events, pool).values() if c.series]
    if not charts:
        return []
    note = "; outages and slow-downs shaded" if run.events else ""
    head = Html(
        f"<h3>Over simulated time</h3><p class='muted small'>The run's series as the simulator recorded them{note}.</p>",
        keep_with_next=True,
        space_after_mm=1,
    )
    return [head, *(chart_block(c) for c in charts)]


def comparison_blocks(report: Report) -> list[Block]:
    """The comparison of the report's runs against the first: settings, results, systems and charts."""
    cmp = report.comparison
    labels = list(cmp.labels)
    note = mixed_engines_note(report.runs)
    out: list[Block] = [
        Html(
            f"<h2>Comparison</h2><p>Every run against <b>{esc(labels[0])}</b> (the reference): "
            "absolute and percent deltas." + (f" Note: {esc(note)}." if note else "") + "</p>",
            keep_with_next=True,
        ),
        _settings_difference_block(cmp, labels, report.runs[0].scenario_kind),
        _results_comparison_table(cmp, labels),
    ]
    out += comparison_systems_blocks(report)
    out += _key_result_panels(cmp, labels)
    out += _latency_comparison(report.runs, labels)
    out += _utilisation_comparison(report.runs, labels)
    return out


def _settings_difference_block(cmp, labels: list, scenario_kind: str) -> Block:
    """The settings that differ between the runs by IBM's names, as the Compare view shows them
    (or a line saying none does)."""
    if not cmp.settings:
        return Html("<p>The runs have identical settings.</p>")
    rows = [
        _row(
            [
                f"<b>{esc(s.name or setting_name(s.path, scenario_kind))}</b>",
                *(esc(format_setting(v)) for v in s.values),
            ]
        )
        for s in cmp.settings
    ]
    value_pct = max(8, 70 // len(labels))
    return Table(
        ["Parameter", *map(esc, labels)],
        rows,
        [30] + [value_pct] * len(labels),
        caption="Settings that differ",
    )


def _results_comparison_table(cmp, labels: list) -> Table:
    """Every metric of every run, with deltas against the first run, and each run's bottleneck."""
    n = len(labels)
    right = set(range(2, 2 + 2 * n))
    rows = []
    for m in cmp.metrics:
        cells = [
            f"<b>{esc(m.label)}</b>" if m.label.isupper() else esc(m.label),
            esc(m.unit),
            *(format_value(v) for v in m.values),
        ]
        cells += [
            f"{format_delta(a)} ({format_delta(p, pct=True)})"
            for a, p in zip(m.abs_delta[1:], m.pct_delta[1:])
        ]
        rows.append(_row(cells, right=right))
    bottlenecks = [esc(b) for b in cmp.bottlenecks]
    rows.append(_row(["<b>bottleneck</b>", "", *bottlenecks, *([""] * (n - 1))], right=right))
    value_pct = max(7, 40 // n)
    delta_pct = max(10, (100 - 30 - 9 - value_pct * n) // max(n - 1, 1))
    return Table(
        ["Metric", "Unit", *map(esc, labels), *(f"delta {esc(lab)}" for lab in labels[1:])],
        rows,
        [30, 9] + [value_pct] * n + [delta_pct] * (n - 1),
        right=right,
        caption=f"Results (deltas against {esc(labels[0])})",
    )


def _key_result_panels(cmp, labels: list) -> list[Block]:
    """Up to six key metrics (:data:`COMPARE_PANELS`) side by side, where two or more runs have them."""
    panels = []
    for name in COMPARE_PANELS:
        m = next((x for x in cmp.metrics if x.metric == name), None)
        if m is not None and sum(v is not None for v in m.values) >= 2:
            panels.append((m.label, m.unit, m.values, m.pct_delta))
    panels = panels[:6]
    if not panels:
        return []
    n_rows = (len(panels) + 2) // 3
    return [
        Html("<h3>Key results side by side</h3>", keep_with_next=True, space_after_mm=1),
        Drawing(
            10 + 40 * n_rows, lambda p, rect, ctx: charts.draw_metric_panels(p, rect, ctx, labels, panels)
        ),
    ]


def _latency_comparison(runs, labels: list) -> list[Block]:
    """The CAPTURE / Q / APPLY latency bars of the runs that have them (two or more)."""
    shown = [(lab, r.metrics) for lab, r in zip(labels, runs) if r.latency_breakdown()]
    if len(shown) < 2:
        return []
    chart = latency_breakdown([lab for lab, _ in shown], [m for _, m in shown])
    return [
        Html("<h3>Latency breakdown</h3>", keep_with_next=True, space_after_mm=1),
        Drawing(14 + 9 * len(shown), lambda p, rect, ctx: charts.draw_bars(p, rect, ctx, chart)),
    ]


def _utilisation_comparison(runs, labels: list) -> list[Block]:
    """Every stage's utilisation in each run (two or more runs with stages), each run's bottleneck outlined."""
    stage_names: list[str] = []
    for r in runs:
        stage_names += [s.name for s in r.stages if s.name not in stage_names]
    if not stage_names or sum(bool(r.stages) for r in runs) < 2:
        return []
    chart = stage_utilisation(
        stage_names,
        [(lab, {s.name: s.utilisation for s in r.stages}, r.bottleneck) for lab, r in zip(labels, runs)],
    )
    return [
        Html(
            "<h3>Stage utilisation</h3><p class='muted small'>Each run's bottleneck outlined in red.</p>",
            keep_with_next=True,
            space_after_mm=1,
        ),
        Drawing(
            12 + min(3.2 * len(runs) + 1.5, 8) * len(stage_names),
            lambda p, rect, ctx: charts.draw_bars(p, rect, ctx, chart),
        ),
    ]


def validation_blocks(report: Report) -> list[Block]:
    v = report.validation
    out: list[Block] = [
        Html(
            f"<h2>How the engine scores against the published measurements</h2>"
            f"<p>{esc(describe(v))}</p><p class='muted small'>Scenarios: {esc(v.source)} "
            "(the measurements the seed documents publish); absolute percentage errors of "
            "predicted against measured values, rates and latencies scored apart.</p>",
            keep_with_next=True,
        )
    ]

    def pct(x):
        return "n/a" if x is None else f"{x:.1f}%"

    rows = [
        _row(
            [
                esc(KIND_NAMES.get(k.kind, k.kind)),
                str(k.n_scenarios),
                f"{k.n_predicted} of {k.n_measured}",
                pct(k.rate_median_abs_pct),
                pct(k.latency_median_abs_pct),
            ],
            right={1, 2, 3, 4},
        )
        for k in v.by_kind
    ]
    out.append(
        Table(
            [
                "Scenario kind",
                "Scenarios",
                "Metrics predicted",
                "Rates: median error",
                "Latencies: median error",
            ],
            rows,
            [32, 12, 20, 18, 18],
            right={1, 2, 3, 4},
        )
    )
    if v.not_predicted:
        out.append(
            Html(
                "<p class='small'>Not predicted: "
                + esc("; ".join(f"{i}: {m}" for i, m in v.not_predicted))
                + "</p>"
            )
        )
    return out


def compose(report: Report) -> list[Block]:
    """Every block of ``report`` in page order (a sweep's pages first when it has one)."""
    if report.sweep is not None:
        from app.report.sweep import sweep_blocks

        blocks: list[Block] = sweep_blocks(report) + ([PageBreak()] if report.runs else [])
    else:
        blocks = [title_block(report)]
    if len(report.runs) > 1:
        blocks.append(summary_block(report))
        blocks += comparison_blocks(report)
        blocks.append(PageBreak())
    for i, run in enumerate(report.runs):
        if i > 0:
            blocks.append(PageBreak())
        blocks += run_blocks(run, i, len(report.runs))
    if report.validation is not None:
        blocks += validation_blocks(report)
    return blocks
