"""Workload profiles: how many rows per second the source commits over time.

A profile is an OLTP stream whose rate in rows/s is piecewise constant in time, plus optional
*batch windows*: jobs that commit large transactions at their own rate during a window.
Transactions arrive as a non-homogeneous Poisson process (exact: on each constant piece the
count is Poisson and the times are uniform order statistics, drawn from normalised exponential
spacings, so no sort is needed).

The profiles themselves (:class:`Profile`, its JSON documents and CSV files) are
:mod:`engine.load_profiles`'s, imported here under their old names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.load_profiles import (  # noqa: F401 - the simulator's callers import them from here
    BatchWindow,
    Profile,
    constant,
    from_csv,
    from_dict,
    load,
)


@dataclass
class Transactions:
    """Source transactions committed in one chunk of time (sorted by commit time).

    Attributes
    ----------
    commit_s : numpy.ndarray
        Source commit times, s.
    rows : numpy.ndarray
        Rows changed by each transaction (int64).
    begin_s : numpy.ndarray
        Time each transaction wrote its first log record, s (large batch transactions take
        ``rows / rows_per_s`` to write).
    u : numpy.ndarray or None
        A uniform (0, 1) draw per transaction: the service-time variability of the message it
        opens (:func:`engine.sim.pipeline.service_multiplier`); None means 0.5 for all.
    v : numpy.ndarray or None
        A second uniform (0, 1) draw per transaction: the target transaction it opens depends
        on the one before when ``v`` is below the dependent share
        (:attr:`engine.sim.config.PipelineConfig.dependent_share`); None means 1 for all (no
        dependencies).
    """

    commit_s: np.ndarray
    rows: np.ndarray
    begin_s: np.ndarray
    u: np.ndarray | None = None
    v: np.ndarray | None = None

    def part(self, start: int, stop: int) -> Transactions:
        """Transactions ``[start:stop]`` (views, no copy)."""

        def cut(a):
            return None if a is None else a[start:stop]

        return Transactions(
            self.commit_s[start:stop],
            self.rows[start:stop],
            self.begin_s[start:stop],
            cut(self.u),
            cut(self.v),
        )

    def uniforms(self) -> np.ndarray:
        """``u``, or 0.5 for every transaction when there are none."""
        return self.u if self.u is not None else np.full(len(self.commit_s), 0.5)

    def dependency_uniforms(self) -> np.ndarray:
        """``v``, or 1 for every transaction (none depends on another) when there are none."""
        return self.v if self.v is not None else np.ones(len(self.commit_s))

    def __len__(self) -> int:
        return len(self.commit_s)


def _poisson_count(rng: np.random.Generator, t0: float, t1: float, per_s: float) -> int:
    """How many events a Poisson process of rate ``per_s`` has on ``[t0, t1)`` (one draw, none when empty)."""
    if per_s <= 0 or t1 <= t0:
        return 0
    return int(rng.poisson(per_s * (t1 - t0)))


def _spread(rng: np.random.Generator, gaps: np.ndarray, t0: float, t1: float) -> np.ndarray:
    """The sorted times of ``len(gaps) - 1`` Poisson events on ``[t0, t1)``, written into ``gaps``.

    Given their count, the events are uniform order statistics: cumulative exponential gaps,
    one more than the events, scaled so the last ends at ``t1``. Returns the view of the times.
    """
    rng.standard_exponential(out=gaps)
    np.cumsum(gaps, out=gaps)
    total, times = gaps[-1], gaps[:-1]  # t0 + (t1 - t0) * cs[:-1] / cs[-1]
    times *= t1 - t0
    times /= total
    times += t0
    return times


def _poisson_times(rng: np.random.Generator, t0: float, t1: float, per_s: float) -> np.ndarray:
    """Sorted times of a Poisson process of rate ``per_s`` on ``[t0, t1)``."""
    n = _poisson_count(rng, t0, t1, per_s)
    return _spread(rng, np.empty(n + 1), t0, t1) if n else np.empty(0)


def generate(
    profile: Profile, t0: float, t1: float, rows_per_txn: int, rng: np.random.Generator
) -> Transactions:
    """Transactions committed in ``[t0, t1)``.

    Parameters
    ----------
    profile : Profile
        The workload.
    t0, t1 : float
        Time window, s.
    rows_per_txn : int
        Rows per OLTP transaction (``profile.rows_per_txn`` wins when set).
    rng : numpy.random.Generator
        The run's only source of randomness.
    """
    rpt = profile.rows_per_txn or rows_per_txn
    times, rows, begins = [], [], []
    edges = list(profile.breaks_s) + [np.inf]
    for i, r in enumerate(profile.rows_per_s):
        a, b = max(t0, edges[i]), min(t1, edges[i + 1])
        ts = _poisson_times(rng, a, b, r / rpt)
        if ts.size:
            times.append(ts)
            rows.append(np.full(ts.size, rpt, dtype=np.int64))
            begins.append(ts)
    for w in profile.batches:
        a, b = max(t0, w.start_s), min(t1, w.end_s)
        ts = _poisson_times(rng, a, b, w.rows_per_s / w.rows_per_txn)
        if ts.size:
            times.append(ts)
            rows.append(np.full(ts.size, w.rows_per_txn, dtype=np.int64))
            begins.append(np.maximum(ts - w.rows_per_txn / w.rows_per_s, 0.0))
    if not times:
        return Transactions(np.empty(0), np.empty(0, dtype=np.int64), np.empty(0), np.empty(0))
    if len(times) == 1:
        out = Transactions(times[0], rows[0], begins[0])
    else:
        t = np.concatenate(times)
        if not profile.batches:  # OLTP pieces do not overlap: already in order
            out = Transactions(t, np.concatenate(rows), np.concatenate(begins))
        else:
            order = np.argsort(t, kind="stable")
            out = Transactions(t[order], np.concatenate(rows)[order], np.concatenate(begins)[order])
    out.u = rng.random(len(out.commit_s))  # drawn last: commit times do not depend on it
    out.v = rng.random(len(out.commit_s))  # after u: adding it changed no earlier draw
    return out


def generate_blocks(
    profile: Profile, bounds_s, rows_per_txn: int, rngs: list[np.random.Generator]
) -> Transactions:
    """Transactions committed in consecutive blocks of time, each drawn from its own generator.

    The same transactions as :func:`generate` called block by block and :func:`concat`-enated:
    block ``k`` is ``[bounds_s[k], bounds_s[k + 1])`` and draws from ``rngs[k]`` in the same
    order. Where no batch window overlaps the blocks (a batch window draws nothing outside its
    own time) the draws are written straight into one set of arrays (no per-block arrays to
    join), which is most of the cost of a run's workload.

    Parameters
    ----------
    profile : Profile
        The workload.
    bounds_s : sequence of float
        Block edges, s, increasing; one more than ``rngs``.
    rows_per_txn : int
        Rows per OLTP transaction (``profile.rows_per_txn`` wins when set).
    rngs : list of numpy.random.Generator
        One generator per block.
    """
    if any(w.start_s < bounds_s[-1] and w.end_s > bounds_s[0] for w in profile.batches):
        return concat(
            [generate(profile, a, b, rows_per_txn, g) for a, b, g in zip(bounds_s, bounds_s[1:], rngs)]
        )
    rpt = profile.rows_per_txn or rows_per_txn
    out = _OltpDraws(profile, rpt, _draw_capacity(profile, rpt, bounds_s[0], bounds_s[-1]))
    for a, b, g in zip(bounds_s, bounds_s[1:], rngs):
        out.draw_block(a, b, g)
    return out.transactions()


def _draw_capacity(profile: Profile, rows_per_txn: int, t0_s: float, t1_s: float) -> int:
    """Room for the OLTP transactions of ``[t0_s, t1_s)``: their expected count plus 8 standard
    deviations (rarely exceeded; the arrays then grow)."""
    expected_txns = profile.rows_between(t0_s, t1_s) / rows_per_txn
    return int(expected_txns + 8.0 * math.sqrt(expected_txns + 1.0)) + 64


class _OltpDraws:
    """Arrays that OLTP transactions are drawn into, block after block, growing by doubling."""

    def __init__(self, profile: Profile, rows_per_txn: int, capacity: int):
        self.profile = profile
        self.rows_per_txn = rows_per_txn
        self.edges_s = list(profile.breaks_s) + [np.inf]
        self.commit_s, self.u, self.v = np.empty(capacity), np.empty(capacity), np.empty(capacity)
        self.used = 0

    def _room(self, n: int) -> None:
        """Make room for ``n`` more values (one more than the transactions: the normalising gap)."""
        if self.used + n <= len(self.commit_s):
            return
        cap = max(2 * len(self.commit_s), self.used + n)
        for name in ("commit_s", "u", "v"):
            grown = np.empty(cap)
            grown[: self.used] = getattr(self, name)[: self.used]
            setattr(self, name, grown)

    def draw_block(self, t0_s: float, t1_s: float, rng: np.random.Generator) -> None:
        """The draws of :func:`generate` for ``[t0_s, t1_s)``, in its order, appended."""
        first = self.used
        for i, rows_per_s in enumerate(self.profile.rows_per_s):
            a, b = max(t0_s, self.edges_s[i]), min(t1_s, self.edges_s[i + 1])
            n = _poisson_count(rng, a, b, rows_per_s / self.rows_per_txn)
            if n == 0:
                continue
            self._room(n + 1)
            _spread(rng, self.commit_s[self.used : self.used + n + 1], a, b)
            self.used += n
        rng.random(out=self.u[first : self.used])
        rng.random(out=self.v[first : self.used])

    def transactions(self) -> Transactions:
        n = self.used
        times = self.commit_s[:n]
        return Transactions(
            times, np.full(n, self.rows_per_txn, dtype=np.int64), times, self.u[:n], self.v[:n]
        )


def concat(parts: list[Transactions]) -> Transactions:
    """Consecutive chunks of transactions as one."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return Transactions(np.empty(0), np.empty(0, dtype=np.int64), np.empty(0), np.empty(0))
    if len(parts) == 1:
        return parts[0]
    return Transactions(
        np.concatenate([p.commit_s for p in parts]),
        np.concatenate([p.rows for p in parts]),
        np.concatenate([p.begin_s for p in parts]),
        np.concatenate([p.uniforms() for p in parts]),
        np.concatenate([p.dependency_uniforms() for p in parts]),
    )
