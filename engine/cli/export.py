"""``qrtune export RUN_ID...|--sweep ID --format csv|parquet --out FILE``: runs as a table for other tools.

One row per run: its kind, status, sweep point, key settings under IBM's names (NUM_APPLY_AGENTS,
TRANS_BATCH_SZ, COMMIT_INTERVAL_ms, BATCHSZ, BUFFPOOL_pages ...) and every metric it has, side by
side (the store's ``run_summary`` view plus the other metrics; ``docs/store.md``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from engine.cli.runs import add_db_options, open_store
from engine.io import jsonout

#: The file formats ``qrtune export`` writes.
FORMATS = ("csv", "parquet")


def register(sub) -> None:
    p = sub.add_parser(
        "export", help="write runs or a sweep as CSV or Parquet (one row per run)", description=__doc__
    )
    p.add_argument("runs", nargs="*", type=int, metavar="RUN_ID", help="runs to export")
    p.add_argument("--sweep", type=int, metavar="ID", help="export every point of this sweep")
    p.add_argument(
        "--format",
        default=None,
        choices=FORMATS,
        help="file format (default: parquet for a .parquet or .pq file, else csv)",
    )
    p.add_argument("--out", "-o", required=True, metavar="FILE", help="file to write")
    add_db_options(p)
    p.add_argument("--json", action="store_true", help="print what was written as JSON")
    p.set_defaults(func=run)


def file_format(out: str, given: str | None) -> str:
    """The format to write ``out`` in: ``given``, else what its extension names (csv by default)."""
    if given is not None:
        return given
    return "parquet" if Path(out).suffix.lower() in (".parquet", ".pq") else "csv"


def run(args) -> int:
    from engine.store.export import export_runs

    args.format = file_format(args.out, args.format)
    if bool(args.runs) == (args.sweep is not None):
        print("qrtune export: give run ids or --sweep ID (one of them)", file=sys.stderr)
        return 2
    with open_store(args, read_only=True) as store:
        n = export_runs(store, args.out, args.format, run_ids=args.runs or None, sweep_id=args.sweep)
    if args.json:
        print(jsonout.dumps({"out": args.out, "format": args.format, "rows": n}))
    else:
        print(f"wrote {n} run(s) to {args.out} ({args.format})")
    return 0
