"""Which process wrote a file: its id and when it started, so a reused process id is not mistaken for it.

A process id alone says little once its process is gone: the system hands the number to
the next process, and a file that records only the id then looks as if its writer were
still running. :func:`process_start` reads a process's start (the boot it ran in and its
start time in clock ticks since that boot, from ``/proc``); :func:`still_running` compares
it with the one recorded. Where ``/proc`` is missing (not Linux) only the id is compared.
"""

from __future__ import annotations

import os

from engine.io.parentwatch import alive

#: Field index (0-based, counted after the command name) of ``starttime`` in ``/proc/PID/stat``.
_STARTTIME_FIELD = 19


def _boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
            return f.read().strip()
    except OSError:
        return ""


def process_start(pid: int) -> str | None:
    """``BOOT_ID:START_TICKS`` of process ``pid``; None when it is gone or ``/proc`` cannot tell."""
    try:
        with open(f"/proc/{int(pid)}/stat", encoding="ascii", errors="replace") as f:
            stat = f.read()
        fields = stat[stat.rindex(")") + 2 :].split()
        return f"{_boot_id()}:{int(fields[_STARTTIME_FIELD])}"
    except (OSError, ValueError, IndexError):
        return None


def this_process_start() -> str | None:
    """:func:`process_start` of the running process."""
    return process_start(os.getpid())


def still_running(pid: int, started: str | None) -> bool:
    """Whether the process that recorded (``pid``, ``started``) is still running.

    Parameters
    ----------
    pid : int
        The recorded process id.
    started : str or None
        Its recorded :func:`process_start`; None (an older file) compares the id alone.
    """
    if not alive(pid):
        return False
    if not started:
        return True
    now = process_start(pid)
    return now is None or now == started
