"""The last line of defence of every qrtune command: any exception becomes one line on stderr.

:func:`run_guarded` runs a subcommand and turns whatever escapes it into a single line
``qrtune COMMAND: message`` (cut to :data:`engine.errors.MAX_MESSAGE_CHARS`) and an exit code of
:mod:`engine.cli.exitcodes`; a traceback is never printed unless the environment variable
``QRTUNE_TRACEBACK`` is set (for developers). :class:`OneLineArgumentParser` does the same
for argparse's own errors, which otherwise print the usage text first.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import traceback
from collections.abc import Callable

from engine.cli.exitcodes import EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE
from engine.errors import InputFileError, OutputFileError, PartialWorkError, QrtuneError, one_line

#: Exit status after Ctrl-C (128 + SIGINT), the shell's convention.
EXIT_INTERRUPTED = 130


def _describe(e: BaseException) -> tuple[str, int]:
    """The message and exit code for an exception that escaped a command."""
    if isinstance(e, (InputFileError, OutputFileError)):
        return str(e), EXIT_INPUT
    if isinstance(e, PartialWorkError):
        return str(e), EXIT_PARTIAL
    if isinstance(e, QrtuneError):
        return str(e), EXIT_USAGE
    if isinstance(e, MemoryError):
        return "out of memory; try a shorter run or fewer points", EXIT_INTERNAL
    if isinstance(e, RecursionError):
        return "input nested too deeply to process", EXIT_INPUT
    if isinstance(e, OSError):
        where = f" ({e.filename})" if getattr(e, "filename", None) else ""
        return f"{e.strerror or e}{where}", EXIT_INPUT
    if isinstance(e, csv.Error):  # a field over the csv module's 131,072-character limit, a NUL byte
        return f"malformed CSV: {e}", EXIT_INPUT
    if _is_store_error(e):
        return f"the results store cannot be used: {type(e).__name__}: {e}", EXIT_INPUT
    return f"internal error: {type(e).__name__}: {e}", EXIT_INTERNAL


def _is_store_error(e: BaseException) -> bool:
    """Whether ``e`` comes from DuckDB (a damaged, truncated or foreign results store file)."""
    duckdb = sys.modules.get("duckdb")
    return duckdb is not None and isinstance(e, duckdb.Error)


def report(command: str, e: BaseException) -> int:
    """Print ``e`` as one line for ``command``; return its exit code."""
    message, code = _describe(e)
    if os.environ.get("QRTUNE_TRACEBACK"):
        traceback.print_exception(e)
    _print_error(f"qrtune {command}: {one_line(message)}")
    return code


def _print_error(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # stderr closed: nothing more can be said
        pass


def run_guarded(command: str, func: Callable[[], int | None]) -> int:
    """Run ``func`` (a subcommand); every exception becomes one line on stderr and an exit code.

    Returns
    -------
    int
        ``func``'s status; :data:`~engine.cli.exitcodes.EXIT_USAGE` for a
        :class:`~engine.errors.QrtuneError`, :data:`EXIT_INTERRUPTED` after Ctrl-C,
        :data:`~engine.cli.exitcodes.EXIT_INPUT` for files that cannot be read or written,
        :data:`~engine.cli.exitcodes.EXIT_INTERNAL` for anything unexpected.
    """
    try:
        return int(func() or EXIT_OK)
    except KeyboardInterrupt:
        _print_error(f"qrtune {command}: interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # output piped into head/less that stopped reading: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001 - the one place every error is caught
        return report(command, e)


class OneLineArgumentParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``qrtune predict: argument --seed: ...``), exit 2."""

    def error(self, message: str):
        _print_error(f"{self.prog}: {one_line(message)} (see {self.prog} --help)")
        raise SystemExit(EXIT_USAGE)
