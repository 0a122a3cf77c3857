"""``qrtune gui [PROJECT]``: open the workbench window (PySide6 is imported only here)."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("gui", help="open the workbench", description=__doc__)
    p.add_argument("project", nargs="?", metavar="PROJECT", help="project file to open")
    p.add_argument(
        "--smoke-test",
        metavar="DIR",
        help="open offscreen, save a screenshot of each main view into DIR and exit",
    )
    p.set_defaults(func=run)


def run(args) -> int:
    from app.main import run_gui  # Qt is imported when the window opens, not when the parser is built

    return run_gui(args.project, smoke_test_dir=args.smoke_test)
