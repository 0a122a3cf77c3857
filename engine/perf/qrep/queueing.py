"""Queueing approximations used by the steady-state solver (pure Python, no allocation).

* :func:`erlang_c` - probability of waiting in an M/M/c queue.
* :func:`cpu_inflation` - how much CPU contention stretches the elapsed time of CPU work on an
  LPAR of ``c`` processors at utilisation ``rho`` (``1 + kappa * C(c, rho) / (c (1 - rho))``,
  the M/M/c response-time factor; ``kappa`` in [0, 1] is the share of that queueing the
  replication work sees under WLM priorities).
* :func:`mmc_wait` - mean M/M/c waiting time.
* :func:`blocking_factor` - throughput kept by a pipeline stage whose input buffer holds
  ``b`` items (two-stage tandem with a finite buffer).
"""

from __future__ import annotations

#: Utilisation at which queueing formulas are evaluated at most (keeps results finite).
RHO_CAP = 0.995


def erlang_c(servers: int, rho: float) -> float:
    """Probability that an arrival waits in an M/M/c queue.

    Parameters
    ----------
    servers : int
        Number of servers ``c`` (at least 1).
    rho : float
        Utilisation per server, clipped to [0, :data:`RHO_CAP`].

    Returns
    -------
    float
        Erlang C probability in [0, 1].
    """
    if rho <= 0.0:
        return 0.0
    if rho > RHO_CAP:
        rho = RHO_CAP
    a = servers * rho
    b = 1.0
    for k in range(1, servers + 1):
        b = a * b / (k + a * b)
    return b / (1.0 - rho * (1.0 - b))


def cpu_inflation(servers: int, rho: float, kappa: float) -> float:
    """Elapsed-time stretch of CPU work on ``servers`` processors busy ``rho`` (>= 1)."""
    if rho <= 0.0 or kappa <= 0.0:
        return 1.0
    r = rho if rho < RHO_CAP else RHO_CAP
    return 1.0 + kappa * erlang_c(servers, r) / (servers * (1.0 - r))


def mmc_wait(servers: int, rho: float, service: float) -> float:
    """Mean wait before service in an M/M/c queue, in the unit of ``service``."""
    if rho <= 0.0:
        return 0.0
    r = rho if rho < RHO_CAP else RHO_CAP
    return erlang_c(servers, r) * service / (servers * (1.0 - r))


def blocking_factor(buffer_items: float) -> float:
    """Share of throughput a stage keeps when its input buffer holds ``buffer_items``.

    For two balanced exponential stages separated by a buffer of ``b`` places the
    throughput is ``(b + 1) / (b + 2)`` of either stage's rate; large buffers lose nothing.
    """
    b = buffer_items if buffer_items > 0.0 else 0.0
    return (b + 1.0) / (b + 2.0)
