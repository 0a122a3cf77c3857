"""The ``qrtune`` command: the engine's subcommands (:mod:`engine.cli`) and the workbench's (:mod:`app.commands`).

This package sits above both ``engine`` and ``app`` so that neither imports the other's command line.
"""
