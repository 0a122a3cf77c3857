"""The ``qrtune`` command line.

Each subcommand lives in its own module under :mod:`engine.cli` and exposes
``register(subparsers)``; the module list below is the only shared place.
Every command ends in exit 0 or one line on stderr (:mod:`engine.cli.guard`):
errors a user can act on (:class:`engine.errors.QrtuneError`) exit 2, anything
else with a code of :mod:`engine.cli.exitcodes`; nothing prints a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from engine.cli.guard import OneLineArgumentParser, run_guarded

SUBCOMMANDS = (
    "engine.cli.validate",
    "engine.cli.evaluate",
    "engine.cli.predict",
    "engine.cli.simulate",
    "engine.cli.gui",
    "engine.cli.mqcalc",
    "engine.cli.sweep",
    "engine.cli.compare",
    "engine.cli.runs",
    "engine.cli.import_monitor",
    "engine.cli.fit",
    "engine.cli.report",
    "engine.cli.advise",
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every available subcommand registered."""
    parser = OneLineArgumentParser(
        prog="qrtune",
        description="qrtune, the Q Replication Tuning Workbench: predict, simulate and compare "
        "Q Replication, MQ and Db2 Mirror configurations.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``qrtune``; returns the exit status (0 ok, 1 failure, 2 bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    return run_guarded(args.command, lambda: args.func(args))


if __name__ == "__main__":
    sys.exit(main())
