"""qrtune simulate PROJECT: a time-domain run with bursts, outages and catch-up.

Transactions flow through the same stages and costs as qrtune predict (Q Capture, MQ commit,
transmit queue and its buffer pool and page set, channel batches, receive queue, the Q Apply
browser and agents) for Q Replication projects; Db2 Mirror projects simulate suspend and
resync. Prints a summary: throughput, END2END latency mean and percentiles with its
CAPTURE / Q / APPLY parts, peak backlog and queue depths, the catch-up time after each event,
and the time to apply everything still in flight at the end of the run (what a switch-over
must wait for), plus stage utilisation.

Workload: the load profile saved in the project (the Simulation tab's form), else the project's
offered rate (or, when it drives the pipeline to the maximum, the predicted throughput); --rate
for a constant rate; --profile for a JSON profile (constant, steps, bursts, batch_window with
large transactions) or a CSV of t_s,rows_per_s.

Events (repeatable; none given: the events saved in the project): KIND@START+LENGTH[*FACTOR]
with times as 90, 90s, 20m or 1h:
  channel-stop@2m+20m       the MQ channel is stopped
  apply-stop@300+60         Q Apply is stopped
  target-slow@1m+5m*0.5     the target Db2 runs at half speed
  mirror-suspend@1m+10m     Db2 Mirror replication suspended (Db2 Mirror projects)

What-ifs without editing the file: --set TARGET.PARAM=VALUE (a node kind or node id and a knob),
e.g. --set queue_manager.read_ahead=false or --set qapply.num_apply_agents=8.

Output: --json prints the summary and the IBMQREP_CAPMON, IBMQREP_CAPQMON and
IBMQREP_APPLYMON rows (one per MONITOR_INTERVAL, latencies in ms, memory in bytes) as JSON
(--series adds the per-stage time series); --monitor-csv DIR writes the three tables as CSV
exports; --db PATH records the run in a results store.

Example (journey 4, a 20-minute channel outage at 30,000 rows/s, read-ahead off):
  qrtune simulate sample_runs/redpaper-baseline.json --duration 1h --rate 30000 \
      --event channel-stop@2m+20m --set queue_manager.read_ahead=false
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from engine import projectfile
from engine.cli import argtypes
from engine.cli.options import add_changes_option, add_duration_option, add_rate_option, project_command
from engine.cli.runs import not_recorded, record_in_store, require_writable_store, store_path
from engine.errors import FieldError
from engine.io import jsonout
from engine.io.atomicfile import atomic_write_text
from engine.metrics.catalog import display_value, format_number
from engine.metrics.catalog import info as metric_info
from engine.metrics.catalog import label as metric_label
from engine.metrics.stages import stage_label
from engine.outage_events import EVENT_LABELS
from engine.progress import Progress


def register(sub) -> None:
    p = project_command(
        sub,
        "simulate",
        "simulate a project over time: bursts, outages, backlogs, catch-up",
        __doc__,
        keep_layout=True,
    )
    add_duration_option(p, "the run")
    argtypes.add_integer(p, "--seed", "seed of the random numbers", default=0)
    p.add_argument(
        "--profile", metavar="FILE", help="workload profile: a JSON document or a CSV of t_s,rows_per_s"
    )
    add_rate_option(p, "a constant offered rate instead of a profile")
    p.add_argument(
        "--event",
        action="append",
        default=[],
        metavar="KIND@START+LENGTH[*FACTOR]",
        help="an outage or slow-down (repeatable): channel-stop, apply-stop, target-slow, mirror-suspend",
    )
    p.add_argument(
        "--every-transaction",
        action="store_true",
        help="simulate every transaction, also in stationary stretches (default: a simulated window stands "
        "for the steady windows after it)",
    )
    add_changes_option(p, "this run")
    p.add_argument("--json", action="store_true", help="print summary and monitor rows as JSON")
    p.add_argument("--series", action="store_true", help="with --json: include the per-stage time series")
    p.add_argument(
        "--monitor-csv", metavar="DIR", help="write IBMQREP_CAPMON/CAPQMON/APPLYMON CSV files here"
    )
    p.add_argument(
        "--db",
        metavar="PATH",
        default=None,
        type=store_path,
        help="also record the run in this results store",
    )
    argtypes.add_number(
        p,
        "--wait",
        "with --db: wait this long for another process holding the store",
        minimum=0.0,
        maximum=argtypes.MAX_WAIT_S,
        unit="s",
        default=5.0,
        metavar="SECONDS",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


#: Units of things counted one by one: printed as whole numbers.
COUNT_UNITS = ("msgs", "rows", "txns", "changes")


def _fmt(v, unit="") -> str:
    """``v`` in ``unit`` as every view prints it, scaled to a readable unit (``20.1 s``, ``135 MB``);
    ``n/a`` when the run has no value."""
    if v is None:
        return "n/a"
    if unit in COUNT_UNITS:  # a whole number of messages, rows or transactions
        return f"{format_number(round(v))} {unit}"
    shown, shown_unit = display_value(v, unit)
    return f"{format_number(shown)} {shown_unit}".rstrip()


def _labelled_lines(s: dict) -> list[str]:
    """One line per number of a summary other than Q Replication's (a Db2 Mirror pair's): the metric
    catalogue's label and the value in its display unit."""
    kind = "db2mirror" if "changes_per_s" in s else None
    rows = [
        (metric_label(k, kind), _fmt(v, metric_info(k, kind).unit))
        for k, v in s.items()
        if isinstance(v, (int, float)) and not isinstance(v, bool) and k != "seed"
    ]
    width = max((len(name) for name, _ in rows), default=0)
    return [f"  {name:<{width}}  {value}" for name, value in rows]


