"""Q Capture's puts to a CF structure in time: failed puts, retries and the stop after the last one.

When an MQPUT to a send queue fails because the queue or its storage is full (MQRC_Q_FULL 2053,
MQRC_STORAGE_MEDIUM_FULL 2192 on a full CF structure), Q Capture waits QFULL_RETRY_DELAY and
puts again, up to QFULL_NUM_RETRIES times (IBMQREP_CAPPARMS; IBM's migration DDL: defaults 30
and 250 ms); with 0 it does not retry. When the retries are exhausted Q Capture takes the send
queue's ERROR_ACTION: it stops and replication stops with a message. While its puts fail Q
Capture publishes nothing: the transactions wait in the Db2 log (CAPTURE_LATENCY grows).

:func:`walk` steps a structure (:class:`engine.perf.qrep.cf_structure.CfStructure`) through the
puts Q Capture wants to make and the gets Q Apply makes, each step in this order: Q Capture's
puts while it is not retrying; Q Apply's gets up to the step's last retry; the retry, which puts
what those gets freed (all that waits, if it fits: Q Capture is then no longer retrying); the
rest of the step's gets. So with a retry delay longer than a step Q Capture puts only at its
retries, and with a long one Q Apply can empty the structure and wait for the next retry.

A retry succeeds once the gets have freed room for a message (counted in messages, the fluid
approximation): with room freed at ``rho`` messages/s each message waits for the first retry after
``1 / rho`` s, and Q Capture stops when a message finds no room through QFULL_NUM_RETRIES retries,
that is ``QFULL_NUM_RETRIES x QFULL_RETRY_DELAY`` s after its first failed put (at that failure
with 0 retries). Times in seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.perf.qrep.cf_structure import BYTES_PER_MB, CfStructure

#: Messages below this count as none (fluid puts and gets).
EPS_MSGS = 1e-9


@dataclass(frozen=True)
class Walk:
    """A structure's course over time steps (:func:`walk`); arrays per step, end of step.

    Attributes
    ----------
    t_s : ndarray
        End of each step, s.
    put_msgs, offloaded_msgs, failed_puts : ndarray
        Messages put in the step, of them offloaded, and MQPUTs failing with MQRC 2192 (the
        first failure and one per retry while Q Capture retries).
    retry_put_msgs : ndarray
        Of the messages put, those put at a retry.
    held_msgs : ndarray
        Messages Q Capture could not put yet (waiting in the Db2 log), end of step.
    depth_msgs, used_pct, scm_mb : ndarray
        Messages in the structure, real storage in use (%), SCM in use (MB), end of step.
    full_s : ndarray
        Time of the step Q Capture was retrying (its puts failing), s.
    retry_delay_s : float
        QFULL_RETRY_DELAY, s.
    stopped_s : float or None
        When Q Capture stopped, its retries exhausted (None: it did not).
    peak_used_pct, peak_scm_mb : float
        Most real storage (%) and SCM (MB) in use at any put or step end (a retry fills the
        structure, the gets after it free some before the step ends).
    """

    t_s: np.ndarray
    put_msgs: np.ndarray
    offloaded_msgs: np.ndarray
    failed_puts: np.ndarray
    retry_put_msgs: np.ndarray
    held_msgs: np.ndarray
    depth_msgs: np.ndarray
    used_pct: np.ndarray
    scm_mb: np.ndarray
    full_s: np.ndarray
    retry_delay_s: float
    stopped_s: float | None
    peak_used_pct: float
    peak_scm_mb: float

    @property
    def wait_msg_s(self) -> float:
        """Message-seconds spent waiting in the log for room: the messages held back over each step
        (Little's law) and, for each message put at a retry, half a retry delay (at most half a
        step, which the held messages already count beyond)."""
        dt = np.diff(self.t_s, prepend=0.0)
        within = 0.5 * np.minimum(self.retry_delay_s, dt)
        return float(np.sum(self.held_msgs * dt) + np.sum(self.retry_put_msgs * within))

    def first_time(self, when) -> float | None:
        """End of the first step where the boolean array ``when`` holds, s (None: never)."""
        hits = np.flatnonzero(when)
        return float(self.t_s[hits[0]]) if hits.size else None


@dataclass
class _Retrying:
    """Q Capture retrying one put: since when, its next retry, and the room freed since its last
    put went in (messages, less than one while it waits)."""

    since_s: float
    next_s: float
    room_msgs: float = 0.0


class _Capture:
    """Q Capture putting to the structure: QFULL_RETRY_DELAY, QFULL_NUM_RETRIES and its state."""

    def __init__(self, cf: CfStructure, delay_s: float, num_retries: int):
        self.cf = cf
        self.delay_s = delay_s
        self.num_retries = num_retries
        self.retrying: _Retrying | None = None
        self.stopped_s: float | None = None
        self.peak_used_pct = self.peak_scm_mb = 0.0

    def _put(self, n: float) -> tuple[float, float]:
        """MQPUT ``n`` messages (:meth:`CfStructure.put`), noting the peak usage."""
        put, off = self.cf.put(n)
        self.note_peak()
        return put, off

    def note_peak(self) -> None:
        """Take the structure's usage now into the peaks."""
        self.peak_used_pct = max(self.peak_used_pct, 100.0 * float(self.cf.real_used_share))
        self.peak_scm_mb = max(self.peak_scm_mb, float(self.cf.scm_used_bytes) / BYTES_PER_MB)

    def _fail(self, t_s: float) -> None:
        """A put fails at ``t_s``: Q Capture retries, or stops at once with no retries."""
        if self.num_retries == 0:
            self.stopped_s = t_s
        else:
            self.retrying = _Retrying(t_s, t_s + self.delay_s)

    def put_free(self, todo: float, t0: float, dt: float) -> tuple[float, float, float | None]:
        """Puts of a step Q Capture starts not retrying: (put, offloaded, when a put first failed,
        None if none did)."""
        put, off = self._put(todo)
        if todo - put <= EPS_MSGS:
            return put, off, None
        fail_s = float(t0 + dt * put / todo)
        self._fail(fail_s)
        return put, off, fail_s

    def _stop_check(self, r: _Retrying, first_ok_s: float | None, last_s: float, rate: float) -> None:
        """Stop Q Capture if a message found no room through its retries up to ``last_s``: the one
        retried since ``r.since_s`` (its first success at ``first_ok_s``, None: none by ``last_s``),
        then each later one, which waits ``1 / rate`` s for room."""
        budget_s = self.num_retries * self.delay_s
        tol_s = 1e-6 * self.delay_s  # retries land on the budget's end, up to rounding
        if first_ok_s is None or first_ok_s - r.since_s > budget_s + tol_s:
            if r.since_s + budget_s <= last_s + tol_s:
                self.stopped_s = r.since_s + budget_s
            return
        if rate > 0 and 1.0 / rate > budget_s + tol_s and first_ok_s + budget_s <= last_s + tol_s:
            self.stopped_s = first_ok_s + budget_s

    def retry(
        self, r: _Retrying, held: float, a_s: float, t1_s: float, gets: float
    ) -> tuple[float, float, int, float]:
        """Retries (``r``: the retrying state) in ``[a_s, t1_s]`` with ``gets`` messages got over it:
        (put, offloaded, retries, when Q Capture stopped retrying or ``t1_s``). Puts at the last
        retry what the gets freed."""
        span = t1_s - a_s
        if r.next_s > t1_s:  # no retry in this part of the step
            self.cf.get(gets)
            return 0.0, 0.0, 0, t1_s
        n = int(math.floor((t1_s - r.next_s) / self.delay_s + 1e-9)) + 1
        last_s = r.next_s + (n - 1) * self.delay_s
        share = (last_s - a_s) / span if span > 0 else 1.0
        self.cf.get(gets * share)
        put, off = self._put(held)
        self.cf.get(gets * (1.0 - share))
        if held - put <= EPS_MSGS:
            self.retrying = None
            return put, off, n, last_s
        # each retry puts the room freed since the one before: ``put`` over the retries of this step
        prev_s = r.next_s - self.delay_s
        rate = put / (last_s - prev_s)
        first_ok = None
        if r.room_msgs + put >= 1.0 - EPS_MSGS:  # room for the message retried, at this retry or before
            room_s = prev_s + max(1.0 - r.room_msgs, 0.0) / rate if rate > 0 else prev_s
            first_ok = r.next_s + self.delay_s * math.ceil(max(room_s - r.next_s, 0.0) / self.delay_s - 1e-9)
            first_ok = min(first_ok, last_s)
        self._stop_check(r, first_ok, last_s, rate)
        if first_ok is None:
            r.room_msgs += put
        elif rate > 0:  # the last retry at which a whole message went in, and the room freed since
            every_s = self.delay_s * max(1.0, math.ceil(1.0 / (rate * self.delay_s) - 1e-9))
            r.since_s = first_ok + every_s * math.floor((last_s - first_ok) / every_s + 1e-9)
            r.room_msgs = min(rate * (last_s - r.since_s), 1.0 - EPS_MSGS)
        else:  # the room carried from before was the message's
            r.since_s, r.room_msgs = first_ok, 0.0
        r.next_s = last_s + self.delay_s
        return put, off, n, t1_s


