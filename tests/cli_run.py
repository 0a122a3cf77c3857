"""Run a command in a subprocess the way the tests do: output captured as text, exit code returned.

Test modules import it by name (``from cli_run import qrtune``): pytest puts ``tests/`` on the
import path when it loads ``tests/conftest.py``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The baseline sample project, relative to ROOT (commands run with ROOT as their folder).
SAMPLE = "sample_runs/redpaper-baseline.json"


def run(argv, *, env=None, cwd=ROOT, timeout_s: float = 120, stdin: str | None = None):
    """Run ``argv`` to its end.

    Parameters
    ----------
    argv : sequence of str
        The program and its arguments.
    env : dict or None
        The environment (None: this process's).
    cwd : path
        The folder it runs in (default: the repository root).
    timeout_s : float
        Longest run, s.
    stdin : str or None
        Text written to its standard input.

    Returns
    -------
    subprocess.CompletedProcess
        With ``stdout`` and ``stderr`` as text; a failing exit code is returned, not raised.

    Raises
    ------
    subprocess.TimeoutExpired
        When it runs longer than ``timeout_s``.
    """
    return subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )


def python(*args, **kwargs):
    """``python ARGS...`` with this interpreter (keyword arguments as for :func:`run`)."""
    return run([sys.executable, *args], **kwargs)


def qrtune(*args, **kwargs):
    """``python -m engine ARGS...``: the qrtune command line (keyword arguments as for :func:`run`)."""
    return python("-m", "engine", *args, **kwargs)


def agents_sweep_argv(db, values: str, *extra: str) -> list:
    """The command line of a NUM_APPLY_AGENTS sweep of the sample over ``values`` (``1..40``) into ``db``.

    It runs its points in the sweep's own process (``--workers 0``); ``extra`` options follow.
    """
    return [
        sys.executable,
        "-m",
        "engine",
        "sweep",
        SAMPLE,
        "--set",
        f"qapply.num_apply_agents={values}",
        "--db",
        str(db),
        "--workers",
        "0",
        *extra,
    ]
