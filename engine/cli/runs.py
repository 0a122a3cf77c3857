"""``qrtune runs [--db PATH]``: list the runs in a results store, newest first."""

from __future__ import annotations

import json
import sys

#: Seconds a command waits by default for another process (the workbench, a sweep) holding the store.
DEFAULT_WAIT_S = 10.0


def add_db_options(p, wait_default: float = DEFAULT_WAIT_S, db_help: str | None = None) -> None:
    """``--db PATH`` and ``--wait SECONDS``, shared by every command that uses the store."""
    p.add_argument("--db", metavar="PATH", default=None,
                   help=db_help or "results store file (default: runs.duckdb in the user data directory, "
                   "or $QRTUNE_DB)")
    p.add_argument("--wait", metavar="SECONDS", type=float, default=wait_default,
                   help="wait this long for another process holding the store (default: %(default)s)")


def open_store(args, read_only: bool = False):
    """Open the store ``args.db`` names (the default file when None).

    When another process holds the file, say so on stderr and wait up to ``args.wait`` seconds.

    Raises
    ------
    StoreLockedError
        Still held after the wait; the message names the file and the process.
    """
    from engine.store import Store, StoreLockedError

    try:
        return Store.open(args.db, read_only=read_only)
    except StoreLockedError as e:
        if args.wait <= 0:
            raise
        print(f"qrtune: {str(e).split(';')[0]}; waiting up to {args.wait:g} s", file=sys.stderr, flush=True)
    return Store.open(args.db, read_only=read_only, wait_s=args.wait)


def register(sub) -> None:
    p = sub.add_parser("runs", help="list the runs in a results store", description=__doc__)
    add_db_options(p)
    p.add_argument("--project", metavar="NAME", help="only runs of this project name")
    p.add_argument("--kind", metavar="KIND", help="only runs of this kind (predict, simulate, sweep, gui, fit)")
    p.add_argument("--sweep", metavar="ID", type=int, help="only the points of this sweep")
    p.add_argument("--limit", metavar="N", type=int, default=50, help="at most N runs (0: all; default 50)")
    p.add_argument("--json", action="store_true", help="print the runs as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    with open_store(args, read_only=True) as store:
        runs = store.list_runs(project_name=args.project, kind=args.kind, sweep_id=args.sweep,
                               limit=args.limit or None)
        total = store.count_runs()
    if args.json:
        json.dump([{"id": r.id, "project": r.project_name, "kind": r.kind, "status": r.status,
                    "started": r.started.isoformat(), "scenario_kind": r.scenario_kind, "bottleneck": r.bottleneck,
                    "sweep_id": r.sweep_id, "point_index": r.point_index, "label": r.label, "error": r.error,
                    "engine_version": r.engine_version, "coefficients_version": r.coefficients_version,
                    "seed": r.seed, "project_hash": r.project_hash} for r in runs], sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    if not runs:
        print("no runs" + (" match" if total else " recorded yet"))
        return 0
    print(f"{'id':>6}  {'started (UTC)':<19}  {'kind':<8} {'status':<6}  {'project':<32}  label / bottleneck")
    for r in runs:
        note = r.label or ""
        if r.status != "ok":
            note = f"{note} ({r.error})".strip()
        elif r.bottleneck:
            note = f"{note}  [{r.bottleneck}]".strip()
        print(f"{r.id:>6}  {r.started:%Y-%m-%d %H:%M:%S}  {r.kind:<8} {r.status:<6}  {r.project_name[:32]:<32}  {note}")
    if len(runs) < total:
        print(f"({len(runs)} of {total} runs shown; --limit 0 shows all)")
    return 0
