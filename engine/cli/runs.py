"""``qrtune runs [--db PATH]``: list the runs in a results store, newest first.

``--sweep ID`` lists one sweep's points in sweep order with their key metrics side by side
(throughput, APPLY_LATENCY, END2END_LATENCY, Q Apply LPAR busy; ``--metrics`` picks others),
e.g. to find the fewest apply agents that hold a target rate with CPU under 90 %.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Iterator

from engine.cli import argtypes
from engine.errors import QrtuneError
from engine.io import jsonout
from engine.limit import bottleneck_label
from engine.metrics.catalog import format_number

#: Seconds a command waits by default for another process (the workbench, a sweep) holding the store.
DEFAULT_WAIT_S = 10.0


def add_db_options(p, wait_default: float = DEFAULT_WAIT_S, db_help: str | None = None) -> None:
    """``--db PATH`` and ``--wait SECONDS``, shared by every command that uses the store."""
    p.add_argument(
        "--db",
        metavar="PATH",
        default=None,
        type=store_path,
        help=db_help or "results store file (default: runs.duckdb in the user data directory, or $QRTUNE_DB)",
    )
    argtypes.add_number(
        p,
        "--wait",
        "wait this long for another process holding the store",
        minimum=0.0,
        maximum=argtypes.MAX_WAIT_S,
        unit="s",
        default=wait_default,
        metavar="SECONDS",
    )


def store_path(text: str) -> str:
    """``--db``'s value: refused at once when it is no DuckDB store (a JSON file, a folder, a damaged store).

    Raises
    ------
    argparse.ArgumentTypeError
        :func:`engine.store.connection.check_store_file`'s message.
    """
    from engine.store.connection import check_store_file

    try:
        check_store_file(text)
    except QrtuneError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("--db ")) from None
    return text


def require_writable_store(args) -> None:
    """Before any work: the store ``args.db`` names (the default when None) can be written.

    Raises
    ------
    StoreError
        :func:`engine.store.connection.check_store_writable`'s message; a damaged store
        (:class:`~engine.store.errors.DamagedStoreError`), a store from a newer qrtune, or one
        another process holds longer than ``args.wait``.
    """
    from engine.store.connection import check_store_writable, default_db_path

    path = args.db if args.db is not None else default_db_path()
    check_store_writable(path)
    if os.path.exists(path):  # opened once (and closed): a damaged or newer store is refused now
        open_store(args).close()


def record_in_store(args, record: Callable) -> tuple[int | None, str]:
    """``record(store)`` on the store ``args`` names, opened for writing: ``(its result, "")``, or
    ``(None, why)`` when the store cannot be written, so finished results are still shown."""
    try:
        with open_store(args) as store:
            return record(store), ""
    except (QrtuneError, OSError) as e:
        return None, str(e)
    except Exception as e:  # DuckDB's own errors (a full disk, a damaged file) name what failed
        if type(e).__module__.split(".")[0] != "duckdb" and not type(e).__module__.startswith("_duckdb"):
            raise
        return None, f"{type(e).__name__}: {e}"


def not_recorded(command: str, args, why: str) -> int:
    """Say on stderr (one line) that the results printed were not recorded and how to record them; exit 4."""
    from engine.cli.exitcodes import EXIT_PARTIAL
    from engine.errors import one_line

    where = args.db if args.db is not None else "the default store"
    print(
        one_line(
            f"qrtune {command}: the results above were not recorded in {where}: {why}; to record them, "
            "re-run the same command with --db naming a store that can be written"
        ),
        file=sys.stderr,
    )
    return EXIT_PARTIAL


def keep_waiting(store, command: str) -> None:
    """Make a resumable writer (a sweep, a study) wait for the store as long as another process holds it,
    saying every few seconds on stderr how long it has waited and that finished points are kept."""

    def report(waited_s: float, holder: str) -> None:
        print(
            f"qrtune {command}: waiting {waited_s:.0f} s for the results store {store.path}, held by another "
            f"process{holder}; finished points are kept (Ctrl-C stops; the same command resumes)",
            file=sys.stderr,
            flush=True,
        )

    store.reacquire_wait_s = math.inf
    store.on_wait = report


def open_store(args, read_only: bool = False):
    """Open the store ``args.db`` names (the default file when None).

    When another process holds the file, say so on stderr and wait up to ``args.wait`` seconds.
    A store from an older qrtune is migrated first (a read-only open cannot).

    Raises
    ------
    StoreLockedError
        Still held after the wait; the message names the file and the process.
    """
    from engine.store import Store, StoreLockedError, StoreNeedsMigrationError

    def attempt(read_only: bool):
        try:
            return Store.open(args.db, read_only=read_only)
        except StoreLockedError as e:
            if args.wait <= 0:
                raise
            print(
                f"qrtune: {str(e).split(';')[0]}; waiting up to {args.wait:g} s", file=sys.stderr, flush=True
            )
        return Store.open(args.db, read_only=read_only, wait_s=args.wait)

    try:
        return attempt(read_only)
    except StoreNeedsMigrationError:  # a store from an older qrtune: migrate it once, then read
        attempt(False).close()
        return attempt(read_only)


def register(sub) -> None:
    p = sub.add_parser("runs", help="list the runs in a results store", description=__doc__)
    add_db_options(p)
    p.add_argument("--project", metavar="NAME", help="only runs of this project name")
    from engine.store.records import RUN_KINDS

    p.add_argument("--kind", metavar="KIND", help=f"only runs of this kind ({', '.join(RUN_KINDS)})")
    p.add_argument("--sweep", metavar="ID", type=argtypes.integer(0), help="only the points of this sweep")
    argtypes.add_integer(p, "--limit", "at most N runs, 0 for all", default=50)
    p.add_argument(
        "--metrics",
        metavar="NAME[,NAME...]",
        help="show these metrics as columns (with --sweep, default: throughput, APPLY_LATENCY, "
        "END2END_LATENCY and Q Apply LPAR busy when the runs have them)",
    )
    p.add_argument(
        "--sweeps",
        action="store_true",
        help="list the sweeps instead (id, axes, points recorded; an unfinished one resumes when "
        "its qrtune sweep command runs again)",
    )
    p.add_argument("--json", action="store_true", help="print the runs as JSON")
    p.set_defaults(func=run)


#: Metrics shown for a sweep's points unless --metrics says otherwise (those the runs have).
SWEEP_METRICS = ("apply_rows_per_s", "apply_latency_ms", "end2end_latency_ms", "apply_lpar_busy_pct")


def _metric_columns(args, units: dict[str, str]) -> list[str]:
    """The metrics shown as columns: ``--metrics``, else for a sweep its key metrics (those recorded)."""
    if args.metrics:
        return [m.strip() for m in args.metrics.split(",") if m.strip()]
    if args.sweep is None:
        return []
    chosen = [m for m in SWEEP_METRICS if m in units]
    return chosen or list(units)[:4]  # another engine: its first metrics


def _values_text(values: list) -> str:
    """``1..16`` for consecutive integers, else the comma list."""
    if (
        len(values) > 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in values)
        and values == list(range(values[0], values[0] + len(values)))
    ):
        return f"{values[0]}..{values[-1]}"
    return ",".join(map(str, values))


def _list_sweeps(args) -> int:
    with open_store(args, read_only=True) as store:
        sweeps = store.list_sweeps(project_name=args.project)
    if args.limit:
        sweeps = sweeps[: args.limit]
    if args.json:
        jsonout.dump([dict(s, started=s["started"].isoformat()) for s in sweeps], sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    if not sweeps:
        print("no sweeps recorded")
        return 0
    print(f"{'sweep':>6}  {'started (UTC)':<19}  {'points':>13}  {'project':<32}  axes")
    for s in sweeps:
        done = f"{s['n_done']}/{s['n_points']}" + ("" if s["n_done"] == s["n_points"] else " (unfinished)")
        axes = " x ".join(f"{a['target']}.{a['param']}={_values_text(a['values'])}" for a in s["axes"])
        failed = f"  [{s['n_failed']} failed]" if s["n_failed"] else ""
        print(
            f"{s['id']:>6}  {s['started']:%Y-%m-%d %H:%M:%S}  {done:>13}  {s['project_name'][:32]:<32}  "
            f"{axes}{failed}"
        )
    return 0


def run(args) -> int:
    if args.sweeps:
        return _list_sweeps(args)
    select = {"project_name": args.project, "kind": args.kind, "sweep_id": args.sweep}
    with open_store(args, read_only=True) as store:
        total = store.count_runs(**select)
        units = store.metric_units(**select) if (args.metrics or args.sweep is not None) else {}
        columns = _metric_columns(args, units)
        chunks = _with_metrics(store, store.iter_runs(**select, limit=args.limit or None), columns)
        if args.json:
            jsonout.dump_array(
                (_run_json(r, values, columns) for runs, values in chunks for r in runs), sys.stdout
            )
            sys.stdout.write("\n")
            return 0
        shown = _print_tables(chunks, columns, units)
    if not shown:
        print(_no_runs_text(args.kind, total))
    elif shown < total:
        print(f"({shown} of {total} runs shown; --limit 0 shows all)")
    return 0


def _with_metrics(store, chunks, columns: list) -> Iterator[tuple[list, dict]]:
    """Each chunk of runs with its runs' metric values (only when metric ``columns`` are shown)."""
    for runs in chunks:
        yield runs, (store.metrics_of([r.id for r in runs]) if columns else {})


