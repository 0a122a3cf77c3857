"""Entry point of the ``qrtune`` command: every subcommand of the engine and of the workbench."""

from __future__ import annotations

from app.commands import SUBCOMMANDS as APP_SUBCOMMANDS
from engine import cli as engine_cli

SUBCOMMANDS = engine_cli.SUBCOMMANDS + APP_SUBCOMMANDS
"""Modules registering a subcommand: the engine's first, then those that need Qt."""


def main(argv: list[str] | None = None) -> int:
    """Run ``qrtune`` with every subcommand; returns the exit status (see :func:`engine.cli.main`)."""
    return engine_cli.main(argv, subcommands=SUBCOMMANDS)
