"""``qrtune sweep PROJECT --simulate --duration D --seeds N [--scenario EVENTS]... [--set ...]``: a simulation study.

Every combination of the ``--set`` knob values x every ``--scenario`` (events separated by ``,``,
e.g. ``channel-stop@2m+5m``; ``none`` for no outage) x seeds 0..N-1 is simulated for D, on a local
process pool or a Dask cluster (``--scheduler``), and recorded in the store as it finishes. The
summary gives, per knob combination and scenario, the spread across seeds of the catch-up time
after the outage, the peak backlog, END2END latency p95/p99 and throughput: the 50th and 95th
percentiles (the 95th is what can be promised with 95% confidence; ``not caught up`` when more
than 5% of the seeds had not caught up by the end of the run).
"""

from __future__ import annotations

import sys

from engine.cli import argtypes
from engine.cli.exitcodes import EXIT_OK, EXIT_PARTIAL
from engine.cli.options import add_duration_option, add_rate_option, execution_options
from engine.io import jsonout
from engine.metrics import info as metric_info
from engine.metrics import label as metric_label
from engine.metrics.catalog import display_scale, format_number
from engine.studies.study import PERCENTILES, SUMMARY_METRICS


def add_study_options(p) -> None:
    """The options of ``qrtune sweep --simulate``."""
    g = p.add_argument_group("simulation study (--simulate)")
    g.add_argument(
        "--simulate", action="store_true", help="simulate every point over time instead of predicting it"
    )
    add_duration_option(g, "each run")
    argtypes.add_integer(g, "--seeds", "seeds 0..N-1 per combination", minimum=1, maximum=100_000, default=10)
    g.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="EVENT[,EVENT...]",
        help="an outage scenario (repeatable), e.g. channel-stop@2m+5m; 'none': no outage "
        "(default: the events saved in the project)",
    )
    add_rate_option(g, "constant offered rate (default: the project's load profile, else its workload)")


def _plan(args, project):
    from engine.errors import FieldError
    from engine.studies.study import StudyPlan, parse_scenarios, parse_seeds
    from engine.studies.sweep import MAX_GRID_POINTS, parse_axes

    plan = StudyPlan(
        tuple(parse_axes(args.axes, project)) if args.axes else (),
        parse_scenarios(args.scenario or [",".join(project.simulation.event_texts()) or "none"]),
        parse_seeds(args.seeds),
        argtypes.duration_s(args.duration),
        args.rate,
    )
    if plan.n_runs > MAX_GRID_POINTS and not args.yes:
        raise FieldError("--set", f"{plan.n_runs:,} runs", f"at most {MAX_GRID_POINTS:,} runs without --yes")
    return plan


def _cell(spread, q: int, factor: float) -> str:
    """Percentile ``q`` of ``spread`` times ``factor`` (the display unit's), or why there is none."""
    value = spread.percentiles[q]
    if value is None:
        return "not caught up" if spread.n_missing else "n/a"
    return format_number(value * factor)


def format_distribution(rows: list) -> str:
    """The study's table: per knob combination and scenario, each figure's percentiles across
    seeds, under its catalogue name and in a unit that suits its size (10.5 s, not 10,529 ms)."""
    lines = []
    for row in rows:
        lines.append(f"  {row['knobs']} | {row['scenario']} ({row['n_seeds']} seeds)")
        for name in SUMMARY_METRICS:
            s = row[name]
            present = [abs(v) for v in s.percentiles.values() if v is not None]
            factor, unit = display_scale(max(present, default=0.0), metric_info(name).unit)
            cells = ", ".join(f"p{q} {_cell(s, q, factor)}" for q in PERCENTILES)
            missing = f" ({s.n_missing} of {s.n_runs} not caught up)" if s.n_missing else ""
            unit = unit if present else ""
            lines.append(f"      {metric_label(name):<24} {cells} {unit}".rstrip() + missing)
    return "\n".join(lines)


def _json_rows(rows: list) -> list:
    return [
        {
            **{k: row[k] for k in ("knobs", "scenario", "n_seeds")},
            **{
                name: {
                    "n_runs": row[name].n_runs,
                    "n_missing": row[name].n_missing,
                    **{f"p{q}": row[name].percentiles[q] for q in PERCENTILES},
                }
                for name in SUMMARY_METRICS
            },
        }
        for row in rows
    ]


def run_study_command(args, project, open_store) -> int:
    """``qrtune sweep --simulate``: returns 0, or :data:`EXIT_PARTIAL` when some runs failed."""
    from engine.studies.study_run import run_study

    plan = _plan(args, project)
    with open_store(args) as store:
        result = run_study(project, plan, store, **execution_options(args))
        n_runs, n_ok, _, _ = store.sweep_run_counts(result.sweep_id)
        n_failed = n_runs - n_ok
    status = EXIT_PARTIAL if n_failed else EXIT_OK
    if args.json:
        jsonout.dump(
            {
                "sweep_id": result.sweep_id,
                "runs": result.n_runs,
                "already_stored": result.n_skipped,
                "run_now": result.n_run,
                "failed": n_failed,
                "elapsed_s": round(result.elapsed_s, 3),
                "db": str(store.path),
                "plan": plan.as_data(),
                "distribution": _json_rows(result.distribution),
            },
            sys.stdout,
            indent=1,
        )
        sys.stdout.write("\n")
        return status
    print(
        f"study {result.sweep_id}: {result.n_runs} runs of {plan.duration_s:g} simulated s "
        f"({plan.n_knob_points} knob combinations x {len(plan.scenarios)} scenarios x {len(plan.seeds)} seeds)"
    )
    print(
        f"  {result.n_run} simulated now, {result.n_skipped} already stored, {n_failed} failed, "
        f"{result.elapsed_s:.1f} s; store {store.path}"
    )
    print(format_distribution(result.distribution))
    print(
        f"  every run: qrtune export --sweep {result.sweep_id} --format csv --out study.csv --db {store.path}"
    )
    return status
