"""Stationary stretches: long steady parts of a run represented by a simulated window instead of simulated again.

A day at production rates is tens or hundreds of millions of transactions, most of them in
hours where nothing changes: the rate is constant, no event happens, the queues stay at their
steady-state depth. There the simulation is a stationary process, and one simulated window
of it is a sample of every other window. The run therefore goes window by window (``W``
seconds, :func:`window_s`) and, where a window is *stationary*, represents it by a copy of
the last simulated window instead of simulating it:

* **Statically eligible** (:meth:`Plan.eligible`): the window and the one before it have the
  same OLTP rate, no batch window (large transactions form queues) and no event (outages,
  slow-downs and what follows them) touches them, the rate is below
  :data:`MAX_LOAD_SHARE` of the pipeline's capacity (queues stay bounded), and it is not
  among the first :data:`WARM_UP_WINDOWS` windows (the pipeline starts empty).
* **Measured stationary**: the last window was simulated, and its mean END2END latency and
  its rows in flight at its end are within :data:`SETTLED_TOLERANCE` of the simulated window
  before it, at the same rate (a backlog still draining after an outage or a peak fails this
  and keeps every transaction simulated). Copies between the two are skipped: the pipeline
  never sees them, so the second went on from the first's end as from one window to the next.
* At most :data:`MAX_COPIES` windows in a row are copies; the next one is simulated again
  (a fresh sample, checked against the one the copies repeated).

The pipeline never sees the copied windows: it runs on its own clock ``tau``, in which each
stretch of copies is a point, and :class:`TimeMap` maps its times to the run's
(``t = tau + the length of the stretches before tau``). A transaction in flight when a
stretch starts is applied after it in run time, with its latency (computed on the pipeline's
clock) unchanged: it stands for the transactions in flight at the stretch's end. The
accumulators (:class:`engine.sim.accumulate.Accumulator`) bin every time through the map;
the bins of a stretch are the reference window's bins repeated (:func:`fill_stretches`):
counts, sums and maxima as they are; queue depths and memory at the reference's levels (each
copy returning to the level it started from, so nothing drifts, and what was in flight at the
stretch's start coming back at its end); busy time as it is (a busy period crossing the stretch's start is cut there and
resumes after it); OLDEST_TRANS shifted by the copy's offset; the END2END histogram counts
the reference's transactions once more for each copy. The summary says how much of the run
was copied (``replicated_s``).

``tests/engine/sim/test_stationary.py`` compares the method with the per-transaction
simulation of the same 10 minutes (throughput, the latencies and their 99th percentile, the
monitor rows, an outage's peak backlog and catch-up).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Shortest window, s (a sample of a stationary stretch holds many capture cycles and channel batches).
MIN_WINDOW_S = 30.0
#: Windows at the start of a run that are always simulated (the pipeline starts empty).
WARM_UP_WINDOWS = 2
#: Copies in a row before a window is simulated again.
MAX_COPIES = 19
#: Largest offered rate, as a share of the smallest stage capacity, at which a window may be copied.
MAX_LOAD_SHARE = 0.98
#: Relative change of the mean END2END latency and of the rows in flight between two simulated
#: windows below which the run is taken as settled.
SETTLED_TOLERANCE = 0.10
#: Rows in flight below which the in-flight check is not applied (a near-empty pipeline), per rows/s offered.
INFLIGHT_FLOOR_S = 1.0


def window_s(dt_s: float, monitor_s: float, txns_per_s: float, chunk_txns: int) -> float:
    """Window length, s: a multiple of the bin width and of MONITOR_INTERVAL, at least :data:`MIN_WINDOW_S`,
    and short enough for one chunk of ``chunk_txns`` transactions when the rate allows (at least one bin)."""
    unit = dt_s * max(1, round(monitor_s / dt_s)) if monitor_s % dt_s < 1e-9 else dt_s
    w = unit * math.ceil(MIN_WINDOW_S / unit)
    while w > unit and txns_per_s * w > chunk_txns:
        w -= unit
    return w


@dataclass(frozen=True)
class WindowStats:
    """What one simulated window measured (pipeline clock).

    Attributes
    ----------
    rate_rows_per_s : float
        Offered OLTP rate in the window.
    mean_e2e_s : float
        Mean END2END latency of the transactions applied in the window, s (nan if none).
    inflight_rows : float
        Rows generated but not yet applied at the window's end.
    """

    rate_rows_per_s: float
    mean_e2e_s: float
    inflight_rows: float


class Plan:
    """Which windows of a run are copies; decided window by window.

    Parameters
    ----------
    profile : engine.sim.profiles.Profile
    events : sequence of Event
    duration_s, w_s : float
        Run length and window length, s.
    max_rows_per_s : float
        Smallest stage capacity of the pipeline, rows/s.
    """

    def __init__(self, profile, events, duration_s: float, w_s: float, max_rows_per_s: float):
        self.profile, self.events = profile, tuple(events)
        self.duration_s, self.w_s = duration_s, w_s
        self.max_rows_per_s = max_rows_per_s
        self.n_windows = int(math.floor(duration_s / w_s + 1e-9))
        self.stats: list[WindowStats | None] = []  # per window: measured, or None for a copy
        self.sampled: list[WindowStats] = []  # the measured ones
        self.copies_in_a_row = 0
        self._rates: dict[int, float | None] = {}

    def _rate(self, k: int) -> float | None:
        """The constant OLTP rate of window ``k``, or None (rate changes in it, or a batch window)."""
        if k not in self._rates:
            self._rates[k] = self._window_rate(k)
        return self._rates[k]

    def _window_rate(self, k: int) -> float | None:
        a, b = k * self.w_s, (k + 1) * self.w_s
        breaks = np.asarray(self.profile.breaks_s)
        if np.any((breaks > a) & (breaks < b)):
            return None
        if any(bw.start_s < b and bw.end_s > a for bw in self.profile.batches):
            return None
        return float(self.profile.rate_at(np.array([a]))[0])

    def eligible(self, k: int) -> bool:
        """Window ``k`` may be a copy as far as the profile, the events and the load go."""
        if k < WARM_UP_WINDOWS or k >= self.n_windows:
            return False
        rate, before = self._rate(k), self._rate(k - 1)
        if rate is None or before is None or rate != before or rate > MAX_LOAD_SHARE * self.max_rows_per_s:
            return False
        a, b = (k - 1) * self.w_s, (k + 1) * self.w_s
        return not any(e.start_s < b and e.end_s > a for e in self.events)

    def settled(self) -> bool:
        """The last window was simulated and agrees with the simulated one before it, at the same rate
        (:data:`SETTLED_TOLERANCE`); copies between them are skipped (the pipeline went on from the
        one to the other as from a window to the next)."""
        if len(self.sampled) < 2 or self.stats[-1] is None:
            return False
        a, b = self.sampled[-2:]
        if a.rate_rows_per_s != b.rate_rows_per_s or not (a.mean_e2e_s > 0 and b.mean_e2e_s > 0):
            return False
        floor = INFLIGHT_FLOOR_S * b.rate_rows_per_s
        latency_ok = abs(b.mean_e2e_s - a.mean_e2e_s) <= SETTLED_TOLERANCE * a.mean_e2e_s
        inflight_ok = b.inflight_rows <= max(floor, (1.0 + SETTLED_TOLERANCE) * a.inflight_rows)
        return latency_ok and inflight_ok

    def copy_next(self) -> bool:
        """Whether window ``len(self.stats)`` is a copy of the last simulated one (then noted as one)."""
        k = len(self.stats)
        if self.copies_in_a_row >= MAX_COPIES or not self.eligible(k):
            return False
        if self.copies_in_a_row == 0 and not self.settled():
            return False
        self.stats.append(None)
        self.copies_in_a_row += 1
        return True

    def simulated(self, stats: WindowStats) -> None:
        """Note that the next window was simulated, with what it measured."""
        self.stats.append(stats)
        self.sampled.append(stats)
        self.copies_in_a_row = 0

    def _static_copy_windows(self) -> list[int]:
        """Windows that are copies if every eligible stretch settles at once."""
        out, in_a_row = [], 0
        for k in range(self.n_windows):
            if self.eligible(k) and self.eligible(k - 1) and in_a_row < MAX_COPIES:
                out.append(k)
                in_a_row += 1
            else:
                in_a_row = 0
        return out

    def static_copies(self) -> int:
        """Windows that would be copies if every eligible stretch settles (for the budget check)."""
        return len(self._static_copy_windows())

    def static_copied_rows(self) -> float:
        """Rows offered in :meth:`static_copies`' windows."""
        return sum(
            self.profile.rows_between(k * self.w_s, (k + 1) * self.w_s) for k in self._static_copy_windows()
        )


