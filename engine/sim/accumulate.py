"""Fixed-size accumulators that turn per-transaction times into time series, chunk by chunk.

The run is cut into bins of ``dt_s``; edge ``k`` is time ``k * dt_s``. Three kinds of series:

* **counts/sums** of events in each bin (rows applied, latency sums...);
* **levels** at each edge (queue depth, memory, rows in flight): ``+w`` when something enters,
  ``-w`` when it leaves, a cumulative sum gives the level just before each edge;
* **busy time** in each bin (utilisation, MEM_FULL_TIME) from ``(start, end)`` intervals, via
  the integral ``I(t) = sum_j (min(t, e_j) - min(t, s_j))`` evaluated at the edges:
  ``sum_j min(t_k, x_j)`` is the sum of the ``x`` in bins before ``k`` plus ``t_k`` times the
  number of the others.

Everything goes through per-bin sums (:class:`Binned`): the times are put into their bins once
and several weights summed per bin; times that are already in order (FIFO departures,
commits, MQPUTs...) are summed in contiguous runs, several times faster than counting bins one
by one. Memory use is independent of the number of transactions.
"""

from __future__ import annotations

import numpy as np

#: Latency histogram: log-spaced bins 0.5% wide from 1 microsecond to about 11 days (in ms).
_LOG_FIRST = float(np.log(1e-3))
_INV_LOG_STEP = float(1.0 / np.log(1.005))
HIST_EDGES_MS = np.exp(
    _LOG_FIRST + np.arange(int((np.log(1e9) - _LOG_FIRST) * _INV_LOG_STEP)) / _INV_LOG_STEP
)


class Binned:
    """Events at times ``t`` put into an accumulator's bins once, for per-bin sums of several weights.

    Bin ``k < nbins`` holds the times in ``[k dt, (k + 1) dt)`` (times before 0 count in bin
    0), bin ``nbins`` those at or after the end. Times in non-decreasing order (checked) are
    split at the edges with ``np.searchsorted`` and summed in contiguous runs
    (``np.add.reduceat``), others binned one by one (:meth:`Accumulator.index`) and summed with
    ``np.bincount``.

    Parameters
    ----------
    acc : Accumulator
        Gives the bins.
    t : array of float
        Event times, s.
    """

    def __init__(self, acc: Accumulator, t):
        self.t = np.asarray(t, dtype=float)
        self.nb = acc.nbins
        self.n = self.t.shape[0]
        self.ordered = self.n < 2 or bool(np.all(self.t[1:] >= self.t[:-1]))
        if self.ordered:
            # bin k: [bounds[k], bounds[k + 1]); bin 0 from the first time, bin nbins to the last;
            # only the edges between the first and the last time are searched (a chunk of a long run
            # spans a few of its bins)
            self.bounds = np.empty(self.nb + 2, dtype=np.int64)
            self.bounds[0] = 0
            self.bounds[-1] = self.n
            inner = self.bounds[1:-1]
            if self.n:
                lo = int(np.searchsorted(acc.edges[1:], self.t[0], side="right"))
                hi = int(np.searchsorted(acc.edges[1:], self.t[-1], side="right"))
                inner[:lo] = 0
                inner[lo:hi] = np.searchsorted(self.t, acc.edges[1 + lo : 1 + hi])
                inner[hi:] = self.n
            else:
                inner[:] = 0
            # the bins with events, and where their runs start (each run ends where the next begins)
            self.full = np.flatnonzero(self.bounds[:-1] < self.bounds[1:])
            self.full_starts = self.bounds[self.full]
            self.idx = None
        else:
            self.idx = acc.index(self.t)

    def sums(self, weights=None) -> np.ndarray:
        """Sum of ``weights`` (default 1 each) per bin, length ``nbins + 1``."""
        if weights is None:
            if self.ordered:
                return np.diff(self.bounds).astype(float)
            return np.bincount(self.idx, minlength=self.nb + 1).astype(float)
        w = np.asarray(weights, dtype=float)
        if not self.ordered:
            return np.bincount(self.idx, weights=w, minlength=self.nb + 1)
        out = np.zeros(self.nb + 1)
        if self.n:
            out[self.full] = np.add.reduceat(w, self.full_starts)
        return out

    def maxima(self, values) -> np.ndarray:
        """Largest of ``values`` per bin (-inf where there is none), length ``nbins + 1``."""
        v = np.asarray(values, dtype=float)
        if not self.ordered:
            out = np.full(self.nb + 1, -np.inf)
            np.maximum.at(out, self.idx, v)
            return out
        out = np.full(self.nb + 1, -np.inf)
        if self.n:
            out[self.full] = np.maximum.reduceat(v, self.full_starts)
        return out

    def sum_min(self, edges, weights=None) -> np.ndarray:
        """``sum_j w_j min(edge_k, t_j)`` at every edge (``edges[k] = k dt``, length ``nbins + 1``)."""
        w = None if weights is None else np.asarray(weights, dtype=float)
        below = self.sums(self.t if w is None else w * self.t)  # per bin: sum of w t
        count = self.sums(w)  # per bin: sum of w
        out = np.empty(self.nb + 1)
        out[0] = 0.0
        np.cumsum(below[: self.nb], out=out[1:])
        before = np.empty(self.nb + 1)
        before[0] = 0.0
        np.cumsum(count[: self.nb], out=before[1:])
        out += edges * (count.sum() - before)
        neg = self.t < 0.0 if not self.ordered or (self.n and self.t[0] < 0.0) else None
        if neg is not None and neg.any():  # min(0, t) = t for the times before 0
            out[0] += float(self.t[neg].sum() if w is None else (w[neg] * self.t[neg]).sum())
        return out


