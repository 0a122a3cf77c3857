"""``qrtune advise PROJECT [--goal GOAL]``: tuning recommendations with their predicted effect, or goal seeking.

Without ``--goal`` every advisor rule is checked against the project; a change is printed
only when an engine run of the changed project improves the metric the rule targets, with
throughput, latency and CPU before and after, its cost or risk, and the seed section.

With ``--goal`` the knobs are searched for the best point (exhaustively on small grids):

  --goal fewest-agents:60000   fewest apply agents holding 60,000 rows/s, END2END < 1 s, CPU < 90%
  --goal outage-pool:20        smallest transmit-queue buffer pool that holds a 20-minute outage
  --goal mirror-baseline       fewest job sets (mirror-baseline:cores: cores) back to unmirrored throughput
  --goal "max apply_rows_per_s subject to apply_lpar_busy_pct<=90 over qapply.num_apply_agents=1..32
          qcapture.trans_batch_sz=1..8"

The project as it is, every recommended change and the goal's best point are recorded as
runs in the results store (``--db``; ``--no-store`` to skip).
"""

from __future__ import annotations

import sys

from engine import projectfile
from engine.cli import argtypes
from engine.cli.options import project_command
from engine.cli.runs import add_db_options, open_store
from engine.io import jsonout
from engine.metrics import label as metric_label
from engine.metrics.catalog import format_number, format_setting


def register(sub) -> None:
    p = project_command(
        sub,
        "advise",
        "tuning recommendations backed by the engine, or goal seeking",
        __doc__,
        keep_layout=True,
    )
    p.add_argument(
        "--goal",
        metavar="GOAL",
        default=None,
        help="fewest-agents[:RATE], outage-pool[:MINUTES] or 'min|max OBJECTIVE [subject to ...] over ...'",
    )
    p.add_argument(
        "--method",
        choices=("auto", "exhaustive", "coordinate"),
        default="auto",
        help="goal search method (default: exhaustive up to 4096 points)",
    )
    argtypes.add_number(
        p,
        "--outage-min",
        "channel outage the transmit queue's buffer pool should hold",
        minimum=0.0,
        maximum=10_080.0,
        unit="min",
        default=20.0,
        metavar="MINUTES",
    )
    argtypes.add_number(
        p,
        "--min-gain",
        "smallest improvement of a rule's target metric to recommend it",
        minimum=0.0,
        maximum=1000.0,
        unit="%",
        default=1.0,
        metavar="PCT",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--no-store", action="store_true", help="do not record runs")
    add_db_options(p)
    p.set_defaults(func=run)


def format_advice(advice) -> str:
    """Readable recommendations, then what was checked."""
    from engine.limit import limit_text
    from engine.metrics.bands import band_label

    pred = advice.prediction
    lines = [f"{advice.project.name}  ({pred.kind})  bottleneck: {limit_text(pred)}", ""]
    if not advice.recommendations:
        lines.append("  No change the rules know improves this configuration by the engine's prediction.")
    for i, r in enumerate(advice.recommendations, 1):
        lines.append(f"{i}. {r.title}")
        lines.append(f"   why:    {r.reason}")
        lines.append("   change: " + "; ".join(str(c) for c in r.changes))
        lines.append(
            f"   effect: {metric_label(r.metric)} {r.signed_gain_pct:+.1f}% ({'higher' if r.sense == 'max' else 'lower'} is better; "
            "engine run of the changed project)"
        )
        for name, b in r.before.items():
            a = r.after.get(name)
            band = r.prediction.bands.get(name) if r.prediction is not None else None
            extra = (
                f"   [{band_label()} {format_number(band[0])} .. {format_number(band[1])}]" if band else ""
            )
            lines.append(
                f"     {metric_label(name):<26} {format_number(b):>12} -> {format_number(a) if a is not None else '-':>12} "
                f"{r.units.get(name, '')}{extra}"
            )
        lines.append(f"   cost/risk: {r.cost_risk}")
        lines.append(f"   seed: {r.seed}")
        lines.append("")
    lines.append("  rules checked: " + ", ".join(f"{rid} ({o})" for rid, o in advice.checked))
    from engine.metrics.bands import coverage_statement

    lines.append(f"  {coverage_statement(pred.kind)}")
    return "\n".join(lines)


def format_goal(result) -> str:
    """Readable goal-seek outcome."""
    g = result.goal
    is_knob = g.objective in {a.name for a in g.knobs}
    objective_text = (format_setting if is_knob else format_number)(result.objective_value)
    lines = [
        g.describe(),
        "",
        f"  {'found' if result.feasible else 'NO FEASIBLE POINT; nearest miss'}: "
        + " ".join(f"{name}={v}" for name, v in result.changes()),
        f"  {g.objective} = {objective_text}",
        (
            f"  search: {result.method}, {result.evaluations} engine runs of {g.n_points:,} grid points, "
            f"{result.elapsed_s * 1000:.0f} ms"
        ),
    ]
    for c in g.constraints:
        v = result.metrics.get(c.metric)
        lines.append(
            f"  {'ok ' if c.satisfied(result.metrics) else 'MISS'} {c}  (predicted {format_number(v) if v is not None else 'n/a'})"
        )
    return "\n".join(lines)


def run(args) -> int:
    project = projectfile.load(args.project)
    out: dict = {}
    store = None if args.no_store else open_store(args)
    try:
        if args.goal:
            from engine.advise.goals import goal_from_text
            from engine.advise.goalseek import seek

            goal = goal_from_text(args.goal, project)
            result = seek(project, goal, method=args.method)
            if store is not None:
                label = "goal: " + " ".join(f"{n}={v}" for n, v in result.changes())
                out["run_id"] = store.record_prediction(
                    result.project, result.prediction, kind="goalseek", label=label
                )
            if args.json:
                out.update(
                    {
                        "goal": goal.describe(),
                        "feasible": result.feasible,
                        "values": {n: v for n, v in result.changes()},
                        "objective": result.objective_value,
                        "metrics": result.metrics,
                        "method": result.method,
                        "evaluations": result.evaluations,
                        "grid_points": goal.n_points,
                        "elapsed_s": result.elapsed_s,
                        "bands": {k: list(v) for k, v in result.prediction.bands.items()},
                    }
                )
            else:
                print(format_goal(result))
        else:
            from engine.advise import advise

            advice = advise(project, min_gain_pct=args.min_gain, outage_min=args.outage_min)
            if store is not None:
                ids = [
                    store.record_prediction(project, advice.prediction, kind="advise", label="advise: as is")
                ]
                for r in advice.recommendations:
                    ids.append(
                        store.record_prediction(
                            r.project, r.prediction, kind="advise", label=f"advice: {r.title}"
                        )
                    )
                out["run_ids"] = ids
            if args.json:
                out.update(advice.to_json())
            else:
                print(format_advice(advice))
    finally:
        if store is not None:
            store.close()
    if args.json:
        jsonout.dump(out, sys.stdout, indent=1, default=str)
        sys.stdout.write("\n")
    elif out:
        ids = out.get("run_ids") or [out.get("run_id")]
        print(
            f"\n  recorded as run{'s' if len(ids) > 1 else ''} {', '.join(str(i) for i in ids)} in "
            f"{args.db or 'the default store'}"
        )
    return 0
