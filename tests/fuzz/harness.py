"""Run a qrtune command on hostile input and judge it by the contract of issue 17.

The contract: every command ends in exit 0, or in an exit code of
:mod:`engine.cli.exitcodes` other than ``EXIT_INTERNAL`` with its error on one short line
of stderr; never a traceback, never a hang, never more than a bounded amount of memory.

:func:`run_inprocess` calls :func:`qrtune.cli.main` (every subcommand) in this interpreter (fast: no
start-up, the engine's imports and numba kernels stay warm) under a wall-clock alarm;
:func:`run_subprocess` starts ``python -m qrtune`` with an address-space limit and a
timeout, for inputs that may allocate a lot. :func:`verdict` sorts an outcome into
``ok``, ``clean-error``, ``traceback`` (or an internal error reported in one line) and ``hang``.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from engine.cli.exitcodes import EXIT_PARTIAL

ROOT = Path(__file__).resolve().parents[2]
#: Longest stderr line the contract accepts (characters): the guard cuts messages to 400.
MAX_LINE_CHARS = 1000
#: Time and memory each example may use (issue 17: 20 s and 4 GB).
TIME_LIMIT_S = 20.0
MEMORY_LIMIT_BYTES = 4 * 1024**3
VERDICTS = ("ok", "clean-error", "traceback", "hang")


@dataclass
class Outcome:
    """What one command did."""

    argv: list
    code: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False


class _Alarm(KeyboardInterrupt):
    """Raised by the wall-clock alarm; a KeyboardInterrupt so the command unwinds as after Ctrl-C."""


def _on_alarm(signum, frame):
    raise _Alarm()


def run_inprocess(argv: list[str], timeout_s: float = TIME_LIMIT_S) -> Outcome:
    """Run ``qrtune ARGV`` in this process with stdout and stderr captured, under a wall-clock alarm."""
    from qrtune.cli import main

    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    t0 = time.perf_counter()
    timed_out = False
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as e:  # argparse: --help, usage errors
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    except _Alarm:
        code, timed_out = 130, True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    seconds = time.perf_counter() - t0
    timed_out = timed_out or (code == 130 and seconds >= timeout_s * 0.99)
    return Outcome(list(argv), code, out.getvalue(), err.getvalue(), seconds, timed_out)


def _limit_memory(limit_bytes: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    return apply


def run_subprocess(
    argv: list[str],
    timeout_s: float = TIME_LIMIT_S,
    memory_bytes: int = MEMORY_LIMIT_BYTES,
    cwd: str | None = None,
) -> Outcome:
    """Run ``python -m qrtune ARGV`` in a child limited to ``memory_bytes`` of address space."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    env.pop("QRTUNE_TRACEBACK", None)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "qrtune", *argv],
            capture_output=True,
            text=True,
            errors="backslashreplace",
            timeout=timeout_s,
            env=env,
            cwd=cwd or str(ROOT),
            preexec_fn=_limit_memory(memory_bytes),
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired as e:
        return Outcome(list(argv), -9, _text(e.stdout), _text(e.stderr), time.perf_counter() - t0, True)
    return Outcome(list(argv), proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - t0)


def _text(data) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", "backslashreplace")


def verdict(outcome: Outcome) -> str:
    """``ok``, ``clean-error``, ``traceback`` or ``hang`` (see the module docstring)."""
    if outcome.timed_out:
        return "hang"
    lines = [line for line in outcome.stderr.replace("\r", "\n").splitlines() if line.strip()]
    if "Traceback (most recent call last)" in outcome.stderr or any(
        len(line) > MAX_LINE_CHARS for line in lines
    ):
        return "traceback"
    if outcome.code == 0:
        return "ok"
    if outcome.code == EXIT_PARTIAL and len(lines) <= 1:
        return "clean-error"  # part of the work failed (sweep points): reported in the summary, exit 4
    if outcome.code == 1 or outcome.code < 0 or not lines or "internal error" in lines[-1]:
        return "traceback"  # killed, an internal error (a traceback reported in one line), or nothing said
    return "clean-error"


def explain(outcome: Outcome) -> str:
    """A few lines for an assertion message."""
    return (
        f"qrtune {' '.join(a[:80] for a in outcome.argv)}\n"
        f"  exit {outcome.code} after {outcome.seconds:.1f} s"
        f"{' (timed out)' if outcome.timed_out else ''}\n  stderr: {outcome.stderr[-1500:]!r}"
    )