def format_summary(s: dict, title: str) -> str:
    """A readable summary of a simulation."""
    lines = [
        (
            f"{title}  (simulated {s['duration_s']:g} s, seed {s['seed']}, {s['engine']}, "
            f"coefficients {s.get('coefficients_version') or 'n/a'})"
        ),
        "",
    ]
    if "throughput_rows_per_s" in s:
        e2e = s["end2end_latency_ms"]
        lines += [
            (
                f"  offered                {_fmt(s['offered_rows_per_s'], 'rows/s')}   (steady-state prediction "
                f"{_fmt(s.get('predicted_rows_per_s'), 'rows/s')})"
            ),
            f"  throughput (applied)   {_fmt(s['throughput_rows_per_s'], 'rows/s')}",
            (
                f"  END2END_LATENCY        mean {_fmt(e2e['mean'], 'ms')}, p50 {_fmt(e2e['p50'], 'ms')}, "
                f"p95 {_fmt(e2e['p95'], 'ms')}, p99 {_fmt(e2e['p99'], 'ms')}"
            ),
            (
                f"    CAPTURE / Q / APPLY  {_fmt(s['capture_latency_ms'], 'ms')} / {_fmt(s['qlatency_ms'], 'ms')} / "
                f"{_fmt(s['apply_latency_ms'], 'ms')}"
            ),
            (
                f"  peak backlog           {_fmt(s['peak_backlog_rows'], 'rows')} in flight; transmit queue "
                f"{_fmt(s['peak_xmitq_depth_msgs'], 'msgs')}, receive queue {_fmt(s['peak_recvq_depth_msgs'], 'msgs')}"
            ),
            (
                f"  page set               {_fmt(s['pageset_msgs'], 'msgs')} read back by the channel, "
                f"{_fmt(s.get('recvq_pageset_msgs'), 'msgs')} by Q Apply's browser"
            ),
            (
                f"  memory                 Capture peak {_fmt(s['peak_capture_memory_bytes'], 'bytes')}, "
                f"{_fmt(s['trans_spilled'], 'txns')} spilled; Apply peak {_fmt(s['peak_apply_memory_bytes'], 'bytes')}, "
                f"MEM_FULL_TIME {_fmt(s['mem_full_time_s'], 's')}"
            ),
            (
                f"  rows                   {s['rows_generated']:,} generated, {s['rows_applied']:,.0f} applied, "
                f"{s['rows_in_flight_at_end']:,.0f} in flight at the end"
            ),
            (
                f"  switch-over            stopping the source at the end, everything in flight is applied "
                f"{_fmt(s.get('in_flight_drain_s'), 's')} later"
            ),
        ]
        if s.get("replicated_s"):
            lines.append(
                f"  steady stretches       {_fmt(s['replicated_s'], 's')} of the run are copies of simulated "
                f"windows; {format_number(round(s['txns_simulated']))} of "
                f"{format_number(round(s['txns_generated']))} transactions simulated (--every-transaction simulates all)"
            )
        if s.get("utilisation"):
            lines += [
                "",
                "  stage utilisation: "
                + ", ".join(f"{stage_label(k)} {100 * v:.1f}%" for k, v in s["utilisation"].items()),
            ]
    else:
        lines += _labelled_lines(s)
    for i, e in enumerate(s.get("events") or (), start=1):
        cu = e.get("catch_up_s")
        kind = EVENT_LABELS.get(e["kind"], e["kind"].replace("_", " "))
        lines.append(
            f"  event {i}: {kind} {e['start_s']:g}-{e['end_s']:g} s: peak backlog "
            f"{_fmt(e.get('peak_backlog_rows'))}, caught up "
            + (f"{cu:,.0f} s after it ended" if cu is not None else "not within the run")
        )
    for note in s.get("notes") or ():
        lines.append(f"  note: {note}")
    return "\n".join(lines)


