"""``qrtune import-monitor FILE... [--project PROJECT]``: import monitor-table exports into the store.

FILEs are exports of IBMQREP_CAPMON, IBMQREP_CAPQMON or IBMQREP_APPLYMON from any release: CSV
with a header line, ``EXPORT ... OF DEL`` (no header; FOR BIT DATA columns as raw bytes or HEX()),
z/OS ``UNLOAD ... DELIMITED``, or the Db2 CLP's output (``db2`` or ``db2 -x``). The table is
recognised from the file name or its columns; a file without a header has the column order the
release documents (chosen by column count, or ``--release``). Give the IBMQREP_APPLYPARMS /
IBMQREP_CAPPARMS export too and its MONITOR_INTERVAL times each queue's first interval (else the
spacing of MONITOR_TIME does). Files are read, checked and written in batches, so memory does
not grow with their size; a malformed row is reported with file, line, column and value, and
nothing of the import is left in the store.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from engine.cli.runs import add_db_options, open_store, require_writable_store
from engine.io import jsonout
from engine.monitor.layouts import PLATFORMS, canonical_release
from engine.store.errors import MonitorImportError


def register(sub) -> None:
    p = sub.add_parser(
        "import-monitor",
        help="import IBMQREP_CAPMON/CAPQMON/APPLYMON exports (CSV, DEL, CLP)",
        description=__doc__,
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="export(s), and optionally the *PARMS export(s)")
    add_db_options(p)
    p.add_argument(
        "--project", metavar="PROJECT", help="project file the intervals belong to (for qrtune fit)"
    )
    p.add_argument(
        "--release",
        type=release_argument,
        help="Q Replication release whose column order headerless files have: 8.2 .. 11.5 FP, e.g. 11.5, "
        "9.7.3 (default: by column count and the types of the cells)",
    )
    p.add_argument(
        "--platform",
        choices=PLATFORMS,
        help="luw or zos: their IBMQREP_APPLYMON column orders differ from 9.7 on (default: by the cells)",
    )
    p.add_argument(
        "--columns",
        metavar="COL,COL,...",
        type=lambda s: [c for c in s.split(",") if c.strip()],
        help="the column order of every monitor FILE (overrides a header or the release layout)",
    )
    p.add_argument("--json", action="store_true", help="print what was imported as JSON")
    p.add_argument(
        "--quiet", action="store_true", help="no progress bar on stderr (there is one only on a terminal)"
    )
    p.set_defaults(func=run)


def release_argument(text: str) -> str:
    """``--release``: the documented release ``text`` names (argparse's one-line error otherwise)."""
    try:
        return canonical_release(text)
    except MonitorImportError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("--release ")) from None


def _summary(import_id: int, pf) -> dict:
    return {
        "import_id": import_id,
        "file": pf.file,
        "table": pf.table.name,
        "shape": pf.shape,
        "rows": pf.n_rows,
        "numeric_columns": list(pf.numeric_columns),
        "ignored_columns": list(pf.ignored_columns),
        "monitor_interval_from": pf.interval_source,
        "first_monitor_time": pf.first_monitor_time.isoformat(timespec="microseconds")
        if pf.first_monitor_time
        else None,
        "last_monitor_time": pf.last_monitor_time.isoformat(timespec="microseconds")
        if pf.last_monitor_time
        else None,
    }


def _when(t) -> str:
    """A monitor time as a user reads it: to the second, microseconds only when it has them."""
    if t is None:
        return "?"
    return t.isoformat(sep=" ", timespec="microseconds" if t.microsecond else "seconds")


def _kilobytes(files) -> float:
    """The files' size in kB (what the progress bar counts); an unreadable file counts 0 (its import says why)."""
    total = 0
    for f in files:
        with contextlib.suppress(OSError):
            total += os.path.getsize(f)
    return total / 1e3


def run(args) -> int:
    from engine.monitor.importer import import_files
    from engine.progress import Progress

    project_name = ""
    if args.project:
        from engine import projectfile

        project_name = projectfile.load(args.project).name
    require_writable_store(args)
    bar = Progress(
        max(_kilobytes(args.files), 1.0),
        enabled=not args.quiet and sys.stderr.isatty(),
        label="import-monitor",
        unit=" kB",
    )
    with open_store(args) as store:
        try:
            imported = import_files(
                store,
                args.files,
                project_name,
                release=args.release,
                columns=args.columns,
                platform=args.platform,
                progress=lambda share, _text: bar.update_to(share * bar.total),
            )
            bar.update_to(bar.total)
        finally:
            bar.close()
        done = [_summary(i, pf) for i, pf in imported]
    if args.json:
        jsonout.dump({"db": str(store.path), "project": project_name, "imports": done}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    for (_, pf), d in zip(imported, done):
        span = f"{_when(pf.first_monitor_time)} .. {_when(pf.last_monitor_time)}" if d["rows"] else "no rows"
        print(
            f"{d['file']}: {d['rows']} rows of {d['table']} ({d['shape']}; {len(d['numeric_columns'])} numeric "
            f"columns; {span}; MONITOR_INTERVAL from the {d['monitor_interval_from']}) -> import {d['import_id']}"
        )
        if d["ignored_columns"]:
            print(f"  columns qrtune does not read, not imported: {', '.join(d['ignored_columns'])}")
    target = f" for project {project_name!r}" if project_name else ""
    print(f"imported {sum(d['rows'] for d in done)} rows from {len(done)} file(s){target} into {store.path}")
    return 0
