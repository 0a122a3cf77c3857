"""``qrtune evaluate FILE``: predict every scenario of a published-measurement file as JSON."""

from __future__ import annotations

import sys

from engine.evaluate import evaluate_file
from engine.io import jsonout


def register(sub) -> None:
    p = sub.add_parser(
        "evaluate", help="predict a scenario file (qrtune-scenarios/1) as JSON", description=__doc__
    )
    p.add_argument("file", metavar="FILE", help="scenario file")
    p.set_defaults(func=run)


def run(args) -> int:
    # jsonout.dumps encodes in C (json.dump to a stream iterates in Python: half the time per scenario)
    sys.stdout.write(jsonout.dumps(evaluate_file(args.file)) + "\n")
    return 0