def _print_tables(chunks, columns: list, units: dict[str, str]) -> int:
    """Print the runs chunk by chunk under one heading; returns how many were printed."""
    shown = 0
    for runs, values in chunks:
        if columns:
            lines = _metric_lines(runs, values, columns, units, heading=not shown)
        else:
            lines = _run_lines(runs, heading=not shown)
        print("\n".join(lines))
        shown += len(runs)
    return shown


def _run_json(r, values: dict, columns: list) -> dict:
    """Run ``r`` as ``qrtune runs --json`` prints it, with its values of the metric ``columns`` if any."""
    doc = {
        "id": r.id,
        "project": r.project_name,
        "kind": r.kind,
        "status": r.status,
        "started": r.started.isoformat(),
        "scenario_kind": r.scenario_kind,
        "bottleneck": r.bottleneck,
        "sweep_id": r.sweep_id,
        "point_index": r.point_index,
        "label": r.label,
        "error": r.error,
        "engine_version": r.engine_version,
        "coefficients_version": r.coefficients_version,
        "seed": r.seed,
        "project_hash": r.project_hash,
    }
    if columns:
        doc["metrics"] = {m: values.get(r.id, {}).get(m, (None,))[0] for m in columns}
    return doc


def _no_runs_text(kind: str | None, total: int) -> str:
    """What to say when no run is listed: none of that kind (naming the kinds recorded), none match, none yet."""
    if kind is not None and not total:
        from engine.store.records import RUN_KINDS

        return f"no runs of kind {kind!r}" + (
            "" if kind in RUN_KINDS else f" (qrtune records {', '.join(RUN_KINDS)})"
        )
    return "no runs" + (" match" if total else " recorded yet")


