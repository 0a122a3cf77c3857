"""Fixed-size accumulators that turn per-transaction times into time series, chunk by chunk.

The run is cut into bins of ``dt_s``; edge ``k`` is time ``k * dt_s``. Three kinds of series:

* **counts/sums** of events in each bin (rows applied, latency sums...);
* **levels** at each edge (queue depth, memory, rows in flight): ``+w`` when something enters,
  ``-w`` when it leaves, a cumulative sum gives the level just before each edge;
* **busy time** in each bin (utilisation, MEM_FULL_TIME) from ``(start, end)`` intervals, via
  the integral ``I(t) = sum_j (min(t, e_j) - min(t, s_j))`` evaluated at the edges with sorted
  prefix sums.

Memory use is independent of the number of transactions.
"""

from __future__ import annotations

import numpy as np

#: Latency histogram: log-spaced bins 0.5% wide from 1 microsecond to about 11 days (in ms).
_LOG_FIRST = float(np.log(1e-3))
_INV_LOG_STEP = float(1.0 / np.log(1.005))
HIST_EDGES_MS = np.exp(_LOG_FIRST + np.arange(int((np.log(1e9) - _LOG_FIRST) * _INV_LOG_STEP)) / _INV_LOG_STEP)


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
        self.mins: dict[str, np.ndarray] = {}
        self.hist: dict[str, np.ndarray] = {}

    def _idx(self, t):
        t = np.asarray(t, dtype=float)
        i = np.floor(t / self.dt).astype(np.int64)
        ok = (t >= 0) & (i < self.nbins)
        return i, ok

    def index(self, t) -> np.ndarray:
        """Bin of each time (``nbins`` for times at or after the end), for the ``*_at`` methods."""
        i = (np.asarray(t, dtype=float) * (1.0 / self.dt)).astype(np.int64)
        np.clip(i, 0, self.nbins, out=i)
        return i

    def add_at(self, name: str, idx, weights=None) -> None:
        """Like :meth:`add` with bins from :meth:`index`."""
        acc = self.sums.setdefault(name, np.zeros(self.nbins))
        acc += np.bincount(idx, weights=weights, minlength=self.nbins + 1)[: self.nbins]

    def enter_at(self, name: str, idx, weights=None) -> None:
        """Level ``name`` rises by ``weights`` after the times whose bins are ``idx``."""
        acc = self.level_in.setdefault(name, np.zeros(self.nbins + 1))
        acc[1:] += np.bincount(idx, weights=weights, minlength=self.nbins + 1)[: self.nbins]

    def leave_at(self, name: str, idx, weights=None) -> None:
        """Level ``name`` falls by ``weights`` after the times whose bins are ``idx``."""
        acc = self.level_out.setdefault(name, np.zeros(self.nbins + 1))
        acc[1:] += np.bincount(idx, weights=weights, minlength=self.nbins + 1)[: self.nbins]

    def area_in(self, name: str, t_sorted, weights) -> None:
        """Items of size ``weights`` present from ``t_sorted`` (ascending) on: adds their area per bin."""
        acc = self.busy_int.setdefault(name, np.zeros(self.nbins + 1))
        acc -= _sum_min_sorted(self.edges, np.asarray(t_sorted, float), np.asarray(weights, float))

    def area_out(self, name: str, t, weights) -> None:
        """Items of size ``weights`` gone from ``t`` on (pairs with :meth:`area_in`)."""
        acc = self.busy_int.setdefault(name, np.zeros(self.nbins + 1))
        acc += _sum_min_w(self.edges, np.asarray(t, float), np.broadcast_to(np.asarray(weights, float), np.shape(t)))

    def add(self, name: str, t, weights=None) -> None:
        """Add ``weights`` (default 1) of events at times ``t`` to the bins they fall in."""
        acc = self.sums.setdefault(name, np.zeros(self.nbins))
        i, ok = self._idx(t)
        w = None if weights is None else np.broadcast_to(np.asarray(weights, dtype=float), i.shape)[ok]
        acc += np.bincount(i[ok], weights=w, minlength=self.nbins)[: self.nbins]

    def maximum(self, name: str, t, values) -> None:
        """Keep the largest of ``values`` per bin (events at ``t``)."""
        acc = self.maxes.setdefault(name, np.zeros(self.nbins))
        i, ok = self._idx(t)
        np.maximum.at(acc, i[ok], np.asarray(values, dtype=float)[ok])

    def level(self, name: str, t_in, t_out, weights=None) -> None:
        """Something of size ``weights`` is present from ``t_in`` until ``t_out``."""
        for store, t in ((self.level_in, t_in), (self.level_out, t_out)):
            acc = store.setdefault(name, np.zeros(self.nbins + 1))
            tt = np.asarray(t, dtype=float)
            i = np.floor(tt / self.dt).astype(np.int64) + 1  # counts at every edge after t
            i = np.clip(i, 0, self.nbins + 1)
            ok = i <= self.nbins
            w = None if weights is None else np.broadcast_to(np.asarray(weights, dtype=float), i.shape)[ok]
            acc += np.bincount(i[ok], weights=w, minlength=self.nbins + 1)[: self.nbins + 1]

    def busy(self, name: str, start, end, scale: float = 1.0, weights=None) -> None:
        """Add ``scale`` (times ``weights``) times the overlap of intervals ``[start, end)`` with each bin."""
        acc = self.busy_int.setdefault(name, np.zeros(self.nbins + 1))
        s = np.asarray(start, dtype=float)
        e = np.asarray(end, dtype=float)
        if s.size == 0:
            return
        if weights is None:
            acc += scale * (_sum_min(self.edges, _sorted(e)) - _sum_min(self.edges, _sorted(s)))
        else:
            w = np.broadcast_to(np.asarray(weights, dtype=float), s.shape)
            acc += scale * (_sum_min_w(self.edges, e, w) - _sum_min_w(self.edges, s, w))

    def oldest(self, name: str, commit, done) -> None:
        """Track, at each edge, the earliest ``commit`` among items with ``commit < edge <= done``.

        ``commit`` must be sorted ascending.
        """
        acc = self.mins.setdefault(name, np.full(self.nbins + 1, np.inf))
        if len(commit) == 0:
            return
        prefix_done = np.maximum.accumulate(np.asarray(done, dtype=float))
        i = np.searchsorted(prefix_done, self.edges, side="right")  # first item still in flight at the edge
        ok = i < len(commit)
        cand = np.full(self.edges.shape, np.inf)
        cand[ok] = np.asarray(commit)[i[ok]]
        cand[cand >= self.edges] = np.inf
        np.minimum(acc, cand, out=acc)

    def histogram(self, name: str, values_ms) -> None:
        """Add values (ms) to a log-spaced histogram for percentiles."""
        acc = self.hist.setdefault(name, np.zeros(len(HIST_EDGES_MS) + 1))
        v = np.maximum(np.asarray(values_ms, dtype=float), 1e-300)
        i = np.floor((np.log(v) - _LOG_FIRST) * _INV_LOG_STEP).astype(np.int64) + 1
        np.clip(i, 0, len(acc) - 1, out=i)
        acc += np.bincount(i, minlength=len(acc))

    # ------------------------------------------------------------------ read-out
    def series(self, name: str) -> np.ndarray:
        """Sum per bin."""
        return self.sums.get(name, np.zeros(self.nbins))

    def level_at_edges(self, name: str) -> np.ndarray:
        """Level at every edge (length ``nbins + 1``)."""
        z = np.zeros(self.nbins + 1)
        return np.cumsum(self.level_in.get(name, z)) - np.cumsum(self.level_out.get(name, z))

    def busy_per_bin(self, name: str) -> np.ndarray:
        """Busy time in each bin, s."""
        return np.diff(self.busy_int.get(name, np.zeros(self.nbins + 1)))

    def percentile_ms(self, name: str, q: float) -> float | None:
        """``q``-th percentile (0..100) of a histogram, ms (upper edge of its bin); None if empty."""
        h = self.hist.get(name)
        if h is None or h.sum() == 0:
            return None
        c = np.cumsum(h)
        i = int(np.searchsorted(c, q / 100.0 * c[-1], side="left"))
        return float(HIST_EDGES_MS[min(i, len(HIST_EDGES_MS) - 1)])


