"""Exit codes of every qrtune command."""

EXIT_OK = 0
"""The command did what was asked."""
EXIT_INTERNAL = 1
"""An unexpected internal error (reported in one line; never a traceback)."""
EXIT_USAGE = 2
"""Bad command-line arguments or values (argparse's convention)."""
EXIT_INPUT = 3
"""An input file is missing, unreadable or not valid, or an output file cannot be written."""
EXIT_PARTIAL = 4
"""Part of the work failed (for example some sweep points)."""