class TimeMap:
    """Pipeline time ``tau`` -> run time ``t``: ``tau`` plus the stretches of copies inserted before it.

    A stretch inserted at pipeline time ``p`` moves every later time by its length; a time
    at or before ``p`` stays.
    """

    def __init__(self):
        self.at_tau: list[float] = []  # where each stretch is inserted (pipeline clock)
        self.length_s: list[float] = []
        self.offset_after: list[float] = []  # total offset after each insertion point
        self._arrays = None  # (at_tau, offsets with a leading 0) as arrays, made when first needed

    @property
    def total_s(self) -> float:
        """Length of all the stretches inserted so far, s."""
        return self.offset_after[-1] if self.offset_after else 0.0

    def insert(self, at_tau: float, length_s: float) -> None:
        """Insert a stretch of ``length_s`` at pipeline time ``at_tau`` (after every earlier one)."""
        self._arrays = None
        if self.at_tau and at_tau == self.at_tau[-1]:  # consecutive copies: one longer stretch
            self.length_s[-1] += length_s
            self.offset_after[-1] += length_s
            return
        self.at_tau.append(at_tau)
        self.length_s.append(length_s)
        self.offset_after.append(self.total_s + length_s)

    def real(self, tau):
        """Run time of pipeline times ``tau`` (array or scalar), s."""
        if not self.at_tau:
            return tau
        if self._arrays is None:
            self._arrays = (np.asarray(self.at_tau), np.concatenate(([0.0], self.offset_after)))
        at, offsets = self._arrays
        first = np.min(tau) if np.ndim(tau) and np.size(tau) else math.nan
        if math.isnan(first):  # a scalar, no times, or NaN among them: every time searched
            return tau + offsets[np.searchsorted(at, tau, side="left")]
        # a chunk's times span few insertion points: search only those (one offset when none)
        lo, hi = np.searchsorted(at, (first, np.max(tau)), side="left")
        if lo == hi:
            return tau + offsets[lo]
        return tau + offsets[lo + np.searchsorted(at[lo:hi], tau, side="left")]

    def gaps(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each stretch's insertion point (pipeline clock) and its start and end in run time, s."""
        at = np.asarray(self.at_tau)
        before = np.concatenate(([0.0], self.offset_after[:-1]))
        return at, at + before, at + np.asarray(self.offset_after)


@dataclass(frozen=True)
class Stretch:
    """Copied windows: ``[start_s, start_s + length_s)`` of run time repeat ``[ref_start_s, ref_start_s + w_s)``."""

    start_s: float
    length_s: float
    ref_start_s: float
    w_s: float

    @property
    def copies(self) -> int:
        return round(self.length_s / self.w_s)


def _copy_bins(values: np.ndarray, first: int, ref: int, per: int, copies: int) -> None:
    """Add ``values[ref:ref + per]`` to each of ``copies`` consecutive runs of ``per`` bins from ``first``."""
    block = values[ref : ref + per].copy()
    for c in range(copies):
        lo = first + c * per
        values[lo : lo + per] += block[: max(0, min(per, len(values) - lo))]


def fill_stretches(acc, stretches) -> None:
    """Fill the bins of each stretch with its reference window's (see the module docstring).

    Parameters
    ----------
    acc : engine.sim.accumulate.Accumulator
        Every chunk accumulated (through its :class:`TimeMap`).
    stretches : sequence of Stretch
    """
    dt = acc.dt
    levels = {name: acc.level_at_edges(name) for name in set(acc.level_in) | set(acc.level_out)}
    acc.settle_areas()
    busy = {**acc.area_bins, **acc.busy_bins}  # per bin: filled in place
    for s in stretches:
        first, ref, per, copies = (
            round(s.start_s / dt),
            round(s.ref_start_s / dt),
            round(s.w_s / dt),
            s.copies,
        )
        for v in acc.sums.values():
            _copy_bins(v, first, ref, per, copies)
        for v in acc.maxes.values():
            block = v[ref : ref + per].copy()
            for c in range(copies):
                lo = first + c * per
                np.maximum(v[lo : lo + per], block, out=v[lo : lo + per])
        for name in levels:
            lin = acc.level_in.setdefault(name, np.zeros(acc.nbins + 1))
            lout = acc.level_out.setdefault(name, np.zeros(acc.nbins + 1))
            net = float(lin[ref + 1 : ref + per + 1].sum() - lout[ref + 1 : ref + per + 1].sum())
            _copy_bins(lin[1:], first, ref, per, copies)
            _copy_bins(lout[1:], first, ref, per, copies)
            for c in range(copies):  # each copy returns to the level it started from
                end = first + (c + 1) * per
                (lout if net > 0 else lin)[end] += abs(net)
            # the copies run at the reference's level; what is in flight at the stretch's start (it is
            # applied after the stretch) is taken out of the stretch and comes back at its end
            step = float(levels[name][ref] - levels[name][first])
            (lin if step > 0 else lout)[first + 1] += abs(step)
            (lout if step > 0 else lin)[first + copies * per] += abs(step)
        for name, d in busy.items():
            block = d[ref : ref + per].copy()
            if name == "inflight_rows_area":  # what is in flight at the stretch's start spans it already
                block -= levels["inflight_rows"][first] * dt
            for c in range(copies):
                lo = first + c * per
                d[lo : lo + per] += block[: max(0, min(per, len(d) - lo))]
        for v in acc.mins.values():
            block = v[ref : ref + per].copy()
            for c in range(copies):
                lo = first + c * per
                n = max(0, min(per, len(v) - lo))
                v[lo : lo + n] = block[:n] + (lo - ref) * dt
