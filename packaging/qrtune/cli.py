"""Entry point of the ``qrtune`` command: every subcommand of the engine and of the workbench."""

from __future__ import annotations

import gc
import sys
from typing import NoReturn

from app.commands import SUBCOMMANDS as APP_SUBCOMMANDS
from engine import cli as engine_cli

SUBCOMMANDS = engine_cli.SUBCOMMANDS + APP_SUBCOMMANDS
"""Modules registering a subcommand: the engine's first, then those that need Qt."""


def main(argv: list[str] | None = None) -> int:
    """Run ``qrtune`` with every subcommand; returns the exit status (see :func:`engine.cli.main`)."""
    return engine_cli.main(argv, subcommands=SUBCOMMANDS)


def exit_with(status: int) -> NoReturn:
    """End the process with ``status``, leaving its remaining reference cycles to the operating system.

    At exit the interpreter collects every reference cycle before it frees the memory; with
    numba's compiler loaded (any simulation) that takes about 0.25 s, an eighth of a 10-minute
    ``qrtune simulate``. Freezing the collector skips that collection only: files and the
    results store are closed by the commands themselves, standard streams are flushed and
    ``atexit`` handlers run as usual.
    """
    gc.freeze()
    sys.exit(status)


def run() -> NoReturn:
    """The ``qrtune`` console script: :func:`main` on the command line, then :func:`exit_with`."""
    exit_with(main())