def _sum_min(t, x_sorted):
    """``sum_j min(t_k, x_j)`` for every ``t_k`` (``x_sorted`` ascending)."""
    cs = np.concatenate(([0.0], np.cumsum(x_sorted)))
    j = np.searchsorted(x_sorted, t, side="right")
    return cs[j] + t * (len(x_sorted) - j)


def _sum_min_w(t, x, w):
    """``sum_j w_j * min(t_k, x_j)`` for every ``t_k``."""
    order = np.argsort(x, kind="stable")
    xs, ws = x[order], w[order]
    cs = np.concatenate(([0.0], np.cumsum(xs * ws)))
    cw = np.concatenate(([0.0], np.cumsum(ws)))
    j = np.searchsorted(xs, t, side="right")
    return cs[j] + t * (cw[-1] - cw[j])


def _sum_min_sorted(t, xs, ws):
    """``sum_j w_j * min(t_k, x_j)`` for ``xs`` already ascending."""
    cs = np.concatenate(([0.0], np.cumsum(xs * ws)))
    cw = np.concatenate(([0.0], np.cumsum(ws)))
    j = np.searchsorted(xs, t, side="right")
    return cs[j] + t * (cw[-1] - cw[j])


def _sorted(x: np.ndarray) -> np.ndarray:
    """``x`` ascending (no copy when it already is, as FIFO departures are)."""
    return x if x.size < 2 or bool(np.all(x[1:] >= x[:-1])) else np.sort(x)
