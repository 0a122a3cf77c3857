"""``qrtune report PROJECT|RUN_ID... --out FILE.pdf [--db PATH]``: a PDF report of projects or stored runs.

Each argument is a project file (predicted now) or the id of a run in the results
store. One argument gives a report of that configuration; several add a side-by-side
comparison with deltas against the first. ``--sweep ID`` reports a recorded sweep
(``qrtune runs --sweeps`` lists them): charts of throughput, APPLY_LATENCY and CPU
busy against the swept knob, every point, the pick and the base settings; projects
or runs given as well follow it. The PDF is drawn with Qt (imported here
only, when the command runs: the engine never imports it) and written atomically.
"""

from __future__ import annotations

import re
from pathlib import Path

from engine.cli import argtypes
from engine.cli.runs import add_db_options
from engine.errors import QrtuneError
from engine.io.atomicfile import writable_target


def register(sub) -> None:
    p = sub.add_parser("report", help="write a PDF report of projects or stored runs", description=__doc__)
    p.add_argument(
        "items",
        nargs="*",
        metavar="PROJECT|RUN_ID",
        help="project files and/or run ids of the results store (the first is the reference)",
    )
    p.add_argument(
        "--sweep",
        metavar="ID",
        type=argtypes.integer(0),
        help="report this sweep of the results store (qrtune runs --sweeps lists them)",
    )
    p.add_argument("--out", "-o", metavar="FILE.pdf", required=True, help="PDF file to write")
    add_db_options(p)
    p.add_argument(
        "--title",
        metavar="TEXT",
        default="",
        type=argtypes.text(200),
        help="report title (default: the project name)",
    )
    p.add_argument(
        "--no-validation",
        action="store_true",
        help="leave out the engine's score against the published measurements",
    )
    p.set_defaults(func=run)


def gather_runs(items: list[str], args) -> list:
    """ReportRuns of ``items``: existing files are projects, whole numbers are run ids."""
    from engine.report import run_from_project_file, runs_from_store

    kinds = []
    for item in items:
        if Path(item).is_file():
            kinds.append(("project", item))
        elif re.fullmatch(r"\d+", item):
            kinds.append(("run", int(item)))
        else:
            raise QrtuneError(f"{item!r} is neither a project file nor a run id (a whole number)")
    by_run = {}
    run_ids = [v for k, v in kinds if k == "run"]
    if run_ids:
        from engine.cli.runs import open_store

        with open_store(args, read_only=True) as store:
            by_run = dict(zip(run_ids, runs_from_store(store, run_ids)))
    return [run_from_project_file(v) if k == "project" else by_run[v] for k, v in kinds]


def run(args) -> int:
    from engine.report import build_report

    out = Path(args.out)
    if out.suffix.lower() != ".pdf":
        raise QrtuneError(f"--out: {str(out)!r} must name a .pdf file")
    if not out.parent.exists():
        raise QrtuneError(f"--out: folder {str(out.parent)!r} does not exist")
    writable_target(out)  # a folder, FIFO or device is refused before the report is built
    if args.sweep is not None:
        report = _sweep_report(args)
    elif not args.items:
        raise QrtuneError("give project files or run ids to report, or --sweep ID")
    else:
        report = build_report(
            gather_runs(args.items, args), title=args.title, validation=not args.no_validation
        )
    try:
        from app.report import write_pdf  # Qt is imported when a PDF is drawn, not when the parser is built
    except ImportError as e:
        raise QrtuneError(
            f"PDF output needs the workbench's Qt libraries, which cannot be loaded: {e}"
        ) from e
    pages = write_pdf(report, out)
    print(f"wrote {out} ({pages} pages)")
    return 0


def _sweep_report(args):
    from engine.cli.runs import open_store
    from engine.report.sweep import build_sweep_report, sweep_section

    with open_store(args, read_only=True) as store:
        section = sweep_section(store, args.sweep)
    return build_sweep_report(
        section, gather_runs(args.items, args), title=args.title, validation=not args.no_validation
    )
