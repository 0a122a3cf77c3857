"""``qrtune import-monitor FILE... [--project PROJECT]``: import monitor-table CSV exports into the store.

Files are CSV exports (with a header line) of IBMQREP_CAPMON, IBMQREP_CAPQMON or
IBMQREP_APPLYMON from any release; the table is recognised from the file name or its
columns. All files are checked first: a malformed row is reported with file and line
and nothing is imported.
"""

from __future__ import annotations

from engine.cli.runs import add_db_options, open_store


def register(sub) -> None:
    p = sub.add_parser("import-monitor", help="import IBMQREP_CAPMON/CAPQMON/APPLYMON CSV exports",
                       description=__doc__)
    p.add_argument("files", nargs="+", metavar="FILE", help="CSV export(s)")
    add_db_options(p)
    p.add_argument("--project", metavar="PROJECT", help="project file the intervals belong to (for qrtune fit)")
    p.set_defaults(func=run)


def run(args) -> int:
    from engine.monitor_import import parse_file, write_parsed

    project_name = ""
    if args.project:
        from engine import projectfile

        project_name = projectfile.load(args.project).name
    parsed = [parse_file(f) for f in args.files]  # check everything before taking the store's lock
    with open_store(args) as store:
        done = write_parsed(store, parsed, project_name)
    for import_id, pf in done:
        times = pf.monitor_time
        span = f"{times.min()} .. {times.max()}" if len(times) else "no rows"
        print(f"{pf.file}: {pf.n_rows} rows of {pf.table.name} ({len(pf.numeric_columns)} numeric columns; {span})"
              f" -> import {import_id}")
        if pf.ignored_columns:
            print(f"  text columns not imported: {', '.join(pf.ignored_columns)}")
    target = f" for project {project_name!r}" if project_name else ""
    print(f"imported {sum(pf.n_rows for _, pf in done)} rows from {len(done)} file(s){target} into {store.path}")
    return 0
