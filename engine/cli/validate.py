"""``qrtune validate PROJECT...``: check project files and say what is wrong."""

from __future__ import annotations

import sys

from engine import projectfile
from engine.cli.exitcodes import EXIT_INPUT, EXIT_OK, EXIT_USAGE
from engine.errors import InputFileError, QrtuneError
from engine.io import jsonout
from engine.topology import check_complete


def register(sub) -> None:
    p = sub.add_parser("validate", help="check project files", description=__doc__)
    p.add_argument(
        "projects", nargs="+", metavar="PROJECT", help="project file(s) to check ('-': standard input)"
    )
    p.add_argument("--json", action="store_true", help="print one result per file as JSON")
    p.set_defaults(func=run)


def _check(path: str) -> dict:
    try:
        project = projectfile.load(path)
        check_complete(project)
    except QrtuneError as e:
        return {"file": path, "ok": False, "error": str(e), "unreadable": isinstance(e, InputFileError)}
    return {
        "file": path,
        "ok": True,
        "topology": project.topology,
        "nodes": len(project.nodes),
        "links": len(project.links),
    }


def run(args) -> int:
    results = [_check(path) for path in args.projects]
    if args.json:
        print(jsonout.dumps(results, indent=1))
    for r in results if not args.json else ():
        if r["ok"]:
            print(f"{r['file']}: ok ({r['topology']}, {r['nodes']} nodes, {r['links']} links)")
        else:
            print(f"{r['file']}: invalid: {r['error']}", file=sys.stderr)
    if any(r.get("unreadable") for r in results):
        return EXIT_INPUT
    return EXIT_OK if all(r["ok"] for r in results) else EXIT_USAGE
