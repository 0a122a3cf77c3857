"""The ``qrtune`` command line.

Each subcommand lives in its own module under :mod:`engine.cli` and exposes
``register(subparsers)``; the module list below is the only shared place. The
subcommands that need Qt (``gui``, ``report``) live in :mod:`app.commands`; the
``qrtune`` command (:mod:`qrtune.cli`) registers both lists.
Every command ends in exit 0 or one line on stderr (:mod:`engine.cli.guard`):
errors a user can act on (:class:`engine.errors.QrtuneError`) exit 2, anything
else with a code of :mod:`engine.cli.exitcodes`; nothing prints a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from engine.cli.exitcodes import EXIT_INTERNAL
from engine.cli.guard import OneLineArgumentParser, run_guarded
from engine.store.provenance import engine_version

SUBCOMMANDS = (
    "engine.cli.validate",
    "engine.cli.evaluate",
    "engine.cli.predict",
    "engine.cli.simulate",
    "engine.cli.mqcalc",
    "engine.cli.sweep",
    "engine.cli.worker",
    "engine.cli.compare",
    "engine.cli.runs",
    "engine.cli.import_monitor",
    "engine.cli.import_config",
    "engine.cli.fit",
    "engine.cli.advise",
    "engine.cli.export",
)


def build_parser(subcommands: tuple[str, ...] = SUBCOMMANDS) -> argparse.ArgumentParser:
    """The argument parser with every subcommand of ``subcommands`` (module names) registered.

    Raises
    ------
    ModuleNotFoundError
        A listed module is missing (an incomplete install or bundle): never skipped silently.
    """
    parser = OneLineArgumentParser(
        prog="qrtune",
        description="qrtune, the Q Replication Tuning Workbench: predict, simulate and compare "
        "Q Replication, MQ and Db2 Mirror configurations.",
    )
    parser.add_argument("--version", action="version", version=f"qrtune {engine_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in subcommands:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None, subcommands: tuple[str, ...] = SUBCOMMANDS) -> int:
    """Run ``qrtune`` with ``subcommands`` (module names; :mod:`qrtune.cli` adds the workbench's).

    Returns the exit status (0 ok, 1 failure, 2 bad input).
    """
    try:
        parser = build_parser(subcommands)
    except ModuleNotFoundError as e:  # a broken install: one line, not a traceback
        print(
            f"qrtune: this installation is incomplete (no module {e.name}); reinstall qrtune", file=sys.stderr
        )
        return EXIT_INTERNAL
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    return run_guarded(args.command, lambda: args.func(args))


if __name__ == "__main__":
    sys.exit(main())
