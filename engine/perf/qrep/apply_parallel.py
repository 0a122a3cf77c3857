"""Q Apply's parallelism: the dependency graph the browser resolves, and contention between agents.

One browser per receive queue reads transactions into Q Apply's memory, builds the graph of
their dependencies (a transaction that changes a row or unique key an earlier one still in
flight changed depends on it) and hands NUM_APPLY_AGENTS agents every transaction whose
dependencies have committed (seeds 000 and 001: "examines dependencies between transactions,
and based on this dependency analysis applies data changes through parallel Q Apply agents").
The steady-state engine (:mod:`engine.perf.qrep.pipeline`) and, through it, the simulator's
agents take these functions; nothing here is fitted but the two shares of :func:`stretch`.

Dependency graph within the look-ahead
    A dependent transaction does not stop the agents: the browser passes over it to the
    independent ones behind it. What it cannot pass over is its memory: it looks ahead only
    as far as MEMORY_LIMIT holds transactions (:func:`lookahead_txns`). A share ``d`` of
    transactions each depends on the one before, so they form chains of mean length
    ``1 / (1 - d)`` applied one after the other; a transaction stays in memory for its own
    service plus the services of the chain ahead of it, ``S / (1 - d)`` on average. By
    Little's law a look-ahead of ``W`` transactions then keeps at most ``W (1 - d)`` agents
    busy (:func:`graph_parallelism`): chains within the look-ahead cost the agents nothing,
    chains beyond it starve them; one agent always works (a single chain is applied in order).
Contention between agents
    Agents applying at the same time contend for Db2 latches, the log and commit
    serialisation and the receive queue: each busy agent's elapsed time grows by
    ``agent_latch_share`` and its CPU by ``agent_cpu_share`` per other busy agent
    (:func:`stretch`), so scaling is sub-linear before the CPU saturates and CPU per row rises
    with the agents working at once (seed 000, 4.2: "increasing the apply agents improves Q
    Apply throughput, but it costs slightly more in CPU").
"""

from __future__ import annotations

import math


def lookahead_txns(memory_limit_mb: float, target_txn_bytes: float) -> float:
    """Transactions the browser can hold while resolving their dependencies.

    Parameters
    ----------
    memory_limit_mb : float
        Q Apply's MEMORY_LIMIT for the receive queue, MB.
    target_txn_bytes : float
        Message bytes of one target transaction.

    Returns
    -------
    float
        ``MEMORY_LIMIT / target_txn_bytes`` (below 1 for a transaction bigger than the memory).
    """
    return memory_limit_mb * 1048576.0 / max(target_txn_bytes, 1.0)


def chain_txns(dependent: float, lookahead: float) -> float:
    """Mean length of a chain of dependent transactions (each on the one before), transactions.

    ``1 / (1 - dependent)`` (geometric), no longer than the look-ahead: a chain the browser has
    not read yet does not hold its memory.
    """
    if dependent >= 1.0:
        return max(lookahead, 1.0)
    return min(1.0 / (1.0 - dependent), max(lookahead, 1.0))


def graph_parallelism(agents: float, dependent: float, lookahead: float) -> float:
    """Agents the dependency graph keeps busy when the agents limit the flow.

    Parameters
    ----------
    agents : float
        Agents that may work at once (NUM_APPLY_AGENTS, MAXAGENTS_CORRELID).
    dependent : float
        Share of target transactions depending on the one before (0..1).
    lookahead : float
        Transactions the browser holds (:func:`lookahead_txns`).

    Returns
    -------
    float
        ``min(agents, max(1, lookahead / chain length))``: a transaction holds its memory for
        the chain's services ahead of it and its own (Little's law over the look-ahead); without
        dependencies the agents apply at most the transactions the memory holds. A look-ahead
        below one transaction leaves ``agents`` (a transaction bigger than MEMORY_LIMIT is
        applied alone, which the caller models).
    """
    if agents <= 1.0 or lookahead < 1.0:
        return agents
    return min(agents, max(1.0, lookahead / chain_txns(dependent, lookahead)))


def chain_wait_services(dependent: float, lookahead: float) -> float:
    """Mean wait of a transaction for the chain ahead of it, in agent services.

    A transaction at depth ``j`` of its chain waits for its predecessor's remaining half
    service and for that one's own wait: ``j / 2`` services, ``dependent / (1 - dependent) / 2``
    on average (half a service for a lone dependent), the chain no longer than the look-ahead.
    """
    if dependent <= 0.0:
        return 0.0
    return 0.5 * (chain_txns(dependent, lookahead) - 1.0)


def busy_agents(txns_per_s: float, agent_ms: float, latch_share: float, servers: float) -> float:
    """Agents busy on average when each busy agent's time grows with the others (latch contention).

    Solves ``n = lambda S0 (1 + s (n - 1))`` for ``n`` (Little's law with the stretch), at most
    ``servers``.

    Parameters
    ----------
    txns_per_s : float
        Target transactions per second.
    agent_ms : float
        An agent's time per target transaction without contention, ms.
    latch_share : float
        ``agent_latch_share``.
    servers : float
        Agents that can work at once.
    """
    offered = txns_per_s * agent_ms / 1000.0
    if offered <= 1.0 or latch_share <= 0.0:
        return min(offered, servers)
    denom = 1.0 - offered * latch_share
    n = offered * (1.0 - latch_share) / denom if denom > 0 else servers
    return min(max(n, 1.0), servers)


def stretch(busy: float, share: float) -> float:
    """Factor on a busy agent's time (or CPU) with ``busy`` agents working: ``1 + share (busy - 1)``."""
    if not math.isfinite(busy):
        raise ValueError(f"busy agents must be finite, got {busy}")
    return 1.0 + share * max(busy - 1.0, 0.0)
