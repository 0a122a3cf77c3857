"""``qrtune evaluate FILE``: predict every scenario of a published-measurement file as JSON."""

from __future__ import annotations

import json
import sys

from engine.evaluate import evaluate_file


def register(sub) -> None:
    p = sub.add_parser(
        "evaluate", help="predict a scenario file (qrtune-scenarios/1) as JSON", description=__doc__
    )
    p.add_argument("file", metavar="FILE", help="scenario file")
    p.set_defaults(func=run)


def run(args) -> int:
    # json.dumps encodes in C; json.dump to a stream iterates in Python (half the time per scenario)
    sys.stdout.write(json.dumps(evaluate_file(args.file)) + "\n")
    return 0
