"""``qrtune predict PROJECT``: throughput, latency breakdown, CPU, stages and the bottleneck."""

from __future__ import annotations

import sys
import textwrap

from engine import projectfile
from engine.cli.options import add_changes_option, project_command
from engine.cli.runs import add_db_options, not_recorded, open_store, record_in_store, require_writable_store
from engine.errors import QrtuneError
from engine.io import jsonout
from engine.limit import Limit, held_rate_text, limit_of
from engine.metrics import label as metric_label
from engine.metrics.bands import band_label
from engine.metrics.catalog import format_number
from engine.metrics.sections import QREP_SECTIONS
from engine.metrics.stages import stage_label
from engine.perf import Prediction
from engine.predict import ignored_by_node, predict_project


def register(sub) -> None:
    p = project_command(sub, "predict", "predict a project at steady state", __doc__)
    p.add_argument("--json", action="store_true", help="print the prediction as JSON")
    add_changes_option(p, "this prediction")
    add_db_options(
        p,
        db_help="also record the run in this results store (a run the engine rejects is "
        "recorded as failed, with its error)",
    )
    p.add_argument(
        "--fitted",
        action="store_true",
        help="use the coefficients of the project's latest fit in the store (qrtune fit) instead of "
        "the engine's own",
    )
    p.set_defaults(func=run)


def format_systems(systems, note: str = "") -> list[str]:
    """Lines of the Systems section: one row per figure, one column per system (bidirectional, peer-to-peer)."""
    from engine.perf.qrep.systems import FIGURES

    if not systems:
        return []
    width = max(12, *(len(s.label) for s in systems))
    lines = [
        "  Systems (each runs its own workload, captures it and applies its partner's changes)",
        f"    {'':<44}" + "".join(f" {s.label:>{width}}" for s in systems),
    ]
    for name, label, unit in FIGURES:
        values = [s.get(name) for s in systems]
        if all(v is None for v in values):
            continue
        cells = "".join(f" {format_number(v):>{width}}" for v in values)
        lines.append(f"    {label:<44}{cells} {unit}")
    if note:
        lines += textwrap.wrap(note, 100, initial_indent="    ", subsequent_indent="    ")
    lines.append("")
    return lines


def _format_sections(pred: Prediction, lines: list, limit: Limit, project=None) -> None:
    from engine.perf.qrep.systems import is_system_metric, systems_of
    from engine.two_way_note import symmetry_note

    shown = {m for m in pred.metrics if is_system_metric(m)}
    for heading, items in QREP_SECTIONS:
        rows = [(m, label) for m, label in items if m in pred.metrics]
        if not rows:
            continue
        lines.append(f"  {heading}")
        for m, label in rows:
            shown.add(m)
            lines.append(_metric_line(pred, m, label))
        lines.append("")
    lines += format_systems(systems_of(pred.metrics, project), symmetry_note(project) if project else "")
    rest = [m for m in pred.metrics if m not in shown]
    if rest:
        lines.append("  Other")
        lines += [_metric_line(pred, m, metric_label(m)) for m in rest]
        lines.append("")
    width = _label_width(pred)
    lines.append(
        f"  {'stage':<{width}} {'rows/s':>11} {'msgs/s':>10} {'servers':>7} {'utilisation':>11} {'latency ms':>10}"
    )
    for s in pred.stages:
        mark = _stage_mark(s.name, limit)
        lines.append(
            f"  {stage_label(s.name):<{width}} {format_number(s.capacity):>11} {format_number(getattr(s, 'capacity_msgs_per_s', None)):>10} "
            f"{getattr(s, 'servers', 1):>7d} {100 * s.utilisation:>10.1f}% {format_number(s.latency_ms):>10}{mark}"
        )


def _metric_line(pred: Prediction, name: str, label: str, indent: int = 4) -> str:
    """One metric's line: label, value, unit and, when the prediction has one, its band."""
    band = pred.bands.get(name)
    extra = f"   ({band_label()} {format_number(band[0])} .. {format_number(band[1])})" if band else ""
    value = format_number(pred.metrics[name])
    return f"{'':<{indent}}{label:<38} {value:>12} {pred.units.get(name, '')}{extra}"


def format_ignored(pred: Prediction, project) -> list[str]:
    """Lines naming each knob of ``project`` that cannot change ``pred``, by node, with the reason."""
    if not pred.ignored:
        return []
    lines = ["", "  Knobs with no effect on this prediction, and why"]
    node = None
    for where, reason, names in ignored_by_node(project, pred):
        if where != node:
            node = where
            lines.append(f"    {where}")
        lines += textwrap.wrap(
            f"{', '.join(names)}: {reason}", 100, initial_indent="      ", subsequent_indent="        "
        )
    return lines


