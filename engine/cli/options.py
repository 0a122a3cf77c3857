"""Options several qrtune commands share, declared once so they read and behave the same everywhere."""

from __future__ import annotations

import argparse

from engine.cli import argtypes


def project_command(sub, name: str, help: str, description: str, keep_layout: bool = False):
    """A subcommand ``qrtune NAME PROJECT ...`` (its first argument the project file).

    Parameters
    ----------
    sub : argparse subparsers
        Where the command is added.
    name, help, description : str
        The command's name, its one-line help and its ``--help`` text (the module docstring).
    keep_layout : bool
        Print ``description`` with its line breaks and indents (examples, tables) instead of refilling it.

    Returns
    -------
    argparse.ArgumentParser
        The command's parser, for its own options.
    """
    formatter = argparse.RawDescriptionHelpFormatter if keep_layout else argparse.HelpFormatter
    p = sub.add_parser(name, help=help, description=description, formatter_class=formatter)
    p.add_argument("project", metavar="PROJECT", help="project file")
    return p


def add_changes_option(p, what: str) -> None:
    """``--set TARGET.PARAM=VALUE`` (repeatable): change one knob of the project for ``what`` (``this run``)."""
    p.add_argument(
        "--set",
        dest="changes",
        action="append",
        default=[],
        metavar="TARGET.PARAM=VALUE",
        help=f"change one knob for {what} (repeatable): TARGET is a node kind or node id, "
        "e.g. --set qapply.num_apply_agents=8",
    )


#: What ``--duration`` takes (parsed by :func:`engine.cli.argtypes.duration_s` when the command runs).
DURATION_FORMS = "600, 90s, 20m, 1h"
#: The default ``--duration``: ten simulated minutes.
DEFAULT_DURATION = "10m"


def add_duration_option(p, what: str) -> None:
    """``--duration``: the simulated time of ``what`` (``a run``), as text such as ``20m`` (default 10m)."""
    p.add_argument(
        "--duration",
        default=DEFAULT_DURATION,
        help=f"simulated time of {what}: {DURATION_FORMS} (default {DEFAULT_DURATION})",
    )


def add_rate_option(p, help: str) -> None:
    """``--rate ROWS_PER_S``: a constant offered rate, rows/s (None when not given)."""
    argtypes.add_number(
        p,
        "--rate",
        help,
        minimum=0.0,
        maximum=argtypes.MAX_RATE_ROWS_PER_S,
        unit="rows/s",
        metavar="ROWS_PER_S",
    )


def execution_options(args) -> dict:
    """Where and how a sweep's or study's points run: the keyword arguments of ``run_sweep``/``run_study``.

    From ``--workers`` (local processes), ``--scheduler`` (a Dask cluster), ``--batch-size``
    (points per task) and ``--no-progress``.
    """
    return {
        "workers": args.workers,
        "scheduler": args.scheduler,
        "batch_size": args.batch_size,
        "progress": not args.no_progress,
    }
