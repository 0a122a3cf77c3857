"""Worker processes that end when the process they work for dies.

A local sweep's workers are started by multiprocessing's forkserver, so their parent is
the forkserver, not the sweep: when the sweep's main process is killed (``kill -9``, an
out-of-memory kill) nothing tells them, and they, the forkserver and the resource tracker
were seen waiting for minutes. :func:`watch` (a process-pool initializer) starts a daemon
thread in each worker that checks once a second whether the main process still exists and
ends the worker at once when it does not.
"""

from __future__ import annotations

import os
import threading
import time

import psutil

#: How often (s) a worker checks that the main process is alive.
CHECK_INTERVAL_S = 1.0
#: Exit status of a worker whose main process died.
EXIT_ORPHANED = 70


def alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one owned by another user counts; 0 and negative ids never do).

    Asked through psutil, which tests existence on every platform (sending signal 0 tests it on
    POSIX only: on Windows it terminates the process).
    """
    if pid <= 0:
        return False
    try:
        return psutil.pid_exists(pid)
    except (OSError, OverflowError):
        return False


def _orphaned() -> bool:
    """Whether this process was handed to init (POSIX: its parent died); never on Windows."""
    return os.name == "posix" and os.getppid() == 1


def _loop(main_pid: int, interval_s: float) -> None:
    while alive(main_pid) and not _orphaned():
        time.sleep(interval_s)
    os._exit(EXIT_ORPHANED)  # no clean-up: the process that wanted the results is gone


def watch(main_pid: int, interval_s: float = CHECK_INTERVAL_S) -> None:
    """End this process within ``interval_s`` of process ``main_pid`` ending (a pool initializer).

    Parameters
    ----------
    main_pid : int
        The process the worker works for (the sweep's main process, ``os.getpid()`` there).
    interval_s : float
        Seconds between checks.
    """
    threading.Thread(target=_loop, args=(main_pid, interval_s), name="parent-watch", daemon=True).start()