def format_prediction(pred: Prediction, title: str, project) -> str:
    """A readable breakdown: metrics with units, the systems of a two-way ``project``, every stage,
    then the knobs of ``project`` that cannot change the prediction."""
    lines = [f"{title}  ({pred.kind}, coefficients {pred.coefficients_version or 'n/a'})", ""]
    limit = limit_of(pred)
    closing = ["", f"  bottleneck: {limit.text(held_rate_text(pred.metrics))}"]
    if pred.kind == "qrep":
        _format_sections(pred, lines, limit, project)
        lines += closing
        lines += format_ignored(pred, project)
        return "\n".join(lines)
    lines += [_metric_line(pred, name, metric_label(name, pred.kind), indent=2) for name in pred.metrics]
    if pred.stages:
        width = _label_width(pred)
        lines += ["", f"  {'stage':<{width}} {'capacity':>12} {'unit':<10} {'utilisation':>11}"]
        for s in pred.stages:
            mark = _stage_mark(s.name, limit)
            lines.append(
                f"  {stage_label(s.name):<{width}} {format_number(s.capacity):>12} {s.unit:<10} {100 * s.utilisation:>10.1f}%{mark}"
            )
    lines += closing
    lines += format_ignored(pred, project)
    return "\n".join(lines)


def _label_width(pred: Prediction) -> int:
    """Width of the stage table's first column: its longest stage label."""
    return max([len("stage"), *(len(stage_label(s.name)) for s in pred.stages)])


def _stage_mark(name: str, limit: Limit) -> str:
    """The stage table's mark: the bottleneck, or the busiest stage when the offered rate is held."""
    if name == limit.bottleneck:
        return "  <- bottleneck"
    return "  <- busiest" if limit.holds_offered and name == limit.stage else ""


def systems_json(pred: Prediction, project) -> dict:
    """``{"systems": [...], "systems_note": "..."}`` for a two-way project's prediction, else ``{}``.

    Each system: its source Db2 node's ``id`` and ``label``, the ``metric_prefix`` of its
    figures in ``metrics`` and every figure (units under ``units`` with the prefix).
    """
    from engine.perf.qrep.systems import systems_of
    from engine.two_way_note import symmetry_note

    systems = systems_of(pred.metrics, project)
    if not systems:
        return {}
    return {"systems": [s.to_json() for s in systems], "systems_note": symmetry_note(project)}


def _latest_fit(args, project) -> dict:
    """The project's latest fit in the store (qrtune fit); a clear error when there is none."""
    with open_store(args, read_only=True) as store:
        fit = store.latest_fit(project.name)
        where = store.path
    if fit is None:
        raise QrtuneError(
            f"no fit of project {project.name!r} in the store {where}; import its monitor exports "
            f"(qrtune import-monitor FILE... --project {args.project} --db {where}) and run "
            f"qrtune fit {args.project} --db {where} first"
        )
    return fit


def run(args) -> int:
    from engine.studies.sweep import with_changes

    changes = list(getattr(args, "changes", ()))
    project = with_changes(projectfile.load(args.project), changes)
    db = getattr(args, "db", None)
    if db:
        require_writable_store(args)
    fit = _latest_fit(args, project) if getattr(args, "fitted", False) else None
    label = " ".join(([f"fitted (fit {fit['id']})"] if fit else []) + changes)
    try:
        if fit:
            from engine.calibrate.fit import fitted_predict
            from engine.scenario import project_to_scenario

            pred, note = fitted_predict(project_to_scenario(project), fit)
            if note:
                print(f"qrtune predict: note: {note}", file=sys.stderr)
        else:
            pred = predict_project(project)
    except (QrtuneError, ArithmeticError, ValueError, KeyError, TypeError) as e:
        if db:  # nothing a user ran is lost: the failure is a run too
            from engine.store.bundles import failure_bundle

            with open_store(args) as store:
                run_id = store.record_run(project, failure_bundle(project, e, kind="predict", label=label))
            print(f"qrtune predict: recorded as failed run {run_id} in {store.path}", file=sys.stderr)
        raise
    run_id, not_recorded_why = None, ""
    if db:
        run_id, not_recorded_why = record_in_store(
            args, lambda store: store.record_prediction(project, pred, kind="predict", label=label)
        )
    if args.json:
        extra = {"run_id": run_id} if run_id is not None else {}
        jsonout.dump(
            {"project": project.name, **pred.to_json(), **systems_json(pred, project), **extra},
            sys.stdout,
            indent=1,
        )
        sys.stdout.write("\n")
    else:
        print(format_prediction(pred, project.name + (f"  [{label}]" if label else ""), project))
        if run_id is not None:
            print(f"\n  recorded as run {run_id} in {db}")
    if not_recorded_why:
        return not_recorded("predict", args, not_recorded_why)
    return 0