class Accumulator:
    """Series over ``[0, duration_s]`` in bins of ``dt_s``.

    Parameters
    ----------
    duration_s, dt_s : float
        Run length and bin width, s.
    """

    def __init__(self, duration_s: float, dt_s: float):
        self.dt = float(dt_s)
        self.nbins = round(duration_s / dt_s)
        self.duration = self.nbins * self.dt
        self.edges = np.arange(self.nbins + 1) * self.dt
        self.sums: dict[str, np.ndarray] = {}
        self.maxes: dict[str, np.ndarray] = {}
        self.level_in: dict[str, np.ndarray] = {}
        self.level_out: dict[str, np.ndarray] = {}
        self.busy_int: dict[str, np.ndarray] = {}
        self.busy_bins: dict[str, np.ndarray] = {}
        self.mins: dict[str, np.ndarray] = {}
        self.hist: dict[str, np.ndarray] = {}
        #: Pipeline time -> run time (:class:`engine.sim.stationary.TimeMap`); None: the same.
        self.timemap = None
        #: Weight of a histogram value by the window of run time it is at (copied windows' references).
        self.hist_window_s = 0.0
        self.hist_weights: dict[int, float] = {}

    def real(self, t):
        """Run time of pipeline times ``t`` (the same unless windows were copied)."""
        return t if self.timemap is None else self.timemap.real(np.asarray(t, dtype=float))

    def index(self, t) -> np.ndarray:
        """Bin of each time (``nbins`` for times at or after the end)."""
        i = (np.asarray(t, dtype=float) * (1.0 / self.dt)).astype(np.int64)
        np.clip(i, 0, self.nbins, out=i)
        return i

    def binned(self, t) -> Binned:
        """Times ``t`` (pipeline clock) put into the bins, for :meth:`add_sums`, :meth:`enter_sums`, :meth:`leave_sums`."""
        return Binned(self, self.real(t))

    def add_sums(self, name: str, sums) -> None:
        """Add per-bin sums (:meth:`Binned.sums`) to series ``name`` (times at or after the end left out)."""
        acc = self.sums.setdefault(name, np.zeros(self.nbins))
        acc += sums[: self.nbins]

    def enter_sums(self, name: str, sums) -> None:
        """Level ``name`` rises by per-bin sums (:meth:`Binned.sums`) after the bins' times."""
        acc = self.level_in.setdefault(name, np.zeros(self.nbins + 1))
        acc[1:] += sums[: self.nbins]

    def leave_sums(self, name: str, sums) -> None:
        """Level ``name`` falls by per-bin sums (:meth:`Binned.sums`) after the bins' times."""
        acc = self.level_out.setdefault(name, np.zeros(self.nbins + 1))
        acc[1:] += sums[: self.nbins]

    def maximum(self, name: str, binned: Binned, values) -> None:
        """Keep the largest of ``values`` per bin (events at ``binned``'s times; those at or after the end left out)."""
        acc = self.maxes.setdefault(name, np.zeros(self.nbins))
        np.maximum(acc, binned.maxima(values)[: self.nbins], out=acc)

    def area_in(self, name: str, binned: Binned, weights) -> None:
        """Items of size ``weights`` present from ``binned``'s times on: adds their area per bin."""
        acc = self.busy_int.setdefault(name, np.zeros(self.nbins + 1))
        acc -= binned.sum_min(self.edges, weights)

    def area_out(self, name: str, binned: Binned, weights) -> None:
        """Items of size ``weights`` gone from ``binned``'s times on (pairs with :meth:`area_in`)."""
        acc = self.busy_int.setdefault(name, np.zeros(self.nbins + 1))
        acc += binned.sum_min(self.edges, weights)

    def busy(self, name: str, start, end, scale: float = 1.0, weights=None) -> None:
        """Add ``scale`` (times ``weights``) times the overlap of intervals ``[start, end)`` with each bin.

        Only the bins the intervals touch are written (a chunk of a long run touches a few).
        """
        acc = self.busy_bins.setdefault(name, np.zeros(self.nbins))
        if np.size(start) == 0:
            return
        w = scale * (
            np.ones(np.shape(start)) if weights is None else np.broadcast_to(weights, np.shape(start))
        )
        start, end = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
        self._add_overlaps(acc, self.real(start), self.real(end), w)
        if self.timemap is not None:
            self._cut_at_stretches(self.timemap, acc, start, end, w)

    def _add_overlaps(self, acc, start, end, w) -> None:
        """``acc[k] += sum_j w_j |[start_j, end_j) & bin k|`` over the bins the intervals touch."""
        s = np.clip(start, 0.0, self.duration)
        e = np.clip(end, 0.0, self.duration)
        keep = e > s
        if not keep.any():
            return
        s, e, w = s[keep], e[keep], w[keep]
        first = np.minimum((s / self.dt).astype(np.int64), self.nbins - 1)
        last = np.minimum((e / self.dt).astype(np.int64), self.nbins - 1)
        lo, n = int(first.min()), int(last.max() - first.min()) + 2
        one = first == last
        head = np.where(one, e, (first + 1) * self.dt) - s  # the part in the first bin
        local = np.bincount(first - lo, w * head, minlength=n)
        many = ~one
        local += np.bincount(last[many] - lo, w[many] * (e[many] - last[many] * self.dt), minlength=n)
        # whole bins between the first and the last: a difference array over the bins touched
        steps = np.bincount(first[many] + 1 - lo, w[many], minlength=n) - np.bincount(
            last[many] - lo, w[many], minlength=n
        )
        local += np.cumsum(steps) * self.dt
        acc[lo : lo + n - 1] += local[: n - 1]

    def _cut_at_stretches(self, timemap, acc, start, end, w) -> None:
        """Take out of busy intervals that cross a stretch of copied windows (of ``timemap``) the stretch itself."""
        at, gap_starts, gap_ends = timemap.gaps()
        first, last = np.searchsorted(at, (start.min(), end.max()))
        for at_tau, gap_start, gap_end in zip(at[first:last], gap_starts[first:last], gap_ends[first:last]):
            crossing = (start <= at_tau) & (end > at_tau)
            if crossing.any():
                n = int(crossing.sum())
                self._add_overlaps(acc, np.full(n, gap_start), np.full(n, gap_end), -w[crossing])

    def oldest(self, name: str, commit, done) -> None:
        """Track, at each edge, the earliest ``commit`` among items with ``commit < edge <= done``.

        ``commit`` must be sorted ascending.
        """
        acc = self.mins.setdefault(name, np.full(self.nbins + 1, np.inf))
        if len(commit) == 0:
            return
        commit, done = self.real(np.asarray(commit, dtype=float)), self.real(np.asarray(done, dtype=float))
        prefix_done = np.maximum.accumulate(done)
        i = np.searchsorted(prefix_done, self.edges, side="right")  # first item still in flight at the edge
        ok = i < len(commit)
        cand = np.full(self.edges.shape, np.inf)
        cand[ok] = np.asarray(commit)[i[ok]]
        cand[cand >= self.edges] = np.inf
        np.minimum(acc, cand, out=acc)

    def histogram(self, name: str, values_ms, at_s=None) -> None:
        """Add values (ms) to a log-spaced histogram for percentiles.

        ``at_s`` (pipeline clock): when each value was measured; a value in a window that copied
        windows repeat (:meth:`weigh_window`) counts once more for each copy.
        """
        acc = self.hist.setdefault(name, np.zeros(len(HIST_EDGES_MS) + 1))
        v = np.maximum(np.asarray(values_ms, dtype=float), 1e-300)
        i = np.floor((np.log(v) - _LOG_FIRST) * _INV_LOG_STEP).astype(np.int64) + 1
        np.clip(i, 0, len(acc) - 1, out=i)
        weights = None
        if self.hist_weights and at_s is not None:
            window = (self.real(np.asarray(at_s, dtype=float)) / self.hist_window_s).astype(np.int64)
            keys = np.fromiter(self.hist_weights, dtype=np.int64)
            found = np.isin(window, keys)
            if found.any():
                weights = np.ones(len(v))
                weights[found] = [self.hist_weights[int(k)] for k in window[found]]
        acc += np.bincount(i, weights=weights, minlength=len(acc))

    def weigh_window(self, start_s: float, w_s: float, copies: int) -> None:
        """Values of the run-time window ``[start_s, start_s + w_s)`` count ``1 + copies`` times in the histograms."""
        self.hist_window_s = w_s
        key = round(start_s / w_s)
        self.hist_weights[key] = self.hist_weights.get(key, 1.0) + copies

    # ------------------------------------------------------------------ read-out
    def series(self, name: str) -> np.ndarray:
        """Sum per bin."""
        return self.sums.get(name, np.zeros(self.nbins))

    def level_at_edges(self, name: str) -> np.ndarray:
        """Level at every edge (length ``nbins + 1``)."""
        z = np.zeros(self.nbins + 1)
        return np.cumsum(self.level_in.get(name, z)) - np.cumsum(self.level_out.get(name, z))

    def busy_per_bin(self, name: str) -> np.ndarray:
        """Busy time in each bin (or area, for :meth:`area_in` and :meth:`area_out`), s."""
        if name in self.busy_bins:
            return self.busy_bins[name]
        return np.diff(self.busy_int.get(name, np.zeros(self.nbins + 1)))

    def busy_names(self) -> list[str]:
        """Names of the busy-time and area series."""
        return list(self.busy_bins) + [n for n in self.busy_int if n not in self.busy_bins]

    def percentile_ms(self, name: str, q: float) -> float | None:
        """``q``-th percentile (0..100) of a histogram, ms (upper edge of its bin); None if empty."""
        h = self.hist.get(name)
        if h is None or h.sum() == 0:
            return None
        c = np.cumsum(h)
        i = int(np.searchsorted(c, q / 100.0 * c[-1], side="left"))
        return float(HIST_EDGES_MS[min(i, len(HIST_EDGES_MS) - 1)])
