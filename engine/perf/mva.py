"""Mean value analysis of single-class closed queueing networks.

A closed network has ``n`` customers (jobs, users) that cycle through a think
(delay) time ``Z`` and a set of service stations. Each station is described
by its service *demand* ``D`` (visits times service time per visit, seconds
per cycle). Three station kinds are supported:

``queue``
    A single-server FCFS/PS station: residence ``R = D (1 + Q(n-1))``.
``delay``
    An infinite-server station (pure latency, e.g. a network round trip):
    ``R = D``.
``multi``
    A ``c``-server station, handled with Seidmann's approximation: a queue
    station of demand ``D / c`` in series with a delay of ``D (c - 1) / c``.
    Exact at light load and at saturation (capacity ``c / D``).

:func:`exact_mva` runs the exact recursion (Reiser and Lavenberg) for
``n = 1 .. N``; :func:`schweitzer_mva` the Bard-Schweitzer fixed point, which
costs the same for any ``N`` and is used by :func:`solve_mva` for large
populations. Results obey Little's law: ``N = X (R + Z)``.
"""

from __future__ import annotations

from dataclasses import dataclass

STATION_KINDS = ("queue", "delay", "multi")


@dataclass(frozen=True)
class Station:
    """One service centre of a closed network.

    Parameters
    ----------
    name : str
        Station name (``cpu``, ``mirror_link`` ...).
    demand_s : float
        Service demand per customer cycle, in seconds (>= 0).
    kind : str
        ``queue``, ``delay`` or ``multi``.
    servers : float
        Servers of a ``multi`` station (>= 1; fractional values interpolate); ignored otherwise.
    """

    name: str
    demand_s: float
    kind: str = "queue"
    servers: float = 1

    def __post_init__(self):
        if self.kind not in STATION_KINDS:
            raise ValueError(
                f"station {self.name!r}: kind {self.kind!r} is not allowed; expected one of "
                f"{', '.join(STATION_KINDS)}"
            )
        if not (self.demand_s >= 0):
            raise ValueError(
                f"station {self.name!r}: demand_s {self.demand_s!r} is not allowed; "
                "expected a number >= 0 seconds"
            )
        if self.kind == "multi" and self.servers < 1:
            raise ValueError(f"station {self.name!r}: servers {self.servers!r} is not allowed; expected >= 1")

    @property
    def queue_demand_s(self) -> float:
        """Demand of the queueing part (0 for a delay station)."""
        if self.kind == "delay":
            return 0.0
        if self.kind == "multi":
            return self.demand_s / self.servers
        return self.demand_s

    @property
    def delay_demand_s(self) -> float:
        """Demand of the pure-delay part."""
        if self.kind == "delay":
            return self.demand_s
        if self.kind == "multi":
            return self.demand_s * (self.servers - 1) / self.servers
        return 0.0

    @property
    def capacity_per_s(self) -> float:
        """Most customers per second the station can complete (inf for a delay)."""
        q = self.queue_demand_s
        return float("inf") if q <= 0 else 1.0 / q


@dataclass(frozen=True)
class MVAResult:
    """Solution of a closed network at one population.

    Attributes
    ----------
    customers : float
        Population ``N``.
    throughput_per_s : float
        Cycles completed per second ``X``.
    response_s : float
        Time per cycle spent at the stations (excluding think time), ``R``.
    residence_s : dict[str, float]
        Residence time per cycle at each station.
    queue_length : dict[str, float]
        Mean customers at each station (``X * residence``, Little's law).
    utilisation : dict[str, float]
        Busy fraction of each station (per server for ``multi``).
    """

    customers: float
    throughput_per_s: float
    response_s: float
    residence_s: dict
    queue_length: dict
    utilisation: dict

    @property
    def bottleneck(self) -> str | None:
        """Station with the highest utilisation (None when all idle)."""
        if not self.utilisation:
            return None
        name, u = max(self.utilisation.items(), key=lambda kv: kv[1])
        return name if u > 0 else None


def _check(stations, n, think_time_s):
    if n < 0:
        raise ValueError(f"customers {n!r} is not allowed; expected a number >= 0")
    if think_time_s < 0:
        raise ValueError(f"think_time_s {think_time_s!r} is not allowed; expected >= 0 seconds")
    names = [s.name for s in stations]
    if len(set(names)) != len(names):
        raise ValueError(f"station names must be unique; got {names}")


