"""Q Capture's log-read cycle: passes over the log separated by SLEEP_INTERVAL (compiled kernel).

Q Capture's log reader reads everything the log holds, one transaction after another; when it
reaches the end of the log it sleeps SLEEP_INTERVAL (its MQ commits follow COMMIT_INTERVAL and
the transaction limit, :func:`engine.sim.kernels.commit_times`), then starts the next pass (or sleeps again if nothing was committed
meanwhile). A pass therefore lasts as long as reading its transactions takes, and a
transaction committed while a pass is under way is read in that pass when the reader gets to
it. The cycle is SLEEP_INTERVAL plus the pass: ``SLEEP_INTERVAL / (1 - rho)`` on average for a
reader busy ``rho`` of the time, so a busier reader groups more transactions per MQ commit and
per message. With an instantaneous reader the passes start on the grid
``k x SLEEP_INTERVAL``.

The recursion is sequential (each pass starts a sleep after the previous one ends); it is
compiled with numba (:mod:`engine.sim.jit`), else runs as plain Python.
"""

from __future__ import annotations

import math

import numpy as np

from engine.sim.jit import compiled_or_plain


class LogReadState:
    """What a :func:`log_read_passes` run carries to the next chunk.

    Attributes
    ----------
    values : numpy.ndarray
        ``[time the reader finished its last transaction (s), index of the last pass, time that
        pass began (s), 1 if that pass may go on with the next chunk's transactions else 0]``;
        initially a pass that ended at ``-SLEEP_INTERVAL``, so that the first wake-up is at 0.
    """

    def __init__(self, sleep_s: float):
        self.values = np.array([-float(sleep_s), 0.0, -float(sleep_s), 0.0])

    def rewind(self, read_end_s: float, pass_id: float, wake_s: float) -> None:
        """Go back to the end of pass ``pass_id`` (which began at ``wake_s`` and whose last
        transaction was read by ``read_end_s``): the passes after it are read again."""
        self.values[:] = (read_end_s, pass_id, wake_s, 0.0)


def _log_passes_py(avail, work, sleep_s, state, pass_id, wake, read_end):
    """Plain-Python body of :func:`log_read_passes` (numba compiles the same source)."""
    end = state[0]
    k = state[1]
    w = state[2]
    going_on = state[3]
    n = avail.shape[0]
    i = 0
    while i < n:
        t = end
        if not (going_on > 0.0 and avail[i] <= end):
            t = end + sleep_s  # wakes a sleep after the last pass ended ...
            if avail[i] > t:  # ... and sleeps again while nothing new is in the log
                t += sleep_s * math.ceil((avail[i] - t) / sleep_s)
            k += 1.0
            w = t
        while i < n and avail[i] <= t:  # reads until it reaches the end of the log
            t += work[i]
            pass_id[i] = k
            wake[i] = w
            read_end[i] = t
            i += 1
        end = t
        going_on = 0.0  # it reached the end of the log: this pass is over
    state[0] = end
    state[1] = k
    state[2] = w
    if n > 0:
        state[3] = 1.0  # the next chunk's first transactions may still be read in this pass


def log_read_passes(avail_s, work_s, sleep_s: float, state: LogReadState, python: bool = False):
    """The log-read pass that reads each transaction, when it began and when the reader finished it.

    Parameters
    ----------
    avail_s : array of float
        Time each transaction can be read from the log (its commit plus any log delay),
        non-decreasing, s.
    work_s : array of float
        The reader's time for each transaction, s (>= 0).
    sleep_s : float
        SLEEP_INTERVAL, s (> 0).
    state : LogReadState
        Carried from the previous chunk; updated in place.
    python : bool
        Run the plain-Python body even when numba is installed.

    Returns
    -------
    pass_id, wake_s, read_end_s : numpy.ndarray
        Index of each transaction's pass (non-decreasing, counted from 1), the time its pass
        began and the time the reader finished reading it.
    """
    a = np.ascontiguousarray(avail_s, dtype=float)
    w = np.ascontiguousarray(work_s, dtype=float)
    n = a.shape[0]
    pass_id, wake, read_end = np.empty(n), np.empty(n), np.empty(n)
    fn = _log_passes_py if python else compiled_or_plain(_log_passes_py)
    fn(a, w, float(sleep_s), state.values, pass_id, wake, read_end)
    return pass_id, wake, read_end
