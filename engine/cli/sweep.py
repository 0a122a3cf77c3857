"""``qrtune sweep PROJECT --set TARGET.PARAM=VALUES ...``: predict the cartesian product into the store.

TARGET is a node kind (every node of that kind) or a node id; VALUES a comma list of values
and integer ranges LOW..HIGH[:STEP], e.g. ``--set qapply.num_apply_agents=1,4,8,16
--set qcapture.trans_batch_sz=1..5``. Points run on a local process pool, or on a Dask
cluster with ``--scheduler tcp://HOST:PORT``, and are recorded as they finish; run the
same command again to resume an interrupted sweep. The store file is held only while points
are written (twice a second at most), so the workbench can use it during a long sweep. A sweep
with failed points exits 4. With ``--simulate`` the points are simulations over time, with
outage scenarios and seeds (:mod:`engine.cli.study`).
"""

from __future__ import annotations

import argparse
import sys

from engine.cli import argtypes
from engine.cli.exitcodes import EXIT_OK, EXIT_PARTIAL
from engine.cli.options import execution_options, project_command
from engine.cli.runs import add_db_options, keep_waiting, open_store, require_writable_store
from engine.cli.study import add_study_options, run_study_command
from engine.io import jsonout

#: The sweep writes finished points at most this often (s) and lets go of the store file in
#: between, so the workbench and other commands can open it while a long sweep runs.
FLUSH_INTERVAL_S = 0.5


def register(sub) -> None:
    p = project_command(sub, "sweep", "sweep knobs over their values and record every point", __doc__)
    p.add_argument(
        "--set",
        dest="axes",
        action="append",
        default=[],
        metavar="TARGET.PARAM=VALUES",
        help="one sweep axis; repeat for a cartesian product",
    )
    add_db_options(p)
    argtypes.add_integer(
        p,
        "--workers",
        "local worker processes, 0 to run the points in this process",
        maximum=1024,
        default_text="the CPU count",
    )
    p.add_argument(
        "--scheduler",
        type=argtypes.scheduler_address,
        metavar="tcp://HOST:PORT",
        help="run the points on this Dask scheduler",
    )
    argtypes.add_integer(p, "--batch-size", "points per task", minimum=1, maximum=1_000_000)
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--yes", action="store_true", help="run a grid of more than 100,000 points")
    p.add_argument("--predictor", default=None, help=argparse.SUPPRESS)
    add_study_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from engine import projectfile
    from engine.errors import FieldError
    from engine.studies.sweep import DEFAULT_PREDICTOR, MAX_GRID_POINTS, n_points, parse_axes, run_sweep

    project = projectfile.load(args.project)
    require_writable_store(args)
    if args.simulate:
        return run_study_command(args, project, open_store)
    axes = parse_axes(args.axes, project)
    if n_points(axes) > MAX_GRID_POINTS and not args.yes:
        raise FieldError(
            "--set",
            f"{n_points(axes):,} points",
            f"at most {MAX_GRID_POINTS:,} points without --yes (a large grid runs for hours)",
        )
    with open_store(args) as store:
        keep_waiting(store, "sweep")
        try:
            result = run_sweep(
                project,
                axes,
                store,
                **execution_options(args),
                predictor=args.predictor or DEFAULT_PREDICTOR,
                flush_interval_s=FLUSH_INTERVAL_S,
                release_between_writes=True,
            )
        except KeyboardInterrupt:
            print(
                f"\nqrtune sweep: interrupted; finished points are in {store.path}; run the same command "
                "again to resume",
                file=sys.stderr,
            )
            return 130
        n_runs, n_ok, first_ok, last_ok = store.sweep_run_counts(result.sweep_id)
    status = EXIT_PARTIAL if n_ok < n_runs else EXIT_OK  # failed points, now or before
    summary = {
        "sweep_id": result.sweep_id,
        "points": result.n_points,
        "already_stored": result.n_skipped,
        "run_now": result.n_run,
        "failed": result.n_failed,
        "elapsed_s": round(result.elapsed_s, 3),
        "db": str(store.path),
        "axes": {a.name: list(a.values) for a in axes},
    }
    if args.json:
        jsonout.dump(summary, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return status
    print(
        f"sweep {result.sweep_id}: {n_points(axes)} points over "
        + " x ".join(f"{a.name} ({len(a.values)})" for a in axes)
    )
    print(
        f"  {result.n_run} predicted now, {result.n_skipped} already stored, {result.n_failed} failed, "
        f"{result.elapsed_s:.2f} s; store {store.path}"
    )
    if n_ok:
        print(f"  list them: qrtune runs --sweep {result.sweep_id} --db {store.path}")
        print(f"  compare the first and last point: qrtune compare {first_ok} {last_ok} --db {store.path}")
    return status