def _result(stations, n, x, resid) -> MVAResult:
    r = sum(resid)
    return MVAResult(
        customers=n,
        throughput_per_s=x,
        response_s=r,
        residence_s={s.name: ri for s, ri in zip(stations, resid)},
        queue_length={s.name: x * ri for s, ri in zip(stations, resid)},
        utilisation={s.name: (x * s.queue_demand_s if s.kind != "delay" else 0.0) for s in stations},
    )


def exact_mva(stations: list[Station], customers: int, think_time_s: float = 0.0) -> MVAResult:
    """Exact MVA recursion up to ``customers``.

    Parameters
    ----------
    stations : list of Station
    customers : int
        Population ``N`` (>= 0). Cost is ``O(N * len(stations))``.
    think_time_s : float
        Think time per cycle ``Z`` in seconds.

    Returns
    -------
    MVAResult

    Raises
    ------
    ValueError
        Negative population or think time, duplicate station names.
    """
    _check(stations, customers, think_time_s)
    n_total = int(customers)
    qd = [s.queue_demand_s for s in stations]
    dd = [s.delay_demand_s for s in stations]
    q = [0.0] * len(stations)
    x = 0.0
    resid = [d + e for d, e in zip(qd, dd)]
    for n in range(1, n_total + 1):
        resid = [d * (1.0 + qi) + e for d, qi, e in zip(qd, q, dd)]
        x = n / (think_time_s + sum(resid))
        q = [x * (d * (1.0 + qi)) for d, qi in zip(qd, q)]
    return _result(stations, n_total, x, resid if n_total else [0.0] * len(stations))


def throughput_curve(stations: list[Station], max_customers: int) -> list[tuple[float, float]]:
    """``(X(n), R(n))`` for ``n = 1 .. max_customers`` with no think time (exact MVA).

    Used to build a flow-equivalent server of a sub-network.
    """
    _check(stations, max_customers, 0.0)
    qd = [s.queue_demand_s for s in stations]
    dd = [s.delay_demand_s for s in stations]
    q = [0.0] * len(stations)
    out = []
    for n in range(1, int(max_customers) + 1):
        resid_q = [d * (1.0 + qi) for d, qi in zip(qd, q)]
        r = sum(resid_q) + sum(dd)
        x = n / r if r > 0 else float("inf")
        q = [x * rq for rq in resid_q]
        out.append((x, r))
    return out


def schweitzer_mva(
    stations: list[Station],
    customers: float,
    think_time_s: float = 0.0,
    tol: float = 1e-9,
    max_iter: int = 10_000,
) -> MVAResult:
    """Bard-Schweitzer approximate MVA: ``Q_k(N-1) ~ (N-1)/N * Q_k(N)``.

    Accurate to a few percent; the cost does not grow with ``customers``.

    Raises
    ------
    ValueError
        As :func:`exact_mva`.
    """
    _check(stations, customers, think_time_s)
    n = float(customers)
    if n == 0:
        return _result(stations, 0.0, 0.0, [0.0] * len(stations))
    qd = [s.queue_demand_s for s in stations]
    dd = [s.delay_demand_s for s in stations]
    k = max(1, sum(1 for d in qd if d > 0))
    q = [n / k if d > 0 else 0.0 for d in qd]
    f = (n - 1.0) / n
    x = 0.0
    resid = [0.0] * len(stations)
    for _ in range(max_iter):
        resid = [d * (1.0 + f * qi) + e for d, qi, e in zip(qd, q, dd)]
        x = n / (think_time_s + sum(resid))
        new_q = [x * d * (1.0 + f * qi) for d, qi in zip(qd, q)]
        # damped update keeps heavily loaded networks from oscillating
        delta = max((abs(a - b) for a, b in zip(new_q, q)), default=0.0)
        q = [0.5 * a + 0.5 * b for a, b in zip(new_q, q)]
        if delta <= tol * max(1.0, n):
            break
    return _result(stations, n, x, resid)


def solve_mva(
    stations: list[Station],
    customers: float,
    think_time_s: float = 0.0,
    method: str = "auto",
    exact_limit: int = 2000,
) -> MVAResult:
    """Solve with ``exact`` MVA, ``schweitzer`` AMVA, or ``auto`` (exact up to ``exact_limit``).

    Non-integer populations always use the approximate method.
    """
    if method not in ("auto", "exact", "schweitzer"):
        raise ValueError(f"method {method!r} is not allowed; expected 'auto', 'exact' or 'schweitzer'")
    integral = float(customers).is_integer()
    if method == "exact" or (method == "auto" and integral and customers <= exact_limit):
        return exact_mva(stations, int(customers), think_time_s)
    return schweitzer_mva(stations, customers, think_time_s)
