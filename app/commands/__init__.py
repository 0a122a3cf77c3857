"""``qrtune`` subcommands that need the workbench's Qt libraries: ``gui`` and ``report``.

Each module exposes ``register(subparsers)`` like those of :mod:`engine.cli`; :mod:`qrtune.cli`
puts both lists together, so the engine's command line never imports this package.
"""

SUBCOMMANDS = (
    "app.commands.gui",
    "app.commands.report",
)
"""Modules of the workbench's subcommands, in the order ``qrtune --help`` lists them."""