def _settings(project, args, events: list[str], profile) -> dict:
    """The settings a simulation ran on (:func:`engine.sim.bundle.simulation_settings`): the project's
    scenario plus the run's options; ``events`` the outages run (``--event`` or the project's own),
    ``profile`` the workload profile it used (or asked for) or None."""
    from engine.sim.bundle import simulation_settings
    from engine.store.bundles import scenario_or_empty

    return simulation_settings(
        scenario_or_empty(project),
        duration_s=argtypes.duration_s(args.duration),
        seed=args.seed,
        events=events,
        changes=args.changes,
        profile=profile,
    )


def monitor_folder(text: str) -> Path:
    """The ``--monitor-csv`` folder, checked (and created when missing) before the run: an existing
    writable folder, or a new folder in an existing writable one (never a tree of folders).

    Raises
    ------
    FieldError
        The path is a file, its parent folder does not exist, or it cannot be written.
    """
    out = Path(text)
    where = out if out.is_dir() else out.parent
    if out.exists() and not out.is_dir():
        raise FieldError("--monitor-csv", text, "a folder (this is a file)")
    if not where.is_dir():
        raise FieldError("--monitor-csv", text, "a folder that exists or whose parent folder exists")
    if not os.access(where, os.W_OK | os.X_OK):
        raise FieldError("--monitor-csv", text, "a folder you can write to")
    try:
        out.mkdir(exist_ok=True)
    except OSError as e:
        raise FieldError("--monitor-csv", text, f"a folder that can be created here ({e.strerror})") from None
    return out


def run(args) -> int:
    from engine.errors import QrtuneError
    from engine.scenario import SCENARIO_KIND
    from engine.sim.kernels import warm_up_in_background

    project = projectfile.load(args.project)
    if SCENARIO_KIND.get(project.topology) == "qrep":
        warm_up_in_background()  # numba and its cached kernels load while the rest is imported and set up
    from engine.sim import parse_event, profiles, simulate
    from engine.sim.bundle import simulation_label
    from engine.studies.sweep import with_changes

    project = with_changes(project, args.changes)
    duration_s = argtypes.duration_s(args.duration)
    monitor_dir = monitor_folder(args.monitor_csv) if args.monitor_csv else None
    if args.db:
        require_writable_store(args)
    event_texts = args.event or project.simulation.event_texts()  # none given: the project's own
    events = [parse_event(e) for e in event_texts]
    profile = None
    if args.profile:
        profile = profiles.load(args.profile)
    elif args.rate is not None:
        profile = profiles.constant(args.rate)
    label = simulation_label(duration_s, args.seed, event_texts, " ".join(args.changes))
    try:
        bar = Progress(duration_s, enabled=not args.quiet, label="simulate", unit=" s")
        try:
            res = simulate(
                project,
                duration_s,
                seed=args.seed,
                profile=profile,
                events=events,
                progress=lambda fraction: bar.update_to(fraction * duration_s),
                **({"stationary_windows": False} if args.every_transaction else {}),
            )
        finally:
            bar.close()
    except (QrtuneError, ArithmeticError, ValueError, KeyError, TypeError) as e:
        if args.db:  # nothing a user ran is lost: the failure is a run too, as for qrtune predict
            from engine.store import Store
            from engine.store.bundles import failure_bundle

            asked = None if profile is None else profile.to_json()
            bundle = failure_bundle(
                project,
                e,
                kind="simulate",
                seed=args.seed,
                label=label,
                settings=_settings(project, args, event_texts, asked),
            )
            with Store.open(args.db, wait_s=args.wait) as store:
                failed_id = store.record_run(project, bundle)
            print(f"qrtune simulate: recorded as failed run {failed_id} in {store.path}", file=sys.stderr)
        raise
    if monitor_dir is not None:
        for table in res.monitor:
            atomic_write_text(monitor_dir / f"{table}.csv", res.monitor_csv(table))
    run_id, not_recorded_why = None, ""
    if args.db:
        from engine.sim.bundle import simulation_bundle

        bundle = simulation_bundle(
            project,
            res,
            settings=_settings(project, args, event_texts, res.summary.get("profile")),
            label=label,
        )
        run_id, not_recorded_why = record_in_store(args, lambda store: store.record_run(project, bundle))
    if args.json:
        doc = {"project": project.name, **res.to_json(series=args.series)}
        if run_id is not None:
            doc["run_id"] = run_id
        jsonout.dump(doc, sys.stdout, indent=1, default=float)
        sys.stdout.write("\n")
    else:
        try:
            print(format_summary(res.summary, project.name))
            if run_id is not None:
                print(f"\n  recorded as run {run_id} in {args.db}")
        except BrokenPipeError:  # e.g. piped into head
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keep the interpreter quiet at exit
    if not_recorded_why:
        return not_recorded("simulate", args, not_recorded_why)
    return 0
