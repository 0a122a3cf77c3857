"""Load profiles: how many rows per second the source commits over time, as a project states them.

A profile is an OLTP stream whose rate in rows/s is piecewise constant in time, plus optional
*batch windows*: jobs that commit large transactions at their own rate during a window.
The simulator draws its transactions from them (:mod:`engine.sim.profiles`); they live below it,
beside the project model, so a project file's load profile is checked where the file is read.

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
