"""``python -m qrtune``: the ``qrtune`` command line."""

from qrtune.cli import run

run()
