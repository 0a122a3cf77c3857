"""``qrtune validate PROJECT...``: check project files and say what is wrong."""

from __future__ import annotations

import sys

from engine import projectfile
from engine.errors import QrtuneError
from engine.topology import check_complete


def register(sub) -> None:
    p = sub.add_parser("validate", help="check project files", description=__doc__)
    p.add_argument("projects", nargs="+", metavar="PROJECT", help="project file(s) to check")
    p.set_defaults(func=run)


def run(args) -> int:
    status = 0
    for path in args.projects:
        try:
            project = projectfile.load(path)
            check_complete(project)
        except QrtuneError as e:
            print(f"{path}: invalid: {e}", file=sys.stderr)
            status = 2
            continue
        print(f"{path}: ok ({project.topology}, {len(project.nodes)} nodes, {len(project.links)} links)")
    return status
