"""``qrtune compare RUN_ID RUN_ID... [--format table|json|csv]``: settings that differ and metric deltas.

Every metric of the runs side by side, with absolute and percent deltas against the first run.
"""

from __future__ import annotations

import sys

from engine.cli import argtypes
from engine.cli.runs import add_db_options, open_store
from engine.io import jsonout


def register(sub) -> None:
    p = sub.add_parser("compare", help="compare stored runs side by side", description=__doc__)
    p.add_argument(
        "run_ids",
        nargs="+",
        type=argtypes.integer(0),
        metavar="RUN_ID",
        help="runs to compare (the first is the reference)",
    )
    add_db_options(p)
    p.add_argument("--format", choices=("table", "json", "csv"), default="table", help="output format")
    p.add_argument(
        "--json", dest="format", action="store_const", const="json", help="the same as --format json"
    )
    p.set_defaults(func=run)


def run(args) -> int:
    from engine.compare import compare_runs, format_csv, format_table

    with open_store(args, read_only=True) as store:
        comparison = compare_runs(store, args.run_ids)
    if args.format == "json":
        jsonout.dump(comparison.to_json(), sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif args.format == "csv":
        sys.stdout.write(format_csv(comparison))
    else:
        print(format_table(comparison))
    return 0
