"""``qrtune predict PROJECT``: throughput, latency breakdown, CPU, stages and the bottleneck."""

from __future__ import annotations

import json
import sys

from engine import projectfile
from engine.perf import Prediction
from engine.predict import predict_project


def register(sub) -> None:
    p = sub.add_parser("predict", help="predict a project at steady state", description=__doc__)
    p.add_argument("project", metavar="PROJECT", help="project file")
    p.add_argument("--json", action="store_true", help="print the prediction as JSON")
    p.add_argument("--db", metavar="PATH", default=None, help="also record the run in this results store")
    p.add_argument("--wait", metavar="SECONDS", type=float, default=0.0,
                   help="with --db: wait this long for another process holding the store")
    p.set_defaults(func=run)


def format_prediction(pred: Prediction, title: str) -> str:
    """A readable breakdown: metrics with units, then every stage with its utilisation."""
    lines = [f"{title}  ({pred.kind}, coefficients {pred.coefficients_version or 'n/a'})", ""]
    width = max((len(k) for k in pred.metrics), default=10)
    for name, value in pred.metrics.items():
        unit = pred.units.get(name, "")
        band = pred.bands.get(name)
        extra = f"   [{band[0]:.4g} .. {band[1]:.4g}]" if band else ""
        lines.append(f"  {name:<{width}}  {value:>12.4g} {unit}{extra}")
    if pred.stages:
        lines += ["", f"  {'stage':<16} {'capacity':>12} {'unit':<10} {'utilisation':>11}"]
        for s in pred.stages:
            mark = "  <- bottleneck" if s.name == pred.bottleneck else ""
            lines.append(f"  {s.name:<16} {s.capacity:>12.4g} {s.unit:<10} {100 * s.utilisation:>10.1f}%{mark}")
    lines += ["", f"  bottleneck: {pred.bottleneck or 'none'}"]
    if pred.ignored:
        lines.append("  settings not used by the engine: " + ", ".join(pred.ignored))
    return "\n".join(lines)


def run(args) -> int:
    project = projectfile.load(args.project)
    pred = predict_project(project)
    run_id = None
    if getattr(args, "db", None):
        from engine.store import Store

        with Store.open(args.db, wait_s=args.wait) as store:
            run_id = store.record_prediction(project, pred, kind="predict")
    if args.json:
        extra = {"run_id": run_id} if run_id is not None else {}
        json.dump({"project": project.name, **pred.to_json(), **extra}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(format_prediction(pred, project.name))
        if run_id is not None:
            print(f"\n  recorded as run {run_id} in {args.db}")
    return 0