def _metric_lines(runs: list, values: dict, columns: list, units: dict[str, str], heading: bool) -> list[str]:
    """The runs as rows of their values of the metric ``columns`` (IBM's names, with units), then
    label or bottleneck; under the table's heading when ``heading``."""
    from engine.metrics import label as metric_label

    kind = runs[0].scenario_kind if runs else None
    names = [metric_label(m, kind) for m in columns]
    heads = [f"{n} ({units[m]})" if units.get(m) else n for n, m in zip(names, columns)]
    widths = [max(10, len(h)) for h in heads]
    lines = (
        [
            f"{'id':>6}  {'status':<6}  "
            + "  ".join(h.rjust(w) for h, w in zip(heads, widths))
            + "  label / bottleneck"
        ]
        if heading
        else []
    )
    for r in runs:
        cells = [
            format_number(values.get(r.id, {}).get(m, (None,))[0]).rjust(w) for m, w in zip(columns, widths)
        ]
        if r.status != "ok":
            note = f"{r.label}  ({r.error})"
        else:
            note = r.label + (f"  [{bottleneck_label(r.bottleneck)}]" if r.bottleneck else "")
        lines.append(f"{r.id:>6}  {r.status:<6}  " + "  ".join(cells) + f"  {note.strip()}")
    return lines


def _run_lines(runs: list, heading: bool) -> list[str]:
    """The runs as rows: id, start, kind, status, project, then label and why it failed or its bottleneck;
    under the table's heading when ``heading``."""
    head = f"{'id':>6}  {'started (UTC)':<19}  {'kind':<8} {'status':<6}  {'project':<32}  label / bottleneck"
    lines = [head] if heading else []
    for r in runs:
        note = r.label or ""
        if r.status != "ok":
            note = f"{note} ({r.error})".strip()
        elif r.bottleneck:
            note = f"{note}  [{bottleneck_label(r.bottleneck)}]".strip()
        lines.append(
            f"{r.id:>6}  {r.started:%Y-%m-%d %H:%M:%S}  {r.kind:<8} {r.status:<6}  {r.project_name[:32]:<32}  {note}"
        )
    return lines
