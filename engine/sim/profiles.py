"""Workload profiles: how many rows per second the source commits over time.

A profile is an OLTP stream whose rate in rows/s is piecewise constant in time, plus optional
*batch windows*: jobs that commit large transactions at their own rate during a window.
Transactions arrive as a non-homogeneous Poisson process (exact: on each constant piece the
count is Poisson and the times are uniform order statistics, drawn from normalised exponential
spacings, so no sort is needed).

Profile documents (JSON, or a Python dict; ``rows_per_txn`` overrides the project's):

``{"kind": "constant", "rows_per_s": 5000}``
``{"kind": "steps", "steps": [[0, 1000], [120, 5000], [300, 2000]]}``  (start s, rows/s)
``{"kind": "bursts", "base_rows_per_s": 1000, "burst_rows_per_s": 8000, "period_s": 60, "burst_s": 10}``
``{"kind": "batch_window", "base_rows_per_s": 2000, "start_s": 60, "duration_s": 120,
  "batch_rows_per_s": 20000, "batch_rows_per_txn": 10000}``
A CSV file of ``t_s,rows_per_s`` (a header line is optional): the rate holds from each time to
the next.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.errors import FieldError


@dataclass(frozen=True)
class BatchWindow:
    """A batch job committing large transactions during a window.

    Attributes
    ----------
    start_s, duration_s : float
        Window, s.
    rows_per_s : float
        Rows the job commits per second.
    rows_per_txn : int
        Rows in each of its transactions.
    """

    start_s: float
    duration_s: float
    rows_per_s: float
    rows_per_txn: int

    @property
    def end_s(self) -> float:
        return self.start_s + self.duration_s


@dataclass(frozen=True)
class Profile:
    """Offered workload over time.

    Attributes
    ----------
    breaks_s : tuple of float
        Start of each constant piece of the OLTP rate, increasing, first 0.
    rows_per_s : tuple of float
        OLTP rate on each piece, rows/s; the last holds to the end of the run.
    rows_per_txn : int or None
        Rows per OLTP transaction; None takes the project's ``workload.rows_per_txn``.
    batches : tuple of BatchWindow
        Batch windows with large transactions.
    kind : str
        The profile kind it was built from, for reports.
    """

    breaks_s: tuple
    rows_per_s: tuple
    rows_per_txn: int | None = None
    batches: tuple = ()
    kind: str = "constant"
    doc: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        if not self.breaks_s or self.breaks_s[0] != 0 or len(self.breaks_s) != len(self.rows_per_s):
            raise FieldError("profile", self.breaks_s, "pieces starting at 0 s, one rate per piece")
        if any(b <= a for a, b in zip(self.breaks_s, self.breaks_s[1:])):
            raise FieldError("profile.breaks_s", self.breaks_s, "increasing times")
        for r in self.rows_per_s:
            if not np.isfinite(r) or r < 0:
                raise FieldError("profile.rows_per_s", r, "a rate >= 0 rows/s")
        if self.rows_per_txn is not None and self.rows_per_txn < 1:
            raise FieldError("profile.rows_per_txn", self.rows_per_txn, "an integer >= 1")

    def rate_at(self, t_s):
        """OLTP plus batch rows/s at times ``t_s``."""
        t = np.asarray(t_s, dtype=float)
        k = np.searchsorted(np.asarray(self.breaks_s), t, side="right") - 1
        r = np.asarray(self.rows_per_s)[k]
        for b in self.batches:
            r = r + np.where((t >= b.start_s) & (t < b.end_s), b.rows_per_s, 0.0)
        return r

    def peak_rows_per_s(self, duration_s: float) -> float:
        """Highest offered rate within the run, rows/s."""
        pts = [t for t in self.breaks_s if t < duration_s] + [
            b.start_s for b in self.batches if b.start_s < duration_s
        ]
        return float(np.max(self.rate_at(np.array(pts)))) if pts else 0.0

    def rows_between(self, t0_s: float, t1_s: float) -> float:
        """Rows offered on ``[t0_s, t1_s)`` (the rate's integral), OLTP pieces and batch windows."""
        edges = np.append(np.asarray(self.breaks_s, float), np.inf)
        total = 0.0
        for i, r in enumerate(self.rows_per_s):
            total += r * max(0.0, min(edges[i + 1], t1_s) - max(edges[i], t0_s))
        for b in self.batches:
            total += b.rows_per_s * max(0.0, min(b.end_s, t1_s) - max(b.start_s, t0_s))
        return total

    def mean_rows_per_s(self, duration_s: float) -> float:
        """Average offered rate over ``[0, duration_s)``, rows/s."""
        return self.rows_between(0.0, duration_s) / duration_s

    def to_json(self) -> dict:
        return self.doc or {
            "kind": self.kind,
            "steps": [list(p) for p in zip(self.breaks_s, self.rows_per_s)],
        }


def constant(rows_per_s: float, rows_per_txn: int | None = None) -> Profile:
    """A steady rate, rows/s."""
    return Profile(
        (0.0,),
        (float(rows_per_s),),
        rows_per_txn,
        kind="constant",
        doc={"kind": "constant", "rows_per_s": rows_per_s},
    )


def _num(doc: dict, key: str, where: str, minimum: float = 0.0) -> float:
    if key not in doc:
        raise FieldError(f"{where}.{key}", None, "a number (required)")
    try:
        v = float(doc[key])
    except (TypeError, ValueError):
        raise FieldError(f"{where}.{key}", doc[key], "a number") from None
    if not np.isfinite(v) or v < minimum:
        raise FieldError(f"{where}.{key}", doc[key], f"a number >= {minimum:g}")
    return v


def from_dict(doc: dict, where: str = "profile") -> Profile:
    """Build a profile from its JSON document (see the module docstring).

    Raises
    ------
    FieldError
        Unknown kind or a missing or out-of-range value (the message names the field).
    """
    if not isinstance(doc, dict):
        raise FieldError(where, doc, "an object with a kind")
    kind = doc.get("kind")
    rpt = doc.get("rows_per_txn")
    rpt = None if rpt is None else int(_num(doc, "rows_per_txn", where, 1))
    if kind == "constant":
        return Profile((0.0,), (_num(doc, "rows_per_s", where),), rpt, kind=kind, doc=doc)
    if kind == "steps":
        steps = doc.get("steps")
        if not isinstance(steps, list) or not steps:
            raise FieldError(f"{where}.steps", steps, "a list of [start_s, rows_per_s] pairs")
        try:
            pairs = sorted((float(a), float(b)) for a, b in steps)
        except (TypeError, ValueError):
            raise FieldError(f"{where}.steps", steps, "a list of [start_s, rows_per_s] pairs") from None
        if pairs[0][0] != 0.0:
            pairs.insert(0, (0.0, 0.0))
        return Profile(tuple(p[0] for p in pairs), tuple(p[1] for p in pairs), rpt, kind=kind, doc=doc)
    if kind == "bursts":
        base = _num(doc, "base_rows_per_s", where)
        burst = _num(doc, "burst_rows_per_s", where)
        period = _num(doc, "period_s", where, 1e-3)
        width = _num(doc, "burst_s", where, 1e-3)
        first = float(doc.get("start_s", 0.0))
        if width >= period:
            raise FieldError(f"{where}.burst_s", width, f"less than period_s ({period:g})")
        until = float(doc.get("until_s", 86_400.0))
        breaks, rates = [0.0], [base]
        t = first
        while t < until:
            if t == 0.0:
                rates[0] = burst
            else:
                breaks.append(t)
                rates.append(burst)
            breaks.append(t + width)
            rates.append(base)
            t += period
        return Profile(tuple(breaks), tuple(rates), rpt, kind=kind, doc=doc)
    if kind == "batch_window":
        base = _num(doc, "base_rows_per_s", where)
        win = BatchWindow(
            _num(doc, "start_s", where),
            _num(doc, "duration_s", where, 1e-3),
            _num(doc, "batch_rows_per_s", where),
            int(_num(doc, "batch_rows_per_txn", where, 1)),
        )
        return Profile((0.0,), (base,), rpt, batches=(win,), kind=kind, doc=doc)
    raise FieldError(f"{where}.kind", kind, "constant, steps, bursts or batch_window")


def from_csv(path: str | Path) -> Profile:
    """A profile from a CSV of ``t_s,rows_per_s`` (rate holds until the next time).

    Raises
    ------
    FieldError
        A line that is not two numbers (the message gives file and line), or no data.
    """
    from engine.errors import QrtuneError
    from engine.io import jsonfile

    text = jsonfile.decode_utf8(jsonfile.read_bytes(path, QrtuneError), str(path), QrtuneError)
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as e:  # a field over the csv module's 131,072-character limit, a NUL byte
        raise FieldError(str(path), str(e), "a CSV of t_s,rows_per_s") from None
    pairs = []
    for lineno, row in enumerate(rows, start=1):
        if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
            continue
        try:
            t, r = float(row[0]), float(row[1])
        except (ValueError, IndexError):
            if lineno == 1:
                continue  # header
            raise FieldError(f"{path}:{lineno}", ",".join(row), "two numbers: t_s,rows_per_s") from None
        if t < 0 or r < 0 or not np.isfinite(t) or not np.isfinite(r):
            raise FieldError(f"{path}:{lineno}", ",".join(row), "t_s >= 0 and rows_per_s >= 0")
        pairs.append((t, r))
    if not pairs:
        raise FieldError(str(path), "", "at least one line t_s,rows_per_s")
    pairs.sort()
    dedup = {}
    for t, r in pairs:
        dedup[t] = r
    pairs = sorted(dedup.items())
    if pairs[0][0] != 0.0:
        pairs.insert(0, (0.0, 0.0))
    return Profile(
        tuple(p[0] for p in pairs),
        tuple(p[1] for p in pairs),
        kind="csv",
        doc={"kind": "csv", "file": str(path), "steps": [list(p) for p in pairs]},
    )


def load(path: str | Path) -> Profile:
    """A profile from a ``.csv`` file or a JSON document file."""
    p = Path(path)
    if not p.exists():
        raise FieldError("--profile", str(path), "an existing .json or .csv file")
    if p.suffix.lower() == ".csv":
        return from_csv(p)
    from engine.errors import QrtuneError
    from engine.io import jsonfile

    return from_dict(jsonfile.read_json(p, QrtuneError), where=str(p.name))


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
    order. Without batch windows the draws are written straight into one set of arrays (no
    per-block arrays to join), which is most of the cost of a run's workload.

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
    if profile.batches:
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
