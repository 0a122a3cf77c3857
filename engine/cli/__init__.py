"""The ``qrtune`` command line.

Each subcommand lives in its own module under :mod:`engine.cli` and exposes
``register(subparsers)``; the module list below is the only shared place.
Errors a user can act on (:class:`engine.errors.QrtuneError`) print one line
on stderr and exit 2; nothing prints a traceback for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from engine.errors import QrtuneError

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
    "engine.cli.export",
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every available subcommand registered."""
    parser = argparse.ArgumentParser(
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
    try:
        return int(args.func(args) or 0)
    except QrtuneError as e:
        print(f"qrtune {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"qrtune {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into head/less that stopped reading: not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
