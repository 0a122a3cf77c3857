"""``qrtune fit PROJECT --db PATH``: fit the project's coefficients to its imported monitor intervals.

Uses the IBMQREP_APPLYMON / IBMQREP_CAPQMON / IBMQREP_CAPMON rows imported for the project
(qrtune import-monitor --project PROJECT); every ``--holdout-every``-th interval is held out
of the fit, and the error on those intervals is printed before and after. With the 10.2.1+
timing columns (DBMS_TIME, MQGET_TIME, MQPUT_TIME, MQCMIT_TIME) the fit also adjusts the
coefficients they pin, and prints each timing column's held-out error with the base
coefficients, fitted without the timing columns and fitted with them. The fitted
coefficients and those errors are kept in the store.
"""

from __future__ import annotations

import argparse
import sys
import textwrap

from engine.calibrate.fit_limits import FIT_BUDGET_S, MAX_INTERVALS, MAX_PREDICTIONS
from engine.cli import argtypes
from engine.cli.options import project_command
from engine.cli.runs import add_db_options, open_store
from engine.io import jsonout
from engine.metrics import label as metric_label
from engine.metrics.catalog import format_number
from engine.monitor.timing import NOT_PREDICTED, timing_label


def register(sub) -> None:
    p = project_command(sub, "fit", "fit coefficients to imported monitor intervals", __doc__)
    add_db_options(p)
    argtypes.add_integer(
        p,
        "--holdout-every",
        "hold every N-th interval out of the fit to judge it, 0 for none",
        maximum=1_000_000,
        default=4,
    )
    p.add_argument("--only", metavar="NAME[,NAME...]", help="fit only these coefficients")
    p.add_argument(
        "--metrics",
        metavar="NAME[,NAME...]",
        help="fit to these measured metrics only (e.g. apply_rows_per_s,apply_latency_ms)",
    )
    argtypes.add_integer(
        p,
        "--max-intervals",
        "fit at most N intervals and judge on at most N held out, evenly spaced in time; "
        "a week of 10 s intervals is 60,480",
        minimum=1,
        default_text=f"{MAX_INTERVALS:,}",
    )
    argtypes.add_number(
        p,
        "--budget-s",
        "stop the least-squares loop after S seconds and keep the best coefficients seen so far; "
        f"the fit also stops after {MAX_PREDICTIONS:,} engine predictions",
        minimum=0.1,
        maximum=86_400.0,
        unit="s",
        metavar="S",
        default_text=f"{FIT_BUDGET_S:g} s",
    )
    p.add_argument(
        "--export",
        metavar="CSV",
        help="write measured and predicted values (before and after the fit) of every interval used, "
        "one row per interval and metric, held-out ones marked: to overlay them in a chart",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--quiet", action="store_true", help="no progress bar on stderr (there is one only on a terminal)"
    )
    p.add_argument("--model", default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def _export(path: str, model, settings: dict, result) -> None:
    """Write :func:`engine.calibrate.fit.comparison_rows` of the intervals the fit used as CSV (atomically)."""
    import csv
    import io

    from engine.calibrate.fit import comparison_rows
    from engine.io.atomicfile import atomic_write_text
    from engine.io.csvcell import safe_row

    used = sorted(result.fit_intervals + result.held_intervals, key=lambda iv: (iv.monitor_time, iv.queue))
    rows = comparison_rows(model, settings, used, result.base, result.fitted, result.held_intervals)
    buf = io.StringIO()
    fields = [
        "monitor_time",
        "queue",
        "held_out",
        "offered_rows_per_s",
        "metric",
        "measured",
        "predicted_before",
        "predicted_after",
    ]
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(safe_row(dict(r, monitor_time=r["monitor_time"].isoformat(sep=" "))))
    atomic_write_text(path, buf.getvalue())
    print(f"wrote {len(rows)} measured/predicted values of {len(used)} intervals to {path}", file=sys.stderr)


def run(args) -> int:
    from engine import projectfile
    from engine.calibrate.fit import engine_fit_model, fit_with_timing, measures_timing, sample_intervals
    from engine.progress import Progress
    from engine.scenario import project_to_scenario

    project = projectfile.load(args.project)
    settings = project_to_scenario(project)
    default_s = float((settings.get("qapply") or {}).get("monitor_interval_ms") or 10_000) / 1000.0
    engine_fit_model(settings, args.model)  # an engine without a fit is refused before the store is read
    spacing = (default_s, args.holdout_every, args.max_intervals or MAX_INTERVALS)
    with open_store(args, read_only=True) as store:  # the file is not held while fitting
        project_name, note = project.name, ""
        if not store.monitor_columns(project.name):
            project_name = ""
            note = " (imports not tied to a project)" if store.monitor_columns("") else ""
        sample = sample_intervals(store, project_name, *spacing)
    model = engine_fit_model(settings, args.model, timing=measures_timing(sample))
    only = [x.strip() for x in args.only.split(",")] if args.only else None
    metrics = [x.strip() for x in args.metrics.split(",")] if args.metrics else None
    bar = Progress(100, enabled=not args.quiet and sys.stderr.isatty(), label="fit", unit=" %")
    try:
        result = fit_with_timing(
            model,
            settings,
            sample,
            only,
            metrics,
            budget_s=args.budget_s or FIT_BUDGET_S,
            progress=lambda share, _text: bar.update_to(100 * share),
        )
    finally:
        bar.close()
    if args.export:
        _export(args.export, model, settings, result)
    with open_store(args) as store:
        fit_id = store.record_fit(project, result)
    if args.json:
        jsonout.dump({"fit_id": fit_id, **result.to_json()}, sys.stdout, indent=1, default=float)
        sys.stdout.write("\n")
        return 0
    spaced = ""
    if (result.n_fit_total, result.n_holdout_total) != (result.n_fit, result.n_holdout):
        spaced = (
            f" (evenly spaced of {result.n_fit_total:,} and {result.n_holdout_total:,}; "
            f"--max-intervals to change)"
        )
    print(
        f"fit {fit_id}: {project.name}, {result.n_fit} intervals fitted, {result.n_holdout} held out{spaced}{note}"
    )
    if result.stopped_at:
        print(
            f"  stopped at its budget after {result.stopped_at}: the best coefficients seen so far "
            "(--budget-s to give it longer)"
        )
    print("\n".join(format_fit(result)))
    return 0


def format_fit(result) -> list[str]:
    """The lines of a fit's outcome: each coefficient before and after (marked at a bound of its
    range), then the error on the held-out intervals by metric under IBM's names."""
    from engine.calibrate.fit import AT_BOUND_ADVICE

    at_bound = result.at_bound()
    lines = [f"  {'coefficient':<24} {'unit':<8} {'before':>12} {'after':>12} {'change':>8}"]
    for name, base in result.base.items():
        after = result.fitted[name]
        change = f"{100 * (after - base) / base:+.1f}%" if base else "-"
        hit = at_bound.get(name)
        lines.append(
            f"  {name:<24} {result.units.get(name, ''):<8} {format_number(base):>12} {format_number(after):>12} "
            f"{change:>8}" + (f"  at its {hit} bound" if hit else "")
        )
    if at_bound:
        lines += textwrap.wrap(AT_BOUND_ADVICE, 100, initial_indent="  ", subsequent_indent="  ")
    b, a = result.before, result.after
    lines += [
        "",
        "  error on held-out intervals (mean over metrics of the median absolute %): "
        f"before {b['mean_metric_pct']:.1f}%, after {a['mean_metric_pct']:.1f}%",
    ]
    for metric in b["by_metric"]:
        if timing_label(metric):
            continue
        after = a["by_metric"].get(metric)
        after_text = "-" if after is None else f"{after:.1f}%"
        lines.append(f"    {metric_label(metric):<22} {b['by_metric'][metric]:>7.1f}% -> {after_text:>6}")
    return lines + timing_lines(result)


def _pct(value) -> str:
    return "-" if value is None else f"{value:.1f}%"


def timing_lines(result) -> list[str]:
    """The held-out error of each timing column (IBM's names): base coefficients, fitted without them, with them."""
    timed = [m for m in result.after["by_metric"] if timing_label(m)]
    if not timed:
        return []
    without = (result.without_timing.get("after") or {}).get("by_metric", {})
    lines = [
        "",
        "  timing columns on held-out intervals (median absolute % of the time per call):",
        f"    {'column':<34} {'before':>7} {'fit without them':>17} {'fit with them':>14}",
    ]
    for metric in timed:
        lines.append(
            f"    {timing_label(metric):<34} {_pct(result.before['by_metric'].get(metric)):>7} "
            f"{_pct(without.get(metric)):>17} {_pct(result.after['by_metric'][metric]):>14}"
        )
    lines.append(f"    not predicted by the engine, left out: {', '.join(NOT_PREDICTED)}")
    return lines
