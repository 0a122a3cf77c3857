"""Fixed-size accumulators that turn per-transaction times into time series, chunk by chunk.

The run is cut into bins of ``dt_s``; edge ``k`` is time ``k * dt_s``. Three kinds of series:

* **counts/sums** of events in each bin (rows applied, latency sums...);
* **levels** at each edge (queue depth, memory, rows in flight): ``+w`` when something enters,
  ``-w`` when it leaves, a cumulative sum gives the level just before each edge;
* **busy time** in each bin (utilisation, MEM_FULL_TIME) from ``(start, end)`` intervals: each
  interval's overlap with the bins it touches; and **areas** (rows in flight times time) from
  when items enter and leave: an item of size ``w`` present from ``t`` covers ``w min(dt,
  max(0, (k + 1) dt - t))`` of bin ``k``, computed in the bins a chunk touches, the later bins
  (``w dt`` each) through a running total of what is present from each bin on.

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


def _series(series: dict, name: str, length: int, fill: float = 0.0) -> np.ndarray:
    """``series[name]``, made (``length`` values of ``fill``) the first time it is asked for."""
    values = series.get(name)
    if values is None:
        values = series[name] = np.full(length, fill)
    return values


class BinSums:
    """Per-bin values over the bins a set of times touches: ``values[i]`` is bin ``lo + i``.

    A chunk of a long run touches a few of its bins; the accumulators add these values to
    those bins only, so a chunk costs work per transaction, not per bin of the run.
    """

    __slots__ = ("lo", "values")

    def __init__(self, lo: int, values: np.ndarray):
        self.lo = lo
        self.values = values


class Binned:
    """Events at times ``t`` put into an accumulator's bins once, for per-bin sums of several weights.

    Bin ``k < nbins`` holds the times in ``[k dt, (k + 1) dt)`` (times before 0 count in bin
    0), bin ``nbins`` those at or after the end; only the bins from the earliest time's
    (``lo``) to the latest's (``hi - 1``) are computed (:class:`BinSums`). Times in
    non-decreasing order (checked) are split at the edges with ``np.searchsorted`` and summed
    in contiguous runs (``np.add.reduceat``), others binned one by one
    (:meth:`Accumulator.index`) and summed with ``np.bincount``.

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
        self.dt = acc.dt
        self.edges = acc.edges
        self.n = self.t.shape[0]
        self.ordered = self.n < 2 or bool(np.all(self.t[1:] >= self.t[:-1]))
        self.lo = self.hi = 0
        self.idx = None
        if self.ordered:
            if self.n:
                self.lo = int(np.searchsorted(acc.edges[1:], self.t[0], side="right"))
                self.hi = int(np.searchsorted(acc.edges[1:], self.t[-1], side="right")) + 1
            # local bin i (bin lo + i): [bounds[i], bounds[i + 1])
            self.bounds = np.empty(self.hi - self.lo + 1, dtype=np.int64)
            self.bounds[0] = 0
            self.bounds[-1] = self.n
            self.bounds[1:-1] = np.searchsorted(self.t, acc.edges[self.lo + 1 : self.hi])
            # the bins with events, and where their runs start (each run ends where the next begins)
            self.full = np.flatnonzero(self.bounds[:-1] < self.bounds[1:])
            self.full_starts = self.bounds[self.full]
        else:
            idx = acc.index(self.t)
            self.lo, self.hi = int(idx.min()), int(idx.max()) + 1
            self.idx = idx - self.lo

    def sums(self, weights=None) -> BinSums:
        """Sum of ``weights`` (default 1 each) per bin."""
        span = self.hi - self.lo
        if weights is None:
            if self.ordered:
                return BinSums(self.lo, np.diff(self.bounds).astype(float))
            return BinSums(self.lo, np.bincount(self.idx, minlength=span).astype(float))
        w = np.asarray(weights, dtype=float)
        if not self.ordered:
            return BinSums(self.lo, np.bincount(self.idx, weights=w, minlength=span))
        out = np.zeros(span)
        if self.n:
            out[self.full] = np.add.reduceat(w, self.full_starts)
        return BinSums(self.lo, out)

    def maxima(self, values) -> BinSums:
        """Largest of ``values`` per bin (-inf where there is none)."""
        v = np.asarray(values, dtype=float)
        out = np.full(self.hi - self.lo, -np.inf)
        if not self.ordered:
            np.maximum.at(out, self.idx, v)
        elif self.n:
            out[self.full] = np.maximum.reduceat(v, self.full_starts)
        return BinSums(self.lo, out)

    def area_after(self, weights) -> tuple[BinSums, float]:
        """Area per bin of items of size ``weights`` present from the times on, in the bins touched,
        and their total size (present in every bin from ``hi`` on).

        An item of size ``w`` from time ``t`` covers ``w min(dt, max(0, (k + 1) dt - t))`` of bin
        ``k``: ``w dt`` in the bins after its own, ``w ((k + 1) dt - t)`` in its own (nothing
        after the end, and a time before 0 counts as 0).
        """
        w = np.asarray(weights, dtype=float)
        count = self.sums(w).values
        below = self.sums(w * np.maximum(self.t, 0.0)).values  # per bin: sum of w t
        start = self.edges[self.lo : self.hi]
        before = np.cumsum(count) - count  # size of the items in earlier touched bins
        area = self.dt * before + (start + self.dt) * count - below
        if self.hi > self.nb:  # the times at or after the end cover every bin before it
            area = area[: self.nb - self.lo]
        return BinSums(self.lo, area), float(count.sum())


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
        #: Area per bin (:meth:`area_in`, :meth:`area_out`) in the bins chunks touched, and the
        #: size present from each bin on (added to every later bin by :meth:`settle_areas`).
        self.area_bins: dict[str, np.ndarray] = {}
        self.area_from: dict[str, np.ndarray] = {}
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

    def _span(self, sums: BinSums, length: int) -> tuple[int, int]:
        """The part of ``sums`` within the first ``length`` bins: (first bin, how many)."""
        return sums.lo, max(0, min(len(sums.values), length - sums.lo))

    def add_sums(self, name: str, sums: BinSums) -> None:
        """Add per-bin sums (:meth:`Binned.sums`) to series ``name`` (times at or after the end left out)."""
        acc = _series(self.sums, name, self.nbins)
        lo, n = self._span(sums, self.nbins)
        acc[lo : lo + n] += sums.values[:n]

    def enter_sums(self, name: str, sums: BinSums) -> None:
        """Level ``name`` rises by per-bin sums (:meth:`Binned.sums`) after the bins' times."""
        acc = _series(self.level_in, name, self.nbins + 1)
        lo, n = self._span(sums, self.nbins)
        acc[lo + 1 : lo + 1 + n] += sums.values[:n]

    def leave_sums(self, name: str, sums: BinSums) -> None:
        """Level ``name`` falls by per-bin sums (:meth:`Binned.sums`) after the bins' times."""
        acc = _series(self.level_out, name, self.nbins + 1)
        lo, n = self._span(sums, self.nbins)
        acc[lo + 1 : lo + 1 + n] += sums.values[:n]

    def maximum(self, name: str, binned: Binned, values) -> None:
        """Keep the largest of ``values`` per bin (events at ``binned``'s times; those at or after the end left out)."""
        acc = _series(self.maxes, name, self.nbins)
        top = binned.maxima(values)
        lo, n = self._span(top, self.nbins)
        np.maximum(acc[lo : lo + n], top.values[:n], out=acc[lo : lo + n])

    def area_in(self, name: str, binned: Binned, weights) -> None:
        """Items of size ``weights`` present from ``binned``'s times on: adds their area per bin."""
        self._area(name, binned, weights, 1.0)

    def area_out(self, name: str, binned: Binned, weights) -> None:
        """Items of size ``weights`` gone from ``binned``'s times on (pairs with :meth:`area_in`)."""
        self._area(name, binned, weights, -1.0)

    def _area(self, name: str, binned: Binned, weights, sign: float) -> None:
        area, total = binned.area_after(weights)
        acc = _series(self.area_bins, name, self.nbins)
        lo, n = self._span(area, self.nbins)
        acc[lo : lo + n] += sign * area.values[:n]
        _series(self.area_from, name, self.nbins + 1)[min(binned.hi, self.nbins)] += sign * total

    def settle_areas(self) -> None:
        """Add to each area series the items present from before each bin (kept aside while chunks come)."""
        for name, present in self.area_from.items():
            self.area_bins[name] += self.dt * np.cumsum(present)[: self.nbins]
            present[:] = 0.0

    def busy(self, name: str, start, end, scale: float = 1.0, weights=None) -> None:
        """Add ``scale`` (times ``weights``) times the overlap of intervals ``[start, end)`` with each bin.

        Only the bins the intervals touch are written (a chunk of a long run touches a few).
        """
        acc = _series(self.busy_bins, name, self.nbins)
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
        if s.size > 1 and bool(np.all(s[1:] >= e[:-1])):
            self._add_serial(acc, s, e, w)
            return
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

    def _add_serial(self, acc, s, e, w) -> None:
        """:meth:`_add_overlaps` for intervals in order, none overlapping the next (one server's busy
        periods): the weighted busy time up to each edge the intervals span, differenced."""
        lo = min(int(s[0] / self.dt), self.nbins - 1)
        hi = min(int(e[-1] / self.dt), self.nbins - 1)
        edges = self.edges[lo : hi + 2]
        done = np.zeros(s.size + 1)
        np.cumsum(w * (e - s), out=done[1:])  # busy time of the intervals before each
        j = np.searchsorted(e, edges, side="right")  # intervals ended by each edge
        upto = done[j]
        inside = j < s.size
        k = j[inside]
        upto[inside] += w[k] * np.maximum(edges[inside] - s[k], 0.0)  # the one going on at the edge
        acc[lo : hi + 1] += np.diff(upto)

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
        acc = _series(self.mins, name, self.nbins + 1, np.inf)
        if len(commit) == 0:
            return
        commit, done = self.real(np.asarray(commit, dtype=float)), self.real(np.asarray(done, dtype=float))
        prefix_done = np.maximum.accumulate(done)
        # only the edges after the first commit and before the last item is done can have one in flight
        lo = int(np.searchsorted(self.edges, commit[0], side="right"))
        hi = int(np.searchsorted(self.edges, prefix_done[-1], side="left"))
        if hi <= lo:
            return
        edges = self.edges[lo:hi]
        i = np.searchsorted(prefix_done, edges, side="right")  # first item still in flight at the edge
        ok = i < len(commit)
        cand = np.full(edges.shape, np.inf)
        cand[ok] = commit[i[ok]]
        cand[cand >= edges] = np.inf
        np.minimum(acc[lo:hi], cand, out=acc[lo:hi])

    def histogram(self, name: str, values_ms, at_s=None) -> None:
        """Add values (ms) to a log-spaced histogram for percentiles.

        ``at_s`` (pipeline clock): when each value was measured; a value in a window that copied
        windows repeat (:meth:`weigh_window`) counts once more for each copy.
        """
        acc = _series(self.hist, name, len(HIST_EDGES_MS) + 1)
        v = np.maximum(np.asarray(values_ms, dtype=float), 1e-300)
        i = np.floor((np.log(v) - _LOG_FIRST) * _INV_LOG_STEP).astype(np.int64) + 1
        np.clip(i, 0, len(acc) - 1, out=i)
        weights = None
        if self.hist_weights and at_s is not None:
            window = (self.real(np.asarray(at_s, dtype=float)) / self.hist_window_s).astype(np.int64)
            keys = np.fromiter(sorted(self.hist_weights), dtype=np.int64)
            at = np.minimum(np.searchsorted(keys, window), len(keys) - 1)
            found = keys[at] == window
            if found.any():
                weights = np.ones(len(v))
                weights[found] = np.array([self.hist_weights[int(k)] for k in keys])[at[found]]
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
        if name in self.area_bins:
            return self.area_bins[name] + self.dt * np.cumsum(self.area_from[name])[: self.nbins]
        return self.busy_bins.get(name, np.zeros(self.nbins))

    def busy_names(self) -> list[str]:
        """Names of the busy-time and area series."""
        return list(self.busy_bins) + [n for n in self.area_bins if n not in self.busy_bins]

    def percentile_ms(self, name: str, q: float) -> float | None:
        """``q``-th percentile (0..100) of a histogram, ms (upper edge of its bin); None if empty."""
        h = self.hist.get(name)
        if h is None or h.sum() == 0:
            return None
        c = np.cumsum(h)
        i = int(np.searchsorted(c, q / 100.0 * c[-1], side="left"))
        return float(HIST_EDGES_MS[min(i, len(HIST_EDGES_MS) - 1)])