def walk(cf: CfStructure, dt_s, wanted_msgs, gets_msgs, retry_delay_s: float, num_retries: int) -> Walk:
    """Step a structure through puts Q Capture wants to make and gets Q Apply makes (module doc).

    Parameters
    ----------
    cf : CfStructure
        The structure with what it holds at the start (changed in place).
    dt_s : float or ndarray
        Step lengths, s.
    wanted_msgs, gets_msgs : ndarray
        Per step, messages Q Capture has to put and messages Q Apply can get.
    retry_delay_s : float
        QFULL_RETRY_DELAY (``qcapture.qfull_retry_delay_ms``), s; > 0.
    num_retries : int
        QFULL_NUM_RETRIES (``qcapture.qfull_num_retries``), >= 0.

    Returns
    -------
    Walk
        The course; after Q Capture stops (``stopped_s``) it puts nothing and the gets go on.
    """
    wanted = np.asarray(wanted_msgs, dtype=float)
    gets = np.asarray(gets_msgs, dtype=float)
    n = len(wanted)
    dt = np.broadcast_to(np.asarray(dt_s, dtype=float), (n,))
    ends = np.cumsum(dt)
    names = ("put", "off", "failed", "retry", "held", "depth", "used", "scm", "full")
    cols = {name: np.zeros(n) for name in names}
    qc = _Capture(cf, retry_delay_s, num_retries)
    held = 0.0
    for i in range(n):
        t0, t1 = ends[i] - dt[i], ends[i]
        put = off = 0.0
        if qc.stopped_s is not None:
            held += wanted[i]
            cf.get(gets[i])
        elif qc.retrying is None:
            todo = held + wanted[i]
            put, off, fail_s = qc.put_free(todo, t0, dt[i])
            held = todo - put
            if fail_s is None:
                held = 0.0
                cf.get(gets[i])
            else:
                rest = gets[i] * (t1 - fail_s) / dt[i]
                cf.get(gets[i] - rest)
                tries, until_s = 0, fail_s
                if qc.retrying is not None:
                    more, more_off, tries, until_s = qc.retry(qc.retrying, held, fail_s, t1, rest)
                    put, off, held = put + more, off + more_off, held - more
                    cols["retry"][i] = more
                else:  # stopped at the failure: no retries
                    cf.get(rest)
                cols["failed"][i] = 1.0 + tries
                cols["full"][i] = (until_s if qc.stopped_s is None else qc.stopped_s) - fail_s
        else:
            held += wanted[i]
            put, off, tries, until_s = qc.retry(qc.retrying, held, t0, t1, gets[i])
            held -= put
            cols["failed"][i], cols["retry"][i] = tries, put
            cols["full"][i] = (until_s if qc.stopped_s is None else min(qc.stopped_s, t1)) - t0
        cols["put"][i], cols["off"][i], cols["held"][i] = put, off, max(held, 0.0)
        cols["depth"][i], cols["used"][i] = cf.msgs, 100.0 * cf.real_used_share
        cols["scm"][i] = cf.scm_used_bytes / BYTES_PER_MB
        qc.note_peak()
    return Walk(
        ends,
        cols["put"],
        cols["off"],
        cols["failed"],
        cols["retry"],
        cols["held"],
        cols["depth"],
        cols["used"],
        cols["scm"],
        cols["full"],
        retry_delay_s,
        qc.stopped_s,
        qc.peak_used_pct,
        qc.peak_scm_mb,
    )
